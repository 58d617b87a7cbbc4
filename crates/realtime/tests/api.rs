//! The realtime service end to end: a real websocket client against a real
//! node (or two) on a fresh, migrated database per test.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::{SinkExt, StreamExt};
use plinth_db::testing::TestDb;
use plinth_db::{Database, JwtSecret};
use plinth_realtime::{RealtimeConfig, RealtimeState};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};
use uuid::Uuid;

const SECRET: &str = "realtime-test-secret-of-at-least-32-chars";
const WAIT: Duration = Duration::from_secs(5);
const QUIET: Duration = Duration::from_millis(600);

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A node serving the realtime router at `/realtime/v1` on port 0.
struct Node {
    addr: SocketAddr,
    state: RealtimeState,
}

impl Node {
    async fn start(db: Database, config: RealtimeConfig) -> Self {
        let jwt = JwtSecret::new(SECRET).unwrap();
        let state = RealtimeState::new(db, jwt, config).await.unwrap();
        let app = axum::Router::new().nest("/realtime/v1", plinth_realtime::router(state.clone()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self { addr, state }
    }

    fn ws_url(&self, token: &str, vsn: &str) -> String {
        format!(
            "ws://{}/realtime/v1/websocket?apikey={token}&vsn={vsn}",
            self.addr
        )
    }

    fn http_url(&self, path: &str) -> String {
        format!("http://{}/realtime/v1{path}", self.addr)
    }
}

struct App {
    test_db: TestDb,
    node: Node,
    jwt: JwtSecret,
    anon: String,
}

const SETUP: &str = r#"
create table public.notes (
  id bigint generated always as identity primary key,
  owner uuid not null,
  n int not null default 0,
  body text not null default ''
);
alter table public.notes enable row level security;
create policy "owners read their notes" on public.notes
  for select to authenticated using (owner = auth.uid());
create policy "anon reads nothing" on public.notes for select to anon using (false);
select realtime.enable('public', 'notes');

create table public.open_board (id int primary key, title text);
create table public.hidden (id int primary key);
revoke all on public.hidden from anon, authenticated;
select realtime.enable('public', 'open_board');
"#;

async fn spawn_app() -> App {
    spawn_app_with(RealtimeConfig::default()).await
}

async fn spawn_app_with(config: RealtimeConfig) -> App {
    let test_db = TestDb::new(&[
        plinth_db::platform_migrations(),
        plinth_realtime::migrations(),
    ])
    .await;
    sqlx::raw_sql(SETUP)
        .execute(&test_db.db.owner)
        .await
        .unwrap();
    let node = Node::start(test_db.db.clone(), config).await;
    let jwt = JwtSecret::new(SECRET).unwrap();
    let anon = jwt.api_key("anon", now(), now() + 3600);
    App {
        test_db,
        node,
        jwt,
        anon,
    }
}

impl App {
    fn user_token(&self, user: Uuid, expires_in: i64) -> String {
        self.jwt.sign(&json!({
            "sub": user, "role": "authenticated", "aud": "authenticated",
            "exp": now() + expires_in, "iat": now(),
        }))
    }

    async fn second_node(&self, config: RealtimeConfig) -> Node {
        Node::start(self.test_db.db.clone(), config).await
    }

    async fn insert_note(&self, owner: Uuid, n: i32) -> i64 {
        sqlx::query_scalar("insert into public.notes (owner, n) values ($1, $2) returning id")
            .bind(owner)
            .bind(n)
            .fetch_one(&self.test_db.db.owner)
            .await
            .unwrap()
    }

    async fn sql(&self, sql: &str) {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&self.test_db.db.owner)
            .await
            .unwrap();
    }

    async fn client(&self, vsn: &str) -> Client {
        Client::connect(&self.node, &self.anon, vsn).await
    }
}

/// One received message, whatever the version.
#[derive(Debug, Clone)]
struct Msg {
    join_ref: Value,
    msg_ref: Value,
    topic: String,
    event: String,
    payload: Value,
}

enum Received {
    Msg(Msg),
    Close(Option<u16>),
}

struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    v2: bool,
    next_ref: u64,
    join_refs: HashMap<String, String>,
}

impl Client {
    async fn connect(node: &Node, token: &str, vsn: &str) -> Self {
        let (ws, _) = tokio_tungstenite::connect_async(node.ws_url(token, vsn))
            .await
            .unwrap();
        Self {
            ws,
            v2: vsn == "2.0.0",
            next_ref: 0,
            join_refs: HashMap::new(),
        }
    }

    fn take_ref(&mut self) -> String {
        self.next_ref += 1;
        self.next_ref.to_string()
    }

    async fn send_raw(&mut self, message: Message) {
        self.ws.send(message).await.unwrap();
    }

    async fn send(
        &mut self,
        join_ref: Option<&str>,
        msg_ref: &str,
        topic: &str,
        event: &str,
        payload: Value,
    ) {
        let text = if self.v2 {
            json!([join_ref, msg_ref, topic, event, payload]).to_string()
        } else {
            json!({"join_ref": join_ref, "ref": msg_ref, "topic": topic, "event": event, "payload": payload})
                .to_string()
        };
        self.send_raw(Message::text(text)).await;
    }

    /// Pushes `event` on a joined `topic`; returns the ref.
    async fn push(&mut self, topic: &str, event: &str, payload: Value) -> String {
        let msg_ref = self.take_ref();
        let join_ref = self.join_refs.get(topic).cloned();
        self.send(join_ref.as_deref(), &msg_ref, topic, event, payload)
            .await;
        msg_ref
    }

    /// Joins `realtime:<name>` and returns the reply's payload.
    async fn join(&mut self, name: &str, config: Value, access_token: Option<&str>) -> Value {
        let topic = format!("realtime:{name}");
        let msg_ref = self.take_ref();
        self.join_refs.insert(topic.clone(), msg_ref.clone());
        let mut payload = json!({"config": config, "version": "realtime-js/test"});
        if let Some(token) = access_token {
            payload["access_token"] = json!(token);
        }
        self.send(Some(&msg_ref), &msg_ref, &topic, "phx_join", payload)
            .await;
        self.reply(&msg_ref).await.payload
    }

    async fn next(&mut self) -> Option<Received> {
        loop {
            let message = match tokio::time::timeout(WAIT, self.ws.next()).await {
                Err(_) => return None,
                Ok(None) | Ok(Some(Err(_))) => return Some(Received::Close(None)),
                Ok(Some(Ok(m))) => m,
            };
            let text = match message {
                Message::Text(t) => t.to_string(),
                Message::Close(frame) => {
                    return Some(Received::Close(frame.map(|f| u16::from(f.code))));
                }
                _ => continue,
            };
            let value: Value = serde_json::from_str(&text).unwrap();
            let msg = if self.v2 {
                let items = value.as_array().expect("v2 frames are arrays").clone();
                Msg {
                    join_ref: items[0].clone(),
                    msg_ref: items[1].clone(),
                    topic: items[2].as_str().unwrap().to_owned(),
                    event: items[3].as_str().unwrap().to_owned(),
                    payload: items[4].clone(),
                }
            } else {
                assert!(value.is_object(), "v1 frames are objects: {value}");
                Msg {
                    join_ref: value["join_ref"].clone(),
                    msg_ref: value["ref"].clone(),
                    topic: value["topic"].as_str().unwrap().to_owned(),
                    event: value["event"].as_str().unwrap().to_owned(),
                    payload: value["payload"].clone(),
                }
            };
            return Some(Received::Msg(msg));
        }
    }

    /// The next message with `event` (others skipped).
    async fn expect(&mut self, event: &str) -> Msg {
        loop {
            match self.next().await {
                Some(Received::Msg(m)) if m.event == event => return m,
                Some(Received::Msg(_)) => continue,
                Some(Received::Close(code)) => {
                    panic!("socket closed ({code:?}) waiting for {event}")
                }
                None => panic!("no {event} within {WAIT:?}"),
            }
        }
    }

    /// The reply to `msg_ref`.
    async fn reply(&mut self, msg_ref: &str) -> Msg {
        loop {
            let m = self.expect("phx_reply").await;
            if m.msg_ref == json!(msg_ref) {
                return m;
            }
        }
    }

    /// Asserts no message with `event` arrives for a little while.
    async fn expect_none(&mut self, event: &str) {
        let deadline = tokio::time::Instant::now() + QUIET;
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => return,
                Ok(Some(Ok(Message::Text(t)))) => {
                    let value: Value = serde_json::from_str(&t).unwrap();
                    let got = if self.v2 {
                        value[3].clone()
                    } else {
                        value["event"].clone()
                    };
                    assert_ne!(got, json!(event), "unexpected {event}: {t}");
                }
                Ok(_) => {}
            }
        }
    }

    /// Waits for the next binary message (text ones are skipped).
    async fn expect_binary(&mut self) -> Vec<u8> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            match tokio::time::timeout_at(deadline, self.ws.next()).await {
                Err(_) => panic!("no binary message within {WAIT:?}"),
                Ok(Some(Ok(Message::Binary(bytes)))) => return bytes.to_vec(),
                Ok(Some(Ok(_))) => {}
                Ok(other) => panic!("the socket ended: {other:?}"),
            }
        }
    }

    /// Waits for the server's close frame; returns its code.
    async fn expect_close(&mut self) -> Option<u16> {
        loop {
            match self.next().await {
                Some(Received::Close(code)) => return code,
                Some(Received::Msg(_)) => continue,
                None => panic!("socket not closed within {WAIT:?}"),
            }
        }
    }

    async fn heartbeat(&mut self) {
        let msg_ref = self.take_ref();
        self.send(None, &msg_ref, "phoenix", "heartbeat", json!({}))
            .await;
        let reply = self.reply(&msg_ref).await;
        assert_eq!(reply.payload, json!({"status": "ok", "response": {}}));
    }
}

