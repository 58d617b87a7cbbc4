//! Request identity: JWTs in, claims out.
//!
//! Every service reads who is asking the same way: the `Authorization:
//! Bearer` token, else the `apikey` header, verified with the project's keys:
//! the HS256 JWT secret, plus the key set of `GOTRUE_JWT_KEYS` when one is
//! configured (RS256 / ES256 / HS256 JWKs, see [`crate::jwk`]). With a key
//! set, tokens are signed by its signing key (its `kid` in the header); a
//! token is checked against the key its `kid` names (the header's `alg` must
//! be that key's), else against every key of its `alg` (the secret for
//! HS256, so legacy API keys keep working). The claims then travel into
//! Postgres as `request.jwt.claims`.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::jwk::{self, Key, KeySetError};

/// The shortest secret accepted, as on the hosted platform.
pub const MIN_SECRET_LEN: usize = 32;

/// Why a token was refused ([`JwtError::Invalid`]): it has no `exp` claim,
/// and [`JwtSecret::require_exp`] asks for one (storage URL tokens always
/// need one).
pub const NO_EXP: &str = "JWT has no exp claim";
/// Why a token was refused: its `exp` is not a number (of seconds since
/// the epoch).
pub const BAD_EXP: &str = "JWT exp claim is not a number";
/// Why a token was refused: its `nbf` (not before) is still ahead.
pub const NOT_YET_VALID: &str = "JWT not yet valid";
/// Why a token was refused: no key of the project signed it.
pub const BAD_SIGNATURE: &str = "InvalidSignature";
/// Why a token was refused: it is a storage URL token, which opens one
/// object and is no API credential.
pub const URL_TOKEN: &str = "a storage URL token is not an API credential";

