//! Everything that crosses nodes, through PostgreSQL only.
//!
//! * The listener: one `PgListener` per node, LISTENing on the changes
//!   channel (fed by `realtime.publish_change()`) and on the relay channel.
//! * The relay: broadcasts and presence diffs made on one node are
//!   delivered to its own sockets at once and published with `pg_notify` for
//!   the others (each ignores its own). Messages over NOTIFY's 8000-byte
//!   limit travel through `realtime.relay_spill`, the notification carrying
//!   only the row's id.
//! * The node beat: the node's row in `realtime.nodes` is refreshed every
//!   few seconds; presences of nodes silent for longer than
//!   [`NODE_STALE_AFTER_SECS`] are removed (and their leaves sent).

use std::collections::BTreeMap;
use std::time::Duration;

use axum::body::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::postgres::PgListener;
use sqlx::types::Json;
use tokio::sync::{mpsc, oneshot, watch};
use uuid::Uuid;

use crate::RealtimeState;

/// NOTIFY channel of row changes (also named by `realtime.changes_channel()`).
pub const CHANGES_CHANNEL: &str = "plinth_realtime_changes";
/// NOTIFY channel of relayed broadcasts and presence diffs.
pub(crate) const RELAY_CHANNEL: &str = "plinth_realtime_relay";
/// Largest NOTIFY payload sent inline (PostgreSQL's limit is 8000 bytes).
const NOTIFY_INLINE_LIMIT: usize = 7900;
/// How often a node refreshes its row.
const NODE_BEAT: Duration = Duration::from_secs(5);
/// A node whose row is older than this is gone; its presences are removed.
pub(crate) const NODE_STALE_AFTER_SECS: i32 = 30;

/// A message every node delivers to its own subscribers of `topic`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Relayed {
    /// `payload` is the full broadcast payload
    /// (`{"type":"broadcast","event":…,"payload":…}`), or, when the user's
    /// payload is `bytes`, its `type` and `event`.
    Broadcast {
        topic: String,
        payload: Value,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "base64_bytes"
        )]
        bytes: Option<Bytes>,
    },
    PresenceDiff {
        topic: String,
        joins: Value,
        leaves: Value,
    },
}

#[derive(Debug, Serialize, Deserialize)]
struct Envelope {
    node: Uuid,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    body: Option<Relayed>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spill: Option<i64>,
}

pub(crate) enum RelayCommand {
    Publish(Relayed),
    /// Answered once every earlier command was handled.
    Flush(oneshot::Sender<()>),
}

