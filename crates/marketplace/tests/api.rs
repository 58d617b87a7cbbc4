//! The function host over HTTP against a real PostgreSQL (a fresh database
//! per test, every migration set of the project), with the storage service
//! beside it, the simulated payment provider, and async-stripe talking to a
//! local fake Stripe (wiremock) that checks what it receives.

#![allow(clippy::unwrap_used)]

mod support;

use std::collections::HashMap;

use plinth_marketplace::{FunctionsConfig, sign_webhook};
use reqwest::StatusCode;
use serde_json::{Value, json};
use support::{Services, TestApp, now};
use uuid::Uuid;
use wiremock::matchers::{header, method, path};
use wiremock::{Match, Mock, MockServer, Request, ResponseTemplate};

const SECRET: &str = "functions-tests-secret-of-at-least-32-chars";
const WEBHOOK_SECRET: &str = "whsec_test_functions_webhook_secret";
const STRIPE_KEY: &str = "sk_test_plinth_functions";

fn config() -> FunctionsConfig {
    FunctionsConfig {
        stripe_webhook_secret: Some(WEBHOOK_SECRET.into()),
        ..support::config()
    }
}

async fn spawn_app(config: FunctionsConfig) -> TestApp {
    support::spawn_app(SECRET, Services::ApiFunctionsAndStorage, config).await
}

impl TestApp {
    async fn template(&self, owner: Uuid, cents: i32, file: Option<&str>) -> Uuid {
        sqlx::query_scalar(
            "insert into public.templates (user_id, title, price, price_in_cents, template_file_url) \
             values ($1, 'A template', $2::numeric / 100, $2, $3) returning id",
        )
        .bind(owner)
        .bind(cents)
        .bind(file)
        .fetch_one(self.pool())
        .await
        .unwrap()
    }

    /// A published template whose download is a link elsewhere (its
    /// `template_url`; a file is always a stored object of its creator).
    async fn template_with_link(&self, owner: Uuid, cents: i32, link: &str) -> Uuid {
        sqlx::query_scalar(
            "insert into public.templates (user_id, title, price, price_in_cents, template_url) \
             values ($1, 'A template', $2::numeric / 100, $2, $3) returning id",
        )
        .bind(owner)
        .bind(cents)
        .bind(link)
        .fetch_one(self.pool())
        .await
        .unwrap()
    }

    async fn invoke(&self, function: &str, body: Value) -> (StatusCode, Value) {
        self.post(&format!("/functions/v1/{function}"), None, body)
            .await
    }

    async fn upload(&self, token: &str, bucket: &str, name: &str, bytes: &'static [u8]) {
        let response = self
            .http
            .post(format!("{}/storage/v1/object/{bucket}/{name}", self.base))
            .header("apikey", &self.anon)
            .bearer_auth(token)
            .header("content-type", "application/zip")
            .body(bytes)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{}", response.text().await.unwrap());
    }

    async fn get(&self, url: &str, token: Option<&str>) -> (StatusCode, bytes::Bytes) {
        let url = if url.starts_with("http") {
            url.to_owned()
        } else {
            format!("{}{url}", self.base)
        };
        let mut request = self.http.get(url).header("apikey", &self.anon);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().await.unwrap();
        (response.status(), response.bytes().await.unwrap())
    }

    async fn order_status(&self, order: &str) -> String {
        sqlx::query_scalar("select payment_status from public.orders where id = $1::uuid")
            .bind(order)
            .fetch_one(self.pool())
            .await
            .unwrap()
    }

    async fn mails_to(&self, to: &str) -> Vec<String> {
        sqlx::query_scalar(
            "select body_text from auth.mail_messages where recipient = $1 order by created_at",
        )
        .bind(to)
        .fetch_all(self.pool())
        .await
        .unwrap()
    }

