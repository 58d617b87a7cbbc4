//! The node's registry of joined channels: who receives what on this node.
//!
//! Every joined channel of every local socket is one [`Channel`], shared
//! between the socket's task (which owns the channel's life) and the
//! deliverers (broadcast, presence, the change dispatcher), which only push
//! frames into the socket's outbox. Nothing here is shared with other
//! nodes; they learn of broadcasts and presence through the relay.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use plinth_db::RequestContext;
use tokio::sync::mpsc;

use crate::filter::Filter;
use crate::protocol::Frame;

pub(crate) type ConnId = u64;

/// Frames waiting to be written to one socket. Bounded: a socket that does
/// not read loses pushes rather than growing the node's memory.
pub(crate) type Outbox = mpsc::Sender<Arc<Frame>>;

/// One `postgres_changes` entry of a join.
#[derive(Debug, Clone)]
pub(crate) struct Binding {
    /// The id echoed in the join reply and listed in each delivery's `ids`.
    pub id: u32,
    /// `None`: every event (`*`); else `INSERT`, `UPDATE` or `DELETE`.
    pub event: Option<String>,
    /// `None`: every schema (`*`).
    pub schema: Option<String>,
    /// `None`: every table of the schema.
    pub table: Option<String>,
    pub filter: Option<Filter>,
}

impl Binding {
    /// The schema a binding's `schema` and `table` name, as the platform
    /// reads them: the schema given (`None` for `*`, every schema), and
    /// `public` when only a table is given (the Python client sends no
    /// schema). Neither is refused in the platform's words.
    pub fn schema_of(
        schema: Option<String>,
        table: Option<&str>,
        params: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Option<String>, String> {
        match (schema, table) {
            (Some(schema), _) => Ok((schema != "*").then_some(schema)),
            (None, Some(_)) => Ok(Some("public".to_owned())),
            (None, None) => Err(format!(
                "No subscription params provided. Please provide at least a `schema` or `table` \
                 to subscribe to: {}",
                serde_json::Value::Object(params.clone())
            )),
        }
    }

    pub fn covers(&self, schema: &str, table: &str, event: &str) -> bool {
        self.schema.as_deref().is_none_or(|s| s == schema)
            && self.table.as_deref().is_none_or(|t| t == table)
            && self.event.as_deref().is_none_or(|e| e == event)
    }
}

/// A joined channel of a local socket.
#[derive(Debug)]
pub(crate) struct Channel {
    pub conn: ConnId,
    /// The topic as the client joined it (`realtime:...`).
    pub topic: String,
    /// Its key in the hub: the topic, behind `private:` for a private
    /// channel ([`crate::authorization::hub_key`]).
    pub key: String,
    /// May receive broadcasts / presence events: always on a public
    /// channel; on a private one as its policies say (re-checked when the
    /// token is refreshed).
    pub broadcast_read: AtomicBool,
    pub presence_read: AtomicBool,
    pub outbox: Outbox,
    /// `config.broadcast.self`: the sender receives its own broadcasts.
    pub broadcast_self: bool,
    /// Whether presence events are sent to this channel (`config.presence.
    /// enabled`, or the channel tracked something).
    pub presence: AtomicBool,
    pub bindings: Vec<Binding>,
    /// The identity changes are checked with; replaced by `access_token`.
    pub ctx: RwLock<Arc<RequestContext>>,
}

impl Channel {
    pub fn context(&self) -> Arc<RequestContext> {
        match self.ctx.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub fn set_context(&self, ctx: RequestContext) {
        let mut guard = match self.ctx.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        *guard = Arc::new(ctx);
    }

    /// Queues a frame; drops it when the socket is not keeping up.
    pub fn send(&self, frame: Arc<Frame>) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.outbox.try_send(frame) {
            tracing::warn!(topic = %self.topic, "realtime: slow socket, push dropped");
        }
    }
}

#[derive(Debug, Default)]
pub(crate) struct Hub {
    topics: RwLock<HashMap<String, Vec<Arc<Channel>>>>,
}

impl Hub {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, Vec<Arc<Channel>>>> {
        self.topics.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<String, Vec<Arc<Channel>>>> {
        self.topics.write().unwrap_or_else(|p| p.into_inner())
    }

    pub fn add(&self, channel: Arc<Channel>) {
        self.write()
            .entry(channel.key.clone())
            .or_default()
            .push(channel);
    }

    /// Topics with a local subscriber, and joined channels.
    pub fn counts(&self) -> (usize, usize) {
        let topics = self.read();
        (topics.len(), topics.values().map(Vec::len).sum())
    }

    pub fn remove(&self, conn: ConnId, key: &str) {
        let mut topics = self.write();
        if let Some(list) = topics.get_mut(key) {
            list.retain(|c| c.conn != conn);
            if list.is_empty() {
                topics.remove(key);
            }
        }
    }

    /// A broadcast to the local subscribers of hub key `key` that may read
    /// it; `origin` (the sending socket) is skipped unless its channel
    /// asked for `self`.
    pub fn broadcast(&self, key: &str, frame: &Arc<Frame>, origin: Option<ConnId>) {
        if let Some(list) = self.read().get(key) {
            for channel in list {
                if Some(channel.conn) == origin && !channel.broadcast_self {
                    continue;
                }
                if channel.broadcast_read.load(Ordering::Relaxed) {
                    channel.send(frame.clone());
                }
            }
        }
    }

    /// A presence event to the local subscribers of hub key `key` with
    /// presence on that may read it.
    pub fn presence(&self, key: &str, frame: &Arc<Frame>) {
        if let Some(list) = self.read().get(key) {
            for channel in list {
                if channel.presence.load(Ordering::Relaxed)
                    && channel.presence_read.load(Ordering::Relaxed)
                {
                    channel.send(frame.clone());
                }
            }
        }
    }

    /// Channels with a binding on `schema.table` for `event`.
    pub fn change_subscribers(&self, schema: &str, table: &str, event: &str) -> Vec<Arc<Channel>> {
        self.read()
            .values()
            .flatten()
            .filter(|c| c.bindings.iter().any(|b| b.covers(schema, table, event)))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    #[test]
    fn a_binding_without_a_schema_is_on_public() {
        let params = Map::new();
        let schema =
            |s: Option<&str>, t: Option<&str>| Binding::schema_of(s.map(str::to_owned), t, &params);
        assert_eq!(schema(None, Some("notes")), Ok(Some("public".into())));
        assert_eq!(schema(None, Some("*")), Ok(Some("public".into())));
        assert_eq!(schema(Some("app"), Some("notes")), Ok(Some("app".into())));
        assert_eq!(schema(Some("app"), None), Ok(Some("app".into())));
        assert_eq!(schema(Some("*"), None), Ok(None));
        let refused = Binding::schema_of(None, None, json!({"event": "*"}).as_object().unwrap());
        assert_eq!(
            refused,
            Err(
                "No subscription params provided. Please provide at least a `schema` or `table` \
                 to subscribe to: {\"event\":\"*\"}"
                    .to_owned()
            )
        );
    }
}
