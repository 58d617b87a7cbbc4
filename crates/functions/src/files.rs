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
/// `{api}/storage/v1/object/sign/{bucket}/{name}?token=...`.
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
    format!(
        "{api}/storage/v1/object/sign/{}/{}?token={token}",
        encode_path(bucket),
        encode_path(name)
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
    fn names_are_encoded_per_segment() {
        assert_eq!(encode_path("u1/files/a b?.zip"), "u1/files/a%20b%3F.zip");
    }
}
