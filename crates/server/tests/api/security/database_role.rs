//! Security tests: the database role of the project's own code (issue 42,
//! items 3 and 5).
//!
//! Item 3: the functions' `SUPABASE_DB_URL` named the database superuser,
//! so a function (or any package it imports) could run programs on the
//! host (`copy ... to program`), read the server's files (another
//! function's folder included) and change the server's settings. It now
//! names `project_admin`, the platform's powerful role that is no
//! superuser: it reads and writes the project's tables, but cannot do any
//! of that, nor reach Plinth's private schemas (the console's operators,
//! sealed secrets), nor make itself a member of the roles that could.
//!
//! Item 5: the console's SQL editor ran as the database owner, so even its
//! read-only mode ran programs, read files and reloaded the configuration.
//! It now logs in as `project_admin`, and read-only runs refuse all that
//! with the SQL error the operator sees.

use std::time::Duration;

use plinth_db::project_admin::{PLATFORM_SCHEMAS, PRIVATE_SCHEMAS, SHARED_SCHEMAS};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

use crate::helpers::{Running, free_port, plinth, printed_key, spawn_app, write_things_migration};
use crate::marketplace_support::owner_pool;

/// The SQLSTATE of what `sql` fails with on `conn` (it must fail).
async fn refused(conn: &mut PgConnection, sql: &str) -> String {
    let error = sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
        .execute(&mut *conn)
        .await
        .expect_err(sql);
    error
        .as_database_error()
        .and_then(|e| e.code())
        .map(|c| c.into_owned())
        .unwrap_or_else(|| panic!("{sql}: {error}"))
}

