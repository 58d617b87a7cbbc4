//! The admin API as the platform offers it (generate_link, invite, paging,
//! ban, user sign-out, deletion), SAML-disabled answers, and each request
//! limit by its platform name: over HTTP against a real Postgres, one fresh
//! database and server per test.

#![allow(clippy::unwrap_used)]

mod support;

use std::collections::HashMap;
use std::time::Duration;

use plinth_auth::{AuthConfig, Rate, RateLimits};
use reqwest::Method;
use serde_json::{Value, json};
use support::{App, Reply, SITE, fragment, spawn_app, spawn_app_with};

impl App {
    async fn sign_in(&self, email: &str, password: &str) -> Reply {
        self.post(
            "/token?grant_type=password",
            json!({"email": email, "password": password}),
        )
        .await
    }

    async fn create_user(&self, email: &str, password: &str) -> String {
        let made = self
            .admin(
                Method::POST,
                "/admin/users",
                Some(json!({"email": email, "password": password, "email_confirm": true})),
            )
            .await;
        assert_eq!(made.status, 200, "{}", made.text);
        made.body["id"].as_str().unwrap().to_owned()
    }

    /// Follows an e-mail link (`/verify?...`): the redirect's fragment.
    async fn follow(&self, link: &str) -> HashMap<String, String> {
        let reply = self.send(self.http.get(link)).await;
        assert_eq!(reply.status, 303, "{}", reply.text);
        fragment(&reply.location())
    }
}

// ------------------------------------------------------------ generate_link

#[tokio::test]
async fn generate_link_signup_makes_a_user_whose_link_and_code_work() {
    let app = spawn_app().await;
    let made = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "signup", "email": "New@Example.com", "password": "secret123", "data": {"n": 1}, "redirect_to": "http://app.test/welcome"})),
        )
        .await;
    assert_eq!(made.status, 200, "{}", made.text);
    let body = &made.body;
    assert_eq!(body["email"], "new@example.com");
    assert_eq!(body["user_metadata"]["n"], 1);
    assert_eq!(body["verification_type"], "signup");
    assert_eq!(body["redirect_to"], "http://app.test/welcome");
    assert!(body["confirmation_sent_at"].is_string());
    assert!(body["email_confirmed_at"].is_null());
    let otp = body["email_otp"].as_str().unwrap();
    assert_eq!(otp.len(), 6);
    let hashed = body["hashed_token"].as_str().unwrap();
    let link = body["action_link"].as_str().unwrap();
    assert!(
        link.starts_with(&format!(
            "{}/auth/v1/verify?token={hashed}&type=signup&redirect_to=",
            app.base
        )),
        "{link}"
    );
    // No mail goes out.
    assert!(app.mail_to("new@example.com").await.is_empty());
    // Unconfirmed: no password sign-in yet.
    assert_eq!(
        app.sign_in("new@example.com", "secret123").await.code(),
        "email_not_confirmed"
    );
    let fragment = app.follow(link).await;
    assert_eq!(fragment["type"], "signup");
    assert!(fragment.contains_key("access_token"));
    assert_eq!(
        app.sign_in("new@example.com", "secret123").await.status,
        200
    );
    // Used once only.
    let reply = app.send(app.http.get(link)).await;
    let location = reply.headers["location"].to_str().unwrap();
    assert!(location.contains("error_code=otp_expired"), "{location}");

    // Confirmed now: a second signup link is refused.
    let again = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "signup", "email": "new@example.com", "password": "secret123"})),
        )
        .await;
    assert!(again.is(422, "email_exists"), "{}", again.text);
    assert_eq!(
        again.message(),
        "A user with this email address has already been registered"
    );
}

#[tokio::test]
async fn generate_link_signup_code_verifies_and_needs_a_password() {
    let app = spawn_app().await;
    let no_password = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "signup", "email": "pw@example.com"})),
        )
        .await;
    assert!(
        no_password.is(422, "validation_failed"),
        "{}",
        no_password.text
    );
    assert_eq!(no_password.message(), "Signup requires a valid password");
    let weak = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "signup", "email": "pw@example.com", "password": "1"})),
        )
        .await;
    assert_eq!(weak.code(), "weak_password", "{}", weak.text);

    let made = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "signup", "email": "pw@example.com", "password": "secret123"})),
        )
        .await;
    let otp = made.body["email_otp"].as_str().unwrap();
    let verified = app
        .post(
            "/verify",
            json!({"type": "signup", "email": "pw@example.com", "token": otp}),
        )
        .await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    assert!(verified.body["access_token"].is_string());
}

