//! WebAuthn ceremonies, for MFA security-key factors and for passkeys, on
//! kanidm's `webauthn-rs-core`: it builds the options a browser hands to
//! `navigator.credentials`, and checks the answers (client data type,
//! challenge, origin, RP id hash, user presence and verification, every
//! attestation format with its statement, the signature, a growing counter,
//! backup flags).
//!
//! Why the library's protocol-level core rather than its opinionated
//! wrapper: the platform's ceremonies are not the wrapper's. Passkeys are
//! discoverable (resident key required) with user verification preferred,
//! and the user handle is the user id's text; the wrapper fixes
//! non-discoverable credentials, required verification and 16-byte handles.
//! What the core leaves to us, kept here and by the callers:
//! * a ceremony's state lives server side (a challenge row) and is used once;
//! * an assertion is checked against the stored credential of its id, whose
//!   owner the caller has already matched with the user handle;
//! * a credential id is registered once (a unique index).
//!
//! Credentials are stored as the platform stores them (a COSE public key, a
//! counter, flags, the AAGUID): the columns of `auth.webauthn_credentials`,
//! or go-webauthn's JSON in `mfa_factors.web_authn_credential`, so rows move
//! between the platform and Plinth. Factors stored by Plinth's earlier code
//! (`{id, public_key: {x, y}, sign_count, aaguid}`, ES256 only) are read too
//! and rewritten in the platform's shape at their next use.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use uuid::Uuid;
use webauthn_rs_core::WebauthnCore;
use webauthn_rs_core::internals::AuthenticatorData;
use webauthn_rs_core::proto::{
    AttestationConveyancePreference, AttestationFormat, AuthenticationState,
    AuthenticatorTransport, COSEAlgorithm, COSEKey, Credential, ParsedAttestation,
    ParsedAttestationData, PublicKeyCredential, RegisterPublicKeyCredential, RegisteredExtensions,
    Registration, RegistrationState, UserVerificationPolicy,
};

const B64URL: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;
/// Base64 as Go writes `[]byte` in JSON (standard alphabet, padded).
const B64STD: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// Why an answer was refused.
#[derive(Debug)]
pub enum Refusal {
    /// Not a credential answer (JSON, base64 or CBOR that does not read).
    Malformed,
    /// The ceremony's stored state is missing or unreadable.
    NoState,
    /// The library refused it (wrong challenge, origin, signature, ...).
    Failed(webauthn_rs_core::error::WebauthnError),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Malformed => f.write_str("Invalid credential_response"),
            Self::NoState => f.write_str("WebAuthn challenge has no session data"),
            Self::Failed(e) => write!(f, "WebAuthn verification failed: {e}"),
        }
    }
}

impl From<webauthn_rs_core::error::WebauthnError> for Refusal {
    fn from(e: webauthn_rs_core::error::WebauthnError) -> Self {
        Self::Failed(e)
    }
}

/// The relying party (`GOTRUE_WEBAUTHN_*`).
#[derive(Debug, Clone, Default)]
pub struct RelyingParty {
    pub id: String,
    pub display_name: String,
    pub origins: Vec<String>,
}

impl RelyingParty {
    /// The settings shared by MFA factors and passkeys.
    pub fn from_config(config: &crate::mfa::MfaConfig) -> Self {
        Self {
            id: config.webauthn_rp_id.clone(),
            display_name: config.webauthn_rp_display_name.clone(),
            origins: config.webauthn_rp_origins.clone(),
        }
    }

    pub fn is_configured(&self) -> bool {
        !self.id.is_empty() && self.origins.iter().any(|o| url::Url::parse(o).is_ok())
    }

    /// The library's relying party; `timeout` is what the options announce.
    fn core(&self, timeout: Duration) -> WebauthnCore {
        let origins = self
            .origins
            .iter()
            .filter_map(|o| url::Url::parse(o.trim_end_matches('/')).ok())
            .collect();
        let name = if self.display_name.is_empty() {
            &self.id
        } else {
            &self.display_name
        };
        // Exact origins, as configured: no subdomains, no other ports.
        WebauthnCore::new_unsafe_experts_only(
            name,
            &self.id,
            origins,
            timeout.min(Duration::from_secs(u64::from(u32::MAX / 1000))),
            Some(false),
            Some(false),
        )
    }
}

/// The user a credential is made for, as the authenticator shows it.
pub struct UserEntity<'a> {
    /// The user handle (the platform's: the user id as text).
    pub handle: &'a [u8],
    pub name: &'a str,
    pub display_name: &'a str,
}

