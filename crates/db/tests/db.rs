//! The db crate against a real PostgreSQL: role switching and claims under
//! row-level security, and the migration runner's refusals.

use plinth_db::testing::TestDb;
use plinth_db::{MigrationSet, RequestContext, platform_migrations};
use serde_json::json;
use sqlx::Row;

const ALICE: &str = "6f1c0b8e-6a57-4d0e-9d4c-2b1f0f3a0a01";
const BOB: &str = "0b4e6f5a-1f53-4c1e-8d1e-7d6a2e0f9b02";

/// A scratch table whose policy says: a signed-in user sees only their own rows.
async fn notes_db() -> TestDb {
    let test = TestDb::new(&[platform_migrations()]).await;
    sqlx::raw_sql(
        "create table public.notes (id serial primary key, owner uuid not null, body text);
         alter table public.notes enable row level security;
         create policy \"users read their own notes\" on public.notes
           for select to authenticated using (owner = auth.uid());
         insert into public.notes (owner, body) values
           ('6f1c0b8e-6a57-4d0e-9d4c-2b1f0f3a0a01', 'alice 1'),
           ('6f1c0b8e-6a57-4d0e-9d4c-2b1f0f3a0a01', 'alice 2'),
           ('0b4e6f5a-1f53-4c1e-8d1e-7d6a2e0f9b02', 'bob 1');",
    )
    .execute(&test.db.owner)
    .await
    .unwrap();
    test
}

fn user(sub: &str) -> RequestContext {
    RequestContext::from_claims(json!({"sub": sub, "role": "authenticated"}), "anon")
}