fn changes_config(entries: Value) -> Value {
    json!({
        "broadcast": {"ack": false, "self": false},
        "presence": {"key": "", "enabled": false},
        "postgres_changes": entries,
        "private": false,
    })
}

fn broadcast_config(ack: bool, self_: bool) -> Value {
    json!({"broadcast": {"ack": ack, "self": self_}, "presence": {"key": "", "enabled": false}, "postgres_changes": []})
}

/// A user broadcast as realtime-js sends it in binary (kind 3, JSON).
fn kind3(join_ref: &str, msg_ref: &str, topic: &str, event: &str, payload: &Value) -> Vec<u8> {
    kind3_encoded(
        join_ref,
        msg_ref,
        topic,
        event,
        1,
        payload.to_string().as_bytes(),
    )
}

/// A user broadcast push whose payload is `body` in `encoding` (0: bytes,
/// 1: JSON), as realtime-js encodes it.
fn kind3_encoded(
    join_ref: &str,
    msg_ref: &str,
    topic: &str,
    event: &str,
    encoding: u8,
    body: &[u8],
) -> Vec<u8> {
    let meta = "{}";
    let mut out = vec![
        3,
        join_ref.len() as u8,
        msg_ref.len() as u8,
        topic.len() as u8,
        event.len() as u8,
        meta.len() as u8,
        encoding,
    ];
    for part in [join_ref, msg_ref, topic, event, meta] {
        out.extend_from_slice(part.as_bytes());
    }
    out.extend_from_slice(body);
    out
}

/// A user broadcast (kind 4) as realtime-js decodes it: (topic, event,
/// encoding, payload).
fn read_kind4(bytes: &[u8]) -> (String, String, u8, Vec<u8>) {
    assert_eq!(bytes[0], 4, "kind");
    let (topic_len, event_len, meta_len) =
        (bytes[1] as usize, bytes[2] as usize, bytes[3] as usize);
    let mut at = 5;
    let topic = String::from_utf8(bytes[at..at + topic_len].to_vec()).unwrap();
    at += topic_len;
    let event = String::from_utf8(bytes[at..at + event_len].to_vec()).unwrap();
    at += event_len + meta_len;
    (topic, event, bytes[4], bytes[at..].to_vec())
}

async fn upgrade_refusal(url: String) -> (u16, Value) {
    match tokio_tungstenite::connect_async(url).await {
        Ok(_) => panic!("the upgrade was accepted"),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            let body = response.body().clone().unwrap_or_default();
            (
                response.status().as_u16(),
                serde_json::from_slice(&body).unwrap_or(Value::Null),
            )
        }
        Err(other) => panic!("unexpected error {other}"),
    }
}

// ---------------------------------------------------------------- socket

#[tokio::test]
async fn heartbeats_are_answered_in_both_versions() {
    let app = spawn_app().await;
    let mut v2 = app.client("2.0.0").await;
    v2.heartbeat().await;
    let mut v1 = app.client("1.0.0").await;
    v1.send_raw(Message::text(
        r#"{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"7"}"#,
    ))
    .await;
    let reply = v1.reply("7").await;
    assert_eq!(reply.topic, "phoenix");
    assert_eq!(reply.payload["status"], "ok");
}

#[tokio::test]
async fn upgrades_without_a_valid_key_are_refused_with_the_platform_messages() {
    let app = spawn_app().await;
    let url = |token: &str| app.node.ws_url(token, "2.0.0");
    let no_key = format!("ws://{}/realtime/v1/websocket?vsn=2.0.0", app.node.addr);
    assert_eq!(
        upgrade_refusal(no_key).await,
        (401, json!({"error": "API key is missing"}))
    );
    let expired = app.jwt.api_key("anon", now() - 100, now() - 10);
    assert_eq!(
        upgrade_refusal(url(&expired)).await,
        (401, json!({"error": "Token has expired"}))
    );
    let foreign = JwtSecret::new("another-secret-of-at-least-32-characters").unwrap();
    let (status, body) = upgrade_refusal(url(&foreign.api_key("anon", now(), now() + 60))).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (401, Some("Failed to validate JWT signature"))
    );
    assert_eq!(upgrade_refusal(url("garbage")).await.0, 401);
    let no_exp = app.jwt.sign(&json!({"role": "anon"}));
    assert_eq!(
        upgrade_refusal(url(&no_exp)).await,
        (
            401,
            json!({"error": "Fields `role` and `exp` are required in JWT"})
        )
    );
    assert_eq!(
        upgrade_refusal(app.node.ws_url(&app.anon, "9.9.9")).await.0,
        400
    );
}

#[tokio::test]
async fn join_and_leave_follow_the_phoenix_protocol() {
    let app = spawn_app().await;
    let mut c = app.client("2.0.0").await;
    let reply = c.join("room-1", broadcast_config(false, false), None).await;
    assert_eq!(reply, json!({"status": "ok", "response": {}}));

    let leave_ref = c.push("realtime:room-1", "phx_leave", json!({})).await;
    let reply = c.reply(&leave_ref).await;
    assert_eq!(reply.payload["status"], "ok");
    let close = c.expect("phx_close").await;
    assert_eq!(close.topic, "realtime:room-1");
    assert_eq!(close.join_ref, json!("1"));

    // Once left, the topic is unknown.
    let r = c
        .push(
            "realtime:room-1",
            "broadcast",
            json!({"type": "broadcast", "event": "x", "payload": {}}),
        )
        .await;
    assert_eq!(
        c.reply(&r).await.payload["response"]["reason"],
        "unmatched topic"
    );

    // Topics outside realtime: are refused; joining again works.
    let r = c.take_ref();
    c.send(Some(&r), &r, "elsewhere", "phx_join", json!({}))
        .await;
    assert_eq!(c.reply(&r).await.payload["status"], "error");
    assert_eq!(c.join("room-1", json!({}), None).await["status"], "ok");
}

#[tokio::test]
async fn bad_frames_get_errors_and_the_socket_lives_on() {
    let app = spawn_app().await;
    let mut c = app.client("2.0.0").await;
    c.send_raw(Message::text("this is not json")).await;
    let err = c.expect("phx_error").await;
    assert_eq!(err.topic, "phoenix");

    c.send_raw(Message::text(
        r#"["1","2","realtime:x","phx_join","not an object"]"#,
    ))
    .await;
    let reply = c.reply("2").await;
    assert_eq!(reply.payload["status"], "error");

    c.send_raw(Message::binary(vec![3, 250, 0, 0])).await;
    c.expect("phx_error").await;

    c.join("x", broadcast_config(true, false), None).await;
    let r = c.push("realtime:x", "what_is_this", json!({})).await;
    assert_eq!(
        c.reply(&r).await.payload["response"]["reason"],
        "unknown event"
    );
    let r = c
        .push("realtime:x", "broadcast", json!({"type": "broadcast"}))
        .await;
    assert_eq!(c.reply(&r).await.payload["status"], "error");
    let r = c
        .push(
            "realtime:x",
            "presence",
            json!({"type": "presence", "event": "track", "payload": 5}),
        )
        .await;
    assert_eq!(
        c.reply(&r).await.payload["response"]["reason"],
        "Presence track payload must be a map"
    );
    let r = c.take_ref();
    c.send(None, &r, "phoenix", "something", json!({})).await;
    assert_eq!(c.reply(&r).await.payload["status"], "error");
    // v1 binary frames are refused, not fatal.
    let mut v1 = app.client("1.0.0").await;
    v1.send_raw(Message::binary(kind3(
        "1",
        "2",
        "realtime:x",
        "e",
        &json!({}),
    )))
    .await;
    v1.expect("phx_error").await;
    v1.heartbeat().await;
    c.heartbeat().await;
}

// ------------------------------------------------------------- broadcast

#[tokio::test]
async fn broadcast_reaches_others_with_ack_and_self_as_configured() {
    let app = spawn_app().await;
    let mut a = app.client("2.0.0").await;
    let mut b = app.client("2.0.0").await;
    let mut me = app.client("1.0.0").await;
    a.join("room", broadcast_config(true, false), None).await;
    b.join("room", broadcast_config(false, false), None).await;
    me.join("room", broadcast_config(false, true), None).await;

    let r = a
        .push(
            "realtime:room",
            "broadcast",
            json!({"type": "broadcast", "event": "msg", "payload": {"n": 1}}),
        )
        .await;
    assert_eq!(
        a.reply(&r).await.payload,
        json!({"status": "ok", "response": {}})
    );
    for client in [&mut b, &mut me] {
        let got = client.expect("broadcast").await;
        assert_eq!(got.topic, "realtime:room");
        assert_eq!(
            got.payload,
            json!({"type": "broadcast", "event": "msg", "payload": {"n": 1}})
        );
    }
    a.expect_none("broadcast").await;

    // Without ack: no reply. With self: the sender hears itself.
    let r = b
        .push(
            "realtime:room",
            "broadcast",
            json!({"type": "broadcast", "event": "m2", "payload": {}}),
        )
        .await;
    assert_eq!(a.expect("broadcast").await.payload["event"], "m2");
    me.push(
        "realtime:room",
        "broadcast",
        json!({"type": "broadcast", "event": "m3", "payload": {}}),
    )
    .await;
    assert_eq!(me.expect("broadcast").await.payload["event"], "m2");
    assert_eq!(me.expect("broadcast").await.payload["event"], "m3");
    b.expect_none("phx_reply").await;
    let _ = r;
}

