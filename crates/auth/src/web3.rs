//! `POST /token?grant_type=web3`: Sign-In with Ethereum (EIP-4361) and
//! Sign-In with Solana, as the platform implements them (supabase-js
//! `signInWithWeb3`).
//!
//! The wallet signs a plain-text message naming the app's domain and URI,
//! the address, the chain and when it was issued. The message is parsed
//! strictly; the signature must come from the address's key (Ethereum:
//! secp256k1 recovery of the EIP-191 personal-message hash; Solana: ed25519
//! over the message, or over a Ledger off-chain message); the URI must be
//! an allowed redirect target (the site URL or the allow list) over HTTPS
//! (or localhost) and the domain its host; the message must be inside its
//! `Not Before` / `Expiration Time` and issued within the configured window
//! of now. Beyond the platform, each signed message signs in once: a
//! replayed one is refused.
//!
//! The user gets the identity `web3` with the id `web3:<chain>:<address>`.

use axum::response::{IntoResponse, Response};
use base64::Engine;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use sha3::Keccak256;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::handlers::Input;
use crate::id_token::{ExternalIdentity, sign_in_identity, start_session};
use crate::redirect;

#[derive(Debug, Deserialize)]
struct Web3Grant {
    message: Option<String>,
    signature: Option<String>,
    chain: Option<String>,
}

/// Which wallet family a message is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chain {
    Ethereum,
    Solana,
}

impl Chain {
    fn name(self) -> &'static str {
        match self {
            Self::Ethereum => "ethereum",
            Self::Solana => "solana",
        }
    }

    /// How the platform names the chain in its messages.
    fn title(self) -> &'static str {
        match self {
            Self::Ethereum => "Ethereum",
            Self::Solana => "Solana",
        }
    }

    /// `siwe` / `siws`: the prefix of parse errors.
    fn tag(self) -> &'static str {
        match self {
            Self::Ethereum => "siwe",
            Self::Solana => "siws",
        }
    }
}

/// A parsed sign-in message (the fields both formats share).
#[derive(Debug, Clone)]
struct Message {
    domain: String,
    address: String,
    statement: Option<String>,
    uri: url::Url,
    uri_text: String,
    chain_id: Option<String>,
    issued_at: DateTime<Utc>,
    expiration_time: Option<DateTime<Utc>>,
    not_before: Option<DateTime<Utc>>,
}

/// The grant; answers a Session (or the refusal).
pub async fn grant(state: &AuthState, input: &Input) -> Response {
    match run(state, input).await {
        Ok(session) => axum::Json(session).into_response(),
        Err(error) => error.into_response(),
    }
}

fn disabled(message: &str) -> AuthError {
    AuthError::unprocessable("web3_provider_disabled", message)
}

fn invalid_grant(description: impl Into<String>) -> AuthError {
    AuthError::oauth("invalid_grant", description)
}

