//! Where a template's file is, and the link a buyer gets for it: a signed,
//! expiring storage URL for a file in storage (the same token the storage
//! service's `/object/sign/...` accepts), the URL itself for a file hosted
//! elsewhere.

use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};
use plinth_db::JwtSecret;
use serde_json::json;

/// The private bucket of paid template files
/// (`migrations/20261122000200_paid_template_files.sql`).
pub const PAID_FILES_BUCKET: &str = "template-files";

/// The public bucket of previews and of free templates' files
/// (`migrations/20261122000100_storage_buckets.sql`).
pub const PUBLIC_FILES_BUCKET: &str = "templates";

/// What `templates.template_file_url` points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileLocation {
    /// An object of this server's storage.
    Stored { bucket: String, name: String },
    /// A URL elsewhere.
    External(String),
}

/// Reads a `template_file_url`: a storage URL of this or any Plinth server
/// (`.../storage/v1/object/[public/|authenticated/|sign/]{bucket}/{name}`,
/// query ignored), a bare `{bucket}/{name}` path, or any other URL.
pub fn locate(url: &str) -> Option<FileLocation> {
    let url = url.trim();
    if url.is_empty() {
        return None;
    }
    let stored = |rest: &str| -> Option<FileLocation> {
        let rest = rest.split(['?', '#']).next().unwrap_or_default();
        let (bucket, name) = rest.split_once('/')?;
        let bucket = percent_decode_str(bucket).decode_utf8().ok()?.into_owned();
        let name = percent_decode_str(name).decode_utf8().ok()?.into_owned();
        (!bucket.is_empty() && !name.is_empty()).then_some(FileLocation::Stored { bucket, name })
    };
    if let Some((_, rest)) = url.split_once("/storage/v1/object/") {
        let rest = ["public/", "authenticated/", "sign/"]
            .iter()
            .find_map(|prefix| rest.strip_prefix(prefix))
            .unwrap_or(rest);
        return stored(rest);
    }
    if url.contains("://") || url.starts_with('/') {
        return Some(FileLocation::External(url.to_owned()));
    }
    stored(url)
}

/// The link a buyer may be sent to for a template's `template_url` (the
/// workspace-app template), or `None`: the same rule as the database's
/// `public.is_web_link` (migrations/20261124000200_template_links_are_web_links.sql),
/// narrowed to what this site may hand out:
///
/// * `https://{host}...`;
/// * `http://{host}...` only in development, that is while the site itself
///   (`site`, `SITE_URL`) is served over http;
/// * a path of the site, `/{not / }...`, made absolute on `site`;
///
/// with no whitespace, control character or backslash anywhere. Never
/// `javascript:`, `data:`, another scheme, or `//host`.
pub fn web_link(site: &str, link: &str) -> Option<String> {
    if link.is_empty()
        || link
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
    {
        return None;
    }
    let has_host = |rest: &str| !rest.is_empty() && !rest.starts_with('/');
    let scheme_is = |scheme: &str| {
        link.get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    };
    if scheme_is("https://") {
        return has_host(&link["https://".len()..]).then(|| link.to_owned());
    }
    if scheme_is("http://") {
        let development = site
            .get(..7)
            .is_some_and(|head| head.eq_ignore_ascii_case("http://"));
        return (development && has_host(&link["http://".len()..])).then(|| link.to_owned());
    }
    if link.starts_with('/') && has_host(&link[1..]) {
        return Some(format!("{}{link}", site.trim_end_matches('/')));
    }
    None
}

/// The public URL of `bucket/name`: `{api}/storage/v1/object/public/{bucket}/{name}`.
pub fn public_url(api: &str, bucket: &str, name: &str) -> String {
    format!(
        "{api}/storage/v1/object/public/{}/{}",
        encode_path(bucket),
        encode_path(name)
    )
}

/// Characters escaped in a path segment of a storage URL.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'?')
    .add(b'<')
    .add(b'>')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'/')
    .add(b'\\')
    .add(b'^')
    .add(b'|')
    .add(b'[')
    .add(b']')
    .add(b'&')
    .add(b'+')
    .add(b'=');

