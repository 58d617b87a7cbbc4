//! Bytes that no row names: what a crash between writing bytes and
//! recording them (or between replacing a row and removing its old bytes)
//! leaves in the byte store.
//!
//! Every object version lives at `objects/<shard>/<version>` and its cached
//! image renditions under `renditions/<shard>/<version>/`; a version is live
//! while a row of `storage.objects` has it. The sweep lists both prefixes,
//! keeps keys younger than the grace period (an upload on any node writes
//! its bytes before its row commits, so a young key may be a live upload's),
//! asks the database which of the older versions no row has, and removes
//! those keys. It runs at start-up (in the background) and then every
//! [`crate::StorageConfig::orphan_sweep_interval`], with the temporary-file
//! and expired-resumable-upload sweeps.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use opendal::ErrorKind;
use plinth_db::Database;

use crate::store::ByteStore;

/// Versions asked about in one query.
const BATCH: usize = 1000;

/// Why a sweep stopped early (it is tried again at the next interval).
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error("listing the byte store: {0}")]
    Store(#[from] opendal::Error),
    #[error("asking the database which versions are live: {0}")]
    Database(#[from] sqlx::Error),
}

/// Removes every object and rendition key older than `grace` whose version
/// no row of `storage.objects` has. Returns how many keys were removed.
pub(crate) async fn sweep_orphans(
    store: &ByteStore,
    db: &Database,
    grace: Duration,
) -> Result<usize, SweepError> {
    let now = SystemTime::now();
    // version -> its keys old enough to go
    let mut candidates: HashMap<String, Vec<String>> = HashMap::new();
    for prefix in ["objects/", "renditions/"] {
        let entries = match store.operator().list_with(prefix).recursive(true).await {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(e.into()),
        };
        for entry in entries {
            let path = entry.path();
            if path.ends_with('/') {
                continue;
            }
            // objects/<shard>/<version>, renditions/<shard>/<version>/<name>
            let Some(version) = path.split('/').nth(2).filter(|v| !v.is_empty()) else {
                continue;
            };
            if store.older_than(&entry, now, grace).await {
                candidates
                    .entry(version.to_owned())
                    .or_default()
                    .push(path.to_owned());
            }
        }
    }
    let versions: Vec<String> = candidates.keys().cloned().collect();
    let mut removed = 0;
    for batch in versions.chunks(BATCH) {
        let orphans: Vec<String> = sqlx::query_scalar(
            "select v from unnest($1::text[]) as v \
             where not exists (select 1 from storage.objects o where o.version = v)",
        )
        .bind(batch)
        .fetch_all(&db.owner)
        .await?;
        for version in orphans {
            for key in candidates.remove(&version).unwrap_or_default() {
                store.renditions().forget(&key);
                store.remove(&key).await;
                removed += 1;
            }
        }
    }
    Ok(removed)
}