async fn run(state: &AuthState, input: &Input) -> Result<Value> {
    let config = &state.config().web3;
    if !config.ethereum_enabled && !config.solana_enabled {
        return Err(disabled("Web3 provider is disabled"));
    }
    let params: Web3Grant = input.json()?;
    let chain = match params.chain.as_deref() {
        Some("solana") if config.solana_enabled => Chain::Solana,
        Some("solana") => return Err(disabled("Solana Web3 provider is disabled")),
        Some("ethereum") if config.ethereum_enabled => Chain::Ethereum,
        Some("ethereum") => return Err(disabled("Ethereum Web3 provider is disabled")),
        _ => {
            return Err(AuthError::bad_request(
                "web3_unsupported_chain",
                "Unsupported chain",
            ));
        }
    };
    let raw = params.message.unwrap_or_default();
    if raw.len() < 64 {
        return Err(AuthError::validation("message is too short"));
    }
    if raw.len() > 20 * 1024 {
        return Err(AuthError::validation("message must not exceed 20KB"));
    }
    let signature = params.signature.unwrap_or_default();
    let (message, signed) = match chain {
        Chain::Ethereum => {
            let hex = signature.strip_prefix("0x").unwrap_or(&signature);
            if hex.len() != 130 {
                return Err(AuthError::validation(
                    "signature must be 65 bytes long, encoded as a 130 character-long hexadecimal string",
                ));
            }
            let message = parse(&raw, chain).map_err(AuthError::validation)?;
            let signed = plinth_db::unhex(hex)
                .is_some_and(|sig| ethereum_signed(&raw, &sig, &message.address));
            (message, signed)
        }
        Chain::Solana => {
            if signature.len() != 86 && signature.len() != 88 {
                return Err(AuthError::validation(
                    "signature must be 64 bytes encoded as base64 with or without padding",
                ));
            }
            let url_safe = signature
                .trim_end_matches('=')
                .replace('+', "-")
                .replace('/', "_");
            let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(url_safe)
                .map_err(|_| {
                    AuthError::validation("signature does not contain valid base64 characters")
                })?;
            let message = parse(&raw, chain).map_err(AuthError::validation)?;
            let signed = solana_signed(&raw, &bytes, &message.address, &message.domain);
            (message, signed)
        }
    };
    if !signed {
        return Err(invalid_grant("Signature does not match address in message"));
    }
    check_message(state, chain, &message)?;

    let provider_id = format!("web3:{}:{}", chain.name(), message.address);
    let identity = ExternalIdentity {
        provider: "web3".into(),
        provider_id: provider_id.clone(),
        identity_data: json!({
            "sub": provider_id,
            "custom_claims": {
                "address": message.address,
                "chain": chain.name(),
                "network": message.chain_id.clone().unwrap_or_default(),
                "domain": message.domain,
                "statement": message.statement.clone().unwrap_or_default(),
            },
            "email_verified": false,
            "phone_verified": false,
        }),
        email: None,
        email_verified: false,
    };
    let mut tx = state.db().owner.begin().await?;
    remember_message(state, &mut tx, chain, &raw, &message).await?;
    let user = sign_in_identity(state, &mut tx, &identity).await?;
    start_session(state, tx, &user, "web3", input).await
}

/// The URI, domain and time checks, in the platform's order and words.
fn check_message(state: &AuthState, chain: Chain, message: &Message) -> Result<()> {
    let config = state.config();
    let title = chain.title();
    let host = message.uri.host_str().unwrap_or("");
    let is_localhost = host == "localhost";
    if message.uri.scheme() != "https" && !is_localhost {
        return Err(invalid_grant(format!(
            "Signed {title} message is using URI which does not use HTTPS"
        )));
    }
    if !redirect::is_allowed(&message.uri_text, &config.site_url, &config.uri_allow_list) {
        return Err(invalid_grant(format!(
            "Signed {title} message is using URI which is not allowed on this server, message was signed for another app"
        )));
    }
    let uri_host = match message.uri.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    };
    if !is_localhost
        && (uri_host != message.domain
            || !redirect::is_allowed(
                &format!("https://{}/", message.domain),
                &config.site_url,
                &config.uri_allow_list,
            ))
    {
        return Err(invalid_grant(format!(
            "Signed {title} message is using a Domain that does not match the one in URI which is not allowed on this server"
        )));
    }
    let now = state.now();
    if message.not_before.is_some_and(|at| now < at) {
        return Err(invalid_grant(format!(
            "Signed {title} message becomes valid in the future"
        )));
    }
    // (The platform checks an Ethereum message's expiry only when it also
    // has a Not Before; an expired message is refused here either way.)
    if message.expiration_time.is_some_and(|at| now > at) {
        return Err(invalid_grant(format!("Signed {title} message is expired")));
    }
    let window =
        chrono::Duration::from_std(max_validity(state, chain)).unwrap_or(chrono::Duration::MAX);
    if now > message.issued_at + window {
        return Err(invalid_grant(format!(
            "{title} message was issued too long ago"
        )));
    }
    if now < message.issued_at - window {
        return Err(invalid_grant(format!(
            "{title} message was issued too far in the future"
        )));
    }
    Ok(())
}

