//! Request identity: HS256 JWTs in, claims out.
//!
//! Every service reads who is asking the same way: the `Authorization:
//! Bearer` token, else the `apikey` header, verified with the project's JWT
//! secret. The claims then travel into Postgres as `request.jwt.claims`.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Value, json};

/// The shortest secret accepted, as on the hosted platform.
pub const MIN_SECRET_LEN: usize = 32;

/// The project's JWT secret. Never printed.
///
/// Verified tokens are remembered (keyed by the whole token, signature
/// included, so nothing unverified can hit the cache): the same API key or
/// session token arrives with request after request, and its expiry is still
/// checked on every use.
#[derive(Clone)]
pub struct JwtSecret {
    encoding: EncodingKey,
    decoding: DecodingKey,
    verified: Arc<Mutex<HashMap<String, Value>>>,
}

/// Most tokens remembered; the memory is emptied when it is full.
const VERIFIED_CAPACITY: usize = 4096;
/// Longer tokens are verified every time rather than remembered.
const VERIFIED_MAX_LEN: usize = 4096;

impl fmt::Debug for JwtSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JwtSecret(..)")
    }
}

/// Why a token was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    #[error("JWT expired")]
    Expired,
    #[error("invalid JWT: {0}")]
    Invalid(String),
}

#[derive(Debug, thiserror::Error)]
#[error("JWT_SECRET must be at least {MIN_SECRET_LEN} characters long")]
pub struct SecretTooShort;

impl JwtSecret {
    pub fn new(secret: &str) -> Result<Self, SecretTooShort> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(SecretTooShort);
        }
        Ok(Self {
            encoding: EncodingKey::from_secret(secret.as_bytes()),
            decoding: DecodingKey::from_secret(secret.as_bytes()),
            verified: Arc::new(Mutex::new(HashMap::new())),
        })
    }

    /// Signs `claims` (an object) as an HS256 JWT.
    pub fn sign(&self, claims: &Value) -> String {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .expect("HS256 signing of a JSON object cannot fail")
    }

    /// Verifies signature and expiry (when the token has `exp`; API keys of
    /// the platform always do) and returns the claims.
    pub fn verify(&self, token: &str) -> Result<Value, JwtError> {
        let remembered = self
            .verified
            .lock()
            .ok()
            .and_then(|cache| cache.get(token).cloned());
        if let Some(claims) = remembered {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64);
            return match claims.get("exp").and_then(Value::as_i64) {
                Some(exp) if exp < now => Err(JwtError::Expired),
                _ => Ok(claims),
            };
        }
        let claims = self.decode(token)?;
        if token.len() <= VERIFIED_MAX_LEN
            && let Ok(mut cache) = self.verified.lock()
        {
            if cache.len() >= VERIFIED_CAPACITY {
                cache.clear();
            }
            cache.insert(token.to_owned(), claims.clone());
        }
        Ok(claims)
    }

    fn decode(&self, token: &str) -> Result<Value, JwtError> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.required_spec_claims.clear();
        validation.validate_aud = false;
        validation.leeway = 0;
        jsonwebtoken::decode::<Value>(token, &self.decoding, &validation)
            .map(|data| data.claims)
            .map_err(|e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => JwtError::Expired,
                _ => JwtError::Invalid(e.to_string()),
            })
            .and_then(|claims| {
                if claims.is_object() {
                    Ok(claims)
                } else {
                    Err(JwtError::Invalid("claims are not an object".into()))
                }
            })
    }

    /// An API key as the platform issues them: a JWT carrying only `role`,
    /// `iss`, `iat` and `exp`.
    pub fn api_key(&self, role: &str, issued_at: i64, expires_at: i64) -> String {
        self.sign(&json!({
            "role": role,
            "iss": "plinth",
            "iat": issued_at,
            "exp": expires_at,
        }))
    }
}

/// The token a request presents: the `Authorization: Bearer` token when
/// there is one, else the `apikey` header (as the platform's gateway reads
/// them). `None`: an anonymous request without any key.
pub fn presented_token<'a>(
    authorization: Option<&'a str>,
    apikey: Option<&'a str>,
) -> Option<&'a str> {
    let bearer = authorization.and_then(|value| {
        let (scheme, token) = value.trim().split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
    });
    bearer
        .filter(|t| !t.is_empty())
        .or_else(|| apikey.map(str::trim).filter(|t| !t.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "a-secret-of-at-least-thirty-two-characters";

    fn now() -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64
    }

    #[test]
    fn short_secrets_are_refused() {
        assert!(JwtSecret::new("short").is_err());
        assert!(JwtSecret::new(SECRET).is_ok());
    }

    #[test]
    fn api_keys_verify_and_carry_their_role() {
        let secret = JwtSecret::new(SECRET).unwrap();
        let key = secret.api_key("anon", now(), now() + 60);
        let claims = secret.verify(&key).unwrap();
        assert_eq!(claims["role"], "anon");
        assert_eq!(claims["iss"], "plinth");
    }

    #[test]
    fn expired_foreign_and_garbled_tokens_are_refused() {
        let secret = JwtSecret::new(SECRET).unwrap();
        let expired = secret.api_key("anon", now() - 120, now() - 60);
        assert_eq!(secret.verify(&expired), Err(JwtError::Expired));

        let other = JwtSecret::new("another-secret-of-thirty-two-characters!").unwrap();
        let foreign = other.api_key("service_role", now(), now() + 60);
        assert!(matches!(secret.verify(&foreign), Err(JwtError::Invalid(_))));

        assert!(matches!(
            secret.verify("not.a.jwt"),
            Err(JwtError::Invalid(_))
        ));
        assert!(matches!(secret.verify(""), Err(JwtError::Invalid(_))));
    }

    #[test]
    fn bearer_wins_over_apikey() {
        assert_eq!(
            presented_token(Some("Bearer abc"), Some("key")),
            Some("abc")
        );
        assert_eq!(presented_token(Some("bearer  abc "), None), Some("abc"));
        assert_eq!(presented_token(None, Some("key")), Some("key"));
        assert_eq!(presented_token(Some("Basic xyz"), Some("key")), Some("key"));
        assert_eq!(presented_token(Some("Bearer "), None), None);
        assert_eq!(presented_token(None, None), None);
    }

    #[test]
    fn a_remembered_token_still_expires() {
        let secret = JwtSecret::new(SECRET).unwrap();
        let key = secret.api_key("anon", now(), now() + 1);
        assert_eq!(secret.verify(&key).unwrap()["role"], "anon");
        // Now remembered: the same answer without decoding again.
        assert_eq!(secret.verify(&key).unwrap()["role"], "anon");
        std::thread::sleep(std::time::Duration::from_millis(2100));
        assert_eq!(secret.verify(&key), Err(JwtError::Expired));
        // The same header and claims under another signature are not the
        // remembered token.
        let issued = now();
        let genuine = secret.api_key("service_role", issued, issued + 60);
        assert!(secret.verify(&genuine).is_ok());
        let other = JwtSecret::new("another-secret-of-thirty-two-characters!").unwrap();
        let forged = other.api_key("service_role", issued, issued + 60);
        assert_eq!(
            genuine.rsplit_once('.').unwrap().0,
            forged.rsplit_once('.').unwrap().0
        );
        assert!(matches!(secret.verify(&forged), Err(JwtError::Invalid(_))));
    }

    #[test]
    fn debug_output_hides_the_secret() {
        let secret = JwtSecret::new(SECRET).unwrap();
        assert!(!format!("{secret:?}").contains("thirty"));
    }
}