/// What is kept of a credential: the columns of `auth.webauthn_credentials`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCredential {
    pub id: Vec<u8>,
    /// The COSE_Key (CBOR) the authenticator registered.
    pub public_key: Vec<u8>,
    /// The attestation statement's format (`none`, `packed`, ...).
    pub attestation_type: String,
    pub aaguid: Option<Uuid>,
    pub sign_count: u32,
    pub transports: Vec<String>,
    pub backup_eligible: bool,
    pub backed_up: bool,
    /// The authenticator verified its user at registration: then every
    /// assertion must too (the library's rule against a silent downgrade).
    pub user_verified: bool,
}

impl StoredCredential {
    /// The library's credential record, for an assertion.
    fn to_library(&self) -> Result<Credential, Refusal> {
        let cbor: serde_cbor_2::Value =
            serde_cbor_2::from_slice(&self.public_key).map_err(|_| Refusal::Malformed)?;
        let key = COSEKey::try_from(&cbor)?;
        let transports: Vec<AuthenticatorTransport> = self
            .transports
            .iter()
            .filter_map(|t| t.parse().ok())
            .collect();
        Ok(Credential {
            cred_id: self.id.clone(),
            cred: key,
            counter: self.sign_count,
            transports: (!transports.is_empty()).then_some(transports),
            user_verified: self.user_verified,
            backup_eligible: self.backup_eligible,
            backup_state: self.backed_up,
            registration_policy: UserVerificationPolicy::Preferred,
            extensions: RegisteredExtensions::none(),
            attestation: ParsedAttestation {
                data: ParsedAttestationData::None,
                metadata: webauthn_rs_core::proto::AttestationMetadata::None,
            },
            attestation_format: AttestationFormat::try_from(self.attestation_type.as_str())
                .unwrap_or(AttestationFormat::None),
        })
    }

    /// go-webauthn's credential JSON, as the platform keeps a factor's
    /// credential in `mfa_factors.web_authn_credential`.
    pub fn to_factor_json(&self) -> Value {
        json!({
            "id": B64STD.encode(&self.id),
            "publicKey": B64STD.encode(&self.public_key),
            "attestationType": self.attestation_type,
            "attestationFormat": self.attestation_type,
            "transport": self.transports,
            "flags": {
                "userPresent": true,
                "userVerified": self.user_verified,
                "backupEligible": self.backup_eligible,
                "backupState": self.backed_up,
            },
            "authenticator": {
                "AAGUID": B64STD.encode(self.aaguid.unwrap_or_default().as_bytes()),
                "signCount": self.sign_count,
                "cloneWarning": false,
                "attachment": "",
            },
        })
    }

    /// A factor's credential, in the platform's JSON or in the shape
    /// Plinth's earlier code wrote.
    pub fn from_factor_json(value: &Value) -> Option<Self> {
        let bytes = |v: &Value| v.as_str().and_then(decode_any_base64);
        if value.get("publicKey").is_some() {
            let aaguid = bytes(&value["authenticator"]["AAGUID"])
                .and_then(|b| Uuid::from_slice(&b).ok())
                .filter(|u| !u.is_nil());
            let flag = |name: &str| value["flags"][name].as_bool().unwrap_or(false);
            let format = value["attestationFormat"]
                .as_str()
                .or(value["attestationType"].as_str())
                .unwrap_or("none");
            return Some(Self {
                id: bytes(&value["id"])?,
                public_key: bytes(&value["publicKey"])?,
                attestation_type: format.to_owned(),
                aaguid,
                sign_count: u32::try_from(value["authenticator"]["signCount"].as_u64()?).ok()?,
                transports: value["transport"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|t| t.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
                backup_eligible: flag("backupEligible"),
                backed_up: flag("backupState"),
                user_verified: flag("userVerified"),
            });
        }
        // Plinth's earlier shape: an ES256 key's coordinates.
        let x = bytes(&value["public_key"]["x"])?;
        let y = bytes(&value["public_key"]["y"])?;
        let int = |i: i128| serde_cbor_2::Value::Integer(i);
        let cose = serde_cbor_2::Value::Map(
            [
                (int(1), int(2)),
                (int(3), int(-7)),
                (int(-1), int(1)),
                (int(-2), serde_cbor_2::Value::Bytes(x)),
                (int(-3), serde_cbor_2::Value::Bytes(y)),
            ]
            .into_iter()
            .collect(),
        );
        Some(Self {
            id: bytes(&value["id"])?,
            public_key: serde_cbor_2::to_vec(&cose).ok()?,
            attestation_type: LEGACY.into(),
            aaguid: bytes(&value["aaguid"])
                .and_then(|b| Uuid::from_slice(&b).ok())
                .filter(|u| !u.is_nil()),
            sign_count: u32::try_from(value["sign_count"].as_u64()?).ok()?,
            transports: Vec::new(),
            // Not recorded then: taken from the next assertion (see
            // `finish_authentication`).
            backup_eligible: false,
            backed_up: false,
            user_verified: false,
        })
    }

    /// Written by Plinth's earlier code, which kept no flags.
    fn is_legacy(&self) -> bool {
        self.attestation_type == LEGACY
    }
}

/// The marker of a credential read from Plinth's earlier shape.
const LEGACY: &str = "plinth-legacy";

/// Any base64 (standard or URL-safe, padded or not).
fn decode_any_base64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    B64URL
        .decode(text)
        .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(text))
        .ok()
}