#[tokio::test]
async fn review2_item_03_functions_get_a_role_that_is_not_a_superuser() {
    // A node on a database of the test server (DATABASE_URL): its function
    // says what SUPABASE_DB_URL it was given.
    let test_db = plinth_db::testing::TestDb::new(&[]).await;
    let server = plinth_db::testing::server_url();
    let url = format!("{}/{}", server.rsplit_once('/').unwrap().0, test_db.name);
    let dir = tempfile::tempdir().unwrap();
    write_things_migration(dir.path());
    let function = dir.path().join("functions/db-url");
    std::fs::create_dir_all(&function).unwrap();
    std::fs::write(
        function.join("index.ts"),
        "Deno.serve(() => Response.json({ url: Deno.env.get('SUPABASE_DB_URL') ?? null }))\n",
    )
    .unwrap();
    let port = free_port();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &port.to_string(), "--policies", "none"])
        .env("DATABASE_URL", &url)
        .env(
            "PLINTH_DENO_BIN",
            std::env::var("PLINTH_DENO_BIN").unwrap_or_else(|_| "deno".into()),
        );
    let running = Running::start(cmd);
    let lines = running
        .wait_for("Plinth is ready", Duration::from_secs(90))
        .unwrap_or_else(|seen| panic!("never became ready: {seen:#?}"));
    let anon = printed_key(lines.iter().map(String::as_str), "ANON_KEY");
    let answer: Value = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/functions/v1/db-url"))
        .bearer_auth(&anon)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let given = answer["url"].as_str().unwrap_or_else(|| panic!("{answer}"));
    let options: PgConnectOptions = given.parse().unwrap();
    assert_eq!(options.get_database(), Some(test_db.name.as_str()));
    let mut conn = PgConnection::connect_with(&options).await.unwrap();

    let (user, superuser): (String, bool) =
        sqlx::query_as("select rolname::text, rolsuper from pg_roles where rolname = current_user")
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!((user.as_str(), superuser), ("project_admin", false));
    for sql in [
        // a shell on the host, the server's files, its settings
        "copy (select 1) to program 'true'",
        "select pg_read_file('PG_VERSION')",
        "select pg_ls_dir('.')",
        "copy (select 1) to '/tmp/plinth-review-probe'",
        "alter system reset plinth.review_probe",
        "select pg_reload_conf()",
        // the console's operators and sessions, the functions' sealed secrets
        "select count(*) from plinth_console.operators",
        "select count(*) from plinth_console.sessions",
        "select count(*) from plinth_functions.secrets",
        // another login, or the roles that would give all of the above back
        "set role postgres",
        "set session authorization postgres",
        "grant pg_execute_server_program to project_admin",
        "grant pg_read_server_files to project_admin",
    ] {
        assert_eq!(refused(&mut conn, sql).await, "42501", "{sql}");
    }

    // What the project's own code needs: its tables, read and written (as
    // the API roles too), past row-level security.
    sqlx::raw_sql(
        "insert into public.things values (2); create table public.made_by_a_function (id int)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    let things: i64 = sqlx::query_scalar("select count(*) from public.things")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(things, 2);
    // But nothing that would run its code as Plinth's own login (the
    // migrations' objects are that login's, and so is what writes them): no
    // trigger on their tables, no dropping or replacing them. Its own
    // objects are its to change.
    sqlx::raw_sql(
        "create function public.planted() returns trigger language plpgsql as $$ begin return new; end $$;
         alter table public.made_by_a_function add column note text;
         create trigger planted before insert on public.made_by_a_function
           for each row execute function public.planted()",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    for sql in [
        "create trigger planted before insert on public.things for each row execute function public.planted()",
        "set role service_role; create trigger planted before insert on public.things for each row execute function public.planted()",
        "drop table public.things",
        "alter table public.things add column note text",
        "alter table public.things rename to stolen",
        "alter schema public owner to project_admin",
        "drop schema public cascade",
    ] {
        assert_eq!(refused(&mut conn, sql).await, "42501", "{sql}");
    }
    sqlx::raw_sql("set role service_role; reset role")
        .execute(&mut conn)
        .await
        .unwrap();
    let users: i64 = sqlx::query_scalar("select count(*) from auth.users")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(users, 0);

    // Roles: on PostgreSQL 16 and later it creates them, as the platform's
    // `postgres`. Up to 15, CREATEROLE would let it grant itself
    // pg_execute_server_program, so it has none there.
    let version: i32 = sqlx::query_scalar("select current_setting('server_version_num')::int")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let role = format!("review_probe_{}", plinth_db::random_token(8).to_lowercase());
    let create = format!("create role {role} nologin");
    if version >= 160000 {
        sqlx::raw_sql(sqlx::AssertSqlSafe(create))
            .execute(&mut conn)
            .await
            .unwrap();
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("drop role {role}")))
            .execute(&mut conn)
            .await
            .unwrap();
    } else {
        assert_eq!(refused(&mut conn, &create).await, "42501");
    }
    conn.close().await.unwrap();
    assert!(running.interrupt().success());
}

