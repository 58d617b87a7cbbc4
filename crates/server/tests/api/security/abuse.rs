//! Security tests: abuse. Anonymous callers of the marketplace's functions
//! inflating counters and sending mail (item 7), the simulated payment's
//! redirect (item 8) and the newsletter telling who subscribed (item 12).
//! Every request comes from 127.0.0.1 through the real router (proxy
//! headers dropped, as `plinth serve` does without
//! `PLINTH_TRUST_PROXY_HEADERS`), with the default limits.

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::marketplace_support::{
    Actor, category_id, create_user, owner_pool, published_template, set_template_url,
    spawn_marketplace, token,
};

/// One answer of a function or `/api` route.
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Value,
}

/// `POST {path}` as supabase-js sends it (`apikey` + bearer), plus `headers`;
/// redirects are not followed.
async fn post(
    app: &TestApp,
    actor: Actor,
    path: &str,
    body: Value,
    headers: &[(&str, &str)],
) -> Reply {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut request = client
        .post(format!("{}{path}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header("authorization", format!("Bearer {}", token(app, actor)))
        .json(&body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    Reply {
        status,
        headers,
        body: serde_json::from_str(&text).unwrap_or(Value::String(text)),
    }
}

async fn invoke(app: &TestApp, actor: Actor, function: &str, body: Value) -> Reply {
    post(app, actor, &format!("/functions/v1/{function}"), body, &[]).await
}

/// A free published template whose download is an external link.
async fn free_template(app: &TestApp, creator: Uuid, title: &str) -> Uuid {
    let category = category_id(app, "productivity").await;
    let id = published_template(app, creator, title, category, 0.0).await;
    set_template_url(app, id, &format!("https://files.example.com/{id}.zip")).await;
    id
}

async fn counter(app: &TestApp, column: &str, template: Uuid) -> i32 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "select {column} from public.templates where id = $1"
    )))
    .bind(template)
    .fetch_one(owner_pool(app))
    .await
    .unwrap()
}

/// The bodies of the mails sent to `to` (the dev mailbox).
async fn mails_to(app: &TestApp, to: &str) -> Vec<String> {
    sqlx::query_scalar(
        "select body_text from auth.mail_messages where lower(recipient) = lower($1) \
         order by created_at",
    )
    .bind(to)
    .fetch_all(owner_pool(app))
    .await
    .unwrap()
}

/// A token of the `/download-secure/{order}?token=` link in a mail.
fn link_token(mail: &str, order: &str) -> String {
    let marker = format!("/download-secure/{order}?token=");
    let start = mail.find(&marker).expect("the mail links the order") + marker.len();
    mail[start..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect()
}

fn assert_too_many(reply: &Reply) {
    assert_eq!(
        reply.status,
        StatusCode::TOO_MANY_REQUESTS,
        "{}",
        reply.body
    );
    let message = reply.body["error"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("Too many requests"),
        "a 429 in the functions' error shape: {}",
        reply.body
    );
    assert!(
        reply.headers.contains_key("retry-after"),
        "a 429 says when to retry"
    );
}

// ---------------------------------------------------------------- item 7

/// 50 anonymous free orders from one address, each for a fresh e-mail and
/// each claiming another address in the proxy headers: the address's limit
/// (30 an hour by default) stops them; the downloads counted and the mails
/// sent stop with it. The service key (a server of the operator's) is not
/// limited.
#[tokio::test]
async fn item_07_free_orders_are_limited_per_client_address() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "creator-07a@example.com", "Creator").await;
    let template = free_template(&app, creator, "Rate Limited Kit").await;
    let mut accepted = 0;
    let mut refused = Vec::new();
    for i in 0..50 {
        let forwarded = format!("203.0.113.{i}");
        let reply = post(
            &app,
            Actor::Anon,
            "/functions/v1/create-free-order",
            json!({"product_id": template, "buyer_email": format!("victim{i}@example.com")}),
            &[
                ("x-forwarded-for", forwarded.as_str()),
                ("x-real-ip", forwarded.as_str()),
            ],
        )
        .await;
        match reply.status {
            StatusCode::OK => accepted += 1,
            _ => refused.push(reply),
        }
    }
    assert!(
        !refused.is_empty(),
        "50 free orders from one address were all accepted"
    );
    assert!(accepted <= 30, "{accepted} free orders accepted");
    refused.iter().for_each(assert_too_many);
    assert_eq!(counter(&app, "downloads_count", template).await, accepted);
    let mails: i64 = sqlx::query_scalar(
        "select count(*) from auth.mail_messages where recipient like 'victim%@example.com'",
    )
    .fetch_one(owner_pool(&app))
    .await
    .unwrap();
    assert_eq!(mails, i64::from(accepted));

    // The other limited functions have budgets of their own.
    let view = invoke(
        &app,
        Actor::Anon,
        "track-template-view",
        json!({"template_id": template}),
    )
    .await;
    assert_eq!(view.status, StatusCode::OK, "{}", view.body);
    // The operator's own server is not a visitor.
    let service = invoke(
        &app,
        Actor::Service,
        "create-free-order",
        json!({"product_id": template, "buyer_email": "server@example.com"}),
    )
    .await;
    assert_eq!(service.status, StatusCode::OK, "{}", service.body);
}