/// A registration begun: the options for `navigator.credentials.create()`
/// (`PublicKeyCredentialCreationOptions`, unwrapped) and the state to keep.
pub fn start_registration(
    rp: &RelyingParty,
    timeout: Duration,
    user: &UserEntity<'_>,
    exclude: Vec<Vec<u8>>,
    discoverable: bool,
) -> Result<(Value, Value), Refusal> {
    let core = rp.core(timeout);
    let builder = core
        .new_challenge_register_builder(user.handle, user.name, user.display_name)?
        .attestation(AttestationConveyancePreference::None)
        .user_verification_policy(UserVerificationPolicy::Preferred)
        .credential_algorithms(COSEAlgorithm::secure_algs())
        .require_resident_key(discoverable)
        .exclude_credentials((!exclude.is_empty()).then_some(exclude));
    let (options, state) = core.generate_challenge_register(builder)?;
    let options = serde_json::to_value(options.public_key).map_err(|_| Refusal::NoState)?;
    let state = serde_json::to_value(state).map_err(|_| Refusal::NoState)?;
    Ok((options, state))
}

/// Checks a registration answer (`navigator.credentials.create()`'s
/// credential as JSON) against the kept `state`: the new credential.
pub fn finish_registration(
    rp: &RelyingParty,
    state: &Value,
    response: &Value,
) -> Result<StoredCredential, Refusal> {
    let state: RegistrationState =
        serde_json::from_value(state.clone()).map_err(|_| Refusal::NoState)?;
    let answer: RegisterPublicKeyCredential =
        serde_json::from_value(response.clone()).map_err(|_| Refusal::Malformed)?;
    let credential = rp
        .core(Duration::ZERO)
        .register_credential(&answer, &state, None)?;
    // What the library does not keep: the COSE key as registered, and the
    // authenticator's AAGUID (read by the library's own parsers).
    let object: serde_cbor_2::Value = serde_cbor_2::from_slice(&answer.response.attestation_object)
        .map_err(|_| Refusal::Malformed)?;
    let serde_cbor_2::Value::Map(object) = object else {
        return Err(Refusal::Malformed);
    };
    let Some(serde_cbor_2::Value::Bytes(auth_data)) =
        object.get(&serde_cbor_2::Value::Text("authData".into()))
    else {
        return Err(Refusal::Malformed);
    };
    let auth_data = AuthenticatorData::<Registration>::try_from(auth_data.as_slice())?;
    let attested = auth_data.acd.ok_or(Refusal::Malformed)?;
    let format = serde_json::to_value(&credential.attestation_format)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "none".into());
    Ok(StoredCredential {
        id: credential.cred_id,
        public_key: serde_cbor_2::to_vec(&attested.credential_pk)
            .map_err(|_| Refusal::Malformed)?,
        attestation_type: format,
        aaguid: Some(Uuid::from_bytes(attested.aaguid)).filter(|u| !u.is_nil()),
        sign_count: credential.counter,
        transports: answer
            .response
            .transports
            .unwrap_or_default()
            .iter()
            .filter(|t| !matches!(t, AuthenticatorTransport::Unknown))
            .filter_map(|t| serde_json::to_value(t).ok()?.as_str().map(str::to_owned))
            .collect(),
        backup_eligible: credential.backup_eligible,
        backed_up: credential.backup_state,
        user_verified: credential.user_verified,
    })
}

