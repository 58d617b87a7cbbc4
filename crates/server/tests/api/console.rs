//! The operator console's API (`/_/console/api`): only operators get in,
//! and each section does what `console/API.md` says.

use std::time::Duration;

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::TestApp;
use crate::marketplace_support::{
    Actor, create_user, load_demo, make_admin, owner_pool, spawn_marketplace, token,
};

const OPERATOR: &str = "ops@example.test";
const PASSWORD: &str = "correct horse battery staple";

/// Every call of the console's API, with a body where it takes one.
fn every_call() -> Vec<(Method, &'static str, Option<Value>)> {
    vec![
        (Method::GET, "/users", None),
        (
            Method::GET,
            "/users/00000000-0000-0000-0000-000000000001/sessions",
            None,
        ),
        (
            Method::DELETE,
            "/users/00000000-0000-0000-0000-000000000001/sessions",
            None,
        ),
        (Method::GET, "/schema", None),
        (
            Method::POST,
            "/sql",
            Some(json!({ "query": "select 1", "read_only": true })),
        ),
        (Method::GET, "/sql/history", None),
        (Method::GET, "/policies?schema=public", None),
        (
            Method::PUT,
            "/policies/rls",
            Some(json!({ "schema": "public", "table": "templates", "enabled": false })),
        ),
        (
            Method::GET,
            "/policies/matrix?schema=public&table=templates",
            None,
        ),
        (Method::GET, "/realtime", None),
        (
            Method::POST,
            "/realtime/tables",
            Some(json!({ "schema": "public", "table": "categories", "enabled": true })),
        ),
        (
            Method::GET,
            "/realtime/changes?schema=public&table=categories",
            None,
        ),
        (Method::GET, "/functions/invocations", None),
        (Method::GET, "/logs", None),
        (Method::GET, "/logs/stream", None),
        (Method::GET, "/health", None),
        (Method::GET, "/mailbox", None),
        (Method::GET, "/settings", None),
        (Method::POST, "/settings/service-key", Some(json!({}))),
        (Method::GET, "/auth/v1/admin/users", None),
        (
            Method::POST,
            "/auth/v1/admin/users",
            Some(json!({ "email": "new@example.test", "password": "a-long-password" })),
        ),
        (Method::GET, "/rest/v1/templates?select=id", None),
        (
            Method::POST,
            "/rest/v1/categories",
            Some(json!({ "name": "X", "slug": "x" })),
        ),
        (Method::GET, "/storage/v1/bucket", None),
        (
            Method::POST,
            "/storage/v1/bucket",
            Some(json!({ "name": "b" })),
        ),
    ]
}

fn api(app: &TestApp, path: &str) -> String {
    format!("{}/_/console/api{path}", app.url)
}

/// A client holding an operator's session cookie.
struct Console {
    http: Client,
    cookie: String,
    base: String,
}

impl Console {
    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .header("cookie", &self.cookie)
            .header("x-plinth-console", "1")
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        answer(self.request(Method::GET, path).send().await.unwrap()).await
    }

    async fn send(&self, method: Method, path: &str, body: Value) -> (StatusCode, Value) {
        answer(self.request(method, path).json(&body).send().await.unwrap()).await
    }

    /// [`Console::send`], which must answer 200: its body.
    async fn send_ok(&self, method: Method, path: &str, body: Value) -> Value {
        let (status, answer) = self.send(method, path, body).await;
        assert_eq!(status, StatusCode::OK, "{path}: {answer}");
        answer
    }
}

/// Reads an event stream until whole events (ending in a blank line)
/// containing `needle` have arrived; returns what was read.
async fn read_events_until(stream: &mut reqwest::Response, needle: &str) -> String {
    let mut seen = String::new();
    while !seen.contains(needle) || !seen.ends_with("\n\n") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.chunk())
            .await
            .expect("an event arrives")
            .unwrap()
            .expect("the stream stays open");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    seen
}