#[tokio::test]
async fn generate_link_magiclink_recovery_and_their_errors() {
    let app = spawn_app().await;
    // A magic link to an unknown address is a signup link for a new user.
    let unknown = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "magiclink", "email": "fresh@example.com"})),
        )
        .await;
    assert_eq!(unknown.status, 200, "{}", unknown.text);
    assert_eq!(unknown.body["verification_type"], "signup");
    assert!(
        unknown.body["action_link"]
            .as_str()
            .unwrap()
            .contains("type=signup")
    );
    assert_eq!(unknown.body["redirect_to"], SITE);

    app.create_user("known@example.com", "secret123").await;
    let magic = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "magiclink", "email": "known@example.com"})),
        )
        .await;
    assert_eq!(magic.body["verification_type"], "magiclink");
    let fragment = app
        .follow(magic.body["action_link"].as_str().unwrap())
        .await;
    assert_eq!(fragment["type"], "magiclink");
    assert!(fragment.contains_key("refresh_token"));

    let recovery = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "recovery", "email": "known@example.com", "redirect_to": "https://evil.example/steal"})),
        )
        .await;
    assert_eq!(recovery.status, 200);
    // Not allowed: the site URL instead.
    assert_eq!(recovery.body["redirect_to"], SITE);
    // The hashed token verifies as supabase-js's verifyOtp({token_hash}) sends it.
    let verified = app
        .post(
            "/verify",
            json!({"type": "recovery", "token_hash": recovery.body["hashed_token"]}),
        )
        .await;
    assert_eq!(verified.status, 200, "{}", verified.text);

    for kind in ["recovery", "email_change_new", "email_change_current"] {
        let missing = app
            .admin(
                Method::POST,
                "/admin/generate_link",
                Some(json!({"type": kind, "email": "nobody@example.com", "new_email": "x@example.com"})),
            )
            .await;
        assert!(
            missing.is(404, "user_not_found"),
            "{kind}: {}",
            missing.text
        );
        assert_eq!(missing.message(), "User with this email not found");
    }
    let bad_type = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "nonsense", "email": "known@example.com"})),
        )
        .await;
    assert!(bad_type.is(400, "validation_failed"));
    assert_eq!(
        bad_type.message(),
        "Invalid email action link type requested: nonsense"
    );
    // Secure e-mail change is on by default: the current address's link
    // can be made (see generate_link_email_change_needs_both_links).
    let current = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "email_change_current", "email": "known@example.com", "new_email": "x@example.com"})),
        )
        .await;
    assert_eq!(current.status, 200, "{}", current.text);
    assert_eq!(current.body["verification_type"], "email_change_current");
    for (email, message) in [
        ("", "An email address is required"),
        (
            "not an email",
            "Unable to validate email address: invalid format",
        ),
    ] {
        let bad = app
            .admin(
                Method::POST,
                "/admin/generate_link",
                Some(json!({"type": "magiclink", "email": email})),
            )
            .await;
        assert!(bad.is(400, "validation_failed"), "{}", bad.text);
        assert_eq!(bad.message(), message);
    }
    // Only the service role.
    let user = app.sign_in("known@example.com", "secret123").await;
    let token = user.body["access_token"].as_str().unwrap();
    let refused = app
        .call(
            Method::POST,
            "/admin/generate_link",
            Some(token),
            Some(json!({"type": "magiclink", "email": "known@example.com"})),
        )
        .await;
    assert!(refused.is(403, "not_admin"), "{}", refused.text);
    let anon = app
        .post(
            "/admin/generate_link",
            json!({"type": "magiclink", "email": "known@example.com"}),
        )
        .await;
    assert_eq!(anon.status, 403);
    assert!(app.mail_to("known@example.com").await.is_empty());
}

