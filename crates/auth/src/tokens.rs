//! Pure helpers for secrets: e-mail codes and their hashes, PKCE checks.

use base64::Engine;
use rand::Rng;
use sha2::{Digest, Sha256};

/// A six-digit e-mail code.
pub fn otp() -> String {
    format!("{:06}", rand::rng().random_range(0..1_000_000u32))
}

/// The token an e-mail link carries for `otp` sent to `email`: the same
/// value `POST /verify` recomputes from `{email, token}`. Only this hash is
/// stored. Keyed with a key of the project's secret (HMAC-SHA256), so that
/// nobody can compute the link of every code for an address and try them as
/// `token_hash`, around the per-account limit on codes.
pub fn token_hash(key: &[u8], email: &str, otp: &str) -> String {
    plinth_db::hmac_hex(key, format!("{}{otp}", email.to_lowercase()).as_bytes())
}

/// Prefix of link tokens whose flow finishes with a PKCE code exchange.
pub const PKCE_PREFIX: &str = "pkce_";

/// How a PKCE challenge was derived from its verifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeMethod {
    S256,
    Plain,
}

impl ChallengeMethod {
    /// `s256` / `plain`, any case.
    pub fn parse(value: &str) -> Option<Self> {
        match value.to_ascii_lowercase().as_str() {
            "s256" => Some(Self::S256),
            "plain" => Some(Self::Plain),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::S256 => "s256",
            Self::Plain => "plain",
        }
    }
}

/// Whether `verifier` answers `challenge`.
pub fn pkce_matches(method: ChallengeMethod, challenge: &str, verifier: &str) -> bool {
    let computed = match method {
        ChallengeMethod::S256 => base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(verifier.as_bytes())),
        ChallengeMethod::Plain => verifier.to_owned(),
    };
    constant_time_eq(computed.as_bytes(), challenge.as_bytes())
}

/// Equality that takes the same time wherever the first difference is.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lower-case hex SHA-256 of `input`.
    fn sha256_hex(input: &str) -> String {
        Sha256::digest(input.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn pkce_s256_matches_the_rfc_example() {
        // RFC 7636, appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_matches(ChallengeMethod::S256, challenge, verifier));
        assert!(!pkce_matches(ChallengeMethod::S256, challenge, "other"));
        assert!(pkce_matches(ChallengeMethod::Plain, "abc", "abc"));
        assert!(!pkce_matches(ChallengeMethod::Plain, "abc", "abd"));
    }

    #[test]
    fn challenge_methods_parse_in_any_case() {
        assert_eq!(ChallengeMethod::parse("S256"), Some(ChallengeMethod::S256));
        assert_eq!(
            ChallengeMethod::parse("plain"),
            Some(ChallengeMethod::Plain)
        );
        assert_eq!(ChallengeMethod::parse("md5"), None);
    }

    #[test]
    fn token_hashes_ignore_email_case_and_codes_have_six_digits() {
        let key = b"a-key-of-the-project";
        assert_eq!(
            token_hash(key, "A@B.C", "123456"),
            token_hash(key, "a@b.c", "123456")
        );
        assert_ne!(
            token_hash(key, "a@b.c", "123456"),
            token_hash(key, "a@b.c", "123457")
        );
        // Not the plain SHA-256 anyone could compute, and another key makes another.
        assert_ne!(
            token_hash(key, "a@b.c", "123456"),
            sha256_hex("a@b.c123456")
        );
        assert_ne!(
            token_hash(key, "a@b.c", "123456"),
            token_hash(b"another-key", "a@b.c", "123456")
        );
        assert_eq!(token_hash(key, "a@b.c", "123456").len(), 64);
        let code = otp();
        assert_eq!(code.len(), 6);
        assert!(code.bytes().all(|b| b.is_ascii_digit()));
    }
}
