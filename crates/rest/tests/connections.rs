//! The gateway's pooled connections when the database drops them (a
//! terminated backend, as `pg_terminate_backend`, `idle_session_timeout` or
//! a restart do): a connection the database closed while it was idle is
//! never written to, so a read or a write answers as if nothing happened;
//! a read whose connection is dropped under it runs once more on another;
//! a write that may have reached the database is never sent twice.

mod support;

use std::time::Duration;

use plinth_db::MigrationSet;
use serde_json::{Value, json};
use support::{App, Res, default_config};

const SCHEMA: &str = r#"
create table notes (id serial primary key, body text not null);
grant select, insert on notes to anon, authenticated, service_role;
grant usage on sequence notes_id_seq to anon, authenticated, service_role;

-- The backend that serves a request.
create function backend_pid() returns int language sql stable as 'select pg_backend_pid()';

-- Counts its calls in transactions that may write (a sequence: kept when
-- the transaction is not), then ends its own backend when that backend
-- started before `since`, that is when it is a connection pooled before.
create sequence calls;
create function end_old_backend(since timestamptz) returns int
language plpgsql security definer as $$
begin
  if not current_setting('transaction_read_only')::boolean then
    perform nextval('calls');
  end if;
  if (select backend_start from pg_stat_activity where pid = pg_backend_pid()) < since then
    perform pg_terminate_backend(pg_backend_pid());
    perform pg_sleep(5);
  end if;
  return pg_backend_pid();
end $$;
grant execute on function backend_pid(), end_old_backend(timestamptz)
  to anon, authenticated, service_role;
"#;

async fn spawn() -> App {
    let schema = MigrationSet::embedded(
        "rest_connections",
        "crates/rest/tests",
        &[("0001_schema.sql", SCHEMA)],
    )
    .expect("test schema set");
    support::spawn_with(schema, default_config()).await
}

fn pid(r: &Res) -> i64 {
    assert_eq!(r.status, 200, "{}", r.text);
    r.json().as_i64().expect("a pid")
}

/// Terminates backend `pid` from the owner's connection and waits until it
/// is gone (its last words, and the end of its stream, were sent).
async fn terminate(app: &App, pid: i64) {
    let owner = &app.test_db.db.owner;
    let ended: bool = sqlx::query_scalar("select pg_terminate_backend($1::int)")
        .bind(pid)
        .fetch_one(owner)
        .await
        .expect("terminate");
    assert!(ended, "backend {pid} was not terminated");
    for _ in 0..200 {
        let left: i64 = sqlx::query_scalar("select count(*) from pg_stat_activity where pid = $1")
            .bind(pid as i32)
            .fetch_one(owner)
            .await
            .expect("pg_stat_activity");
        if left == 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("backend {pid} did not end");
}

async fn server_now(app: &App) -> String {
    sqlx::query_scalar("select clock_timestamp()::text")
        .fetch_one(&app.test_db.db.owner)
        .await
        .expect("now")
}

// Issue 43 item 4: the first request after the database dropped a pooled
// connection answered 503 PGRST001. Such a connection is now dropped when
// the pool would hand it out, before anything is written to it: a read and
// a write both go through on a fresh connection.
#[tokio::test]
async fn a_connection_the_database_closed_is_not_used() {
    let app = spawn().await;
    let first = pid(&app.get("/rpc/backend_pid").await);
    assert_eq!(pid(&app.get("/rpc/backend_pid").await), first, "pooled");
    terminate(&app, first).await;

    let r = app.get("/rpc/backend_pid").await;
    let second = pid(&r);
    assert_ne!(second, first);

    terminate(&app, second).await;
    let token = app.service();
    let r = app
        .req(
            "POST",
            "/notes?select=body",
            Some(&token),
            &[("prefer", "return=representation")],
            Some(json!({"body": "after the drop"})),
        )
        .await;
    assert_eq!(
        (r.status, r.json()),
        (201, json!([{"body": "after the drop"}])),
        "{}",
        r.text
    );
}

// A connection dropped while the request runs on it: a read (a read-only
// transaction) runs once more on another connection and answers 200; a
// write that reached the database is not sent again and answers 503
// PGRST001 (the function counted one call).
#[tokio::test]
async fn a_read_is_retried_once_and_a_write_never() {
    let app = spawn().await;
    let pooled = pid(&app.get("/rpc/backend_pid").await);
    let since = server_now(&app).await;
    let query = format!("/rpc/end_old_backend?since={}", urlencode(&since));

    let r = app.get(&query).await;
    let fresh = pid(&r);
    assert_ne!(fresh, pooled, "the read ran again on a new connection");

    // The connection that served the read is pooled now: ends it too.
    let since = server_now(&app).await;
    let token = app.service();
    let r = app
        .req(
            "POST",
            "/rpc/end_old_backend",
            Some(&token),
            &[],
            Some(json!({"since": since})),
        )
        .await;
    assert_eq!(r.status, 503, "{}", r.text);
    assert_eq!(r.json()["code"], Value::from("PGRST001"), "{}", r.text);
    let calls: i64 =
        sqlx::query_scalar("select case when is_called then last_value else 0 end from calls")
            .fetch_one(&app.test_db.db.owner)
            .await
            .expect("calls");
    assert_eq!(calls, 1, "the write ran once");

    // And the gateway goes on.
    pid(&app.get("/rpc/backend_pid").await);
}

fn urlencode(s: &str) -> String {
    s.replace('+', "%2B")
        .replace(' ', "%20")
        .replace(':', "%3A")
}