/// The project's JWT secret and, when configured, its key set. Never
/// printed.
///
/// As on the platform (PostgREST, GoTrue), `exp` and `nbf` are checked when
/// present: a token without `exp` never expires, unless
/// [`Self::require_exp`] refuses such tokens (`PLINTH_JWT_REQUIRE_EXP`).
///
/// Verified tokens are remembered (keyed by the whole token, signature
/// included, so nothing unverified can hit the cache): the same API key or
/// session token arrives with request after request, and its `exp` and `nbf`
/// are still checked on every use, by the same rule.
#[derive(Clone)]
pub struct JwtSecret {
    encoding: EncodingKey,
    decoding: DecodingKey,
    /// The key set (`GOTRUE_JWT_KEYS`); empty without one.
    keys: Arc<[Key]>,
    /// The key of `keys` that signs; `None`: the secret signs (HS256).
    signer: Option<usize>,
    /// Whether API credentials must carry `exp`.
    require_exp: bool,
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
            keys: Arc::new([]),
            signer: None,
            require_exp: false,
            verified: Arc::new(Mutex::new(HashMap::new())),
        })
    }

    /// With `true`, every API credential must carry `exp` (refused with
    /// [`NO_EXP`] otherwise), for operators who want every token to expire;
    /// `false` (the default) accepts tokens without one, as the platform does.
    pub fn require_exp(self, require: bool) -> Self {
        Self {
            require_exp: require,
            ..self
        }
    }

    /// Whether every API credential must carry `exp`.
    pub fn requires_exp(&self) -> bool {
        self.require_exp
    }

    /// The secret with a key set (`GOTRUE_JWT_KEYS`, a JSON array of JWKs):
    /// its signing key signs from now on, every key verifies, and the secret
    /// still verifies HS256 tokens.
    pub fn with_key_set(self, keys: &str) -> Result<Self, KeySetError> {
        let (keys, signer) = jwk::parse_set(keys)?;
        Ok(Self {
            keys: keys.into(),
            signer: Some(signer),
            verified: Arc::new(Mutex::new(HashMap::new())),
            ..self
        })
    }

    /// Signs `claims` (an object) with the signing key of the key set (its
    /// `kid` in the header), else as an HS256 JWT with the secret.
    pub fn sign(&self, claims: &Value) -> String {
        match self.signing_key() {
            Some((key, encoding)) => {
                let mut header = Header::new(key.alg);
                header.kid = Some(key.kid.clone());
                jsonwebtoken::encode(&header, claims, encoding)
                    .expect("signing a JSON object with a checked key cannot fail")
            }
            None => self.sign_with_secret(claims),
        }
    }

    /// Signs `claims` as an HS256 JWT with the secret, whatever the key set:
    /// for values that must stay the same across key rotations.
    pub fn sign_with_secret(&self, claims: &Value) -> String {
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &self.encoding)
            .expect("HS256 signing of a JSON object cannot fail")
    }

    fn signing_key(&self) -> Option<(&Key, &EncodingKey)> {
        let key = self.keys.get(self.signer?)?;
        Some((key, key.encoding.as_ref()?))
    }

    /// The `kid` and `alg` of the key that signs, when a key set is
    /// configured.
    pub fn signing_key_id(&self) -> Option<(&str, Algorithm)> {
        self.signing_key()
            .map(|(key, _)| (key.kid.as_str(), key.alg))
    }

    /// Whether `token` carries the header the current signing key gives
    /// (its `alg` and `kid`; HS256 without a key set). Says nothing of the
    /// signature: [`Self::verify`] it too.
    pub fn is_current(&self, token: &str) -> bool {
        let Ok(header) = jsonwebtoken::decode_header(token) else {
            return false;
        };
        match self.signing_key_id() {
            Some((kid, alg)) => header.alg == alg && header.kid.as_deref() == Some(kid),
            None => header.alg == Algorithm::HS256,
        }
    }

    /// The public keys, as `GET /.well-known/jwks.json` publishes them:
    /// `{"keys": [...]}` with the asymmetric keys of the set in order (no
    /// private parts, no symmetric keys); empty without a key set.
    pub fn jwks(&self) -> Value {
        let keys: Vec<Value> = self.keys.iter().filter_map(|k| k.public.clone()).collect();
        json!({ "keys": keys })
    }

    /// Verifies a token presented as an API credential (API key or session
    /// token): signature, `exp` (when present, or always with
    /// [`Self::require_exp`]), `nbf`, and that it is not a storage URL token
    /// (those open one object only, see [`Self::verify_url_token`]).
    /// Returns the claims.
    pub fn verify(&self, token: &str) -> Result<Value, JwtError> {
        let claims = self.verify_claims(token, self.require_exp)?;
        if claims.get("url").is_some() {
            return Err(JwtError::Invalid(URL_TOKEN.into()));
        }
        Ok(claims)
    }

    /// Verifies a token carried by a storage URL (claims `url`, `scope`,
    /// `exp`, signed with the same secret): signature, `exp` (always
    /// required: Plinth signs them with one) and `nbf`. The storage service
    /// checks that it names the object and the action.
    pub fn verify_url_token(&self, token: &str) -> Result<Value, JwtError> {
        self.verify_claims(token, true)
    }

    /// Signature, `exp` (needed with `require_exp`) and `nbf`, through the
    /// memory of verified tokens.
    fn verify_claims(&self, token: &str, require_exp: bool) -> Result<Value, JwtError> {
        let remembered = self
            .verified
            .lock()
            .ok()
            .and_then(|cache| cache.get(token).cloned());
        if let Some(claims) = remembered {
            // Only tokens whose signature verified are remembered; time
            // moves on, and the caller's rule on `exp` applies.
            check_times(&claims, unix_now(), require_exp)?;
            return Ok(claims);
        }
        let claims = self.decode(token, require_exp)?;
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

    /// The keys a token may be signed with: the one its `kid` names (whose
    /// `alg` its header must carry), else every key of its `alg`, the
    /// secret for HS256. `none` and unknown algorithms name no key.
    fn candidates(&self, token: &str) -> Result<Vec<(&DecodingKey, Algorithm)>, JwtError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| JwtError::Invalid(format!("unreadable JWT header: {e}")))?;
        if let Some(kid) = header.kid.as_deref()
            && let Some(key) = self.keys.iter().find(|k| k.kid == kid)
        {
            return if key.alg == header.alg {
                Ok(vec![(&key.decoding, key.alg)])
            } else {
                Err(JwtError::Invalid(format!(
                    "JWT alg {:?} does not match key {kid:?}",
                    header.alg
                )))
            };
        }
        let mut found = Vec::new();
        if header.alg == Algorithm::HS256 {
            found.push((&self.decoding, Algorithm::HS256));
        }
        found.extend(
            self.keys
                .iter()
                .filter(|k| k.alg == header.alg)
                .map(|k| (&k.decoding, k.alg)),
        );
        if found.is_empty() {
            return Err(JwtError::Invalid(format!(
                "unrecognized JWT kid {:?} for algorithm {:?}",
                header.kid, header.alg
            )));
        }
        Ok(found)
    }

    fn decode(&self, token: &str, require_exp: bool) -> Result<Value, JwtError> {
        let mut refusal = None;
        for (key, alg) in self.candidates(token)? {
            match Self::decode_with(token, key, alg, require_exp) {
                Ok(claims) => return Ok(claims),
                // Another key of the same alg may have signed it.
                Err(JwtError::Invalid(why)) if why == BAD_SIGNATURE => {
                    refusal = Some(JwtError::Invalid(why));
                }
                Err(e) => return Err(e),
            }
        }
        Err(refusal.unwrap_or_else(|| JwtError::Invalid(BAD_SIGNATURE.into())))
    }

    fn decode_with(
        token: &str,
        key: &DecodingKey,
        alg: Algorithm,
        require_exp: bool,
    ) -> Result<Value, JwtError> {
        let mut validation = Validation::new(alg);
        validation.required_spec_claims = if require_exp {
            ["exp".to_owned()].into()
        } else {
            Default::default()
        };
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = false;
        validation.leeway = 0;
        jsonwebtoken::decode::<Value>(token, key, &validation)
            .map(|data| data.claims)
            .map_err(|e| match e.kind() {
                ErrorKind::InvalidSignature => JwtError::Invalid(BAD_SIGNATURE.into()),
                ErrorKind::ExpiredSignature => JwtError::Expired,
                ErrorKind::MissingRequiredClaim(claim) if claim == "exp" => {
                    JwtError::Invalid(NO_EXP.into())
                }
                ErrorKind::InvalidClaimFormat(claim) if claim == "exp" => {
                    JwtError::Invalid(BAD_EXP.into())
                }
                ErrorKind::ImmatureSignature => JwtError::Invalid(NOT_YET_VALID.into()),
                _ => JwtError::Invalid(e.to_string()),
            })
            .and_then(|claims| {
                if claims.is_object() {
                    // The library checked them; the same rule as for
                    // remembered tokens, so both paths agree.
                    check_times(&claims, unix_now(), require_exp)?;
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
        let token = self.sign_with_secret(&json!({ "purpose": purpose }));
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

/// `exp`, when present (and it must be with `require_exp`), a number (a
/// NumericDate may have a fraction) not past; `nbf`, when present, not ahead.
fn check_times(claims: &Value, now: i64, require_exp: bool) -> Result<(), JwtError> {
    match claims.get("exp").map(Value::as_f64) {
        None if require_exp => return Err(JwtError::Invalid(NO_EXP.into())),
        None => {}
        Some(None) => return Err(JwtError::Invalid(BAD_EXP.into())),
        Some(Some(exp)) if exp < now as f64 => return Err(JwtError::Expired),
        Some(Some(_)) => {}
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
#[allow(clippy::unwrap_used)]
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
    fn tokens_without_exp_are_accepted_as_on_the_platform_unless_exp_is_required() {
        let lenient = JwtSecret::new(SECRET).unwrap();
        assert!(!lenient.requires_exp());
        let forever = lenient.sign(&json!({"role": "service_role"}));
        // Verified, then remembered: the same answer both times.
        for _ in 0..2 {
            assert_eq!(lenient.verify(&forever).unwrap()["role"], "service_role");
        }
        // An exp present is still checked, a malformed one refused, nbf too.
        let expired = lenient.sign(&json!({"role": "anon", "exp": now() - 5}));
        assert_eq!(lenient.verify(&expired), Err(JwtError::Expired));
        for exp in [json!("never"), json!(null)] {
            let bad = lenient.sign(&json!({"role": "anon", "exp": exp}));
            for _ in 0..2 {
                assert_eq!(lenient.verify(&bad), Err(JwtError::Invalid(BAD_EXP.into())));
            }
        }
        let bad = lenient.sign(&json!({"role": "anon", "exp": {"at": 1}}));
        assert!(matches!(lenient.verify(&bad), Err(JwtError::Invalid(_))));
        // (a NumericDate may have a fraction)
        let fraction = lenient.sign(&json!({"role": "anon", "exp": now() as f64 + 60.5}));
        assert_eq!(lenient.verify(&fraction).unwrap()["role"], "anon");
        let past = lenient.sign(&json!({"role": "anon", "exp": now() as f64 - 5.5}));
        assert_eq!(lenient.verify(&past), Err(JwtError::Expired));
        let early = lenient.sign(&json!({"role": "anon", "nbf": now() + 60}));
        assert_eq!(
            lenient.verify(&early),
            Err(JwtError::Invalid(NOT_YET_VALID.into()))
        );

        // Required: refused, remembered or not, with a key set too.
        let strict = JwtSecret::new(SECRET).unwrap().require_exp(true);
        assert!(strict.requires_exp());
        let keyed = strict
            .clone()
            .with_key_set(&set(&[&generate(KeyAlg::Es256)]))
            .unwrap();
        assert!(keyed.requires_exp());
        for secret in [&strict, &keyed] {
            for _ in 0..2 {
                assert_eq!(
                    secret.verify(&forever),
                    Err(JwtError::Invalid(NO_EXP.into()))
                );
            }
        }
        assert_eq!(
            keyed.verify(&keyed.sign(&user_claims())).unwrap()["sub"],
            "u1"
        );
        // A token the lenient secret remembered is refused by a strict one
        // sharing its memory.
        let shared = lenient.clone().require_exp(true);
        assert_eq!(
            shared.verify(&forever),
            Err(JwtError::Invalid(NO_EXP.into()))
        );
        assert!(lenient.verify(&forever).is_ok());
        // The time checks of remembered claims follow the same rule.
        assert_eq!(check_times(&json!({"role": "anon"}), now(), false), Ok(()));
        assert_eq!(
            check_times(&json!({"role": "anon"}), now(), true),
            Err(JwtError::Invalid(NO_EXP.into()))
        );
        assert_eq!(
            check_times(&json!({"exp": "soon"}), now(), false),
            Err(JwtError::Invalid(BAD_EXP.into()))
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
            check_times(&json!({"exp": now() + 120, "nbf": now() + 60}), now(), true),
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
        // A URL token must expire, whatever the rule for API credentials,
        // remembered as an API credential's claims first or not.
        let forever = secret.sign(&json!({"url": "bucket/file.txt", "scope": "download"}));
        for _ in 0..2 {
            assert_eq!(
                secret.verify_url_token(&forever),
                Err(JwtError::Invalid(NO_EXP.into()))
            );
            assert_eq!(
                secret.verify(&forever),
                Err(JwtError::Invalid(URL_TOKEN.into()))
            );
        }
    }

    #[test]
    fn derived_keys_depend_on_secret_and_purpose() {
        let secret = JwtSecret::new(SECRET).unwrap();
        let other = JwtSecret::new("another-secret-of-thirty-two-characters!").unwrap();
        assert_eq!(secret.derive_key("a"), secret.derive_key("a"));
        assert_ne!(secret.derive_key("a"), secret.derive_key("b"));
        assert_ne!(secret.derive_key("a"), other.derive_key("a"));
    }

    use crate::jwk::{KeyAlg, generate};
    use base64::Engine;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;

    /// One RSA key per test run (2048-bit generation is slow unoptimised).
    fn rsa_jwk() -> Value {
        static KEY: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        KEY.get_or_init(|| generate(KeyAlg::Rs256)).clone()
    }

    fn rsa_jwk_2() -> Value {
        static KEY: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        KEY.get_or_init(|| generate(KeyAlg::Rs256)).clone()
    }

    fn set(keys: &[&Value]) -> String {
        serde_json::to_string(keys).unwrap()
    }

    fn header_of(token: &str) -> Value {
        let part = token.split('.').next().unwrap();
        serde_json::from_slice(&B64.decode(part).unwrap()).unwrap()
    }

    fn user_claims() -> Value {
        json!({"sub": "u1", "role": "authenticated", "exp": now() + 60})
    }

    #[test]
    fn rs256_and_es256_sets_sign_with_kid_and_verify() {
        for jwk in [rsa_jwk(), generate(KeyAlg::Es256)] {
            let keys = JwtSecret::new(SECRET)
                .unwrap()
                .with_key_set(&set(&[&jwk]))
                .unwrap();
            let token = keys.sign(&user_claims());
            let header = header_of(&token);
            assert_eq!(header["alg"], jwk["alg"]);
            assert_eq!(header["kid"], jwk["kid"]);
            assert_eq!(keys.verify(&token).unwrap()["sub"], "u1");
            assert_eq!(keys.signing_key_id().unwrap().0, jwk["kid"]);
            // API keys are signed with the key too.
            let anon = keys.api_key("anon", now(), now() + 60);
            assert_eq!(header_of(&anon)["kid"], jwk["kid"]);
            assert_eq!(keys.verify(&anon).unwrap()["role"], "anon");
            // Another project's key of the same alg and kid is refused.
            let mut other = if jwk["alg"] == "ES256" {
                generate(KeyAlg::Es256)
            } else {
                rsa_jwk_2()
            };
            other["kid"] = jwk["kid"].clone();
            let forger = JwtSecret::new(SECRET)
                .unwrap()
                .with_key_set(&set(&[&other]))
                .unwrap();
            let forged = forger.sign(&user_claims());
            assert_eq!(header_of(&forged)["kid"], jwk["kid"]);
            assert_eq!(
                keys.verify(&forged),
                Err(JwtError::Invalid(BAD_SIGNATURE.into()))
            );
            // Expiry still applies.
            let expired = keys.sign(&json!({"role": "anon", "exp": now() - 5}));
            assert_eq!(keys.verify(&expired), Err(JwtError::Expired));
        }
    }

    #[test]
    fn rsa_private_keys_without_primes_still_sign() {
        let mut jwk = rsa_jwk();
        for part in ["p", "q", "dp", "dq", "qi"] {
            jwk.as_object_mut().unwrap().remove(part);
        }
        let keys = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&jwk]))
            .unwrap();
        let full = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&rsa_jwk()]))
            .unwrap();
        let token = keys.sign(&user_claims());
        assert_eq!(header_of(&token)["alg"], "RS256");
        assert!(full.verify(&token).is_ok());
    }

    #[test]
    fn legacy_hs256_keys_still_verify_with_a_key_set() {
        let plain = JwtSecret::new(SECRET).unwrap();
        let legacy = plain.api_key("service_role", now(), now() + 60);
        let keys = plain
            .with_key_set(&set(&[&generate(KeyAlg::Es256)]))
            .unwrap();
        assert_eq!(keys.verify(&legacy).unwrap()["role"], "service_role");
        // Derived keys do not change with the key set.
        let again = JwtSecret::new(SECRET).unwrap();
        assert_eq!(keys.derive_key("x"), again.derive_key("x"));
        assert_eq!(
            header_of(&keys.sign_with_secret(&user_claims()))["alg"],
            "HS256"
        );
        // A token signed by another secret is not.
        let other = JwtSecret::new("another-secret-of-thirty-two-characters!").unwrap();
        assert!(
            keys.verify(&other.api_key("anon", now(), now() + 60))
                .is_err()
        );
    }

    #[test]
    fn rotation_signs_with_the_new_key_and_old_tokens_still_verify() {
        let old = generate(KeyAlg::Es256);
        let before = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&old]))
            .unwrap();
        let old_token = before.sign(&user_claims());

        let new = rsa_jwk();
        let after = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&new, &old]))
            .unwrap();
        let new_token = after.sign(&user_claims());
        assert_eq!(header_of(&new_token)["kid"], new["kid"]);
        assert_eq!(header_of(&new_token)["alg"], "RS256");
        assert!(after.verify(&old_token).is_ok());
        assert!(after.verify(&new_token).is_ok());
        // The old set does not know the new key.
        assert!(before.verify(&new_token).is_err());
        // Both public keys are published, the signing key first.
        let published = after.jwks();
        assert_eq!(published["keys"][0]["kid"], new["kid"]);
        assert_eq!(published["keys"][1]["kid"], old["kid"]);

        // Once the old key is dropped, its tokens are refused.
        let dropped = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&new]))
            .unwrap();
        assert!(matches!(
            dropped.verify(&old_token),
            Err(JwtError::Invalid(_))
        ));

        // A key demoted to verify only does not sign even when first.
        let mut demoted = old.clone();
        demoted["key_ops"] = json!(["verify"]);
        let demoted_first = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&demoted, &new]))
            .unwrap();
        assert_eq!(
            header_of(&demoted_first.sign(&user_claims()))["kid"],
            new["kid"]
        );
        assert!(demoted_first.verify(&old_token).is_ok());
    }

    #[test]
    fn tokens_without_kid_are_checked_against_keys_of_their_alg() {
        let jwk = generate(KeyAlg::Es256);
        let keys = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&jwk]))
            .unwrap();
        let token = keys.sign(&user_claims());
        // The same token with the kid taken out of the header: the header
        // is signed, so re-sign it as another tool would.
        let (parsed, _) = crate::jwk::parse_set(&set(&[&jwk])).unwrap();
        let encoding_key = parsed[0].encoding.clone().unwrap();
        let no_kid = jsonwebtoken::encode(
            &Header::new(Algorithm::ES256),
            &user_claims(),
            &encoding_key,
        )
        .unwrap();
        assert!(header_of(&no_kid).get("kid").is_none());
        assert_eq!(keys.verify(&no_kid).unwrap()["sub"], "u1");
        assert!(keys.verify(&token).is_ok());
        // An unknown kid falls back the same way.
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some("not-a-known-kid".into());
        let unknown = jsonwebtoken::encode(&header, &user_claims(), &encoding_key).unwrap();
        assert!(keys.verify(&unknown).is_ok());
        // Without any key of that alg it is refused.
        let plain = JwtSecret::new(SECRET).unwrap();
        assert!(matches!(plain.verify(&no_kid), Err(JwtError::Invalid(_))));
    }

    #[test]
    fn a_kid_naming_another_key_of_the_set_is_refused() {
        let a = generate(KeyAlg::Es256);
        let b = generate(KeyAlg::Es256);
        let keys = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&a, &b]))
            .unwrap();
        let (parsed, _) = crate::jwk::parse_set(&set(&[&a])).unwrap();
        let signer = parsed[0].encoding.clone().unwrap();
        let mut header = Header::new(Algorithm::ES256);
        header.kid = b["kid"].as_str().map(str::to_owned);
        // Signed by a, labelled b: b is the only key tried.
        let mislabelled = jsonwebtoken::encode(&header, &user_claims(), &signer).unwrap();
        assert_eq!(
            keys.verify(&mislabelled),
            Err(JwtError::Invalid(BAD_SIGNATURE.into()))
        );
        header.kid = a["kid"].as_str().map(str::to_owned);
        let labelled = jsonwebtoken::encode(&header, &user_claims(), &signer).unwrap();
        assert!(keys.verify(&labelled).is_ok());
        // The secret's HS256 tokens cannot borrow an asymmetric key's kid.
        let mut hs = Header::new(Algorithm::HS256);
        hs.kid = a["kid"].as_str().map(str::to_owned);
        let borrowed = jsonwebtoken::encode(
            &hs,
            &user_claims(),
            &EncodingKey::from_secret(SECRET.as_bytes()),
        )
        .unwrap();
        assert!(matches!(keys.verify(&borrowed), Err(JwtError::Invalid(_))));
    }

    #[test]
    fn hs256_tokens_keyed_with_public_key_bytes_are_refused() {
        let rsa = rsa_jwk();
        let ec = generate(KeyAlg::Es256);
        let keys = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&rsa, &ec]))
            .unwrap();
        let published = keys.jwks();
        for public in published["keys"].as_array().unwrap() {
            let kid = public["kid"].as_str().unwrap();
            let mut candidates: Vec<Vec<u8>> = vec![
                serde_json::to_vec(public).unwrap(),
                serde_json::to_vec(&published).unwrap(),
            ];
            for part in ["n", "x"] {
                if let Some(text) = public[part].as_str() {
                    candidates.push(B64.decode(text).unwrap());
                    candidates.push(text.as_bytes().to_vec());
                }
            }
            if public["kty"] == "RSA" {
                use rsa::pkcs1::EncodeRsaPublicKey;
                use rsa::pkcs8::EncodePublicKey;
                let n = rsa::BigUint::from_bytes_be(
                    &B64.decode(public["n"].as_str().unwrap()).unwrap(),
                );
                let e = rsa::BigUint::from_bytes_be(
                    &B64.decode(public["e"].as_str().unwrap()).unwrap(),
                );
                let key = rsa::RsaPublicKey::new(n, e).unwrap();
                candidates.push(key.to_pkcs1_der().unwrap().as_bytes().to_vec());
                candidates.push(key.to_public_key_der().unwrap().as_bytes().to_vec());
                candidates.push(
                    key.to_public_key_pem(rsa::pkcs8::LineEnding::LF)
                        .unwrap()
                        .into_bytes(),
                );
            }
            for bytes in candidates {
                let forge = |kid: Option<&str>| {
                    let mut header = Header::new(Algorithm::HS256);
                    header.kid = kid.map(str::to_owned);
                    let claims = json!({"role": "service_role", "exp": now() + 60});
                    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(&bytes))
                        .unwrap()
                };
                assert!(keys.verify(&forge(Some(kid))).is_err(), "kid {kid}");
                assert!(keys.verify(&forge(None)).is_err());
            }
        }
    }

    #[test]
    fn unsigned_tokens_are_refused() {
        let jwk = generate(KeyAlg::Es256);
        let keys = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&jwk]))
            .unwrap();
        let claims = B64.encode(
            serde_json::to_vec(&json!({"role": "service_role", "exp": now() + 60})).unwrap(),
        );
        for header in [
            json!({"alg": "none", "typ": "JWT"}),
            json!({"alg": "none", "kid": jwk["kid"]}),
            json!({"alg": "None"}),
            json!({"alg": "RS256", "kid": jwk["kid"]}),
            json!({"alg": "HS512"}),
        ] {
            let head = B64.encode(serde_json::to_vec(&header).unwrap());
            for signature in ["", "AAAA"] {
                let token = format!("{head}.{claims}.{signature}");
                assert!(
                    matches!(keys.verify(&token), Err(JwtError::Invalid(_))),
                    "{header}"
                );
            }
        }
    }

    #[test]
    fn the_jwks_publishes_public_parts_only() {
        let rsa = rsa_jwk();
        let ec = generate(KeyAlg::Es256);
        let oct = json!({"kty": "oct", "kid": "legacy", "alg": "HS256",
            "k": B64.encode(b"an-oct-key-of-thirty-two-bytes-or-more")});
        assert!(rsa.get("d").is_some() && ec.get("d").is_some());
        let keys = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&ec, &oct, &rsa]))
            .unwrap();
        let published = keys.jwks();
        let list = published["keys"].as_array().unwrap();
        assert_eq!(list.len(), 2, "{published}");
        let text = published.to_string();
        for private in [
            "\"d\"", "\"p\"", "\"q\"", "\"dp\"", "\"dq\"", "\"qi\"", "\"k\"",
        ] {
            assert!(!text.contains(private), "{private} in {text}");
        }
        assert_eq!(
            list[0],
            json!({"kty": "EC", "kid": ec["kid"], "alg": "ES256", "use": "sig",
                "key_ops": ["verify"], "crv": "P-256", "x": ec["x"], "y": ec["y"]})
        );
        assert_eq!(
            list[1],
            json!({"kty": "RSA", "kid": rsa["kid"], "alg": "RS256", "use": "sig",
                "key_ops": ["verify"], "n": rsa["n"], "e": rsa["e"]})
        );
        // The oct key signs nothing here (the EC key is first) but verifies.
        let oct_only = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&oct]))
            .unwrap();
        let token = oct_only.sign(&user_claims());
        assert_eq!(header_of(&token)["kid"], "legacy");
        assert!(keys.verify(&token).is_ok());
        assert_eq!(oct_only.jwks(), json!({"keys": []}));
        assert_eq!(JwtSecret::new(SECRET).unwrap().jwks(), json!({"keys": []}));
    }

    #[test]
    fn public_only_keys_verify_but_never_sign() {
        let jwk = generate(KeyAlg::Es256);
        let signer = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&jwk]))
            .unwrap();
        let token = signer.sign(&user_claims());
        let mut public = jwk.clone();
        public.as_object_mut().unwrap().remove("d");
        let err = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&public]))
            .unwrap_err();
        assert_eq!(err, KeySetError::NoSigner);
        let next = generate(KeyAlg::Es256);
        let keys = JwtSecret::new(SECRET)
            .unwrap()
            .with_key_set(&set(&[&public, &next]))
            .unwrap();
        assert_eq!(keys.signing_key_id().unwrap().0, next["kid"]);
        assert!(keys.verify(&token).is_ok());
    }

    #[test]
    fn bad_key_sets_are_refused_without_echoing_keys() {
        let ec = generate(KeyAlg::Es256);
        let mut other = generate(KeyAlg::Es256);
        let d = ec["d"].as_str().unwrap().to_owned();
        let refused = |text: &str| {
            let err = JwtSecret::new(SECRET)
                .unwrap()
                .with_key_set(text)
                .unwrap_err();
            let message = err.to_string();
            assert!(!message.contains(&d), "{message}");
            err
        };
        assert!(matches!(refused("nope"), KeySetError::NotJson(_)));
        assert!(matches!(
            refused(&format!("[{{\"d\": \"{d}\",")),
            KeySetError::NotJson(_)
        ));
        assert_eq!(refused("{}"), KeySetError::NotArray);
        assert_eq!(refused("[]"), KeySetError::Empty);
        assert_eq!(refused("{\"keys\": []}"), KeySetError::Empty);
        let reason = |value: Value| match refused(&set(&[&value])) {
            KeySetError::Key { index: 0, reason } => reason,
            other => panic!("{other:?}"),
        };
        let mut no_kid = ec.clone();
        no_kid.as_object_mut().unwrap().remove("kid");
        assert_eq!(reason(no_kid), "\"kid\" is missing");
        let mut wrong_alg = ec.clone();
        wrong_alg["alg"] = json!("RS256");
        assert!(reason(wrong_alg).contains("not supported"));
        let mut wrong_curve = ec.clone();
        wrong_curve["crv"] = json!("P-384");
        assert!(reason(wrong_curve).contains("P-256"));
        let mut mismatched = ec.clone();
        mismatched["x"] = other["x"].clone();
        mismatched["y"] = other["y"].clone();
        assert!(reason(mismatched).contains("does not match"));
        let mut encryption = ec.clone();
        encryption["use"] = json!("enc");
        assert!(reason(encryption).contains("sig"));
        assert!(reason(json!({"kty": "oct", "kid": "s", "k": "c2hvcnQ"})).contains("32 bytes"));
        assert!(
            reason(json!({"kty": "OKP", "kid": "e", "crv": "Ed25519"})).contains("not supported")
        );
        let mut small_rsa = rsa_jwk();
        small_rsa["n"] = json!(B64.encode([0xffu8; 128]));
        assert!(reason(small_rsa).contains("2048"));
        let mut bad_d = rsa_jwk();
        bad_d["d"] = other["d"].clone();
        bad_d.as_object_mut().unwrap().remove("p");
        assert!(reason(bad_d).contains("does not match"));
        other["kid"] = ec["kid"].clone();
        assert!(matches!(
            refused(&set(&[&ec, &other])),
            KeySetError::DuplicateKid(_)
        ));
    }

    #[test]
    fn debug_output_hides_the_secret() {
        let secret = JwtSecret::new(SECRET).unwrap();
        assert!(!format!("{secret:?}").contains("thirty"));
    }
}
