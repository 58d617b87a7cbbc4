//! The id_token and web3 grants and the OAuth 2.1 server over HTTP against
//! a real Postgres (one fresh database and server per test), with a local
//! stand-in for Google's ID-token issuer (its JWKS on loopback, tokens
//! signed with a test RSA key), wallets signing with test keys, and an
//! OAuth client doing the authorization-code flow with PKCE.

#![allow(clippy::unwrap_used)]

mod support;

use axum::Router;
use axum::routing::get;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use plinth_auth::AuthConfig;
use reqwest::Method;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use support::{Reply, SITE, claims_of, read_reply};

const GOOGLE_CLIENT: &str = "google-client-id.apps.example";

/// A test-only RSA key of the stand-in issuer (PKCS#1 DER, base64; made
/// once with openssl, it signs nothing but these tests' tokens).
const ISSUER_KEY: &str = "MIIEoQIBAAKCAQEA2BcIpQ1btSWY9l70ajV+6cNnsJx7EfEVrscKbNQOxFo466MB+/NqWK7ZjS5sC8wIzxbm6xaYmmQ/3vC/eFk3z2li7F5Z1DJ5km6yZhwTRqv8bykBb3uKlDmRXAQkRRqXbBUgFw5kpwjAh+T4Hn2D2cvm5bLa/vK22N2jOOyd/G7SqMoZO4n5U7n2EuUFd15s9dXr56+PKyK1GK3AnVlJtCaLdpRgKrxCJZOVDunwNtusuxkOU97MM2juSqXpm5ShnKqVZEZdJINLxWb1Wp2+8QA2I5n6DdncMHtlrN1dKhKBiEVl1hOSFNGtuy93G3bzB80+7FxEFQl1RHbnze7LPQIDAQABAoH/D6DM01OOCLZG4JtKtxyGyIiuLaYiC3dlroDwQZhVvsDl/YpELuuLrTMZbxHn4WKiKb2L60EwSn+KDNbIG//Phbd6cBEAW/wGYcpYi0CHKOigwCUxAYEnZk/RLWxykoPIZq3WOkS/jiwmDEJ1bMOkF1j1G/N0FraKyIPfoH9zVKJZo+N0esc8XsHqIqLYj63v3U6EDoUpIPRFtUMQ0PqGkggpaI/4/eEvYCsPP6bqg6eLTn2TBHpejA5AAB7MXa562DLrgR8BiNJkcA1LTRmm+8KP/20x7JddAVMf6ElmGmFwwQHeEP64cK03y8RIy98a3P1NH+NHyNYBMxJvqTMdAoGBAPokpo1843fyRLL/tyar663kAvcsI3vk0WT1bQI20EwaiYnymEcFCP2Jw0qBRlZWdTFSSCgXWPoo2fL4VJDOAkBW450RZg2Adg4vRJQUmlv8Kx4cVTEK85dOV8bi5ADHoTcMS1jXHLNRtPKhPujgl2yfbDOCbHVTdP44jTR2aKyXAoGBAN0mRQBQfhimhV6oE8kAuieiyTKM/MGmlKpi9o6FAyhTJuLNA8GNW5J8LPFWjmyf0EeBC2hqmRkzZhkP//D3C07KLYzpgM/cwetKnLhFD3v7E6k+zytUuXfe7Q31NkB/BKcJ3yHnVwE+ewvILCbiPUJSyKORdQx5xgOwCZLKRf1LAoGAKeyKnZwY47mPGhERuUGHNpXIiXS0Xcdz8N/RbVWSg67O7nfiXcTSROwZ9xrDlyTWb3XC8jU3jHXcUYSdZ8efSPlHHMQVvp2RK79wVwE8/b293EYTYSzctrdCrurIG/lZY8iDuFgVT1iaYy/zQ0ShHGt7zwZE90UNjq4bvHc8A/ECgYAOHX4z+e9CdYZ3tzSkFLbNBtfesR8E4TQF+BESoazE6yHFQh6mQPaCUAiyUrr+dejeV3855+vjruMqYFoOsEX5fnAP2WuOWOHLudRs8oN9f1YO7GJeuqan3wO0a11OGo1aeAfU6yYjfzBtXRZsWO5eCFikEAmvhSo9XAQQaXa0JwKBgQCZUw1OOVGKpM9cQ4YHnQLf60F4c9NS89TVWcNb1Em2kB07AR+bPkMZn7rgh79WncMSvN+yvUO+zQJGA3AoOJ3QMrNDo7WoI00Us7IMjjb0eqzNQYpH8ocxyCOLo02JetIStROsMxoqoRAeKCijvfzkFFBG1CLb/j01gJS9Vinreg==";
/// Its public modulus, base64url (the JWKS `n`).
const ISSUER_N: &str = "2BcIpQ1btSWY9l70ajV-6cNnsJx7EfEVrscKbNQOxFo466MB-_NqWK7ZjS5sC8wIzxbm6xaYmmQ_3vC_eFk3z2li7F5Z1DJ5km6yZhwTRqv8bykBb3uKlDmRXAQkRRqXbBUgFw5kpwjAh-T4Hn2D2cvm5bLa_vK22N2jOOyd_G7SqMoZO4n5U7n2EuUFd15s9dXr56-PKyK1GK3AnVlJtCaLdpRgKrxCJZOVDunwNtusuxkOU97MM2juSqXpm5ShnKqVZEZdJINLxWb1Wp2-8QA2I5n6DdncMHtlrN1dKhKBiEVl1hOSFNGtuy93G3bzB80-7FxEFQl1RHbnze7LPQ";

/// The shared test server, and the stand-in issuer it trusts.
struct App {
    app: support::App,
    /// The stand-in issuer's URL (its `iss`).
    issuer: String,
}

impl std::ops::Deref for App {
    type Target = support::App;

    fn deref(&self) -> &support::App {
        &self.app
    }
}

/// Serves `{"keys": [the test key]}` at `/jwks` on a free loopback port.
async fn stand_in_issuer() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let jwks = json!({"keys": [{
        "kty": "RSA", "kid": "test-key-1", "use": "sig", "alg": "RS256",
        "n": ISSUER_N, "e": "AQAB",
    }]});
    let router = Router::new().route("/jwks", get(move || async move { axum::Json(jwks) }));
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    base
}

