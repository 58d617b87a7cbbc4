//! WebAuthn factors: the credential options a challenge sends (as the
//! platform's go-webauthn builds them) and the checks of an authenticator's
//! answer: registration with `none` attestation, assertions signed with
//! ES256 (P-256), the usual choice of platform authenticators and security
//! keys.
//!
//! Checked on every answer: `clientDataJSON`'s type, challenge and origin
//! (one of `GOTRUE_WEBAUTHN_RP_ORIGINS`), the authenticator data's RP id
//! hash and user-presence flag; on assertions the credential id, the
//! signature over `authenticatorData || SHA-256(clientDataJSON)` and a
//! growing signature counter.

use base64::Engine;
use p256::ecdsa::signature::Verifier;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;
/// COSE algorithm ES256.
const ES256: i64 = -7;
const FLAG_USER_PRESENT: u8 = 0x01;
const FLAG_ATTESTED_DATA: u8 = 0x40;

/// Why an answer was refused (sent as the message of a 422).
pub type Refusal = &'static str;

/// The relying party (`GOTRUE_WEBAUTHN_*`).
#[derive(Debug, Clone, Default)]
pub struct RelyingParty {
    pub id: String,
    pub display_name: String,
    pub origins: Vec<String>,
}

/// A stored credential (`mfa_factors.web_authn_credential`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub id: Vec<u8>,
    /// The uncompressed P-256 point coordinates.
    pub x: Vec<u8>,
    pub y: Vec<u8>,
    pub sign_count: u32,
    pub aaguid: [u8; 16],
}

impl Credential {
    pub fn to_json(&self) -> Value {
        json!({
            "id": B64.encode(&self.id),
            "public_key": {"kty": "EC2", "alg": ES256, "crv": "P-256",
                           "x": B64.encode(&self.x), "y": B64.encode(&self.y)},
            "sign_count": self.sign_count,
            "aaguid": B64.encode(self.aaguid),
        })
    }

    pub fn from_json(value: &Value) -> Option<Self> {
        let bytes = |v: &Value| v.as_str().and_then(|s| B64.decode(s).ok());
        Some(Self {
            id: bytes(&value["id"])?,
            x: bytes(&value["public_key"]["x"])?,
            y: bytes(&value["public_key"]["y"])?,
            sign_count: u32::try_from(value["sign_count"].as_u64()?).ok()?,
            aaguid: bytes(&value["aaguid"])?.try_into().ok()?,
        })
    }
}

/// A fresh challenge, base64url (32 random bytes).
pub fn new_challenge() -> String {
    let mut bytes = [0u8; 32];
    rand::Rng::fill(&mut rand::rng(), &mut bytes);
    B64.encode(bytes)
}

/// `credential_options` of a registration (`type: "create"`).
pub fn creation_options(
    rp: &RelyingParty,
    user_id: &str,
    email: &str,
    challenge: &str,
    exclude: &[Vec<u8>],
    timeout_ms: u64,
) -> Value {
    json!({
        "publicKey": {
            "rp": {"name": rp.display_name, "id": rp.id},
            "user": {"name": email, "displayName": email, "id": B64.encode(user_id.as_bytes())},
            "challenge": challenge,
            "pubKeyCredParams": [{"type": "public-key", "alg": ES256}],
            "timeout": timeout_ms,
            "excludeCredentials": exclude.iter().map(|id| json!({
                "type": "public-key", "id": B64.encode(id), "transports": ["usb", "nfc"]
            })).collect::<Vec<_>>(),
            "authenticatorSelection": {"requireResidentKey": false, "userVerification": "preferred"},
            "attestation": "none",
        }
    })
}

/// `credential_options` of an assertion (`type: "request"`).
pub fn request_options(
    rp: &RelyingParty,
    challenge: &str,
    allow: &[Vec<u8>],
    timeout_ms: u64,
) -> Value {
    json!({
        "publicKey": {
            "challenge": challenge,
            "timeout": timeout_ms,
            "rpId": rp.id,
            "allowCredentials": allow.iter().map(|id| json!({"type": "public-key", "id": B64.encode(id)}))
                .collect::<Vec<_>>(),
            "userVerification": "preferred",
        }
    })
}

fn field<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |v, key| v.get(*key))
        .and_then(Value::as_str)
}

fn decode(value: &Value, path: &[&str]) -> Result<Vec<u8>, Refusal> {
    field(value, path)
        .and_then(|s| B64.decode(s.trim_end_matches('=')).ok())
        .ok_or("Invalid credential_response")
}

/// Checks `clientDataJSON` (type, challenge, origin).
fn check_client_data(
    rp: &RelyingParty,
    raw: &[u8],
    kind: &str,
    challenge: &str,
) -> Result<(), Refusal> {
    let data: Value = serde_json::from_slice(raw).map_err(|_| "Invalid credential_response")?;
    if data["type"] != kind {
        return Err("WebAuthn client data has the wrong type");
    }
    let given = data["challenge"].as_str().unwrap_or_default();
    if !crate::tokens::constant_time_eq(
        given.trim_end_matches('=').as_bytes(),
        challenge.as_bytes(),
    ) {
        return Err("WebAuthn challenge does not match");
    }
    let origin = data["origin"].as_str().unwrap_or_default();
    if !rp.origins.iter().any(|o| o.trim_end_matches('/') == origin) {
        return Err("WebAuthn origin is not allowed");
    }
    Ok(())
}