#[tokio::test]
async fn generate_link_email_change_needs_both_links() {
    let app = spawn_app().await;
    app.create_user("old@example.com", "secret123").await;
    app.create_user("taken@example.com", "secret123").await;
    let generate = |kind: &str, new_email: &str| {
        app.admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": kind, "email": "old@example.com", "new_email": new_email})),
        )
    };
    let taken = generate("email_change_new", "taken@example.com").await;
    assert!(taken.is(422, "email_exists"), "{}", taken.text);
    let invalid = generate("email_change_current", "nope").await;
    assert!(invalid.is(400, "validation_failed"));

    let new = generate("email_change_new", "New@Example.com").await;
    assert_eq!(new.status, 200, "{}", new.text);
    assert_eq!(new.body["new_email"], "new@example.com");
    assert_eq!(new.body["verification_type"], "email_change_new");
    let current = generate("email_change_current", "new@example.com").await;
    assert_eq!(current.status, 200, "{}", current.text);
    assert_eq!(current.body["verification_type"], "email_change_current");
    let new_link = new.body["action_link"].as_str().unwrap();
    let current_link = current.body["action_link"].as_str().unwrap();
    assert!(new_link.contains("type=email_change"), "{new_link}");
    assert!(current_link.contains("type=email_change"), "{current_link}");
    assert_ne!(new_link, current_link);
    // No mail goes out.
    assert!(app.mail_to("new@example.com").await.is_empty());
    assert!(app.mail_to("old@example.com").await.is_empty());

    // One link: accepted, nothing changed yet.
    let first = app.follow(new_link).await;
    assert_eq!(
        first["message"],
        "Confirmation link accepted. Please proceed to confirm link sent to the other email"
    );
    assert!(!first.contains_key("access_token"));
    assert_eq!(
        app.sign_in("old@example.com", "secret123").await.status,
        200
    );
    // The other: the address is the new one.
    let second = app.follow(current_link).await;
    assert_eq!(second["type"], "email_change");
    assert!(second.contains_key("access_token"));
    assert_eq!(
        app.sign_in("new@example.com", "secret123").await.status,
        200
    );
    assert_eq!(
        app.sign_in("old@example.com", "secret123").await.code(),
        "invalid_credentials"
    );
    // Each link works once.
    let again = app.send(app.http.get(new_link)).await;
    assert!(
        again.location().contains("error_code=otp_expired"),
        "{}",
        again.location()
    );
}

#[tokio::test]
async fn generate_link_email_change_new_alone_without_secure_email_change() {
    let app = spawn_app_with(|c| c.secure_email_change = false).await;
    app.create_user("old@example.com", "secret123").await;
    let current = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "email_change_current", "email": "old@example.com", "new_email": "x@example.com"})),
        )
        .await;
    assert!(current.is(400, "validation_failed"));
    assert_eq!(
        current.message(),
        "Enable secure email change to generate link for current email"
    );
    let change = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "email_change_new", "email": "old@example.com", "new_email": "New@Example.com"})),
        )
        .await;
    assert_eq!(change.status, 200, "{}", change.text);
    // The code verifies with the new address, as verifyOtp sends it.
    let verified = app
        .post(
            "/verify",
            json!({"type": "email_change", "email": "new@example.com", "token": change.body["email_otp"]}),
        )
        .await;
    assert_eq!(verified.status, 200, "{}", verified.text);
    assert_eq!(verified.body["user"]["email"], "new@example.com");
    assert_eq!(
        app.sign_in("new@example.com", "secret123").await.status,
        200
    );
}

#[tokio::test]
async fn admin_bodies_read_null_fields_as_left_out() {
    let app = spawn_app_with(|c| c.oauth_server.enabled = true).await;
    // Users: null fields change nothing; inside the metadata a null still
    // removes its key.
    let made = app
        .admin(
            Method::POST,
            "/admin/users",
            Some(
                json!({"email": "n@example.com", "password": "secret123", "email_confirm": true,
                        "phone": null, "user_metadata": {"a": 1, "b": 2}, "app_metadata": null,
                        "role": null, "ban_duration": null}),
            ),
        )
        .await;
    assert_eq!(made.status, 200, "{}", made.text);
    let id = made.body["id"].as_str().unwrap().to_owned();
    let updated = app
        .admin(
            Method::PUT,
            &format!("/admin/users/{id}"),
            Some(
                json!({"email": null, "password": null, "email_confirm": null, "role": null,
                        "ban_duration": null, "user_metadata": {"a": null}, "app_metadata": null}),
            ),
        )
        .await;
    assert_eq!(updated.status, 200, "{}", updated.text);
    assert_eq!(updated.body["email"], "n@example.com");
    assert_eq!(updated.body["user_metadata"], json!({"b": 2}));
    assert!(updated.body.get("banned_until").is_none());

    let link = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(
                json!({"type": "magiclink", "email": "n@example.com", "new_email": null,
                        "password": null, "data": null, "redirect_to": null}),
            ),
        )
        .await;
    assert_eq!(link.status, 200, "{}", link.text);

    // OAuth clients, as dashboards and scripts send them with unset fields.
    let client = app
        .admin(
            Method::POST,
            "/admin/oauth/clients",
            Some(
                json!({"client_name": "Nulls", "redirect_uris": ["http://localhost:3000/cb"],
                        "grant_types": null, "client_uri": null, "logo_uri": null,
                        "client_type": null, "token_endpoint_auth_method": null}),
            ),
        )
        .await;
    assert_eq!(client.status, 201, "{}", client.text);
    assert_eq!(
        client.body["grant_types"],
        json!(["authorization_code", "refresh_token"])
    );
    let client_id = client.body["client_id"].as_str().unwrap().to_owned();
    let renamed = app
        .admin(
            Method::PUT,
            &format!("/admin/oauth/clients/{client_id}"),
            Some(
                json!({"client_name": "Renamed", "redirect_uris": null, "grant_types": null,
                        "logo_uri": null}),
            ),
        )
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    assert_eq!(renamed.body["client_name"], "Renamed");
    assert_eq!(
        renamed.body["redirect_uris"],
        json!(["http://localhost:3000/cb"])
    );
    // Only nulls: nothing to change, as the platform says.
    let nothing = app
        .admin(
            Method::PUT,
            &format!("/admin/oauth/clients/{client_id}"),
            Some(json!({"client_name": null, "redirect_uris": null})),
        )
        .await;
    nothing.expect(400, "validation_failed");
}