fn max_validity(state: &AuthState, chain: Chain) -> std::time::Duration {
    match chain {
        Chain::Ethereum => state.config().web3.ethereum_max_validity,
        Chain::Solana => state.config().web3.solana_max_validity,
    }
}

/// Records the message as used; refuses one used before. Rows are kept
/// until the message would be refused for its age anyway.
async fn remember_message(
    state: &AuthState,
    conn: &mut sqlx::PgConnection,
    chain: Chain,
    raw: &str,
    message: &Message,
) -> Result<()> {
    let now = state.now();
    let window =
        chrono::Duration::from_std(max_validity(state, chain)).unwrap_or(chrono::Duration::MAX);
    let keep_until = message.issued_at + window;
    sqlx::query("delete from auth.web3_used_messages where expires_at < $1")
        .bind(now)
        .execute(&mut *conn)
        .await?;
    let hash = plinth_db::hex(&Sha256::digest(
        format!("{}\n{raw}", chain.name()).as_bytes(),
    ));
    let inserted = sqlx::query(
        "insert into auth.web3_used_messages (message_hash, expires_at) values ($1, $2) \
         on conflict (message_hash) do nothing",
    )
    .bind(hash)
    .bind(keep_until.max(now))
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if inserted == 0 {
        return Err(invalid_grant(format!(
            "Signed {} message was already used to sign in",
            chain.title()
        )));
    }
    Ok(())
}

/// The EIP-191 hash of a personal message:
/// keccak256("\x19Ethereum Signed Message:\n" + len + message).
fn personal_message_hash(message: &str) -> [u8; 32] {
    let mut hasher = Keccak256::new();
    hasher.update(format!("\x19Ethereum Signed Message:\n{}", message.len()).as_bytes());
    hasher.update(message.as_bytes());
    hasher.finalize().into()
}

/// The address (0x + 40 hex digits, lower case) of an uncompressed public key.
fn ethereum_address(key: &k256::ecdsa::VerifyingKey) -> String {
    let point = key.to_encoded_point(false);
    let hash = Keccak256::digest(&point.as_bytes()[1..]);
    format!("0x{}", plinth_db::hex(&hash[12..]))
}

/// Whether `signature` (r ‖ s ‖ v, v 0/1 or 27/28) over the personal
/// message `raw` recovers to `address`.
fn ethereum_signed(raw: &str, signature: &[u8], address: &str) -> bool {
    use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
    let (Some(rs), Some(&v)) = (signature.get(..64), signature.get(64)) else {
        return false;
    };
    let v = if v >= 27 { v - 27 } else { v };
    let (Ok(mut sig), Some(mut recovery)) = (Signature::from_slice(rs), RecoveryId::from_byte(v))
    else {
        return false;
    };
    // Wallets sign with a low s; a high one is the same signature mirrored.
    if let Some(normalized) = sig.normalize_s() {
        sig = normalized;
        recovery = RecoveryId::new(!recovery.is_y_odd(), recovery.is_x_reduced());
    }
    let hash = personal_message_hash(raw);
    match VerifyingKey::recover_from_prehash(&hash, &sig, recovery) {
        Ok(key) => ethereum_address(&key).eq_ignore_ascii_case(address),
        Err(_) => false,
    }
}