/// The parts of authenticator data before extensions.
struct AuthData<'a> {
    flags: u8,
    sign_count: u32,
    /// Attested credential data and the rest (registrations).
    rest: &'a [u8],
}

fn parse_auth_data<'a>(rp: &RelyingParty, data: &'a [u8]) -> Result<AuthData<'a>, Refusal> {
    if data.len() < 37 {
        return Err("Invalid credential_response");
    }
    let expected: [u8; 32] = Sha256::digest(rp.id.as_bytes()).into();
    if data[..32] != expected {
        return Err("WebAuthn RP id does not match");
    }
    let flags = data[32];
    if flags & FLAG_USER_PRESENT == 0 {
        return Err("WebAuthn user presence is required");
    }
    Ok(AuthData {
        flags,
        sign_count: u32::from_be_bytes([data[33], data[34], data[35], data[36]]),
        rest: &data[37..],
    })
}

/// Checks a registration answer (`credential_response` of `type: "create"`);
/// the new credential.
pub fn finish_registration(
    rp: &RelyingParty,
    challenge: &str,
    response: &Value,
) -> Result<Credential, Refusal> {
    let client_data = decode(response, &["response", "clientDataJSON"])?;
    let attestation = decode(response, &["response", "attestationObject"])?;
    check_client_data(rp, &client_data, "webauthn.create", challenge)?;
    let (object, _) = cbor::parse(&attestation).ok_or("Invalid credential_response")?;
    if object.get_text("fmt") != Some("none") {
        return Err("Only attestation \"none\" is accepted");
    }
    let auth_data = object
        .get_text_key("authData")
        .and_then(cbor::Item::as_bytes)
        .ok_or("Invalid credential_response")?;
    let parsed = parse_auth_data(rp, auth_data)?;
    if parsed.flags & FLAG_ATTESTED_DATA == 0 || parsed.rest.len() < 18 {
        return Err("Invalid credential_response");
    }
    let mut aaguid = [0u8; 16];
    aaguid.copy_from_slice(&parsed.rest[..16]);
    let id_len = usize::from(u16::from_be_bytes([parsed.rest[16], parsed.rest[17]]));
    let id = parsed
        .rest
        .get(18..18 + id_len)
        .ok_or("Invalid credential_response")?
        .to_vec();
    if decode(response, &["rawId"]).ok().as_deref() != Some(id.as_slice()) {
        return Err("Invalid credential_response");
    }
    let (key, _) = cbor::parse(&parsed.rest[18 + id_len..]).ok_or("Invalid credential_response")?;
    let int = |k: i64| key.get_int_key(k);
    if int(1).and_then(cbor::Item::as_int) != Some(2)
        || int(3).and_then(cbor::Item::as_int) != Some(ES256)
        || int(-1).and_then(cbor::Item::as_int) != Some(1)
    {
        return Err("Only ES256 (P-256) credentials are accepted");
    }
    let x = int(-2)
        .and_then(cbor::Item::as_bytes)
        .ok_or("Invalid credential_response")?;
    let y = int(-3)
        .and_then(cbor::Item::as_bytes)
        .ok_or("Invalid credential_response")?;
    let credential = Credential {
        id,
        x: x.to_vec(),
        y: y.to_vec(),
        sign_count: parsed.sign_count,
        aaguid,
    };
    verifying_key(&credential).ok_or("Invalid credential public key")?;
    Ok(credential)
}

fn verifying_key(credential: &Credential) -> Option<p256::ecdsa::VerifyingKey> {
    let x: [u8; 32] = credential.x.as_slice().try_into().ok()?;
    let y: [u8; 32] = credential.y.as_slice().try_into().ok()?;
    let point = p256::EncodedPoint::from_affine_coordinates(&x.into(), &y.into(), false);
    p256::ecdsa::VerifyingKey::from_encoded_point(&point).ok()
}

/// Checks an assertion (`credential_response` of `type: "request"`) by
/// `credential`; its new signature counter.
pub fn finish_assertion(
    rp: &RelyingParty,
    challenge: &str,
    credential: &Credential,
    response: &Value,
) -> Result<u32, Refusal> {
    let raw_id = decode(response, &["rawId"])?;
    if raw_id != credential.id {
        return Err("WebAuthn credential is not this factor's");
    }
    let client_data = decode(response, &["response", "clientDataJSON"])?;
    let auth_data = decode(response, &["response", "authenticatorData"])?;
    let signature = decode(response, &["response", "signature"])?;
    check_client_data(rp, &client_data, "webauthn.get", challenge)?;
    let parsed = parse_auth_data(rp, &auth_data)?;
    let key = verifying_key(credential).ok_or("Invalid credential public key")?;
    let signature =
        p256::ecdsa::Signature::from_der(&signature).map_err(|_| "Invalid WebAuthn signature")?;
    let mut signed = auth_data.clone();
    signed.extend_from_slice(&Sha256::digest(&client_data));
    key.verify(&signed, &signature)
        .map_err(|_| "Invalid WebAuthn signature")?;
    // A counter that does not grow (when the authenticator keeps one) means
    // a cloned authenticator.
    if (parsed.sign_count != 0 || credential.sign_count != 0)
        && parsed.sign_count <= credential.sign_count
    {
        return Err("WebAuthn signature counter did not increase");
    }
    Ok(parsed.sign_count)
}