/// Autoconfirm, Google and Apple ID tokens from the stand-in issuer, web3
/// and the OAuth server on, everything else as the bare test
/// configuration; changed by `tweak`.
async fn spawn_app_with(tweak: impl FnOnce(&mut AuthConfig)) -> App {
    let issuer = stand_in_issuer().await;
    let app = support::spawn_app_configured(|config| {
        config.mailer_autoconfirm = true;
        config.id_token_google.enabled = true;
        config.id_token_google.client_ids = vec![GOOGLE_CLIENT.into()];
        config.id_token_google.issuer = issuer.clone();
        config.id_token_google.jwks_url = format!("{issuer}/jwks");
        config.id_token_apple.issuer = issuer.clone();
        config.id_token_apple.jwks_url = format!("{issuer}/jwks");
        config.web3.ethereum_enabled = true;
        config.web3.solana_enabled = true;
        config.oauth_server.enabled = true;
        config.oauth_server.authorization_path = "/oauth/consent".into();
        tweak(config);
    })
    .await;
    App { app, issuer }
}

async fn spawn_app() -> App {
    spawn_app_with(|_| {}).await
}

impl App {
    async fn count(&self, sql: &str) -> i64 {
        self.sql_scalar(sql).await
    }

    /// An ID token of the stand-in issuer with `claims` over the defaults.
    fn id_token(&self, claims: Value) -> String {
        let now = self.clock.timestamp();
        let mut all = json!({
            "iss": self.issuer, "aud": GOOGLE_CLIENT, "sub": "google-user-1",
            "email": "Ada@Example.com", "email_verified": true, "name": "Ada Lovelace",
            "iat": now, "exp": now + 600,
        });
        for (k, v) in claims.as_object().unwrap() {
            all[k] = v.clone();
        }
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some("test-key-1".into());
        let key = EncodingKey::from_rsa_der(
            &base64::engine::general_purpose::STANDARD
                .decode(ISSUER_KEY)
                .unwrap(),
        );
        jsonwebtoken::encode(&header, &all, &key).unwrap()
    }

    async fn id_token_grant(&self, body: Value) -> Reply {
        self.post("/token?grant_type=id_token", body).await
    }
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn assert_oauth_error(reply: &Reply, error: &str, description: &str) {
    assert_eq!(reply.status, 400, "{}", reply.text);
    assert_eq!(reply.body["error"], error, "{}", reply.text);
    assert_eq!(
        reply.body["error_description"], description,
        "{}",
        reply.text
    );
}

// ------------------------------------------------------------ id_token

#[tokio::test]
async fn id_token_grant_signs_up_then_signs_in_the_same_google_user() {
    let app = spawn_app().await;
    let nonce = "raw-nonce-of-the-app";
    let token = app.id_token(json!({ "nonce": sha256_hex(nonce) }));
    let first = app
        .id_token_grant(json!({"provider": "google", "id_token": token, "nonce": nonce}))
        .await;
    assert_eq!(first.status, 200, "{}", first.text);
    let user = &first.body["user"];
    assert_eq!(user["email"], "ada@example.com");
    assert!(user["email_confirmed_at"].is_string());
    assert_eq!(user["app_metadata"]["provider"], "google");
    assert_eq!(user["identities"][0]["provider"], "google");
    assert_eq!(user["identities"][0]["id"], "google-user-1");
    assert_eq!(user["user_metadata"]["full_name"], "Ada Lovelace");
    let access = claims_of(first.body["access_token"].as_str().unwrap());
    assert_eq!(access["amr"][0]["method"], "oauth");
    assert!(first.body["refresh_token"].is_string());

    // The same identity again (a token without a nonce this time): same user.
    let again = app
        .id_token_grant(json!({"provider": "google", "id_token": app.id_token(json!({}))}))
        .await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.body["user"]["id"], user["id"]);
    assert_eq!(app.count("select count(*) from auth.users").await, 1);
}

#[tokio::test]
async fn id_token_with_a_verified_email_links_to_the_existing_account() {
    let app = spawn_app().await;
    let signup = app
        .post(
            "/signup",
            json!({"email": "ada@example.com", "password": "correct horse"}),
        )
        .await;
    assert_eq!(signup.status, 200, "{}", signup.text);
    let reply = app
        .id_token_grant(json!({"provider": "google", "id_token": app.id_token(json!({}))}))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.body["user"]["id"], signup.body["user"]["id"]);
    let providers = reply.body["user"]["app_metadata"]["providers"].clone();
    assert_eq!(providers, json!(["email", "google"]));

    // An unverified address is not trusted to link (or to sign up).
    let unverified = app
        .id_token_grant(
            json!({"provider": "google", "id_token": app.id_token(json!({
                "sub": "google-user-2", "email": "grace@example.com", "email_verified": false
            }))}),
        )
        .await;
    assert_eq!(unverified.status, 422, "{}", unverified.text);
    assert_eq!(unverified.body["code"], "provider_email_needs_verification");
}

#[tokio::test]
async fn id_token_refusals_as_the_platform_words_them() {
    let app = spawn_app().await;
    let grant = |body: Value| app.id_token_grant(body);

    let reply = grant(json!({"provider": "google"})).await;
    assert_oauth_error(&reply, "invalid request", "id_token required");

    let reply = grant(json!({"id_token": "x"})).await;
    assert_oauth_error(
        &reply,
        "invalid request",
        "provider or client_id and issuer required",
    );

    let reply = grant(json!({"provider": "myspace", "id_token": "x"})).await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.body["code"], "validation_failed");

    // Another app's token (audience) is refused.
    let token = app.id_token(json!({"aud": "someone-elses-client"}));
    let reply = grant(json!({"provider": "google", "id_token": token})).await;
    assert_oauth_error(
        &reply,
        "invalid request",
        "Unacceptable audience in id_token: [someone-elses-client]",
    );

    // A replayed token for another sign-in: the nonce does not match.
    let token = app.id_token(json!({"nonce": sha256_hex("first")}));
    let reply = grant(json!({"provider": "google", "id_token": token, "nonce": "second"})).await;
    assert_oauth_error(&reply, "invalid nonce", "Nonces mismatch");
    let reply = grant(json!({"provider": "google", "id_token": token})).await;
    assert_oauth_error(
        &reply,
        "invalid request",
        "Passed nonce and nonce in id_token should either both exist or not.",
    );

    // Expired, forged (payload changed after signing), foreign issuer,
    // unsigned: all "Bad ID token".
    let now = app.clock.timestamp();
    let expired = app.id_token(json!({"iat": now - 7200, "exp": now - 3600}));
    let good = app.id_token(json!({}));
    let mut parts: Vec<String> = good.split('.').map(str::to_owned).collect();
    let mut payload = claims_of(&good);
    payload["sub"] = json!("someone-else");
    parts[1] = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(payload.to_string());
    let forged = parts.join(".");
    let foreign = app.id_token(json!({"iss": "https://accounts.evil.example"}));
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(r#"{"alg":"none","kid":"test-key-1"}"#);
    let unsigned = format!("{header}.{}.", parts[1]);
    for token in [expired, forged, foreign, unsigned, "not-a-jwt".to_owned()] {
        let reply = grant(json!({"provider": "google", "id_token": token})).await;
        assert_oauth_error(&reply, "invalid request", "Bad ID token");
    }
    assert_eq!(app.count("select count(*) from auth.users").await, 0);
}

