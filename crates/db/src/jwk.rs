//! JSON Web Keys: the key set GoTrue reads from `GOTRUE_JWT_KEYS`.
//!
//! A set is a JSON array of JWKs (an object with a `keys` array is taken
//! too). Each key has a `kid` and is one of
//! * RSA (`RS256`, at least 2048 bits): `n`, `e`, and for signing `d`
//!   (`p`, `q` when given, else recovered);
//! * EC on P-256 (`ES256`): `crv`, `x`, `y`, and for signing `d`;
//! * `oct` (`HS256`): `k`, at least 32 bytes; never published.
//!
//! A key with its private part signs when its `key_ops` (if present) include
//! `sign`; the first such key of the set signs every token. A key without a
//! private part, or whose `key_ops` leave out `sign`, only verifies. Public
//! parts are published as GoTrue publishes them: `use` `sig`, `key_ops`
//! `["verify"]`, never `d` or the RSA primes, never symmetric keys.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey};
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::pkcs8::EncodePrivateKey;
use rsa::BigUint;
use rsa::pkcs1::EncodeRsaPrivateKey;
use rsa::traits::{PrivateKeyParts, PublicKeyParts};
use serde_json::{Map, Value, json};

/// The smallest RSA modulus accepted, in bits.
pub const MIN_RSA_BITS: usize = 2048;
/// The shortest symmetric (`oct`) key accepted, in bytes.
pub const MIN_OCT_BYTES: usize = 32;

/// One key of a set, ready to sign (when it may) and verify.
#[derive(Clone)]
pub(crate) struct Key {
    pub kid: String,
    pub alg: Algorithm,
    /// The private key, when the key may sign.
    pub encoding: Option<EncodingKey>,
    pub decoding: DecodingKey,
    /// The public JWK to publish; `None` for symmetric keys.
    pub public: Option<Value>,
}

/// Why a key set was refused. Never contains key material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeySetError {
    #[error("the JWT key set is not JSON: {0}")]
    NotJson(String),
    #[error("the JWT key set must be a JSON array of JWKs (or an object with a \"keys\" array)")]
    NotArray,
    #[error("the JWT key set is empty")]
    Empty,
    #[error("key {index} of the JWT key set: {reason}")]
    Key { index: usize, reason: String },
    #[error("the JWT key set has two keys with kid {0:?}")]
    DuplicateKid(String),
    #[error(
        "the JWT key set has no key that can sign (a private key whose key_ops, when given, include \"sign\")"
    )]
    NoSigner,
}

/// Parses a key set; returns its keys in order and the index of the key
/// that signs.
pub(crate) fn parse_set(text: &str) -> Result<(Vec<Key>, usize), KeySetError> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| KeySetError::NotJson(describe(&e)))?;
    let list = match value {
        Value::Array(list) => list,
        Value::Object(mut object) => match object.remove("keys") {
            Some(Value::Array(list)) => list,
            _ => return Err(KeySetError::NotArray),
        },
        _ => return Err(KeySetError::NotArray),
    };
    if list.is_empty() {
        return Err(KeySetError::Empty);
    }
    let mut keys: Vec<Key> = Vec::with_capacity(list.len());
    let mut signer = None;
    for (index, jwk) in list.iter().enumerate() {
        let (key, signs) = parse_key(jwk).map_err(|reason| KeySetError::Key { index, reason })?;
        if keys.iter().any(|k| k.kid == key.kid) {
            return Err(KeySetError::DuplicateKid(key.kid));
        }
        if signs && signer.is_none() {
            signer = Some(index);
        }
        keys.push(key);
    }
    let signer = signer.ok_or(KeySetError::NoSigner)?;
    Ok((keys, signer))
}

/// serde's message without the input echoed (it may hold private keys).
fn describe(error: &serde_json::Error) -> String {
    format!(
        "{:?} error at line {} column {}",
        error.classify(),
        error.line(),
        error.column()
    )
    .to_lowercase()
}

fn string<'a>(jwk: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>, String> {
    match jwk.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("\"{name}\" must be a string")),
    }
}

fn bytes(jwk: &Map<String, Value>, name: &str) -> Result<Option<Vec<u8>>, String> {
    let Some(text) = string(jwk, name)? else {
        return Ok(None);
    };
    // Some tools pad base64url; the value is the same.
    B64.decode(text.trim_end_matches('='))
        .map(Some)
        .map_err(|_| format!("\"{name}\" is not base64url"))
}

