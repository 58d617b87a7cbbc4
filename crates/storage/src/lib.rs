//! Plinth's storage service: the platform's `/storage/v1` API (buckets,
//! objects, public and signed URLs) that `supabase.storage.from(bucket)`
//! talks to, with object metadata in Postgres (`storage.buckets`,
//! `storage.objects`, the platform's names) and object bytes in an opendal
//! operator (local file system by default, any S3-compatible store).
//!
//! # Invariants
//!
//! * **Row-level security decides.** Every object access runs in a
//!   transaction opened by [`plinth_db::Database::begin_as`] as the caller, so
//!   the project's policies on `storage.objects` (and `storage.buckets`)
//!   decide; uploads record `owner` / `owner_id` from the JWT `sub`
//!   (`auth.uid()`). Only public downloads, signed URLs (checked when signed)
//!   and bucket limit look-ups run as `service_role`.
//! * **The metadata row and the bytes never disagree.** Bytes are kept under
//!   a key made from the row's `version` (a fresh UUID per write), never from
//!   the object name. An upload streams into the key of a fresh version and
//!   is made durable there (name included) before the row that names it
//!   commits (on the file system the row's statements run while the bytes
//!   are synced, and its COMMIT waits for them). A failed byte write leaves no row (a row already
//!   written is rolled back), a refused row write removes the bytes, replaced or
//!   deleted bytes are removed only after the commit, and a crash (or a
//!   commit whose outcome is unknown) leaves at most bytes that no row names,
//!   which the orphan sweep removes once older than its grace period.
//! * **Names are data.** Object names are validated (no `.`/`..` or empty
//!   segments, no leading `/`, no control characters, at most 1024 bytes) and
//!   never reach the byte store, so no name can escape it.
//! * **A stored file never acts as a page of the origin that serves it.**
//!   Every download says `nosniff` and carries a sandboxing CSP
//!   (`default-src 'none'; sandbox`); only inert types (raster images, plain text, CSV,
//!   JSON) are shown inline, every other type is an attachment; a declared
//!   type must be exactly one media type (no `image/png, text/html`).
//! * **Errors in the platform's shape**: HTTP 400 with the real status as a
//!   string `statusCode` in `{statusCode, code, error, message}`, also for
//!   what the framework refuses (a body over the limit, a bad path or query,
//!   an unknown method); internal causes are logged, never sent.
//!
//! # API
//!
//! [`migrations`] (the `storage` schema, applied after
//! [`plinth_db::platform_migrations`]), [`StorageConfig`], [`StorageState::new`]
//! (or [`StorageState::with_operator`] for a custom byte store) and
//! [`router`], which the server nests at `/storage/v1`.

#![cfg_attr(test, allow(clippy::unwrap_used))]

mod buckets;
mod coerce;
mod config;
mod error;
mod extract;
mod list_v2;
mod meta;
mod names;
mod objects;
mod render;
mod store;
mod sweep;
mod tus;
mod wire;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use opendal::Operator;
use plinth_db::{Database, JwtSecret, MigrationSet};

pub use config::{Backend, FileEtag, S3Config, StorageConfig};
pub use error::StorageError;
pub use names::{MAX_OBJECT_NAME, validate_bucket_name, validate_object_name};
pub use sweep::SweepError;

use store::ByteStore;

/// The `storage` schema: tables, row-level security, grants and the policy
/// helpers `storage.foldername()`, `storage.filename()`, `storage.extension()`.
pub fn migrations() -> MigrationSet {
    MigrationSet::embedded(
        "storage",
        "crates/storage/migrations",
        &[
            (
                "0001_storage_schema.sql",
                include_str!("../migrations/0001_storage_schema.sql"),
            ),
            (
                "0002_objects_version_index.sql",
                include_str!("../migrations/0002_objects_version_index.sql"),
            ),
        ],
    )
    .expect("the embedded storage migrations are well named")
}

/// Why the storage service could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("the storage backend is misconfigured: {0}")]
    Backend(String),
    #[error("the storage backend is unreachable: {0}")]
    Unreachable(String),
}

/// Everything the handlers share; cheap to clone.
#[derive(Clone)]
pub struct StorageState {
    inner: Arc<Inner>,
}

struct Inner {
    db: Database,
    jwt: JwtSecret,
    config: StorageConfig,
    store: ByteStore,
}

impl std::fmt::Debug for StorageState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StorageState")
            .field("config", &self.inner.config)
            .finish_non_exhaustive()
    }
}

impl StorageState {
    /// Builds the byte store that `config.backend` describes, then runs the
    /// start-up sweep of temporary upload files older than
    /// `config.orphan_grace`.
    pub async fn new(
        db: Database,
        jwt: JwtSecret,
        config: StorageConfig,
    ) -> Result<Self, StartError> {
        let operator = build_operator(&config.backend)?;
        Self::with_operator(db, jwt, config, operator).await
    }

