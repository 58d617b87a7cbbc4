//! Shared fixtures of the marketplace tests: users made the way sign-up makes
//! them, tokens minted with the node's secret, and a REST client that talks
//! to the gateway exactly as supabase-js does (`apikey` = anon key,
//! `Authorization: Bearer <token>`).

use reqwest::{Method, StatusCode, header::HeaderMap};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use crate::helpers::{TestApp, repo_root, spawn_app_with};

/// Who makes a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Actor {
    /// No session: supabase-js sends the anon key as the bearer token.
    Anon,
    /// A signed-in user (a minted `authenticated` access token).
    User(Uuid),
    /// The service-role key (the server's functions).
    Service,
}

/// A node whose gateway honours `Prefer: tx=rollback`.
pub async fn spawn_marketplace() -> TestApp {
    spawn_app_with(plinth_rest::RestConfig {
        tx_end: "commit-allow-override".into(),
        ..Default::default()
    })
    .await
}

pub fn owner_pool(app: &TestApp) -> &PgPool {
    &app.test_db.db.owner
}

/// Loads `seed/demo.sql` through the owner pool.
pub async fn load_demo(app: &TestApp) {
    let sql = std::fs::read_to_string(repo_root().join("seed/demo.sql")).unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
        .execute(owner_pool(app))
        .await
        .unwrap();
}

/// An auth user as sign-up makes one (the profile trigger makes the profile).
pub async fn create_user(app: &TestApp, email: &str, display_name: &str) -> Uuid {
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into auth.users (instance_id, id, aud, role, email, raw_user_meta_data, created_at, updated_at)
         values ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2,
                 jsonb_build_object('display_name', $3::text), now(), now())",
    )
    .bind(id)
    .bind(email)
    .bind(display_name)
    .execute(owner_pool(app))
    .await
    .unwrap();
    id
}

pub async fn make_admin(app: &TestApp, user: Uuid) -> Uuid {
    sqlx::query_scalar("insert into public.admins (user_id) values ($1) returning id")
        .bind(user)
        .fetch_one(owner_pool(app))
        .await
        .unwrap()
}

pub async fn category_id(app: &TestApp, slug: &str) -> Uuid {
    sqlx::query_scalar("select id from public.categories where slug = $1")
        .bind(slug)
        .fetch_one(owner_pool(app))
        .await
        .unwrap()
}

/// A published template of `user`, inserted as the approval function would.
pub async fn published_template(
    app: &TestApp,
    user: Uuid,
    title: &str,
    category: Uuid,
    price: f64,
) -> Uuid {
    sqlx::query_scalar(
        "insert into public.templates (user_id, title, description, price, price_in_cents, category_id, tags)
         values ($1, $2, 'A template for tests', $3::numeric, round($3::numeric * 100)::int, $4, array['test'])
         returning id",
    )
    .bind(user)
    .bind(title)
    .bind(price)
    .bind(category)
    .fetch_one(owner_pool(app))
    .await
    .unwrap()
}

/// Points a template's download at `url` (written as the owner, past RLS).
pub async fn set_template_url(app: &TestApp, template: Uuid, url: &str) {
    sqlx::query("update public.templates set template_url = $2 where id = $1")
        .bind(template)
        .bind(url)
        .execute(owner_pool(app))
        .await
        .unwrap();
}

pub fn token(app: &TestApp, actor: Actor) -> String {
    match actor {
        Actor::Anon => app.keys.anon_key.clone(),
        Actor::Service => app.keys.service_role_key.clone(),
        Actor::User(id) => {
            let exp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
                + 3600;
            app.keys.secret.sign(&json!({
                "sub": id.to_string(),
                "role": "authenticated",
                "aud": "authenticated",
                "email": format!("{id}@test.plinth.dev"),
                "exp": exp,
            }))
        }
    }
}

/// One answer of the gateway.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Answer {
    /// The body as rows (panics unless it is an array).
    pub fn rows(&self) -> &Vec<Value> {
        self.body
            .as_array()
            .unwrap_or_else(|| panic!("expected rows, got {} {}", self.status, self.body))
    }

    /// Asserts a 2xx and returns the body.
    pub fn ok(&self) -> &Value {
        assert!(
            self.status.is_success(),
            "expected 2xx, got {} {}",
            self.status,
            self.body
        );
        &self.body
    }

    /// The total of a `count=exact` answer, from `Content-Range: a-b/total`.
    pub fn count(&self) -> i64 {
        let range = self.headers["content-range"].to_str().unwrap();
        range
            .rsplit('/')
            .next()
            .unwrap()
            .parse()
            .unwrap_or_else(|_| panic!("content-range {range}"))
    }
}

/// A request to `/rest/v1/<path>` as `actor`. `prefer` is sent as one
/// `Prefer` header when non-empty.
pub async fn rest(
    app: &TestApp,
    actor: Actor,
    method: Method,
    path: &str,
    body: Option<Value>,
    prefer: &str,
) -> Answer {
    rest_with(app, actor, method, path, body, &[("prefer", prefer)]).await
}

pub async fn rest_with(
    app: &TestApp,
    actor: Actor,
    method: Method,
    path: &str,
    body: Option<Value>,
    headers: &[(&str, &str)],
) -> Answer {
    let client = reqwest::Client::new();
    let mut request = client
        .request(method.clone(), format!("{}/rest/v1/{path}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header("authorization", format!("Bearer {}", token(app, actor)))
        .header("x-client-info", "supabase-js/2");
    for (name, value) in headers {
        if !value.is_empty() {
            request = request.header(*name, *value);
        }
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    Answer {
        status,
        headers,
        body,
    }
}

pub async fn get(app: &TestApp, actor: Actor, path: &str) -> Answer {
    rest(app, actor, Method::GET, path, None, "").await
}

/// `POST /rest/v1/rpc/<name>` with a JSON payload.
pub async fn rpc(app: &TestApp, actor: Actor, name: &str, payload: Value) -> Answer {
    rest(
        app,
        actor,
        Method::POST,
        &format!("rpc/{name}"),
        Some(payload),
        "",
    )
    .await
}

/// The rows a GET returns, asserting a 2xx.
pub async fn rows(app: &TestApp, actor: Actor, path: &str) -> Vec<Value> {
    let answer = get(app, actor, path).await;
    answer.ok();
    answer.rows().clone()
}

/// The ids (`id` field) of rows, in order.
pub fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

pub fn num(v: &Value) -> f64 {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| panic!("not a number: {v}"))
}
