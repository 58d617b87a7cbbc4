//! Security tests: realtime.
//!
//! Item 5: `postgres_changes` must not tell a subscriber about rows it may
//! not read. A DELETE (the row is gone, RLS cannot be asked) reaches only
//! roles that may select the whole table, and carries only the primary key;
//! filters see only that key; an UPDATE's `old_record` is only the key.
//! Driven over a real websocket against the whole router, the way
//! realtime-js speaks (`vsn=1.0.0` JSON frames).

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

use crate::helpers::TestApp;
use crate::marketplace_support::{
    Actor, category_id, create_user, make_admin, owner_pool, published_template, spawn_marketplace,
    token,
};

const WAIT: Duration = Duration::from_secs(5);

/// Tables made for these tests, beside the marketplace's own:
/// `rt_sealed` no one but the owner may select (no RLS: before the fix a
/// DELETE carried its whole old row), `rt_partial` whose key column alone
/// is granted, `rt_open` readable by everyone, without RLS.
const SETUP: &str = r#"
create table public.rt_sealed (id int primary key, secret text not null);
revoke all on public.rt_sealed from anon, authenticated;
create table public.rt_partial (id int primary key, secret text not null);
revoke all on public.rt_partial from anon, authenticated;
grant select (id) on public.rt_partial to anon, authenticated;
create table public.rt_open (id int primary key, title text not null, note text not null);
select realtime.enable('public', 'rt_sealed');
select realtime.enable('public', 'rt_partial');
select realtime.enable('public', 'rt_open');
"#;

async fn spawn() -> TestApp {
    let app = spawn_marketplace().await;
    sql(&app, SETUP).await;
    app
}

async fn sql(app: &TestApp, sql: &str) {
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
        .execute(owner_pool(app))
        .await
        .unwrap();
}

/// A pending submission of `creator` (as `submit_template` leaves one).
async fn pending(app: &TestApp, creator: Uuid, title: &str) -> Uuid {
    let category = category_id(app, "education").await;
    sqlx::query_scalar(
        "insert into public.templates_pending_approval (creator_id, title, description, category_id)
         values ($1, $2, 'A submission', $3) returning id",
    )
    .bind(creator)
    .bind(title)
    .bind(category)
    .fetch_one(owner_pool(app))
    .await
    .unwrap()
}

async fn delete_pending(app: &TestApp, id: Uuid) {
    sqlx::query("delete from public.templates_pending_approval where id = $1")
        .bind(id)
        .execute(owner_pool(app))
        .await
        .unwrap();
}

async fn upvote(app: &TestApp, template: Uuid, user: Uuid) {
    sqlx::query("insert into public.template_upvotes (template_id, user_id) values ($1, $2)")
        .bind(template)
        .bind(user)
        .execute(owner_pool(app))
        .await
        .unwrap();
}

/// One realtime socket, as realtime-js opens it: the anon key on the URL,
/// the user's token (if any) in each join.
struct Socket {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_ref: u64,
}

impl Socket {
    async fn open(app: &TestApp) -> Self {
        let url = format!(
            "{}/realtime/v1/websocket?apikey={}&vsn=1.0.0",
            app.url.replacen("http://", "ws://", 1),
            app.keys.anon_key
        );
        let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        Self { ws, next_ref: 0 }
    }

    /// Joins `realtime:<name>` with these `postgres_changes` bindings as
    /// `actor`; returns the binding ids, in order.
    async fn join(&mut self, name: &str, actor: Actor, app: &TestApp, bindings: Value) -> Vec<u64> {
        self.next_ref += 1;
        let msg_ref = self.next_ref.to_string();
        let frame = json!({
            "topic": format!("realtime:{name}"),
            "event": "phx_join",
            "ref": msg_ref,
            "join_ref": msg_ref,
            "payload": {
                "config": {
                    "broadcast": {"ack": false, "self": false},
                    "presence": {"key": "", "enabled": false},
                    "postgres_changes": bindings,
                    "private": false,
                },
                "access_token": token(app, actor),
            },
        });
        self.ws
            .send(Message::text(frame.to_string()))
            .await
            .unwrap();
        loop {
            let frame = self.next_frame().await;
            if frame["event"] == "phx_reply" && frame["ref"] == json!(msg_ref) {
                assert_eq!(frame["payload"]["status"], "ok", "join refused: {frame}");
                return frame["payload"]["response"]["postgres_changes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| b["id"].as_u64().unwrap())
                    .collect();
            }
        }
    }

    async fn next_frame(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a frame within the wait")
                .expect("the socket is open")
                .unwrap();
            if let Message::Text(text) = message {
                return serde_json::from_str(&text).unwrap();
            }
        }
    }

