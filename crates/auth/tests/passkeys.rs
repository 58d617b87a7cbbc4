//! Passkeys over HTTP against a real Postgres (one fresh database and
//! server per test): registration and sign-in with a software authenticator
//! written here (P-256 keys, attestation `none` and `packed` self
//! attestation, a signature counter that grows), the refusals a relying
//! party owes (wrong origin, wrong or replayed challenge, a counter going
//! back, an unknown credential), listing, renaming and deleting, the admin's
//! endpoints, and the platform's settings and errors.

#![allow(clippy::unwrap_used)]

mod support;

use std::time::Duration;

use base64::Engine;
use p256::ecdsa::signature::Signer;
use plinth_auth::AuthConfig;
use reqwest::Method;
use serde_cbor_2::Value as Cbor;
use serde_json::{Value, json};
use sha2::Digest;
use support::{App, Reply, claims_of};

const RP_ID: &str = "localhost";
const ORIGIN: &str = "http://localhost:3000";
const PASSWORD: &str = "a-long-password-1";
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;
const GOOGLE_AAGUID: [u8; 16] = [
    0xea, 0x9b, 0x8d, 0x66, 0x4d, 0x01, 0x1d, 0x21, 0x3c, 0xe4, 0xb6, 0xb4, 0x8c, 0xb5, 0x75, 0xd4,
];

/// The attestation a software authenticator gives.
#[derive(Clone, Copy)]
enum Attestation {
    None,
    /// `packed` self attestation: signed with the credential's own key.
    Packed,
    /// A `packed` statement signed by another key (seed) than the credential's.
    PackedBy(u8),
}

/// A software authenticator holding one discoverable credential: a P-256
/// key, its id, the user handle it was made for, a signature counter.
struct Authenticator {
    key: p256::ecdsa::SigningKey,
    id: Vec<u8>,
    aaguid: [u8; 16],
    counter: u32,
    user_handle: Vec<u8>,
}

impl Authenticator {
    fn new(seed: u8) -> Self {
        Self {
            key: p256::ecdsa::SigningKey::from_bytes(&[seed; 32].into()).unwrap(),
            id: vec![seed; 20],
            aaguid: [0; 16],
            counter: 0,
            user_handle: Vec::new(),
        }
    }