    async fn webhook(&self, payload: &str, signature: Option<String>) -> (StatusCode, Value) {
        let mut request = self
            .http
            .post(format!("{}/api/stripe/webhook", self.base))
            .header("content-type", "application/json")
            .body(payload.to_owned());
        if let Some(signature) = signature {
            request = request.header("stripe-signature", signature);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

/// The token of a `/download-secure/{order}?token=` link in a mail.
fn link_token(mail: &str, order: &str) -> String {
    let marker = format!("/download-secure/{order}?token=");
    let start = mail.find(&marker).unwrap() + marker.len();
    mail[start..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect()
}

fn error_of(body: &Value) -> &str {
    body["error"].as_str().unwrap_or_default()
}

// ------------------------------------------------------------------- host

#[tokio::test]
async fn the_host_checks_tokens_methods_and_names() {
    let app = spawn_app(config()).await;
    let (status, body) = app
        .post(
            "/functions/v1/subscribe-to-newsletter",
            Some("not-a-jwt"),
            json!({}),
        )
        .await;
    assert_eq!(status, 401);
    assert_eq!(error_of(&body), "Invalid JWT");
    let expired = app.jwt.sign(
        &json!({"role": "authenticated", "sub": Uuid::new_v4().to_string(), "exp": now() - 10}),
    );
    let (status, body) = app
        .post("/functions/v1/validate-download", Some(&expired), json!({}))
        .await;
    assert_eq!(status, 401);
    assert_eq!(error_of(&body), "JWT expired");
    let (status, body) = app.invoke("no-such-function", json!({})).await;
    assert_eq!(status, 404);
    assert_eq!(error_of(&body), "Function not found");
    let response = app
        .http
        .get(format!("{}/functions/v1/validate-download", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
    assert!(response.json::<Value>().await.unwrap()["error"].is_string());
    let response = app
        .http
        .post(format!("{}/functions/v1/validate-download", app.base))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

// ------------------------------------------------------------- newsletter

#[tokio::test]
async fn newsletter_subscriptions_are_idempotent_per_email() {
    let app = spawn_app(config()).await;
    let (status, body) = app
        .invoke("subscribe-to-newsletter", json!({"email": "a@example.com"}))
        .await;
    assert_eq!(status, 400);
    assert!(error_of(&body).starts_with("Missing required parameters"));
    let (status, _) = app
        .invoke(
            "subscribe-to-newsletter",
            json!({"email": "nope", "name": "A"}),
        )
        .await;
    assert_eq!(status, 400);
    let (status, body) = app
        .invoke(
            "subscribe-to-newsletter",
            json!({"email": "a@example.com", "name": "A"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"success": true}));
    let (status, body) = app
        .invoke(
            "subscribe-to-newsletter",
            json!({"email": "A@Example.com", "Name": "A"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"success": true}),
        "the same answer as a new address"
    );
    let count: i64 = sqlx::query_scalar("select count(*) from public.newsletter_subscribers")
        .fetch_one(app.pool())
        .await
        .unwrap();
    assert_eq!(count, 1);
}

// ----------------------------------------------------------- view tracking

#[tokio::test]
async fn views_count_once_per_visitor_per_window() {
    let app = spawn_app(config()).await;
    let (creator, _) = app.user("creator@example.com").await;
    let (_, viewer_token) = app.user("viewer@example.com").await;
    let template = app.template(creator, 0, None).await;
    let view =
        |ua: &'static str| json!({"template_id": template, "ip_address": null, "user_agent": ua});

    let (status, _) = app
        .invoke("track-template-view", json!({"ip_address": "1.2.3.4"}))
        .await;
    assert_eq!(status, 400);
    let (status, body) = app
        .invoke(
            "track-template-view",
            json!({"template_id": Uuid::new_v4()}),
        )
        .await;
    assert_eq!(status, 404);
    assert_eq!(error_of(&body), "Template not found");

    let (status, body) = app.invoke("track-template-view", view("Browser A")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["counted"], true);
    // Reloads and scripts repeating the same visit do not inflate the count.
    for _ in 0..3 {
        let (_, body) = app.invoke("track-template-view", view("Browser A")).await;
        assert_eq!(body["counted"], false);
    }
    // Nor does a request claiming another agent or address: an anonymous
    // visitor is the client's address as the server sees it.
    let (_, body) = app.invoke("track-template-view", view("Browser B")).await;
    assert_eq!(body["counted"], false);
    let (_, body) = app
        .invoke(
            "track-template-view",
            json!({"template_id": template, "ip_address": "1.2.3.4"}),
        )
        .await;
    assert_eq!(body["counted"], false);
    // A server with the service key may name the visitor it tracks for.
    let service = app.jwt.api_key("service_role", now(), now() + 3600);
    let (_, body) = app
        .post(
            "/functions/v1/track-template-view",
            Some(&service),
            json!({"template_id": template, "ip_address": "1.2.3.4"}),
        )
        .await;
    assert_eq!(body["counted"], true);
    for expected in [true, false] {
        let (_, body) = app
            .post(
                "/functions/v1/track-template-view",
                Some(&viewer_token),
                view("Browser A"),
            )
            .await;
        assert_eq!(body["counted"], expected);
    }
    assert_eq!(body_total(&app, template).await, 3);
    // Raw addresses and agents are never stored.
    let stored: Vec<String> = sqlx::query_scalar("select viewer_hash from public.template_views")
        .fetch_all(app.pool())
        .await
        .unwrap();
    assert!(
        stored
            .iter()
            .all(|h| h.len() == 64 && !h.contains("Browser"))
    );
    // Once the window has passed, the visitor counts again.
    sqlx::query("update public.template_views set created_at = now() - interval '31 minutes'")
        .execute(app.pool())
        .await
        .unwrap();
    let (_, body) = app.invoke("track-template-view", view("Browser A")).await;
    assert_eq!(body["counted"], true);
    assert_eq!(body["total_views"], 4);
    // Unpublished templates are not tracked.
    sqlx::query("update public.templates set is_published = false where id = $1")
        .bind(template)
        .execute(app.pool())
        .await
        .unwrap();
    let (status, _) = app.invoke("track-template-view", view("Browser C")).await;
    assert_eq!(status, 404);
}

async fn body_total(app: &TestApp, template: Uuid) -> i32 {
    sqlx::query_scalar("select total_views from public.templates where id = $1")
        .bind(template)
        .fetch_one(app.pool())
        .await
        .unwrap()
}

// ------------------------------------------------------------- free orders

#[tokio::test]
async fn free_orders_count_downloads_mail_a_link_and_validate() {
    let app = spawn_app(config()).await;
    let (creator, creator_token) = app.user("creator@example.com").await;
    let name = format!("{creator}/files/free.zip");
    app.upload(&creator_token, "templates", &name, b"free bytes")
        .await;
    let file_url = format!("{}/storage/v1/object/public/templates/{name}", app.base);
    let free = app.template(creator, 0, Some(&file_url)).await;
    // (A paid template's file is in the private bucket: this one has none.)
    let paid = app.template(creator, 900, None).await;

    let (status, body) = app
        .invoke("create-free-order", json!({"product_id": free}))
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        error_of(&body),
        "Missing required parameters: product_id and/or buyer_email."
    );
    let (status, _) = app
        .invoke(
            "create-free-order",
            json!({"product_id": Uuid::new_v4(), "buyer_email": "b@example.com"}),
        )
        .await;
    assert_eq!(status, 404);
    let (status, _) = app
        .invoke(
            "create-free-order",
            json!({"product_id": paid, "buyer_email": "b@example.com"}),
        )
        .await;
    assert_eq!(status, 400, "a paid template is not given away");

    let (status, body) = app
        .invoke(
            "create-free-order",
            json!({"product_id": free, "buyer_email": "b@example.com"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let order = body["orderId"].as_str().unwrap().to_owned();
    let url = body["downloadUrl"].as_str().unwrap();
    assert!(url.contains("/storage/v1/object/sign/templates/"), "{url}");
    let (status, bytes) = app.get(url, None).await;
    assert_eq!(status, 200);
    assert_eq!(&bytes[..], b"free bytes");
    let downloads: i32 =
        sqlx::query_scalar("select downloads_count from public.templates where id = $1")
            .bind(free)
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_eq!(downloads, 1);
    assert_eq!(app.order_status(&order).await, "free");

    let mails = app.mails_to("b@example.com").await;
    assert_eq!(mails.len(), 1);
    assert!(mails[0].contains(&format!("http://app.test/download-secure/{order}?token=")));
    let token = link_token(&mails[0], &order);
    // Only the hash is stored.
    let stored: String =
        sqlx::query_scalar("select download_token_hash from public.orders where id = $1::uuid")
            .bind(&order)
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_ne!(stored, token);
    assert_eq!(stored.len(), 64);

    let (status, body) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": token}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["isPaid"], true);
    assert_eq!(body["price_in_cents"], 0);
    assert_eq!(body["buyer_email"], "b@example.com");
    assert!(
        body["downloadUrl"]
            .as_str()
            .unwrap()
            .contains("/object/sign/templates/")
    );
}

#[tokio::test]
async fn validate_download_errors() {
    let app = spawn_app(config()).await;
    let (creator, _) = app.user("creator@example.com").await;
    let free = app
        .template_with_link(creator, 0, "https://cdn.example/free.zip")
        .await;
    let (_, body) = app
        .invoke(
            "create-free-order",
            json!({"product_id": free, "buyer_email": "b@example.com"}),
        )
        .await;
    assert_eq!(body["downloadUrl"], "https://cdn.example/free.zip");
    let order = body["orderId"].as_str().unwrap().to_owned();

    for missing in [
        json!({}),
        json!({"orderId": order}),
        json!({"token": "abc"}),
        json!({"orderId": "", "token": "x"}),
    ] {
        let (status, body) = app.invoke("validate-download", missing).await;
        assert_eq!(status, 400);
        assert_eq!(error_of(&body), "Missing order ID or token.");
    }
    for unknown in [Uuid::new_v4().to_string(), "not-a-uuid".to_owned()] {
        let (status, body) = app
            .invoke(
                "validate-download",
                json!({"orderId": unknown, "token": "abc"}),
            )
            .await;
        assert_eq!(status, 404);
        assert_eq!(
            error_of(&body),
            "Order not found or you do not have access."
        );
    }
    let (status, body) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": "wrong"}),
        )
        .await;
    assert_eq!(status, 403);
    assert_eq!(error_of(&body), "Invalid or expired download link.");
    // Another order's valid token does not open this one.
    let (_, other) = app
        .invoke(
            "create-free-order",
            json!({"product_id": free, "buyer_email": "c@example.com"}),
        )
        .await;
    let other_order = other["orderId"].as_str().unwrap();
    let other_token = link_token(&app.mails_to("c@example.com").await[0], other_order);
    let (status, _) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": other_token}),
        )
        .await;
    assert_eq!(status, 403);
}

// ---------------------------------------- simulated purchase, private files

#[tokio::test]
async fn simulated_purchase_releases_a_private_file_only_after_payment() {
    let app = spawn_app(config()).await;
    let (creator, creator_token) = app.user("creator@example.com").await;
    let (buyer, buyer_token) = app.user("buyer@example.com").await;
    let (_, stranger_token) = app.user("stranger@example.com").await;
    sqlx::query("insert into public.payment_accounts (user_id, stripe_account_id) values ($1, 'acct_creator')")
        .bind(creator)
        .execute(app.pool())
        .await
        .unwrap();
    let name = format!("{creator}/files/paid.zip");
    app.upload(&creator_token, "template-files", &name, b"paid bytes")
        .await;
    let template = app
        .template(creator, 1500, Some(&format!("template-files/{name}")))
        .await;

    let (status, body) = app
        .post(
            "/functions/v1/create-payment-intent",
            Some(&buyer_token),
            json!({"buyerEmail": "buyer@example.com"}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        error_of(&body),
        "Missing required parameters: templateId and/or buyerEmail."
    );
    let (status, _) = app
        .post(
            "/functions/v1/create-payment-intent",
            Some(&buyer_token),
            json!({"templateId": template, "buyerEmail": "buyer@example.com", "buyerId": Uuid::new_v4()}),
        )
        .await;
    assert_eq!(status, 403, "a buyerId that is not the caller");

    // The client's amount is ignored: the price comes from the database.
    let (status, body) = app
        .post(
            "/functions/v1/create-payment-intent",
            Some(&buyer_token),
            json!({"templateId": template, "buyerEmail": "buyer@example.com", "buyerId": buyer, "amount": 1}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["provider"], "simulated");
    assert_eq!(body["amount"], 1500);
    let order = body["orderId"].as_str().unwrap().to_owned();
    let token = body["downloadToken"].as_str().unwrap().to_owned();
    let secret = body["clientSecret"].as_str().unwrap().to_owned();
    let intent: String =
        sqlx::query_scalar("select payment_intent_id from public.orders where id = $1::uuid")
            .bind(&order)
            .fetch_one(app.pool())
            .await
            .unwrap();
    let (amount, destination, fee): (i64, Option<String>, Option<i64>) = sqlx::query_as(
        "select amount, destination, application_fee from functions.simulated_payments where id = $1",
    )
    .bind(&intent)
    .fetch_one(app.pool())
    .await
    .unwrap();
    assert_eq!(
        (amount, destination.as_deref(), fee),
        (1500, Some("acct_creator"), Some(150))
    );
    let buyer_of: Option<Uuid> =
        sqlx::query_scalar("select buyer_id from public.orders where id = $1::uuid")
            .bind(&order)
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_eq!(buyer_of, Some(buyer));

    // Not paid yet: 402, for the buyer as for anyone.
    let (status, body) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": token}),
        )
        .await;
    assert_eq!(status, 402);
    assert_eq!(
        error_of(&body),
        "Payment not completed. Please complete your purchase first."
    );
    let (status, _) = app
        .post(
            "/api/paid-download-confirmation",
            None,
            json!({"orderId": order, "email": "buyer@example.com"}),
        )
        .await;
    assert_eq!(status, 402);

    // The file is out of reach by every storage route for everyone but its
    // creator, whatever the order's state.
    assert_file_is_private(
        &app,
        &name,
        &[None, Some(&buyer_token), Some(&stranger_token)],
    )
    .await;
    let (status, bytes) = app
        .get(
            &format!("/storage/v1/object/authenticated/template-files/{name}"),
            Some(&creator_token),
        )
        .await;
    assert_eq!(
        (status, &bytes[..]),
        (StatusCode::OK, &b"paid bytes"[..]),
        "its creator reads it"
    );

    // The local confirmation page, then the confirmation.
    let page = app
        .get(body_confirm_url(&app, &intent, &secret).as_str(), None)
        .await;
    assert_eq!(page.0, 200);
    assert!(String::from_utf8_lossy(&page.1).contains("15.00 USD"));
    let (status, _) = app
        .post(
            &format!("/api/simulated-payments/{intent}/confirm"),
            None,
            json!({"client_secret": "wrong"}),
        )
        .await;
    assert_eq!(status, 403);
    assert_eq!(app.order_status(&order).await, "pending");
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let response = no_redirects
        .post(format!(
            "{}/api/simulated-payments/{intent}/confirm",
            app.base
        ))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!(
            "client_secret={secret}&return_url=%2Fdownload-secure%2F{order}"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        303,
        "back to the app's secure download page"
    );
    assert_eq!(
        response.headers()["location"],
        format!("http://app.test/download-secure/{order}").as_str(),
        "a path of the site, resolved against the site"
    );
    assert_eq!(app.order_status(&order).await, "paid");

    // Paid: a signed, expiring URL of the private object, and the bytes.
    let (status, body) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": token}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["isPaid"], true);
    assert_eq!(body["price_in_cents"], 1500);
    let url = body["downloadUrl"].as_str().unwrap();
    assert!(
        url.starts_with(&format!(
            "{}/storage/v1/object/sign/template-files/",
            app.base
        )),
        "{url}"
    );
    let (status, bytes) = app.get(url, None).await;
    assert_eq!((status, &bytes[..]), (StatusCode::OK, &b"paid bytes"[..]));
    // Paying opened the signed link only; every other route stays shut.
    assert_file_is_private(
        &app,
        &name,
        &[None, Some(&buyer_token), Some(&stranger_token)],
    )
    .await;
    let (status, _) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": "x".repeat(43)}),
        )
        .await;
    assert_eq!(status, 403);
    // The order never records the private path.
    let recorded: Option<String> =
        sqlx::query_scalar("select download_url from public.orders where id = $1::uuid")
            .bind(&order)
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_eq!(recorded, None);

    // The receipt: checked e-mail, once, with a link of its own.
    let (status, body) = app
        .post(
            "/api/paid-download-confirmation",
            None,
            json!({"orderId": order}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(error_of(&body), "Please enter your email.");
    let (status, body) = app
        .post(
            "/api/paid-download-confirmation",
            None,
            json!({"email": "buyer@example.com"}),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(error_of(&body), "Missing order ID.");
    let (status, body) = app
        .post(
            "/api/paid-download-confirmation",
            None,
            json!({"orderId": order, "email": "someone@example.com"}),
        )
        .await;
    assert_eq!(status, 404);
    assert_eq!(
        error_of(&body),
        "Order not found or you do not have access."
    );
    let (status, body) = app
        .post(
            "/api/paid-download-confirmation",
            None,
            json!({"orderId": order, "email": "Buyer@example.com"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["sent"], true);
    let (_, body) = app
        .post(
            "/api/paid-download-confirmation",
            None,
            json!({"orderId": order, "email": "buyer@example.com"}),
        )
        .await;
    assert_eq!(body["alreadySent"], true);
    let mails = app.mails_to("buyer@example.com").await;
    assert_eq!(mails.len(), 1);
    assert!(mails[0].contains("15.00 USD"));
    let receipt_token = link_token(&mails[0], &order);
    let (status, _) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": receipt_token}),
        )
        .await;
    assert_eq!(status, 200);
}

/// The workspace-app link of a paid template is what its buyer pays for: it
/// is never in the template row others read, and validate-download hands it
/// out once the order is paid.
#[tokio::test]
async fn a_paid_templates_link_is_released_only_after_payment() {
    let app = spawn_app(config()).await;
    let (creator, _) = app.user("link-creator@example.com").await;
    let link = "https://workspace.example/duplicate/paid-planner";
    let template: Uuid = sqlx::query_scalar(
        "insert into public.templates (user_id, title, price, price_in_cents, template_url) \
         values ($1, 'Paid link', 15, 1500, $2) returning id",
    )
    .bind(creator)
    .bind(link)
    .fetch_one(app.pool())
    .await
    .unwrap();
    let visible: Option<String> =
        sqlx::query_scalar("select template_url from public.templates where id = $1")
            .bind(template)
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_eq!(visible, None, "the template row never carries a paid link");

    let (status, body) = app
        .invoke(
            "create-payment-intent",
            json!({"templateId": template, "buyerEmail": "linkbuyer@example.com"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let order = body["orderId"].as_str().unwrap().to_owned();
    let token = body["downloadToken"].as_str().unwrap().to_owned();
    let secret = body["clientSecret"].as_str().unwrap().to_owned();
    let (status, _) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": token}),
        )
        .await;
    assert_eq!(status, 402, "not before payment");
    let intent: String =
        sqlx::query_scalar("select payment_intent_id from public.orders where id = $1::uuid")
            .bind(&order)
            .fetch_one(app.pool())
            .await
            .unwrap();
    let (status, body) = app
        .post(
            &format!("/api/simulated-payments/{intent}/confirm"),
            None,
            json!({"client_secret": secret}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": token}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["downloadUrl"], link);

    // Made free, the link is public again, as every free template's is.
    sqlx::query("update public.templates set price = 0, price_in_cents = 0 where id = $1")
        .bind(template)
        .execute(app.pool())
        .await
        .unwrap();
    let visible: Option<String> =
        sqlx::query_scalar("select template_url from public.templates where id = $1")
            .bind(template)
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_eq!(visible.as_deref(), Some(link));
    let stored: i64 = sqlx::query_scalar(
        "select count(*) from public.paid_template_links where template_id = $1",
    )
    .bind(template)
    .fetch_one(app.pool())
    .await
    .unwrap();
    assert_eq!(stored, 0);
}

/// A signed-in buyer opens their own paid order from their library without
/// the checkout's token; nobody else does, and the token still works for all.
#[tokio::test]
async fn the_signed_in_buyer_needs_no_token() {
    let app = spawn_app(config()).await;
    let (creator, _) = app.user("own-creator@example.com").await;
    let (buyer, buyer_token) = app.user("own-buyer@example.com").await;
    let (_, stranger_token) = app.user("own-stranger@example.com").await;
    let template = app
        .template_with_link(creator, 900, "https://cdn.example/own.zip")
        .await;
    let (status, body) = app
        .post(
            "/functions/v1/create-payment-intent",
            Some(&buyer_token),
            json!({"templateId": template, "buyerEmail": "own-buyer@example.com", "buyerId": buyer}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let order = body["orderId"].as_str().unwrap().to_owned();
    let secret = body["clientSecret"].as_str().unwrap().to_owned();
    let by_session = json!({"orderId": order});

    let (status, _) = app
        .post(
            "/functions/v1/validate-download",
            Some(&buyer_token),
            by_session.clone(),
        )
        .await;
    assert_eq!(status, 402, "not before payment");
    let intent: String =
        sqlx::query_scalar("select payment_intent_id from public.orders where id = $1::uuid")
            .bind(&order)
            .fetch_one(app.pool())
            .await
            .unwrap();
    let (status, _) = app
        .post(
            &format!("/api/simulated-payments/{intent}/confirm"),
            None,
            json!({"client_secret": secret}),
        )
        .await;
    assert_eq!(status, 200);

    let (status, body) = app
        .post(
            "/functions/v1/validate-download",
            Some(&buyer_token),
            by_session.clone(),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["downloadUrl"], "https://cdn.example/own.zip");
    let (status, body) = app
        .post(
            "/functions/v1/validate-download",
            Some(&stranger_token),
            by_session.clone(),
        )
        .await;
    assert_eq!(status, 403, "another user: {body}");
    assert_eq!(error_of(&body), "Invalid or expired download link.");
    let (status, body) = app.invoke("validate-download", by_session).await;
    assert_eq!(status, 400, "no session, no token: {body}");
    assert_eq!(error_of(&body), "Missing order ID or token.");
}

fn body_confirm_url(app: &TestApp, intent: &str, secret: &str) -> String {
    format!(
        "{}/api/simulated-payments/{intent}?client_secret={secret}",
        app.base
    )
}

/// Every storage route refuses `name` of the private bucket to each caller
/// (`None`: the anon key only).
async fn assert_file_is_private(app: &TestApp, name: &str, callers: &[Option<&str>]) {
    for token in callers {
        for route in ["public", "authenticated"] {
            let (status, bytes) = app
                .get(
                    &format!("/storage/v1/object/{route}/template-files/{name}"),
                    *token,
                )
                .await;
            assert_ne!(status, 200, "{route} download by {token:?}");
            assert!(!bytes.windows(10).any(|w| w == b"paid bytes"));
        }
        let (status, _) = app
            .get(&format!("/storage/v1/object/template-files/{name}"), *token)
            .await;
        assert_ne!(status, 200);
        let (status, body) = app
            .post(
                &format!("/storage/v1/object/sign/template-files/{name}"),
                *token,
                json!({"expiresIn": 60}),
            )
            .await;
        assert!(
            body.get("signedURL").is_none(),
            "signing by {token:?}: {status} {body}"
        );
        let (_, body) = app
            .post(
                "/storage/v1/object/sign/template-files",
                *token,
                json!({"expiresIn": 60, "paths": [name]}),
            )
            .await;
        assert!(
            body.as_array()
                .map(|a| a.iter().all(|e| e["signedURL"].is_null()))
                .unwrap_or(true),
            "{body}"
        );
        let folder = name.rsplit_once('/').unwrap().0;
        let (_, body) = app
            .post(
                "/storage/v1/object/list/template-files",
                *token,
                json!({"prefix": folder}),
            )
            .await;
        assert!(
            body.as_array().map(Vec::is_empty).unwrap_or(true),
            "list by {token:?}: {body}"
        );
    }
    // A signed URL minted for another object does not open this one.
    let creator_folder = name.split('/').next().unwrap();
    let forged = format!(
        "{}/storage/v1/object/sign/template-files/{name}?token={}",
        app.base,
        app.jwt.sign(&json!({"url": format!("templates/{creator_folder}/other.zip"), "scope": "download", "exp": now() + 60}))
    );
    let (status, _) = app.get(&forged, None).await;
    assert_ne!(status, 200);
}

// ----------------------------------------------------------------- webhook

async fn pending_order(app: &TestApp, cents: i32) -> (String, String) {
    let (creator, _) = app
        .user(&format!("c{}@example.com", Uuid::new_v4().simple()))
        .await;
    let template = app
        .template_with_link(creator, cents, "https://cdn.example/p.zip")
        .await;
    let (status, body) = app
        .invoke(
            "create-payment-intent",
            json!({"templateId": template, "buyerEmail": "g@example.com"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let order = body["orderId"].as_str().unwrap().to_owned();
    let intent: String =
        sqlx::query_scalar("select payment_intent_id from public.orders where id = $1::uuid")
            .bind(&order)
            .fetch_one(app.pool())
            .await
            .unwrap();
    (order, intent)
}

fn event(kind: &str, intent: &str, amount: i64, order: &str) -> String {
    json!({
        "id": format!("evt_{}", Uuid::new_v4().simple()),
        "object": "event",
        "type": kind,
        "data": {"object": {"id": intent, "object": "payment_intent", "amount": amount,
                             "amount_received": amount, "metadata": {"order_id": order}}}
    })
    .to_string()
}

#[tokio::test]
async fn the_webhook_verifies_signatures_and_is_idempotent() {
    let app = spawn_app(config()).await;
    let (order, intent) = pending_order(&app, 2000).await;
    let payload = event("payment_intent.succeeded", &intent, 2000, &order);

    let (status, _) = app.webhook(&payload, None).await;
    assert_eq!(status, 400, "no signature");
    let (status, _) = app
        .webhook(
            &payload,
            Some(sign_webhook(payload.as_bytes(), "whsec_wrong", now())),
        )
        .await;
    assert_eq!(status, 400, "wrong secret");
    let (status, _) = app
        .webhook(
            &payload,
            Some(sign_webhook(
                payload.as_bytes(),
                WEBHOOK_SECRET,
                now() - 301,
            )),
        )
        .await;
    assert_eq!(status, 400, "outside the tolerance");
    let tampered = payload.replace("2000", "1");
    let (status, _) = app
        .webhook(
            &tampered,
            Some(sign_webhook(payload.as_bytes(), WEBHOOK_SECRET, now())),
        )
        .await;
    assert_eq!(status, 400, "payload changed after signing");
    assert_eq!(app.order_status(&order).await, "pending");

    // A signed event whose amount is not the order's changes nothing.
    let short = event("payment_intent.succeeded", &intent, 1999, &order);
    let (status, body) = app
        .webhook(
            &short,
            Some(sign_webhook(short.as_bytes(), WEBHOOK_SECRET, now())),
        )
        .await;
    assert_eq!(
        (status, body["updated"].as_i64()),
        (StatusCode::OK, Some(0))
    );
    assert_eq!(app.order_status(&order).await, "pending");

    let signature = sign_webhook(payload.as_bytes(), WEBHOOK_SECRET, now());
    let (status, body) = app.webhook(&payload, Some(signature.clone())).await;
    assert_eq!(
        (status, body["updated"].as_i64()),
        (StatusCode::OK, Some(1))
    );
    assert_eq!(app.order_status(&order).await, "paid");
    let paid_at: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("select paid_at from public.orders where id = $1::uuid")
            .bind(&order)
            .fetch_one(app.pool())
            .await
            .unwrap();
    // Redelivery: acknowledged, nothing changes.
    let (status, body) = app.webhook(&payload, Some(signature)).await;
    assert_eq!(
        (status, body["updated"].as_i64()),
        (StatusCode::OK, Some(0))
    );
    let again: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("select paid_at from public.orders where id = $1::uuid")
            .bind(&order)
            .fetch_one(app.pool())
            .await
            .unwrap();
    assert_eq!(paid_at, again);
    // A failure event after success does not undo it; on a pending order it fails it.
    let failed = event("payment_intent.payment_failed", &intent, 2000, &order);
    app.webhook(
        &failed,
        Some(sign_webhook(failed.as_bytes(), WEBHOOK_SECRET, now())),
    )
    .await;
    assert_eq!(app.order_status(&order).await, "paid");
    let (other, other_intent) = pending_order(&app, 500).await;
    let failed = event("payment_intent.payment_failed", &other_intent, 500, &other);
    let (status, _) = app
        .webhook(
            &failed,
            Some(sign_webhook(failed.as_bytes(), WEBHOOK_SECRET, now())),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(app.order_status(&other).await, "failed");
    // Unknown events are acknowledged.
    let other_event =
        json!({"type": "customer.created", "data": {"object": {"id": "cus_1"}}}).to_string();
    let (status, _) = app
        .webhook(
            &other_event,
            Some(sign_webhook(other_event.as_bytes(), WEBHOOK_SECRET, now())),
        )
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_webhook_is_refused_without_a_secret() {
    let app = spawn_app(FunctionsConfig {
        stripe_webhook_secret: None,
        ..config()
    })
    .await;
    let payload = "{}";
    let (status, _) = app
        .webhook(
            payload,
            Some(sign_webhook(payload.as_bytes(), WEBHOOK_SECRET, now())),
        )
        .await;
    assert_eq!(status, 503);
}

// --------------------------------------------------- Stripe via async-stripe

/// The form fields of a request to the fake Stripe.
fn form(request: &Request) -> HashMap<String, String> {
    form_urlencoded::parse(&request.body).into_owned().collect()
}

/// Matches a PaymentIntent creation whose fields are exactly `expected`
/// (where given) and that lacks every field of `absent`.
struct IntentForm {
    expected: Vec<(&'static str, String)>,
    absent: Vec<&'static str>,
}

impl Match for IntentForm {
    fn matches(&self, request: &Request) -> bool {
        let form = form(request);
        self.expected.iter().all(|(k, v)| form.get(*k) == Some(v))
            && self.absent.iter().all(|k| !form.contains_key(*k))
            && form
                .get("metadata[order_id]")
                .is_some_and(|v| v.parse::<Uuid>().is_ok())
    }
}

fn payment_intent(id: &str, amount: i64, status: &str) -> Value {
    json!({
        "id": id, "object": "payment_intent", "amount": amount, "amount_capturable": 0,
        "amount_received": if status == "succeeded" { amount } else { 0 },
        "capture_method": "automatic", "confirmation_method": "automatic",
        "client_secret": format!("{id}_secret_fake"), "created": 1_700_000_000,
        "currency": "usd", "livemode": false, "metadata": {}, "payment_method_types": ["card"],
        "status": status
    })
}

fn stripe_config(server: &MockServer) -> FunctionsConfig {
    FunctionsConfig {
        platform_fee_bps: 1000,
        ..support::with_stripe(config(), STRIPE_KEY, server)
    }
}

#[tokio::test]
async fn stripe_payment_intents_carry_the_database_price_destination_and_fee() {
    let stripe = MockServer::start().await;
    let app = spawn_app(stripe_config(&stripe)).await;
    let (creator, _) = app.user("creator@example.com").await;
    sqlx::query("insert into public.payment_accounts (user_id, stripe_account_id) values ($1, 'acct_creator')")
        .bind(creator)
        .execute(app.pool())
        .await
        .unwrap();
    let template = app
        .template_with_link(creator, 2500, "https://cdn.example/p.zip")
        .await;
    let (other_creator, _) = app.user("other@example.com").await;
    let unconnected = app
        .template_with_link(other_creator, 700, "https://cdn.example/q.zip")
        .await;

    Mock::given(method("POST"))
        .and(path("/v1/payment_intents"))
        .and(header(
            "authorization",
            format!("Bearer {STRIPE_KEY}").as_str(),
        ))
        .and(IntentForm {
            expected: vec![
                ("amount", "2500".into()),
                ("currency", "usd".into()),
                ("transfer_data[destination]", "acct_creator".into()),
                ("application_fee_amount", "250".into()),
                ("metadata[template_id]", template.to_string()),
                ("metadata[buyer_email]", "buyer@example.com".into()),
                ("receipt_email", "buyer@example.com".into()),
                ("automatic_payment_methods[enabled]", "true".into()),
            ],
            absent: vec![],
        })
        .respond_with(ResponseTemplate::new(200).set_body_json(payment_intent(
            "pi_connected",
            2500,
            "requires_payment_method",
        )))
        .expect(1)
        .mount(&stripe)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/payment_intents"))
        .and(IntentForm {
            expected: vec![("amount", "700".into()), ("currency", "usd".into())],
            absent: vec!["transfer_data[destination]", "application_fee_amount"],
        })
        .respond_with(ResponseTemplate::new(200).set_body_json(payment_intent(
            "pi_platform",
            700,
            "requires_payment_method",
        )))
        .expect(1)
        .mount(&stripe)
        .await;

    let (status, body) = app
        .invoke(
            "create-payment-intent",
            json!({"templateId": template, "buyerEmail": "buyer@example.com", "amount": 1}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["clientSecret"], "pi_connected_secret_fake");
    assert_eq!(body["provider"], "stripe");
    assert!(body.get("confirmUrl").is_none());
    let order = body["orderId"].as_str().unwrap().to_owned();
    let token = body["downloadToken"].as_str().unwrap().to_owned();
    let (status, body) = app
        .invoke(
            "create-payment-intent",
            json!({"templateId": unconnected, "buyerEmail": "buyer@example.com"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // The request carried this order's id.
    let requests = stripe.received_requests().await.unwrap();
    let first = form(&requests[0]);
    assert_eq!(first.get("metadata[order_id]"), Some(&order));

    // Without a webhook, validate-download asks Stripe: still unpaid, 402.
    Mock::given(method("GET"))
        .and(path("/v1/payment_intents/pi_connected"))
        .respond_with(ResponseTemplate::new(200).set_body_json(payment_intent(
            "pi_connected",
            2500,
            "processing",
        )))
        .up_to_n_times(1)
        .mount(&stripe)
        .await;
    let (status, _) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": token}),
        )
        .await;
    assert_eq!(status, 402);
    Mock::given(method("GET"))
        .and(path("/v1/payment_intents/pi_connected"))
        .respond_with(ResponseTemplate::new(200).set_body_json(payment_intent(
            "pi_connected",
            2500,
            "succeeded",
        )))
        .mount(&stripe)
        .await;
    let (status, body) = app
        .invoke(
            "validate-download",
            json!({"orderId": order, "token": token}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["downloadUrl"], "https://cdn.example/p.zip");
    assert_eq!(app.order_status(&order).await, "paid");
}

#[tokio::test]
async fn a_stripe_failure_fails_the_order() {
    let stripe = MockServer::start().await;
    let app = spawn_app(stripe_config(&stripe)).await;
    let (creator, _) = app.user("creator@example.com").await;
    let template = app.template(creator, 1200, None).await;
    Mock::given(method("POST"))
        .and(path("/v1/payment_intents"))
        .respond_with(ResponseTemplate::new(402).set_body_json(json!({
            "error": {"type": "card_error", "message": "Your card was declined."}
        })))
        .mount(&stripe)
        .await;
    let (status, body) = app
        .invoke(
            "create-payment-intent",
            json!({"templateId": template, "buyerEmail": "b@example.com"}),
        )
        .await;
    assert_eq!(status, 502);
    assert_eq!(error_of(&body), "Failed to initiate payment.");
    let status: String = sqlx::query_scalar("select payment_status from public.orders")
        .fetch_one(app.pool())
        .await
        .unwrap();
    assert_eq!(status, "failed");
    // Free templates are not sold.
    let free = app.template(creator, 0, None).await;
    let (status, _) = app
        .invoke(
            "create-payment-intent",
            json!({"templateId": free, "buyerEmail": "b@example.com"}),
        )
        .await;
    assert_eq!(status, 400);
}

// --------------------------------------------------------- Stripe Connect

#[tokio::test]
async fn stripe_connect_onboards_only_the_callers_own_account() {
    let stripe = MockServer::start().await;
    let app = spawn_app(stripe_config(&stripe)).await;
    let (user, token) = app.user("creator@example.com").await;
    let (other, other_token) = app.user("other@example.com").await;

    Mock::given(method("POST"))
        .and(path("/v1/accounts"))
        .and(wiremock::matchers::body_string_contains("type=express"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"id": "acct_new", "object": "account"})),
        )
        .expect(1)
        .mount(&stripe)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/account_links"))
        .and(wiremock::matchers::body_string_contains("account=acct_new"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "object": "account_link", "created": 1_700_000_000, "expires_at": 1_700_000_300,
            "url": "https://connect.stripe.test/setup/acct_new"
        })))
        .expect(2)
        .mount(&stripe)
        .await;

    let (status, body) = app
        .post("/api/stripe/connect", None, json!({"userId": user}))
        .await;
    assert_eq!(status, 401);
    assert_eq!(
        error_of(&body),
        "You must be logged in to connect your Stripe account."
    );
    let (status, _) = app
        .post(
            "/api/stripe/connect",
            Some(&other_token),
            json!({"userId": user}),
        )
        .await;
    assert_eq!(status, 403);
    let (status, _) = app
        .post("/api/stripe/connect", Some(&token), json!({}))
        .await;
    assert_eq!(status, 400);
    let (status, body) = app
        .post("/api/stripe/connect", Some(&token), json!({"userId": user}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["url"], "https://connect.stripe.test/setup/acct_new");
    // A second click reuses the account.
    let (status, _) = app
        .post("/api/stripe/connect", Some(&token), json!({"userId": user}))
        .await;
    assert_eq!(status, 200);
    let link_request = stripe
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.url.path() == "/v1/account_links")
        .unwrap();
    let link = form(&link_request);
    assert_eq!(
        link.get("type").map(String::as_str),
        Some("account_onboarding")
    );
    assert_eq!(
        link.get("return_url").map(String::as_str),
        Some("http://app.test/dashboard/settings?stripe_account=acct_new")
    );
    let account = sqlx::query_as::<_, (Option<String>, bool)>(
        "select stripe_account_id, stripe_account_issue from public.payment_accounts where user_id = $1",
    )
    .bind(user)
    .fetch_one(app.pool())
    .await
    .unwrap();
    assert_eq!(account, (Some("acct_new".into()), true));

    Mock::given(method("GET"))
        .and(path("/v1/accounts/acct_new"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "acct_new", "object": "account", "charges_enabled": true,
            "details_submitted": true, "metadata": {"user_id": user.to_string()}
        })))
        .mount(&stripe)
        .await;
    let update = "/api/user/update-stripe-account";
    let (status, _) = app
        .post(
            update,
            None,
            json!({"userId": user, "stripeAccountId": "acct_new"}),
        )
        .await;
    assert_eq!(status, 401);
    let (status, _) = app
        .post(update, Some(&token), json!({"userId": user}))
        .await;
    assert_eq!(status, 400);
    // Someone else's account cannot be claimed.
    let (status, body) = app
        .post(
            update,
            Some(&other_token),
            json!({"userId": other, "stripeAccountId": "acct_new"}),
        )
        .await;
    assert_eq!(status, 403);
    assert_eq!(
        error_of(&body),
        "Could not update Stripe account. Please try again."
    );
    let (status, body) = app
        .post(
            update,
            Some(&token),
            json!({"userId": user, "stripeAccountId": "acct_new"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["ready"], true);
    let account = sqlx::query_as::<_, (Option<String>, bool)>(
        "select stripe_account_id, stripe_account_issue from public.payment_accounts where user_id = $1",
    )
    .bind(user)
    .fetch_one(app.pool())
    .await
    .unwrap();
    assert_eq!(account, (Some("acct_new".into()), false));
}

#[tokio::test]
async fn simulated_connect_needs_no_network() {
    let app = spawn_app(config()).await;
    let (user, token) = app.user("creator@example.com").await;
    let (status, body) = app
        .post("/api/stripe/connect", Some(&token), json!({"userId": user}))
        .await;
    assert_eq!(status, 200, "{body}");
    let url = body["url"].as_str().unwrap();
    let account = url.split("stripe_account=").nth(1).unwrap().to_owned();
    assert!(url.starts_with("http://app.test/dashboard/settings?stripe_account=acct_sim_"));
    let (status, _) = app
        .post(
            "/api/user/update-stripe-account",
            Some(&token),
            json!({"userId": user, "stripeAccountId": "acct_unknown"}),
        )
        .await;
    assert_eq!(status, 400);
    let (status, body) = app
        .post(
            "/api/user/update-stripe-account",
            Some(&token),
            json!({"userId": user, "stripeAccountId": account}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let issue: bool = sqlx::query_scalar(
        "select stripe_account_issue from public.payment_accounts where user_id = $1",
    )
    .bind(user)
    .fetch_one(app.pool())
    .await
    .unwrap();
    assert!(!issue);
}
