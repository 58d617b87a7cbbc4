//! Presences in `realtime.presences`, shared by every node.

use serde_json::{Map, Value, json};

use crate::RealtimeState;
use crate::relay::NODE_STALE_AFTER_SECS;

/// Records a presence; `meta` already carries its `phx_ref`.
pub(crate) async fn insert(
    state: &RealtimeState,
    phx_ref: &str,
    topic: &str,
    key: &str,
    meta: &Value,
) -> sqlx::Result<()> {
    sqlx::query(
        "insert into realtime.presences (phx_ref, topic, key, node, meta) \
         values ($1, $2, $3, $4, $5)",
    )
    .bind(phx_ref)
    .bind(topic)
    .bind(key)
    .bind(state.inner.node)
    .bind(meta)
    .execute(&state.inner.db.owner)
    .await
    .map(|_| ())
}

/// Removes a presence, returning its meta (for the diff's `leaves`).
pub(crate) async fn delete(state: &RealtimeState, phx_ref: &str) -> sqlx::Result<Option<Value>> {
    sqlx::query_scalar("delete from realtime.presences where phx_ref = $1 returning meta")
        .bind(phx_ref)
        .fetch_optional(&state.inner.db.owner)
        .await
}

/// The state of `topic` on every live node: `{key: {"metas": [...]}}`.
pub(crate) async fn state_of(state: &RealtimeState, topic: &str) -> sqlx::Result<Value> {
    let rows: Vec<(String, Value)> = sqlx::query_as(
        "select p.key, jsonb_agg(p.meta order by p.created_at) \
           from realtime.presences p \
           join realtime.nodes n on n.id = p.node \
          where p.topic = $1 and n.seen_at > now() - make_interval(secs => $2) \
          group by p.key",
    )
    .bind(topic)
    .bind(f64::from(NODE_STALE_AFTER_SECS))
    .fetch_all(&state.inner.db.owner)
    .await?;
    let map: Map<String, Value> = rows
        .into_iter()
        .map(|(key, metas)| (key, json!({ "metas": metas })))
        .collect();
    Ok(Value::Object(map))
}