#[tokio::test]
async fn generate_link_invite_and_invite_endpoint_let_the_user_set_a_password() {
    let app = spawn_app().await;
    // generate_link type invite: a link, no mail.
    let link = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "invite", "email": "guest@example.com", "data": {"team": "a"}})),
        )
        .await;
    assert_eq!(link.status, 200, "{}", link.text);
    assert_eq!(link.body["verification_type"], "invite");
    assert!(link.body["invited_at"].is_string());
    assert_eq!(link.body["user_metadata"]["team"], "a");
    assert!(app.mail_to("guest@example.com").await.is_empty());
    let fragment = app.follow(link.body["action_link"].as_str().unwrap()).await;
    assert_eq!(fragment["type"], "invite");

    // POST /invite mails the link.
    let invited = app
        .call(
            Method::POST,
            "/invite?redirect_to=http%3A%2F%2Fapp.test%2Fset-password",
            Some(&app.service_key()),
            Some(json!({"email": "Invitee@Example.com", "data": {"role": "editor"}})),
        )
        .await;
    assert_eq!(invited.status, 200, "{}", invited.text);
    assert_eq!(invited.body["email"], "invitee@example.com");
    assert!(invited.body["invited_at"].is_string());
    assert!(invited.body["confirmation_sent_at"].is_string());
    assert_eq!(invited.body["user_metadata"]["role"], "editor");
    let mail = app.mail_to("invitee@example.com").await;
    assert_eq!(mail.len(), 1);
    let link = mail[0]["links"][0].as_str().unwrap().to_owned();
    assert!(link.contains("type=invite"), "{link}");
    assert!(
        link.contains("redirect_to=http%3A%2F%2Fapp.test%2Fset-password"),
        "{link}"
    );

    // Not yet accepted: inviting again sends another.
    let again = app
        .admin(
            Method::POST,
            "/invite",
            Some(json!({"email": "invitee@example.com"})),
        )
        .await;
    assert_eq!(again.status, 200, "{}", again.text);
    assert_eq!(app.mail_to("invitee@example.com").await.len(), 2);
    let newest = app.mail_to("invitee@example.com").await[0]["links"][0]
        .as_str()
        .unwrap()
        .to_owned();
    // The newest link works, and the user sets a password with it.
    let fragment = app.follow(&newest).await;
    assert_eq!(fragment["type"], "invite");
    let access = fragment["access_token"].clone();
    let set = app
        .call(
            Method::PUT,
            "/user",
            Some(&access),
            Some(json!({"password": "chosen-password"})),
        )
        .await;
    assert_eq!(set.status, 200, "{}", set.text);
    assert_eq!(
        app.sign_in("invitee@example.com", "chosen-password")
            .await
            .status,
        200
    );
    // Accepted: confirmed addresses are not invited again.
    let confirmed = app
        .admin(
            Method::POST,
            "/invite",
            Some(json!({"email": "invitee@example.com"})),
        )
        .await;
    assert!(confirmed.is(422, "email_exists"), "{}", confirmed.text);

    let bad = app
        .admin(Method::POST, "/invite", Some(json!({"email": "x@@y"})))
        .await;
    assert!(bad.is(400, "validation_failed"));
    let not_admin = app
        .post("/invite", json!({"email": "someone@example.com"}))
        .await;
    assert_eq!(not_admin.status, 403);
    assert!(app.mail_to("someone@example.com").await.is_empty());
}

// ------------------------------------------------------------ users