async fn answer(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    let text = response.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn operator(app: &TestApp) {
    plinth_console::set_operator(owner_pool(app), OPERATOR, PASSWORD)
        .await
        .unwrap();
}

async fn sign_in(app: &TestApp) -> Console {
    let http = Client::new();
    let response = http
        .post(api(app, "/session"))
        .header("x-plinth-console", "1")
        .json(&json!({ "email": OPERATOR, "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let set = response
        .headers()
        .get("set-cookie")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    for attribute in [
        "HttpOnly",
        "SameSite=Strict",
        "Path=/_/console",
        "Max-Age=3600",
    ] {
        assert!(set.contains(attribute), "{attribute} in {set}");
    }
    let cookie = set.split(';').next().unwrap().to_owned();
    Console {
        http,
        cookie,
        base: api(app, ""),
    }
}

async fn status_of(
    http: &Client,
    app: &TestApp,
    (method, path, body): &(Method, &str, Option<Value>),
    headers: &[(&str, String)],
) -> (StatusCode, Value) {
    let mut request = http
        .request(method.clone(), api(app, path))
        .header("x-plinth-console", "1")
        .timeout(Duration::from_secs(10));
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    answer(request.send().await.unwrap()).await
}

#[tokio::test]
async fn every_console_call_refuses_anyone_but_an_operator() {
    let app = spawn_marketplace().await;
    operator(&app).await;
    let user = create_user(&app, "admin@example.test", "Admin").await;
    make_admin(&app, user).await;
    let admin_token = token(&app, Actor::User(user));
    let service = token(&app, Actor::Service);
    let http = Client::new();
    // A session that has expired, and one another operator ended.
    let expired = sign_in(&app).await;
    sqlx::query("update plinth_console.sessions set expires_at = now() - interval '1 second'")
        .execute(owner_pool(&app))
        .await
        .unwrap();
    let forged = format!("plinth_console={}", "ab".repeat(32));
    let strangers: Vec<(&str, Vec<(&str, String)>)> = vec![
        ("nobody", vec![]),
        (
            "a marketplace admin's token",
            vec![
                ("authorization", format!("Bearer {admin_token}")),
                ("apikey", app.keys.anon_key.clone()),
            ],
        ),
        (
            "the service key",
            vec![
                ("authorization", format!("Bearer {service}")),
                ("apikey", service.clone()),
            ],
        ),
        ("a forged cookie", vec![("cookie", forged)]),
        (
            "an expired session",
            vec![("cookie", expired.cookie.clone())],
        ),
    ];
    for call in every_call() {
        for (who, headers) in &strangers {
            let (status, body) = status_of(&http, &app, &call, headers).await;
            assert_eq!(
                status,
                StatusCode::UNAUTHORIZED,
                "{} {} as {who}: {body}",
                call.0,
                call.1
            );
            assert_eq!(body["error"], "not_signed_in", "{} {}", call.0, call.1);
        }
    }
    // Nothing was changed by the refused calls.
    let rls: bool = sqlx::query_scalar(
        "select relrowsecurity from pg_class where oid = 'public.templates'::regclass",
    )
    .fetch_one(owner_pool(&app))
    .await
    .unwrap();
    assert!(rls);
    let made: i64 =
        sqlx::query_scalar("select count(*) from auth.users where email = 'new@example.test'")
            .fetch_one(owner_pool(&app))
            .await
            .unwrap();
    assert_eq!(made, 0);
}

#[tokio::test]
async fn writes_need_the_console_header_and_its_own_origin() {
    let app = spawn_marketplace().await;
    operator(&app).await;
    let console = sign_in(&app).await;
    for call in every_call()
        .into_iter()
        .filter(|(m, _, _)| *m != Method::GET)
    {
        let (method, path, body) = call;
        // A page of another site: the cookie would not even be sent
        // (SameSite=Strict); were it sent, the missing header and the
        // foreign origin each stop the write.
        let no_header = console
            .http
            .request(method.clone(), api(&app, path))
            .header("cookie", &console.cookie)
            .json(&body.clone().unwrap_or(Value::Null))
            .send()
            .await
            .unwrap();
        assert_eq!(no_header.status(), StatusCode::FORBIDDEN, "{method} {path}");
        let foreign = console
            .request(method.clone(), path)
            .header("origin", "https://evil.example")
            .json(&body.unwrap_or(Value::Null))
            .send()
            .await
            .unwrap();
        assert_eq!(foreign.status(), StatusCode::FORBIDDEN, "{method} {path}");
    }
    // Sign-in itself is a write.
    let foreign_sign_in = Client::new()
        .post(api(&app, "/session"))
        .header("x-plinth-console", "1")
        .header("origin", "https://evil.example")
        .json(&json!({ "email": OPERATOR, "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign_sign_in.status(), StatusCode::FORBIDDEN);
    // No CORS grant on the console's answers, preflight or not.
    let preflight = Client::new()
        .request(Method::OPTIONS, api(&app, "/sql"))
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "x-plinth-console")
        .send()
        .await
        .unwrap();
    assert!(
        preflight
            .headers()
            .get("access-control-allow-origin")
            .is_none(),
        "{:?}",
        preflight.headers()
    );
}

#[tokio::test]
async fn operators_sign_in_and_out_and_failures_are_limited() {
    let app = spawn_marketplace().await;
    operator(&app).await;
    let http = Client::new();
    let attempt = |email: &'static str, password: &'static str| {
        let http = http.clone();
        let url = api(&app, "/session");
        async move {
            answer(
                http.post(url)
                    .header("x-plinth-console", "1")
                    .json(&json!({ "email": email, "password": password }))
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    let (status, body) = attempt(OPERATOR, "wrong password!").await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::UNAUTHORIZED, &json!("invalid_credentials"))
    );
    let (status, _) = attempt("nobody@example.test", PASSWORD).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let console = sign_in(&app).await;
    let (status, body) = console.get("/session").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["operator"]["email"], OPERATOR);
    let (status, _) = console.send(Method::DELETE, "/session", json!(null)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = console.get("/users").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "the session ended");

    // A new password from the CLI ends the sessions too.
    let console = sign_in(&app).await;
    plinth_console::set_operator(owner_pool(&app), OPERATOR, "another long password")
        .await
        .unwrap();
    let (status, _) = console.get("/users").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Idle sessions end.
    plinth_console::set_operator(owner_pool(&app), OPERATOR, PASSWORD)
        .await
        .unwrap();
    let console = sign_in(&app).await;
    let (status, _) = console.get("/session").await;
    assert_eq!(status, StatusCode::OK);
    sqlx::query("update plinth_console.sessions set last_seen_at = now() - interval '11 minutes'")
        .execute(owner_pool(&app))
        .await
        .unwrap();
    let (status, _) = console.get("/session").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Ten failures from one address: even the right password waits.
    for _ in 0..10 {
        let (status, _) = attempt(OPERATOR, "wrong password!").await;
        assert_ne!(status, StatusCode::OK);
    }
    let (status, body) = attempt(OPERATOR, PASSWORD).await;
    assert_eq!(
        (status, &body["error"]),
        (StatusCode::TOO_MANY_REQUESTS, &json!("too_many_attempts"))
    );
}

#[tokio::test]
async fn the_platform_apis_answer_the_console_as_service_role() {
    let app = spawn_marketplace().await;
    load_demo(&app).await;
    operator(&app).await;
    let console = sign_in(&app).await;
    // The browser's own credentials are dropped: an anon key sent along
    // does not make the call anon.
    let response = console
        .request(Method::GET, "/rest/v1/orders?select=id")
        .header("authorization", format!("Bearer {}", app.keys.anon_key))
        .header("apikey", &app.keys.anon_key)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (status, users) = console.get("/auth/v1/admin/users").await;
    assert_eq!(status, StatusCode::OK, "{users}");
    assert!(!users["users"].as_array().unwrap().is_empty());
    let (status, buckets) = console.get("/storage/v1/bucket").await;
    assert_eq!(status, StatusCode::OK, "{buckets}");
    assert!(
        buckets
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["id"] == "template-files")
    );
    let (status, created) = console
        .send(
            Method::POST,
            "/rest/v1/categories",
            json!({ "name": "Console", "slug": "console" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
}

#[tokio::test]
async fn users_are_listed_searched_and_signed_out_everywhere() {
    let app = spawn_marketplace().await;
    operator(&app).await;
    let console = sign_in(&app).await;
    let alice = create_user(&app, "alice@example.test", "Alice").await;
    let bob = create_user(&app, "bob@example.test", "Bob").await;
    sqlx::query("update auth.users set email_confirmed_at = now() where id = $1")
        .bind(alice)
        .execute(owner_pool(&app))
        .await
        .unwrap();
    sqlx::query("update auth.users set banned_until = now() + interval '1 day' where id = $1")
        .bind(bob)
        .execute(owner_pool(&app))
        .await
        .unwrap();
    sqlx::query(
        "insert into auth.identities (provider_id, user_id, identity_data, provider)
         values ($1::text, $1, '{}', 'github')",
    )
    .bind(alice)
    .execute(owner_pool(&app))
    .await
    .unwrap();
    let emails = |body: &Value| -> Vec<String> {
        body["users"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["email"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    let (_, all) = console.get("/users").await;
    assert_eq!(all["total"], 2);
    let (_, found) = console.get("/users?q=ALI").await;
    assert_eq!(emails(&found), ["alice@example.test"]);
    let (_, wildcard) = console.get("/users?q=%25").await;
    assert_eq!(wildcard["total"], 0, "LIKE wildcards are literal");
    let (_, github) = console.get("/users?provider=github").await;
    assert_eq!(emails(&github), ["alice@example.test"]);
    let (_, banned) = console.get("/users?status=banned").await;
    assert_eq!(emails(&banned), ["bob@example.test"]);
    assert_eq!(banned["users"][0]["status"], "banned");
    let (_, paged) = console.get("/users?per_page=1&page=2").await;
    assert_eq!(
        (
            paged["total"].clone(),
            paged["users"].as_array().unwrap().len()
        ),
        (json!(2), 1)
    );
    let (status, _) = console.get("/users?status=odd").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    for _ in 0..2 {
        sqlx::query(
            "insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, ip)
             values (gen_random_uuid(), $1, now(), now(), 'aal1', 'test-agent', '10.1.2.3')",
        )
        .bind(alice)
        .execute(owner_pool(&app))
        .await
        .unwrap();
    }
    let (status, sessions) = console.get(&format!("/users/{alice}/sessions")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(sessions["sessions"].as_array().unwrap().len(), 2);
    assert_eq!(sessions["sessions"][0]["ip"], "10.1.2.3");
    let (status, _) = console
        .send(
            Method::DELETE,
            &format!("/users/{alice}/sessions"),
            json!(null),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let left: i64 = sqlx::query_scalar("select count(*) from auth.sessions where user_id = $1")
        .bind(alice)
        .fetch_one(owner_pool(&app))
        .await
        .unwrap();
    assert_eq!(left, 0);
    let (status, _) = console.get("/users/not-a-uuid/sessions").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn the_sql_editor_runs_as_project_admin_and_read_only_stays_read_only() {
    let app = spawn_marketplace().await;
    operator(&app).await;
    let console = sign_in(&app).await;
    let sql = |query: &str, read_only: bool| {
        console.send(
            Method::POST,
            "/sql",
            json!({ "query": query, "read_only": read_only }),
        )
    };
    let (status, body) = sql("select 1 as one, null::text as nothing, 'x' as x", false).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let result = &body["results"][0];
    assert_eq!(result["command"], "SELECT");
    assert_eq!(
        result["columns"][0],
        json!({ "name": "one", "type": "int4" })
    );
    assert_eq!(result["rows"], json!([["1", null, "x"]]));
    // As project_admin (a login of its own, no superuser), in both modes.
    for read_only in [false, true] {
        let (_, body) = sql(
            "select current_user, usesuper from pg_user where usename = current_user",
            read_only,
        )
        .await;
        assert_eq!(
            body["results"][0]["rows"],
            json!([["project_admin", "f"]]),
            "{body}"
        );
    }

    // An empty result still has its columns.
    let (_, body) = sql("select id, slug from public.categories where false", true).await;
    assert_eq!(body["results"][0]["columns"][1]["name"], "slug");
    assert_eq!(body["results"][0]["row_count"], 0);

    // Errors carry PostgreSQL's code and position.
    let (status, body) = sql("select * from nowhere", false).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["code"], "42P01");
    assert_eq!(body["position"], 15);

    // Read-only: no writes, and no way out of the transaction.
    let (status, body) = sql("create table escaped (x int)", true).await;
    assert_eq!(
        (status, &body["code"]),
        (StatusCode::BAD_REQUEST, &json!("25006")),
        "{body}"
    );
    let (status, body) = sql("commit; create table escaped (x int)", true).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = sql(
        "select set_config('transaction_read_only', 'off', false)",
        true,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // ... and no programs, server files, settings or other logins.
    for refused in [
        "copy (select 1) to program 'true'",
        "select pg_read_file('/etc/passwd')",
        "select pg_reload_conf()",
        "alter system reset plinth.review_probe",
        "set session authorization postgres",
        "set role postgres",
    ] {
        let (status, body) = sql(refused, true).await;
        assert_eq!(
            (status, &body["error"]),
            (StatusCode::BAD_REQUEST, &json!("sql_error")),
            "{refused}: {body}"
        );
    }
    let exists: bool = sqlx::query_scalar("select to_regclass('public.escaped') is not null")
        .fetch_one(owner_pool(&app))
        .await
        .unwrap();
    assert!(!exists, "a read-only run created a table");

    // Several statements, and nothing a run sets outlives it.
    let (status, body) = sql(
        "create table console_made (x int); insert into console_made values (1), (2); set role anon",
        false,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["results"].as_array().unwrap().len(), 3);
    assert_eq!(body["results"][1]["row_count"], 2);
    let (_, body) = sql("select current_user", false).await;
    assert_eq!(body["results"][0]["rows"][0][0], "project_admin");

    // Big results are cut.
    let (_, body) = sql("select generate_series(1, 1500)", true).await;
    let result = &body["results"][0];
    assert_eq!(
        (result["truncated"].clone(), result["row_count"].clone()),
        (json!(true), json!(1500))
    );
    assert_eq!(result["rows"].as_array().unwrap().len(), 1000);

    let (_, history) = console.get("/sql/history").await;
    let history = history["history"].as_array().unwrap();
    assert_eq!(history[0]["query"], "select generate_series(1, 1500)");
    assert_eq!(history[0]["operator"], OPERATOR);
    assert!(history.iter().any(|h| h["ok"] == false));
}

#[tokio::test]
async fn policies_and_who_can_do_what_come_from_postgres() {
    let app = spawn_marketplace().await;
    operator(&app).await;
    let console = sign_in(&app).await;
    let (status, body) = console.get("/policies?schema=public").await;
    assert_eq!(status, StatusCode::OK);
    let templates = body["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "templates")
        .unwrap()
        .clone();
    assert_eq!(templates["rls_enabled"], true);
    assert!(!templates["policies"].as_array().unwrap().is_empty());
    let (status, matrix) = console
        .get("/policies/matrix?schema=public&table=templates")
        .await;
    assert_eq!(status, StatusCode::OK, "{matrix}");
    assert_eq!(
        matrix["roles"],
        json!(["anon", "authenticated", "service_role"])
    );
    assert_eq!(matrix["cells"]["anon"]["select"]["access"], "policy");
    assert_eq!(matrix["cells"]["service_role"]["delete"]["access"], "all");
    assert_eq!(matrix["cells"]["anon"]["delete"]["access"], "none");
    // Column privileges count: authenticated may update some columns of
    // its own templates.
    let update = &matrix["cells"]["authenticated"]["update"];
    assert_eq!(update["access"], "policy", "{update}");
    assert!(
        update["reason"]
            .as_str()
            .unwrap()
            .contains("some columns only"),
        "{update}"
    );

    // A table without RLS: everything the privileges give.
    sqlx::raw_sql("create table public.open_notes (id int primary key); revoke all on public.open_notes from anon; grant select on public.open_notes to anon")
        .execute(owner_pool(&app))
        .await
        .unwrap();
    let (_, matrix) = console
        .get("/policies/matrix?schema=public&table=open_notes")
        .await;
    assert_eq!(matrix["cells"]["anon"]["select"]["access"], "all");
    assert_eq!(matrix["cells"]["anon"]["insert"]["access"], "none");
    console
        .send_ok(
            Method::PUT,
            "/policies/rls",
            json!({ "schema": "public", "table": "open_notes", "enabled": true }),
        )
        .await;
    let (_, matrix) = console
        .get("/policies/matrix?schema=public&table=open_notes")
        .await;
    assert_eq!(matrix["cells"]["anon"]["select"]["access"], "none");

    // Names are looked up, never pasted.
    let (status, _) = console
        .send(
            Method::PUT,
            "/policies/rls",
            json!({ "schema": "public", "table": "templates\" disable row level security; --", "enabled": true }),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = console.get("/policies/matrix?table=nowhere").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn schema_realtime_logs_health_and_settings() {
    let app = spawn_marketplace().await;
    operator(&app).await;
    let console = sign_in(&app).await;

    let (status, schema) = console.get("/schema").await;
    assert_eq!(status, StatusCode::OK);
    let templates = schema["relations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["schema"] == "public" && r["name"] == "templates")
        .unwrap();
    assert_eq!(templates["primary_key"], json!(["id"]));
    let price = templates["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "title")
        .unwrap();
    assert_eq!(price["ts_type"], "string");
    assert!(
        templates["foreign_keys"]
            .as_array()
            .unwrap()
            .iter()
            .any(|fk| fk["references"]["table"] == "categories")
    );

    // A tail of a table's changes sees an insert.
    console
        .send_ok(
            Method::POST,
            "/realtime/tables",
            json!({ "schema": "public", "table": "categories", "enabled": true }),
        )
        .await;
    let (_, realtime) = console.get("/realtime").await;
    assert!(
        realtime["tables"]
            .as_array()
            .unwrap()
            .contains(&json!({ "schema": "public", "table": "categories" }))
    );
    let mut tail = console
        .request(
            Method::GET,
            "/realtime/changes?schema=public&table=categories",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(
        tail.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    sqlx::query("insert into public.categories (name, slug) values ('Tailed', 'tailed')")
        .execute(owner_pool(&app))
        .await
        .unwrap();
    let seen = read_events_until(&mut tail, "Tailed").await;
    assert!(seen.contains("event: change"), "{seen}");
    assert!(seen.contains("\"type\":\"INSERT\""), "{seen}");
    // A row too big for its notification is read back whole.
    let long = "d".repeat(10_000);
    sqlx::query(
        "insert into public.categories (name, slug, description) values ('Long', 'long', $1)",
    )
    .bind(&long)
    .execute(owner_pool(&app))
    .await
    .unwrap();
    let seen = read_events_until(&mut tail, "\"Long\"").await;
    let data = seen
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find(|l| l.contains("\"Long\""))
        .unwrap();
    let change: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(change["record"]["description"], long.as_str(), "{data}");
    assert_eq!(change["record"]["slug"], "long");
    let (status, _) = console
        .send(
            Method::POST,
            "/realtime/tables",
            json!({ "schema": "public", "table": "nowhere", "enabled": true }),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Requests are in the log book, with their status, and filterable.
    let missing = Client::new()
        .get(format!("{}/rest/v1/nowhere", app.url))
        .header("apikey", &app.keys.anon_key)
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let (_, logs) = console.get("/logs?service=rest&status=4xx").await;
    let entries = logs["entries"].as_array().unwrap();
    assert!(
        entries
            .iter()
            .any(|e| e["path"] == "/rest/v1/nowhere" && e["status"] == 404),
        "{logs}"
    );
    assert!(entries.iter().all(|e| e["service"] == "rest"));
    let (status, _) = console.get("/logs?level=loud").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    let function_call = Client::new()
        .post(format!("{}/functions/v1/nonexistent", app.url))
        .header("apikey", &app.keys.anon_key)
        .send()
        .await
        .unwrap();
    let called = function_call.status().as_u16();
    let (_, invocations) = console.get("/functions/invocations").await;
    assert_eq!(
        invocations["invocations"][0]["path"],
        "/functions/v1/nonexistent"
    );
    assert_eq!(invocations["invocations"][0]["status"], called);

    let (status, health) = console.get("/health").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(health["database"]["ok"], true);
    // Which node answered (behind a balancer, whose book this is).
    assert_eq!(
        health["node"],
        json!({ "name": "test-node:0", "pid": std::process::id() })
    );
    assert!(health["database"]["size_bytes"].as_i64().unwrap() > 0);
    assert!(
        health["services"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["service"] == "rest" && s["requests"].as_u64().unwrap() >= 1)
    );

    let (status, settings) = console.get("/settings").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(settings["keys"]["anon"], app.keys.anon_key);
    let masked = settings["keys"]["service_role"].as_str().unwrap();
    assert!(!masked.contains(&app.keys.service_role_key[10..]));
    assert!(
        settings["migrations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["set"] == "console")
    );
    let (status, revealed) = console
        .send(Method::POST, "/settings/service-key", json!({}))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(revealed["service_role"], app.keys.service_role_key);

    let (status, mailbox) = console.get("/mailbox").await;
    assert_eq!(status, StatusCode::OK, "{mailbox}");
    assert!(mailbox["messages"].is_array());
}

#[tokio::test]
async fn tails_last_as_long_as_their_session() {
    let app = spawn_marketplace().await;
    operator(&app).await;
    let console = sign_in(&app).await;
    console
        .send_ok(
            Method::POST,
            "/realtime/tables",
            json!({ "schema": "public", "table": "categories", "enabled": true }),
        )
        .await;
    let open = |path: &'static str| console.request(Method::GET, path).send();
    let mut changes = open("/realtime/changes?schema=public&table=categories")
        .await
        .unwrap();
    let mut logs = open("/logs/stream").await.unwrap();
    assert_eq!(changes.status(), StatusCode::OK);
    assert_eq!(logs.status(), StatusCode::OK);

    // Past several checks of the session (a second apart on test nodes)
    // the tails are the same streams, and see what happens.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    sqlx::query(
        "insert into public.categories (name, slug) values ('Still tailed', 'still-tailed')",
    )
    .execute(owner_pool(&app))
    .await
    .unwrap();
    read_events_until(&mut changes, "Still tailed").await;
    let (status, _) = console.get("/users").await;
    assert_eq!(status, StatusCode::OK);
    read_events_until(&mut logs, "/_/console/api/users").await;

    // Signed out: both end at their next check.
    let (status, _) = console.send(Method::DELETE, "/session", json!(null)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    for stream in [&mut changes, &mut logs] {
        let ended = tokio::time::timeout(Duration::from_secs(5), async {
            while stream.chunk().await.unwrap().is_some() {}
        })
        .await;
        assert!(ended.is_ok(), "the stream ended with its session");
    }
}
