//! E-mail addresses checked as the platform checks them: present, at most
//! 255 bytes, and of the HTML5 "valid e-mail address" shape (the platform's
//! format check): a local part of letters, digits and
//! ``.!#$%&'*+/=?^_`{|}~-``, an `@`, and host labels of letters, digits and
//! inner hyphens, each 1 to 63 long. Answers 400 `validation_failed` with
//! the platform's messages otherwise.

use crate::error::{AuthError, Result};

/// Longest address accepted, in bytes.
const MAX_LEN: usize = 255;

/// The address, lower-cased, or the platform's 400 `validation_failed`.
pub(crate) fn validate(email: &str) -> Result<String> {
    if email.is_empty() {
        return Err(AuthError::validation("An email address is required"));
    }
    if email.len() > MAX_LEN {
        return Err(AuthError::validation("An email address is too long"));
    }
    if !well_formed(email) {
        return Err(AuthError::validation(
            "Unable to validate email address: invalid format",
        ));
    }
    Ok(email.to_lowercase())
}

/// The format check alone (no length limit).
pub(crate) fn well_formed(email: &str) -> bool {
    let Some((local, host)) = email.split_once('@') else {
        return false;
    };
    let local_ok = !local.is_empty()
        && local
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+/=?^_`{|}~.-".contains(&b));
    local_ok && host.split('.').all(label_ok)
}

fn label_ok(label: &str) -> bool {
    let bytes = label.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            bytes.len() <= 63
                && first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_what_the_platform_accepts() {
        for ok in [
            "a@b.co",
            "first.last+tag@example.com",
            "UPPER@Example.COM",
            "a@localhost",
            "x!#$%&'*+/=?^_`{|}~-@a-b.c0",
            ".dots..anywhere.@x.io",
        ] {
            assert!(well_formed(ok), "{ok}");
        }
        assert_eq!(validate("UPPER@Example.COM").unwrap(), "upper@example.com");
    }

    #[test]
    fn refuses_what_the_platform_refuses() {
        let long_label = format!("a@{}.com", "b".repeat(64));
        for bad in [
            "a",
            "@b.co",
            "a@",
            "a b@c.de",
            " a@b.co",
            "a@.com",
            "a@com.",
            "a@b..com",
            "a@-b.com",
            "a@b-.com",
            "a@b_c.com",
            "a@b@c.com",
            "ç@b.com",
            "a\"b@c.com",
            "a(b)@c.com",
            "a@[127.0.0.1]",
            long_label.as_str(),
        ] {
            assert!(!well_formed(bad), "{bad}");
        }
    }

    #[test]
    fn errors_carry_the_platform_messages() {
        let message = |e: &str| validate(e).unwrap_err().parts();
        assert_eq!(message("").1, "validation_failed");
        assert_eq!(message("").2, "An email address is required");
        let long = format!("{}@example.com", "a".repeat(244));
        assert_eq!(long.len(), 256);
        assert_eq!(message(&long).2, "An email address is too long");
        assert_eq!(
            message("nope").2,
            "Unable to validate email address: invalid format"
        );
        let longest = format!("{}@example.com", "a".repeat(243));
        assert!(validate(&longest).is_ok());
    }
}