/// Whether `signature` is the address's ed25519 signature of the message,
/// as a wallet signs it or as a Ledger signs an off-chain message.
fn solana_signed(raw: &str, signature: &[u8], address: &str, domain: &str) -> bool {
    use ed25519_dalek::{Signature, Verifier, VerifyingKey};
    let Ok(key_bytes) = bs58::decode(address).into_vec() else {
        return false;
    };
    let Ok(key_bytes) = <[u8; 32]>::try_from(key_bytes.as_slice()) else {
        return false;
    };
    let (Ok(key), Ok(signature)) = (
        VerifyingKey::from_bytes(&key_bytes),
        Signature::from_slice(signature),
    ) else {
        return false;
    };
    if key.verify(raw.as_bytes(), &signature).is_ok() {
        return true;
    }
    let Ok(length) = u16::try_from(raw.len()) else {
        return false;
    };
    let mut ledger = Vec::with_capacity(raw.len() + 90);
    ledger.push(0xff);
    ledger.extend_from_slice(b"solana offchain");
    ledger.push(0); // version
    let mut padded_domain = [0u8; 32];
    let domain = domain.as_bytes();
    let take = domain.len().min(32);
    padded_domain[..take].copy_from_slice(&domain[..take]);
    ledger.extend_from_slice(&padded_domain);
    ledger.push(0); // format: ASCII
    ledger.push(1); // one signer
    ledger.extend_from_slice(&key_bytes);
    ledger.extend_from_slice(&length.to_le_bytes());
    ledger.extend_from_slice(raw.as_bytes());
    key.verify(&ledger, &signature).is_ok()
}