#[tokio::test]
async fn binary_user_broadcasts_are_accepted_in_v2() {
    let app = spawn_app().await;
    let mut a = app.client("2.0.0").await;
    let mut b = app.client("1.0.0").await;
    a.join("bin", broadcast_config(true, false), None).await;
    b.join("bin", broadcast_config(false, false), None).await;
    a.send_raw(Message::binary(kind3(
        "1",
        "9",
        "realtime:bin",
        "cursor",
        &json!({"x": 3}),
    )))
    .await;
    assert_eq!(a.reply("9").await.payload["status"], "ok");
    let got = b.expect("broadcast").await;
    assert_eq!(
        got.payload,
        json!({"type": "broadcast", "event": "cursor", "payload": {"x": 3}})
    );
}

#[tokio::test]
async fn byte_payloads_reach_v2_sockets_as_user_broadcasts_on_every_node() {
    let app = spawn_app().await;
    let other = app.second_node(RealtimeConfig::default()).await;
    let mut a = app.client("2.0.0").await;
    let mut here = app.client("2.0.0").await;
    let mut v1 = app.client("1.0.0").await;
    let mut there = Client::connect(&other, &app.anon, "2.0.0").await;
    a.join("bin", broadcast_config(true, false), None).await;
    here.join("bin", broadcast_config(false, false), None).await;
    v1.join("bin", broadcast_config(false, false), None).await;
    there
        .join("bin", broadcast_config(false, false), None)
        .await;

    let bytes: Vec<u8> = (0..=255u8).chain([0, 0, 255]).collect();
    a.send_raw(Message::binary(kind3_encoded(
        "1",
        "9",
        "realtime:bin",
        "blob",
        0,
        &bytes,
    )))
    .await;
    assert_eq!(a.reply("9").await.payload["status"], "ok");
    for client in [&mut here, &mut there] {
        let (topic, event, encoding, payload) = read_kind4(&client.expect_binary().await);
        assert_eq!(
            (topic.as_str(), event.as_str(), encoding),
            ("realtime:bin", "blob", 0)
        );
        assert_eq!(payload, bytes);
    }
    // A 1.0.0 socket cannot carry bytes: it is not sent them.
    v1.expect_none("broadcast").await;

    // httpSend of bytes (application/octet-stream) arrives the same way.
    let response = reqwest::Client::new()
        .post(app.node.http_url("/api/broadcast/bin/events/upload"))
        .header("apikey", &app.anon)
        .header("content-type", "application/octet-stream")
        .body(bytes.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    for client in [&mut here, &mut there] {
        let (_, event, encoding, payload) = read_kind4(&client.expect_binary().await);
        assert_eq!((event.as_str(), encoding), ("upload", 0));
        assert_eq!(payload, bytes);
    }
    // An unknown encoding is refused on the push's ref.
    a.send_raw(Message::binary(kind3_encoded(
        "1",
        "10",
        "realtime:bin",
        "blob",
        7,
        b"x",
    )))
    .await;
    assert_eq!(
        a.reply("10").await.payload["response"]["reason"],
        "unknown broadcast payload encoding"
    );
}

#[tokio::test]
async fn http_broadcast_answers_202_and_delivers() {
    let app = spawn_app().await;
    let mut c = app.client("2.0.0").await;
    c.join("news", broadcast_config(false, false), None).await;
    let http = reqwest::Client::new();
    let response = http
        .post(app.node.http_url("/api/broadcast"))
        .header("apikey", &app.anon)
        .json(&json!({"messages": [{"topic": "news", "event": "flash", "payload": {"a": 1}, "private": false}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    let got = c.expect("broadcast").await;
    assert_eq!(
        got.payload,
        json!({"type": "broadcast", "event": "flash", "payload": {"a": 1}})
    );

    let response = http
        .post(app.node.http_url("/api/broadcast/news/events/second"))
        .header("apikey", &app.anon)
        .header("authorization", format!("Bearer {}", app.anon))
        .json(&json!({"b": 2}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 202);
    assert_eq!(
        c.expect("broadcast").await.payload["payload"],
        json!({"b": 2})
    );

    let response = http
        .post(app.node.http_url("/api/broadcast"))
        .json(&json!({"messages": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "API key is missing");
    let response = http
        .post(app.node.http_url("/api/broadcast"))
        .header("apikey", &app.anon)
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
}

// ------------------------------------------------------ postgres_changes

#[tokio::test]
async fn changes_reach_only_subscribers_who_may_read_the_row() {
    let app = spawn_app().await;
    let (alice, bob) = (Uuid::new_v4(), Uuid::new_v4());
    let mut a = app.client("2.0.0").await;
    let mut b = app.client("2.0.0").await;
    let mut anon = app.client("1.0.0").await;
    let entries = json!([{"event": "*", "schema": "public", "table": "notes"}]);
    let reply = a
        .join(
            "notes",
            changes_config(entries.clone()),
            Some(&app.user_token(alice, 3600)),
        )
        .await;
    assert_eq!(reply["status"], "ok");
    let binding = &reply["response"]["postgres_changes"][0];
    assert_eq!(binding["event"], "*");
    assert_eq!(binding["schema"], "public");
    assert_eq!(binding["table"], "notes");
    let id = binding["id"].clone();
    assert!(id.is_number());
    let system = a.expect("system").await;
    assert_eq!(system.payload["status"], "ok");
    assert_eq!(system.payload["extension"], "postgres_changes");
    b.join(
        "notes",
        changes_config(entries.clone()),
        Some(&app.user_token(bob, 3600)),
    )
    .await;
    anon.join("notes", changes_config(entries), None).await;

    let note = app.insert_note(alice, 1).await;
    let got = a.expect("postgres_changes").await;
    assert_eq!(got.payload["ids"], json!([id]));
    let data = &got.payload["data"];
    assert_eq!(data["schema"], "public");
    assert_eq!(data["table"], "notes");
    assert_eq!(data["type"], "INSERT");
    assert_eq!(data["errors"], Value::Null);
    assert_eq!(data["record"]["id"], json!(note));
    assert_eq!(data["record"]["owner"], json!(alice));
    assert!(data["commit_timestamp"].as_str().unwrap().ends_with('Z'));
    let columns: Vec<&str> = data["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(columns, ["int8", "uuid", "int4", "text"]);
    b.expect_none("postgres_changes").await;
    anon.expect_none("postgres_changes").await;

    app.sql(&format!(
        "update public.notes set body = 'secret' where id = {note}"
    ))
    .await;
    let got = a.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["type"], "UPDATE");
    assert_eq!(got.payload["data"]["record"]["body"], "secret");
    // RLS tables: the old record carries only the key.
    assert_eq!(got.payload["data"]["old_record"], json!({"id": note}));
    b.expect_none("postgres_changes").await;

    // A delete carries nothing but the key, to every subscriber of the table.
    app.sql(&format!("delete from public.notes where id = {note}"))
        .await;
    for client in [&mut a, &mut b] {
        let got = client.expect("postgres_changes").await;
        assert_eq!(got.payload["data"]["type"], "DELETE");
        assert_eq!(got.payload["data"]["old_record"], json!({"id": note}));
        assert!(got.payload["data"].get("record").is_none());
    }
}

#[tokio::test]
async fn events_and_filters_select_what_is_delivered() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let token = app.user_token(alice, 3600);
    let mut c = app.client("2.0.0").await;
    let reply = c
        .join(
            "filtered",
            changes_config(json!([
                {"event": "INSERT", "schema": "public", "table": "notes", "filter": "n=gt.5"},
                {"event": "UPDATE", "schema": "public", "table": "notes", "filter": "n=in.(1,2)"},
                {"event": "INSERT", "schema": "public", "table": "notes", "filter": "n=eq.7"},
                {"event": "*", "schema": "public", "table": "open_board", "filter": "title=neq.skip"},
                {"event": "INSERT", "schema": "public", "table": "open_board", "filter": "id=lte.2"}
            ])),
            Some(&token),
        )
        .await;
    let bindings = reply["payload"].clone();
    let _ = bindings;
    let ids: Vec<Value> = reply["response"]["postgres_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].clone())
        .collect();
    assert_eq!(ids.len(), 5);
    assert_eq!(reply["response"]["postgres_changes"][0]["filter"], "n=gt.5");

    app.insert_note(alice, 3).await; // no binding matches
    app.insert_note(alice, 7).await; // bindings 0 and 2
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["record"]["n"], 7);
    assert_eq!(got.payload["ids"], json!([ids[0], ids[2]]));

    app.sql("update public.notes set n = 2 where n = 3").await; // binding 1
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["type"], "UPDATE");
    assert_eq!(got.payload["ids"], json!([ids[1]]));

    app.sql("insert into public.open_board values (1, 'skip'), (2, 'keep'), (3, 'keep')")
        .await;
    let got = c.expect("postgres_changes").await; // id 1: only the lte binding
    assert_eq!(got.payload["data"]["record"]["id"], 1);
    assert_eq!(got.payload["ids"], json!([ids[4]]));
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["record"]["id"], 2);
    assert_eq!(got.payload["ids"], json!([ids[3], ids[4]]));
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["record"]["id"], 3);
    assert_eq!(got.payload["ids"], json!([ids[3]]));
    // The old record is the key (the platform's replica identity default).
    app.sql("update public.open_board set title = 'new' where id = 3")
        .await;
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["old_record"], json!({"id": 3}));
    c.expect_none("postgres_changes").await;
}

#[tokio::test]
async fn deletes_reach_only_roles_that_may_read_the_table_and_tell_only_the_key() {
    let app = spawn_app().await;
    app.sql(
        "create table public.sealed (id int primary key, secret text);
         revoke all on public.sealed from anon, authenticated;
         select realtime.enable('public', 'sealed');
         create table public.full_board (id int primary key, title text);
         alter table public.full_board replica identity full;
         select realtime.enable('public', 'full_board');
         insert into public.sealed values (1, 'hidden');
         insert into public.full_board values (1, 'a'), (2, 'b');",
    )
    .await;
    let alice = Uuid::new_v4();
    let note = app.insert_note(alice, 7).await;
    let mut anon = app.client("2.0.0").await;
    anon.join(
        "everything",
        changes_config(json!([{"event": "*", "schema": "public"}])),
        None,
    )
    .await;
    let mut c = app.client("2.0.0").await;
    let reply = c
        .join(
            "deletes",
            changes_config(json!([
                {"event": "DELETE", "schema": "public", "table": "notes", "filter": "n=eq.7"},
                {"event": "DELETE", "schema": "public", "table": "notes", "filter": format!("id=eq.{note}")},
                {"event": "*", "schema": "public", "table": "full_board", "filter": "title=eq.c"}
            ])),
            Some(&app.user_token(Uuid::new_v4(), 3600)),
        )
        .await;
    let ids: Vec<Value> = reply["response"]["postgres_changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].clone())
        .collect();

    // A table anon may not select: its deletes reach no one but its readers.
    app.sql("delete from public.sealed where id = 1").await;
    // RLS table: only the key, and only a filter on the key matches.
    app.sql(&format!("delete from public.notes where id = {note}"))
        .await;
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["ids"], json!([ids[1]]));
    assert_eq!(got.payload["data"]["old_record"], json!({"id": note}));
    let got = anon.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["table"], "notes");
    assert_eq!(got.payload["data"]["old_record"], json!({"id": note}));

    // No RLS and replica identity full: the whole old row, filters on it.
    app.sql("update public.full_board set title = 'c' where id = 2; delete from public.full_board where id = 1")
        .await;
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["type"], "UPDATE");
    assert_eq!(got.payload["ids"], json!([ids[2]]));
    assert_eq!(
        got.payload["data"]["old_record"],
        json!({"id": 2, "title": "b"})
    );
    app.sql("delete from public.full_board where id = 2").await;
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["type"], "DELETE");
    assert_eq!(
        got.payload["data"]["old_record"],
        json!({"id": 2, "title": "c"})
    );
    for old in [
        json!({"id": 2, "title": "b"}),
        json!({"id": 1, "title": "a"}),
        json!({"id": 2, "title": "c"}),
    ] {
        let got = anon.expect("postgres_changes").await;
        assert_eq!(got.payload["data"]["table"], "full_board");
        assert_eq!(got.payload["data"]["old_record"], old);
    }
    anon.expect_none("postgres_changes").await;
    c.expect_none("postgres_changes").await;
}

