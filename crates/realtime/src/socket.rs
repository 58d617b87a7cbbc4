//! One websocket: the upgrade (token, version, connection limit) and the
//! connection's loop, which owns its joined channels.
//!
//! The loop waits on: the client's next frame, pushes queued for this
//! socket (broadcasts, presence, changes), the heartbeat deadline, the
//! earliest token expiry, and the node's shutdown. Replies are written in
//! the order the client's frames arrived; handlers never panic on input.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::SinkExt;
use plinth_db::{JwtError, RequestContext};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::RealtimeState;
use crate::authorization::{self, Policies};
use crate::error::RealtimeError;
use crate::filter::Filter;
use crate::hub::{Binding, Channel, ConnId};
use crate::presence;
use crate::protocol::{self, DecodeError, Frame, Vsn};
use crate::relay::Relayed;

/// Pushes queued per socket before further ones are dropped.
const OUTBOX_LEN: usize = 1024;
/// Most queued frames written to a socket before one flush.
const MAX_BATCH: usize = 64;
/// Room above the frame limit in the websocket reader, so that a message
/// slightly too big is refused by us with a proper close frame.
const READER_SLACK: usize = 64 * 1024;
/// Read buffer of a socket, and how much it buffers before writing (the
/// library's default is 128 KiB each, which 800 idle sockets turn into
/// 100 MB).
const SOCKET_BUFFER: usize = 8 * 1024;
/// How long a closing socket waits for the client's close frame.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// Who a token says the caller is.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    pub ctx: RequestContext,
    /// `exp` of the token (seconds since the epoch).
    pub exp: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenError {
    Expired,
    BadSignature,
    Invalid,
    MissingClaims,
}

impl TokenError {
    /// The platform's wording.
    pub fn message(self) -> &'static str {
        match self {
            Self::Expired => "Token has expired",
            Self::BadSignature => "Failed to validate JWT signature",
            Self::Invalid => "The token provided is not a valid JWT",
            Self::MissingClaims => "Fields `role` and `exp` are required in JWT",
        }
    }
}

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Verifies a token; it must carry `role` and `exp`, as on the platform.
pub(crate) fn verify_token(state: &RealtimeState, token: &str) -> Result<Identity, TokenError> {
    let claims = state.inner.jwt.verify(token).map_err(|e| match e {
        JwtError::Expired => TokenError::Expired,
        JwtError::Invalid(reason) if reason == plinth_db::jwt::NO_EXP => TokenError::MissingClaims,
        JwtError::Invalid(reason) if reason.contains("Signature") => TokenError::BadSignature,
        JwtError::Invalid(_) => TokenError::Invalid,
    })?;
    let exp = claims.get("exp").and_then(Value::as_i64);
    let role = claims.get("role").and_then(Value::as_str);
    let (Some(exp), Some(_)) = (exp, role) else {
        return Err(TokenError::MissingClaims);
    };
    if exp <= now_secs() {
        return Err(TokenError::Expired);
    }
    Ok(Identity {
        ctx: RequestContext::from_claims(claims, "anon"),
        exp,
    })
}

/// Writes `frame` to the socket's buffer as its version carries it (a
/// frame it cannot carry is left out); false once the socket is gone.
async fn feed(socket: &mut WebSocket, frame: &Frame, vsn: Vsn) -> bool {
    match frame.message(vsn) {
        Some(message) => socket.feed(message).await.is_ok(),
        None => true,
    }
}

fn refuse(status: StatusCode, message: &str) -> Response {
    RealtimeError::refused(status, message).into_response()
}