#[tokio::test]
async fn id_token_of_a_disabled_provider_is_refused() {
    let app = spawn_app_with(|c| c.id_token_google.enabled = false).await;
    let reply = app
        .id_token_grant(json!({"provider": "google", "id_token": app.id_token(json!({}))}))
        .await;
    assert_eq!(reply.status, 400, "{}", reply.text);
    assert_eq!(reply.body["code"], "provider_disabled");
    let apple = app
        .id_token_grant(json!({"provider": "apple", "id_token": app.id_token(json!({}))}))
        .await;
    assert_eq!(apple.body["code"], "provider_disabled", "{}", apple.text);
}

// ------------------------------------------------------------ web3

/// A Sign-In with Ethereum message as wallets write it.
fn siwe(
    domain: &str,
    address: &str,
    uri: &str,
    issued: chrono::DateTime<chrono::Utc>,
    extra: &str,
) -> String {
    format!(
        "{domain} wants you to sign in with your Ethereum account:\n{address}\n\nSign in to Plinth\n\n\
         URI: {uri}\nVersion: 1\nChain ID: 1\nNonce: abcdef123456\nIssued At: {}{extra}",
        issued.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    )
}

fn eth_wallet(seed: u8) -> (k256::ecdsa::SigningKey, String) {
    use sha3::Keccak256;
    let key = k256::ecdsa::SigningKey::from_slice(&[seed; 32]).unwrap();
    let point = key.verifying_key().to_encoded_point(false);
    let hash = Keccak256::digest(&point.as_bytes()[1..]);
    let address = format!(
        "0x{}",
        hash[12..]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    (key, address)
}

fn eth_sign(key: &k256::ecdsa::SigningKey, message: &str) -> String {
    use sha3::Keccak256;
    let mut hasher = Keccak256::new();
    hasher.update(format!("\x19Ethereum Signed Message:\n{}", message.len()).as_bytes());
    hasher.update(message.as_bytes());
    let (sig, recovery) = key.sign_prehash_recoverable(&hasher.finalize()).unwrap();
    let mut bytes = sig.to_bytes().to_vec();
    bytes.push(recovery.to_byte() + 27);
    format!(
        "0x{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

#[tokio::test]
async fn sign_in_with_ethereum_once_per_message() {
    let app = spawn_app().await;
    let (key, address) = eth_wallet(7);
    let message = siwe(
        "localhost:3000",
        &address,
        "http://localhost:3000",
        app.clock.now(),
        "",
    );
    let body =
        json!({"chain": "ethereum", "message": message, "signature": eth_sign(&key, &message)});
    let reply = app.post("/token?grant_type=web3", body.clone()).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let user = &reply.body["user"];
    let sub = format!("web3:ethereum:{address}");
    assert_eq!(user["identities"][0]["provider"], "web3");
    assert_eq!(user["identities"][0]["id"], sub);
    assert_eq!(
        user["identities"][0]["identity_data"]["custom_claims"]["address"],
        address
    );
    assert_eq!(user["email"], "");
    assert_eq!(user["app_metadata"]["provider"], "web3");
    let access = claims_of(reply.body["access_token"].as_str().unwrap());
    assert_eq!(access["amr"][0]["method"], "web3");

    // The same signed message again (a replay): refused.
    let replay = app.post("/token?grant_type=web3", body).await;
    assert_oauth_error(
        &replay,
        "invalid_grant",
        "Signed Ethereum message was already used to sign in",
    );

    // A new message from the same wallet: the same user.
    let later = siwe(
        "localhost:3000",
        &address,
        "http://localhost:3000/app",
        app.clock.now(),
        "\nRequest ID: 2",
    );
    let again = app
        .post(
            "/token?grant_type=web3",
            json!({"chain": "ethereum", "message": later, "signature": eth_sign(&key, &later)}),
        )
        .await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(again.body["user"]["id"], user["id"]);
}

#[tokio::test]
async fn sign_in_with_ethereum_attacks_are_refused() {
    let app = spawn_app_with(|c| {
        c.uri_allow_list = vec!["https://app.example.com/**".into()];
    })
    .await;
    let (key, address) = eth_wallet(7);
    let (other_key, _) = eth_wallet(8);
    let now = app.clock.now();
    let web3 = |message: String, signature: String| {
        app.post(
            "/token?grant_type=web3",
            json!({"chain": "ethereum", "message": message, "signature": signature}),
        )
    };

    // Signed by another wallet than the address in the message.
    let message = siwe(
        "app.example.com",
        &address,
        "https://app.example.com/login",
        now,
        "",
    );
    let reply = web3(message.clone(), eth_sign(&other_key, &message)).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Signature does not match address in message",
    );
    // The message changed after signing.
    let tampered = message.replace("Nonce: abcdef123456", "Nonce: abcdef999999");
    let reply = web3(tampered, eth_sign(&key, &message)).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Signature does not match address in message",
    );

    // Signed for another app.
    let evil = siwe(
        "evil.example.com",
        &address,
        "https://evil.example.com/login",
        now,
        "",
    );
    let reply = web3(evil.clone(), eth_sign(&key, &evil)).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Signed Ethereum message is using URI which is not allowed on this server, message was signed for another app",
    );
    // Our URI, another domain.
    let mixed = siwe(
        "evil.example.com",
        &address,
        "https://app.example.com/login",
        now,
        "",
    );
    let reply = web3(mixed.clone(), eth_sign(&key, &mixed)).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Signed Ethereum message is using a Domain that does not match the one in URI which is not allowed on this server",
    );
    // Plain HTTP to a public host.
    let http = siwe(
        "app.example.com",
        &address,
        "http://app.example.com/login",
        now,
        "",
    );
    let reply = web3(http.clone(), eth_sign(&key, &http)).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Signed Ethereum message is using URI which does not use HTTPS",
    );

    // Expired, too old, from the future.
    let expired = siwe(
        "app.example.com",
        &address,
        "https://app.example.com/login",
        now - chrono::Duration::minutes(5),
        &format!(
            "\nExpiration Time: {}",
            (now - chrono::Duration::minutes(1)).to_rfc3339()
        ),
    );
    let reply = web3(expired.clone(), eth_sign(&key, &expired)).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Signed Ethereum message is expired",
    );
    let old = siwe(
        "app.example.com",
        &address,
        "https://app.example.com/login",
        now - chrono::Duration::minutes(11),
        "",
    );
    let reply = web3(old.clone(), eth_sign(&key, &old)).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Ethereum message was issued too long ago",
    );
    let future = siwe(
        "app.example.com",
        &address,
        "https://app.example.com/login",
        now + chrono::Duration::minutes(11),
        "",
    );
    let reply = web3(future.clone(), eth_sign(&key, &future)).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Ethereum message was issued too far in the future",
    );
    let not_yet = siwe(
        "app.example.com",
        &address,
        "https://app.example.com/login",
        now,
        &format!(
            "\nNot Before: {}",
            (now + chrono::Duration::minutes(2)).to_rfc3339()
        ),
    );
    let reply = web3(not_yet.clone(), eth_sign(&key, &not_yet)).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Signed Ethereum message becomes valid in the future",
    );

    // Malformed input: the platform's validation errors, never a 500.
    let reply = web3(message.clone(), "0x1234".into()).await;
    assert_eq!(reply.body["code"], "validation_failed", "{}", reply.text);
    let reply = web3(
        message.replace("Version: 1", "Version: 9"),
        eth_sign(&key, &message),
    )
    .await;
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.body["message"],
        "siwe: Version value is not supported, expected 1 got \"9\""
    );
    let reply = web3(message.clone(), format!("0x{}", "zz".repeat(65))).await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Signature does not match address in message",
    );
    let reply = web3("short".into(), eth_sign(&key, "short")).await;
    assert_eq!(reply.body["message"], "message is too short");
    assert_eq!(app.count("select count(*) from auth.users").await, 0);

    // The good message still works after all that.
    let reply = web3(message.clone(), eth_sign(&key, &message)).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
}