#[tokio::test]
async fn list_users_pages_as_the_platform() {
    let app = spawn_app().await;
    for i in 0..5 {
        app.create_user(&format!("u{i}@example.com"), "secret123")
            .await;
    }
    let base = format!("{}/auth/v1/admin/users", app.base);
    let page = app
        .admin(Method::GET, "/admin/users?page=2&per_page=2", None)
        .await;
    assert_eq!(page.status, 200);
    assert_eq!(page.body["users"].as_array().unwrap().len(), 2);
    assert_eq!(page.headers["x-total-count"], "5");
    assert_eq!(
        page.headers["link"],
        format!(
            "<{base}?page=3&per_page=2>; rel=\"next\", <{base}?page=3&per_page=2>; rel=\"last\""
        )
        .as_str()
    );
    let last = app
        .admin(Method::GET, "/admin/users?page=3&per_page=2", None)
        .await;
    assert_eq!(last.body["users"].as_array().unwrap().len(), 1);
    assert_eq!(
        last.headers["link"],
        format!("<{base}?page=3&per_page=2>; rel=\"last\"").as_str()
    );
    // Newest first, pages do not overlap.
    let ids = |r: &Reply| -> Vec<String> {
        r.body["users"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["email"].as_str().unwrap().to_owned())
            .collect()
    };
    let first = app
        .admin(Method::GET, "/admin/users?page=1&per_page=2", None)
        .await;
    assert_eq!(ids(&first), ["u4@example.com", "u3@example.com"]);
    assert_eq!(ids(&page), ["u2@example.com", "u1@example.com"]);

    // Empty values are the defaults (page 1, 50 per page).
    let empty = app
        .admin(Method::GET, "/admin/users?page=&per_page=", None)
        .await;
    assert_eq!(empty.status, 200, "{}", empty.text);
    assert_eq!(empty.body["users"].as_array().unwrap().len(), 5);
    assert_eq!(
        empty.headers["link"],
        format!("<{base}?page=1&per_page=50>; rel=\"last\"").as_str()
    );

    for (query, message) in [
        (
            "page=abc",
            "Bad Pagination Parameters: strconv.ParseUint: parsing \"abc\": invalid syntax",
        ),
        (
            "per_page=-1",
            "Bad Pagination Parameters: strconv.ParseUint: parsing \"-1\": invalid syntax",
        ),
        (
            "page=99999999999999999999",
            "Bad Pagination Parameters: strconv.ParseUint: parsing \"99999999999999999999\": value out of range",
        ),
    ] {
        let bad = app
            .admin(Method::GET, &format!("/admin/users?{query}"), None)
            .await;
        assert!(bad.is(400, "validation_failed"), "{query}: {}", bad.text);
        assert_eq!(bad.message(), message);
    }
    // Far past the end: no users, still the right count.
    let past = app
        .admin(
            Method::GET,
            "/admin/users?page=18446744073709551615&per_page=1000",
            None,
        )
        .await;
    assert_eq!(past.status, 200, "{}", past.text);
    assert!(past.body["users"].as_array().unwrap().is_empty());
    assert_eq!(past.headers["x-total-count"], "5");
}

#[tokio::test]
async fn banned_users_are_refused_at_sign_in_refresh_and_user_until_unbanned() {
    let app = spawn_app().await;
    let id = app.create_user("ban@example.com", "secret123").await;
    let session = app.sign_in("ban@example.com", "secret123").await;
    let refresh = session.body["refresh_token"].as_str().unwrap().to_owned();
    let access = session.body["access_token"].as_str().unwrap().to_owned();

    let banned = app
        .admin(
            Method::PUT,
            &format!("/admin/users/{id}"),
            Some(json!({"ban_duration": "1h30m"})),
        )
        .await;
    assert_eq!(banned.status, 200, "{}", banned.text);
    let until = chrono::DateTime::parse_from_rfc3339(banned.body["banned_until"].as_str().unwrap())
        .unwrap();
    let ahead = until.timestamp() - chrono::Utc::now().timestamp();
    assert!((5300..=5400).contains(&ahead), "{ahead}");

    let sign_in = app.sign_in("ban@example.com", "secret123").await;
    assert!(sign_in.is(400, "user_banned"), "{}", sign_in.text);
    assert_eq!(sign_in.message(), "User is banned");
    let refreshed = app.refresh(&refresh).await;
    assert!(refreshed.is(400, "user_banned"), "{}", refreshed.text);
    assert_eq!(refreshed.message(), "Invalid Refresh Token: User Banned");
    let user = app.call(Method::GET, "/user", Some(&access), None).await;
    assert!(user.is(403, "user_banned"), "{}", user.text);

    let unbanned = app
        .admin(
            Method::PUT,
            &format!("/admin/users/{id}"),
            Some(json!({"ban_duration": "none"})),
        )
        .await;
    assert_eq!(unbanned.status, 200);
    assert!(unbanned.body["banned_until"].is_null(), "{}", unbanned.text);
    assert_eq!(app.refresh(&refresh).await.status, 200);
    assert_eq!(
        app.sign_in("ban@example.com", "secret123").await.status,
        200
    );
}