async fn visible_bodies(test: &TestDb, ctx: &RequestContext) -> Vec<String> {
    let mut tx = test.db.begin_as(ctx).await.unwrap();
    let rows = sqlx::query("select body from public.notes order by id")
        .fetch_all(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    rows.iter().map(|r| r.get::<String, _>(0)).collect()
}

#[tokio::test]
async fn a_policy_sees_the_callers_uid() {
    let test = notes_db().await;
    assert_eq!(
        visible_bodies(&test, &user(ALICE)).await,
        ["alice 1", "alice 2"]
    );
    assert_eq!(visible_bodies(&test, &user(BOB)).await, ["bob 1"]);
    // anon has no policy on the table: row-level security hides every row.
    let anon = RequestContext::from_claims(json!({"role": "anon"}), "anon");
    assert!(visible_bodies(&test, &anon).await.is_empty());
    // service_role bypasses row-level security.
    let service = RequestContext::from_claims(json!({"role": "service_role"}), "anon");
    assert_eq!(visible_bodies(&test, &service).await.len(), 3);
}

#[tokio::test]
async fn role_and_request_settings_last_one_transaction() {
    let test = notes_db().await;
    let mut ctx = user(ALICE);
    ctx.claims["email"] = json!("alice@example.com");
    ctx.method = "GET".into();
    ctx.path = "/rest/v1/notes".into();
    ctx.headers = json!({"x-client-info": "tests"});
    let mut tx = test.db.begin_as(&ctx).await.unwrap();
    let row = sqlx::query(
        "select current_user::text, auth.uid()::text, auth.role(), auth.email(),
                auth.jwt() ->> 'email', current_setting('request.method'),
                current_setting('request.path'),
                current_setting('request.headers')::json ->> 'x-client-info'",
    )
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert_eq!(row.get::<String, _>(0), "authenticated");
    assert_eq!(row.get::<String, _>(1), ALICE);
    assert_eq!(row.get::<String, _>(2), "authenticated");
    assert_eq!(row.get::<String, _>(3), "alice@example.com");
    assert_eq!(row.get::<String, _>(4), "alice@example.com");
    assert_eq!(row.get::<String, _>(5), "GET");
    assert_eq!(row.get::<String, _>(6), "/rest/v1/notes");
    assert_eq!(row.get::<String, _>(7), "tests");
    tx.commit().await.unwrap();

    // The same pooled connection afterwards is back to authenticator, with no claims.
    let mut conn = test.db.api.acquire().await.unwrap();
    let (role, uid): (String, Option<String>) = sqlx::query_as(
        "select current_user::text, nullif(current_setting('request.jwt.claims', true), '')",
    )
    .fetch_one(&mut *conn)
    .await
    .unwrap();
    assert_eq!(role, "authenticator");
    assert_eq!(
        uid, None,
        "claims of an earlier request leaked into the pool"
    );
}

#[tokio::test]
async fn the_request_pool_cannot_become_an_unlisted_role() {
    let test = notes_db().await;
    let ctx = RequestContext::from_claims(json!({"role": "postgres"}), "anon");
    let err = test.db.begin_as(&ctx).await.unwrap_err();
    let message = err.to_string();
    assert!(message.contains("permission denied"), "{message}");
    // authenticator itself holds no privileges on the table.
    let result = sqlx::query("select * from public.notes")
        .fetch_all(&test.db.api)
        .await;
    assert!(result.is_err());
}

#[tokio::test]
async fn an_edited_migration_is_refused_by_name() {
    let test = TestDb::new(&[platform_migrations()]).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("20261122000000_things.sql");
    std::fs::write(&file, "create table public.things (id int primary key);").unwrap();
    let set = MigrationSet::from_dir("project", dir.path()).unwrap();
    set.run(&test.db.owner).await.unwrap();
    // Running again is a no-op.
    set.run(&test.db.owner).await.unwrap();

    std::fs::write(&file, "create table public.things (id bigint primary key);").unwrap();
    let edited = MigrationSet::from_dir("project", dir.path()).unwrap();
    let message = edited.run(&test.db.owner).await.unwrap_err().to_string();
    assert!(message.contains("20261122000000_things.sql"), "{message}");
    assert!(message.contains("edited"), "{message}");
}

#[tokio::test]
async fn a_failing_migration_names_its_file_and_applies_nothing_of_it() {
    let test = TestDb::new(&[platform_migrations()]).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("1_good.sql"),
        "create table public.good (id int);",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("2_bad.sql"),
        "create table public.half (id int); select * from missing_table;",
    )
    .unwrap();
    let set = MigrationSet::from_dir("project", dir.path()).unwrap();
    let message = set.run(&test.db.owner).await.unwrap_err().to_string();
    assert!(message.contains("2_bad.sql"), "{message}");
    assert!(message.contains("missing_table"), "{message}");
    let tables: Vec<String> = sqlx::query_scalar(
        "select tablename::text from pg_tables where schemaname = 'public' order by 1",
    )
    .fetch_all(&test.db.owner)
    .await
    .unwrap();
    assert_eq!(tables, ["good"]);
}

#[tokio::test]
async fn sets_are_tracked_apart() {
    let test = TestDb::new(&[platform_migrations()]).await;
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    // The same version in two sets is no conflict.
    std::fs::write(a.path().join("1_a.sql"), "create table public.a (id int);").unwrap();
    std::fs::write(b.path().join("1_b.sql"), "create table public.b (id int);").unwrap();
    let sets = [
        MigrationSet::from_dir("project", a.path()).unwrap(),
        MigrationSet::from_dir("policies", b.path()).unwrap(),
    ];
    plinth_db::migrate::run_all(&test.db.owner, &sets)
        .await
        .unwrap();
    for (table, file) in [("project", "1_a.sql"), ("policies", "1_b.sql")] {
        let recorded: Vec<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "select description from plinth.migrations_{table}"
        )))
        .fetch_all(&test.db.owner)
        .await
        .unwrap();
        assert_eq!(recorded.len(), 1, "{table}: {recorded:?}");
        assert!(recorded[0].ends_with(file), "{table}: {recorded:?}");
    }
}