fn required(jwk: &Map<String, Value>, name: &str) -> Result<Vec<u8>, String> {
    bytes(jwk, name)?.ok_or_else(|| format!("\"{name}\" is missing"))
}

/// One JWK: the key and whether it signs.
fn parse_key(jwk: &Value) -> Result<(Key, bool), String> {
    let jwk = jwk.as_object().ok_or("a JWK must be a JSON object")?;
    let kid = string(jwk, "kid")?
        .filter(|k| !k.is_empty())
        .ok_or("\"kid\" is missing")?
        .to_owned();
    if let Some(usage) = string(jwk, "use")?
        && usage != "sig"
    {
        return Err(format!("\"use\" is {usage:?}; a signing key has \"sig\""));
    }
    let ops = match jwk.get("key_ops") {
        None | Some(Value::Null) => None,
        Some(Value::Array(ops)) => Some(
            ops.iter()
                .map(|op| op.as_str().ok_or("\"key_ops\" must list strings"))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Some(_) => return Err("\"key_ops\" must be an array".into()),
    };
    let kty = string(jwk, "kty")?.ok_or("\"kty\" is missing")?;
    let alg = string(jwk, "alg")?;
    let want = |expected: &str| match alg {
        None => Ok(()),
        Some(a) if a == expected => Ok(()),
        Some(a) => Err(format!(
            "alg {a:?} is not supported for kty {kty:?} (use {expected})"
        )),
    };
    let key = match kty {
        "RSA" => {
            want("RS256")?;
            rsa_key(jwk, kid)?
        }
        "EC" => {
            want("ES256")?;
            ec_key(jwk, kid)?
        }
        "oct" => {
            want("HS256")?;
            let k = required(jwk, "k")?;
            if k.len() < MIN_OCT_BYTES {
                return Err(format!(
                    "an oct key must have at least {MIN_OCT_BYTES} bytes"
                ));
            }
            Key {
                kid,
                alg: Algorithm::HS256,
                encoding: Some(EncodingKey::from_secret(&k)),
                decoding: DecodingKey::from_secret(&k),
                public: None,
            }
        }
        other => {
            return Err(format!("kty {other:?} is not supported (RSA, EC or oct)"));
        }
    };
    let signs = key.encoding.is_some() && ops.is_none_or(|ops| ops.contains(&"sign"));
    Ok((key, signs))
}

fn rsa_key(jwk: &Map<String, Value>, kid: String) -> Result<Key, String> {
    let n = required(jwk, "n")?;
    let e = required(jwk, "e")?;
    let (n, e) = (BigUint::from_bytes_be(&n), BigUint::from_bytes_be(&e));
    if n.bits() < MIN_RSA_BITS {
        return Err(format!(
            "the RSA modulus has {} bits; at least {MIN_RSA_BITS} are needed",
            n.bits()
        ));
    }
    let public = rsa::RsaPublicKey::new(n.clone(), e.clone())
        .map_err(|e| format!("not a valid RSA public key: {e}"))?;
    let encoding = match bytes(jwk, "d")? {
        None => None,
        Some(d) => {
            let primes = match (bytes(jwk, "p")?, bytes(jwk, "q")?) {
                (Some(p), Some(q)) => {
                    vec![BigUint::from_bytes_be(&p), BigUint::from_bytes_be(&q)]
                }
                _ => Vec::new(),
            };
            let private =
                rsa::RsaPrivateKey::from_components(n, e, BigUint::from_bytes_be(&d), primes)
                    .map_err(|_| "the RSA private key does not match its public key".to_owned())?;
            let der = private
                .to_pkcs1_der()
                .map_err(|_| "the RSA private key cannot be encoded".to_owned())?;
            Some(EncodingKey::from_rsa_der(der.as_bytes()))
        }
    };
    let (n, e) = (public.n().to_bytes_be(), public.e().to_bytes_be());
    Ok(Key {
        decoding: DecodingKey::from_rsa_raw_components(&n, &e),
        public: Some(json!({
            "kty": "RSA",
            "kid": kid,
            "alg": "RS256",
            "use": "sig",
            "key_ops": ["verify"],
            "n": B64.encode(&n),
            "e": B64.encode(&e),
        })),
        kid,
        alg: Algorithm::RS256,
        encoding,
    })
}

fn ec_key(jwk: &Map<String, Value>, kid: String) -> Result<Key, String> {
    match string(jwk, "crv")? {
        Some("P-256") => {}
        Some(other) => return Err(format!("crv {other:?} is not supported (P-256)")),
        None => return Err("\"crv\" is missing".into()),
    }
    let given = match (bytes(jwk, "x")?, bytes(jwk, "y")?) {
        (Some(x), Some(y)) => {
            if x.len() != 32 || y.len() != 32 {
                return Err("\"x\" and \"y\" of a P-256 key have 32 bytes each".into());
            }
            let mut point = vec![4u8];
            point.extend_from_slice(&x);
            point.extend_from_slice(&y);
            Some(
                p256::PublicKey::from_sec1_bytes(&point)
                    .map_err(|_| "\"x\" and \"y\" are not a point of P-256".to_owned())?,
            )
        }
        (None, None) => None,
        _ => return Err("\"x\" and \"y\" come together".into()),
    };
    let (public, encoding) = match bytes(jwk, "d")? {
        Some(d) => {
            let secret = p256::SecretKey::from_slice(&d)
                .map_err(|_| "\"d\" is not a P-256 private key".to_owned())?;
            let public = secret.public_key();
            if given.is_some_and(|g| g != public) {
                return Err("the EC private key does not match its public key".into());
            }
            let der = secret
                .to_pkcs8_der()
                .map_err(|_| "the EC private key cannot be encoded".to_owned())?;
            (public, Some(EncodingKey::from_ec_der(der.as_bytes())))
        }
        None => (given.ok_or("\"x\" and \"y\" are missing")?, None),
    };
    let point = public.to_encoded_point(false);
    let (x, y) = (
        B64.encode(point.x().ok_or("no x")?),
        B64.encode(point.y().ok_or("no y")?),
    );
    let decoding = DecodingKey::from_ec_components(&x, &y)
        .map_err(|_| "the EC public key cannot be used".to_owned())?;
    Ok(Key {
        decoding,
        public: Some(json!({
            "kty": "EC",
            "kid": kid,
            "alg": "ES256",
            "use": "sig",
            "key_ops": ["verify"],
            "crv": "P-256",
            "x": x,
            "y": y,
        })),
        kid,
        alg: Algorithm::ES256,
        encoding,
    })
}

/// The algorithms [`generate`] makes keys for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyAlg {
    Es256,
    Rs256,
}