#[tokio::test]
async fn web3_chains_are_switched_separately() {
    let app = spawn_app_with(|c| c.web3.solana_enabled = false).await;
    let reply = app
        .post(
            "/token?grant_type=web3",
            json!({"chain": "solana", "message": "m", "signature": "s"}),
        )
        .await;
    assert_eq!(reply.status, 422);
    assert_eq!(reply.body["code"], "web3_provider_disabled");
    assert_eq!(reply.body["message"], "Solana Web3 provider is disabled");
    let reply = app
        .post(
            "/token?grant_type=web3",
            json!({"chain": "bitcoin", "message": "m", "signature": "s"}),
        )
        .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.body["code"], "web3_unsupported_chain");
    let off = spawn_app_with(|c| {
        c.web3.solana_enabled = false;
        c.web3.ethereum_enabled = false;
    })
    .await;
    let reply = off
        .post("/token?grant_type=web3", json!({"chain": "ethereum"}))
        .await;
    assert_eq!(
        reply.body["message"], "Web3 provider is disabled",
        "{}",
        reply.text
    );
}

#[tokio::test]
async fn sign_in_with_solana() {
    use ed25519_dalek::Signer;
    let app = spawn_app().await;
    let key = ed25519_dalek::SigningKey::from_bytes(&[3u8; 32]);
    let address = bs58::encode(key.verifying_key().as_bytes()).into_string();
    let message = format!(
        "localhost:3000 wants you to sign in with your Solana account:\n{address}\n\nSign in to Plinth\n\n\
         URI: http://localhost:3000\nVersion: 1\nChain ID: solana:mainnet\nNonce: 1234567890\nIssued At: {}",
        app.clock.now().to_rfc3339()
    );
    let b64 = base64::engine::general_purpose::STANDARD;
    let signature = b64.encode(key.sign(message.as_bytes()).to_bytes());
    let reply = app
        .post(
            "/token?grant_type=web3",
            json!({"chain": "solana", "message": message, "signature": signature}),
        )
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(
        reply.body["user"]["identities"][0]["id"],
        format!("web3:solana:{address}")
    );

    let other = ed25519_dalek::SigningKey::from_bytes(&[4u8; 32]);
    let forged = b64.encode(other.sign(message.as_bytes()).to_bytes());
    let reply = app
        .post(
            "/token?grant_type=web3",
            json!({"chain": "solana", "message": message, "signature": forged}),
        )
        .await;
    assert_oauth_error(
        &reply,
        "invalid_grant",
        "Signature does not match address in message",
    );
    let reply = app
        .post(
            "/token?grant_type=web3",
            json!({"chain": "solana", "message": message, "signature": "!".repeat(88)}),
        )
        .await;
    assert_eq!(
        reply.body["message"],
        "signature does not contain valid base64 characters"
    );
}

// ------------------------------------------------------------ OAuth server

const CLIENT_CALLBACK: &str = "https://client.example.com/callback";
const VERIFIER: &str = "a-code-verifier-of-the-client-app-that-is-long-enough-1234567890";

fn challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

impl App {
    /// Registers a confidential client; answers (client_id, client_secret).
    async fn oauth_client(&self) -> (String, String) {
        let reply = self
            .admin(
                Method::POST,
                "/admin/oauth/clients",
                Some(json!({"client_name": "Client App", "redirect_uris": [CLIENT_CALLBACK]})),
            )
            .await;
        assert_eq!(reply.status, 201, "{}", reply.text);
        (
            reply.body["client_id"].as_str().unwrap().to_owned(),
            reply.body["client_secret"].as_str().unwrap().to_owned(),
        )
    }

    /// A signed-up user's access token.
    async fn user_token(&self, email: &str) -> String {
        let reply = self
            .post(
                "/signup",
                json!({"email": email, "password": "correct horse battery"}),
            )
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        reply.body["access_token"].as_str().unwrap().to_owned()
    }

