//! The creators' sales, orders and payout status (`/api/creator/sales`,
//! `/api/creator/orders`, `/api/stripe/payout-status`) over HTTP against a
//! real PostgreSQL (a fresh database per test with every migration set), the
//! simulated provider, and async-stripe talking to a local fake Stripe
//! (wiremock) that checks the connected account it is asked about.

#![allow(clippy::unwrap_used)]

mod support;

use plinth_marketplace::FunctionsConfig;
use serde_json::{Value, json};
use support::{Services, TestApp};
use uuid::Uuid;
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const SECRET: &str = "sales-tests-secret-of-at-least-32-characters";
const STRIPE_KEY: &str = "sk_test_plinth_sales";

fn config() -> FunctionsConfig {
    FunctionsConfig {
        platform_fee_bps: 1000,
        ..support::config()
    }
}

fn stripe_config(server: &MockServer) -> FunctionsConfig {
    support::with_stripe(config(), STRIPE_KEY, server)
}

async fn spawn_app(config: FunctionsConfig) -> TestApp {
    support::spawn_app(SECRET, Services::Api, config).await
}

impl TestApp {
    /// A published template with its counters.
    async fn template(
        &self,
        owner: Uuid,
        title: &str,
        cents: i32,
        views: i32,
        downloads: i32,
    ) -> Uuid {
        sqlx::query_scalar(
            "insert into public.templates \
               (user_id, title, price, price_in_cents, template_url, total_views, downloads_count) \
             values ($1, $2, $3::numeric / 100, $3, 'https://cdn.example/t.zip', $4, $5) returning id",
        )
        .bind(owner)
        .bind(title)
        .bind(cents)
        .bind(views)
        .bind(downloads)
        .fetch_one(self.pool())
        .await
        .unwrap()
    }

    /// An order of `template` placed `days_ago` days ago (and paid then, when
    /// `status` is `paid`).
    async fn order(
        &self,
        template: Uuid,
        email: &str,
        cents: i32,
        status: &str,
        days_ago: i32,
    ) -> Uuid {
        sqlx::query_scalar(
            "insert into public.orders \
               (product_id, buyer_email, price_in_cents, currency, payment_status, paid_at, created_at) \
             values ($1, $2, $3, 'usd', $4, \
                     case when $4 = 'paid' then now() - make_interval(days => $5) end, \
                     now() - make_interval(days => $5)) returning id",
        )
        .bind(template)
        .bind(email)
        .bind(cents)
        .bind(status)
        .bind(days_ago)
        .fetch_one(self.pool())
        .await
        .unwrap()
    }
}

