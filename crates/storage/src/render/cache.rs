//! What is kept of the renditions, bounded as an image CDN bounds its
//! cache, so that no request (anonymous ones least of all) can fill the
//! disk:
//!
//! * a total byte budget ([`crate::StorageConfig::rendition_cache_bytes`])
//!   over every stored rendition, the least recently used going first;
//! * at most [`crate::StorageConfig::renditions_per_object`] stored per
//!   object version: more distinct asks of one image are rendered and
//!   sent, not stored;
//! * nothing stored while the file system holding the byte store has less
//!   than [`MIN_FREE_SHARE`] of its room free;
//! * renders (cache misses) per client address
//!   ([`crate::StorageConfig::renders_per_minute`]), then 429.
//!
//! The index (key, size, recency) is in memory, per node, rebuilt from a
//! listing of `renditions/` in the background at start-up; keys it does not
//! know (another node's, on a shared S3 bucket) are read as hits without
//! being counted, and go with their object or with the orphan sweep.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

use hashlink::LinkedHashMap;
use opendal::{ErrorKind, Operator};
use plinth_limits::{Budget, Limiter, Stats};

/// Renditions are stored only while more than this share of the file
/// system is free (a tenth).
pub(crate) const MIN_FREE_SHARE: f64 = 0.10;

#[derive(Default)]
struct Index {
    /// Key -> size, least recently used first.
    lru: LinkedHashMap<String, u64>,
    bytes: u64,
    /// Version -> its stored keys.
    by_version: HashMap<String, Vec<String>>,
}

impl Index {
    fn insert(&mut self, key: String, size: u64, oldest: bool) {
        if self.lru.contains_key(&key) {
            return;
        }
        if let Some(version) = version_of(&key) {
            self.by_version
                .entry(version.to_owned())
                .or_default()
                .push(key.clone());
        }
        self.bytes += size;
        self.lru.insert(key.clone(), size);
        if oldest {
            self.lru.to_front(&key);
        }
    }

    fn remove(&mut self, key: &str) -> bool {
        let Some(size) = self.lru.remove(key) else {
            return false;
        };
        self.bytes = self.bytes.saturating_sub(size);
        if let Some(version) = version_of(key)
            && let Some(keys) = self.by_version.get_mut(version)
        {
            keys.retain(|k| k != key);
            if keys.is_empty() {
                self.by_version.remove(version);
            }
        }
        true
    }

    fn stored_of(&self, version: &str) -> usize {
        self.by_version.get(version).map_or(0, Vec::len)
    }
}

/// `renditions/<shard>/<version>/<name>` -> `version`.
fn version_of(key: &str) -> Option<&str> {
    key.strip_prefix("renditions/")?
        .split('/')
        .nth(1)
        .filter(|v| !v.is_empty())
}

/// Whether a fresh rendition is to be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    Store,
    /// Sent only: its object has its share, it alone is over the budget,
    /// or the disk is nearly full.
    SendOnly,
}

pub(crate) struct RenditionCache {
    index: Mutex<Index>,
    budget: u64,
    per_object: usize,
    /// The byte store's folder on the local disk (the file system backend).
    local_root: Option<PathBuf>,
    renders: Limiter,
}

impl std::fmt::Debug for RenditionCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RenditionCache")
            .field("budget", &self.budget)
            .field("per_object", &self.per_object)
            .finish_non_exhaustive()
    }
}

