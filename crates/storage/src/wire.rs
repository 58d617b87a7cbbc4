//! Pure helpers for the HTTP side: ranges, entity tags, MIME allow-lists,
//! size strings, cache-control and content-disposition values.

use chrono::{DateTime, Utc};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

/// A satisfiable byte range, both ends inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

impl ByteRange {
    pub fn len(&self) -> u64 {
        self.end - self.start + 1
    }
}

/// What a `Range` header asks of an object of `size` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeRequest {
    /// No header, or one we ignore (several ranges, other units, garbage):
    /// the whole object with 200, as RFC 9110 allows.
    Full,
    Partial(ByteRange),
    /// Well-formed but outside the object: 416.
    Unsatisfiable,
}

/// Parses `bytes=a-b`, `bytes=a-` and `bytes=-n`.
pub fn parse_range(header: Option<&str>, size: u64) -> RangeRequest {
    let Some(value) = header else {
        return RangeRequest::Full;
    };
    let Some(spec) = value.trim().strip_prefix("bytes=") else {
        return RangeRequest::Full;
    };
    if spec.contains(',') {
        return RangeRequest::Full;
    }
    let Some((first, last)) = spec.trim().split_once('-') else {
        return RangeRequest::Full;
    };
    let (first, last) = (first.trim(), last.trim());
    let parse = |s: &str| s.parse::<u64>().ok();
    match (first.is_empty(), last.is_empty()) {
        // bytes=-n: the last n bytes
        (true, false) => match parse(last) {
            Some(0) => RangeRequest::Unsatisfiable,
            Some(n) if size > 0 => RangeRequest::Partial(ByteRange {
                start: size.saturating_sub(n),
                end: size - 1,
            }),
            Some(_) => RangeRequest::Unsatisfiable,
            None => RangeRequest::Full,
        },
        (false, true) => match parse(first) {
            Some(start) if start < size => RangeRequest::Partial(ByteRange {
                start,
                end: size - 1,
            }),
            Some(_) => RangeRequest::Unsatisfiable,
            None => RangeRequest::Full,
        },
        (false, false) => match (parse(first), parse(last)) {
            (Some(start), Some(end)) if start <= end => {
                if start >= size {
                    RangeRequest::Unsatisfiable
                } else {
                    RangeRequest::Partial(ByteRange {
                        start,
                        end: end.min(size - 1),
                    })
                }
            }
            _ => RangeRequest::Full,
        },
        (true, true) => RangeRequest::Full,
    }
}

/// Whether an `If-None-Match` header matches `etag` (weak comparison, `*`,
/// lists).
pub fn none_match(header: Option<&str>, etag: &str) -> bool {
    let Some(value) = header else {
        return false;
    };
    let strip = |t: &str| -> String {
        let t = t.trim();
        t.strip_prefix("W/")
            .unwrap_or(t)
            .trim_matches('"')
            .to_owned()
    };
    let ours = strip(etag);
    value
        .split(',')
        .any(|candidate| candidate.trim() == "*" || strip(candidate) == ours)
}

/// The media type without parameters, lower-cased (`Image/PNG; q=1` -> `image/png`).
pub fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether `content_type` is allowed by a bucket's list (`image/*`, `*/*`,
/// exact types); `None` allows everything.
pub fn mime_allowed(allowed: Option<&[String]>, content_type: &str) -> bool {
    let Some(allowed) = allowed else {
        return true;
    };
    let ours = essence(content_type);
    let Some((kind, _)) = ours.split_once('/') else {
        return false;
    };
    allowed.iter().any(|entry| {
        let entry = essence(entry);
        entry == ours
            || entry == "*/*"
            || entry
                .strip_suffix("/*")
                .is_some_and(|entry_kind| entry_kind == kind)
    })
}

/// A valid `type/subtype` media type.
pub fn is_media_type(content_type: &str) -> bool {
    let essence = essence(content_type);
    let Some((kind, sub)) = essence.split_once('/') else {
        return false;
    };
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+*".contains(&b))
    };
    token(kind) && token(sub)
}