/// `GET /websocket?apikey=…&vsn=…`.
pub(crate) async fn upgrade(
    State(state): State<RealtimeState>,
    Query(params): Query<HashMap<String, String>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    ws: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Response {
    let token = headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .or(params.get("apikey").map(String::as_str))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let Some(token) = token else {
        return refuse(StatusCode::UNAUTHORIZED, "API key is missing");
    };
    let identity = match verify_token(&state, token) {
        Ok(identity) => identity,
        Err(e) => return refuse(StatusCode::UNAUTHORIZED, e.message()),
    };
    let Some(vsn) = Vsn::parse(params.get("vsn").map(String::as_str)) else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "Unsupported protocol version (vsn)",
        );
    };
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => return rejection.into_response(),
    };
    if state.is_shutting_down() {
        return refuse(StatusCode::SERVICE_UNAVAILABLE, "Realtime is shutting down");
    }
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let address = plinth_db::client_address(
        header("x-forwarded-for"),
        header("x-real-ip"),
        extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip()),
    );
    let user = identity.ctx.claims["sub"].as_str().map(str::to_owned);
    let config = &state.inner.config;
    let slot = match state.inner.clients.open(
        address,
        user,
        config.max_connections_per_ip,
        config.max_connections_per_user,
    ) {
        Ok(slot) => slot,
        Err(refused) => return refuse(StatusCode::TOO_MANY_REQUESTS, refused.message()),
    };
    let Ok(permit) = state.inner.connections.clone().try_acquire_owned() else {
        return refuse(StatusCode::TOO_MANY_REQUESTS, "Too many connected users");
    };
    let reader_limit = state
        .inner
        .config
        .frame_limit()
        .saturating_add(READER_SLACK);
    ws.max_message_size(reader_limit)
        .max_frame_size(reader_limit)
        // Small buffers: they are allocated (and zeroed) for every socket
        // whatever its traffic; a larger message grows the buffer it needs.
        .read_buffer_size(SOCKET_BUFFER)
        .write_buffer_size(SOCKET_BUFFER)
        .on_upgrade(move |socket| async move {
            Connection::new(state, vsn, identity).run(socket).await;
            drop(permit);
            drop(slot);
        })
}

/// A channel joined on this socket.
struct Joined {
    shared: Arc<Channel>,
    join_ref: Option<String>,
    /// The name given to `supabase.channel(name)` (topic without `realtime:`).
    name: String,
    exp: i64,
    ack: bool,
    presence_key: String,
    /// `phx_ref` of this channel's tracked presence.
    tracked: Option<String>,
    /// `config.private`: its rights come from the policies on
    /// `realtime.messages` (a public channel has them all).
    private: bool,
    policies: Policies,
}

struct Connection {
    state: RealtimeState,
    id: ConnId,
    vsn: Vsn,
    identity: Identity,
    outbox: mpsc::Sender<Arc<Frame>>,
    inbox: Option<mpsc::Receiver<Arc<Frame>>>,
    channels: HashMap<String, Joined>,
    /// Frames to write after the current message is handled.
    out: Vec<Frame>,
    /// Messages, joins and presence events in the current second.
    events: RateWindow,
    joins: RateWindow,
    presence_events: RateWindow,
    last_seen: Instant,
    /// Set when the socket itself must close (code, reason).
    close: Option<(u16, &'static str)>,
}

enum Read {
    Message(Message),
    Gone,
    Failed(String),
}

impl Connection {
    fn new(state: RealtimeState, vsn: Vsn, identity: Identity) -> Self {
        let (outbox, inbox) = mpsc::channel(OUTBOX_LEN);
        Self {
            id: state.next_conn_id(),
            state,
            vsn,
            identity,
            outbox,
            inbox: Some(inbox),
            channels: HashMap::new(),
            out: Vec::new(),
            events: RateWindow::default(),
            joins: RateWindow::default(),
            presence_events: RateWindow::default(),
            last_seen: Instant::now(),
            close: None,
        }
    }