    /// Like [`StorageState::new`] with a ready opendal operator (a custom
    /// service, or one wrapped in layers) instead of `config.backend`.
    pub async fn with_operator(
        db: Database,
        jwt: JwtSecret,
        config: StorageConfig,
        operator: Operator,
    ) -> Result<Self, StartError> {
        let hash = match config.backend {
            Backend::FileSystem { .. } => config.file_etag == FileEtag::Md5,
            _ => true,
        };
        let store = ByteStore::new(operator)
            .hashing(hash)
            .upload_memory(config.upload_memory)
            .renditions_bounded(&config);
        store
            .prepare()
            .await
            .map_err(|e| StartError::Unreachable(e.to_string()))?;
        let removed = store
            .sweep_temporary(config.orphan_grace)
            .await
            .map_err(|e| StartError::Unreachable(e.to_string()))?;
        if removed > 0 {
            tracing::info!(
                removed,
                "removed temporary upload files left by an interrupted run"
            );
        }
        let expired = tus::sweep_expired(store.operator())
            .await
            .map_err(|e| StartError::Unreachable(e.to_string()))?;
        if expired > 0 {
            tracing::info!(expired, "removed expired resumable uploads");
        }
        let state = Self {
            inner: Arc::new(Inner {
                db,
                jwt,
                config,
                store,
            }),
        };
        tokio::spawn(sweep_periodically(state.clone()));
        Ok(state)
    }

    /// The storage service's rate limiters: name and what each holds (for
    /// `/metrics`).
    pub fn rate_limit_stats(&self) -> Vec<(&'static str, plinth_limits::Stats)> {
        vec![self.inner.store.renditions().limiter_stats()]
    }

    /// Bytes and number of the renditions this node keeps.
    pub fn rendition_usage(&self) -> (u64, usize) {
        self.inner.store.renditions().usage()
    }

    /// Removes object and rendition bytes older than `orphan_grace` that no
    /// row names (see the `sweep` module); how many keys went. Runs by itself
    /// at start-up and every `orphan_sweep_interval`.
    pub async fn sweep_orphans(&self) -> Result<usize, sweep::SweepError> {
        let inner = &self.inner;
        sweep::sweep_orphans(&inner.store, &inner.db, inner.config.orphan_grace).await
    }

    pub fn config(&self) -> &StorageConfig {
        &self.inner.config
    }
}

/// The sweeps, at start-up and then every `orphan_sweep_interval`: bytes no
/// row names, temporary files of interrupted uploads, expired resumable
/// uploads. A failed sweep is logged and tried again next time.
async fn sweep_periodically(state: StorageState) {
    let config = &state.inner.config;
    let store = &state.inner.store;
    // What earlier runs stored, before the first sweep looks at it.
    store.renditions().load(store.operator()).await;
    let mut first = true;
    loop {
        match state.sweep_orphans().await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "removed bytes that no object names"),
            Err(e) => tracing::warn!(%e, "the orphan sweep stopped; it runs again later"),
        }
        // At start-up these two already ran, before serving.
        if !first {
            if let Err(e) = store.sweep_temporary(config.orphan_grace).await {
                tracing::warn!(%e, "sweeping temporary upload files");
            }
            if let Err(e) = tus::sweep_expired(store.operator()).await {
                tracing::warn!(%e, "sweeping expired resumable uploads");
            }
        }
        first = false;
        tokio::time::sleep(config.orphan_sweep_interval).await;
    }
}

/// The opendal operator that `backend` describes (what
/// [`StorageState::new`] uses), e.g. to wrap it in layers for
/// [`StorageState::with_operator`].
pub fn build_operator(backend: &Backend) -> Result<Operator, StartError> {
    let bad = |e: opendal::Error| StartError::Backend(e.to_string());
    match backend {
        Backend::FileSystem { root } => {
            std::fs::create_dir_all(root).map_err(|e| {
                StartError::Backend(format!("cannot create {}: {e}", root.display()))
            })?;
            let root = root.canonicalize().map_err(|e| {
                StartError::Backend(format!("cannot resolve {}: {e}", root.display()))
            })?;
            let root = root
                .to_str()
                .ok_or_else(|| StartError::Backend("the storage folder is not UTF-8".into()))?;
            Operator::new(opendal::services::Fs::default().root(root)).map_err(bad)
        }
        Backend::S3(s3) => {
            // reqwest runs without a built-in crypto provider; use ring.
            let _ = rustls::crypto::ring::default_provider().install_default();
            opendal_http_transport_reqwest::install_default();
            let mut builder = opendal::services::S3::default()
                .bucket(&s3.bucket)
                .region(s3.region.as_deref().unwrap_or("us-east-1"))
                .disable_config_load()
                .disable_ec2_metadata();
            if let Some(endpoint) = &s3.endpoint {
                builder = builder.endpoint(endpoint);
            }
            if let Some(key) = &s3.access_key_id {
                builder = builder.access_key_id(key);
            }
            if let Some(secret) = &s3.secret_access_key {
                builder = builder.secret_access_key(secret);
            }
            if !s3.force_path_style {
                builder = builder.enable_virtual_host_style();
            }
            if let Some(prefix) = &s3.prefix {
                builder = builder.root(prefix);
            }
            Operator::new(builder).map_err(bad)
        }
        Backend::Memory => Operator::new(opendal::services::Memory::default()).map_err(bad),
    }
}

