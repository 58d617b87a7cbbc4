//! Plinth's realtime service: the hosted platform's realtime websocket
//! (`/realtime/v1/websocket`), so that `supabase.channel(...)` of the
//! unmodified `@supabase/supabase-js` v2 client works against Plinth.
//!
//! **What it does.** The Phoenix channel protocol as realtime-js speaks it
//! (`vsn=1.0.0` JSON objects, `vsn=2.0.0` JSON arrays and binary user
//! broadcasts, their payloads JSON or bytes): join / leave / close / error,
//! heartbeats, broadcast (with `ack` and `self`), presence (`presence_state` / `presence_diff`),
//! `postgres_changes` with filters, token refresh (`access_token`) and
//! expiry, `system` messages, and the HTTP broadcast endpoint
//! (`POST /api/broadcast`, 202).
//!
//! **How changes flow.** An operator enables a table with
//! `select realtime.enable('public', 'todos')` (or the platform idiom
//! `alter publication supabase_realtime add table todos` when the owner is
//! a superuser). Its trigger `pg_notify`s every row change; each node's one
//! listener hands them, in order, to its dispatcher, which checks every
//! subscriber's right to see the row by selecting it by primary key inside
//! `Database::begin_as` with that subscriber's role and claims (one query
//! per distinct identity and change), and pushes it to those who may.
//!
//! **Invariants.**
//! * A row reaches a subscriber only if a `select` of it *as that
//!   subscriber* returns it (row-level security and grants decide). A
//!   deleted row cannot be selected: as on the platform, a DELETE reaches
//!   only roles that may select every column of the table and carries only
//!   the primary key. The `old_record` of an UPDATE or DELETE is the primary
//!   key (the whole old row only for a table without row-level security
//!   whose replica identity is `FULL`), and a DELETE's filters see only
//!   that old record.
//! * Nothing is shared between nodes but PostgreSQL: changes arrive on
//!   every node by NOTIFY; broadcasts and presence diffs are relayed by
//!   NOTIFY; presences live in `realtime.presences`.
//! * No client frame can crash a connection: bad frames get an error reply
//!   (or `phx_error` on `phoenix` when not even the topic is readable);
//!   internal causes are logged, never sent.
//! * Every limit of [`RealtimeConfig`] is enforced per node or connection.
//!
//! **API surface.** [`migrations`] (set `realtime`, after
//! `plinth_db::platform_migrations()`), [`RealtimeConfig`],
//! [`RealtimeState::new`], [`router`] (nest at `/realtime/v1`),
//! [`RealtimeState::shutdown`], [`RealtimeError`].

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod authorization;
mod changes;
mod clients;
mod config;
mod error;
mod filter;
mod http;
mod hub;
mod presence;
mod protocol;
mod relay;
mod socket;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use plinth_db::{Database, JwtSecret, MigrationSet};
use sqlx::postgres::PgListener;
use tokio::sync::{Semaphore, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use uuid::Uuid;

pub use changes::row_by_key;
pub use config::RealtimeConfig;
pub use error::RealtimeError;
pub use relay::CHANGES_CHANNEL;

use hub::{ConnId, Hub};
use protocol::Frame;
use relay::{RelayCommand, Relayed};

/// The realtime schema: the change trigger, `realtime.enable`, the node
/// and presence registries, the relay spill table.
pub fn migrations() -> MigrationSet {
    MigrationSet::embedded("realtime", "crates/realtime/migrations", MIGRATION_FILES)
        .expect("the embedded realtime migrations are well named")
}

const MIGRATION_FILES: &[(&str, &str)] = &[
    (
        "0001_realtime_schema.sql",
        include_str!("../migrations/0001_realtime_schema.sql"),
    ),
    (
        "0002_realtime_messages.sql",
        include_str!("../migrations/0002_realtime_messages.sql"),
    ),
];

/// Queue lengths between the node's tasks.
const CHANGE_QUEUE: usize = 10_000;
const RELAY_QUEUE: usize = 10_000;
/// How long [`RealtimeState::shutdown`] waits for sockets to close.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Open sockets, topics with a subscriber and joined channels of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RealtimeStats {
    pub sockets: usize,
    pub topics: usize,
    pub channels: usize,
}