/// An assertion begun: the options for `navigator.credentials.get()`
/// (`PublicKeyCredentialRequestOptions`, unwrapped) and the state to keep.
/// With no credentials to allow it is a discoverable (passkey) sign-in.
pub fn start_authentication(
    rp: &RelyingParty,
    timeout: Duration,
    allow: &[StoredCredential],
) -> Result<(Value, Value), Refusal> {
    let core = rp.core(timeout);
    let allow = allow
        .iter()
        .map(StoredCredential::to_library)
        .collect::<Result<Vec<_>, _>>()?;
    let builder = core
        .new_challenge_authenticate_builder(allow, Some(UserVerificationPolicy::Preferred))?
        // A credential that became backup eligible (synced) may go on.
        .allow_backup_eligible_upgrade(true);
    let (options, state) = core.generate_challenge_authenticate(builder)?;
    let options = serde_json::to_value(options.public_key).map_err(|_| Refusal::NoState)?;
    let state = serde_json::to_value(state).map_err(|_| Refusal::NoState)?;
    Ok((options, state))
}

/// The credential id and user handle an assertion names (before it is
/// checked: to find the stored credential).
pub fn assertion_ids(response: &Value) -> Result<(Vec<u8>, Option<Vec<u8>>), Refusal> {
    let answer: PublicKeyCredential =
        serde_json::from_value(response.clone()).map_err(|_| Refusal::Malformed)?;
    let handle = answer.get_user_unique_id().map(<[u8]>::to_vec);
    Ok((answer.raw_id, handle))
}

/// The credential id an answer names (`rawId`), unchecked.
pub fn raw_id(response: &Value) -> Option<Vec<u8>> {
    response["rawId"].as_str().and_then(decode_any_base64)
}

/// Checks an assertion (`navigator.credentials.get()`'s credential as JSON)
/// against the kept `state`, signed by `stored`: the credential with its new
/// counter and flags, to store.
pub fn finish_authentication(
    rp: &RelyingParty,
    state: &Value,
    stored: &StoredCredential,
    response: &Value,
) -> Result<StoredCredential, Refusal> {
    let state: AuthenticationState =
        serde_json::from_value(state.clone()).map_err(|_| Refusal::NoState)?;
    let answer: PublicKeyCredential =
        serde_json::from_value(response.clone()).map_err(|_| Refusal::Malformed)?;
    let mut stored = stored.clone();
    if stored.is_legacy() {
        // Plinth's earlier code kept no backup flags: the first assertion
        // after the switch tells them.
        let data = AuthenticatorData::<webauthn_rs_core::proto::Authentication>::try_from(
            answer.response.authenticator_data.as_slice(),
        )?;
        stored.backup_eligible = data.backup_eligible;
        stored.backed_up = data.backup_state;
        stored.attestation_type = "none".into();
    }
    let result = rp.core(Duration::ZERO).authenticate_single_credential(
        &answer,
        &state,
        &stored.to_library()?,
    )?;
    stored.sign_count = result.counter();
    stored.backup_eligible = result.backup_eligible();
    stored.backed_up = result.backup_state();
    Ok(stored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factor_json_round_trips_and_reads_the_earlier_shape() {
        let earlier = json!({
            "id": B64URL.encode([7u8; 16]),
            "public_key": {"kty": "EC2", "alg": -7, "crv": "P-256",
                           "x": B64URL.encode([1u8; 32]), "y": B64URL.encode([2u8; 32])},
            "sign_count": 3,
            "aaguid": B64URL.encode([0x11u8; 16]),
        });
        let read = StoredCredential::from_factor_json(&earlier).unwrap();
        assert_eq!(read.id, vec![7u8; 16]);
        assert_eq!(read.sign_count, 3);
        assert!(read.is_legacy());
        assert_eq!(
            read.aaguid.unwrap().to_string(),
            "11111111-1111-1111-1111-111111111111"
        );
        // The COSE key: kty EC2, ES256, P-256, x, y.
        let cose: serde_cbor_2::Value = serde_cbor_2::from_slice(&read.public_key).unwrap();
        let serde_cbor_2::Value::Map(map) = cose else {
            panic!("not a map")
        };
        assert_eq!(
            map[&serde_cbor_2::Value::Integer(-2)],
            serde_cbor_2::Value::Bytes(vec![1; 32])
        );
        assert_eq!(
            map[&serde_cbor_2::Value::Integer(3)],
            serde_cbor_2::Value::Integer(-7)
        );

        let mut platform = read.clone();
        platform.attestation_type = "packed".into();
        platform.transports = vec!["usb".into()];
        platform.backup_eligible = true;
        let json = platform.to_factor_json();
        // Go's []byte: standard, padded base64.
        assert_eq!(json["id"], B64STD.encode([7u8; 16]));
        assert_eq!(json["authenticator"]["signCount"], 3);
        assert_eq!(StoredCredential::from_factor_json(&json).unwrap(), platform);
        assert!(StoredCredential::from_factor_json(&json!({"id": "AA"})).is_none());
    }
}
