//! Object and bucket names: what is accepted. Pure; no I/O.
//!
//! Names never become file-system paths (bytes are stored under generated
//! keys), so these rules are about keeping names unambiguous for policies,
//! listings and URLs, not about protecting the byte store.

use crate::error::StorageError;

/// Longest object name in bytes (the S3 key limit the platform also uses).
pub const MAX_OBJECT_NAME: usize = 1024;
/// Longest bucket id in characters.
pub const MAX_BUCKET_NAME: usize = 100;

/// Checks an object name (`folder/file.png`).
pub fn validate_object_name(name: &str) -> Result<(), StorageError> {
    let invalid = |why: &str| Err(StorageError::InvalidKey(format!("{name:?}: {why}")));
    if name.is_empty() {
        return invalid("the name is empty");
    }
    if name.len() > MAX_OBJECT_NAME {
        return Err(StorageError::InvalidKey(format!(
            "the name is longer than {MAX_OBJECT_NAME} bytes"
        )));
    }
    if name.starts_with('/') {
        return invalid("the name starts with '/'");
    }
    if name.chars().any(char::is_control) {
        return invalid("the name contains a control character");
    }
    for segment in name.split('/') {
        match segment {
            "" => return invalid("the name has an empty segment"),
            "." | ".." => return invalid("the name has a '.' or '..' segment"),
            _ => {}
        }
    }
    Ok(())
}

/// Checks a bucket id / name: 1 to 100 characters of letters, digits and
/// `_ - . ! * ' ( ) & $ @ = ; : + , ?` and spaces, not `.` or `..`.
pub fn validate_bucket_name(name: &str) -> Result<(), StorageError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "_-.!*'()&$@=;:+,? ".contains(c);
    if name.is_empty()
        || name.chars().count() > MAX_BUCKET_NAME
        || name == "."
        || name == ".."
        || name.trim() != name
        || !name.chars().all(allowed)
    {
        return Err(StorageError::InvalidBucketName);
    }
    Ok(())
}

/// The folder a listing looks into: `""` for the bucket's top level, else the
/// prefix with exactly one trailing `/` (`"a/b"` and `"a/b/"` -> `"a/b/"`).
pub fn list_folder(prefix: &str) -> String {
    let trimmed = prefix.trim_matches('/');
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("{trimmed}/")
    }
}

/// The last segment of a name (`a/b/c.png` -> `c.png`).
pub fn file_name(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_names() {
        let ok = [
            "a.png",
            "folder/file.png",
            "d9c1f6a0-0000-4000-8000-000000000000/1700000000-abc.jpg",
            "with space/ünïcödé.txt",
            "a..b/c",
            "...x",
            ".hidden",
        ];
        for name in ok {
            assert!(
                validate_object_name(name).is_ok(),
                "{name:?} should be accepted"
            );
        }
        let long = "x".repeat(MAX_OBJECT_NAME + 1);
        let bad = [
            "",
            "/etc/passwd",
            "../secret",
            "a/../../b",
            "a/..",
            "./a",
            "a/./b",
            "a//b",
            "a/",
            "nul\0byte",
            "line\nbreak",
            "del\u{7f}",
            long.as_str(),
        ];
        for name in bad {
            assert!(
                matches!(validate_object_name(name), Err(StorageError::InvalidKey(_))),
                "{name:?} should be refused"
            );
        }
        assert!(validate_object_name(&"x".repeat(MAX_OBJECT_NAME)).is_ok());
    }

    #[test]
    fn bucket_names() {
        for name in [
            "avatars",
            "templates",
            "my-bucket_1",
            "a.b",
            "Bucket (copy)",
        ] {
            assert!(validate_bucket_name(name).is_ok(), "{name:?}");
        }
        let long = "b".repeat(MAX_BUCKET_NAME + 1);
        for name in [
            "",
            ".",
            "..",
            "a/b",
            "tab\there",
            " lead",
            "ünï",
            long.as_str(),
            "a\0",
        ] {
            assert!(validate_bucket_name(name).is_err(), "{name:?}");
        }
    }

    #[test]
    fn list_folders_and_file_names() {
        assert_eq!(list_folder(""), "");
        assert_eq!(list_folder("/"), "");
        assert_eq!(list_folder("a"), "a/");
        assert_eq!(list_folder("a/b/"), "a/b/");
        assert_eq!(list_folder("/a/b"), "a/b/");
        assert_eq!(file_name("a/b/c.png"), "c.png");
        assert_eq!(file_name("c.png"), "c.png");
    }
}