/// The `/storage/v1` API; the server nests it at that prefix.
pub fn router(state: StorageState) -> Router {
    use objects as o;
    let uploads = DefaultBodyLimit::disable();
    let mut router = Router::new();
    if state.inner.config.image_transformation_enabled {
        router = router
            .route("/render/image/public/{bucket}/{*path}", get(render::public))
            .route(
                "/render/image/authenticated/{bucket}/{*path}",
                get(render::authenticated),
            )
            .route("/render/image/sign/{bucket}/{*path}", get(render::signed));
    }
    router
        // objects
        .route(
            "/object/{bucket}/{*path}",
            get(o::download_authenticated)
                .post(o::upload)
                .put(o::update)
                .delete(o::remove_one)
                .layer(uploads),
        )
        .route("/object/{bucket}", axum::routing::delete(o::remove_many))
        .route(
            "/object/authenticated/{bucket}/{*path}",
            get(o::download_authenticated),
        )
        .route("/object/public/{bucket}/{*path}", get(o::download_public))
        .route("/object/info/{bucket}/{*path}", get(o::info_authenticated))
        .route(
            "/object/info/authenticated/{bucket}/{*path}",
            get(o::info_authenticated),
        )
        .route("/object/info/public/{bucket}/{*path}", get(o::info_public))
        .route("/object/list/{bucket}", post(o::list))
        .route("/object/list-v2/{bucket}", post(list_v2::list_v2))
        .route("/object/move", post(o::move_object))
        .route("/object/copy", post(o::copy_object))
        .route("/object/sign/{bucket}", post(o::sign_many))
        .route(
            "/object/sign/{bucket}/{*path}",
            post(o::sign_one).get(o::download_signed),
        )
        .route(
            "/object/upload/sign/{bucket}/{*path}",
            post(o::sign_upload)
                .put(o::upload_signed)
                .layer(DefaultBodyLimit::disable()),
        )
        // buckets
        .route("/bucket", get(buckets::list).post(buckets::create))
        .route(
            "/bucket/{id}",
            get(buckets::get_one)
                .put(buckets::update)
                .delete(buckets::delete),
        )
        .route("/bucket/{id}/empty", post(buckets::empty))
        // resumable uploads (TUS)
        .route(
            "/upload/resumable",
            post(tus::create::<false>)
                .options(tus::options)
                .layer(DefaultBodyLimit::disable()),
        )
        .route(
            "/upload/resumable/{id}",
            axum::routing::patch(tus::patch::<false>)
                .head(tus::head::<false>)
                .delete(tus::terminate::<false>)
                .options(tus::options)
                .layer(DefaultBodyLimit::disable()),
        )
        // ... with a signed upload URL's token (`x-signature`)
        .route(
            "/upload/resumable/sign",
            post(tus::create::<true>)
                .options(tus::options)
                .layer(DefaultBodyLimit::disable()),
        )
        .route(
            "/upload/resumable/sign/{id}",
            axum::routing::patch(tus::patch::<true>)
                .head(tus::head::<true>)
                .delete(tus::terminate::<true>)
                .options(tus::options)
                .layer(DefaultBodyLimit::disable()),
        )
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(extract::JSON_BODY_LIMIT))
        .with_state(state)
}

async fn not_found() -> StorageError {
    StorageError::InvalidRequest("Route not found".into())
}

async fn method_not_allowed() -> StorageError {
    StorageError::MethodNotAllowed
}

/// Seconds since the Unix epoch.
pub(crate) fn now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_migration_file_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        plinth_db::migrate::matches_folder(&migrations(), &dir).unwrap();
        assert_eq!(migrations().name(), "storage");
    }

    #[test]
    fn file_system_backend_creates_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("nested").join("storage");
        build_operator(&Backend::FileSystem { root: root.clone() }).unwrap();
        assert!(root.is_dir());
    }

    #[test]
    fn s3_backend_builds_without_network() {
        let op = build_operator(&Backend::S3(S3Config {
            bucket: "plinth".into(),
            endpoint: Some("http://127.0.0.1:9000".into()),
            access_key_id: Some("key".into()),
            secret_access_key: Some("secret".into()),
            force_path_style: true,
            ..S3Config::default()
        }))
        .unwrap();
        assert!(op.info().capability().copy);
        let printed = format!(
            "{:?}",
            Backend::S3(S3Config {
                secret_access_key: Some("hunter2".into()),
                ..S3Config::default()
            })
        );
        assert!(!printed.contains("hunter2"));
    }
}