#[tokio::test]
async fn subscriptions_the_caller_may_not_make_are_refused() {
    let app = spawn_app().await;
    let mut c = app.client("2.0.0").await;
    let refused = |table: &str, filter: Option<&str>| {
        let mut entry = json!({"event": "*", "schema": "public", "table": table});
        if let Some(f) = filter {
            entry["filter"] = json!(f);
        }
        changes_config(json!([entry]))
    };
    for (name, config) in [
        ("a", refused("hidden", None)),
        ("b", refused("no_such_table", None)),
        ("c", refused("notes", Some("n=like.x"))),
        (
            "d",
            changes_config(json!([{"event": "TRUNCATE", "schema": "public"}])),
        ),
        ("e", changes_config(json!([{"event": "*"}]))),
        ("f", json!({"private": true})),
    ] {
        let reply = c.join(name, config, None).await;
        assert_eq!(reply["status"], "error", "{name}");
        assert!(reply["response"]["reason"].is_string());
    }
    // A whole schema may be subscribed.
    let reply = c
        .join(
            "g",
            changes_config(json!([{"event": "*", "schema": "public"}])),
            None,
        )
        .await;
    assert_eq!(reply["status"], "ok");
    app.sql("insert into public.open_board values (9, 'x')")
        .await;
    assert_eq!(
        c.expect("postgres_changes").await.payload["data"]["table"],
        "open_board"
    );
}

/// A binding that names a table but no schema is on `public`, as the
/// platform reads it (the Python client sends none); one that names
/// neither is refused in the platform's words.
#[tokio::test]
async fn a_table_without_a_schema_is_a_table_of_public() {
    let app = spawn_app().await;
    app.sql(
        "create schema elsewhere; grant usage on schema elsewhere to anon; \
         create table elsewhere.open_board (id int primary key, title text); \
         grant select on elsewhere.open_board to anon; \
         select realtime.enable('elsewhere', 'open_board');",
    )
    .await;
    let mut c = app.client("1.0.0").await;
    let entry = json!({"event": "INSERT", "table": "open_board"});
    let reply = c
        .join("no-schema", changes_config(json!([entry])), None)
        .await;
    assert_eq!(reply["status"], "ok", "{reply}");
    let binding = &reply["response"]["postgres_changes"][0];
    assert_eq!(binding["table"], "open_board");
    let id = binding["id"].clone();
    assert_eq!(c.expect("system").await.payload["status"], "ok");

    app.sql("insert into elsewhere.open_board values (1, 'not public')")
        .await;
    app.sql("insert into public.open_board values (2, 'public')")
        .await;
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["ids"], json!([id]));
    assert_eq!(got.payload["data"]["schema"], "public");
    assert_eq!(got.payload["data"]["record"]["id"], 2);
    c.expect_none("postgres_changes").await;

    let reply = c
        .join("nothing", changes_config(json!([{"event": "*"}])), None)
        .await;
    assert_eq!(reply["status"], "error");
    assert!(
        reply["response"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("No subscription params provided."),
        "{reply}"
    );
}

#[tokio::test]
async fn rows_too_big_for_a_notification_are_read_back() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let mut c = app.client("2.0.0").await;
    c.join(
        "big",
        changes_config(
            json!([{"event": "INSERT", "schema": "public", "table": "notes", "filter": "n=eq.4"}]),
        ),
        Some(&app.user_token(alice, 3600)),
    )
    .await;
    let body = "x".repeat(10_000);
    sqlx::query("insert into public.notes (owner, n, body) values ($1, 4, $2), ($1, 5, $2)")
        .bind(alice)
        .bind(&body)
        .execute(&app.test_db.db.owner)
        .await
        .unwrap();
    let got = c.expect("postgres_changes").await;
    assert_eq!(
        got.payload["data"]["record"]["body"]
            .as_str()
            .unwrap()
            .len(),
        10_000
    );
    assert_eq!(got.payload["data"]["record"]["n"], 4);
    c.expect_none("postgres_changes").await;
}

#[tokio::test]
async fn the_publication_idiom_enables_a_table() {
    let app = spawn_app().await;
    app.sql("create table public.later (id int primary key, v text)")
        .await;
    app.sql("alter publication supabase_realtime add table public.later")
        .await;
    let mut c = app.client("2.0.0").await;
    c.join(
        "later",
        changes_config(json!([{"event": "*", "schema": "public", "table": "later"}])),
        None,
    )
    .await;
    app.sql("insert into public.later values (1, 'a')").await;
    assert_eq!(
        c.expect("postgres_changes").await.payload["data"]["record"]["v"],
        "a"
    );
    app.sql("select realtime.disable('public', 'later'); insert into public.later values (2, 'b')")
        .await;
    c.expect_none("postgres_changes").await;
}

// --------------------------------------------------------------- presence

#[tokio::test]
async fn presence_track_untrack_state_and_diff() {
    let app = spawn_app().await;
    let presence = |key: &str| json!({"broadcast": {}, "presence": {"key": key, "enabled": true}});
    let mut a = app.client("2.0.0").await;
    a.join("lobby", presence("alice"), None).await;
    assert_eq!(a.expect("presence_state").await.payload, json!({}));
    let r = a
        .push(
            "realtime:lobby",
            "presence",
            json!({"type": "presence", "event": "track", "payload": {"status": "online"}}),
        )
        .await;
    assert_eq!(a.reply(&r).await.payload["status"], "ok");
    let diff = a.expect("presence_diff").await;
    assert_eq!(
        diff.payload["joins"]["alice"]["metas"][0]["status"],
        "online"
    );
    assert!(diff.payload["joins"]["alice"]["metas"][0]["phx_ref"].is_string());

    let mut b = app.client("1.0.0").await;
    b.join("lobby", presence(""), None).await;
    let state = b.expect("presence_state").await;
    assert_eq!(state.payload["alice"]["metas"][0]["status"], "online");

    // A channel with presence disabled hears nothing of it.
    let mut quiet = app.client("2.0.0").await;
    quiet
        .join(
            "lobby",
            json!({"presence": {"key": "", "enabled": false}}),
            None,
        )
        .await;

    // Track again: the old meta leaves, the new one joins.
    a.push(
        "realtime:lobby",
        "presence",
        json!({"type": "presence", "event": "track", "payload": {"status": "away"}}),
    )
    .await;
    let diff = b.expect("presence_diff").await;
    assert_eq!(diff.payload["joins"]["alice"]["metas"][0]["status"], "away");
    assert_eq!(
        diff.payload["leaves"]["alice"]["metas"][0]["status"],
        "online"
    );

    let r = a
        .push(
            "realtime:lobby",
            "presence",
            json!({"type": "presence", "event": "untrack"}),
        )
        .await;
    assert_eq!(a.reply(&r).await.payload["status"], "ok");
    let diff = b.expect("presence_diff").await;
    assert_eq!(
        diff.payload["leaves"]["alice"]["metas"][0]["status"],
        "away"
    );
    assert_eq!(diff.payload["joins"], json!({}));

    // A socket that goes away leaves.
    a.push(
        "realtime:lobby",
        "presence",
        json!({"type": "presence", "event": "track", "payload": {"x": 1}}),
    )
    .await;
    b.expect("presence_diff").await;
    drop(a);
    let diff = b.expect("presence_diff").await;
    assert_eq!(diff.payload["leaves"]["alice"]["metas"][0]["x"], 1);
    quiet.expect_none("presence_diff").await;
}