/// One realtime node; cheap to clone.
#[derive(Clone, Debug)]
pub struct RealtimeState {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    db: Database,
    jwt: JwtSecret,
    config: RealtimeConfig,
    /// This node's id in `realtime.nodes` and on relayed messages.
    node: Uuid,
    hub: Hub,
    /// One permit per open socket ([`RealtimeConfig::max_connections`]).
    connections: Arc<Semaphore>,
    /// Open sockets per client address and per user.
    clients: Arc<clients::Clients>,
    next_conn: AtomicU64,
    next_binding: AtomicU32,
    shutdown: watch::Sender<bool>,
    relay: mpsc::Sender<RelayCommand>,
    tables: Mutex<HashMap<(String, String), changes::CachedTable>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl RealtimeState {
    /// Starts a node over `db`: registers it in `realtime.nodes`, LISTENs
    /// (one connection of its own) and starts the dispatcher, the relay
    /// publisher and the node beat. Needs the [`migrations`] applied.
    pub async fn new(
        db: Database,
        jwt: JwtSecret,
        config: RealtimeConfig,
    ) -> Result<Self, RealtimeError> {
        let node = Uuid::new_v4();
        sqlx::query("insert into realtime.nodes (id) values ($1)")
            .bind(node)
            .execute(&db.owner)
            .await?;
        let mut listener = PgListener::connect_with(&db.owner).await?;
        listener
            .listen_all([relay::CHANGES_CHANNEL, relay::RELAY_CHANNEL])
            .await?;
        let (relay_tx, relay_rx) = mpsc::channel(RELAY_QUEUE);
        let (changes_tx, changes_rx) = mpsc::channel(CHANGE_QUEUE);
        let (shutdown, _) = watch::channel(false);
        let state = Self {
            inner: Arc::new(Inner {
                db,
                jwt,
                connections: Arc::new(Semaphore::new(config.max_connections)),
                clients: Arc::default(),
                config,
                node,
                hub: Hub::default(),
                next_conn: AtomicU64::new(1),
                next_binding: AtomicU32::new(rand_start()),
                shutdown,
                relay: relay_tx,
                tables: Mutex::new(HashMap::new()),
                tasks: Mutex::new(Vec::new()),
            }),
        };
        let tasks = vec![
            tokio::spawn(relay::run_listener(
                state.clone(),
                listener,
                changes_tx,
                state.inner.shutdown.subscribe(),
            )),
            tokio::spawn(changes::run_dispatcher(state.clone(), changes_rx)),
            tokio::spawn(relay::run_publisher(state.clone(), relay_rx)),
            tokio::spawn(relay::run_node_beat(
                state.clone(),
                state.inner.shutdown.subscribe(),
            )),
        ];
        *state.inner.tasks.lock().unwrap_or_else(|p| p.into_inner()) = tasks;
        Ok(state)
    }

    /// What this node holds open now (for metrics).
    pub fn stats(&self) -> RealtimeStats {
        let (topics, channels) = self.inner.hub.counts();
        RealtimeStats {
            sockets: self.inner.config.max_connections
                - self
                    .inner
                    .connections
                    .available_permits()
                    .min(self.inner.config.max_connections),
            topics,
            channels,
        }
    }

    /// This node's id (as recorded in `realtime.nodes`).
    pub fn node_id(&self) -> Uuid {
        self.inner.node
    }

    /// Closes every socket of this node with a close frame (1001, "server
    /// shutting down"), waits for them (at most a few seconds), removes the
    /// node's presences and stops its tasks. New upgrades are refused with
    /// 503 from the first moment.
    pub async fn shutdown(&self) {
        let inner = &self.inner;
        let _ = inner.shutdown.send(true);
        let all = u32::try_from(inner.config.max_connections).unwrap_or(u32::MAX);
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, inner.connections.acquire_many(all)).await;
        let (done, flushed) = oneshot::channel();
        if inner.relay.send(RelayCommand::Flush(done)).await.is_ok() {
            let _ = tokio::time::timeout(SHUTDOWN_GRACE, flushed).await;
        }
        // Bounded: with the database gone, the node's row is left for the
        // other nodes to expire rather than holding the shutdown up.
        let forget = sqlx::query("delete from realtime.nodes where id = $1")
            .bind(inner.node)
            .execute(&inner.db.owner);
        let _ = tokio::time::timeout(SHUTDOWN_GRACE, forget).await;
        let tasks = std::mem::take(&mut *inner.tasks.lock().unwrap_or_else(|p| p.into_inner()));
        for task in tasks {
            task.abort();
        }
    }

    fn is_shutting_down(&self) -> bool {
        *self.inner.shutdown.borrow()
    }

    fn next_conn_id(&self) -> ConnId {
        self.inner
            .next_conn
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    fn next_binding_id(&self) -> u32 {
        self.inner
            .next_binding
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }

    /// Delivers `message` to this node's subscribers now and relays it to
    /// the other nodes.
    fn publish(&self, message: Relayed, origin: Option<ConnId>) {
        self.deliver(&message, origin);
        if let Err(e) = self.inner.relay.try_send(RelayCommand::Publish(message)) {
            tracing::warn!(error = %e, "realtime: relay queue full, message not relayed");
        }
    }

    /// Delivers `message` to this node's subscribers only.
    fn deliver(&self, message: &Relayed, origin: Option<ConnId>) {
        match message {
            Relayed::Broadcast {
                topic,
                payload,
                bytes,
            } => {
                let mut frame = Frame::push(
                    authorization::wire_topic(topic),
                    "broadcast",
                    payload.clone(),
                );
                frame.bytes = bytes.clone();
                let frame = Arc::new(frame);
                self.inner.hub.broadcast(topic, &frame, origin);
            }
            Relayed::PresenceDiff {
                topic,
                joins,
                leaves,
            } => {
                let frame = Arc::new(Frame::push(
                    authorization::wire_topic(topic),
                    "presence_diff",
                    serde_json::json!({ "joins": joins, "leaves": leaves }),
                ));
                self.inner.hub.presence(topic, &frame);
            }
        }
    }
}

/// Resolves once the node is shutting down.
async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    let _ = shutdown.wait_for(|stop| *stop).await;
}

/// A start for binding ids that differs between nodes and restarts.
fn rand_start() -> u32 {
    let bytes = *Uuid::new_v4().as_bytes();
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) >> 2
}

/// The realtime routes; nest at `/realtime/v1`:
/// `GET /websocket` (upgrade), `POST /api/broadcast`,
/// `POST /api/broadcast/{topic}/events/{event}`.
pub fn router(state: RealtimeState) -> Router {
    Router::new()
        .route("/websocket", get(socket::upgrade))
        .route("/api/broadcast", post(http::broadcast))
        .route(
            "/api/broadcast/{topic}/events/{event}",
            post(http::broadcast_event),
        )
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

async fn method_not_allowed() -> RealtimeError {
    RealtimeError::refused(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "Method not allowed",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_file_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        plinth_db::migrate::matches_folder(&migrations(), &dir).unwrap();
        assert_eq!(migrations().name(), "realtime");
    }

    #[test]
    fn the_changes_channel_matches_the_sql() {
        let sql = MIGRATION_FILES[0].1;
        assert!(sql.contains(&format!("select '{}'", relay::CHANGES_CHANNEL)));
    }
}