/// Just enough CBOR (RFC 8949) for attestation objects and COSE keys.
pub mod cbor {
    #[derive(Debug, Clone, PartialEq)]
    pub enum Item {
        Int(i64),
        Bytes(Vec<u8>),
        Text(String),
        Array(Vec<Item>),
        Map(Vec<(Item, Item)>),
        Simple(u8),
    }

    impl Item {
        pub fn as_int(&self) -> Option<i64> {
            match self {
                Self::Int(i) => Some(*i),
                _ => None,
            }
        }

        pub fn as_bytes(&self) -> Option<&[u8]> {
            match self {
                Self::Bytes(b) => Some(b),
                _ => None,
            }
        }

        fn entries(&self) -> &[(Item, Item)] {
            match self {
                Self::Map(entries) => entries,
                _ => &[],
            }
        }

        pub fn get_text_key(&self, key: &str) -> Option<&Item> {
            self.entries()
                .iter()
                .find(|(k, _)| matches!(k, Item::Text(t) if t == key))
                .map(|(_, v)| v)
        }

        pub fn get_text(&self, key: &str) -> Option<&str> {
            match self.get_text_key(key)? {
                Item::Text(t) => Some(t),
                _ => None,
            }
        }

        pub fn get_int_key(&self, key: i64) -> Option<&Item> {
            self.entries()
                .iter()
                .find(|(k, _)| k.as_int() == Some(key))
                .map(|(_, v)| v)
        }
    }

    /// One item from the start of `data` and the bytes it took.
    pub fn parse(data: &[u8]) -> Option<(Item, usize)> {
        parse_at(data, 0)
    }

    fn parse_at(data: &[u8], depth: usize) -> Option<(Item, usize)> {
        if depth > 16 {
            return None;
        }
        let first = *data.first()?;
        let major = first >> 5;
        let info = first & 0x1f;
        let (arg, mut used): (u64, usize) = match info {
            0..=23 => (u64::from(info), 1),
            24 => (u64::from(*data.get(1)?), 2),
            25 => (
                u64::from(u16::from_be_bytes(data.get(1..3)?.try_into().ok()?)),
                3,
            ),
            26 => (
                u64::from(u32::from_be_bytes(data.get(1..5)?.try_into().ok()?)),
                5,
            ),
            27 => (u64::from_be_bytes(data.get(1..9)?.try_into().ok()?), 9),
            _ => return None,
        };
        let item = match major {
            0 => Item::Int(i64::try_from(arg).ok()?),
            1 => Item::Int(-1 - i64::try_from(arg).ok()?),
            2 | 3 => {
                let len = usize::try_from(arg).ok()?;
                let bytes = data.get(used..used.checked_add(len)?)?.to_vec();
                used += len;
                if major == 2 {
                    Item::Bytes(bytes)
                } else {
                    Item::Text(String::from_utf8(bytes).ok()?)
                }
            }
            4 | 5 => {
                let count = usize::try_from(arg).ok()?;
                if count > data.len() {
                    return None;
                }
                let mut items = Vec::with_capacity(count);
                let mut entries = Vec::with_capacity(count);
                for _ in 0..count {
                    let (first, n) = parse_at(data.get(used..)?, depth + 1)?;
                    used += n;
                    if major == 4 {
                        items.push(first);
                    } else {
                        let (second, n) = parse_at(data.get(used..)?, depth + 1)?;
                        used += n;
                        entries.push((first, second));
                    }
                }
                if major == 4 {
                    Item::Array(items)
                } else {
                    Item::Map(entries)
                }
            }
            7 if info < 24 => Item::Simple(info),
            _ => return None,
        };
        Some((item, used))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cbor_reads_maps_negative_keys_and_byte_strings() {
        // {1: 2, -2: h'0102', "fmt": "none"}
        let data = [
            0xa3, 0x01, 0x02, 0x21, 0x42, 0x01, 0x02, 0x63, b'f', b'm', b't', 0x64, b'n', b'o',
            b'n', b'e',
        ];
        let (item, used) = cbor::parse(&data).unwrap();
        assert_eq!(used, data.len());
        assert_eq!(item.get_int_key(1).unwrap().as_int(), Some(2));
        assert_eq!(
            item.get_int_key(-2).unwrap().as_bytes(),
            Some(&[1u8, 2][..])
        );
        assert_eq!(item.get_text("fmt"), Some("none"));
        // Truncated and absurd lengths are refused, not read past the end.
        assert!(cbor::parse(&data[..5]).is_none());
        assert!(cbor::parse(&[0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]).is_none());
        assert!(cbor::parse(&[0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]).is_none());
    }
}