// ------------------------------------------------------------------ tokens

#[tokio::test]
async fn access_token_updates_the_identity_of_a_channel() {
    let app = spawn_app().await;
    let (alice, bob) = (Uuid::new_v4(), Uuid::new_v4());
    let mut c = app.client("2.0.0").await;
    c.join(
        "notes",
        changes_config(json!([{"event": "INSERT", "schema": "public", "table": "notes"}])),
        Some(&app.user_token(alice, 3600)),
    )
    .await;
    app.insert_note(alice, 1).await;
    assert_eq!(
        c.expect("postgres_changes").await.payload["data"]["record"]["owner"],
        json!(alice)
    );

    let r = c
        .push(
            "realtime:notes",
            "access_token",
            json!({"access_token": app.user_token(bob, 3600)}),
        )
        .await;
    assert_eq!(c.reply(&r).await.payload["status"], "ok");
    app.insert_note(alice, 2).await;
    app.insert_note(bob, 3).await;
    let got = c.expect("postgres_changes").await;
    assert_eq!(got.payload["data"]["record"]["owner"], json!(bob));
    assert_eq!(got.payload["data"]["record"]["n"], 3);

    // Publishable keys are ignored; an invalid token closes the channel.
    let r = c
        .push(
            "realtime:notes",
            "access_token",
            json!({"access_token": "sb_publishable_x"}),
        )
        .await;
    assert_eq!(c.reply(&r).await.payload["status"], "ok");
    c.push(
        "realtime:notes",
        "access_token",
        json!({"access_token": "not-a-jwt"}),
    )
    .await;
    let system = c.expect("system").await;
    assert_eq!(system.payload["extension"], "system");
    assert_eq!(system.payload["status"], "error");
    assert_eq!(system.payload["channel"], "notes");
    let close = c.expect("phx_close").await;
    assert_eq!(close.topic, "realtime:notes");
    c.heartbeat().await;
}

#[tokio::test]
async fn expired_tokens_close_channels_and_are_refused_at_join() {
    let app = spawn_app().await;
    let alice = Uuid::new_v4();
    let mut c = app.client("2.0.0").await;
    let expired = app
        .jwt
        .sign(&json!({"sub": alice, "role": "authenticated", "exp": now() - 5}));
    let reply = c.join("a", json!({}), Some(&expired)).await;
    assert_eq!(reply["status"], "error");
    assert_eq!(reply["response"]["reason"], "Token has expired");

    c.join("b", json!({}), Some(&app.user_token(alice, 2)))
        .await;
    let system = c.expect("system").await;
    assert_eq!(system.topic, "realtime:b");
    assert_eq!(system.payload["message"], "Token has expired");
    assert_eq!(c.expect("phx_close").await.topic, "realtime:b");

    // A refreshed token that already expired closes the channel as well.
    c.join("c", json!({}), Some(&app.user_token(alice, 3600)))
        .await;
    c.push(
        "realtime:c",
        "access_token",
        json!({"access_token": expired}),
    )
    .await;
    assert_eq!(
        c.expect("system").await.payload["message"],
        "Token has expired"
    );
    c.expect("phx_close").await;

    // The socket's own key expiring closes the socket.
    let short_key = app.jwt.api_key("anon", now(), now() + 2);
    let mut s = Client::connect(&app.node, &short_key, "2.0.0").await;
    assert_eq!(s.expect_close().await, Some(1008));
}

// ------------------------------------------------------------- two nodes

#[tokio::test]
async fn two_nodes_on_one_database_see_changes_broadcasts_and_presence() {
    let app = spawn_app().await;
    let other = app.second_node(RealtimeConfig::default()).await;
    assert_ne!(app.node.state.node_id(), other.state.node_id());
    let alice = Uuid::new_v4();
    let token = app.user_token(alice, 3600);
    let config = json!({
        "broadcast": {"ack": true, "self": false},
        "presence": {"key": "", "enabled": true},
        "postgres_changes": [{"event": "*", "schema": "public", "table": "notes"}],
    });
    let mut a = Client::connect(&app.node, &app.anon, "2.0.0").await;
    let mut b = Client::connect(&other, &app.anon, "1.0.0").await;
    a.join("shared", config.clone(), Some(&token)).await;
    let r = a
        .push(
            "realtime:shared",
            "presence",
            json!({"type": "presence", "event": "track", "payload": {"on": "a"}}),
        )
        .await;
    a.reply(&r).await;
    b.join("shared", config, Some(&token)).await;
    let state = b.expect("presence_state").await;
    let metas: Vec<&Value> = state.payload.as_object().unwrap().values().collect();
    assert_eq!(metas.len(), 1);
    assert_eq!(metas[0]["metas"][0]["on"], "a");

    app.insert_note(alice, 1).await;
    assert_eq!(
        a.expect("postgres_changes").await.payload["data"]["type"],
        "INSERT"
    );
    assert_eq!(
        b.expect("postgres_changes").await.payload["data"]["type"],
        "INSERT"
    );

    a.push(
        "realtime:shared",
        "broadcast",
        json!({"type": "broadcast", "event": "hi", "payload": {"from": "a"}}),
    )
    .await;
    assert_eq!(
        b.expect("broadcast").await.payload["payload"],
        json!({"from": "a"})
    );
    // Too big for one NOTIFY: relayed through the spill table.
    let big = "y".repeat(20_000);
    b.push(
        "realtime:shared",
        "broadcast",
        json!({"type": "broadcast", "event": "big", "payload": {"s": big}}),
    )
    .await;
    assert_eq!(
        a.expect("broadcast").await.payload["payload"]["s"]
            .as_str()
            .unwrap()
            .len(),
        20_000
    );

    b.push(
        "realtime:shared",
        "presence",
        json!({"type": "presence", "event": "track", "payload": {"on": "b"}}),
    )
    .await;
    let diff = a.expect("presence_diff").await;
    let joins: Vec<&Value> = diff.payload["joins"]
        .as_object()
        .unwrap()
        .values()
        .collect();
    assert_eq!(joins[0]["metas"][0]["on"], "b");

    // A node that shuts down takes its presences with it.
    other.state.shutdown().await;
    assert_eq!(b.expect_close().await, Some(1001));
    let diff = a.expect("presence_diff").await;
    let leaves: Vec<&Value> = diff.payload["leaves"]
        .as_object()
        .unwrap()
        .values()
        .collect();
    assert_eq!(leaves[0]["metas"][0]["on"], "b");
}

// ----------------------------------------------------------------- limits

/// Opens a socket as if from `address` (the header a trusted proxy sets).
async fn connect_from(
    url: &str,
    address: &str,
) -> Result<WebSocketStream<MaybeTlsStream<TcpStream>>, (u16, Value)> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut request = url.into_client_request().unwrap();
    request
        .headers_mut()
        .insert("x-forwarded-for", address.parse().unwrap());
    match tokio_tungstenite::connect_async(request).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            let body = response.body().clone().unwrap_or_default();
            Err((
                response.status().as_u16(),
                serde_json::from_slice(&body).unwrap_or(Value::Null),
            ))
        }
        Err(other) => panic!("unexpected error {other}"),
    }
}

