//! Download tokens, webhook signatures and visitor hashes: the small
//! cryptographic pieces, pure and unit-tested.

pub use plinth_db::{hex, hmac_hex};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Length of a download token: 43 alphanumeric characters, about 256 bits.
pub const TOKEN_LEN: usize = 43;

/// A fresh random download token (handed to the buyer once, never stored).
pub fn new_token() -> String {
    plinth_db::random_token(TOKEN_LEN)
}

/// What is stored of a token: its SHA-256, hex.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Whether `token` hashes to `stored` (hex), in constant time over the
/// hashes; a missing or malformed stored hash never matches.
pub fn token_matches(token: &str, stored: Option<&str>) -> bool {
    let Some(stored) = stored else { return false };
    let presented = token_hash(token);
    presented.len() == stored.len() && bool::from(presented.as_bytes().ct_eq(stored.as_bytes()))
}

/// Why a webhook's signature was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("missing or malformed Stripe-Signature header")]
    Malformed,
    #[error("timestamp outside the tolerance")]
    Stale,
    #[error("no signature matches")]
    Mismatch,
}

/// Most seconds between a webhook's timestamp and now.
pub const WEBHOOK_TOLERANCE_SECS: i64 = 300;

/// Checks a `Stripe-Signature` header (`t=<unix>,v1=<hex>[,v1=<hex>...]`)
/// against `payload` and the endpoint's `whsec_...` secret: HMAC-SHA256 of
/// `"{t}.{payload}"` keyed with the secret as written, compared in constant
/// time against each `v1`, and `t` within [`WEBHOOK_TOLERANCE_SECS`] of `now`.
pub fn verify_webhook(
    header: &str,
    payload: &[u8],
    secret: &str,
    now: i64,
) -> Result<(), SignatureError> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
            Some(("v1", v)) => signatures.push(v.to_owned()),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    let mut signed = format!("{timestamp}.").into_bytes();
    signed.extend_from_slice(payload);
    let expected = hmac_hex(secret.as_bytes(), &signed);
    let mut any = subtle::Choice::from(0u8);
    for signature in &signatures {
        if signature.len() == expected.len() {
            any |= signature.as_bytes().ct_eq(expected.as_bytes());
        }
    }
    if !bool::from(any) {
        return Err(SignatureError::Mismatch);
    }
    if (now - timestamp).abs() > WEBHOOK_TOLERANCE_SECS {
        return Err(SignatureError::Stale);
    }
    Ok(())
}

/// A `Stripe-Signature` header for `payload` at `timestamp` (the simulated
/// provider and tests sign events the way Stripe does).
pub fn sign_webhook(payload: &[u8], secret: &str, timestamp: i64) -> String {
    let mut signed = format!("{timestamp}.").into_bytes();
    signed.extend_from_slice(payload);
    format!("t={timestamp},v1={}", hmac_hex(secret.as_bytes(), &signed))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_match_only_their_hash() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), TOKEN_LEN);
        assert_ne!(a, b);
        let stored = token_hash(&a);
        assert_eq!(stored.len(), 64);
        assert!(token_matches(&a, Some(&stored)));
        assert!(!token_matches(&b, Some(&stored)));
        assert!(!token_matches(&a, None));
        assert!(!token_matches(&a, Some("abc")));
    }

    #[test]
    fn known_sha256() {
        assert_eq!(
            token_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn webhook_signatures() {
        let secret = "whsec_test_secret";
        let payload = br#"{"id":"evt_1"}"#;
        let header = sign_webhook(payload, secret, 1_000_000);
        assert_eq!(verify_webhook(&header, payload, secret, 1_000_000), Ok(()));
        assert_eq!(verify_webhook(&header, payload, secret, 1_000_300), Ok(()));
        assert_eq!(
            verify_webhook(&header, payload, secret, 1_000_301),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify_webhook(&header, b"{}", secret, 1_000_000),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify_webhook(&header, payload, "whsec_other", 1_000_000),
            Err(SignatureError::Mismatch)
        );
        // Several v1 signatures (secret rotation): one match is enough.
        let rotated = format!("{header},v1={}", "0".repeat(64));
        let rotated = rotated.replacen("v1=", &format!("v1={},v1=", "f".repeat(64)), 1);
        assert_eq!(verify_webhook(&rotated, payload, secret, 1_000_000), Ok(()));
        for bad in ["", "t=abc,v1=00", "v1=00", "t=1000000", "t=1000000,v0=00"] {
            assert_eq!(
                verify_webhook(bad, payload, secret, 1_000_000),
                Err(SignatureError::Malformed),
                "{bad}"
            );
        }
    }

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        assert_eq!(
            hmac_hex(b"Jefe", b"what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