    /// `GET /oauth/authorize` as the client sends the browser; answers the
    /// authorization id from the consent-page redirect.
    async fn start_authorization(&self, client_id: &str, scope: &str) -> String {
        let reply = read_reply(
            self.http
                .get(self.url("/oauth/authorize"))
                .query(&[
                    ("client_id", client_id),
                    ("redirect_uri", CLIENT_CALLBACK),
                    ("response_type", "code"),
                    ("scope", scope),
                    ("state", "client-state-1"),
                    ("code_challenge", &challenge(VERIFIER)),
                    ("code_challenge_method", "S256"),
                ])
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(reply.status, 302, "{}", reply.text);
        let location = reply.headers["location"].to_str().unwrap().to_owned();
        let prefix = format!("{SITE}/oauth/consent?authorization_id=");
        assert!(location.starts_with(&prefix), "{location}");
        location[prefix.len()..].to_owned()
    }

    /// `POST /oauth/token` as a form, the client authenticated by Basic.
    async fn oauth_token(&self, client: (&str, &str), form: &[(&str, &str)]) -> Reply {
        let basic =
            base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", client.0, client.1));
        read_reply(
            self.http
                .post(self.url("/oauth/token"))
                .header("authorization", format!("Basic {basic}"))
                .form(form)
                .send()
                .await
                .unwrap(),
        )
        .await
    }
}

fn query_param(url: &str, key: &str) -> Option<String> {
    url::Url::parse(url)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.into_owned())
}

#[tokio::test]
async fn oauth_clients_admin_crud() {
    let app = spawn_app().await;
    // Only the service role.
    let user = app.user_token("someone@example.com").await;
    let reply = app
        .call(Method::GET, "/admin/oauth/clients", Some(&user), None)
        .await;
    assert_eq!(reply.status, 403, "{}", reply.text);

    let created = app
        .admin(
            Method::POST,
            "/admin/oauth/clients",
            Some(json!({"client_name": "Client App", "redirect_uris": [CLIENT_CALLBACK], "client_uri": "https://client.example.com"})),
        )
        .await;
    assert_eq!(created.status, 201, "{}", created.text);
    let id = created.body["client_id"].as_str().unwrap().to_owned();
    assert_eq!(created.body["client_type"], "confidential");
    assert_eq!(
        created.body["token_endpoint_auth_method"],
        "client_secret_basic"
    );
    assert_eq!(
        created.body["grant_types"],
        json!(["authorization_code", "refresh_token"])
    );
    assert_eq!(created.body["response_types"], json!(["code"]));
    assert_eq!(created.body["registration_type"], "manual");
    let secret = created.body["client_secret"].as_str().unwrap().to_owned();
    // Only a hash of the secret is kept.
    let stored: String = sqlx::query_scalar("select client_secret_hash from auth.oauth_clients")
        .fetch_one(&app.db.db.owner)
        .await
        .unwrap();
    assert_ne!(stored, secret);

    let public = app
        .admin(
            Method::POST,
            "/admin/oauth/clients",
            Some(json!({"client_name": "SPA", "redirect_uris": ["http://localhost:5173/cb"], "token_endpoint_auth_method": "none"})),
        )
        .await;
    assert_eq!(public.status, 201, "{}", public.text);
    assert_eq!(public.body["client_type"], "public");
    assert!(public.body.get("client_secret").is_none());

    let list = app.admin(Method::GET, "/admin/oauth/clients", None).await;
    assert_eq!(list.status, 200);
    assert_eq!(list.body["clients"].as_array().unwrap().len(), 2);
    assert!(!list.text.contains("\"client_secret\""), "{}", list.text);

    let got = app
        .admin(Method::GET, &format!("/admin/oauth/clients/{id}"), None)
        .await;
    assert_eq!(got.body["client_name"], "Client App");
    assert!(got.body.get("client_secret").is_none());

    let updated = app
        .admin(Method::PUT, &format!("/admin/oauth/clients/{id}"), Some(json!({"client_name": "Renamed", "logo_uri": "https://client.example.com/logo.png"})))
        .await;
    assert_eq!(updated.status, 200, "{}", updated.text);
    assert_eq!(updated.body["client_name"], "Renamed");
    assert_eq!(updated.body["redirect_uris"], json!([CLIENT_CALLBACK]));
    let empty = app
        .admin(
            Method::PUT,
            &format!("/admin/oauth/clients/{id}"),
            Some(json!({})),
        )
        .await;
    assert_eq!(empty.body["message"], "No fields provided for update");

    let regenerated = app
        .admin(
            Method::POST,
            &format!("/admin/oauth/clients/{id}/regenerate_secret"),
            None,
        )
        .await;
    assert_eq!(regenerated.status, 200, "{}", regenerated.text);
    let new_secret = regenerated.body["client_secret"].as_str().unwrap();
    assert_ne!(new_secret, secret);
    // The old secret no longer authenticates the client.
    let old = app
        .oauth_token(
            (&id, &secret),
            &[("grant_type", "refresh_token"), ("refresh_token", "x")],
        )
        .await;
    assert_eq!(old.status, 400);
    assert_eq!(
        old.body["msg"], "invalid client credentials",
        "{}",
        old.text
    );
    let public_id = public.body["client_id"].as_str().unwrap();
    let refused = app
        .admin(
            Method::POST,
            &format!("/admin/oauth/clients/{public_id}/regenerate_secret"),
            None,
        )
        .await;
    assert_eq!(
        refused.body["message"],
        "Cannot regenerate secret for public client"
    );

    // Bad input: GoTrue's validation errors.
    let bad = app
        .admin(
            Method::POST,
            "/admin/oauth/clients",
            Some(json!({"redirect_uris": ["http://evil.example.com/cb"]})),
        )
        .await;
    assert_eq!(bad.status, 400);
    assert_eq!(bad.body["code"], "validation_failed");
    assert_eq!(
        bad.body["message"],
        "400: invalid redirect_uri 'http://evil.example.com/cb': HTTP scheme only allowed for localhost"
    );
    let none = app
        .admin(Method::POST, "/admin/oauth/clients", Some(json!({})))
        .await;
    assert_eq!(none.body["message"], "400: redirect_uris is required");
    let malformed = app
        .admin(Method::GET, "/admin/oauth/clients/not-a-uuid", None)
        .await;
    assert_eq!(malformed.body["message"], "invalid client_id format");

    let deleted = app
        .admin(Method::DELETE, &format!("/admin/oauth/clients/{id}"), None)
        .await;
    assert_eq!(deleted.status, 204);
    let gone = app
        .admin(Method::GET, &format!("/admin/oauth/clients/{id}"), None)
        .await;
    assert_eq!(gone.status, 404);
    assert_eq!(gone.body["code"], "oauth_client_not_found");
}