/// A declared content type, trimmed, when it is exactly one well-formed
/// media type: `type/subtype`, then parameters `; name=value` (a token, or a
/// quoted string); `None` otherwise. Browsers read a header such as
/// `image/png, text/html` (or `image/png; a=b, text/html`) as the last type
/// of the list, so a comma anywhere, wildcards and stray characters are
/// refused rather than stored and served back as a type the bucket never
/// allowed.
pub fn declared_type(content_type: &str) -> Option<&str> {
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'+-.^_`|~".contains(&b))
    };
    let content_type = content_type.trim();
    let mut parts = content_type.split(';');
    let (kind, sub) = parts.next()?.trim().split_once('/')?;
    if !token(kind) || !token(sub) {
        return None;
    }
    for parameter in parts {
        let parameter = parameter.trim();
        if parameter.is_empty() {
            continue;
        }
        let (name, value) = parameter.split_once('=')?;
        let (name, value) = (name.trim(), value.trim());
        let quoted = value.len() >= 2
            && value.starts_with('"')
            && value.ends_with('"')
            && value[1..value.len() - 1]
                .bytes()
                .all(|b| (0x20..0x7f).contains(&b) && !b"\"\\,;".contains(&b));
        if !token(name) || !(token(value) || quoted) {
            return None;
        }
    }
    Some(content_type)
}

/// Whether a browser shows a file of this type as inert content (a picture,
/// plain text) rather than as a document that can run script or load
/// things: raster images, plain text, CSV and JSON. Everything else (HTML,
/// SVG, XML, JavaScript, PDF, and any type not known to be inert) is sent
/// as an attachment. An allow-list, so that a type nobody thought of is
/// downloaded, never rendered.
pub fn inline_safe(content_type: &str) -> bool {
    matches!(
        essence(content_type).as_str(),
        "image/png"
            | "image/jpeg"
            | "image/gif"
            | "image/webp"
            | "image/avif"
            | "image/bmp"
            | "image/x-icon"
            | "image/vnd.microsoft.icon"
            | "text/plain"
            | "text/csv"
            | "application/json"
    )
}

/// The `Content-Security-Policy` of every response that carries a stored
/// file: nothing may load or run, and the document is sandboxed (a unique
/// origin, no scripts, no forms, no plugins), so even a file opened as a page
/// of the app's origin cannot act as that origin.
pub const FILE_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/// Parses a bucket's `file_size_limit` as the client may send it: a number
/// of bytes, or a string such as `"5MB"`, `"100kb"`, `"1GB"`, `"2048"`.
pub fn parse_size(value: &serde_json::Value) -> Option<u64> {
    let bytes = |n: f64| {
        (n.is_finite() && n.fract() == 0.0 && n >= 0.0 && n < u64::MAX as f64).then_some(n as u64)
    };
    match value {
        serde_json::Value::Number(n) => n.as_u64().or_else(|| n.as_f64().and_then(bytes)),
        // A numeric string is a number of bytes: the platform's validator
        // coerces it to the schema's first choice, an integer.
        serde_json::Value::String(s) if !s.is_empty() && crate::coerce::js_number(s).is_some() => {
            crate::coerce::js_number(s).and_then(bytes)
        }
        // As the platform parses them: `<number><gb|mb|kb|b>`, no space,
        // decimal units ("20MB" is 20,000,000 bytes), the number rounded to
        // three significant digits.
        serde_json::Value::String(s) => {
            let lower = s.to_ascii_lowercase();
            let digits_end = lower
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(lower.len());
            let (number, unit) = lower.split_at(digits_end);
            let mut parts = number.split('.');
            let whole = parts.next().unwrap_or_default();
            let fraction = parts.next();
            if whole.is_empty() || parts.next().is_some() || fraction.is_some_and(|f| f.is_empty())
            {
                return None;
            }
            let factor: f64 = match unit {
                "b" => 1.0,
                "kb" => 1e3,
                "mb" => 1e6,
                "gb" => 1e9,
                _ => return None,
            };
            let number: f64 = format!("{:.2e}", number.parse::<f64>().ok()?)
                .parse()
                .ok()?;
            let bytes = number * factor;
            (bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
        }
        _ => None,
    }
}

/// `3600` or `max-age=3600` or a full directive list -> a `Cache-Control`
/// value.
pub fn cache_control(value: Option<&str>, default_max_age: u64) -> String {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => format!("max-age={default_max_age}"),
        Some(v) if v.bytes().all(|b| b.is_ascii_digit()) => format!("max-age={v}"),
        Some(v) if v.bytes().all(|b| (0x20..0x7f).contains(&b)) => v.to_owned(),
        Some(_) => format!("max-age={default_max_age}"),
    }
}

const FILENAME: &AsciiSet = &NON_ALPHANUMERIC.remove(b'.').remove(b'-').remove(b'_');