/// A domain as the platform accepts it: `localhost` or dotted labels
/// ending in a TLD of letters, with an optional port.
fn valid_domain(domain: &str) -> bool {
    let (host, port) = match domain.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (domain, None),
    };
    if port.is_some_and(|p| p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    if host == "localhost" {
        return true;
    }
    let labels: Vec<&str> = host.split('.').collect();
    let Some((tld, rest)) = labels.split_last() else {
        return false;
    };
    !rest.is_empty()
        && tld.len() >= 2
        && tld.bytes().all(|b| b.is_ascii_alphabetic())
        && rest.iter().all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

fn timestamp(value: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(value)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Parses an EIP-4361 (or the Solana equivalent) message as the platform
/// does; the error is the platform's message.
fn parse(raw: &str, chain: Chain) -> std::result::Result<Message, String> {
    let tag = chain.tag();
    let fail = |what: &str| format!("{tag}: {what}");
    let lines: Vec<&str> = raw.split('\n').collect();
    if lines.len() < 6 {
        return Err(fail("message needs at least 6 lines"));
    }
    let suffix = format!(" wants you to sign in with your {} account:", chain.title());
    let Some(domain) = lines[0].strip_suffix(&suffix) else {
        return Err(fail(&format!(
            "message first line does not end in \"{suffix}\""
        )));
    };
    let domain = domain.trim();
    if !valid_domain(domain) {
        return Err(fail("domain in first line of message is not valid"));
    }
    let address = lines[1].trim();
    let address_ok = match chain {
        Chain::Ethereum => {
            address.len() == 42
                && address.starts_with("0x")
                && address[2..].bytes().all(|b| b.is_ascii_hexdigit())
        }
        Chain::Solana => {
            (32..=44).contains(&address.len()) && address.bytes().all(|b| b.is_ascii_alphanumeric())
        }
    };
    if !address_ok {
        return Err(fail(match chain {
            Chain::Ethereum => "wallet address is not a valid Ethereum address",
            Chain::Solana => "wallet address is not in base58 format",
        }));
    }
    if !lines[2].is_empty() {
        return Err(fail("third line must be empty"));
    }
    let mut start = 3;
    let mut statement = None;
    if !lines[3].is_empty() && lines[4].is_empty() {
        statement = Some(lines[3].to_owned());
        start = 5;
    }
    let mut uri = None;
    let mut version = String::new();
    let mut chain_id = None;
    let mut issued_at = None;
    let mut expiration_time = None;
    let mut not_before = None;
    let mut in_resources = false;
    let mut resources = 0usize;
    for (index, line) in lines.iter().enumerate().skip(start) {
        let line = line.trim();
        if in_resources {
            if let Some(resource) = line.strip_prefix("- ") {
                if url::Url::parse(resource.trim()).is_err() {
                    return Err(fail(&format!(
                        "Resource at position {resources} has invalid URI"
                    )));
                }
                resources += 1;
                continue;
            }
            in_resources = false;
        }
        if line == "Resources:" {
            in_resources = true;
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Err(fail(&format!(
                "encountered unparsable line at index {index}"
            )));
        };
        let value = value.trim();
        match key {
            "URI" => {
                let parsed = url::Url::parse(value).map_err(|_| fail("URI is not valid"))?;
                uri = Some((parsed, value.to_owned()));
            }
            "Version" => version = value.to_owned(),
            "Chain ID" => {
                let ok = match chain {
                    Chain::Ethereum => value.parse::<u64>().is_ok_and(|id| id > 0),
                    Chain::Solana => {
                        value.is_empty()
                            || matches!(
                                value,
                                "solana:mainnet"
                                    | "solana:devnet"
                                    | "solana:testnet"
                                    | "solana:localnet"
                            )
                    }
                };
                if !ok {
                    return Err(fail("Chain ID is not valid"));
                }
                chain_id = Some(value.to_owned()).filter(|v| !v.is_empty());
            }
            "Issued At" => {
                issued_at = Some(
                    timestamp(value)
                        .ok_or_else(|| fail("Issued At is not a valid ISO8601 timestamp"))?,
                );
            }
            "Expiration Time" => {
                expiration_time = Some(
                    timestamp(value)
                        .ok_or_else(|| fail("Expiration Time is not a valid ISO8601 timestamp"))?,
                );
            }
            "Not Before" => {
                not_before = Some(
                    timestamp(value)
                        .ok_or_else(|| fail("Not Before is not a valid ISO8601 timestamp"))?,
                );
            }
            _ => {}
        }
    }
    if version != "1" {
        return Err(fail(&format!(
            "Version value is not supported, expected 1 got \"{version}\""
        )));
    }
    let issued_at = issued_at.ok_or_else(|| fail("Issued At is not specified"))?;
    let (uri, uri_text) = uri.ok_or_else(|| fail("URI is not specified"))?;
    if expiration_time.is_some_and(|exp| issued_at > exp) {
        return Err(fail("Issued At is after Expiration Time"));
    }
    if let (Some(nbf), Some(exp)) = (not_before, expiration_time)
        && nbf > exp
    {
        return Err(fail("Not Before is after Expiration Time"));
    }
    Ok(Message {
        domain: domain.to_owned(),
        address: address.to_owned(),
        statement,
        uri,
        uri_text,
        chain_id,
        issued_at,
        expiration_time,
        not_before,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIWE: &str = "example.com wants you to sign in with your Ethereum account:\n\
        0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2\n\
        \n\
        Sign in to the app\n\
        \n\
        URI: https://example.com/login\n\
        Version: 1\n\
        Chain ID: 1\n\
        Nonce: 32891756\n\
        Issued At: 2026-01-02T03:04:05Z\n\
        Expiration Time: 2026-01-02T04:04:05Z\n\
        Resources:\n\
        - https://example.com/terms";

    #[test]
    fn siwe_messages_parse() {
        let m = parse(SIWE, Chain::Ethereum).unwrap();
        assert_eq!(m.domain, "example.com");
        assert_eq!(m.address, "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2");
        assert_eq!(m.statement.as_deref(), Some("Sign in to the app"));
        assert_eq!(m.uri_text, "https://example.com/login");
        assert_eq!(m.chain_id.as_deref(), Some("1"));
        assert!(m.expiration_time.is_some());
    }

    #[test]
    fn bad_messages_are_refused_with_the_platforms_words() {
        let cases = [
            (
                SIWE.replace("Version: 1", "Version: 2"),
                "siwe: Version value is not supported, expected 1 got \"2\"",
            ),
            (
                SIWE.replace("Chain ID: 1", "Chain ID: 0"),
                "siwe: Chain ID is not valid",
            ),
            (
                SIWE.replace("example.com wants", "exa mple wants"),
                "siwe: domain in first line of message is not valid",
            ),
            (
                SIWE.replace("0xC02a", "0xZ02a"),
                "siwe: wallet address is not a valid Ethereum address",
            ),
            (
                SIWE.replace("Issued At: 2026-01-02T03:04:05Z", "Issued At: yesterday"),
                "siwe: Issued At is not a valid ISO8601 timestamp",
            ),
            (
                SIWE.replace(
                    "Expiration Time: 2026-01-02T04:04:05Z",
                    "Expiration Time: 2026-01-01T04:04:05Z",
                ),
                "siwe: Issued At is after Expiration Time",
            ),
            ("a\nb\nc".to_owned(), "siwe: message needs at least 6 lines"),
        ];
        for (message, error) in cases {
            assert_eq!(parse(&message, Chain::Ethereum).unwrap_err(), error);
        }
    }

    #[test]
    fn domains() {
        for ok in [
            "localhost",
            "localhost:3000",
            "example.com",
            "a-b.example.co.uk:443",
        ] {
            assert!(valid_domain(ok), "{ok}");
        }
        for bad in [
            "",
            "example",
            "-a.com",
            "a.c0m",
            "example.com:",
            "example.com:123456",
            "a b.com",
        ] {
            assert!(!valid_domain(bad), "{bad}");
        }
    }

    #[test]
    fn ethereum_signatures_recover_the_address() {
        use k256::ecdsa::SigningKey;
        let key = SigningKey::from_slice(&[7u8; 32]).unwrap();
        let address = ethereum_address(key.verifying_key());
        let message = "hello";
        let (sig, recovery) = key
            .sign_prehash_recoverable(&personal_message_hash(message))
            .unwrap();
        let mut bytes = sig.to_bytes().to_vec();
        bytes.push(recovery.to_byte() + 27);
        assert!(ethereum_signed(message, &bytes, &address));
        assert!(ethereum_signed(
            message,
            &bytes,
            &address.to_uppercase().replace("0X", "0x")
        ));
        assert!(!ethereum_signed("hello!", &bytes, &address));
        bytes[64] ^= 1;
        assert!(!ethereum_signed(message, &bytes, &address));
        assert!(!ethereum_signed(message, &bytes[..10], &address));
    }

    #[test]
    fn known_personal_message_hash() {
        // keccak256("\x19Ethereum Signed Message:\n11hello world"), as
        // ethers' hashMessage("hello world") gives it.
        assert_eq!(
            plinth_db::hex(&personal_message_hash("hello world")),
            "d9eba16ed0ecae432b71fe008c98cc872bb4cc214d3220a36f365326cf807d68"
        );
    }

    #[test]
    fn solana_signatures_verify_plain_and_as_ledger_messages() {
        use ed25519_dalek::{Signer, SigningKey};
        let key = SigningKey::from_bytes(&[9u8; 32]);
        let address = bs58::encode(key.verifying_key().as_bytes()).into_string();
        let sig = key.sign(b"hello");
        assert!(solana_signed(
            "hello",
            &sig.to_bytes(),
            &address,
            "example.com"
        ));
        assert!(!solana_signed(
            "hello?",
            &sig.to_bytes(),
            &address,
            "example.com"
        ));
        assert!(!solana_signed(
            "hello",
            &sig.to_bytes(),
            "notbase58!",
            "example.com"
        ));
        let mut ledger = vec![0xff];
        ledger.extend_from_slice(b"solana offchain");
        ledger.push(0);
        let mut domain = [0u8; 32];
        domain[..11].copy_from_slice(b"example.com");
        ledger.extend_from_slice(&domain);
        ledger.extend_from_slice(&[0, 1]);
        ledger.extend_from_slice(key.verifying_key().as_bytes());
        ledger.extend_from_slice(&5u16.to_le_bytes());
        ledger.extend_from_slice(b"hello");
        let ledger_sig = key.sign(&ledger);
        assert!(solana_signed(
            "hello",
            &ledger_sig.to_bytes(),
            &address,
            "example.com"
        ));
        assert!(!solana_signed(
            "hello",
            &ledger_sig.to_bytes(),
            &address,
            "other.com"
        ));
    }
}