fn ids(orders: &Value) -> Vec<String> {
    orders["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().to_owned())
        .collect()
}

// ------------------------------------------------------------------- sales

#[tokio::test]
async fn a_creator_sees_the_sums_of_their_own_sales_only() {
    let app = spawn_app(config()).await;
    let (maya, maya_token) = app.user("maya@example.com").await;
    let (leo, leo_token) = app.user("leo@example.com").await;
    let planner = app.template(maya, "Budget Planner", 2500, 40, 3).await;
    let free = app.template(maya, "Free Kit", 0, 10, 2).await;
    let leos = app.template(leo, "Leo's Board", 1999, 5, 1).await;

    app.order(planner, "john@example.com", 2500, "paid", 0)
        .await;
    app.order(planner, "ann@example.com", 2499, "paid", 3).await;
    // Outside 30 days, inside 90 days and 12 months.
    app.order(planner, "old@example.com", 2500, "paid", 45)
        .await;
    app.order(planner, "pending@example.com", 2500, "pending", 1)
        .await;
    app.order(planner, "failed@example.com", 2500, "failed", 1)
        .await;
    app.order(free, "kim@example.com", 0, "free", 0).await;
    app.order(free, "lou@example.com", 0, "free", 2).await;
    app.order(leos, "zed@example.com", 1999, "paid", 0).await;

    let (status, body) = app
        .post(
            "/api/creator/sales",
            Some(&maya_token),
            json!({"range": "30d"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["bucket"], "day");
    assert_eq!(body["currency"], "usd");
    assert_eq!(body["timeZone"], "UTC");
    assert_eq!(body["gross"], 4999);
    // 10% of each sale, rounded down per sale: 250 + 249.
    assert_eq!(body["fee"], 499);
    assert_eq!(body["net"], 4500);
    assert_eq!(body["sales"], 2);
    assert_eq!(body["freeDownloads"], 2);
    assert_eq!(body["platformFeeBps"], 1000);
    let series = body["series"].as_array().unwrap();
    assert_eq!(series.len(), 30, "a bar per day, empty days included");
    let today = chrono::Utc::now().date_naive().to_string();
    assert_eq!(series.last().unwrap()["start"], today.as_str());
    assert_eq!(series.last().unwrap()["gross"], 2500);
    assert_eq!(series.last().unwrap()["sales"], 1);
    assert_eq!(series.last().unwrap()["freeDownloads"], 1);
    let summed: i64 = series.iter().map(|b| b["gross"].as_i64().unwrap()).sum();
    assert_eq!(summed, 4999);

    // Per template, all time: the counters and the paid orders.
    let templates = body["templates"].as_array().unwrap();
    assert_eq!(templates.len(), 2, "only Maya's templates: {templates:?}");
    assert_eq!(templates[0]["templateId"], planner.to_string());
    assert_eq!(templates[0]["totalViews"], 40);
    assert_eq!(templates[0]["downloadsCount"], 3);
    assert_eq!(templates[0]["sales"], 3);
    assert_eq!(templates[0]["gross"], 7499);
    assert_eq!(templates[1]["templateId"], free.to_string());
    assert_eq!(templates[1]["sales"], 0);

    let (_, body) = app
        .post(
            "/api/creator/sales",
            Some(&maya_token),
            json!({"range": "90d"}),
        )
        .await;
    assert_eq!(body["bucket"], "week");
    assert_eq!(body["series"].as_array().unwrap().len(), 13);
    assert_eq!(body["gross"], 7499);
    assert_eq!(body["sales"], 3);
    let (_, body) = app
        .post(
            "/api/creator/sales",
            Some(&maya_token),
            json!({"range": "12m"}),
        )
        .await;
    assert_eq!(body["bucket"], "month");
    assert_eq!(body["series"].as_array().unwrap().len(), 12);
    assert_eq!(body["gross"], 7499);

    // Leo sees his sale, none of Maya's.
    let (_, body) = app
        .post("/api/creator/sales", Some(&leo_token), json!({}))
        .await;
    assert_eq!(body["gross"], 1999);
    assert_eq!(body["sales"], 1);
    assert_eq!(body["freeDownloads"], 0);
    assert_eq!(body["templates"].as_array().unwrap().len(), 1);

    // A time zone far ahead still counts the same sales within 30 days.
    let (status, body) = app
        .post(
            "/api/creator/sales",
            Some(&maya_token),
            json!({"range": "30d", "timeZone": "Pacific/Kiritimati"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["timeZone"], "Pacific/Kiritimati");
    assert_eq!(body["gross"], 4999);
}

#[tokio::test]
async fn sales_refuse_strangers_and_bad_input() {
    let app = spawn_app(config()).await;
    let (_, token) = app.user("maya@example.com").await;
    let (status, body) = app.post("/api/creator/sales", None, json!({})).await;
    assert_eq!(status, 401);
    assert_eq!(body["error"], "You must be logged in to see your sales.");
    let (status, _) = app.post("/api/creator/orders", None, json!({})).await;
    assert_eq!(status, 401);
    for bad in [
        json!({"range": "1y"}),
        json!({"range": "30d", "timeZone": "Mars/Olympus"}),
        json!({"range": "30d", "timeZone": "UTC'; select 1; --"}),
    ] {
        let (status, body) = app
            .post("/api/creator/sales", Some(&token), bad.clone())
            .await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    for bad in [
        json!({"page": 0}),
        json!({"page": 10_001}),
        json!({"pageSize": 0}),
        json!({"pageSize": 51}),
        json!({"page": "two"}),
        json!({"status": "refunded"}),
    ] {
        let (status, body) = app
            .post("/api/creator/orders", Some(&token), bad.clone())
            .await;
        assert_eq!(status, 400, "{bad}: {body}");
    }
    // A creator without templates has nothing, but a full chart.
    let (status, body) = app
        .post("/api/creator/sales", Some(&token), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["gross"], 0);
    assert_eq!(body["series"].as_array().unwrap().len(), 30);
    let (status, body) = app
        .post("/api/creator/orders", Some(&token), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["total"], 0);
}

// ------------------------------------------------------------------ orders

#[tokio::test]
async fn a_creator_pages_the_orders_of_their_templates_with_buyers_masked() {
    let app = spawn_app(config()).await;
    let (maya, maya_token) = app.user("maya@example.com").await;
    let (leo, leo_token) = app.user("leo@example.com").await;
    let planner = app.template(maya, "Budget Planner", 2500, 40, 3).await;
    let leos = app.template(leo, "Leo's Board", 1999, 5, 1).await;
    let mut mine = Vec::new();
    for (i, status) in ["paid", "free", "pending", "failed", "paid"]
        .iter()
        .enumerate()
    {
        let days = i32::try_from(i).unwrap();
        mine.push(
            app.order(
                planner,
                &format!("buyer{i}@example.com"),
                2500,
                status,
                days,
            )
            .await,
        );
    }
    let leo_order = app.order(leos, "john@example.com", 1999, "paid", 0).await;

    let (status, body) = app
        .post(
            "/api/creator/orders",
            Some(&maya_token),
            json!({"pageSize": 2}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["total"], 5);
    assert_eq!(body["page"], 1);
    assert_eq!(body["pageSize"], 2);
    // Newest first.
    assert_eq!(ids(&body), vec![mine[0].to_string(), mine[1].to_string()]);
    let first = &body["orders"][0];
    assert_eq!(first["buyer"], "b***@example.com");
    assert_eq!(first["templateTitle"], "Budget Planner");
    assert_eq!(first["templateId"], planner.to_string());
    assert_eq!(first["amount"], 2500);
    assert_eq!(first["status"], "paid");
    assert!(first["paidAt"].is_string());
    assert!(body["orders"][1].get("paidAt").is_none());
    // No full address anywhere in the answer.
    assert!(!body.to_string().contains("buyer0@"));

    let (_, body) = app
        .post(
            "/api/creator/orders",
            Some(&maya_token),
            json!({"page": 3, "pageSize": 2}),
        )
        .await;
    assert_eq!(ids(&body), vec![mine[4].to_string()]);
    let (_, body) = app
        .post(
            "/api/creator/orders",
            Some(&maya_token),
            json!({"page": 9, "pageSize": 2}),
        )
        .await;
    assert!(ids(&body).is_empty());
    assert_eq!(body["total"], 5);

    let (_, body) = app
        .post(
            "/api/creator/orders",
            Some(&maya_token),
            json!({"status": "paid"}),
        )
        .await;
    assert_eq!(body["total"], 2);
    assert_eq!(ids(&body), vec![mine[0].to_string(), mine[4].to_string()]);
    let (_, body) = app
        .post(
            "/api/creator/orders",
            Some(&maya_token),
            json!({"status": "free"}),
        )
        .await;
    assert_eq!(ids(&body), vec![mine[1].to_string()]);

    // Leo reads his order and none of Maya's; Maya none of his.
    let (_, body) = app
        .post("/api/creator/orders", Some(&leo_token), json!({}))
        .await;
    assert_eq!(ids(&body), vec![leo_order.to_string()]);
    assert_eq!(body["orders"][0]["buyer"], "j***@example.com");
    let (_, body) = app
        .post(
            "/api/creator/orders",
            Some(&maya_token),
            json!({"pageSize": 50}),
        )
        .await;
    assert!(!ids(&body).contains(&leo_order.to_string()));
    assert_eq!(ids(&body).len(), 5);
}

// ---------------------------------------------------------- payout status

#[tokio::test]
async fn simulated_payout_status_answers_from_the_stored_account() {
    let app = spawn_app(config()).await;
    let (maya, token) = app.user("maya@example.com").await;
    let (_, other_token) = app.user("leo@example.com").await;
    let request = json!({"userId": maya});

    let (status, body) = app
        .post("/api/stripe/payout-status", None, request.clone())
        .await;
    assert_eq!(status, 401);
    assert_eq!(body["error"], "You must be logged in to see your payouts.");
    let (status, _) = app
        .post(
            "/api/stripe/payout-status",
            Some(&other_token),
            request.clone(),
        )
        .await;
    assert_eq!(status, 403, "another user's status is refused");
    let (status, _) = app
        .post("/api/stripe/payout-status", Some(&token), json!({}))
        .await;
    assert_eq!(status, 400);

    // Not connected yet.
    let (status, body) = app
        .post("/api/stripe/payout-status", Some(&token), request.clone())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["provider"], "simulated");
    assert_eq!(body["connected"], false);
    assert!(body.get("accountId").is_none());
    assert_eq!(body["platformFeeBps"], 1000);

    // Connected through the simulated onboarding.
    let (status, body) = app
        .post("/api/stripe/connect", Some(&token), json!({"userId": maya}))
        .await;
    assert_eq!(status, 200, "{body}");
    let account: String = sqlx::query_scalar(
        "select stripe_account_id from public.payment_accounts where user_id = $1",
    )
    .bind(maya)
    .fetch_one(app.pool())
    .await
    .unwrap();
    // Two sales to the account (one older than the pending days), one
    // unconfirmed payment and one to someone else: none of the last two count.
    for (id, amount, fee, destination, status, days) in [
        (
            "pi_sim_a",
            2500_i64,
            250_i64,
            account.as_str(),
            "succeeded",
            0,
        ),
        ("pi_sim_b", 1000, 100, account.as_str(), "succeeded", 10),
        (
            "pi_sim_c",
            5000,
            500,
            account.as_str(),
            "requires_payment_method",
            0,
        ),
        ("pi_sim_d", 7000, 700, "acct_sim_other", "succeeded", 0),
    ] {
        sqlx::query(
            "insert into functions.simulated_payments \
               (id, client_secret_hash, amount, currency, destination, application_fee, status, confirmed_at) \
             values ($1, 'x', $2, 'usd', $3, $4, $5, \
                     case when $5 = 'succeeded' then now() - make_interval(days => $6) end)",
        )
        .bind(id)
        .bind(amount)
        .bind(destination)
        .bind(fee)
        .bind(status)
        .bind(days)
        .execute(app.pool())
        .await
        .unwrap();
    }
    let (status, body) = app
        .post("/api/stripe/payout-status", Some(&token), request.clone())
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["connected"], true);
    assert_eq!(body["accountId"], account.as_str());
    assert_eq!(body["chargesEnabled"], true);
    assert_eq!(body["payoutsEnabled"], true);
    assert_eq!(body["requirementsDue"], json!([]));
    assert_eq!(
        body["pending"],
        json!([{"amount": 2250, "currency": "usd"}])
    );
    assert_eq!(
        body["available"],
        json!([{"amount": 900, "currency": "usd"}])
    );
    assert_eq!(body["payouts"], json!([]));

    // An account the provider does not know: stored, but not connected.
    sqlx::query(
        "update public.payment_accounts set stripe_account_id = 'acct_gone' where user_id = $1",
    )
    .bind(maya)
    .execute(app.pool())
    .await
    .unwrap();
    let (status, body) = app
        .post("/api/stripe/payout-status", Some(&token), request)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["connected"], false);
    assert_eq!(body["accountId"], "acct_gone");
}

fn payout(id: &str, amount: i64, status: &str, arrival: i64) -> Value {
    json!({
        "id": id, "object": "payout", "amount": amount, "arrival_date": arrival,
        "automatic": true, "created": arrival - 86_400, "currency": "usd", "livemode": false,
        "method": "standard", "reconciliation_status": "completed", "source_type": "card",
        "status": status, "type": "bank_account"
    })
}

#[tokio::test]
async fn stripe_payout_status_asks_for_the_connected_account() {
    let stripe = MockServer::start().await;
    let app = spawn_app(stripe_config(&stripe)).await;
    let (maya, token) = app.user("maya@example.com").await;
    let (leo, leo_token) = app.user("leo@example.com").await;
    for (user, account) in [(maya, "acct_maya"), (leo, "acct_unknown")] {
        sqlx::query(
            "insert into public.payment_accounts (user_id, stripe_account_id) values ($1, $2)",
        )
        .bind(user)
        .bind(account)
        .execute(app.pool())
        .await
        .unwrap();
    }
    let bearer = format!("Bearer {STRIPE_KEY}");
    Mock::given(method("GET"))
        .and(path("/v1/accounts/acct_maya"))
        .and(header("authorization", bearer.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "acct_maya", "object": "account", "charges_enabled": true,
            "payouts_enabled": false, "details_submitted": true,
            "requirements": {
                "currently_due": ["individual.verification.document", "external_account"],
                "past_due": ["external_account"],
                "eventually_due": [], "pending_verification": [],
                "disabled_reason": "requirements.past_due"
            }
        })))
        .expect(1)
        .mount(&stripe)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/balance"))
        .and(header("stripe-account", "acct_maya"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "object": "balance", "livemode": false,
            "available": [{"amount": 1200, "currency": "usd"}],
            "pending": [{"amount": 4500, "currency": "usd"}, {"amount": 300, "currency": "eur"}]
        })))
        .expect(1)
        .mount(&stripe)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/payouts"))
        .and(header("stripe-account", "acct_maya"))
        .and(query_param("limit", "5"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "object": "list", "url": "/v1/payouts", "has_more": false,
            "data": [payout("po_2", 4200, "in_transit", 1_795_000_000), payout("po_1", 999, "paid", 1_794_000_000)]
        })))
        .expect(1)
        .mount(&stripe)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/accounts/acct_unknown"))
        .respond_with(ResponseTemplate::new(404).set_body_json(json!({
            "error": {"type": "invalid_request_error", "message": "No such account", "code": "account_invalid"}
        })))
        .mount(&stripe)
        .await;

    // Refused before Stripe is asked.
    let (status, _) = app
        .post("/api/stripe/payout-status", None, json!({"userId": maya}))
        .await;
    assert_eq!(status, 401);
    let (status, _) = app
        .post(
            "/api/stripe/payout-status",
            Some(&leo_token),
            json!({"userId": maya}),
        )
        .await;
    assert_eq!(status, 403);

    let (status, body) = app
        .post(
            "/api/stripe/payout-status",
            Some(&token),
            json!({"userId": maya}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["provider"], "stripe");
    assert_eq!(body["connected"], true);
    assert_eq!(body["accountId"], "acct_maya");
    assert_eq!(body["chargesEnabled"], true);
    assert_eq!(body["payoutsEnabled"], false);
    assert_eq!(
        body["requirementsDue"],
        json!(["external_account", "individual.verification.document"])
    );
    assert_eq!(body["disabledReason"], "requirements.past_due");
    assert_eq!(
        body["available"],
        json!([{"amount": 1200, "currency": "usd"}])
    );
    assert_eq!(
        body["pending"],
        json!([{"amount": 4500, "currency": "usd"}, {"amount": 300, "currency": "eur"}])
    );
    assert_eq!(
        body["payouts"],
        json!([
            {"id": "po_2", "amount": 4200, "currency": "usd", "status": "in_transit",
             "arrivalDate": 1_795_000_000, "created": 1_794_913_600},
            {"id": "po_1", "amount": 999, "currency": "usd", "status": "paid",
             "arrivalDate": 1_794_000_000, "created": 1_793_913_600},
        ])
    );

    // Stripe does not know Leo's account: not connected, no balance asked.
    let (status, body) = app
        .post(
            "/api/stripe/payout-status",
            Some(&leo_token),
            json!({"userId": leo}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["connected"], false);
    let balance_requests = stripe
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.url.path() == "/v1/balance")
        .count();
    assert_eq!(balance_requests, 1);
}

#[tokio::test]
async fn a_stripe_failure_is_a_clear_error() {
    let stripe = MockServer::start().await;
    let app = spawn_app(stripe_config(&stripe)).await;
    let (maya, token) = app.user("maya@example.com").await;
    sqlx::query(
        "insert into public.payment_accounts (user_id, stripe_account_id) values ($1, 'acct_maya')",
    )
    .bind(maya)
    .execute(app.pool())
    .await
    .unwrap();
    Mock::given(method("GET"))
        .and(path("/v1/accounts/acct_maya"))
        .respond_with(ResponseTemplate::new(500).set_body_json(json!({
            "error": {"type": "api_error", "message": "boom"}
        })))
        .mount(&stripe)
        .await;
    let (status, body) = app
        .post(
            "/api/stripe/payout-status",
            Some(&token),
            json!({"userId": maya}),
        )
        .await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(
        body["error"],
        "Could not load your payout status. Please try again."
    );
}