/// A new private JWK (with a random `kid`, `use` `sig` and `key_ops`
/// `["sign", "verify"]`), in the shape GoTrue and the platform's CLI read.
pub fn generate(alg: KeyAlg) -> Value {
    let mut rng = rsa::rand_core::OsRng;
    let kid = random_kid();
    match alg {
        KeyAlg::Es256 => {
            let secret = p256::SecretKey::random(&mut rng);
            let point = secret.public_key().to_encoded_point(false);
            json!({
                "kty": "EC",
                "kid": kid,
                "use": "sig",
                "key_ops": ["sign", "verify"],
                "alg": "ES256",
                "crv": "P-256",
                "x": B64.encode(point.x().expect("an uncompressed point has x")),
                "y": B64.encode(point.y().expect("an uncompressed point has y")),
                "d": B64.encode(secret.to_bytes()),
            })
        }
        KeyAlg::Rs256 => {
            let key = rsa::RsaPrivateKey::new(&mut rng, MIN_RSA_BITS)
                .expect("a 2048-bit RSA key can be generated");
            let part = |n: &BigUint| B64.encode(n.to_bytes_be());
            let primes = key.primes();
            let mut jwk = json!({
                "kty": "RSA",
                "kid": kid,
                "use": "sig",
                "key_ops": ["sign", "verify"],
                "alg": "RS256",
                "n": part(key.n()),
                "e": part(key.e()),
                "d": part(key.d()),
                "p": part(&primes[0]),
                "q": part(&primes[1]),
            });
            // The CRT values, so that every JWK reader (WebCrypto too) takes it.
            if let (Some(dp), Some(dq), Some(qi)) = (key.dp(), key.dq(), key.crt_coefficient()) {
                jwk["dp"] = part(dp).into();
                jwk["dq"] = part(dq).into();
                jwk["qi"] = part(&qi).into();
            }
            jwk
        }
    }
}

/// A random UUID (version 4) as text, the form of the platform's key ids.
fn random_kid() -> String {
    let mut b: [u8; 16] = rand::random();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}