    /// The payload (`{ids, data}`) of the next `postgres_changes` push.
    async fn next_change(&mut self) -> Value {
        loop {
            let frame = self.next_frame().await;
            if frame["event"] == "postgres_changes" {
                return frame["payload"].clone();
            }
        }
    }
}

fn schema_wide() -> Value {
    json!([{"event": "*", "schema": "public"}])
}

#[tokio::test]
async fn item_05_schema_wide_bindings_get_no_deletes_of_tables_the_role_cannot_select() {
    let app = spawn().await;
    let creator = create_user(&app, "rt-creator@test.plinth.dev", "Creator").await;
    let submission = pending(&app, creator, "Unannounced").await;
    let category = category_id(&app, "education").await;
    let template = published_template(&app, creator, "Live Template", category, 0.0).await;
    sql(
        &app,
        "insert into public.rt_sealed values (1, 'sealed-secret');
         insert into public.rt_partial values (1, 'partial-secret');",
    )
    .await;

    let mut anon = Socket::open(&app).await;
    anon.join("everything", Actor::Anon, &app, schema_wide())
        .await;

    // Anon may not select any of these tables (the pending queue is revoked
    // from anon, rt_sealed entirely, rt_partial but for its key column).
    delete_pending(&app, submission).await;
    sql(
        &app,
        "delete from public.rt_sealed where id = 1; delete from public.rt_partial where id = 1;",
    )
    .await;
    // Changes reach a socket in commit order: the first one anon gets must
    // be this upvote (readable by anyone), not one of the deletes above.
    upvote(&app, template, creator).await;
    let got = anon.next_change().await;
    assert_eq!(
        (&got["data"]["table"], &got["data"]["type"]),
        (&json!("template_upvotes"), &json!("INSERT")),
        "anon was told of a delete it may not see: {got}"
    );
}

#[tokio::test]
async fn item_05_filters_on_columns_outside_the_key_are_no_oracle_for_deletes() {
    let app = spawn().await;
    let creator = create_user(&app, "rt-creator@test.plinth.dev", "Creator").await;
    let stranger = create_user(&app, "rt-stranger@test.plinth.dev", "Stranger").await;
    let secret = pending(&app, creator, "Secret plan").await;
    let other = pending(&app, creator, "Other plan").await;
    let own = pending(&app, stranger, "My own plan").await;

    // A signed-in stranger may select the pending table (RLS shows it only
    // its own rows), and guesses at the title of someone else's submission.
    let mut socket = Socket::open(&app).await;
    let table = |filter: String| json!({"event": "DELETE", "schema": "public", "table": "templates_pending_approval", "filter": filter});
    let ids = socket
        .join(
            "guess",
            Actor::User(stranger),
            &app,
            json!([
                table("title=eq.Secret plan".into()),
                table("title=neq.Secret plan".into()),
                table("creator_id=is.null".into()),
                table(format!("id=eq.{own}")),
            ]),
        )
        .await;

    delete_pending(&app, secret).await;
    delete_pending(&app, other).await;
    delete_pending(&app, own).await;
    // The first delete that arrives is the stranger's own, through the
    // binding on the key alone: the title filters matched nothing.
    let got = socket.next_change().await;
    assert_eq!(
        got["ids"],
        json!([ids[3]]),
        "a filter on a hidden column matched: {got}"
    );
    assert_eq!(got["data"]["old_record"], json!({"id": own}));
}