    async fn run(mut self, mut socket: WebSocket) {
        let Some(mut inbox) = self.inbox.take() else {
            return;
        };
        let mut shutdown = self.state.inner.shutdown.subscribe();
        let heartbeat_timeout = self.state.inner.config.heartbeat_timeout;
        let close = loop {
            let heartbeat_deadline = self.last_seen + heartbeat_timeout;
            let expiry = self.next_expiry();
            tokio::select! {
                _ = crate::stopped(&mut shutdown) => break Some((1001, "server shutting down")),
                read = socket.recv() => {
                    let read = match read {
                        None => Read::Gone,
                        Some(Ok(message)) => Read::Message(message),
                        Some(Err(e)) => Read::Failed(e.to_string()),
                    };
                    match read {
                        Read::Gone => break None,
                        Read::Failed(reason) => {
                            if reason.contains("too long") || reason.contains("Space limit") {
                                break Some((1009, "message too big"));
                            }
                            break None;
                        }
                        Read::Message(message) => {
                            self.last_seen = Instant::now();
                            self.on_message(message).await;
                        }
                    }
                }
                Some(frame) = inbox.recv() => {
                    // Whatever else is already queued goes out with it: the
                    // frames are written to the socket's buffer and flushed
                    // once, one write instead of one per frame under load.
                    let mut ok = feed(&mut socket, &frame, self.vsn).await;
                    let mut batched = 1;
                    while ok && batched < MAX_BATCH {
                        let Ok(frame) = inbox.try_recv() else { break };
                        ok = feed(&mut socket, &frame, self.vsn).await;
                        batched += 1;
                    }
                    if !ok || socket.flush().await.is_err() {
                        break None;
                    }
                }
                _ = tokio::time::sleep_until(heartbeat_deadline) => break Some((1000, "heartbeat timeout")),
                _ = tokio::time::sleep_until(expiry) => self.expire_tokens().await,
            }
            let out = std::mem::take(&mut self.out);
            if !out.is_empty() {
                let mut ok = true;
                for frame in out {
                    ok = feed(&mut socket, &frame, self.vsn).await;
                    if !ok {
                        break;
                    }
                }
                if !ok || socket.flush().await.is_err() {
                    break None;
                }
            }
            if let Some(close) = self.close {
                break Some(close);
            }
        };
        self.leave_all().await;
        if let Some((code, reason)) = close {
            let frame = CloseFrame {
                code,
                reason: reason.into(),
            };
            if socket.send(Message::Close(Some(frame))).await.is_ok() {
                // Wait for the client's close frame to end the handshake.
                let _ = tokio::time::timeout(CLOSE_WAIT, async {
                    while let Some(Ok(_)) = socket.recv().await {}
                })
                .await;
            }
        }
    }

    fn next_expiry(&self) -> Instant {
        let earliest = self
            .channels
            .values()
            .map(|j| j.exp)
            .chain(std::iter::once(self.identity.exp))
            .min()
            .unwrap_or(i64::MAX);
        let left = earliest.saturating_sub(now_secs()).max(0);
        // Far expiries: wake up once a day at most (Instant has limits).
        let left = u64::try_from(left).unwrap_or(0).min(86_400);
        Instant::now() + Duration::from_secs(left)
    }

    /// Closes channels (and the socket) whose token expired.
    async fn expire_tokens(&mut self) {
        let now = now_secs();
        let expired: Vec<String> = self
            .channels
            .iter()
            .filter(|(_, j)| j.exp <= now)
            .map(|(topic, _)| topic.clone())
            .collect();
        for topic in expired {
            self.close_channel(&topic, TokenError::Expired.message())
                .await;
        }
        if self.identity.exp <= now {
            self.close = Some((1008, "Token has expired"));
        }
    }

    /// Sends the `system` error and `phx_close` of a channel and leaves it.
    async fn close_channel(&mut self, topic: &str, message: &str) {
        let Some(joined) = self.channels.remove(topic) else {
            return;
        };
        self.out.push(Frame::push(
            topic,
            "system",
            json!({"extension": "system", "status": "error", "message": message, "channel": joined.name}),
        ));
        self.out.push(phx_close(topic, &joined));
        self.drop_channel(joined).await;
    }

    async fn on_message(&mut self, message: Message) {
        let config = &self.state.inner.config;
        let (frame_limit, max) = (config.frame_limit(), config.max_message_size);
        let len = match &message {
            Message::Text(body) => body.len(),
            Message::Binary(body) => body.len(),
            _ => 0,
        };
        if len > frame_limit {
            self.close = Some((1009, "message too big"));
            return;
        }
        let decoded = match message {
            Message::Text(body) => protocol::decode_text(self.vsn, body.as_str()),
            Message::Binary(body) => {
                if self.vsn == Vsn::V1 {
                    Err(DecodeError {
                        topic: None,
                        msg_ref: None,
                        join_ref: None,
                        reason: "binary messages need vsn=2.0.0",
                    })
                } else {
                    protocol::decode_binary(&body)
                }
            }
            // Pings are answered by the websocket layer; a close is
            // answered by it too, and the next read ends the loop.
            Message::Ping(_) | Message::Pong(_) | Message::Close(_) => return,
        };
        match decoded {
            Ok(frame) => self.on_frame(frame, len > max).await,
            Err(e) => self.on_decode_error(e),
        }
    }

