//! Request identity: HS256 JWTs in, claims out.
//!
//! Every service reads who is asking the same way: the `Authorization:
//! Bearer` token, else the `apikey` header, verified with the project's JWT
//! secret. The claims then travel into Postgres as `request.jwt.claims`.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The shortest secret accepted, as on the hosted platform.
pub const MIN_SECRET_LEN: usize = 32;

/// Why a token was refused ([`JwtError::Invalid`]): it has no `exp` claim.
/// Every token must expire, as on the platform.
pub const NO_EXP: &str = "JWT has no exp claim";
/// Why a token was refused: its `nbf` (not before) is still ahead.
pub const NOT_YET_VALID: &str = "JWT not yet valid";
/// Why a token was refused: it is a storage URL token, which opens one
/// object and is no API credential.
pub const URL_TOKEN: &str = "a storage URL token is not an API credential";

/// The project's JWT secret. Never printed.
///
/// Verified tokens are remembered (keyed by the whole token, signature
/// included, so nothing unverified can hit the cache): the same API key or
/// session token arrives with request after request, and its `exp` and `nbf`
/// are still checked on every use.
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

    /// Verifies a token presented as an API credential (API key or session
    /// token): signature, `exp` (required, as on the platform), `nbf`, and
    /// that it is not a storage URL token (those open one object only, see
    /// [`Self::verify_url_token`]). Returns the claims.
    pub fn verify(&self, token: &str) -> Result<Value, JwtError> {
        let claims = self.verify_claims(token)?;
        if claims.get("url").is_some() {
            return Err(JwtError::Invalid(URL_TOKEN.into()));
        }
        Ok(claims)
    }

    /// Verifies a token carried by a storage URL (claims `url`, `scope`,
    /// `exp`, signed with the same secret): signature, `exp` and `nbf`. The
    /// storage service checks that it names the object and the action.
    pub fn verify_url_token(&self, token: &str) -> Result<Value, JwtError> {
        self.verify_claims(token)
    }

    /// Signature, `exp` and `nbf`, through the memory of verified tokens.
    fn verify_claims(&self, token: &str) -> Result<Value, JwtError> {
        let remembered = self
            .verified
            .lock()
            .ok()
            .and_then(|cache| cache.get(token).cloned());
        if let Some(claims) = remembered {
            // Only tokens that passed every check are remembered; time moves on.
            check_times(&claims, unix_now())?;
            return Ok(claims);
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
        validation.required_spec_claims = ["exp".to_owned()].into();
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = false;
        validation.leeway = 0;
        jsonwebtoken::decode::<Value>(token, &self.decoding, &validation)
            .map(|data| data.claims)
            .map_err(|e| match e.kind() {
                ErrorKind::ExpiredSignature => JwtError::Expired,
                ErrorKind::MissingRequiredClaim(claim) if claim == "exp" => {
                    JwtError::Invalid(NO_EXP.into())
                }
                ErrorKind::ImmatureSignature => JwtError::Invalid(NOT_YET_VALID.into()),
                _ => JwtError::Invalid(e.to_string()),
            })
            .and_then(|claims| {
                if claims.is_object() {
                    // The library checked them; the same rule as for
                    // remembered tokens, so both paths agree.
                    check_times(&claims, unix_now())?;
                    Ok(claims)
                } else {
                    Err(JwtError::Invalid("claims are not an object".into()))
                }
            })
    }

    /// A 32-byte key for `purpose`, derived from the secret (the SHA-256 of
    /// an HS256 signature, an HMAC-SHA256, over the purpose): lets a service
    /// key its own hashes with the project's secret without holding it.
    pub fn derive_key(&self, purpose: &str) -> [u8; 32] {
        let token = self.sign(&json!({ "purpose": purpose }));
        let signature = token.rsplit('.').next().unwrap_or_default();
        Sha256::digest(signature.as_bytes()).into()
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

/// Seconds since the epoch.
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// `exp` must be present and not past, `nbf` (when present) not ahead.
fn check_times(claims: &Value, now: i64) -> Result<(), JwtError> {
    match claims.get("exp").and_then(Value::as_i64) {
        None => return Err(JwtError::Invalid(NO_EXP.into())),
        Some(exp) if exp < now => return Err(JwtError::Expired),
        Some(_) => {}
    }
    if claims
        .get("nbf")
        .and_then(Value::as_i64)
        .is_some_and(|nbf| nbf > now)
    {
        return Err(JwtError::Invalid(NOT_YET_VALID.into()));
    }
    Ok(())
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
    fn tokens_without_exp_are_refused_even_when_remembered() {
        let secret = JwtSecret::new(SECRET).unwrap();
        let forever = secret.sign(&json!({"role": "service_role"}));
        assert_eq!(
            secret.verify(&forever),
            Err(JwtError::Invalid(NO_EXP.into()))
        );
        assert_eq!(
            secret.verify(&forever),
            Err(JwtError::Invalid(NO_EXP.into()))
        );
        // The time checks of remembered claims need `exp` too.
        assert_eq!(
            check_times(&json!({"role": "anon"}), now()),
            Err(JwtError::Invalid(NO_EXP.into()))
        );
    }

    #[test]
    fn tokens_are_refused_before_their_nbf() {
        let secret = JwtSecret::new(SECRET).unwrap();
        let early = secret.sign(&json!({"role": "anon", "nbf": now() + 60, "exp": now() + 120}));
        assert_eq!(
            secret.verify(&early),
            Err(JwtError::Invalid(NOT_YET_VALID.into()))
        );
        let ready = secret.sign(&json!({"role": "anon", "nbf": now() - 1, "exp": now() + 120}));
        assert!(secret.verify(&ready).is_ok());
        assert!(secret.verify(&ready).is_ok());
        // A remembered token is still held to its nbf.
        assert_eq!(
            check_times(&json!({"exp": now() + 120, "nbf": now() + 60}), now()),
            Err(JwtError::Invalid(NOT_YET_VALID.into()))
        );
    }

    #[test]
    fn storage_url_tokens_open_objects_not_apis() {
        let secret = JwtSecret::new(SECRET).unwrap();
        let url_token = secret.sign(&json!({"url": "bucket/file.txt", "scope": "download", "iat": now(), "exp": now() + 60}));
        // Remembered as a URL token first: still no API credential.
        assert_eq!(
            secret.verify_url_token(&url_token).unwrap()["url"],
            "bucket/file.txt"
        );
        assert_eq!(
            secret.verify(&url_token),
            Err(JwtError::Invalid(URL_TOKEN.into()))
        );
        let forever = secret.sign(&json!({"url": "bucket/file.txt", "scope": "download"}));
        assert_eq!(
            secret.verify_url_token(&forever),
            Err(JwtError::Invalid(NO_EXP.into()))
        );
    }

    #[test]
    fn derived_keys_depend_on_secret_and_purpose() {
        let secret = JwtSecret::new(SECRET).unwrap();
        let other = JwtSecret::new("another-secret-of-thirty-two-characters!").unwrap();
        assert_eq!(secret.derive_key("a"), secret.derive_key("a"));
        assert_ne!(secret.derive_key("a"), secret.derive_key("b"));
        assert_ne!(secret.derive_key("a"), other.derive_key("a"));
    }

    #[test]
    fn debug_output_hides_the_secret() {
        let secret = JwtSecret::new(SECRET).unwrap();
        assert!(!format!("{secret:?}").contains("thirty"));
    }
}