#[tokio::test]
async fn item_05_allowed_subscribers_get_deletes_with_only_the_primary_key() {
    let app = spawn().await;
    let creator = create_user(&app, "rt-creator@test.plinth.dev", "Creator").await;
    let admin = create_user(&app, "rt-admin@test.plinth.dev", "Admin").await;
    make_admin(&app, admin).await;
    let submission = pending(&app, creator, "For review").await;
    let category = category_id(&app, "education").await;
    let template = published_template(&app, creator, "Live Template", category, 0.0).await;
    upvote(&app, template, admin).await;
    sql(
        &app,
        "insert into public.rt_open values (1, 'public title', 'public note')",
    )
    .await;

    // The admin's review queue (RLS lets an admin read every pending row).
    let mut queue = Socket::open(&app).await;
    let queue_ids = queue
        .join(
            "admin-review-queue",
            Actor::User(admin),
            &app,
            json!([{"event": "*", "schema": "public", "table": "templates_pending_approval"}]),
        )
        .await;
    // A guest's live upvote count, filtered on a key column.
    let mut guest = Socket::open(&app).await;
    let guest_ids = guest
        .join(
            "template-upvotes",
            Actor::Anon,
            &app,
            json!([{"event": "*", "schema": "public", "table": "template_upvotes",
                    "filter": format!("template_id=eq.{template}")}]),
        )
        .await;
    let mut everything = Socket::open(&app).await;
    let everything_ids = everything
        .join("everything", Actor::Anon, &app, schema_wide())
        .await;

    delete_pending(&app, submission).await;
    let got = queue.next_change().await;
    assert_eq!(got["ids"], json!(queue_ids));
    let data = &got["data"];
    assert_eq!(data["type"], "DELETE");
    assert_eq!(data["schema"], "public");
    assert_eq!(data["table"], "templates_pending_approval");
    assert_eq!(data["errors"], Value::Null);
    assert!(data["commit_timestamp"].as_str().unwrap().ends_with('Z'));
    assert!(data["columns"].as_array().unwrap().len() > 5);
    assert_eq!(data["old_record"], json!({"id": submission}));
    assert!(data.get("record").is_none(), "{data}");

    sqlx::query("delete from public.template_upvotes where template_id = $1")
        .bind(template)
        .execute(owner_pool(&app))
        .await
        .unwrap();
    let got = guest.next_change().await;
    assert_eq!(got["ids"], json!(guest_ids));
    assert_eq!(got["data"]["type"], "DELETE");
    assert_eq!(
        got["data"]["old_record"],
        json!({"template_id": template, "user_id": admin})
    );
    let got = everything.next_change().await;
    assert_eq!(got["data"]["table"], "template_upvotes");
    assert_eq!(got["ids"], json!(everything_ids));

    // A table without RLS: still only the key, not the whole old row.
    sql(&app, "delete from public.rt_open where id = 1").await;
    let got = everything.next_change().await;
    assert_eq!(got["data"]["table"], "rt_open");
    assert_eq!(got["data"]["type"], "DELETE");
    assert_eq!(got["data"]["old_record"], json!({"id": 1}));
}

#[tokio::test]
async fn item_05_update_old_records_carry_only_the_key() {
    let app = spawn().await;
    let creator = create_user(&app, "rt-creator@test.plinth.dev", "Creator").await;
    let admin = create_user(&app, "rt-admin@test.plinth.dev", "Admin").await;
    make_admin(&app, admin).await;
    let submission = pending(&app, creator, "For review").await;
    sql(
        &app,
        "insert into public.rt_open values (1, 'old title', 'old note')",
    )
    .await;

    let mut anon = Socket::open(&app).await;
    anon.join(
        "open",
        Actor::Anon,
        &app,
        json!([{"event": "UPDATE", "schema": "public", "table": "rt_open"}]),
    )
    .await;
    let mut queue = Socket::open(&app).await;
    queue
        .join(
            "queue",
            Actor::User(admin),
            &app,
            json!([{"event": "UPDATE", "schema": "public", "table": "templates_pending_approval"}]),
        )
        .await;

    sql(
        &app,
        "update public.rt_open set title = 'new title' where id = 1",
    )
    .await;
    let got = anon.next_change().await;
    assert_eq!(got["data"]["record"]["title"], "new title");
    assert_eq!(got["data"]["old_record"], json!({"id": 1}));

    // A changed key: the old record holds the old key.
    sql(&app, "update public.rt_open set id = 2 where id = 1").await;
    let got = anon.next_change().await;
    assert_eq!(got["data"]["record"]["id"], 2);
    assert_eq!(got["data"]["old_record"], json!({"id": 1}));

    sqlx::query("update public.templates_pending_approval set title = 'Reviewed' where id = $1")
        .bind(submission)
        .execute(owner_pool(&app))
        .await
        .unwrap();
    let got = queue.next_change().await;
    assert_eq!(got["data"]["record"]["title"], "Reviewed");
    assert_eq!(got["data"]["old_record"], json!({"id": submission}));
}