#[tokio::test]
async fn oauth_server_off_answers_feature_disabled() {
    let app = spawn_app_with(|c| c.oauth_server.enabled = false).await;
    let reply = app.admin(Method::GET, "/admin/oauth/clients", None).await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.body["code"], "feature_disabled");
    assert_eq!(reply.body["message"], "OAuth server is disabled");
    let reply = app
        .call(Method::GET, "/oauth/authorize?client_id=x", None, None)
        .await;
    assert_eq!(reply.body["code"], "feature_disabled");
}

#[tokio::test]
async fn oauth_authorization_code_flow_with_pkce() {
    let app = spawn_app().await;
    let (client_id, secret) = app.oauth_client().await;
    let client = (client_id.as_str(), secret.as_str());
    let user = app.user_token("resource-owner@example.com").await;
    let authorization_id = app
        .start_authorization(&client_id, "openid email profile")
        .await;

    // Another signed-in user cannot see or decide it once it is bound.
    let details = app
        .call(
            Method::GET,
            &format!("/oauth/authorizations/{authorization_id}"),
            Some(&user),
            None,
        )
        .await;
    assert_eq!(details.status, 200, "{}", details.text);
    assert_eq!(details.body["client"]["name"], "Client App");
    assert_eq!(details.body["client"]["id"], client_id);
    assert_eq!(details.body["user"]["email"], "resource-owner@example.com");
    assert_eq!(details.body["scope"], "openid email profile");
    assert_eq!(details.body["redirect_uri"], CLIENT_CALLBACK);
    let intruder = app.user_token("intruder@example.com").await;
    let stolen = app
        .call(
            Method::POST,
            &format!("/oauth/authorizations/{authorization_id}/consent"),
            Some(&intruder),
            Some(json!({"action": "approve"})),
        )
        .await;
    assert_eq!(stolen.status, 404, "{}", stolen.text);
    assert_eq!(stolen.body["code"], "oauth_authorization_not_found");

    let approved = app
        .call(
            Method::POST,
            &format!("/oauth/authorizations/{authorization_id}/consent"),
            Some(&user),
            Some(json!({"action": "approve"})),
        )
        .await;
    assert_eq!(approved.status, 200, "{}", approved.text);
    let redirect = approved.body["redirect_url"].as_str().unwrap();
    assert!(redirect.starts_with(CLIENT_CALLBACK), "{redirect}");
    assert_eq!(
        query_param(redirect, "state").as_deref(),
        Some("client-state-1")
    );
    let code = query_param(redirect, "code").unwrap();
    // Decided once.
    let twice = app
        .call(
            Method::POST,
            &format!("/oauth/authorizations/{authorization_id}/consent"),
            Some(&user),
            Some(json!({"action": "deny"})),
        )
        .await;
    assert_eq!(
        twice.body["message"],
        "authorization request is no longer pending"
    );

    // A wrong verifier, or the wrong client secret, gets nothing.
    let bad_verifier = app
        .oauth_token(
            client,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                (
                    "code_verifier",
                    "an-attackers-guess-of-the-verifier-that-is-long-enough-000",
                ),
            ],
        )
        .await;
    assert_oauth_error(
        &bad_verifier,
        "invalid_grant",
        "PKCE verification failed: code challenge does not match previously saved code verifier",
    );
    let bad_secret = app
        .oauth_token(
            (&client_id, "wrong-secret"),
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("code_verifier", VERIFIER),
            ],
        )
        .await;
    assert_eq!(bad_secret.status, 400);
    assert_eq!(bad_secret.body["error_code"], "invalid_credentials");

    let tokens = app
        .oauth_token(
            client,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("code_verifier", VERIFIER),
                ("redirect_uri", CLIENT_CALLBACK),
            ],
        )
        .await;
    assert_eq!(tokens.status, 200, "{}", tokens.text);
    assert_eq!(tokens.body["token_type"], "bearer");
    assert!(tokens.body.get("user").is_none());
    let access = claims_of(tokens.body["access_token"].as_str().unwrap());
    assert_eq!(access["client_id"], client_id);
    assert_eq!(access["scope"], "openid email profile");
    assert_eq!(
        access["amr"][0]["method"],
        "oauth_provider/authorization_code"
    );
    assert_eq!(access["email"], "resource-owner@example.com");

    // The code is single-use.
    let reused = app
        .oauth_token(
            client,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("code_verifier", VERIFIER),
            ],
        )
        .await;
    assert_oauth_error(&reused, "invalid_grant", "Invalid authorization code");

    // The client's access token reads the user (and userinfo by scope).
    let access_token = tokens.body["access_token"].as_str().unwrap();
    let info = app
        .call(Method::GET, "/oauth/userinfo", Some(access_token), None)
        .await;
    assert_eq!(info.status, 200, "{}", info.text);
    assert_eq!(info.body["email"], "resource-owner@example.com");
    assert_eq!(info.body["email_verified"], true);

    // Its refresh token works only through the client.
    let refresh = tokens.body["refresh_token"].as_str().unwrap();
    let plain = app
        .post(
            "/token?grant_type=refresh_token",
            json!({"refresh_token": refresh}),
        )
        .await;
    assert_oauth_error(
        &plain,
        "invalid_client",
        "Client authentication required for OAuth session",
    );
    let refreshed = app
        .oauth_token(
            client,
            &[("grant_type", "refresh_token"), ("refresh_token", refresh)],
        )
        .await;
    assert_eq!(refreshed.status, 200, "{}", refreshed.text);
    assert_eq!(
        claims_of(refreshed.body["access_token"].as_str().unwrap())["client_id"],
        client_id
    );
    // A user's own refresh token cannot be refreshed by a client.
    let own = app
        .post(
            "/token?grant_type=password",
            json!({"email": "intruder@example.com", "password": "correct horse battery"}),
        )
        .await;
    let own_refresh = own.body["refresh_token"].as_str().unwrap();
    let hijack = app
        .oauth_token(
            client,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", own_refresh),
            ],
        )
        .await;
    assert_oauth_error(
        &hijack,
        "invalid_client",
        "Client authentication not allowed for non-OAuth session",
    );

    // The consent is remembered: the next request within it is approved at once.
    let second = app.start_authorization(&client_id, "email").await;
    let auto = app
        .call(
            Method::GET,
            &format!("/oauth/authorizations/{second}"),
            Some(&user),
            None,
        )
        .await;
    assert_eq!(auto.status, 200, "{}", auto.text);
    assert!(
        query_param(auto.body["redirect_url"].as_str().unwrap(), "code").is_some(),
        "{}",
        auto.text
    );

    // The user's grants, and revoking one ends the client's sessions.
    let grants = app
        .call(Method::GET, "/user/oauth/grants", Some(&user), None)
        .await;
    assert_eq!(grants.status, 200, "{}", grants.text);
    assert_eq!(grants.body[0]["client"]["id"], client_id);
    assert_eq!(
        grants.body[0]["scopes"],
        json!(["openid", "email", "profile"])
    );
    let revoked = app
        .call(
            Method::DELETE,
            &format!("/user/oauth/grants?client_id={client_id}"),
            Some(&user),
            None,
        )
        .await;
    assert_eq!(revoked.status, 204, "{}", revoked.text);
    let after = app
        .oauth_token(
            client,
            &[
                ("grant_type", "refresh_token"),
                (
                    "refresh_token",
                    refreshed.body["refresh_token"].as_str().unwrap(),
                ),
            ],
        )
        .await;
    assert_eq!(after.status, 400);
    assert_eq!(
        after.body["error_code"], "refresh_token_not_found",
        "{}",
        after.text
    );
}