/// What JavaScript's `encodeURIComponent` leaves as it is.
const URI_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// The `Content-Disposition` of a download asked for with `?download=name`,
/// as the platform writes it: the name through `encodeURIComponent` in both
/// `filename` and `filename*` (`attachment; filename=a%20b.png;
/// filename*=UTF-8''a%20b.png`), or `attachment;` for an empty name. What
/// is left unencoded is visible ASCII without `"`, `;`, `,` or white space,
/// so no name can end the header or add a parameter of its own.
pub fn download_disposition(name: &str) -> String {
    if name.is_empty() {
        return "attachment;".to_owned();
    }
    let encoded = utf8_percent_encode(name, URI_COMPONENT);
    format!("attachment; filename={encoded}; filename*=UTF-8''{encoded}")
}

/// `attachment; filename="x.png"; filename*=UTF-8''x.png` (for a file that is
/// never shown inline), with anything unsafe in the quoted form replaced.
pub fn attachment(file_name: &str) -> String {
    let plain: String = file_name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded = utf8_percent_encode(file_name, FILENAME);
    format!("attachment; filename=\"{plain}\"; filename*=UTF-8''{encoded}")
}

/// An HTTP date (`Tue, 15 Nov 1994 08:12:31 GMT`).
pub fn http_date(at: DateTime<Utc>) -> String {
    at.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ranges() {
        let cases: &[(Option<&str>, u64, RangeRequest)] = &[
            (None, 10, RangeRequest::Full),
            (
                Some("bytes=0-4"),
                10,
                RangeRequest::Partial(ByteRange { start: 0, end: 4 }),
            ),
            (
                Some("bytes=5-"),
                10,
                RangeRequest::Partial(ByteRange { start: 5, end: 9 }),
            ),
            (
                Some("bytes=-3"),
                10,
                RangeRequest::Partial(ByteRange { start: 7, end: 9 }),
            ),
            (
                Some("bytes=-30"),
                10,
                RangeRequest::Partial(ByteRange { start: 0, end: 9 }),
            ),
            (
                Some("bytes=8-100"),
                10,
                RangeRequest::Partial(ByteRange { start: 8, end: 9 }),
            ),
            (Some("bytes=10-"), 10, RangeRequest::Unsatisfiable),
            (Some("bytes=10-12"), 10, RangeRequest::Unsatisfiable),
            (Some("bytes=-0"), 10, RangeRequest::Unsatisfiable),
            (Some("bytes=0-"), 0, RangeRequest::Unsatisfiable),
            (Some("bytes=5-2"), 10, RangeRequest::Full),
            (Some("bytes=0-1,3-4"), 10, RangeRequest::Full),
            (Some("items=0-1"), 10, RangeRequest::Full),
            (Some("bytes=x-y"), 10, RangeRequest::Full),
            (Some("bytes=-"), 10, RangeRequest::Full),
        ];
        for (header, size, expected) in cases {
            assert_eq!(
                parse_range(*header, *size),
                *expected,
                "{header:?} of {size}"
            );
        }
        assert_eq!(ByteRange { start: 2, end: 4 }.len(), 3);
    }

    #[test]
    fn entity_tags() {
        let etag = "\"abc\"";
        assert!(none_match(Some("\"abc\""), etag));
        assert!(none_match(Some("W/\"abc\""), etag));
        assert!(none_match(Some("\"x\", \"abc\""), etag));
        assert!(none_match(Some("*"), etag));
        assert!(!none_match(Some("\"abd\""), etag));
        assert!(!none_match(None, etag));
    }

    #[test]
    fn mime_types() {
        let images = vec!["image/*".to_owned()];
        assert!(mime_allowed(Some(&images), "image/png"));
        assert!(mime_allowed(Some(&images), "Image/JPEG; charset=x"));
        assert!(!mime_allowed(Some(&images), "text/plain"));
        assert!(!mime_allowed(Some(&images), "imagepng"));
        let exact = vec!["application/pdf".to_owned()];
        assert!(mime_allowed(Some(&exact), "application/pdf"));
        assert!(!mime_allowed(Some(&exact), "application/zip"));
        assert!(mime_allowed(Some(&["*/*".to_owned()]), "a/b"));
        assert!(mime_allowed(None, "whatever"));
        assert!(is_media_type("text/plain;charset=UTF-8"));
        assert!(!is_media_type("text"));
        assert!(!is_media_type("te xt/plain"));
    }

    #[test]
    fn declared_types() {
        for ok in [
            "image/png",
            "Text/HTML; Charset=UTF-8",
            "text/plain;charset=UTF-8",
            "text/plain; charset=\"utf-8\"",
            "application/vnd.ms-excel",
            "image/png;",
        ] {
            assert_eq!(declared_type(ok), Some(ok), "{ok}");
        }
        assert_eq!(declared_type(" image/png "), Some("image/png"));
        for bad in [
            "",
            "text",
            "image/png, text/html",
            "image/png,text/html",
            "image/png; x=y, text/html",
            "image/png; x=\"a,b\"",
            "image/png\ttext/html",
            "image/png; x",
            "image/*",
            "*/*",
            "te xt/plain",
            "image/png; x=\"a\\\"b\"",
        ] {
            assert_eq!(declared_type(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn inert_types_only_are_inline() {
        for inert in [
            "image/png",
            "IMAGE/JPEG; q=1",
            "text/plain; charset=utf-8",
            "application/json",
        ] {
            assert!(inline_safe(inert), "{inert}");
        }
        for active in [
            "text/html",
            "Text/HTML; charset=utf-8",
            "image/svg+xml",
            "application/xhtml+xml",
            "text/xml",
            "application/xml",
            "application/javascript",
            "text/javascript",
            "application/pdf",
            "application/octet-stream",
            "multipart/x-mixed-replace",
            "something/unknown",
            "",
        ] {
            assert!(!inline_safe(active), "{active}");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size(&json!(1024)), Some(1024));
        // decimal units, as the platform
        assert_eq!(parse_size(&json!("20mb")), Some(20_000_000));
        assert_eq!(parse_size(&json!("5MB")), Some(5_000_000));
        assert_eq!(parse_size(&json!("100kb")), Some(100_000));
        assert_eq!(parse_size(&json!("1GB")), Some(1_000_000_000));
        assert_eq!(parse_size(&json!("1.5mb")), Some(1_500_000));
        assert_eq!(parse_size(&json!("3B")), Some(3));
        // three significant digits
        assert_eq!(parse_size(&json!("1234b")), Some(1230));
        // what the platform's pattern refuses
        assert_eq!(parse_size(&json!("1 GB")), None);
        // numbers in strings are numbers, as the platform's validator
        // coerces them (whole and finite only)
        assert_eq!(parse_size(&json!("2048")), Some(2048));
        assert_eq!(parse_size(&json!("2e3")), Some(2000));
        assert_eq!(parse_size(&json!(2048.0)), Some(2048));
        assert_eq!(parse_size(&json!("1.5")), None);
        assert_eq!(parse_size(&json!("-1")), None);
        assert_eq!(parse_size(&json!("Infinity")), None);
        assert_eq!(parse_size(&json!("5m")), None);
        assert_eq!(parse_size(&json!(".5mb")), None);
        assert_eq!(parse_size(&json!("1.mb")), None);
        assert_eq!(parse_size(&json!("5 parsecs")), None);
        assert_eq!(parse_size(&json!(-1)), None);
        assert_eq!(parse_size(&json!(true)), None);
    }

    #[test]
    fn cache_control_and_disposition() {
        assert_eq!(cache_control(None, 3600), "max-age=3600");
        assert_eq!(cache_control(Some("60"), 3600), "max-age=60");
        assert_eq!(cache_control(Some("max-age=60"), 3600), "max-age=60");
        assert_eq!(cache_control(Some("no-cache"), 3600), "no-cache");
        assert_eq!(cache_control(Some("bad\u{1}"), 10), "max-age=10");
        assert_eq!(
            attachment("a b.png"),
            "attachment; filename=\"a b.png\"; filename*=UTF-8''a%20b.png"
        );
        assert_eq!(download_disposition(""), "attachment;");
        assert_eq!(
            download_disposition("a b.png"),
            "attachment; filename=a%20b.png; filename*=UTF-8''a%20b.png"
        );
        // encodeURIComponent's own set stays; quotes, separators, control
        // characters and non-ASCII are encoded
        assert_eq!(
            download_disposition("it's (1)!~*.txt"),
            "attachment; filename=it's%20(1)!~*.txt; filename*=UTF-8''it's%20(1)!~*.txt"
        );
        assert_eq!(
            download_disposition("é\";\r\nSet-Cookie: x=1,y"),
            "attachment; filename=%C3%A9%22%3B%0D%0ASet-Cookie%3A%20x%3D1%2Cy; \
             filename*=UTF-8''%C3%A9%22%3B%0D%0ASet-Cookie%3A%20x%3D1%2Cy"
        );
        assert_eq!(
            attachment("é\".txt"),
            "attachment; filename=\"__.txt\"; filename*=UTF-8''%C3%A9%22.txt"
        );
        let at = DateTime::parse_from_rfc3339("1994-11-15T08:12:31Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(http_date(at), "Tue, 15 Nov 1994 08:12:31 GMT");
    }
}