/// The same e-mail asking for the same free template again and again (in
/// any letter case) is one download and one mail; each answer still carries
/// a working download, and the mailed link keeps working.
#[tokio::test]
async fn item_07_a_free_download_counts_once_per_email_and_template() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "creator-07b@example.com", "Creator").await;
    let template = free_template(&app, creator, "Counted Once").await;
    let mut orders = Vec::new();
    let mut answers = Vec::new();
    for email in [
        "Reader@Example.com",
        "reader@example.com",
        "READER@EXAMPLE.COM",
        "reader@example.com",
        "reader@example.com",
    ] {
        let reply = invoke(
            &app,
            Actor::Anon,
            "create-free-order",
            json!({"product_id": template, "buyer_email": email}),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        assert_eq!(
            reply.body["downloadUrl"],
            format!("https://files.example.com/{template}.zip"),
            "every answer carries the download"
        );
        orders.push(reply.body["orderId"].as_str().unwrap().to_owned());
        answers.push(reply.body["emailSent"].clone());
    }
    assert_eq!(counter(&app, "downloads_count", template).await, 1);
    assert!(orders.iter().all(|o| *o == orders[0]), "{orders:?}");
    assert!(answers.iter().all(|a| *a == json!(true)), "{answers:?}");
    let order_rows: i64 = sqlx::query_scalar("select count(*) from public.orders")
        .fetch_one(owner_pool(&app))
        .await
        .unwrap();
    assert_eq!(order_rows, 1);
    let mails = mails_to(&app, "reader@example.com").await;
    assert_eq!(mails.len(), 1, "one mail per address and template");
    let token = link_token(&mails[0], &orders[0]);
    let valid = invoke(
        &app,
        Actor::Anon,
        "validate-download",
        json!({"orderId": orders[0], "token": token}),
    )
    .await;
    assert_eq!(valid.status, StatusCode::OK, "{}", valid.body);

    // Another address is another download.
    let other = invoke(
        &app,
        Actor::Anon,
        "create-free-order",
        json!({"product_id": template, "buyer_email": "someone@example.com"}),
    )
    .await;
    assert_eq!(other.status, StatusCode::OK);
    assert_ne!(other.body["orderId"], json!(orders[0]));
    assert_eq!(counter(&app, "downloads_count", template).await, 2);
}

/// One address asking for many templates gets at most 10 download mails an
/// hour; the answers do not tell which requests mailed.
#[tokio::test]
async fn item_07_download_mails_are_capped_per_address() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "creator-07c@example.com", "Creator").await;
    let mut bodies = Vec::new();
    for i in 0..14 {
        let template = free_template(&app, creator, &format!("Kit {i}")).await;
        let reply = invoke(
            &app,
            Actor::Anon,
            "create-free-order",
            json!({"product_id": template, "buyer_email": "flooded@example.com"}),
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        assert_eq!(counter(&app, "downloads_count", template).await, 1);
        bodies.push(reply.body);
    }
    let mails = mails_to(&app, "flooded@example.com").await;
    assert_eq!(mails.len(), 10, "at most 10 download mails per address");
    assert!(
        bodies.iter().all(|b| b["emailSent"] == json!(true)),
        "{bodies:?}"
    );
}