#[tokio::test]
async fn one_address_and_one_user_cannot_take_every_socket() {
    let app = spawn_app_with(RealtimeConfig {
        max_connections_per_ip: 3,
        max_connections_per_user: 2,
        ..Default::default()
    })
    .await;
    let anon = app.node.ws_url(&app.anon, "2.0.0");
    // A flood from one address stops at its cap...
    let mut flood = Vec::new();
    let mut refused = Vec::new();
    for _ in 0..20 {
        match connect_from(&anon, "198.51.100.7").await {
            Ok(ws) => flood.push(ws),
            Err(refusal) => refused.push(refusal),
        }
    }
    assert_eq!(flood.len(), 3);
    assert_eq!(refused.len(), 17);
    assert_eq!(
        refused[0],
        (
            429,
            json!({"error": "Too many connections from this address"})
        )
    );
    // ...while another address still gets in.
    let other = connect_from(&anon, "198.51.100.8").await;
    assert!(other.is_ok());

    // One user, from three addresses, gets two sockets.
    let token = app.user_token(Uuid::new_v4(), 3600);
    let user = app.node.ws_url(&token, "2.0.0");
    let first = connect_from(&user, "203.0.113.1").await.unwrap();
    let _second = connect_from(&user, "203.0.113.2").await.unwrap();
    assert_eq!(
        connect_from(&user, "203.0.113.3").await.unwrap_err(),
        (429, json!({"error": "Too many connections for this user"}))
    );
    // A closed socket gives its slots back.
    drop(first);
    let mut again = None;
    for _ in 0..50 {
        if let Ok(ws) = connect_from(&user, "203.0.113.3").await {
            again = Some(ws);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(again.is_some(), "the user's slot did not come back");
    drop(flood);
    let mut back = None;
    for _ in 0..50 {
        if let Ok(ws) = connect_from(&anon, "198.51.100.7").await {
            back = Some(ws);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(back.is_some(), "the address's slots did not come back");
}

#[tokio::test]
async fn connections_per_node_are_capped() {
    let app = spawn_app_with(RealtimeConfig {
        max_connections: 1,
        ..Default::default()
    })
    .await;
    let mut first = app.client("2.0.0").await;
    let (status, body) = upgrade_refusal(app.node.ws_url(&app.anon, "2.0.0")).await;
    assert_eq!(
        (status, body),
        (429, json!({"error": "Too many connected users"}))
    );
    first.send_raw(Message::Close(None)).await;
    drop(first);
    // The permit comes back once the socket is gone.
    let mut again = None;
    for _ in 0..50 {
        if let Ok((ws, _)) =
            tokio_tungstenite::connect_async(app.node.ws_url(&app.anon, "2.0.0")).await
        {
            again = Some(ws);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(again.is_some());
}

#[tokio::test]
async fn channels_per_connection_are_capped() {
    let app = spawn_app_with(RealtimeConfig {
        max_channels_per_connection: 2,
        ..Default::default()
    })
    .await;
    let mut c = app.client("2.0.0").await;
    assert_eq!(c.join("one", json!({}), None).await["status"], "ok");
    assert_eq!(c.join("two", json!({}), None).await["status"], "ok");
    let reply = c.join("three", json!({}), None).await;
    assert_eq!(
        reply["response"]["reason"],
        "ChannelRateLimitReached: Too many channels"
    );
    // Rejoining a joined topic replaces it and is not refused.
    assert_eq!(c.join("two", json!({}), None).await["status"], "ok");
}

#[tokio::test]
async fn joins_per_second_are_capped_and_close_the_socket() {
    let app = spawn_app_with(RealtimeConfig {
        max_joins_per_second: 3,
        ..Default::default()
    })
    .await;
    let mut c = app.client("2.0.0").await;
    // Four joins sent at once (well within one second, however slow the
    // machine): three are answered ok, the fourth refused.
    for (n, name) in ["a", "b", "c", "d"].iter().enumerate() {
        let msg_ref = format!("j{n}");
        c.send(
            Some(&msg_ref),
            &msg_ref,
            &format!("realtime:{name}"),
            "phx_join",
            json!({"config": {}}),
        )
        .await;
    }
    for n in 0..3 {
        assert_eq!(c.reply(&format!("j{n}")).await.payload["status"], "ok");
    }
    assert_eq!(
        c.reply("j3").await.payload["response"]["reason"],
        "ClientJoinRateLimitReached: Too many joins per second"
    );
    assert_eq!(c.expect_close().await, Some(1008));
    // Another socket is not held back.
    let mut other = app.client("2.0.0").await;
    assert_eq!(other.join("e", json!({}), None).await["status"], "ok");
}

#[tokio::test]
async fn presence_events_per_second_are_capped_per_socket() {
    let app = spawn_app_with(RealtimeConfig {
        max_presence_events_per_second: 2,
        ..Default::default()
    })
    .await;
    let mut c = app.client("2.0.0").await;
    c.join(
        "lobby",
        json!({"presence": {"key": "me", "enabled": true}}),
        None,
    )
    .await;
    // Three tracks sent at once: two are answered, the third closes the
    // channel.
    let mut refs = Vec::new();
    for n in 0..3 {
        refs.push(
            c.push(
                "realtime:lobby",
                "presence",
                json!({"type": "presence", "event": "track", "payload": {"n": n}}),
            )
            .await,
        );
    }
    for r in &refs[..2] {
        assert_eq!(c.reply(r).await.payload["status"], "ok");
    }
    assert_eq!(
        c.expect("system").await.payload["message"],
        "Client presence rate limit exceeded"
    );
    assert_eq!(c.expect("phx_close").await.topic, "realtime:lobby");
    c.heartbeat().await;
}

/// Limits small enough to pass in a test: 1 KiB messages, 8 KiB frames.
fn small_limits() -> RealtimeConfig {
    RealtimeConfig {
        max_message_size: 1024,
        max_frame_size: 8192,
        ..Default::default()
    }
}

#[tokio::test]
async fn oversized_broadcasts_and_tracks_are_refused_and_the_socket_lives_on() {
    let app = spawn_app_with(small_limits()).await;
    let big = |event: &str| json!({"type": "broadcast", "event": event, "payload": {"s": "a".repeat(2000)}});
    let small = |event: &str| json!({"type": "broadcast", "event": event, "payload": {"s": "a"}});
    let mut a = app.client("2.0.0").await;
    let mut b = app.client("1.0.0").await;
    let mut quiet = app.client("2.0.0").await;
    a.join("room", broadcast_config(true, false), None).await;
    b.join("room", broadcast_config(false, false), None).await;
    quiet
        .join("room", broadcast_config(false, false), None)
        .await;

    // With acks: the platform's error reply; nobody receives it.
    let r = a.push("realtime:room", "broadcast", big("big")).await;
    assert_eq!(
        a.reply(&r).await.payload,
        json!({"status": "error", "response": "payload_size_exceeded"})
    );
    // Without: dropped without a word.
    quiet.push("realtime:room", "broadcast", big("big")).await;
    quiet.expect_none("phx_reply").await;
    // Both sockets still carry messages.
    let r = a.push("realtime:room", "broadcast", small("a")).await;
    assert_eq!(a.reply(&r).await.payload["status"], "ok");
    quiet.push("realtime:room", "broadcast", small("q")).await;
    let mut heard = vec![
        b.expect("broadcast").await.payload["event"].clone(),
        b.expect("broadcast").await.payload["event"].clone(),
    ];
    heard.sort_by_key(|e| e.to_string());
    assert_eq!(heard, [json!("a"), json!("q")]);
    b.expect_none("broadcast").await;

    // A presence track past the limit shuts its channel, not the socket.
    let presence = json!({"broadcast": {}, "presence": {"key": "alice", "enabled": true}});
    a.join("lobby", presence, None).await;
    a.expect("presence_state").await;
    a.push(
        "realtime:lobby",
        "presence",
        json!({"type": "presence", "event": "track", "payload": {"s": "a".repeat(2000)}}),
    )
    .await;
    let system = a.expect("system").await;
    assert_eq!(system.topic, "realtime:lobby");
    assert_eq!(system.payload["status"], "error");
    assert_eq!(system.payload["message"], "Track message size exceeded");
    assert_eq!(a.expect("phx_close").await.topic, "realtime:lobby");
    a.expect_none("presence_diff").await;
    let r = a.push("realtime:room", "broadcast", small("after")).await;
    assert_eq!(a.reply(&r).await.payload["status"], "ok");
    assert_eq!(b.expect("broadcast").await.payload["event"], "after");
}

#[tokio::test]
async fn messages_past_the_frame_limit_close_the_socket_with_1009() {
    let app = spawn_app_with(small_limits()).await;
    let mut c = app.client("2.0.0").await;
    c.join("room", broadcast_config(true, false), None).await;
    c.push(
        "realtime:room",
        "broadcast",
        json!({"type": "broadcast", "event": "e", "payload": {"s": "a".repeat(10_000)}}),
    )
    .await;
    assert_eq!(c.expect_close().await, Some(1009));
    // Far beyond the limit: refused by the websocket reader, same close code.
    let mut c = app.client("2.0.0").await;
    c.send_raw(Message::text("x".repeat(200_000))).await;
    assert_eq!(c.expect_close().await, Some(1009));
}

#[tokio::test]
async fn http_broadcasts_past_the_size_limit_are_refused_in_the_platforms_words() {
    let app = spawn_app_with(small_limits()).await;
    let mut r = app.client("2.0.0").await;
    r.join("room", broadcast_config(false, false), None).await;
    let http = reqwest::Client::new();
    let post = |path: &str, body: String| {
        http.post(app.node.http_url(path))
            .header("apikey", &app.anon)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    // One payload over the limit refuses the whole batch, each message's
    // errors in its place.
    let batch = json!({"messages": [
        {"topic": "room", "event": "small", "payload": {"s": "a"}},
        {"topic": "room", "event": "big", "payload": {"s": "a".repeat(2000)}},
    ]});
    let response = post("/api/broadcast", batch.to_string()).await.unwrap();
    assert_eq!(response.status(), 422);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"errors": {"messages": [{}, {"payload": ["Payload size exceeds tenant limit"]}]}})
    );
    let response = post(
        "/api/broadcast/room/events/big",
        json!({"s": "a".repeat(2000)}).to_string(),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), 422);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"errors": {"payload": ["Payload size exceeds tenant limit"]}})
    );
    r.expect_none("broadcast").await;
    // Within the limit, both deliver.
    let batch = json!({"messages": [{"topic": "room", "event": "small", "payload": {"s": "a"}}]});
    let response = post("/api/broadcast", batch.to_string()).await.unwrap();
    assert_eq!(response.status(), 202);
    assert_eq!(r.expect("broadcast").await.payload["event"], "small");
    let response = post(
        "/api/broadcast/room/events/one",
        json!({"n": 1}).to_string(),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), 202);
    assert_eq!(r.expect("broadcast").await.payload["event"], "one");
    // A body past the frame limit is not read.
    let huge = json!({"messages": [{"topic": "room", "event": "e", "payload": {"s": "a".repeat(10_000)}}]});
    let response = post("/api/broadcast", huge.to_string()).await.unwrap();
    assert_eq!(response.status(), 413);
}

