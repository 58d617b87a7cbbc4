//! A table whose id defaults to `uuid_generate_v4()`, as the platform's
//! migrations often write it, takes inserts through /rest/v1 as anon and
//! authenticated (the platform grants the API roles usage on `extensions`);
//! nothing of `extensions` becomes an endpoint, and pgcrypto's wrappers in
//! `public` stay the owner's.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

const SCHEMA: &str = "
create table public.uuid_notes (
  id uuid primary key default uuid_generate_v4(),
  other uuid not null default extensions.uuid_generate_v4(),
  body text not null
);
alter table public.uuid_notes enable row level security;
create policy anyone_writes on public.uuid_notes for insert to anon, authenticated with check (true);
create policy anyone_reads on public.uuid_notes for select to anon, authenticated using (true);
notify pgrst, 'reload schema';
";

fn user_token(app: &TestApp) -> String {
    app.keys.secret.sign(&json!({
        "sub": uuid::Uuid::new_v4().to_string(), "role": "authenticated", "aud": "authenticated",
        "exp": chrono::Utc::now().timestamp() + 600,
    }))
}

async fn rest(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    bearer: &str,
    body: Value,
) -> (StatusCode, Value) {
    let response = reqwest::Client::new()
        .request(method, format!("{}/rest/v1/{path}", app.url))
        .header("apikey", &app.keys.anon_key)
        .header("prefer", "return=representation")
        .bearer_auth(bearer)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

fn is_uuid(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|s| uuid::Uuid::parse_str(s).is_ok())
}

#[tokio::test]
async fn uuid_generate_v4_defaults_take_inserts_from_the_api_roles() {
    let app = spawn_app().await;
    sqlx::raw_sql(SCHEMA)
        .execute(&app.test_db.db.owner)
        .await
        .unwrap();
    let anon = app.keys.anon_key.clone();
    // The schema cache reloads in the background; wait until it has the table.
    for _ in 0..50 {
        let (status, _) = rest(&app, reqwest::Method::GET, "uuid_notes", &anon, Value::Null).await;
        if status == StatusCode::OK {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for (who, bearer) in [("anon", anon.clone()), ("authenticated", user_token(&app))] {
        let (status, rows) = rest(
            &app,
            reqwest::Method::POST,
            "uuid_notes",
            &bearer,
            json!({ "body": who }),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{who}: {rows}");
        assert!(is_uuid(&rows[0]["id"]), "{who}: {rows}");
        assert!(is_uuid(&rows[0]["other"]), "{who}: {rows}");
        assert_ne!(rows[0]["id"], rows[0]["other"]);
    }
}

#[tokio::test]
async fn nothing_else_of_extensions_becomes_callable_by_the_api_roles() {
    let app = spawn_app().await;
    let anon = app.keys.anon_key.clone();
    let user = user_token(&app);
    // pgcrypto's wrappers stay the owner's (a bcrypt of any cost on request).
    for bearer in [&anon, &user] {
        for (function, args) in [
            (
                "crypt",
                json!({ "password": "a", "salt": "$2a$06$abcdefghijklmnopqrstuu" }),
            ),
            ("gen_salt", json!({ "kind": "bf" })),
        ] {
            let (status, body) = rest(
                &app,
                reqwest::Method::POST,
                &format!("rpc/{function}"),
                bearer,
                args,
            )
            .await;
            assert!(
                status == StatusCode::UNAUTHORIZED || status == StatusCode::FORBIDDEN,
                "{function}: {status} {body}"
            );
            assert_eq!(body["code"], "42501", "{function}: {body}");
        }
    }
    // The uuid wrapper is theirs: a random UUID.
    let (status, body) = rest(
        &app,
        reqwest::Method::POST,
        "rpc/uuid_generate_v4",
        &anon,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(is_uuid(&body), "{body}");
    // `extensions` is no API schema.
    let response = reqwest::Client::new()
        .post(format!("{}/rest/v1/rpc/uuid_generate_v4", app.url))
        .header("apikey", &anon)
        .header("content-profile", "extensions")
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_ACCEPTABLE);
    // What the API roles may execute in `extensions` is uuid-ossp's and
    // pgcrypto's own functions, none running as its owner.
    let reachable: Vec<(String, String, bool)> = sqlx::query_as(
        "select coalesce(e.extname, '(none)'), p.proname::text, p.prosecdef
           from pg_proc p
           left join pg_depend d on d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e'
           left join pg_extension e on e.oid = d.refobjid
          where p.pronamespace = 'extensions'::regnamespace
            and (has_function_privilege('anon', p.oid, 'execute')
                 or has_function_privilege('authenticated', p.oid, 'execute'))",
    )
    .fetch_all(&app.test_db.db.owner)
    .await
    .unwrap();
    assert!(
        reachable
            .iter()
            .any(|(ext, name, _)| ext == "uuid-ossp" && name == "uuid_generate_v4")
    );
    for (extension, function, definer) in &reachable {
        assert!(
            extension == "uuid-ossp" || extension == "pgcrypto",
            "{extension}.{function}"
        );
        assert!(!definer, "{function} runs as its owner");
    }
    // Usage, never create: the API roles make nothing in `extensions`.
    let create: bool = sqlx::query_scalar(
        "select has_schema_privilege('anon', 'extensions', 'create')
             or has_schema_privilege('authenticated', 'extensions', 'create')",
    )
    .fetch_one(&app.test_db.db.owner)
    .await
    .unwrap();
    assert!(!create);
}