    fn on_decode_error(&mut self, e: DecodeError) {
        match e.topic {
            Some(topic) => self.out.push(Frame {
                join_ref: e.join_ref,
                msg_ref: e.msg_ref,
                topic,
                event: "phx_reply".into(),
                payload: json!({"status": "error", "response": {"reason": e.reason}}),
                bytes: None,
                encoded: Default::default(),
            }),
            None => self.out.push(Frame::push(
                "phoenix",
                "phx_error",
                json!({ "reason": e.reason }),
            )),
        }
    }

    /// Counts a message against the per-second budget.
    fn within_rate(&mut self) -> bool {
        self.events
            .admit(self.state.inner.config.max_events_per_second)
    }

    /// One decoded message; `oversized`: longer than `max_message_size`,
    /// which broadcasts and presence tracks may not be.
    async fn on_frame(&mut self, frame: Frame, oversized: bool) {
        if frame.topic == "phoenix" {
            if frame.event == "heartbeat" {
                self.out.push(frame.reply("ok", json!({})));
            } else {
                self.out.push(frame.reply_error("unknown event"));
            }
            return;
        }
        if !self.within_rate() {
            if frame.msg_ref.is_some() {
                self.out
                    .push(frame.reply_error("Too many messages per second"));
            }
            return;
        }
        if frame.event == "phx_join" {
            return self.join(frame).await;
        }
        if !self.channels.contains_key(&frame.topic) {
            self.out.push(frame.reply_error("unmatched topic"));
            return;
        }
        match frame.event.as_str() {
            "phx_leave" => self.leave(frame).await,
            "broadcast" => self.broadcast(frame, oversized),
            "presence" => self.presence(frame, oversized).await,
            "access_token" => self.access_token(frame).await,
            _ => self.out.push(frame.reply_error("unknown event")),
        }
    }

