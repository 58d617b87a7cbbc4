//! Security tests: links.
//!
//! Item 1: a paid template's private file is never readable by who has not
//! bought it, and never leaves through a link its creator (or another) wrote.
//! Item 2: only https (and http in development) external links are stored and
//! handed to the browser; never `javascript:` or `data:`.
//! Item 10: a creator's payment account id is theirs and the server's only.
//! Item 11: nobody upvotes or rates their own template.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::marketplace_support::*;

// ------------------------------------------------------------------ helpers

const PAID_BYTES: &[u8] = b"PK paid template bytes";

/// Uploads `bytes` to `bucket/name` through storage, as the app does.
async fn upload(app: &TestApp, actor: Actor, bucket: &str, name: &str, bytes: &'static [u8]) {
    let response = reqwest::Client::new()
        .post(format!("{}/storage/v1/object/{bucket}/{name}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header("authorization", format!("Bearer {}", token(app, actor)))
        .header("content-type", "application/zip")
        .body(bytes)
        .send()
        .await
        .unwrap();
    let status = response.status();
    assert!(
        status.is_success(),
        "upload {bucket}/{name}: {status} {}",
        response.text().await.unwrap()
    );
}

/// `POST /functions/v1/{name}` or `/api/...` as supabase-js sends it.
async fn call(app: &TestApp, actor: Actor, path: &str, body: Value) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .post(format!("{}{path}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header("authorization", format!("Bearer {}", token(app, actor)))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// The bytes behind a storage URL the server handed out, from this test's
/// node (signed URLs name the default public URL, `http://localhost:8000`).
async fn fetch(app: &TestApp, url: &str) -> (StatusCode, Vec<u8>) {
    let Some(at) = url.find("/storage/v1/") else {
        return (StatusCode::NOT_FOUND, Vec::new());
    };
    let url = format!("{}{}", app.url, &url[at..]);
    let response = reqwest::get(&url).await.unwrap();
    let status = response.status();
    let bytes = response.bytes().await.unwrap().to_vec();
    (status, bytes)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

async fn set_file(app: &TestApp, template: Uuid, file: &str) {
    sqlx::query(
        "update public.templates set template_file_url = $2, updated_at = now() where id = $1",
    )
    .bind(template)
    .bind(file)
    .execute(owner_pool(app))
    .await
    .unwrap();
}

/// What a caller gets when they ask for a free template: a link, or nothing.
async fn free_download(app: &TestApp, template: Uuid, email: &str) -> Option<String> {
    let (status, body) = call(
        app,
        Actor::Anon,
        "/functions/v1/create-free-order",
        json!({"product_id": template, "buyer_email": email}),
    )
    .await;
    if status != StatusCode::OK {
        return None;
    }
    body["downloadUrl"].as_str().map(str::to_owned)
}

// ------------------------------------------------------------------ item 1

/// The attack of the review, step by step: a seller's paid file in the
/// private bucket; a thief reads its path from the public row, points the
/// link of their own free template at it, and asks create-free-order for it.
/// Every step that lets the thief closer is a hole; all must be closed.
/// Buys `template` as a guest through the simulated provider, then validates
/// the download: validate-download's answer.
async fn buy(app: &TestApp, template: Uuid, email: &str) -> (StatusCode, Value) {
    let (status, intent) = call(
        app,
        Actor::Anon,
        "/functions/v1/create-payment-intent",
        json!({"templateId": template, "buyerEmail": email}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{intent}");
    let confirm = intent["confirmUrl"].as_str().unwrap();
    let payment = confirm
        .split('?')
        .next()
        .unwrap()
        .rsplit('/')
        .next()
        .unwrap();
    let (status, body) = call(
        app,
        Actor::Anon,
        &format!("/api/simulated-payments/{payment}/confirm"),
        json!({"client_secret": intent["clientSecret"]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    call(
        app,
        Actor::Anon,
        "/functions/v1/validate-download",
        json!({"orderId": intent["orderId"], "token": intent["downloadToken"]}),
    )
    .await
}

#[tokio::test]
async fn item_01_a_paid_file_never_leaves_through_a_creator_set_link() {
    let app = spawn_marketplace().await;
    let seller = create_user(&app, "seller@test.dev", "Seller").await;
    let thief = create_user(&app, "thief@test.dev", "Thief").await;
    let cat = category_id(&app, "productivity").await;
    let path = format!("{seller}/files/1-paid.zip");
    let stored = format!("template-files/{path}");
    upload(
        &app,
        Actor::User(seller),
        "template-files",
        &path,
        PAID_BYTES,
    )
    .await;
    let paid = published_template(&app, seller, "Paid Kit", cat, 15.0).await;
    set_file(&app, paid, &stored).await;
    let mut holes = Vec::new();

    // 1. The private path is not in the row others read.
    for actor in [Actor::Anon, Actor::User(thief)] {
        let answer = get(&app, actor, &format!("templates?id=eq.{paid}&select=*")).await;
        if answer.body.to_string().contains(&path) {
            holes.push(format!("{actor:?} reads the private path: {}", answer.body));
        }
    }

    // 2. The thief points their own free template's link at it, in every
    // form a stored file may be named.
    let free = published_template(&app, thief, "Free Kit", cat, 0.0).await;
    let forms = [
        stored.clone(),
        format!("{}/storage/v1/object/authenticated/{stored}", app.url),
        format!("{}/storage/v1/object/sign/{stored}", app.url),
        format!("/storage/v1/object/public/{stored}"),
    ];
    for link in &forms {
        let answer = rest(
            &app,
            Actor::User(thief),
            Method::PATCH,
            &format!("templates?id=eq.{free}"),
            Some(json!({ "template_url": link })),
            "",
        )
        .await;
        if answer.status.is_success() {
            // A link is a web link, never a stored file's name; a web link
            // to storage is only what storage serves to anyone.
            if !link.contains("://") && !link.starts_with('/') {
                holes.push(format!("template_url = {link} was stored"));
            }
            if let Some(url) = free_download(&app, free, "taker@test.dev").await {
                let (_, bytes) = fetch(&app, &url).await;
                let (_, direct) = fetch(&app, link).await;
                if contains(&bytes, PAID_BYTES) || contains(&direct, PAID_BYTES) {
                    holes.push(format!(
                        "create-free-order gave the paid file for {link}: {url}"
                    ));
                }
            }
        }
    }

    // 3. Or submits a template whose file is the seller's.
    let mut template = json!({
        "title": "Stolen Kit", "description": "d", "price": 0, "category_id": cat,
        "template_file_url": stored,
    });
    let submitted = rpc(
        &app,
        Actor::User(thief),
        "submit_template",
        json!({ "template": template }),
    )
    .await;
    if submitted.status.is_success() {
        holes.push("submit_template took the seller's file".into());
    }
    template["creator_id"] = json!(thief);
    template["status"] = json!("Pending Approval");
    let inserted = rest(
        &app,
        Actor::User(thief),
        Method::POST,
        "templates_pending_approval",
        Some(template),
        "",
    )
    .await;
    if inserted.status.is_success() {
        holes.push("a pending row took the seller's file".into());
    }

    // 4. Even a row written past the database's rules (here: with its
    // triggers off) gets no link from the functions to a file that is not
    // its creator's.
    let mut conn = owner_pool(&app).acquire().await.unwrap();
    sqlx::query("set session_replication_role = replica")
        .execute(&mut *conn)
        .await
        .unwrap();
    let forged = sqlx::query_scalar::<_, Uuid>(
        "insert into public.templates (user_id, title, price, price_in_cents, template_file_url)
         values ($1, 'Forged Kit', 0, 0, $2) returning id",
    )
    .bind(thief)
    .bind(&stored)
    .fetch_one(&mut *conn)
    .await
    .unwrap();
    let forged_paid = sqlx::query_scalar::<_, Uuid>(
        "insert into public.templates (user_id, title, price, price_in_cents, template_file_url)
         values ($1, 'Forged Paid', 1, 100, $2) returning id",
    )
    .bind(thief)
    .bind(&stored)
    .fetch_one(&mut *conn)
    .await
    .unwrap();
    sqlx::query("set session_replication_role = origin")
        .execute(&mut *conn)
        .await
        .unwrap();
    drop(conn);
    if let Some(url) = free_download(&app, forged, "taker2@test.dev").await {
        let (_, bytes) = fetch(&app, &url).await;
        if contains(&bytes, PAID_BYTES) {
            holes.push(format!(
                "create-free-order signed another creator's file: {url}"
            ));
        }
    }
    // Bought for a dollar through the thief's paid template.
    let (_, validated) = buy(&app, forged_paid, "taker3@test.dev").await;
    if let Some(url) = validated["downloadUrl"].as_str() {
        let (_, bytes) = fetch(&app, url).await;
        if contains(&bytes, PAID_BYTES) {
            holes.push(format!(
                "validate-download signed another creator's file: {url}"
            ));
        }
    }

    assert!(holes.is_empty(), "holes:\n{}", holes.join("\n"));

    // The seller's own template still sells its file, once bought.
    let (status, validated) = buy(&app, paid, "buyer@test.dev").await;
    assert_eq!(status, StatusCode::OK, "{validated}");
    let (status, bytes) = fetch(&app, validated["downloadUrl"].as_str().unwrap()).await;
    assert_eq!(
        (status, contains(&bytes, PAID_BYTES)),
        (StatusCode::OK, true),
        "the buyer gets the file"
    );
}

// ------------------------------------------------------------------ item 2

const SCRIPT_LINKS: &[&str] = &[
    "javascript:alert(document.domain)",
    "JavaScript:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "javascript://example.com/%0aalert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/x",
    "/\\evil.example/x",
    "ftp://example.com/file.zip",
    "https://exa mple.com/x",
];

/// A `javascript:` (or `data:`) link stored as a template's link ran in the
/// app's origin when "Download Free" followed it. The database keeps every
/// table's link to https (and http) URLs and site paths, and the function
/// hands out no other.
#[tokio::test]
async fn item_02_template_links_are_only_web_links() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "maker@test.dev", "Maker").await;
    let cat = category_id(&app, "productivity").await;
    let free = published_template(&app, creator, "Free Link", cat, 0.0).await;
    let mut holes = Vec::new();

    for link in SCRIPT_LINKS {
        let patched = rest(
            &app,
            Actor::User(creator),
            Method::PATCH,
            &format!("templates?id=eq.{free}"),
            Some(json!({ "template_url": link })),
            "",
        )
        .await;
        if patched.status.is_success() {
            holes.push(format!("templates.template_url = {link:?} was stored"));
            if let Some(url) = free_download(&app, free, "fan@test.dev").await
                && !url.starts_with("http")
            {
                holes.push(format!("create-free-order answered {url:?}"));
            }
        } else if patched.status != StatusCode::BAD_REQUEST {
            holes.push(format!(
                "{link:?}: expected a 400, got {} {}",
                patched.status, patched.body
            ));
        }
        let draft = rest(
            &app,
            Actor::User(creator),
            Method::POST,
            "templates_draft",
            Some(json!({ "creator_id": creator, "title": "Draft", "template_url": link })),
            "",
        )
        .await;
        if draft.status.is_success() {
            holes.push(format!(
                "templates_draft.template_url = {link:?} was stored"
            ));
        }
        let submitted = rpc(
            &app,
            Actor::User(creator),
            "submit_template",
            json!({"template": {"title": "Linked", "description": "d", "category_id": cat,
                                "price": 0, "template_url": link}}),
        )
        .await;
        if submitted.status.is_success() {
            holes.push(format!("a pending template_url = {link:?} was stored"));
        }
        let paid = published_template(&app, creator, "Paid Link", cat, 3.0).await;
        let stored = sqlx::query("update public.templates set template_url = $2 where id = $1")
            .bind(paid)
            .bind(link)
            .execute(owner_pool(&app))
            .await;
        if stored.is_ok() {
            holes.push(format!(
                "paid_template_links.template_url = {link:?} was stored"
            ));
        }
    }

    assert!(holes.is_empty(), "holes:\n{}", holes.join("\n"));

    // Web links are kept, and handed out as absolute URLs.
    for (link, want) in [
        (
            "https://workspace.example/duplicate/1",
            "https://workspace.example/duplicate/1".to_owned(),
        ),
        (
            "http://workspace.example/dev",
            "http://workspace.example/dev".to_owned(),
        ),
        (
            "/demo/files/planner.md",
            "http://localhost:8000/demo/files/planner.md".to_owned(),
        ),
    ] {
        let patched = rest(
            &app,
            Actor::User(creator),
            Method::PATCH,
            &format!("templates?id=eq.{free}"),
            Some(json!({ "template_url": link })),
            "",
        )
        .await;
        assert!(patched.status.is_success(), "{link}: {}", patched.body);
        let url = free_download(&app, free, "fan2@test.dev").await;
        assert_eq!(url.as_deref(), Some(want.as_str()), "{link}");
    }

    // Past the database's rule (its constraint dropped here), the function
    // still hands out nothing but a web link.
    sqlx::query(
        "alter table public.templates drop constraint if exists templates_template_url_is_web_link",
    )
    .execute(owner_pool(&app))
    .await
    .unwrap();
    for link in SCRIPT_LINKS {
        set_template_url(&app, free, link).await;
        let (status, body) = call(
            &app,
            Actor::Anon,
            "/functions/v1/create-free-order",
            json!({"product_id": free, "buyer_email": "fan3@test.dev"}),
        )
        .await;
        if body.to_string().contains(link.trim()) || status == StatusCode::OK {
            holes.push(format!(
                "create-free-order answered {status} {body} for {link:?}"
            ));
        }
    }

    assert!(holes.is_empty(), "holes:\n{}", holes.join("\n"));
}

// ----------------------------------------------------------------- item 10

/// A creator's payment account id was in the public profile row: only its
/// owner (and the server) may read it.
#[tokio::test]
async fn item_10_a_payment_account_id_is_its_owners_only() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "earner@test.dev", "Earner").await;
    let other = create_user(&app, "nosy@test.dev", "Nosy").await;
    let admin = create_user(&app, "boss@test.dev", "Boss").await;
    make_admin(&app, admin).await;
    // Onboarding stores the account (the simulated provider makes one).
    let (status, body) = call(
        &app,
        Actor::User(creator),
        "/api/stripe/connect",
        json!({ "userId": creator }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let account = body["url"]
        .as_str()
        .unwrap()
        .split("stripe_account=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_owned();
    assert!(account.starts_with("acct_"), "{account}");
    let mut holes = Vec::new();

    for actor in [Actor::Anon, Actor::User(other), Actor::User(admin)] {
        for path in [
            format!("profiles?id=eq.{creator}&select=*"),
            format!("profiles?id=eq.{creator}&select=stripe_account_id"),
            format!("payment_accounts?user_id=eq.{creator}&select=*"),
            "payment_accounts?select=*".to_owned(),
        ] {
            let answer = get(&app, actor, &path).await;
            if answer.body.to_string().contains(&account) {
                holes.push(format!("{actor:?} read it at {path}: {}", answer.body));
            }
        }
    }
    // Its owner reads it (the payment profile shows it).
    let own = get(
        &app,
        Actor::User(creator),
        &format!("payment_accounts?user_id=eq.{creator}&select=stripe_account_id"),
    )
    .await;
    if own.body != json!([{ "stripe_account_id": account }]) {
        holes.push(format!(
            "the owner cannot read it: {} {}",
            own.status, own.body
        ));
    }
    // Nobody writes it through the API, the owner included.
    for actor in [Actor::User(creator), Actor::User(other)] {
        let changed = rest(
            &app,
            actor,
            Method::PATCH,
            &format!("payment_accounts?user_id=eq.{creator}"),
            Some(json!({ "stripe_account_id": "acct_attacker" })),
            "return=representation",
        )
        .await;
        if changed.status.is_success() && changed.body.to_string().contains("acct_attacker") {
            holes.push(format!("{actor:?} changed it"));
        }
    }
    // A sale of the creator's paid template still pays that account.
    let cat = category_id(&app, "business").await;
    let paid = published_template(&app, creator, "Paid Account", cat, 10.0).await;
    let (status, intent) = call(
        &app,
        Actor::Anon,
        "/functions/v1/create-payment-intent",
        json!({"templateId": paid, "buyerEmail": "payer@test.dev"}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{intent}");
    let destination: Option<String> = sqlx::query_scalar(
        "select destination from functions.simulated_payments p
           join public.orders o on o.payment_intent_id = p.id where o.id = $1::uuid",
    )
    .bind(intent["orderId"].as_str().unwrap())
    .fetch_one(owner_pool(&app))
    .await
    .unwrap();
    assert_eq!(destination.as_deref(), Some(account.as_str()));

    assert!(holes.is_empty(), "holes:\n{}", holes.join("\n"));
}

// ----------------------------------------------------------------- item 11

/// Upvotes and ratings rank templates (Most Popular, trending, creator
/// statistics): a creator's own votes on their templates are refused.
#[tokio::test]
async fn item_11_creators_do_not_upvote_or_rate_their_own_templates() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "self@test.dev", "Self").await;
    let fan = create_user(&app, "fan@test.dev", "Fan").await;
    let cat = category_id(&app, "personal").await;
    let own = published_template(&app, creator, "Own Work", cat, 0.0).await;
    let mut holes = Vec::new();

    let try_insert = |actor: Actor, table: &'static str, body: Value, prefer: &'static str| {
        let app = &app;
        async move { rest(app, actor, Method::POST, table, Some(body), prefer).await }
    };
    let upvote = try_insert(
        Actor::User(creator),
        "template_upvotes",
        json!({"template_id": own, "user_id": creator}),
        "",
    )
    .await;
    if upvote.status.is_success() {
        holes.push("the creator upvoted their own template".to_owned());
    } else if upvote.status != StatusCode::FORBIDDEN {
        holes.push(format!(
            "own upvote: expected 403, got {} {}",
            upvote.status, upvote.body
        ));
    }
    let rating = try_insert(
        Actor::User(creator),
        "template_ratings",
        json!({"template_id": own, "user_id": creator, "rating": 5, "review_text": "Great!"}),
        "",
    )
    .await;
    if rating.status.is_success() {
        holes.push("the creator rated their own template".to_owned());
    }
    // A rating that exists (from before the rule) cannot be raised either,
    // through the upsert the app sends.
    sqlx::query(
        "insert into public.template_ratings (template_id, user_id, rating) values ($1, $2, 1)
         on conflict do nothing",
    )
    .bind(own)
    .bind(creator)
    .execute(owner_pool(&app))
    .await
    .unwrap();
    let upsert = try_insert(
        Actor::User(creator),
        "template_ratings?on_conflict=template_id,user_id",
        json!({"template_id": own, "user_id": creator, "rating": 5, "review_text": null}),
        "resolution=merge-duplicates",
    )
    .await;
    if upsert.status.is_success() {
        holes.push("the creator re-rated their own template".to_owned());
    }
    let patched = rest(
        &app,
        Actor::User(creator),
        Method::PATCH,
        &format!("template_ratings?template_id=eq.{own}&user_id=eq.{creator}"),
        Some(json!({"rating": 5})),
        "return=representation",
    )
    .await;
    if patched.status.is_success() && !patched.rows().is_empty() {
        holes.push("the creator changed a rating of their own template".to_owned());
    }

    // Anyone else may.
    let upvote = try_insert(
        Actor::User(fan),
        "template_upvotes",
        json!({"template_id": own, "user_id": fan}),
        "",
    )
    .await;
    assert_eq!(upvote.status, StatusCode::CREATED, "{}", upvote.body);
    let rating = try_insert(
        Actor::User(fan),
        "template_ratings",
        json!({"template_id": own, "user_id": fan, "rating": 4}),
        "",
    )
    .await;
    assert_eq!(rating.status, StatusCode::CREATED, "{}", rating.body);

    // The demo data has no such votes either.
    load_demo(&app).await;
    let own_votes: i64 = sqlx::query_scalar(
        "select (select count(*) from public.template_upvotes u join public.templates t
                   on t.id = u.template_id and t.user_id = u.user_id and u.user_id <> $1)
              + (select count(*) from public.template_ratings r join public.templates t
                   on t.id = r.template_id and t.user_id = r.user_id and r.user_id <> $1)",
    )
    .bind(creator)
    .fetch_one(owner_pool(&app))
    .await
    .unwrap();
    assert_eq!(own_votes, 0, "votes on own templates in the demo data");

    assert!(holes.is_empty(), "holes:\n{}", holes.join("\n"));
}

/// A free template's file is in the public bucket, which anyone may read
/// and list. Made paid (the edit screen sends the price alone), its file
/// leaves the public bucket for the private one in the same transaction,
/// with the creator's submissions that share it; made free again, the file
/// is public in its row again and create-free-order signs it.
#[tokio::test]
async fn item_01_a_template_made_paid_takes_its_file_out_of_the_public_bucket() {
    let app = spawn_marketplace().await;
    let creator = create_user(&app, "switcher@test.dev", "Switcher").await;
    let cat = category_id(&app, "productivity").await;
    let path = format!("{creator}/files/1-kit.zip");
    upload(&app, Actor::User(creator), "templates", &path, PAID_BYTES).await;
    let public_url = format!("{}/storage/v1/object/public/templates/{path}", app.url);
    let template = published_template(&app, creator, "Switch Kit", cat, 0.0).await;
    set_file(&app, template, &public_url).await;
    // A pending edit of it that shares the file.
    let pending: Uuid = sqlx::query_scalar(
        "insert into public.templates_pending_approval
           (creator_id, title, description, category_id, template_file_url, original_template_id)
         values ($1, 'Switch Kit 2', 'd', $2, $3, $4) returning id",
    )
    .bind(creator)
    .bind(cat)
    .bind(&public_url)
    .bind(template)
    .fetch_one(owner_pool(&app))
    .await
    .unwrap();
    let (status, _) = fetch(&app, &public_url).await;
    assert_eq!(status, StatusCode::OK, "free: public");

    let set_price = |price: f64| {
        let app = &app;
        async move {
            let r = rest(
                app,
                Actor::User(creator),
                Method::PATCH,
                &format!("templates?id=eq.{template}"),
                Some(json!({ "price": price })),
                "",
            )
            .await;
            assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
        }
    };
    set_price(5.0).await;
    let (status, bytes) = fetch(&app, &public_url).await;
    assert!(
        status.is_client_error() && !contains(&bytes, PAID_BYTES),
        "paid: the public URL answers {status}"
    );
    let row = get(
        &app,
        Actor::Anon,
        &format!("templates?id=eq.{template}&select=template_file_url"),
    )
    .await;
    assert_eq!(row.body, json!([{ "template_file_url": null }]));
    let private = format!("template-files/{path}");
    let kept = get(
        &app,
        Actor::User(creator),
        &format!("paid_template_links?template_id=eq.{template}&select=template_file_url"),
    )
    .await;
    assert_eq!(kept.body, json!([{ "template_file_url": private }]));
    let shared: String = sqlx::query_scalar(
        "select template_file_url from public.templates_pending_approval where id = $1",
    )
    .bind(pending)
    .fetch_one(owner_pool(&app))
    .await
    .unwrap();
    assert_eq!(shared, private, "the pending edit follows its file");

    set_price(0.0).await;
    let row = get(
        &app,
        Actor::Anon,
        &format!("templates?id=eq.{template}&select=template_file_url"),
    )
    .await;
    assert_eq!(row.body, json!([{ "template_file_url": private }]));
    let url = free_download(&app, template, "again@test.dev")
        .await
        .expect("a free template's private file is signed for anyone");
    let (status, bytes) = fetch(&app, &url).await;
    assert_eq!(
        (status, contains(&bytes, PAID_BYTES)),
        (StatusCode::OK, true)
    );
}