fn encode_path(name: &str) -> String {
    name.split('/')
        .map(|segment| utf8_percent_encode(segment, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// A signed download URL of `bucket/name`, valid `seconds` from `now`:
/// `{api}/storage/v1/object/sign/{bucket}/{name}?token=...&download={file}`,
/// where `{file}` is the object's own file name (its last path segment): the
/// storage service then answers `Content-Disposition: attachment`, so the
/// browser saves the file instead of showing it in place of the page.
pub fn signed_url(
    jwt: &JwtSecret,
    api: &str,
    bucket: &str,
    name: &str,
    now: i64,
    seconds: i64,
) -> String {
    let token = jwt.sign(&json!({
        "url": format!("{bucket}/{name}"),
        "scope": "download",
        "iat": now,
        "exp": now + seconds,
    }));
    let file = name.rsplit('/').next().unwrap_or(name);
    format!(
        "{api}/storage/v1/object/sign/{}/{}?token={token}&download={}",
        encode_path(bucket),
        encode_path(name),
        utf8_percent_encode(file, SEGMENT)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(bucket: &str, name: &str) -> Option<FileLocation> {
        Some(FileLocation::Stored {
            bucket: bucket.into(),
            name: name.into(),
        })
    }

    #[test]
    fn locations() {
        let cases = [
            (
                "http://localhost:8000/storage/v1/object/public/templates/u1/files/a.zip",
                stored("templates", "u1/files/a.zip"),
            ),
            (
                "https://x.example/storage/v1/object/authenticated/template-files/u1/files/a%20b.zip?x=1",
                stored("template-files", "u1/files/a b.zip"),
            ),
            (
                "/storage/v1/object/sign/template-files/u/f.zip?token=abc",
                stored("template-files", "u/f.zip"),
            ),
            (
                "template-files/u1/files/a.zip",
                stored("template-files", "u1/files/a.zip"),
            ),
            (
                "https://cdn.example/a.zip",
                Some(FileLocation::External("https://cdn.example/a.zip".into())),
            ),
            ("", None),
            ("nobucket", None),
            ("http://h/storage/v1/object/public/templates", None),
        ];
        for (input, expected) in cases {
            assert_eq!(locate(input), expected, "{input}");
        }
    }

    #[test]
    fn signed_urls_ask_for_an_attachment_named_like_the_file() {
        let jwt = JwtSecret::new("0123456789abcdef0123456789abcdef").unwrap();
        let url = signed_url(
            &jwt,
            "http://api",
            "template-files",
            "u1/r4nd/My kit & more.zip",
            0,
            60,
        );
        assert!(
            url.starts_with("http://api/storage/v1/object/sign/template-files/u1/r4nd/My%20kit%20%26%20more.zip?token="),
            "{url}"
        );
        assert!(
            url.ends_with("&download=My%20kit%20%26%20more.zip"),
            "{url}"
        );
    }

    #[test]
    fn web_links() {
        let dev = "http://localhost:8000";
        let live = "https://shop.example/";
        for (link, in_dev, live_too) in [
            ("https://workspace.example/dup/1", true, true),
            ("HTTPS://workspace.example/dup/1", true, true),
            ("http://workspace.example/dup/1", true, false),
            ("/demo/files/a.md", true, true),
            ("javascript:alert(1)", false, false),
            ("JavaScript:alert(1)", false, false),
            ("javascript://example.com/%0aalert(1)", false, false),
            (" javascript:alert(1)", false, false),
            ("java\tscript:alert(1)", false, false),
            ("data:text/html,<script>alert(1)</script>", false, false),
            ("vbscript:msgbox(1)", false, false),
            ("ftp://example.com/a.zip", false, false),
            ("//evil.example/x", false, false),
            ("/\\evil.example/x", false, false),
            ("https:///evil.example", false, false),
            ("https://exa mple.com", false, false),
            ("https://example.com/\u{2028}", false, false),
            ("template-files/u/files/a.zip", false, false),
            ("/", false, false),
            ("", false, false),
        ] {
            assert_eq!(
                web_link(dev, link).is_some(),
                in_dev,
                "{link:?} in development"
            );
            assert_eq!(web_link(live, link).is_some(), live_too, "{link:?} live");
        }
        assert_eq!(
            web_link(live, "/demo/files/a.md").as_deref(),
            Some("https://shop.example/demo/files/a.md")
        );
        assert_eq!(
            web_link(dev, "https://w.example/x?y=1#z").as_deref(),
            Some("https://w.example/x?y=1#z")
        );
    }

    #[test]
    fn public_urls() {
        assert_eq!(
            public_url("http://h", "templates", "u/files/a b.zip"),
            "http://h/storage/v1/object/public/templates/u/files/a%20b.zip"
        );
    }

    #[test]
    fn names_are_encoded_per_segment() {
        assert_eq!(encode_path("u1/files/a b?.zip"), "u1/files/a%20b%3F.zip");
    }
}