/// An anonymous visitor is its client address: what the request body or its
/// headers claim (address, user agent, proxy headers) does not make another
/// visitor. A signed-in user is one visitor; a server with the service key
/// may name the visitor's address.
#[tokio::test]
async fn item_07_views_count_once_per_visitor_whatever_the_request_claims() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "creator-07d@example.com", "Creator").await;
    let template = free_template(&app, creator, "Viewed Once").await;
    for i in 0..50 {
        let ip = format!("198.51.100.{i}");
        let agent = format!("Browser {i}");
        let reply = post(
            &app,
            Actor::Anon,
            "/functions/v1/track-template-view",
            json!({"template_id": template, "ip_address": ip, "user_agent": agent}),
            &[
                ("user-agent", agent.as_str()),
                ("x-forwarded-for", ip.as_str()),
                ("x-real-ip", ip.as_str()),
            ],
        )
        .await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
        assert_eq!(reply.body["counted"], json!(i == 0), "view {i}");
    }
    assert_eq!(counter(&app, "total_views", template).await, 1);

    let viewer = create_user(&app, "viewer-07d@example.com", "Viewer").await;
    for expected in [true, false] {
        let reply = invoke(
            &app,
            Actor::User(viewer),
            "track-template-view",
            json!({"template_id": template, "user_agent": "another"}),
        )
        .await;
        assert_eq!(reply.body["counted"], json!(expected), "{}", reply.body);
    }
    for (ip, expected) in [
        ("192.0.2.1", true),
        ("192.0.2.2", true),
        ("192.0.2.1", false),
    ] {
        let reply = invoke(
            &app,
            Actor::Service,
            "track-template-view",
            json!({"template_id": template, "ip_address": ip}),
        )
        .await;
        assert_eq!(reply.body["counted"], json!(expected), "{}", reply.body);
    }
    assert_eq!(counter(&app, "total_views", template).await, 4);
}

/// Each call of track-template-view costs a transaction: one address gets
/// 600 an hour by default (at once, then one every 6 s), then 429s.
#[tokio::test]
async fn item_07_view_tracking_is_limited_per_client_address() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "creator-07e@example.com", "Creator").await;
    let template = free_template(&app, creator, "Hammered").await;
    let mut first_refusal = None;
    for i in 0..700 {
        let reply = invoke(
            &app,
            Actor::Anon,
            "track-template-view",
            json!({"template_id": template}),
        )
        .await;
        if reply.status != StatusCode::OK {
            assert_too_many(&reply);
            first_refusal = Some(i);
            break;
        }
    }
    // 600 at once, then one more every 6 s (a slow run may earn a few).
    let first_refusal = first_refusal.expect("700 views from one address were all accepted");
    assert!(
        (600..620).contains(&first_refusal),
        "the first refusal came after {first_refusal} views"
    );
}

// ---------------------------------------------------------------- item 8

/// A paid template and the simulated payment of an anonymous order of it:
/// (payment id, client secret).
async fn simulated_payment(app: &TestApp) -> (String, String) {
    let creator = create_user(app, "creator-08@example.com", "Creator").await;
    let category = category_id(app, "productivity").await;
    let template = published_template(app, creator, "Paid Kit", category, 9.0).await;
    let intent = invoke(
        app,
        Actor::Anon,
        "create-payment-intent",
        json!({"templateId": template, "buyerEmail": "payer@example.com"}),
    )
    .await;
    assert_eq!(intent.status, StatusCode::OK, "{}", intent.body);
    let confirm = intent.body["confirmUrl"].as_str().unwrap();
    let id = reqwest::Url::parse(confirm)
        .unwrap()
        .path_segments()
        .unwrap()
        .next_back()
        .unwrap()
        .to_owned();
    (id, intent.body["clientSecret"].as_str().unwrap().to_owned())
}