#[tokio::test]
async fn sign_out_scopes_and_deletion() {
    let app = spawn_app().await;
    let id = app.create_user("out@example.com", "secret123").await;
    let sessions: Vec<Reply> = {
        let mut v = Vec::new();
        for _ in 0..3 {
            v.push(app.sign_in("out@example.com", "secret123").await);
        }
        v
    };
    let access = |i: usize| {
        sessions[i].body["access_token"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let refresh = |i: usize| {
        sessions[i].body["refresh_token"]
            .as_str()
            .unwrap()
            .to_owned()
    };

    let bad = app
        .call(
            Method::POST,
            "/logout?scope=everything",
            Some(&access(0)),
            None,
        )
        .await;
    assert!(bad.is(400, "validation_failed"), "{}", bad.text);

    // others: the caller's session stays, the rest end.
    let others = app
        .call(Method::POST, "/logout?scope=others", Some(&access(0)), None)
        .await;
    assert_eq!(others.status, 204);
    assert_eq!(
        app.refresh(&refresh(1)).await.code(),
        "refresh_token_not_found"
    );
    let kept = app.refresh(&refresh(0)).await;
    assert_eq!(kept.status, 200, "{}", kept.text);

    // local: only the caller's.
    let s3 = app.sign_in("out@example.com", "secret123").await;
    let local = app
        .call(Method::POST, "/logout?scope=local", Some(&access(2)), None)
        .await;
    // Session 2 ended with "others" already: its token is refused.
    assert!(local.is(403, "session_not_found"), "{}", local.text);
    let s3_access = s3.body["access_token"].as_str().unwrap().to_owned();
    let local = app
        .call(Method::POST, "/logout?scope=local", Some(&s3_access), None)
        .await;
    assert_eq!(local.status, 204);
    assert_eq!(
        app.refresh(s3.body["refresh_token"].as_str().unwrap())
            .await
            .code(),
        "refresh_token_not_found"
    );
    let kept_refresh = kept.body["refresh_token"].as_str().unwrap().to_owned();
    assert_eq!(app.refresh(&kept_refresh).await.status, 200);

    // global (the default): every session.
    let s4 = app.sign_in("out@example.com", "secret123").await;
    let global = app
        .call(
            Method::POST,
            "/logout",
            Some(s4.body["access_token"].as_str().unwrap()),
            None,
        )
        .await;
    assert_eq!(global.status, 204);
    let count: i64 = {
        let reply = app
            .admin(Method::GET, &format!("/admin/users/{id}"), None)
            .await;
        assert_eq!(reply.status, 200);
        let listed = app.refresh(&kept_refresh).await;
        assert_eq!(listed.code(), "refresh_token_not_found");
        0
    };
    assert_eq!(count, 0);

    // Soft delete: the row stays hidden, the address is free again.
    let soft = app
        .admin(
            Method::DELETE,
            &format!("/admin/users/{id}"),
            Some(json!({"should_soft_delete": true})),
        )
        .await;
    assert_eq!(soft.status, 200, "{}", soft.text);
    assert!(
        app.admin(Method::GET, &format!("/admin/users/{id}"), None)
            .await
            .is(404, "user_not_found")
    );
    assert_eq!(
        app.sign_in("out@example.com", "secret123").await.code(),
        "invalid_credentials"
    );
    let reused = app.create_user("out@example.com", "secret123").await;
    assert_ne!(reused, id);
    // Hard delete.
    let hard = app
        .admin(Method::DELETE, &format!("/admin/users/{reused}"), None)
        .await;
    assert_eq!(hard.status, 200);
    assert!(
        app.admin(Method::DELETE, &format!("/admin/users/{reused}"), None)
            .await
            .is(404, "user_not_found")
    );
}

#[tokio::test]
async fn email_addresses_are_checked_as_the_platform_does_everywhere() {
    let app = spawn_app().await;
    let long = format!("{}@example.com", "a".repeat(244));
    let cases: [(&str, Value); 6] = [
        ("/signup", json!({"password": "secret123"})),
        ("/otp", json!({})),
        ("/recover", json!({})),
        ("/invite", json!({})),
        ("/admin/users", json!({"password": "secret123"})),
        ("/admin/generate_link", json!({"type": "magiclink"})),
    ];
    for (path, base) in cases {
        for (email, message) in [
            (
                "user@exa_mple.com",
                "Unable to validate email address: invalid format",
            ),
            (
                "user@-example.com",
                "Unable to validate email address: invalid format",
            ),
            (
                "üser@example.com",
                "Unable to validate email address: invalid format",
            ),
            (long.as_str(), "An email address is too long"),
        ] {
            let mut body = base.clone();
            body["email"] = json!(email);
            let reply = app.admin(Method::POST, path, Some(body)).await;
            assert!(
                reply.is(400, "validation_failed"),
                "{path} {email}: {}",
                reply.text
            );
            assert_eq!(reply.message(), message, "{path} {email}");
        }
    }
    let id = app.create_user("fine@example.com", "secret123").await;
    let update = app
        .admin(
            Method::PUT,
            &format!("/admin/users/{id}"),
            Some(json!({"email": "not valid@example.com"})),
        )
        .await;
    assert!(update.is(400, "validation_failed"), "{}", update.text);
    // What the platform's pattern allows is allowed.
    let odd = app
        .admin(
            Method::POST,
            "/admin/users",
            Some(json!({"email": "o'brien+x@mail.example-host.io", "password": "secret123"})),
        )
        .await;
    assert_eq!(odd.status, 200, "{}", odd.text);
}

// ------------------------------------------------------------ SAML

#[tokio::test]
async fn saml_sso_answers_disabled() {
    let app = spawn_app().await;
    for (method, path) in [
        (Method::POST, "/sso"),
        (Method::GET, "/sso/saml/metadata"),
        (Method::POST, "/sso/saml/acs"),
        (Method::GET, "/sso/saml/acs"),
    ] {
        let reply = app
            .call(
                method.clone(),
                path,
                None,
                Some(json!({"domain": "corp.example"})),
            )
            .await;
        assert!(
            reply.is(404, "saml_provider_disabled"),
            "{path}: {}",
            reply.text
        );
        assert_eq!(reply.message(), "SAML 2.0 is disabled");
    }
    let list = app.admin(Method::GET, "/admin/sso/providers", None).await;
    assert_eq!(list.status, 200);
    assert_eq!(list.body, json!({"items": []}));
    let one = app
        .admin(
            Method::GET,
            &format!("/admin/sso/providers/{}", uuid::Uuid::new_v4()),
            None,
        )
        .await;
    assert!(one.is(404, "sso_provider_not_found"));
    assert_eq!(one.message(), "SSO Identity Provider not found");
    let wrong_type = app
        .admin(
            Method::POST,
            "/admin/sso/providers",
            Some(json!({"type": "oidc"})),
        )
        .await;
    assert!(wrong_type.is(400, "validation_failed"));
    assert_eq!(
        wrong_type.message(),
        "Only 'saml' supported for SSO provider type"
    );
    let http_url = app
        .admin(
            Method::POST,
            "/admin/sso/providers",
            Some(json!({"type": "saml", "metadata_url": "http://idp.example/metadata"})),
        )
        .await;
    assert_eq!(http_url.message(), "metadata_url is not a HTTPS URL");
    let create = app
        .admin(
            Method::POST,
            "/admin/sso/providers",
            Some(json!({"type": "saml", "metadata_url": "https://idp.example/metadata"})),
        )
        .await;
    assert!(create.is(404, "saml_provider_disabled"), "{}", create.text);
    // Admin routes are for the service role only.
    let anon = app
        .call(Method::GET, "/admin/sso/providers", None, None)
        .await;
    assert_eq!(anon.status, 403);
}

// ------------------------------------------------------------ rate limits

fn limited(tweak: impl FnOnce(&mut RateLimits)) -> impl FnOnce(&mut AuthConfig) {
    move |c| {
        let mut limits = RateLimits::unlimited();
        tweak(&mut limits);
        c.rate_limits = limits;
    }
}

#[tokio::test]
async fn otp_limit_covers_recover_resend_and_otp_per_client() {
    let app = spawn_app_with(limited(|l| l.recover = 3)).await;
    let paths = [
        ("/recover", json!({"email": "a@example.com"})),
        (
            "/otp",
            json!({"email": "b@example.com", "create_user": false}),
        ),
        (
            "/resend",
            json!({"type": "signup", "email": "c@example.com"}),
        ),
    ];
    for (path, body) in &paths {
        assert_eq!(app.post(path, body.clone()).await.status, 200, "{path}");
    }
    let over = app
        .post("/recover", json!({"email": "d@example.com"}))
        .await;
    assert!(over.is(429, "over_request_rate_limit"), "{}", over.text);
    assert_eq!(over.message(), "Request rate limit reached");
    // Another client is counted apart.
    let other = app
        .call_headers(
            Method::POST,
            "/recover",
            None,
            Some(json!({"email": "d@example.com"})),
            &[("x-forwarded-for", "203.0.113.7")],
        )
        .await;
    assert_eq!(other.status, 200, "{}", other.text);
}

#[tokio::test]
async fn email_sent_limit_is_for_the_whole_instance() {
    let app = spawn_app_with(limited(|l| {
        l.email_sent = Rate {
            events: 2,
            over: Duration::from_secs(3600),
        };
    }))
    .await;
    for who in ["one", "two"] {
        let reply = app
            .post("/otp", json!({"email": format!("{who}@example.com")}))
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text);
    }
    let third = app
        .post("/otp", json!({"email": "three@example.com"}))
        .await;
    assert!(
        third.is(429, "over_email_send_rate_limit"),
        "{}",
        third.text
    );
    assert_eq!(third.message(), "email rate limit exceeded");
    assert!(app.mail_to("three@example.com").await.is_empty());
    let invite = app
        .admin(
            Method::POST,
            "/invite",
            Some(json!({"email": "four@example.com"})),
        )
        .await;
    assert!(
        invite.is(429, "over_email_send_rate_limit"),
        "{}",
        invite.text
    );
    // Links made by the admin are not mail: not limited.
    let link = app
        .admin(
            Method::POST,
            "/admin/generate_link",
            Some(json!({"type": "magiclink", "email": "five@example.com"})),
        )
        .await;
    assert_eq!(link.status, 200);
}

#[tokio::test]
async fn verify_token_refresh_and_sign_in_limits() {
    let app = spawn_app_with(limited(|l| {
        l.verify = 2;
        l.token_refresh = 2;
        l.sign_in_sign_ups = 2;
    }))
    .await;
    for _ in 0..2 {
        let reply = app
            .post("/verify", json!({"type": "recovery", "token_hash": "nope"}))
            .await;
        assert_eq!(reply.status, 403, "{}", reply.text);
    }
    let verify = app
        .post("/verify", json!({"type": "recovery", "token_hash": "nope"}))
        .await;
    assert!(verify.is(429, "over_request_rate_limit"), "{}", verify.text);

    for _ in 0..2 {
        assert_eq!(app.refresh("nope").await.code(), "refresh_token_not_found");
    }
    assert!(app.refresh("nope").await.is(429, "over_request_rate_limit"));

    for _ in 0..2 {
        assert_eq!(
            app.sign_in("x@example.com", "wrong-pass").await.code(),
            "invalid_credentials"
        );
    }
    assert!(
        app.post(
            "/signup",
            json!({"email": "s@example.com", "password": "secret123"})
        )
        .await
        .is(429, "over_request_rate_limit")
    );
}

#[tokio::test]
async fn anonymous_users_limit() {
    let app = spawn_app_with(|c| {
        c.anonymous_users = true;
        c.rate_limits = RateLimits {
            anonymous_users: 2,
            ..RateLimits::unlimited()
        };
    })
    .await;
    for _ in 0..2 {
        let reply = app.post("/signup", json!({})).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
    }
    let over = app.post("/signup", json!({})).await;
    assert!(over.is(429, "over_request_rate_limit"), "{}", over.text);
    // E-mail sign-ups are not anonymous ones.
    let email = app
        .post(
            "/signup",
            json!({"email": "e@example.com", "password": "secret123"}),
        )
        .await;
    assert_eq!(email.status, 200, "{}", email.text);
}

#[tokio::test]
async fn rate_limit_header_names_the_client() {
    let app = spawn_app_with(limited(|l| {
        l.token_refresh = 1;
        l.header = Some("x-client-id".into());
    }))
    .await;
    let with = |id: &'static str| [("x-client-id", id)];
    let refresh = |headers: [(&'static str, &'static str); 1]| {
        let app = &app;
        async move {
            app.call_headers(
                Method::POST,
                "/token?grant_type=refresh_token",
                None,
                Some(json!({"refresh_token": "nope"})),
                &headers,
            )
            .await
        }
    };
    assert_eq!(refresh(with("alice, proxy")).await.status, 400);
    assert!(
        refresh(with("alice"))
            .await
            .is(429, "over_request_rate_limit")
    );
    // Another value is another client, whatever the address.
    assert_eq!(refresh(with("bob")).await.status, 400);
    // Without the header, as the platform: not limited.
    for _ in 0..3 {
        assert_eq!(app.refresh("nope").await.status, 400);
    }
}