    async fn join(&mut self, frame: Frame) {
        let Some(name) = frame.topic.strip_prefix("realtime:").map(str::to_owned) else {
            self.out
                .push(frame.reply_error("Topic must start with realtime:"));
            return;
        };
        // A second join of a topic replaces the first (as Phoenix does).
        if let Some(old) = self.channels.remove(&frame.topic) {
            self.out.push(phx_close(&frame.topic, &old));
            self.drop_channel(old).await;
        }
        if !self
            .joins
            .admit(self.state.inner.config.max_joins_per_second)
        {
            self.out
                .push(frame.reply_error("ClientJoinRateLimitReached: Too many joins per second"));
            self.close = Some((1008, "too many joins per second"));
            return;
        }
        if self.channels.len() >= self.state.inner.config.max_channels_per_connection {
            self.out
                .push(frame.reply_error("ChannelRateLimitReached: Too many channels"));
            return;
        }
        let empty = Map::new();
        let config = frame
            .payload
            .get("config")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let private = config.get("private").and_then(Value::as_bool) == Some(true);
        if !private && self.state.inner.config.private_only {
            self.out
                .push(frame.reply_error("PrivateOnly: This project only allows private channels"));
            return;
        }
        let identity = match frame
            .payload
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.starts_with("sb_"))
        {
            Some(token) => match verify_token(&self.state, token) {
                Ok(identity) => identity,
                Err(e) => {
                    self.out.push(frame.reply_error(e.message()));
                    return;
                }
            },
            None => self.identity.clone(),
        };
        let policies = if private {
            match authorization::authorize(&self.state.inner.db, &identity.ctx, &name).await {
                Ok(policies) if policies.may_join() => policies,
                Ok(_) => {
                    self.out.push(frame.reply_error(&format!(
                        "Unauthorized: You do not have permissions to read from this Channel topic: {name}"
                    )));
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "realtime: authorization check failed");
                    self.out.push(
                        frame.reply_error(
                            "UnableToSetPolicies: Realtime was unable to connect to the project database",
                        ),
                    );
                    return;
                }
            }
        } else {
            Policies::ALL
        };
        let key = authorization::hub_key(&frame.topic, private);
        let broadcast = config.get("broadcast");
        let flag = |key: &str| {
            broadcast
                .and_then(|b| b.get(key))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let (broadcast_self, ack) = (flag("self"), flag("ack"));
        // `broadcast.replay: {since, limit}`: a private channel's stored
        // broadcasts since then (milliseconds), at most 25, oldest first.
        let replay = match broadcast.and_then(|b| b.get("replay")) {
            None | Some(Value::Null) => None,
            Some(replay) => {
                if !private {
                    self.out.push(frame.reply_error(
                        "UnableToReplayMessages: Replay is only allowed for private channels",
                    ));
                    return;
                }
                if !policies.broadcast_read {
                    self.out.push(frame.reply_error(&format!(
                        "Unauthorized: You do not have permissions to read from this Channel topic: {name}"
                    )));
                    return;
                }
                let since = replay.get("since").and_then(Value::as_i64);
                let limit = replay.get("limit").and_then(Value::as_i64).unwrap_or(25);
                match since {
                    Some(since) if since >= 0 => Some((since, limit.clamp(1, 25))),
                    _ => {
                        self.out.push(frame.reply_error(
                            "UnableToReplayMessages: replay.since must be a time in milliseconds",
                        ));
                        return;
                    }
                }
            }
        };
        let presence_config = config.get("presence");
        let presence_enabled = presence_config
            .and_then(|p| p.get("enabled"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let presence_key = presence_config
            .and_then(|p| p.get("key"))
            .and_then(Value::as_str)
            .filter(|k| !k.is_empty())
            .map(str::to_owned)
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());

        let entries = match config.get("postgres_changes") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(entries)) => entries.clone(),
            Some(_) => {
                self.out
                    .push(frame.reply_error("postgres_changes must be a list"));
                return;
            }
        };
        let mut bindings = Vec::with_capacity(entries.len());
        let mut echoed = Vec::with_capacity(entries.len());
        for entry in entries {
            let binding = match self.parse_binding(&entry) {
                Ok(b) => b,
                Err(reason) => {
                    self.out.push(frame.reply_error(&reason));
                    return;
                }
            };
            match self.may_subscribe(&identity.ctx, &binding).await {
                Ok(true) => {}
                Ok(false) => {
                    let reason = format!(
                        "Unable to subscribe to changes with given parameters. Please check Realtime \
                         is enabled for the given connect parameters: [event: {}, schema: {}, table: {}]",
                        binding.event.as_deref().unwrap_or("*"),
                        binding.schema.as_deref().unwrap_or("*"),
                        binding.table.as_deref().unwrap_or("*"),
                    );
                    self.out.push(frame.reply_error(&reason));
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "realtime: subscription check failed");
                    self.out
                        .push(frame.reply_error("Realtime was unable to connect to the database"));
                    return;
                }
            }
            let mut echo = entry.as_object().cloned().unwrap_or_default();
            echo.insert("id".into(), json!(binding.id));
            echoed.push(Value::Object(echo));
            bindings.push(binding);
        }
        let has_changes = !bindings.is_empty();
        let shared = Arc::new(Channel {
            conn: self.id,
            topic: frame.topic.clone(),
            key: key.clone(),
            broadcast_read: AtomicBool::new(policies.broadcast_read),
            presence_read: AtomicBool::new(policies.presence_read),
            outbox: self.outbox.clone(),
            broadcast_self,
            presence: AtomicBool::new(presence_enabled),
            bindings,
            ctx: RwLock::new(Arc::new(identity.ctx)),
        });
        self.state.inner.hub.add(shared.clone());
        self.channels.insert(
            frame.topic.clone(),
            Joined {
                shared,
                join_ref: frame.join_ref.clone().or_else(|| frame.msg_ref.clone()),
                name: name.clone(),
                exp: identity.exp,
                ack,
                presence_key,
                tracked: None,
                private,
                policies,
            },
        );
        let response = if has_changes {
            json!({ "postgres_changes": echoed })
        } else {
            json!({})
        };
        self.out.push(frame.reply("ok", response));
        if has_changes {
            self.out.push(Frame::push(
                &frame.topic,
                "system",
                json!({"extension": "postgres_changes", "status": "ok",
                       "message": "Subscribed to PostgreSQL", "channel": name}),
            ));
        }
        if let Some((since, limit)) = replay {
            match replayed(&self.state, &name, since, limit).await {
                Ok(frames) => self
                    .out
                    .extend(frames.into_iter().map(|(event, payload, id)| {
                        Frame::push(
                            &frame.topic,
                            "broadcast",
                            json!({"type": "broadcast", "event": event, "payload": payload,
                               "meta": {"replayed": true, "id": id}}),
                        )
                    })),
                Err(e) => tracing::warn!(error = %e, "realtime: replay failed"),
            }
        }
        if presence_enabled && policies.presence_read {
            match presence::state_of(&self.state, &key).await {
                Ok(state) => self
                    .out
                    .push(Frame::push(&frame.topic, "presence_state", state)),
                Err(e) => tracing::warn!(error = %e, "realtime: presence state unavailable"),
            }
        }
    }

    fn parse_binding(&self, entry: &Value) -> Result<Binding, String> {
        let entry = entry
            .as_object()
            .ok_or("each postgres_changes entry must be an object")?;
        let text = |key: &str| -> Result<Option<String>, String> {
            match entry.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!("postgres_changes {key} must be a string")),
            }
        };
        let event = match text("event")?.map(|e| e.to_ascii_uppercase()) {
            None => None,
            Some(e) if e == "*" => None,
            Some(e) if matches!(e.as_str(), "INSERT" | "UPDATE" | "DELETE") => Some(e),
            Some(e) => {
                return Err(format!(
                    "postgres_changes event {e:?} is not *, INSERT, UPDATE or DELETE"
                ));
            }
        };
        let table = text("table")?;
        let schema = Binding::schema_of(text("schema")?, table.as_deref(), entry)?;
        let table = table.filter(|t| t != "*");
        let filter = match text("filter")?.filter(|f| !f.is_empty()) {
            Some(f) => Some(Filter::parse(&f)?),
            None => None,
        };
        Ok(Binding {
            id: self.state.next_binding_id(),
            event,
            schema,
            table,
            filter,
        })
    }

    /// Whether `ctx` may select from the binding's table (or use its
    /// schema): checked once at join, as that identity.
    async fn may_subscribe(&self, ctx: &RequestContext, binding: &Binding) -> sqlx::Result<bool> {
        let Some(schema) = &binding.schema else {
            return Ok(true);
        };
        let mut tx = self.state.inner.db.begin_as(ctx).await?;
        let allowed: Option<bool> = sqlx::query_scalar(
            "select case \
               when $2::text is null then \
                 case when exists (select 1 from pg_namespace where nspname = $1) \
                      then has_schema_privilege($1, 'USAGE') else false end \
               else coalesce(has_table_privilege(to_regclass(format('%I.%I', $1, $2)), 'SELECT'), false) \
             end",
        )
        .bind(schema)
        .bind(&binding.table)
        .fetch_one(&mut *tx)
        .await?;
        let _ = tx.rollback().await;
        Ok(allowed.unwrap_or(false))
    }

    async fn leave(&mut self, frame: Frame) {
        if let Some(joined) = self.channels.remove(&frame.topic) {
            self.out.push(frame.reply("ok", json!({})));
            self.out.push(phx_close(&frame.topic, &joined));
            self.drop_channel(joined).await;
        }
    }

    async fn leave_all(&mut self) {
        let topics: Vec<String> = self.channels.keys().cloned().collect();
        for topic in topics {
            if let Some(joined) = self.channels.remove(&topic) {
                self.drop_channel(joined).await;
            }
        }
    }

    /// Unregisters a channel and untracks its presence.
    async fn drop_channel(&mut self, mut joined: Joined) {
        self.state.inner.hub.remove(self.id, &joined.shared.key);
        if let Some(phx_ref) = joined.tracked.take() {
            let key = joined.shared.key.clone();
            self.untrack(&key, &joined.presence_key, &phx_ref).await;
        }
    }

    fn broadcast(&mut self, frame: Frame, oversized: bool) {
        let Some(joined) = self.channels.get(&frame.topic) else {
            return;
        };
        let Some(event) = frame.payload.get("event").and_then(Value::as_str) else {
            self.out
                .push(frame.reply_error("broadcast payload must carry a string event"));
            return;
        };
        let payload = match frame.bytes {
            Some(_) => json!({"type": "broadcast", "event": event}),
            None => json!({
                "type": "broadcast",
                "event": event,
                "payload": frame.payload.get("payload").cloned().unwrap_or_else(|| json!({})),
            }),
        };
        // A private channel's broadcast goes out only if its policies let
        // the sender write (as on the platform, a refused one is dropped).
        if !joined.policies.broadcast_write {
            return;
        }
        let ack = joined.ack && frame.msg_ref.is_some();
        if oversized {
            // The platform's refusal: dropped, and told only to a sender
            // that asked for acks (realtime-js's `send` resolves 'error').
            if ack {
                self.out
                    .push(frame.reply("error", json!("payload_size_exceeded")));
            }
            return;
        }
        self.state.publish(
            Relayed::Broadcast {
                topic: joined.shared.key.clone(),
                payload,
                bytes: frame.bytes.clone(),
            },
            Some(self.id),
        );
        if ack {
            self.out.push(frame.reply("ok", json!({})));
        }
    }

    async fn presence(&mut self, frame: Frame, oversized: bool) {
        let Some(joined) = self.channels.get(&frame.topic) else {
            return;
        };
        // Presence lives under the hub key: a private channel's apart from
        // a public one of the same name.
        let topic = joined.shared.key.clone();
        if !joined.policies.presence_write {
            self.out.push(frame.reply_error(
                "You do not have permissions to track presence on this Channel topic",
            ));
            return;
        }
        if !self
            .presence_events
            .admit(self.state.inner.config.max_presence_events_per_second)
        {
            return self
                .close_channel(&frame.topic, "Client presence rate limit exceeded")
                .await;
        }
        match frame.payload.get("event").and_then(Value::as_str) {
            Some("track") => {
                let Some(Value::Object(mut meta)) = frame.payload.get("payload").cloned() else {
                    self.out
                        .push(frame.reply_error("Presence track payload must be a map"));
                    return;
                };
                if oversized {
                    // As the platform: the channel is shut down.
                    self.close_channel(&frame.topic, "Track message size exceeded")
                        .await;
                    return;
                }
                let Some(joined) = self.channels.get_mut(&frame.topic) else {
                    return;
                };
                joined.shared.presence.store(true, Ordering::Relaxed);
                let key = joined.presence_key.clone();
                let previous = joined.tracked.take();
                let phx_ref = plinth_db::random_token(20);
                meta.insert("phx_ref".into(), json!(phx_ref));
                let meta = Value::Object(meta);
                let mut leaves = json!({});
                if let Some(old_ref) = previous {
                    match presence::delete(&self.state, &old_ref).await {
                        Ok(Some(old_meta)) => leaves = json!({ &key: { "metas": [old_meta] } }),
                        Ok(None) => {}
                        Err(e) => tracing::warn!(error = %e, "realtime: presence untrack failed"),
                    }
                }
                let max_members = self.state.inner.config.max_presence_members;
                match presence::insert(&self.state, &phx_ref, &topic, &key, &meta, max_members)
                    .await
                {
                    Ok(true) => {}
                    Ok(false) => {
                        self.out.push(frame.reply_error(
                            "PresenceMembersLimitReached: Too many presence members in this channel",
                        ));
                        return;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "realtime: presence track failed");
                        self.out.push(frame.reply_error("Presence is unavailable"));
                        return;
                    }
                }
                if let Some(joined) = self.channels.get_mut(&frame.topic) {
                    joined.tracked = Some(phx_ref);
                }
                self.state.publish(
                    Relayed::PresenceDiff {
                        topic,
                        joins: json!({ key: { "metas": [meta] } }),
                        leaves,
                    },
                    None,
                );
                self.out.push(frame.reply("ok", json!({})));
            }
            Some("untrack") => {
                let Some(joined) = self.channels.get_mut(&frame.topic) else {
                    return;
                };
                let key = joined.presence_key.clone();
                if let Some(phx_ref) = joined.tracked.take() {
                    self.untrack(&topic, &key, &phx_ref).await;
                }
                self.out.push(frame.reply("ok", json!({})));
            }
            _ => self
                .out
                .push(frame.reply_error("presence event must be track or untrack")),
        }
    }

    async fn untrack(&self, topic: &str, key: &str, phx_ref: &str) {
        match presence::delete(&self.state, phx_ref).await {
            Ok(Some(meta)) => self.state.publish(
                Relayed::PresenceDiff {
                    topic: topic.to_owned(),
                    joins: json!({}),
                    leaves: json!({ key: { "metas": [meta] } }),
                },
                None,
            ),
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "realtime: presence untrack failed"),
        }
    }

    async fn access_token(&mut self, frame: Frame) {
        let Some(token) = frame
            .payload
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.starts_with("sb_"))
        else {
            self.out.push(frame.reply("ok", json!({})));
            return;
        };
        match verify_token(&self.state, token) {
            Ok(identity) => {
                let Some(joined) = self.channels.get(&frame.topic) else {
                    self.out.push(frame.reply("ok", json!({})));
                    return;
                };
                // A private channel's rights are worked out again with the
                // new token; losing a read ends the channel.
                let policies = if joined.private {
                    let checked =
                        authorization::authorize(&self.state.inner.db, &identity.ctx, &joined.name)
                            .await;
                    match checked {
                        Ok(policies) if joined.policies.read_revoked_by(&policies) => {
                            let message = format!(
                                "You no longer have permission to read from this Channel topic: {}",
                                joined.name
                            );
                            return self.close_channel(&frame.topic, &message).await;
                        }
                        Ok(policies) => policies,
                        Err(e) => {
                            tracing::warn!(error = %e, "realtime: authorization check failed");
                            return self
                                .close_channel(
                                    &frame.topic,
                                    "Realtime was unable to connect to the project database",
                                )
                                .await;
                        }
                    }
                } else {
                    Policies::ALL
                };
                if let Some(joined) = self.channels.get_mut(&frame.topic) {
                    joined.exp = identity.exp;
                    joined.policies = policies;
                    joined
                        .shared
                        .broadcast_read
                        .store(policies.broadcast_read, Ordering::Relaxed);
                    joined
                        .shared
                        .presence_read
                        .store(policies.presence_read, Ordering::Relaxed);
                    joined.shared.set_context(identity.ctx);
                }
                self.out.push(frame.reply("ok", json!({})));
            }
            Err(e) => self.close_channel(&frame.topic, e.message()).await,
        }
    }
}