#[tokio::test]
async fn events_per_second_are_capped() {
    let app = spawn_app_with(RealtimeConfig {
        max_events_per_second: 3,
        ..Default::default()
    })
    .await;
    let mut a = app.client("2.0.0").await;
    let mut b = app.client("2.0.0").await;
    b.join("room", broadcast_config(false, false), None).await;
    a.join("room", broadcast_config(true, false), None).await; // 1 of 3
    let mut statuses = Vec::new();
    for i in 0..4 {
        let r = a
            .push(
                "realtime:room",
                "broadcast",
                json!({"type": "broadcast", "event": "e", "payload": {"i": i}}),
            )
            .await;
        statuses.push(a.reply(&r).await.payload);
    }
    assert_eq!(statuses[0]["status"], "ok");
    assert_eq!(statuses[1]["status"], "ok");
    assert_eq!(
        statuses[2]["response"]["reason"],
        "Too many messages per second"
    );
    assert_eq!(statuses[3]["status"], "error");
    assert_eq!(b.expect("broadcast").await.payload["payload"]["i"], 0);
    assert_eq!(b.expect("broadcast").await.payload["payload"]["i"], 1);
    b.expect_none("broadcast").await;
    // Heartbeats are never limited, and the budget comes back.
    a.heartbeat().await;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let r = a
        .push(
            "realtime:room",
            "broadcast",
            json!({"type": "broadcast", "event": "e", "payload": {"i": 9}}),
        )
        .await;
    assert_eq!(a.reply(&r).await.payload["status"], "ok");
}

#[tokio::test]
async fn silent_sockets_are_closed_after_the_heartbeat_timeout() {
    let app = spawn_app_with(RealtimeConfig {
        heartbeat_timeout: Duration::from_millis(400),
        ..Default::default()
    })
    .await;
    let mut c = app.client("2.0.0").await;
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        c.heartbeat().await;
    }
    assert_eq!(c.expect_close().await, Some(1000));
}

#[tokio::test]
async fn shutdown_closes_sockets_with_a_close_frame_and_refuses_new_ones() {
    let app = spawn_app().await;
    let mut c = app.client("2.0.0").await;
    c.join("room", json!({}), None).await;
    app.node.state.shutdown().await;
    assert_eq!(c.expect_close().await, Some(1001));
    assert_eq!(
        upgrade_refusal(app.node.ws_url(&app.anon, "2.0.0")).await.0,
        503
    );
}

// ------------------------------------------------ realtime authorization

/// Rooms and their members: a member reads a room's broadcasts and
/// presence; a writer may also broadcast and track presence there.
const ROOMS: &str = r#"
create table public.room_members (room text not null, user_id uuid not null, writer boolean not null default false);
grant select on public.room_members to authenticated;
create policy "members read their rooms" on realtime.messages for select to authenticated
  using (exists (select 1 from public.room_members m
                 where m.room = realtime.topic() and m.user_id = auth.uid()));
create policy "writers write to their rooms" on realtime.messages for insert to authenticated
  with check (exists (select 1 from public.room_members m
                      where m.room = realtime.topic() and m.user_id = auth.uid() and m.writer));
"#;

fn private_config(self_: bool) -> Value {
    json!({
        "broadcast": {"ack": false, "self": self_},
        "presence": {"key": "", "enabled": true},
        "private": true,
    })
}

async fn rooms(app: &App) -> (Uuid, Uuid, Uuid) {
    app.sql(ROOMS).await;
    let (writer, reader, stranger) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    sqlx::query(
        "insert into public.room_members (room, user_id, writer) values ('room1', $1, true), ('room1', $2, false)",
    )
    .bind(writer)
    .bind(reader)
    .execute(&app.test_db.db.owner)
    .await
    .unwrap();
    (writer, reader, stranger)
}

#[tokio::test]
async fn private_channels_do_what_the_policies_on_realtime_messages_allow() {
    let app = spawn_app().await;
    let (writer, reader, stranger) = rooms(&app).await;
    let mut w = app.client("2.0.0").await;
    let mut r = app.client("1.0.0").await;
    let mut s = app.client("2.0.0").await;
    let mut anon = app.client("2.0.0").await;
    let refused = json!({"status": "error", "response": {"reason": "Unauthorized: You do not have permissions to read from this Channel topic: room1"}});
    assert_eq!(
        s.join(
            "room1",
            private_config(false),
            Some(&app.user_token(stranger, 600))
        )
        .await,
        refused
    );
    assert_eq!(
        anon.join("room1", private_config(false), None).await,
        refused
    );
    assert_eq!(
        w.join(
            "room1",
            private_config(false),
            Some(&app.user_token(writer, 600))
        )
        .await["status"],
        "ok"
    );
    assert_eq!(
        r.join(
            "room1",
            private_config(false),
            Some(&app.user_token(reader, 600))
        )
        .await["status"],
        "ok"
    );
    // The stranger on the public channel of the same name hears nothing of
    // the private one.
    assert_eq!(
        s.join(
            "room1",
            broadcast_config(false, false),
            Some(&app.user_token(stranger, 600))
        )
        .await["status"],
        "ok"
    );

    w.push(
        "realtime:room1",
        "broadcast",
        json!({"type": "broadcast", "event": "said", "payload": {"by": "writer"}}),
    )
    .await;
    let got = r.expect("broadcast").await;
    assert_eq!(got.topic, "realtime:room1");
    assert_eq!(got.payload["payload"], json!({"by": "writer"}));
    s.expect_none("broadcast").await;

    // A reader's broadcast is dropped; so is its presence.
    r.push(
        "realtime:room1",
        "broadcast",
        json!({"type": "broadcast", "event": "said", "payload": {"by": "reader"}}),
    )
    .await;
    w.expect_none("broadcast").await;
    let track = r
        .push(
            "realtime:room1",
            "presence",
            json!({"type": "presence", "event": "track", "payload": {"who": "reader"}}),
        )
        .await;
    assert_eq!(r.reply(&track).await.payload["status"], "error");
    let track = w
        .push(
            "realtime:room1",
            "presence",
            json!({"type": "presence", "event": "track", "payload": {"who": "writer"}}),
        )
        .await;
    assert_eq!(w.reply(&track).await.payload["status"], "ok");
    let diff = r.expect("presence_diff").await;
    assert_eq!(diff.topic, "realtime:room1");
    assert_eq!(
        diff.payload["joins"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()["metas"][0]["who"],
        "writer"
    );
    s.expect_none("presence_diff").await;
    // A public broadcast does not reach the private channel.
    s.push(
        "realtime:room1",
        "broadcast",
        json!({"type": "broadcast", "event": "said", "payload": {"by": "public"}}),
    )
    .await;
    r.expect_none("broadcast").await;
}

#[tokio::test]
async fn a_refreshed_token_that_loses_read_access_closes_the_private_channel() {
    let app = spawn_app().await;
    let (writer, reader, _) = rooms(&app).await;
    let mut r = app.client("2.0.0").await;
    r.join(
        "room1",
        private_config(false),
        Some(&app.user_token(reader, 600)),
    )
    .await;
    // Still a member: the refresh is accepted.
    let ok = r
        .push(
            "realtime:room1",
            "access_token",
            json!({"access_token": app.user_token(reader, 900)}),
        )
        .await;
    assert_eq!(r.reply(&ok).await.payload["status"], "ok");
    sqlx::query("delete from public.room_members where user_id = $1")
        .bind(reader)
        .execute(&app.test_db.db.owner)
        .await
        .unwrap();
    r.push(
        "realtime:room1",
        "access_token",
        json!({"access_token": app.user_token(reader, 1200)}),
    )
    .await;
    let system = r.expect("system").await;
    assert_eq!(
        system.payload["message"],
        "You no longer have permission to read from this Channel topic: room1"
    );
    assert_eq!(r.expect("phx_close").await.topic, "realtime:room1");
    // Its broadcasts no longer reach it.
    let mut w = app.client("2.0.0").await;
    w.join(
        "room1",
        private_config(false),
        Some(&app.user_token(writer, 600)),
    )
    .await;
    w.push(
        "realtime:room1",
        "broadcast",
        json!({"type": "broadcast", "event": "said", "payload": {}}),
    )
    .await;
    r.expect_none("broadcast").await;
}

#[tokio::test]
async fn realtime_send_from_sql_reaches_the_topics_subscribers_on_every_node() {
    let app = spawn_app().await;
    let other = app.second_node(RealtimeConfig::default()).await;
    let (writer, reader, _) = rooms(&app).await;
    let mut here = app.client("2.0.0").await;
    let mut there = Client::connect(&other, &app.anon, "1.0.0").await;
    let mut public = app.client("2.0.0").await;
    here.join(
        "room1",
        private_config(false),
        Some(&app.user_token(writer, 600)),
    )
    .await;
    there
        .join(
            "room1",
            private_config(false),
            Some(&app.user_token(reader, 600)),
        )
        .await;
    public
        .join("room1", broadcast_config(false, false), None)
        .await;

    app.sql(r#"select realtime.send('{"note": "from sql"}', 'notice', 'room1', true)"#)
        .await;
    for client in [&mut here, &mut there] {
        let got = client.expect("broadcast").await;
        assert_eq!(got.topic, "realtime:room1");
        assert_eq!(got.payload["event"], "notice");
        assert_eq!(got.payload["payload"]["note"], "from sql");
        assert!(got.payload["payload"]["id"].is_string(), "{}", got.payload);
    }
    public.expect_none("broadcast").await;
    // A public send reaches the public channel only.
    app.sql(r#"select realtime.send('{"note": "to all"}', 'notice', 'room1', false)"#)
        .await;
    assert_eq!(
        public.expect("broadcast").await.payload["payload"]["note"],
        "to all"
    );
    here.expect_none("broadcast").await;

    // realtime.broadcast_changes from a trigger, as the platform's guide writes it.
    app.sql(
        r#"
        create table public.room_posts (id int primary key, room text not null, body text);
        create function public.room_posts_broadcast() returns trigger language plpgsql security definer as $$
        begin
          perform realtime.broadcast_changes(new.room, tg_op, tg_op, tg_table_name, tg_table_schema, new, old);
          return null;
        end $$;
        create trigger room_posts_broadcast after insert on public.room_posts
          for each row execute function public.room_posts_broadcast();
        insert into public.room_posts values (1, 'room1', 'hello');
        "#,
    )
    .await;
    let got = there.expect("broadcast").await;
    assert_eq!(got.payload["event"], "INSERT");
    assert_eq!(got.payload["payload"]["record"]["body"], "hello");
    assert_eq!(got.payload["payload"]["operation"], "INSERT");
    // Sent messages are kept (for replay), probes are not.
    let kept: i64 = sqlx::query_scalar("select count(*) from realtime.messages")
        .fetch_one(&app.test_db.db.owner)
        .await
        .unwrap();
    assert_eq!(kept, 3);
}

#[tokio::test]
async fn http_broadcasts_to_private_channels_need_the_right_to_write() {
    let app = spawn_app().await;
    let (writer, reader, stranger) = rooms(&app).await;
    let mut r = app.client("2.0.0").await;
    r.join(
        "room1",
        private_config(false),
        Some(&app.user_token(reader, 600)),
    )
    .await;
    let http = reqwest::Client::new();
    let send = |token: String, tag: &'static str| {
        http.post(app.node.http_url("/api/broadcast"))
            .header("apikey", &app.anon)
            .bearer_auth(token)
            .json(&json!({"messages": [{"topic": "room1", "event": "http", "payload": {"tag": tag}, "private": true}]}))
            .send()
    };
    for (token, tag) in [
        (app.user_token(stranger, 600), "stranger"),
        (app.user_token(reader, 600), "reader"),
        (app.anon.clone(), "anon"),
    ] {
        assert_eq!(send(token, tag).await.unwrap().status(), 202);
    }
    r.expect_none("broadcast").await;
    assert_eq!(
        send(app.user_token(writer, 600), "writer")
            .await
            .unwrap()
            .status(),
        202
    );
    assert_eq!(
        r.expect("broadcast").await.payload["payload"]["tag"],
        "writer"
    );
    let service = app.jwt.api_key("service_role", now(), now() + 600);
    assert_eq!(send(service, "service").await.unwrap().status(), 202);
    assert_eq!(
        r.expect("broadcast").await.payload["payload"]["tag"],
        "service"
    );
    // A batch is judged topic by topic (once each): a stranger's many
    // messages to the room deliver none; a writer's all, in order.
    let batch = |tag: &str| {
        let messages: Vec<Value> = (0..50)
            .map(|n| json!({"topic": "room1", "event": "batch", "payload": {"tag": tag, "n": n}, "private": true}))
            .collect();
        json!({ "messages": messages })
    };
    for (token, tag) in [
        (app.user_token(stranger, 600), "stranger"),
        (app.user_token(writer, 600), "writer"),
    ] {
        let response = http
            .post(app.node.http_url("/api/broadcast"))
            .header("apikey", &app.anon)
            .bearer_auth(token)
            .json(&batch(tag))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 202);
    }
    for n in 0..50 {
        let got = r.expect("broadcast").await;
        assert_eq!(got.payload["payload"]["tag"], "writer");
        assert_eq!(got.payload["payload"]["n"], n);
    }
    r.expect_none("broadcast").await;
    // One message (realtime-js's httpSend) that may not be written is
    // refused out loud, as the platform refuses it.
    let one = |token: String, tag: &'static str| {
        http.post(
            app.node
                .http_url("/api/broadcast/room1/events/one?private=true"),
        )
        .header("apikey", &app.anon)
        .bearer_auth(token)
        .json(&json!({ "tag": tag }))
        .send()
    };
    let response = one(app.user_token(reader, 600), "reader").await.unwrap();
    assert_eq!(response.status(), 403);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"message": "Unauthorized"})
    );
    r.expect_none("broadcast").await;
    let response = one(app.user_token(writer, 600), "writer").await.unwrap();
    assert_eq!(response.status(), 202);
    assert_eq!(
        r.expect("broadcast").await.payload["payload"]["tag"],
        "writer"
    );
}

