//! Realtime authorization, as on the platform: what a private channel's
//! joiner may do is what the row-level-security policies on
//! `realtime.messages` let them do with rows of that topic.
//!
//! In one transaction of the request pool, always rolled back: the login
//! role writes one probe row per extension (`realtime.authorization_probe`,
//! the only thing it may call), then takes the joiner's role, claims and
//! `realtime.topic`; the probes it can still see are what it may read, and
//! an insert it may make (each in a savepoint) is what it may write.

use plinth_db::{Database, RequestContext};
use serde_json::Value;
use uuid::Uuid;

/// A hub key of a private channel: its topic behind this prefix, so that
/// private and public channels of one name never share deliveries or
/// presence. (Public topics start with `realtime:`.)
pub(crate) const PRIVATE_PREFIX: &str = "private:";

/// The hub key of a channel of `topic`.
pub(crate) fn hub_key(topic: &str, private: bool) -> String {
    if private {
        format!("{PRIVATE_PREFIX}{topic}")
    } else {
        topic.to_owned()
    }
}

/// The topic clients know a hub key by.
pub(crate) fn wire_topic(key: &str) -> &str {
    key.strip_prefix(PRIVATE_PREFIX).unwrap_or(key)
}

/// What one identity may do on one private topic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Policies {
    pub broadcast_read: bool,
    pub broadcast_write: bool,
    pub presence_read: bool,
    pub presence_write: bool,
}

impl Policies {
    /// Everything: a public channel, or the service role.
    pub const ALL: Self = Self {
        broadcast_read: true,
        broadcast_write: true,
        presence_read: true,
        presence_write: true,
    };

    /// Whether the join is allowed at all (it may read something).
    pub fn may_join(&self) -> bool {
        self.broadcast_read || self.presence_read
    }

    /// Whether `now` lost a read that `self` had.
    pub fn read_revoked_by(&self, now: &Self) -> bool {
        (self.broadcast_read && !now.broadcast_read) || (self.presence_read && !now.presence_read)
    }
}

/// The policies of `ctx` on `topic` (the channel's name, without
/// `realtime:`).
pub(crate) async fn authorize(
    db: &Database,
    ctx: &RequestContext,
    topic: &str,
) -> sqlx::Result<Policies> {
    let mut tx = db.api.begin().await?;
    let probes: Vec<(String, Uuid)> =
        sqlx::query_as("select extension, id from realtime.authorization_probe($1)")
            .bind(topic)
            .fetch_all(&mut *tx)
            .await?;
    let sub = ctx
        .claims
        .get("sub")
        .and_then(Value::as_str)
        .unwrap_or_default();
    sqlx::query(
        "select set_config('role', $1, true), \
                set_config('request.jwt.claims', $2, true), \
                set_config('request.jwt.claim.sub', $3, true), \
                set_config('request.jwt.claim.role', $1, true), \
                set_config('realtime.topic', $4, true)",
    )
    .bind(&ctx.role)
    .bind(ctx.claims.to_string())
    .bind(sub)
    .bind(topic)
    .execute(&mut *tx)
    .await?;
    let ids: Vec<Uuid> = probes.iter().map(|(_, id)| *id).collect();
    let readable: Vec<String> =
        sqlx::query_scalar("select extension from realtime.messages where id = any($1)")
            .bind(&ids)
            .fetch_all(&mut *tx)
            .await?;
    let mut policies = Policies {
        broadcast_read: readable.iter().any(|e| e == "broadcast"),
        presence_read: readable.iter().any(|e| e == "presence"),
        ..Policies::default()
    };
    for extension in ["broadcast", "presence"] {
        sqlx::query("savepoint write_probe")
            .execute(&mut *tx)
            .await?;
        let inserted =
            sqlx::query("insert into realtime.messages (topic, extension) values ($1, $2)")
                .bind(topic)
                .bind(extension)
                .execute(&mut *tx)
                .await;
        let allowed = match inserted {
            Ok(_) => true,
            // Refused by a policy or a missing grant.
            Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("42501") => false,
            Err(e) => return Err(e),
        };
        sqlx::query("rollback to savepoint write_probe")
            .execute(&mut *tx)
            .await?;
        match extension {
            "broadcast" => policies.broadcast_write = allowed,
            _ => policies.presence_write = allowed,
        }
    }
    tx.rollback().await?;
    Ok(policies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_private_and_public_apart() {
        assert_eq!(hub_key("realtime:room", false), "realtime:room");
        assert_eq!(hub_key("realtime:room", true), "private:realtime:room");
        assert_eq!(wire_topic("private:realtime:room"), "realtime:room");
        assert_eq!(wire_topic("realtime:room"), "realtime:room");
    }

    #[test]
    fn a_lost_read_is_a_revocation() {
        let reads = Policies {
            broadcast_read: true,
            ..Policies::default()
        };
        assert!(reads.read_revoked_by(&Policies::default()));
        assert!(!reads.read_revoked_by(&Policies::ALL));
        assert!(!Policies::default().read_revoked_by(&reads));
    }
}