/// The stored broadcasts of private topic `name` since `since_ms`, oldest
/// first: (event, payload, id).
async fn replayed(
    state: &RealtimeState,
    name: &str,
    since_ms: i64,
    limit: i64,
) -> sqlx::Result<Vec<(String, Value, String)>> {
    let mut rows: Vec<(String, Value, String)> = sqlx::query_as(
        "select event, coalesce(payload, '{}'::jsonb), id::text from realtime.messages          where topic = $1 and private and extension = 'broadcast' and event is not null            and inserted_at >= timezone('utc', to_timestamp($2::float8 / 1000))          order by inserted_at desc limit $3",
    )
    .bind(name)
    .bind(since_ms)
    .bind(limit)
    .fetch_all(&state.inner.db.owner)
    .await?;
    rows.reverse();
    Ok(rows)
}

/// A count of events in the current one-second window.
#[derive(Debug)]
struct RateWindow {
    start: Instant,
    count: u32,
}

impl Default for RateWindow {
    fn default() -> Self {
        Self {
            start: Instant::now(),
            count: 0,
        }
    }
}

impl RateWindow {
    /// Counts one more; whether it is within `per_second`.
    fn admit(&mut self, per_second: u32) -> bool {
        let now = Instant::now();
        if now.duration_since(self.start) >= Duration::from_secs(1) {
            self.start = now;
            self.count = 0;
        }
        self.count += 1;
        self.count <= per_second
    }
}

fn phx_close(topic: &str, joined: &Joined) -> Frame {
    Frame {
        join_ref: joined.join_ref.clone(),
        msg_ref: joined.join_ref.clone(),
        topic: topic.to_owned(),
        event: "phx_close".into(),
        payload: json!({}),
        bytes: None,
        encoded: Default::default(),
    }
}