#[tokio::test]
async fn a_private_only_project_refuses_public_joins() {
    let app = spawn_app_with(RealtimeConfig {
        private_only: true,
        ..RealtimeConfig::default()
    })
    .await;
    let (writer, _, _) = rooms(&app).await;
    let mut c = app.client("2.0.0").await;
    assert_eq!(
        c.join("room1", broadcast_config(false, false), None).await,
        json!({"status": "error", "response": {"reason": "PrivateOnly: This project only allows private channels"}})
    );
    assert_eq!(
        c.join(
            "room1",
            private_config(false),
            Some(&app.user_token(writer, 600))
        )
        .await["status"],
        "ok"
    );
}

#[tokio::test]
async fn a_private_channel_replays_what_was_sent_since_a_moment() {
    let app = spawn_app().await;
    let (_, reader, _) = rooms(&app).await;
    let before = now() * 1000 - 1000;
    for n in 1..=3 {
        app.sql(&format!(
            "select realtime.send('{{\"n\": {n}}}', 'note', 'room1', true)"
        ))
        .await;
    }
    // Another topic's and a public message are not replayed.
    app.sql(r#"select realtime.send('{"n": 9}', 'note', 'room2', true)"#)
        .await;
    app.sql(r#"select realtime.send('{"n": 8}', 'note', 'room1', false)"#)
        .await;
    let mut c = app.client("2.0.0").await;
    let config = json!({
        "broadcast": {"ack": false, "self": false, "replay": {"since": before, "limit": 2}},
        "presence": {"key": "", "enabled": false},
        "private": true,
    });
    let reply = c
        .join("room1", config, Some(&app.user_token(reader, 600)))
        .await;
    assert_eq!(reply["status"], "ok");
    // The last two, oldest first, marked as replayed.
    for n in [2, 3] {
        let got = c.expect("broadcast").await;
        assert_eq!(got.payload["payload"]["n"], n);
        assert_eq!(got.payload["meta"]["replayed"], true);
        assert!(got.payload["meta"]["id"].is_string());
    }
    c.expect_none("broadcast").await;
    // Replay is for private channels, and since the future nothing comes.
    let public = c
        .join(
            "room3",
            json!({"broadcast": {"replay": {"since": before}}}),
            None,
        )
        .await;
    assert_eq!(public["status"], "error");
    let mut later = app.client("2.0.0").await;
    let config = json!({
        "broadcast": {"replay": {"since": now() * 1000 + 60_000}},
        "private": true,
    });
    assert_eq!(
        later
            .join("room1", config, Some(&app.user_token(reader, 600)))
            .await["status"],
        "ok"
    );
    later.expect_none("broadcast").await;
}

#[tokio::test]
async fn presence_members_of_a_topic_are_capped_across_nodes() {
    let app = spawn_app_with(RealtimeConfig {
        max_presence_members: 2,
        ..Default::default()
    })
    .await;
    let other = app
        .second_node(RealtimeConfig {
            max_presence_members: 2,
            ..Default::default()
        })
        .await;
    let track =
        |key: &'static str| json!({"type": "presence", "event": "track", "payload": {"who": key}});
    let mut a = app.client("2.0.0").await;
    let mut b = Client::connect(&other, &app.anon, "2.0.0").await;
    let mut c = app.client("2.0.0").await;
    a.join(
        "hall",
        json!({"presence": {"key": "a", "enabled": true}}),
        None,
    )
    .await;
    b.join(
        "hall",
        json!({"presence": {"key": "b", "enabled": true}}),
        None,
    )
    .await;
    c.join(
        "hall",
        json!({"presence": {"key": "c", "enabled": true}}),
        None,
    )
    .await;
    let r = a.push("realtime:hall", "presence", track("a")).await;
    assert_eq!(a.reply(&r).await.payload["status"], "ok");
    let r = b.push("realtime:hall", "presence", track("b")).await;
    assert_eq!(b.reply(&r).await.payload["status"], "ok");
    let r = c.push("realtime:hall", "presence", track("c")).await;
    assert_eq!(
        c.reply(&r).await.payload,
        json!({"status": "error", "response": {"reason": "PresenceMembersLimitReached: Too many presence members in this channel"}})
    );
    // A member already present may track again (a new meta, same key).
    let r = a.push("realtime:hall", "presence", track("a")).await;
    assert_eq!(a.reply(&r).await.payload["status"], "ok");
}