/// Publishes relayed messages in order, one at a time.
pub(crate) async fn run_publisher(state: RealtimeState, mut rx: mpsc::Receiver<RelayCommand>) {
    while let Some(command) = rx.recv().await {
        match command {
            RelayCommand::Publish(message) => {
                if let Err(e) = publish(&state, &message).await {
                    tracing::warn!(error = %e, "realtime: relay publish failed");
                }
            }
            RelayCommand::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}

async fn publish(state: &RealtimeState, message: &Relayed) -> sqlx::Result<()> {
    let inner = &state.inner;
    let mut text = serde_json::to_string(&Envelope {
        node: inner.node,
        body: Some(message.clone()),
        spill: None,
    })
    .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    if text.len() > NOTIFY_INLINE_LIMIT {
        let id: i64 =
            sqlx::query_scalar("insert into realtime.relay_spill (body) values ($1) returning id")
                .bind(Json(message))
                .fetch_one(&inner.db.owner)
                .await?;
        text = serde_json::to_string(&Envelope {
            node: inner.node,
            body: None,
            spill: Some(id),
        })
        .map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    }
    sqlx::query("select pg_notify($1, $2)")
        .bind(RELAY_CHANNEL)
        .bind(text)
        .execute(&inner.db.owner)
        .await?;
    Ok(())
}

/// The node's one listener: changes go to the dispatcher (in order), relay
/// messages of other nodes to the local subscribers.
pub(crate) async fn run_listener(
    state: RealtimeState,
    mut listener: PgListener,
    changes: mpsc::Sender<String>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            _ = crate::stopped(&mut shutdown) => break,
            received = listener.recv() => match received {
                Ok(notification) => {
                    if notification.channel() == CHANGES_CHANNEL {
                        if changes.send(notification.payload().to_owned()).await.is_err() {
                            break;
                        }
                    } else if notification.channel() == RELAY_CHANNEL {
                        on_relay(&state, notification.payload()).await;
                    }
                }
                Err(e) => {
                    // The listener reconnects on the next recv(); notifications
                    // sent in between are lost (as with any LISTEN).
                    tracing::warn!(error = %e, "realtime: listener lost its connection");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }
    let _ = listener.unlisten_all().await;
}

async fn on_relay(state: &RealtimeState, payload: &str) {
    let envelope: Envelope = match serde_json::from_str(payload) {
        Ok(e) => e,
        Err(e) => {
            tracing::warn!(error = %e, "realtime: unreadable relay message");
            return;
        }
    };
    if envelope.node == state.inner.node {
        return;
    }
    let message = match (envelope.body, envelope.spill) {
        (Some(body), _) => body,
        (None, Some(id)) => {
            let body: Result<Option<Json<Relayed>>, _> =
                sqlx::query_scalar("select body from realtime.relay_spill where id = $1")
                    .bind(id)
                    .fetch_optional(&state.inner.db.owner)
                    .await;
            match body {
                Ok(Some(Json(body))) => body,
                Ok(None) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "realtime: cannot read a spilled relay message");
                    return;
                }
            }
        }
        (None, None) => return,
    };
    state.deliver(&message, None);
}

/// Keeps the node's row fresh and removes what dead nodes left behind.
pub(crate) async fn run_node_beat(state: RealtimeState, mut shutdown: watch::Receiver<bool>) {
    let mut ticker = tokio::time::interval(NODE_BEAT);
    loop {
        tokio::select! {
            _ = crate::stopped(&mut shutdown) => break,
            _ = ticker.tick() => {
                if let Err(e) = beat(&state).await {
                    tracing::warn!(error = %e, "realtime: node beat failed");
                }
            }
        }
    }
}

async fn beat(state: &RealtimeState) -> sqlx::Result<()> {
    let owner = &state.inner.db.owner;
    sqlx::query(
        "insert into realtime.nodes (id) values ($1) \
         on conflict (id) do update set seen_at = now()",
    )
    .bind(state.inner.node)
    .execute(owner)
    .await?;
    let gone: Vec<(String, String, Value)> = sqlx::query_as(
        "delete from realtime.presences p using realtime.nodes n \
         where p.node = n.id and n.seen_at < now() - make_interval(secs => $1) \
         returning p.topic, p.key, p.meta",
    )
    .bind(f64::from(NODE_STALE_AFTER_SECS))
    .fetch_all(owner)
    .await?;
    sqlx::query("delete from realtime.nodes where seen_at < now() - make_interval(secs => $1)")
        .bind(f64::from(NODE_STALE_AFTER_SECS))
        .execute(owner)
        .await?;
    sqlx::query("delete from realtime.relay_spill where created_at < now() - interval '1 minute'")
        .execute(owner)
        .await?;
    // Broadcasts sent from SQL are kept three days (as the platform keeps
    // them), then removed.
    sqlx::query(
        "delete from realtime.messages where inserted_at < timezone('utc', now()) - interval '3 days'",
    )
        .execute(owner)
        .await?;
    let mut by_topic: BTreeMap<String, BTreeMap<String, Vec<Value>>> = BTreeMap::new();
    for (topic, key, meta) in gone {
        by_topic
            .entry(topic)
            .or_default()
            .entry(key)
            .or_default()
            .push(meta);
    }
    for (topic, keys) in by_topic {
        let leaves: serde_json::Map<String, Value> = keys
            .into_iter()
            .map(|(key, metas)| (key, json!({ "metas": metas })))
            .collect();
        state.publish(
            Relayed::PresenceDiff {
                topic,
                joins: json!({}),
                leaves: Value::Object(leaves),
            },
            None,
        );
    }
    Ok(())
}

/// A broadcast's bytes as base64 text in the relay's JSON.
mod base64_bytes {
    use axum::body::Bytes;
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &Option<Bytes>, s: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(bytes) => s.serialize_some(&STANDARD.encode(bytes)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Bytes>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|text| {
                STANDARD
                    .decode(text)
                    .map(Bytes::from)
                    .map_err(serde::de::Error::custom)
            })
            .transpose()
    }
}
