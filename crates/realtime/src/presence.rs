//! Presences in `realtime.presences`, shared by every node.

use serde_json::{Map, Value, json};

use crate::RealtimeState;
use crate::relay::NODE_STALE_AFTER_SECS;

/// Records a presence; `meta` already carries its `phx_ref`. `false` (and
/// nothing recorded) when the topic already has `max_members` other keys.
pub(crate) async fn insert(
    state: &RealtimeState,
    phx_ref: &str,
    topic: &str,
    key: &str,
    meta: &Value,
    max_members: usize,
) -> sqlx::Result<bool> {
    let inserted = sqlx::query(
        "insert into realtime.presences (phx_ref, topic, key, node, meta) \
         select $1, $2, $3, $4, $5 \
          where (select count(distinct p.key) from realtime.presences p \
                  where p.topic = $2 and p.key <> $3) < $6",
    )
    .bind(phx_ref)
    .bind(topic)
    .bind(key)
    .bind(state.inner.node)
    .bind(meta)
    .bind(i64::try_from(max_members).unwrap_or(i64::MAX))
    .execute(&state.inner.db.owner)
    .await?;
    Ok(inserted.rows_affected() == 1)
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