    fn client_data(kind: &str, challenge: &str, origin: &str) -> Vec<u8> {
        json!({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": false})
            .to_string()
            .into_bytes()
    }

    fn cose_key(&self) -> Vec<u8> {
        let point = self.key.verifying_key().to_encoded_point(false);
        let int = |i: i128| Cbor::Integer(i);
        let map = [
            (int(1), int(2)),
            (int(3), int(-7)),
            (int(-1), int(1)),
            (int(-2), Cbor::Bytes(point.x().unwrap().to_vec())),
            (int(-3), Cbor::Bytes(point.y().unwrap().to_vec())),
        ];
        serde_cbor_2::to_vec(&Cbor::Map(map.into_iter().collect())).unwrap()
    }

    fn sign(&self, data: &[u8]) -> Vec<u8> {
        let signature: p256::ecdsa::Signature = self.key.sign(data);
        signature.to_der().as_bytes().to_vec()
    }

    /// `navigator.credentials.create()` for `options` (the server's
    /// `PublicKeyCredentialCreationOptions`), serialized as supabase-js
    /// sends it; the authenticator keeps the user handle.
    fn create(&mut self, options: &Value, origin: &str, attestation: Attestation) -> Value {
        let challenge = options["challenge"].as_str().unwrap();
        let rp_id = options["rp"]["id"].as_str().unwrap();
        self.user_handle = B64.decode(options["user"]["id"].as_str().unwrap()).unwrap();
        let client_data = Self::client_data("webauthn.create", challenge, origin);
        let mut auth_data = sha2::Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(0x45); // user present, user verified, attested credential data
        auth_data.extend_from_slice(&self.counter.to_be_bytes());
        auth_data.extend_from_slice(&self.aaguid);
        auth_data.extend_from_slice(&u16::try_from(self.id.len()).unwrap().to_be_bytes());
        auth_data.extend_from_slice(&self.id);
        auth_data.extend_from_slice(&self.cose_key());
        let text = |t: &str| Cbor::Text(t.into());
        let (format, statement) = match attestation {
            Attestation::None => ("none", Cbor::Map(Default::default())),
            Attestation::Packed | Attestation::PackedBy(_) => {
                let mut signed = auth_data.clone();
                signed.extend_from_slice(&sha2::Sha256::digest(&client_data));
                let signature = match attestation {
                    Attestation::PackedBy(seed) => Self::new(seed).sign(&signed),
                    _ => self.sign(&signed),
                };
                let statement = [
                    (text("alg"), Cbor::Integer(-7)),
                    (text("sig"), Cbor::Bytes(signature)),
                ];
                ("packed", Cbor::Map(statement.into_iter().collect()))
            }
        };
        let object = [
            (text("fmt"), text(format)),
            (text("attStmt"), statement),
            (text("authData"), Cbor::Bytes(auth_data)),
        ];
        let object = serde_cbor_2::to_vec(&Cbor::Map(object.into_iter().collect())).unwrap();
        json!({
            "id": B64.encode(&self.id),
            "rawId": B64.encode(&self.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": B64.encode(client_data),
                "attestationObject": B64.encode(object),
                "transports": ["internal", "hybrid"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        })
    }

    /// `navigator.credentials.get()` for `options`: the counter moves on and
    /// the assertion is signed, with the stored user handle.
    fn get(&mut self, options: &Value, origin: &str) -> Value {
        self.counter += 1;
        let challenge = options["challenge"].as_str().unwrap();
        let rp_id = options["rpId"].as_str().unwrap();
        let client_data = Self::client_data("webauthn.get", challenge, origin);
        let mut auth_data = sha2::Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(0x05); // user present and verified
        auth_data.extend_from_slice(&self.counter.to_be_bytes());
        let mut signed = auth_data.clone();
        signed.extend_from_slice(&sha2::Sha256::digest(&client_data));
        json!({
            "id": B64.encode(&self.id),
            "rawId": B64.encode(&self.id),
            "type": "public-key",
            "response": {
                "clientDataJSON": B64.encode(client_data),
                "authenticatorData": B64.encode(auth_data),
                "signature": B64.encode(self.sign(&signed)),
                "userHandle": B64.encode(&self.user_handle),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        })
    }
}

async fn spawn_app_with(tweak: impl FnOnce(&mut AuthConfig)) -> App {
    support::spawn_app_configured(|c| {
        c.mailer_autoconfirm = true;
        c.passkeys.enabled = true;
        c.mfa.webauthn_rp_id = RP_ID.into();
        c.mfa.webauthn_rp_display_name = "Plinth".into();
        c.mfa.webauthn_rp_origins = vec![ORIGIN.into()];
        tweak(c);
    })
    .await
}

async fn spawn_app() -> App {
    spawn_app_with(|_| {}).await
}

fn s(value: &Value) -> String {
    value.as_str().unwrap().to_owned()
}

impl App {
    /// Signs up `email` (autoconfirmed): (access token, user id).
    async fn signed_up(&self, email: &str) -> (String, String) {
        let reply = self
            .post("/signup", json!({"email": email, "password": PASSWORD}))
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        (s(&reply.body["access_token"]), s(&reply.body["user"]["id"]))
    }

    async fn registration_options(&self, token: &str) -> Reply {
        self.call(
            Method::POST,
            "/passkeys/registration/options",
            Some(token),
            Some(json!({})),
        )
        .await
    }

    async fn registration_verify(&self, token: &str, challenge: &Value, answer: Value) -> Reply {
        self.call(
            Method::POST,
            "/passkeys/registration/verify",
            Some(token),
            Some(json!({"challenge_id": challenge, "credential": answer})),
        )
        .await
    }

    /// Registers `key` for the holder of `token`: the new passkey.
    async fn register(&self, token: &str, key: &mut Authenticator, format: Attestation) -> Value {
        let options = self.registration_options(token).await;
        assert_eq!(options.status, 200, "{}", options.text);
        let answer = key.create(&options.body["options"], ORIGIN, format);
        let reply = self
            .registration_verify(token, &options.body["challenge_id"], answer)
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        reply.body
    }

    async fn authentication_options(&self) -> Reply {
        self.post("/passkeys/authentication/options", json!({}))
            .await
    }

    async fn authentication_verify(&self, challenge: &Value, answer: Value) -> Reply {
        self.post(
            "/passkeys/authentication/verify",
            json!({"challenge_id": challenge, "credential": answer}),
        )
        .await
    }

    /// Signs in with `key`: the reply.
    async fn sign_in(&self, key: &mut Authenticator) -> Reply {
        let options = self.authentication_options().await;
        assert_eq!(options.status, 200, "{}", options.text);
        let answer = key.get(&options.body["options"], ORIGIN);
        self.authentication_verify(&options.body["challenge_id"], answer)
            .await
    }

    async fn list(&self, token: &str) -> Reply {
        self.call(Method::GET, "/passkeys", Some(token), None).await
    }

    async fn sql_exec(&self, sql: &str, id: &str) {
        sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
            .bind(id)
            .execute(&self.db.db.owner)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn passkeys_are_off_unless_enabled_and_settings_say_so() {
    let off = support::spawn_app().await;
    let settings = off.call(Method::GET, "/settings", None, None).await;
    assert_eq!(
        settings.body["passkeys_enabled"], false,
        "{}",
        settings.text
    );
    off.post("/passkeys/authentication/options", json!({}))
        .await
        .expect(404, "passkey_disabled");
    let key = off.service_key();
    let listed = off.call(Method::GET, "/passkeys", Some(&key), None).await;
    listed.expect(404, "passkey_disabled");
    assert_eq!(listed.message(), "Passkeys are disabled");

    let on = spawn_app().await;
    let settings = on.call(Method::GET, "/settings", None, None).await;
    assert_eq!(settings.body["passkeys_enabled"], true);
    // The rest of the settings are still there.
    assert_eq!(settings.body["external"]["email"], true);
}

#[tokio::test]
async fn a_passkey_registers_with_attestation_none_and_signs_in_with_growing_counters() {
    let app = spawn_app().await;
    let (token, user_id) = app.signed_up("ada@example.com").await;
    let options = app.registration_options(&token).await;
    assert_eq!(options.status, 200, "{}", options.text);
    let expires_at = options.body["expires_at"].as_i64().unwrap();
    assert!((290..=310).contains(&(expires_at - app.clock.timestamp())));
    let o = &options.body["options"];
    // The platform's ceremony: a discoverable credential, user verification
    // preferred, no attestation, the user id's text as handle.
    assert_eq!(o["rp"], json!({"name": "Plinth", "id": RP_ID}));
    assert_eq!(o["user"]["id"], B64.encode(user_id.as_bytes()));
    assert_eq!(o["user"]["name"], "ada@example.com");
    assert_eq!(o["user"]["displayName"], "ada@example.com");
    assert_eq!(o["authenticatorSelection"]["residentKey"], "required");
    assert_eq!(o["authenticatorSelection"]["requireResidentKey"], true);
    assert_eq!(o["authenticatorSelection"]["userVerification"], "preferred");
    assert_eq!(o["attestation"], "none");
    assert_eq!(
        o["pubKeyCredParams"][0],
        json!({"type": "public-key", "alg": -7})
    );
    assert!(o.get("excludeCredentials").is_none(), "{o}");
    // Browsers read options as WebIDL dictionaries: no member may be null.
    assert!(!o.to_string().contains("null"), "{o}");

    let mut key = Authenticator::new(1);
    let answer = key.create(o, ORIGIN, Attestation::None);
    let created = app
        .registration_verify(&token, &options.body["challenge_id"], answer)
        .await;
    assert_eq!(created.status, 200, "{}", created.text);
    assert_eq!(created.body["friendly_name"], "Passkey");
    assert!(created.body["created_at"].is_string());
    let passkey_id = s(&created.body["id"]);
    let stored: (String, i64, Value, bool) = sqlx::query_as(
        "select attestation_type, sign_count, transports, user_verified \
         from auth.webauthn_credentials where id = $1::uuid",
    )
    .bind(&passkey_id)
    .fetch_one(&app.db.db.owner)
    .await
    .unwrap();
    assert_eq!(
        stored,
        ("none".into(), 0, json!(["internal", "hybrid"]), true)
    );

    let listed = app.list(&token).await;
    assert_eq!(listed.status, 200, "{}", listed.text);
    assert_eq!(listed.body.as_array().unwrap().len(), 1);
    assert_eq!(listed.body[0]["id"], passkey_id.as_str());
    assert!(listed.body[0].get("last_used_at").is_none());

    // Sign-in names nobody: the authenticator names the user.
    let options = app.authentication_options().await;
    assert_eq!(options.status, 200, "{}", options.text);
    let o = &options.body["options"];
    assert_eq!(o["rpId"], RP_ID);
    assert_eq!(o["allowCredentials"], json!([]));
    assert_eq!(o["userVerification"], "preferred");
    assert!(!o.to_string().contains("null"), "{o}");
    let answer = key.get(o, ORIGIN);
    let session = app
        .authentication_verify(&options.body["challenge_id"], answer)
        .await;
    assert_eq!(session.status, 200, "{}", session.text);
    assert_eq!(session.body["user"]["id"], user_id.as_str());
    assert_eq!(session.body["token_type"], "bearer");
    assert!(session.body["refresh_token"].is_string());
    let claims = claims_of(session.body["access_token"].as_str().unwrap());
    assert_eq!(claims["aal"], "aal1");
    assert_eq!(claims["amr"][0]["method"], "passkey");
    assert_eq!(
        app.get_user(session.body["access_token"].as_str().unwrap())
            .await
            .body["email"],
        "ada@example.com"
    );

    // Again: the counter grows to 2, and the passkey was used.
    let again = app.sign_in(&mut key).await;
    assert_eq!(again.status, 200, "{}", again.text);
    let count: i64 = app
        .sql_scalar("select sign_count from auth.webauthn_credentials")
        .await;
    assert_eq!(count, 2);
    assert!(app.list(&token).await.body[0]["last_used_at"].is_string());
}

#[tokio::test]
async fn packed_self_attestation_is_verified_and_names_the_provider() {
    let app = spawn_app().await;
    let (token, _) = app.signed_up("grace@example.com").await;
    let mut key = Authenticator::new(2);
    key.aaguid = GOOGLE_AAGUID;
    // A packed statement signed by another key than the credential's.
    let options = app.registration_options(&token).await;
    let answer = key.create(&options.body["options"], ORIGIN, Attestation::PackedBy(3));
    let refused = app
        .registration_verify(&token, &options.body["challenge_id"], answer)
        .await;
    refused.expect(400, "webauthn_verification_failed");
    assert_eq!(refused.message(), "Credential verification failed");

    let created = app.register(&token, &mut key, Attestation::Packed).await;
    assert_eq!(created["friendly_name"], "Google Password Manager");
    let format: String = app
        .sql_scalar("select attestation_type from auth.webauthn_credentials")
        .await;
    assert_eq!(format, "packed");
    let aaguid: String = app
        .sql_scalar("select aaguid::text from auth.webauthn_credentials")
        .await;
    assert_eq!(aaguid, "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4");
    let session = app.sign_in(&mut key).await;
    assert_eq!(session.status, 200, "{}", session.text);
}

#[tokio::test]
async fn a_relying_party_refuses_what_it_must() {
    let app = spawn_app().await;
    let (token, _) = app.signed_up("eve@example.com").await;
    let mut key = Authenticator::new(4);

    // Registration from another origin: refused, and its challenge is spent.
    let options = app.registration_options(&token).await;
    let elsewhere = key.create(
        &options.body["options"],
        "https://evil.test",
        Attestation::None,
    );
    app.registration_verify(&token, &options.body["challenge_id"], elsewhere)
        .await
        .expect(400, "webauthn_verification_failed");
    let retry = key.create(&options.body["options"], ORIGIN, Attestation::None);
    let replayed = app
        .registration_verify(&token, &options.body["challenge_id"], retry)
        .await;
    replayed.expect(400, "webauthn_challenge_not_found");
    assert_eq!(replayed.message(), "Challenge not found or already used");
    app.register(&token, &mut key, Attestation::None).await;

    // Sign-in from another origin.
    let options = app.authentication_options().await;
    let answer = key.get(&options.body["options"], "https://evil.test");
    app.authentication_verify(&options.body["challenge_id"], answer)
        .await
        .expect(400, "webauthn_verification_failed");

    // An answer to one challenge sent with another's id.
    let first = app.authentication_options().await;
    let second = app.authentication_options().await;
    let answer = key.get(&first.body["options"], ORIGIN);
    app.authentication_verify(&second.body["challenge_id"], answer.clone())
        .await
        .expect(400, "webauthn_verification_failed");
    // A good answer, then the same answer again: its challenge is spent.
    let signed_in = app
        .authentication_verify(&first.body["challenge_id"], answer.clone())
        .await;
    assert_eq!(signed_in.status, 200, "{}", signed_in.text);
    app.authentication_verify(&first.body["challenge_id"], answer)
        .await
        .expect(400, "webauthn_challenge_not_found");

    // A copy of the authenticator whose counter went back.
    let mut copy = Authenticator::new(4);
    copy.user_handle = key.user_handle.clone();
    copy.counter = 1;
    app.sign_in(&mut copy)
        .await
        .expect(400, "webauthn_verification_failed");
    // The real one still signs in: its counter is ahead.
    let real = app.sign_in(&mut key).await;
    assert_eq!(real.status, 200, "{}", real.text);

    // A credential nobody registered, and one claimed for another user.
    let mut stranger = Authenticator::new(5);
    stranger.user_handle = key.user_handle.clone();
    app.sign_in(&mut stranger)
        .await
        .expect(400, "webauthn_verification_failed");
    let (_, other_id) = app.signed_up("mallory@example.com").await;
    let mut misnamed = Authenticator::new(4);
    misnamed.counter = 100;
    misnamed.user_handle = other_id.into_bytes();
    app.sign_in(&mut misnamed)
        .await
        .expect(400, "webauthn_verification_failed");
    // Without a user handle there is nobody to sign in.
    let options = app.authentication_options().await;
    let mut answer = key.get(&options.body["options"], ORIGIN);
    answer["response"]["userHandle"] = Value::Null;
    app.authentication_verify(&options.body["challenge_id"], answer)
        .await
        .expect(400, "webauthn_verification_failed");

    // Too late: the challenge has expired.
    let options = app.authentication_options().await;
    app.clock.advance(Duration::from_secs(301));
    let answer = key.get(&options.body["options"], ORIGIN);
    let late = app
        .authentication_verify(&options.body["challenge_id"], answer)
        .await;
    late.expect(400, "webauthn_challenge_expired");
    assert_eq!(late.message(), "Challenge has expired");
}

#[tokio::test]
async fn malformed_requests_get_the_platforms_errors() {
    let app = spawn_app().await;
    let verify = |body: Value| {
        let app = &app;
        async move { app.post("/passkeys/authentication/verify", body).await }
    };
    let missing = verify(json!({"credential": {}})).await;
    missing.expect(400, "validation_failed");
    assert_eq!(missing.message(), "challenge_id is required");
    let missing = verify(json!({"challenge_id": "x"})).await;
    assert_eq!(missing.message(), "credential is required");
    let bad = verify(json!({"challenge_id": "x", "credential": {}})).await;
    bad.expect(400, "validation_failed");
    assert_eq!(bad.message(), "challenge_id must be a valid UUID");
    let options = app.authentication_options().await;
    let garbage =
        verify(json!({"challenge_id": options.body["challenge_id"], "credential": {"id": 1}}))
            .await;
    garbage.expect(400, "webauthn_verification_failed");
    assert_eq!(garbage.message(), "Invalid credential response");
    // Registration wants a signed-in, non-anonymous user.
    app.call(
        Method::POST,
        "/passkeys/registration/options",
        None,
        Some(json!({})),
    )
    .await
    .expect(403, "bad_jwt");
}

#[tokio::test]
async fn users_list_rename_and_delete_their_passkeys_and_the_admin_too() {
    let app = spawn_app().await;
    let (token, user_id) = app.signed_up("lin@example.com").await;
    let mut first = Authenticator::new(6);
    let mut second = Authenticator::new(7);
    let one = s(&app.register(&token, &mut first, Attestation::None).await["id"]);
    // The next registration's options exclude the registered credential, and
    // that credential cannot be registered again.
    let options = app.registration_options(&token).await;
    assert_eq!(
        options.body["options"]["excludeCredentials"][0]["id"],
        B64.encode(&first.id)
    );
    let again = first.create(&options.body["options"], ORIGIN, Attestation::None);
    app.registration_verify(&token, &options.body["challenge_id"], again)
        .await
        .expect(422, "webauthn_credential_exists");
    let two = s(&app.register(&token, &mut second, Attestation::None).await["id"]);
    let listed = app.list(&token).await;
    let ids: Vec<&str> = listed
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [one.as_str(), two.as_str()]);

    let path = format!("/passkeys/{one}");
    let renamed = app
        .call(
            Method::PATCH,
            &path,
            Some(&token),
            Some(json!({"friendly_name": "Laptop"})),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    assert_eq!(renamed.body["friendly_name"], "Laptop");
    assert_eq!(renamed.body["id"], one.as_str());
    let empty = app
        .call(
            Method::PATCH,
            &path,
            Some(&token),
            Some(json!({"friendly_name": ""})),
        )
        .await;
    empty.expect(400, "validation_failed");
    assert_eq!(empty.message(), "friendly_name is required");
    let long = app
        .call(
            Method::PATCH,
            &path,
            Some(&token),
            Some(json!({"friendly_name": "x".repeat(121)})),
        )
        .await;
    assert_eq!(
        long.message(),
        "friendly_name must be 120 characters or less"
    );
    app.call(
        Method::PATCH,
        "/passkeys/nope",
        Some(&token),
        Some(json!({"friendly_name": "a"})),
    )
    .await
    .expect(404, "validation_failed");

    // Someone else's passkey is not found.
    let (other, _) = app.signed_up("sam@example.com").await;
    app.call(
        Method::PATCH,
        &path,
        Some(&other),
        Some(json!({"friendly_name": "Mine"})),
    )
    .await
    .expect(404, "validation_failed");
    app.call(Method::DELETE, &path, Some(&other), None)
        .await
        .expect(404, "validation_failed");

    let deleted = app.call(Method::DELETE, &path, Some(&token), None).await;
    assert_eq!(deleted.status, 204, "{}", deleted.text);
    app.sign_in(&mut first)
        .await
        .expect(400, "webauthn_verification_failed");

    // The admin's view and removal.
    let admin = app
        .admin(
            Method::GET,
            &format!("/admin/users/{user_id}/passkeys"),
            None,
        )
        .await;
    assert_eq!(admin.status, 200, "{}", admin.text);
    assert_eq!(admin.body.as_array().unwrap().len(), 1);
    assert_eq!(admin.body[0]["id"], two.as_str());
    app.call(
        Method::GET,
        &format!("/admin/users/{user_id}/passkeys"),
        Some(&token),
        None,
    )
    .await
    .expect(403, "not_admin");
    let removed = app
        .admin(
            Method::DELETE,
            &format!("/admin/users/{user_id}/passkeys/{two}"),
            None,
        )
        .await;
    assert_eq!(removed.status, 204, "{}", removed.text);
    assert_eq!(app.list(&token).await.body, json!([]));
    app.admin(
        Method::DELETE,
        &format!("/admin/users/{user_id}/passkeys/{two}"),
        None,
    )
    .await
    .expect(404, "validation_failed");
}

#[tokio::test]
async fn limits_users_with_two_factors_and_unconfirmed_or_banned_users() {
    let app = spawn_app_with(|c| {
        c.passkeys.max_per_user = 1;
        c.passkeys.rate_limit = 2;
    })
    .await;
    let (token, user_id) = app.signed_up("kim@example.com").await;
    let mut key = Authenticator::new(8);
    app.register(&token, &mut key, Attestation::None).await;
    let full = app.registration_options(&token).await;
    full.expect(422, "too_many_passkeys");
    assert_eq!(full.message(), "Maximum number of passkeys reached");

    // Another user cannot register a credential id that is taken.
    let (other, _) = app.signed_up("lee@example.com").await;
    let options = app.registration_options(&other).await;
    let taken = Authenticator::new(8).create(&options.body["options"], ORIGIN, Attestation::None);
    app.registration_verify(&other, &options.body["challenge_id"], taken)
        .await
        .expect(422, "webauthn_credential_exists");

    // With a verified factor, passkeys are managed from aal2 sessions only.
    app.sql_exec(
        "insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, \
           created_at, updated_at) \
         values (gen_random_uuid(), $1::uuid, 'app', 'totp', 'verified', now(), now())",
        &user_id,
    )
    .await;
    let passkey = s(&app.list(&token).await.body[0]["id"]);
    let denied = app
        .call(
            Method::DELETE,
            &format!("/passkeys/{passkey}"),
            Some(&token),
            None,
        )
        .await;
    denied.expect(403, "insufficient_aal");
    assert_eq!(
        denied.message(),
        "AAL2 session is required to manage passkeys when MFA is enabled"
    );
    app.registration_options(&token)
        .await
        .expect(403, "insufficient_aal");
    app.sql_exec(
        "update auth.sessions set aal = 'aal2' where user_id = $1::uuid",
        &user_id,
    )
    .await;
    app.registration_options(&token)
        .await
        .expect(422, "too_many_passkeys");

    // Signing in needs a confirmed address and no ban.
    app.sql_exec(
        "update auth.users set email_confirmed_at = null where id = $1::uuid",
        &user_id,
    )
    .await;
    app.sign_in(&mut key)
        .await
        .expect(403, "email_not_confirmed");
    app.sql_exec(
        "update auth.users set email_confirmed_at = now(), \
           banned_until = now() + interval '1 day' where id = $1::uuid",
        &user_id,
    )
    .await;
    app.sign_in(&mut key).await.expect(403, "user_banned");
    // This client's third sign-in options: its budget (2) is spent.
    app.authentication_options()
        .await
        .expect(429, "over_request_rate_limit");
}