#[tokio::test]
async fn oauth_authorize_refusals_and_denial() {
    let app = spawn_app().await;
    let (client_id, _) = app.oauth_client().await;
    let authorize = |pairs: Vec<(&'static str, String)>| {
        let request = app.http.get(app.url("/oauth/authorize")).query(&pairs);
        async move { read_reply(request.send().await.unwrap()).await }
    };
    // An unregistered redirect URI is never followed.
    let reply = authorize(vec![
        ("client_id", client_id.clone()),
        ("redirect_uri", "https://evil.example.com/cb".into()),
    ])
    .await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.body["msg"], "invalid redirect_uri");
    let reply = authorize(vec![
        ("client_id", uuid::Uuid::new_v4().to_string()),
        ("redirect_uri", CLIENT_CALLBACK.into()),
    ])
    .await;
    assert_eq!(reply.body["error_code"], "oauth_client_not_found");
    // Without PKCE: back to the client with invalid_request.
    let reply = authorize(vec![
        ("client_id", client_id.clone()),
        ("redirect_uri", CLIENT_CALLBACK.into()),
        ("state", "s1".into()),
    ])
    .await;
    assert_eq!(reply.status, 302);
    let location = reply.headers["location"].to_str().unwrap();
    assert_eq!(
        query_param(location, "error").as_deref(),
        Some("invalid_request")
    );
    assert_eq!(query_param(location, "state").as_deref(), Some("s1"));
    assert!(
        query_param(location, "error_description")
            .unwrap()
            .contains("PKCE")
    );

    // The user says no.
    let user = app.user_token("owner@example.com").await;
    let authorization_id = app.start_authorization(&client_id, "email").await;
    let details = app
        .call(
            Method::GET,
            &format!("/oauth/authorizations/{authorization_id}"),
            Some(&user),
            None,
        )
        .await;
    assert_eq!(details.status, 200, "{}", details.text);
    let denied = app
        .call(
            Method::POST,
            &format!("/oauth/authorizations/{authorization_id}/consent"),
            Some(&user),
            Some(json!({"action": "deny"})),
        )
        .await;
    let redirect = denied.body["redirect_url"].as_str().unwrap();
    assert_eq!(
        query_param(redirect, "error").as_deref(),
        Some("access_denied")
    );
    assert_eq!(
        query_param(redirect, "error_description").as_deref(),
        Some("User denied the request")
    );
    assert!(query_param(redirect, "code").is_none());

    // Signed out: no details.
    let anon = app
        .call(
            Method::GET,
            &format!("/oauth/authorizations/{authorization_id}"),
            None,
            None,
        )
        .await;
    assert_eq!(anon.status, 403, "{}", anon.text);
    // A request from a foreign page is refused.
    let foreign = read_reply(
        app.http
            .get(app.url(&format!("/oauth/authorizations/{authorization_id}")))
            .header("authorization", format!("Bearer {user}"))
            .header("origin", "https://evil.example.com")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(foreign.body["msg"], "unauthorized request origin");

    // An expired request is not found.
    let late = app.start_authorization(&client_id, "email").await;
    app.clock.advance(std::time::Duration::from_secs(11 * 60));
    let user_again = app
        .post(
            "/token?grant_type=password",
            json!({"email": "owner@example.com", "password": "correct horse battery"}),
        )
        .await;
    let token = user_again.body["access_token"].as_str().unwrap();
    let expired = app
        .call(
            Method::GET,
            &format!("/oauth/authorizations/{late}"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(expired.status, 404, "{}", expired.text);
    let status: String = sqlx::query_scalar(
        "select status::text from auth.oauth_authorizations where authorization_id = $1",
    )
    .bind(&late)
    .fetch_one(&app.db.db.owner)
    .await
    .unwrap();
    assert_eq!(status, "expired");
}

#[tokio::test]
async fn oauth_public_client_uses_pkce_without_a_secret() {
    let app = spawn_app().await;
    let created = app
        .admin(
            Method::POST,
            "/admin/oauth/clients",
            Some(json!({"redirect_uris": [CLIENT_CALLBACK], "client_type": "public"})),
        )
        .await;
    let client_id = created.body["client_id"].as_str().unwrap().to_owned();
    let user = app.user_token("spa-user@example.com").await;
    let authorization_id = app.start_authorization(&client_id, "email").await;
    app.call(
        Method::GET,
        &format!("/oauth/authorizations/{authorization_id}"),
        Some(&user),
        None,
    )
    .await;
    let approved = app
        .call(
            Method::POST,
            &format!("/oauth/authorizations/{authorization_id}/consent"),
            Some(&user),
            Some(json!({"action": "approve"})),
        )
        .await;
    let code = query_param(approved.body["redirect_url"].as_str().unwrap(), "code").unwrap();
    // A secret from a public client is refused; JSON bodies are read too.
    let with_secret = read_reply(
        app.http
            .post(app.url("/oauth/token"))
            .json(&json!({"grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER, "client_id": client_id, "client_secret": "x"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(with_secret.status, 400);
    assert!(
        with_secret.text.contains("invalid authentication method"),
        "{}",
        with_secret.text
    );
    let tokens = read_reply(
        app.http
            .post(app.url("/oauth/token"))
            .json(&json!({"grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER, "client_id": client_id}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(tokens.status, 200, "{}", tokens.text);
    assert_eq!(
        claims_of(tokens.body["access_token"].as_str().unwrap())["scope"],
        "email"
    );
}

#[tokio::test]
async fn id_token_link_identity_adds_it_to_the_signed_in_caller_only() {
    let app = spawn_app().await;
    let owner = app.user_token("owner@example.com").await;
    let token = app.id_token(json!({"sub": "google-linked", "email": "other-address@example.com"}));
    // Linking needs a user's token (the anon key names nobody).
    let anonymous = app
        .id_token_grant(json!({"provider": "google", "id_token": token, "link_identity": true}))
        .await;
    assert_eq!(anonymous.status, 403, "{}", anonymous.text);
    assert_eq!(anonymous.body["code"], "bad_jwt");
    let linked = app
        .call(
            Method::POST,
            "/token?grant_type=id_token",
            Some(&owner),
            Some(json!({"provider": "google", "id_token": token, "link_identity": true})),
        )
        .await;
    assert_eq!(linked.status, 200, "{}", linked.text);
    assert_eq!(linked.body["user"]["email"], "owner@example.com");
    let providers: Vec<&str> = linked.body["user"]["identities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["provider"].as_str().unwrap())
        .collect();
    assert_eq!(providers, vec!["email", "google"]);
    // Someone else cannot take the same identity.
    let thief = app.user_token("thief@example.com").await;
    let stolen = app
        .call(
            Method::POST,
            "/token?grant_type=id_token",
            Some(&thief),
            Some(json!({"provider": "google", "id_token": token, "link_identity": true})),
        )
        .await;
    assert_eq!(stolen.status, 422, "{}", stolen.text);
    assert_eq!(stolen.body["code"], "identity_already_exists");
    // Signing in with it now reaches the owner.
    let signed_in = app
        .id_token_grant(json!({"provider": "google", "id_token": token}))
        .await;
    assert_eq!(
        signed_in.body["user"]["email"], "owner@example.com",
        "{}",
        signed_in.text
    );
}

#[tokio::test]
async fn oauth_dynamic_registration_only_when_allowed() {
    let closed = spawn_app().await;
    let body = json!({"client_name": "Self-registered", "redirect_uris": [CLIENT_CALLBACK]});
    let reply = closed.post("/oauth/clients/register", body.clone()).await;
    assert_eq!(reply.status, 403, "{}", reply.text);
    assert_eq!(
        reply.body["code"],
        "oauth_dynamic_client_registration_disabled"
    );
    let open = spawn_app_with(|c| c.oauth_server.allow_dynamic_registration = true).await;
    let reply = open.post("/oauth/clients/register", body).await;
    assert_eq!(reply.status, 201, "{}", reply.text);
    assert_eq!(reply.body["registration_type"], "dynamic");
    assert!(reply.body["client_secret"].is_string());
    let bad = open
        .post(
            "/oauth/clients/register",
            json!({"redirect_uris": ["javascript://x/alert(1)"]}),
        )
        .await;
    assert_eq!(bad.status, 400);
    assert_eq!(bad.body["code"], "validation_failed");
}

#[tokio::test]
async fn oauth_discovery_documents() {
    let app = spawn_app_with(|c| c.oauth_server.allow_dynamic_registration = true).await;
    let issuer = format!("{}/auth/v1", app.base);
    for path in [
        "/.well-known/openid-configuration",
        "/.well-known/oauth-authorization-server",
    ] {
        let reply = app.call(Method::GET, path, None, None).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text);
        assert_eq!(reply.body["issuer"], issuer);
        assert_eq!(
            reply.body["authorization_endpoint"],
            format!("{issuer}/oauth/authorize")
        );
        assert_eq!(
            reply.body["token_endpoint"],
            format!("{issuer}/oauth/token")
        );
        assert_eq!(
            reply.body["registration_endpoint"],
            format!("{issuer}/oauth/clients/register")
        );
        assert_eq!(
            reply.body["code_challenge_methods_supported"],
            json!(["S256", "plain"])
        );
    }
    let off = spawn_app_with(|c| c.oauth_server.enabled = false).await;
    let reply = off
        .call(
            Method::GET,
            "/.well-known/oauth-authorization-server",
            None,
            None,
        )
        .await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.body["code"], "feature_disabled");
    let reply = off
        .call(Method::GET, "/.well-known/openid-configuration", None, None)
        .await;
    assert_eq!(reply.status, 200);
    assert!(reply.body.get("registration_endpoint").is_none());
}

#[tokio::test]
async fn id_token_grant_for_apple_reads_its_string_booleans() {
    // Apple's issuer is the stand-in too (spawn_app_with points both at it).
    let app = spawn_app_with(|c| {
        c.id_token_apple.enabled = true;
        c.id_token_apple.client_ids = vec!["com.example.app".into()];
    })
    .await;
    // The platform's settings say Apple sign-in is on (and Google, whose
    // ID tokens this app takes though its redirect sign-in is off).
    let settings = app.call(Method::GET, "/settings", None, None).await;
    assert_eq!(settings.body["external"]["apple"], true);
    assert_eq!(settings.body["external"]["google"], true);
    let token = app.id_token(json!({
        "aud": "com.example.app", "sub": "001234.apple", "email": "relay@privaterelay.example.com",
        "email_verified": "true", "is_private_email": "true",
    }));
    let reply = app
        .id_token_grant(json!({"provider": "apple", "id_token": token}))
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let identity = &reply.body["user"]["identities"][0];
    assert_eq!(identity["provider"], "apple");
    assert_eq!(identity["id"], "001234.apple");
    assert_eq!(identity["identity_data"]["email_verified"], true);
    assert_eq!(
        identity["identity_data"]["custom_claims"]["is_private_email"],
        true
    );
    // A token for the Google client is not one for the Apple app.
    let google = app.id_token(json!({}));
    let reply = app
        .id_token_grant(json!({"provider": "apple", "id_token": google}))
        .await;
    assert_oauth_error(
        &reply,
        "invalid request",
        &format!("Unacceptable audience in id_token: [{GOOGLE_CLIENT}]"),
    );
}