/// The simulated confirmation sends the browser on only within the site
/// (`SITE_URL`, here the default `http://localhost:8000`): every trick that
/// makes a browser leave it lands on the site's home instead. The confirm
/// is posted as the page's form and as JSON.
#[tokio::test]
async fn item_08_simulated_confirm_redirects_only_within_the_site() {
    let app = spawn_marketplace().await;
    let (id, secret) = simulated_payment(&app).await;
    let site = reqwest::Url::parse("http://localhost:8000/").unwrap();
    let confirm = |return_url: String, as_form: bool| {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let request = client.post(format!("{}/api/simulated-payments/{id}/confirm", app.url));
        let request = if as_form {
            request.form(&[
                ("client_secret", secret.as_str()),
                ("return_url", &return_url),
            ])
        } else {
            request.json(&json!({"client_secret": secret, "return_url": return_url}))
        };
        async move { request.send().await.unwrap() }
    };
    let unsafe_targets = [
        "//evil.example/x",
        "/\\evil.example/x",
        "\\\\evil.example/x",
        "/\t/evil.example/x",
        "/\n/evil.example/x",
        "/\r\n/evil.example",
        "\t//evil.example",
        " //evil.example",
        "/%09/evil.example",
        "/%5Cevil.example",
        "/%2F/evil.example",
        "/%2fevil.example",
        "/%0a/evil.example",
        "https://evil.example/",
        "http://evil.example",
        "https:evil.example",
        "HTTPS://EVIL.EXAMPLE",
        "javascript:alert(document.domain)",
        "data:text/html,<script>alert(1)</script>",
        "//localhost:8000@evil.example/",
        "http://localhost:8000@evil.example/",
        "http://localhost:8000.evil.example/",
        "https://localhost:8000/",
        "http://localhost:9000/",
        "evil.example",
        "./x",
        "/x\u{0}y",
        "/x\u{7f}",
        "/x\u{2028}y",
    ];
    for target in unsafe_targets {
        for as_form in [true, false] {
            let response = confirm(target.to_owned(), as_form).await;
            assert_eq!(
                response.status(),
                StatusCode::SEE_OTHER,
                "{target:?} (form: {as_form})"
            );
            let location = response.headers()["location"].to_str().unwrap().to_owned();
            // Resolved as a browser resolves it, against the page it came from.
            let request_url =
                reqwest::Url::parse(&format!("{}/api/simulated-payments/{id}/confirm", app.url))
                    .unwrap();
            let landed = request_url.join(&location).unwrap();
            assert_eq!(
                landed.as_str(),
                site.as_str(),
                "{target:?} (form: {as_form}) sent the browser to {location:?}"
            );
        }
    }
    let safe_targets = [
        (
            "/download-secure/abc?token=t%2Fu#top",
            "http://localhost:8000/download-secure/abc?token=t%2Fu#top",
        ),
        ("/", "http://localhost:8000/"),
        (
            "http://localhost:8000/library?x=1",
            "http://localhost:8000/library?x=1",
        ),
        ("/a/../b", "http://localhost:8000/b"),
    ];
    for (target, expected) in safe_targets {
        let response = confirm(target.to_owned(), true).await;
        assert_eq!(response.status(), StatusCode::SEE_OTHER, "{target:?}");
        assert_eq!(response.headers()["location"], expected, "{target:?}");
    }
    // Without a return_url the confirmation answers JSON.
    let response = reqwest::Client::new()
        .post(format!("{}/api/simulated-payments/{id}/confirm", app.url))
        .json(&json!({"client_secret": secret}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.json::<Value>().await.unwrap()["status"],
        "succeeded"
    );
}

// --------------------------------------------------------------- item 12

/// The newsletter answers a new address and one already subscribed (in any
/// letter case, or added by someone else long ago) the same way.
#[tokio::test]
async fn item_12_newsletter_answers_alike_for_new_and_existing_subscribers() {
    let app = spawn_marketplace().await;
    sqlx::query(
        "insert into public.newsletter_subscribers (email, name) values ('known@example.com', 'K')",
    )
    .execute(owner_pool(&app))
    .await
    .unwrap();
    let subscribe = |email: &'static str| {
        let app = &app;
        async move {
            let reply = invoke(
                app,
                Actor::Anon,
                "subscribe-to-newsletter",
                json!({"email": email, "name": "Reader"}),
            )
            .await;
            (reply.status, reply.body)
        }
    };
    let fresh = subscribe("fresh@example.com").await;
    assert_eq!(fresh.0, StatusCode::OK, "{}", fresh.1);
    for email in [
        "known@example.com",
        "KNOWN@example.com",
        "fresh@example.com",
    ] {
        assert_eq!(subscribe(email).await, fresh, "{email}");
    }
    let rows: Vec<(String, String)> =
        sqlx::query_as("select email, name from public.newsletter_subscribers order by email")
            .fetch_all(owner_pool(&app))
            .await
            .unwrap();
    assert_eq!(
        rows,
        [
            ("fresh@example.com".to_owned(), "Reader".to_owned()),
            ("known@example.com".to_owned(), "K".to_owned())
        ],
        "one row per address; a known subscriber's name is not overwritten"
    );
}