/// What project_admin reaches in a database with every migration set of
/// the repository: the project's schema (owning none of it), the platform's
/// tables, and nothing of a schema Plinth keeps to itself. A schema a new migration
/// set makes must be named in one of `plinth_db::project_admin`'s lists.
#[tokio::test]
async fn review2_item_03_the_private_schemas_stay_out_of_reach() {
    let app = spawn_app().await;
    let schemas: Vec<(String, String, bool)> = sqlx::query_as(
        "select nspname::text, pg_get_userbyid(nspowner)::text,
                has_schema_privilege('project_admin', oid, 'usage')
                  or has_schema_privilege('project_admin', oid, 'create')
           from pg_namespace
          where nspname not like 'pg\\_%' and nspname <> 'information_schema'
          order by 1",
    )
    .fetch_all(owner_pool(&app))
    .await
    .unwrap();
    for (schema, owner, reached) in &schemas {
        let known = schema == "public"
            || PLATFORM_SCHEMAS.contains(&schema.as_str())
            || SHARED_SCHEMAS.contains(&schema.as_str())
            || PRIVATE_SCHEMAS.contains(&schema.as_str());
        assert!(
            known,
            "the schema {schema} is in no list of plinth_db::project_admin"
        );
        assert_ne!(owner, "project_admin", "{schema} is project_admin's");
        assert_eq!(
            *reached,
            !PRIVATE_SCHEMAS.contains(&schema.as_str()),
            "project_admin and the schema {schema}"
        );
    }
    for private in PRIVATE_SCHEMAS {
        assert!(
            schemas.iter().any(|(s, _, _)| s == private),
            "{private} is no schema of a migrated database: {schemas:?}"
        );
    }
    // The platform's and the project's tables, but no trigger on any of
    // them: Plinth's services and security definer functions write them as
    // its own login, which would run the trigger.
    let (users, users_trigger, profiles, profiles_trigger, create): (bool, bool, bool, bool, bool) =
        sqlx::query_as(
            "select has_table_privilege('project_admin', 'auth.users', 'select'),
                    has_table_privilege('project_admin', 'auth.users', 'trigger'),
                    has_table_privilege('project_admin', 'public.profiles', 'insert'),
                    has_table_privilege('project_admin', 'public.profiles', 'trigger'),
                    has_schema_privilege('project_admin', 'public', 'create')",
        )
        .fetch_one(owner_pool(&app))
        .await
        .unwrap();
    assert_eq!(
        (users, users_trigger, profiles, profiles_trigger, create),
        (true, false, true, false, true)
    );
}

#[tokio::test]
async fn review2_item_05_console_read_only_sql_cannot_run_programs_or_read_files() {
    const OPERATOR: &str = "ops@example.test";
    const PASSWORD: &str = "correct horse battery staple";
    let app = spawn_app().await;
    plinth_console::set_operator(owner_pool(&app), OPERATOR, PASSWORD)
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let base = format!("{}/_/console/api", app.url);
    let signed = http
        .post(format!("{base}/session"))
        .header("x-plinth-console", "1")
        .json(&json!({ "email": OPERATOR, "password": PASSWORD }))
        .send()
        .await
        .unwrap();
    assert_eq!(signed.status(), StatusCode::OK);
    let cookie = signed.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let sql = async |query: &str, read_only: bool| -> (StatusCode, Value) {
        let response = http
            .post(format!("{base}/sql"))
            .header("cookie", &cookie)
            .header("x-plinth-console", "1")
            .json(&json!({ "query": query, "read_only": read_only }))
            .send()
            .await
            .unwrap();
        (
            response.status(),
            response.json().await.unwrap_or(Value::Null),
        )
    };

    for read_only in [true, false] {
        for sql_text in [
            "copy (select 1) to program 'true'",
            "select pg_read_file('/etc/passwd')",
            "select pg_read_binary_file('PG_VERSION')",
            "select pg_reload_conf()",
            "alter system reset plinth.review_probe",
            "select count(*) from plinth_console.operators",
            "set session authorization postgres",
            "set role postgres",
        ] {
            let (status, body) = sql(sql_text, read_only).await;
            assert_eq!(
                (status, &body["error"]),
                (StatusCode::BAD_REQUEST, &json!("sql_error")),
                "{sql_text} (read_only: {read_only}): {body}"
            );
        }
    }
    // Refused for want of privilege, not only for the read-only transaction.
    let (_, body) = sql("copy (select 1) to program 'true'", true).await;
    assert_eq!(body["code"], "42501", "{body}");
    let (_, body) = sql("select pg_read_file('/etc/passwd')", true).await;
    assert_eq!(body["code"], "42501", "{body}");

    // Read-only reads what the project's tables hold, and writes nothing.
    let (status, body) = sql("select current_user, count(*) from auth.users", true).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["results"][0]["rows"], json!([["project_admin", "0"]]));
    let (status, body) = sql(
        "insert into public.categories (name, slug) values ('x', 'x')",
        true,
    )
    .await;
    assert_eq!(
        (status, &body["code"]),
        (StatusCode::BAD_REQUEST, &json!("25006")),
        "{body}"
    );
}