fn lock(index: &Mutex<Index>) -> std::sync::MutexGuard<'_, Index> {
    index
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl RenditionCache {
    pub fn new(
        budget: u64,
        per_object: usize,
        renders_per_minute: u32,
        local_root: Option<PathBuf>,
    ) -> Self {
        let renders = match renders_per_minute {
            0 => Budget::Unlimited,
            n => Budget::per(n, std::time::Duration::from_secs(60)),
        };
        Self {
            index: Mutex::new(Index::default()),
            budget,
            per_object,
            local_root,
            renders: Limiter::new("storage renders", renders),
        }
    }

    /// Counts one render by `client`: `Err(wait)` past its budget.
    pub fn count_render(&self, client: &str) -> Result<(), std::time::Duration> {
        self.renders.check(plinth_limits::address_key(client))
    }

    pub fn limiter_stats(&self) -> (&'static str, Stats) {
        (self.renders.name(), self.renders.stats())
    }

    /// A stored rendition was read: it becomes the most recently used.
    pub fn touch(&self, key: &str) {
        lock(&self.index).lru.to_back(key);
    }

    /// Whether a rendition of `version` of `size` bytes is to be stored.
    pub fn keep(&self, version: &str, size: u64) -> Keep {
        {
            let index = lock(&self.index);
            if size > self.budget || index.stored_of(version) >= self.per_object {
                return Keep::SendOnly;
            }
        }
        if self.disk_nearly_full(size) {
            return Keep::SendOnly;
        }
        Keep::Store
    }

    /// Records a stored rendition; the keys to remove to stay within the
    /// budget (least recently used first; never the new one).
    pub fn stored(&self, key: &str, size: u64) -> Vec<String> {
        let mut index = lock(&self.index);
        index.insert(key.to_owned(), size, false);
        let mut evicted = Vec::new();
        while index.bytes > self.budget {
            let Some(oldest) = index.lru.front().map(|(k, _)| k.clone()) else {
                break;
            };
            if oldest == key {
                break;
            }
            index.remove(&oldest);
            evicted.push(oldest);
        }
        evicted
    }

    /// The renditions of `version` went with its bytes.
    pub fn forget_version(&self, version: &str) {
        let mut index = lock(&self.index);
        for key in index.by_version.remove(version).unwrap_or_default() {
            if let Some(size) = index.lru.remove(&key) {
                index.bytes = index.bytes.saturating_sub(size);
            }
        }
    }

    /// A stored rendition was removed (by the sweep or an eviction).
    pub fn forget(&self, key: &str) {
        lock(&self.index).remove(key);
    }

    /// Bytes and renditions the index counts.
    pub fn usage(&self) -> (u64, usize) {
        let index = lock(&self.index);
        (index.bytes, index.lru.len())
    }

    /// Reads what is stored already (at start-up), oldest first, and
    /// removes the least recently written past the budget.
    pub async fn load(&self, op: &Operator) {
        let entries = match op.list_with("renditions/").recursive(true).await {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => return,
            Err(e) => {
                tracing::warn!(%e, "could not list the stored renditions");
                return;
            }
        };
        let mut found = Vec::new();
        for entry in entries {
            let path = entry.path();
            if path.ends_with('/') || version_of(path).is_none() {
                continue;
            }
            let meta = match entry.metadata().content_length() {
                0 => match op.stat(path).await {
                    Ok(meta) => meta,
                    Err(_) => continue,
                },
                _ => entry.metadata().clone(),
            };
            let modified = meta
                .last_modified()
                .map_or(SystemTime::UNIX_EPOCH, SystemTime::from);
            found.push((modified, path.to_owned(), meta.content_length()));
        }
        // Newest first, each put in front: the oldest ends first in line.
        found.sort_by_key(|entry| std::cmp::Reverse(entry.0));
        let evicted = {
            let mut index = lock(&self.index);
            for (_, key, size) in found {
                index.insert(key, size, true);
            }
            let mut evicted = Vec::new();
            while index.bytes > self.budget {
                let Some((oldest, _)) = index.lru.front().map(|(k, v)| (k.clone(), *v)) else {
                    break;
                };
                index.remove(&oldest);
                evicted.push(oldest);
            }
            evicted
        };
        remove_all(op, &evicted).await;
    }

    fn disk_nearly_full(&self, adding: u64) -> bool {
        let Some(root) = &self.local_root else {
            return false;
        };
        match nix::sys::statvfs::statvfs(root) {
            Ok(fs) => {
                let block = fs.fragment_size().max(1);
                let total = fs.blocks() as f64 * block as f64;
                let free = fs.blocks_available() as f64 * block as f64 - adding as f64;
                total <= 0.0 || free / total < MIN_FREE_SHARE
            }
            // A disk that cannot be asked is treated as full.
            Err(_) => true,
        }
    }
}

/// Removes `keys` from the byte store (a missing key is fine).
pub(crate) async fn remove_all(op: &Operator, keys: &[String]) {
    for key in keys {
        match op.delete(key).await {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(%e, key, "could not remove a rendition"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(version: &str, n: u32) -> String {
        format!("renditions/{}/{version}/{n}.webp", &version[..2])
    }

    #[test]
    fn the_least_recently_used_go_past_the_budget() {
        let cache = RenditionCache::new(1000, 10, 0, None);
        assert!(cache.stored(&key("aa1", 1), 400).is_empty());
        assert!(cache.stored(&key("bb2", 1), 400).is_empty());
        cache.touch(&key("aa1", 1));
        // 1200 > 1000: the least recently used (bb2's) goes.
        assert_eq!(cache.stored(&key("cc3", 1), 400), vec![key("bb2", 1)]);
        assert_eq!(cache.usage(), (800, 2));
        assert_eq!(
            cache.keep("dd4", 1001),
            Keep::SendOnly,
            "over the budget alone"
        );
    }

    #[test]
    fn an_object_has_a_share_of_stored_renditions() {
        let cache = RenditionCache::new(1 << 30, 3, 0, None);
        for n in 0..3 {
            assert_eq!(cache.keep("aa1", 10), Keep::Store);
            cache.stored(&key("aa1", n), 10);
        }
        assert_eq!(cache.keep("aa1", 10), Keep::SendOnly);
        assert_eq!(cache.keep("bb2", 10), Keep::Store);
        cache.forget_version("aa1");
        assert_eq!(cache.keep("aa1", 10), Keep::Store);
        assert_eq!(cache.usage(), (0, 0));
    }

    #[test]
    fn renders_are_counted_per_client() {
        let cache = RenditionCache::new(1 << 30, 3, 2, None);
        assert!(cache.count_render("192.0.2.1").is_ok());
        assert!(cache.count_render("192.0.2.1").is_ok());
        let wait = cache.count_render("192.0.2.1").unwrap_err();
        assert!(wait.as_secs_f64() > 29.0, "{wait:?}");
        assert!(cache.count_render("192.0.2.2").is_ok());
    }

    #[test]
    fn a_nearly_full_disk_stores_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let cache = RenditionCache::new(u64::MAX, 10, 0, Some(dir.path().to_owned()));
        // As if the rendition were as large as the whole disk.
        assert_eq!(cache.keep("aa1", u64::MAX / 2), Keep::SendOnly);
        let missing = RenditionCache::new(u64::MAX, 10, 0, Some("/no/such/folder".into()));
        assert_eq!(missing.keep("aa1", 1), Keep::SendOnly);
    }

    #[test]
    fn keys_name_their_version() {
        assert_eq!(version_of("renditions/ab/abcd/x.webp"), Some("abcd"));
        assert_eq!(version_of("renditions/ab//x.webp"), None);
        assert_eq!(version_of("objects/ab/abcd"), None);
    }
}