/// A client that trickles its request head (slowloris) or sends none is
/// cut off after the header read timeout; one that sends its request in
/// time is answered, and a shutdown lets a request under way finish.
#[tokio::test]
async fn a_request_head_that_never_ends_is_cut_off() {
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let router = axum::Router::new()
        .route(
            "/",
            axum::routing::get(
                |axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<
                    std::net::SocketAddr,
                >| async move { peer.ip().to_string() },
            ),
        )
        .route(
            "/slow",
            axum::routing::get(|| async {
                tokio::time::sleep(Duration::from_millis(400)).await;
                "slow"
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(plinth_server::run_with(
        listener,
        router,
        async move {
            let _ = stopped.await;
        },
        plinth_server::ReadTimeouts {
            head: Duration::from_millis(300),
            ..Default::default()
        },
    ));

    // Trickled: a byte at a time, never the blank line that ends the head.
    let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
    let started = std::time::Instant::now();
    let mut cut_off = false;
    for byte in b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" {
        if slow.write_all(&[*byte]).await.is_err() {
            cut_off = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut rest = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), slow.read_to_end(&mut rest)).await;
    assert!(
        cut_off || matches!(read, Ok(Ok(_)) | Ok(Err(_))),
        "the trickling connection was still open after {:?}",
        started.elapsed()
    );
    assert!(!String::from_utf8_lossy(&rest).contains("200 OK"));

    // Silent: connected, nothing sent.
    let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(5), silent.read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "{read:?}");

    // In time: answered, with the peer's address known to handlers.
    let client = reqwest::Client::new();
    let answer = client.get(format!("http://{addr}/")).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.text().await.unwrap(), "127.0.0.1");

    // A request under way when the shutdown comes is answered first.
    let under_way = tokio::spawn({
        let client = client.clone();
        async move { client.get(format!("http://{addr}/slow")).send().await }
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop.send(()).unwrap();
    let answer = under_way.await.unwrap().unwrap();
    assert_eq!(answer.text().await.unwrap(), "slow");
    tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .expect("serving did not end after the shutdown")
        .unwrap()
        .unwrap();
}

/// A body that stops arriving halfway fails its request once the server has
/// waited the body timeout for the next piece, and its connection closes;
/// a slow body that keeps coming is read whole, however long it takes in
/// all.
#[tokio::test]
async fn a_request_body_that_stops_arriving_is_cut_off() {
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let router = axum::Router::new().route(
        "/",
        axum::routing::post(|body: axum::body::Bytes| async move { body.len().to_string() }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(plinth_server::run_with(
        listener,
        router,
        std::future::pending(),
        plinth_server::ReadTimeouts {
            body_idle: Duration::from_millis(300),
            ..Default::default()
        },
    ));
    const HEAD: &[u8] = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n";

    // Ten bytes of a hundred, then silence.
    let mut stalled = tokio::net::TcpStream::connect(addr).await.unwrap();
    stalled.write_all(HEAD).await.unwrap();
    stalled.write_all(&[b'a'; 10]).await.unwrap();
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    let read =
        tokio::time::timeout(Duration::from_secs(10), stalled.read_to_end(&mut answer)).await;
    assert!(
        matches!(read, Ok(Ok(_)) | Ok(Err(_))),
        "the stalled connection was still open after {:?}",
        started.elapsed()
    );
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "{:?}",
        started.elapsed()
    );
    let answer = String::from_utf8_lossy(&answer);
    assert!(!answer.contains("200 OK"), "{answer}");

    // A hundred bytes, ten every 100 ms: a second in all, never 300 ms
    // without a piece.
    let mut trickled = tokio::net::TcpStream::connect(addr).await.unwrap();
    trickled.write_all(HEAD).await.unwrap();
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trickled.write_all(&[b'b'; 10]).await.unwrap();
    }
    let mut answer = vec![0u8; 1024];
    let n = tokio::time::timeout(Duration::from_secs(5), trickled.read(&mut answer))
        .await
        .unwrap()
        .unwrap();
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    assert!(answer.ends_with("\r\n\r\n100"), "{answer}");
    server.abort();
}
