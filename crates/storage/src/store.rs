//! The byte store: object bytes in opendal under generated keys.
//!
//! Layout inside the operator's root:
//!
//! * `objects/<v0v1>/<version>`: the bytes of one object version. `version` is
//!   a random UUID recorded in the object's row; object names never appear in
//!   keys, so no name can reach outside the store or collide with another.
//!
//! An upload is written straight to the key of a fresh version and made
//! durable there (on the file system: the file's fsync, and the fsync of
//! its folder, which makes its name durable) before its row commits; a
//! key that no row names is an orphan, removed by the orphan sweep
//! ([`crate::sweep`]) once older than the grace period. Earlier releases
//! received uploads under `tmp/<uuid>` first;
//! [`ByteStore::sweep_temporary`] still removes what a crash left there.

use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt};
use md5::{Digest, Md5};
use opendal::{ErrorKind, Operator};

use crate::error::StorageError;

const TMP: &str = "tmp/";
/// Body pieces are written in runs of this size (see `receive_into`):
/// large enough that a run's blocking-pool hand-off costs little, small
/// enough that the first writes start while the body is still arriving.
const COALESCE: usize = 256 * 1024;

/// A completely received upload: its bytes are durable at the key of
/// `version`, which no row names yet.
#[derive(Debug)]
pub(crate) struct Received {
    pub version: String,
    pub size: u64,
    /// The object's eTag, without quotes: the hex MD5 of the bytes, or
    /// without hashing, the time and size (see [`crate::FileEtag`]).
    pub etag: String,
}

/// Why receiving an upload stopped.
#[derive(Debug)]
pub(crate) enum ReceiveError {
    /// More than `limit` bytes arrived.
    TooLarge,
    /// The client's body broke off.
    Body(String),
    /// The byte store failed.
    Store(opendal::Error),
    /// The gate refused the upload (see [`ByteStore::receive_gated`]).
    Refused(StorageError),
}

impl From<ReceiveError> for StorageError {
    fn from(error: ReceiveError) -> Self {
        match error {
            ReceiveError::TooLarge => StorageError::TooLarge,
            ReceiveError::Body(why) => {
                StorageError::InvalidRequest(format!("the request body could not be read: {why}"))
            }
            ReceiveError::Store(e) => StorageError::internal("writing an upload", e),
            ReceiveError::Refused(e) => e,
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct ByteStore {
    op: Operator,
    /// Whether uploads are hashed for their eTag (else time and size).
    hash: bool,
    /// The operator's root on the local disk, for the file system store.
    local_root: Option<std::path::PathBuf>,
    /// Uploads being received at once, each holding up to
    /// [`ByteStore::memory_per_upload`] of buffers: the node's upload memory
    /// stays within the budget whatever the number of clients (the others
    /// wait, their bytes held back by TCP).
    receiving: std::sync::Arc<tokio::sync::Semaphore>,
    /// What is kept of the image renditions (see `render::cache`).
    renditions: std::sync::Arc<crate::render::RenditionCache>,
}

/// A fresh object version (32 hex digits).
pub(crate) fn new_version() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The key holding the bytes of `version`.
pub(crate) fn object_key(version: &str) -> String {
    let shard: String = version.chars().take(2).collect();
    format!("objects/{shard}/{version}")
}

impl ByteStore {
    pub fn new(op: Operator) -> Self {
        let info = op.info();
        let local_root: Option<std::path::PathBuf> =
            (info.scheme() == "fs").then(|| info.root().into());
        let defaults = crate::StorageConfig::default();
        let renditions = crate::render::RenditionCache::new(
            defaults.rendition_cache_bytes,
            defaults.renditions_per_object,
            defaults.renders_per_minute,
            local_root.clone(),
        );
        Self {
            op,
            hash: true,
            local_root,
            receiving: std::sync::Arc::new(tokio::sync::Semaphore::new(
                tokio::sync::Semaphore::MAX_PERMITS,
            )),
            renditions: std::sync::Arc::new(renditions),
        }
    }

    /// Renditions kept within `config`'s budget, share per object and
    /// renders per client.
    pub fn renditions_bounded(mut self, config: &crate::StorageConfig) -> Self {
        self.renditions = std::sync::Arc::new(crate::render::RenditionCache::new(
            config.rendition_cache_bytes,
            config.renditions_per_object,
            config.renders_per_minute,
            self.local_root.clone(),
        ));
        self
    }

    pub fn renditions(&self) -> &crate::render::RenditionCache {
        &self.renditions
    }

    /// Keeps the buffers of uploads being received within `bytes` (at
    /// least one upload is always received).
    pub fn upload_memory(mut self, bytes: usize) -> Self {
        let streams = (bytes / self.memory_per_upload()).max(1);
        self.receiving = std::sync::Arc::new(tokio::sync::Semaphore::new(streams));
        self
    }

    /// The most one upload holds in buffers: the run being gathered (and
    /// the piece that completes it), the runs queued for hashing (which
    /// are also the ones being written), and on stores other than the file
    /// system the operator's own chunk.
    pub fn memory_per_upload(&self) -> usize {
        let chunk = match self.local_root {
            Some(_) => 0,
            None => self.write_chunk(),
        };
        chunk + COALESCE * (HASH_QUEUE + 2)
    }

    /// Whether uploads get the MD5 of their bytes as eTag (the default) or
    /// their time and size ([`crate::FileEtag::Mtime`]).
    pub fn hashing(mut self, hash: bool) -> Self {
        self.hash = hash;
        self
    }

    /// How much of an upload is gathered before it is handed to the store.
    /// Bodies arrive in pieces of 8-64 KiB; writing each one on its own costs
    /// a blocking-pool round trip (file system) or would be a part of its own
    /// (S3), which is where most of an upload's time went. The file system
    /// gets 1 MiB (a few concurrent uploads stay far below one large file in
    /// memory); stores with a multipart minimum (S3: 5 MiB) get at least 8
    /// MiB, so large files go up as a multipart upload of full parts.
    pub fn write_chunk(&self) -> usize {
        match self.op.info().capability().write_multi_min_size {
            Some(min) => min.max(8 * 1024 * 1024),
            None => 1024 * 1024,
        }
    }

    /// On the file system, makes the 256 shard folders of `objects/` that
    /// are missing (durably), so that uploads find theirs: making one is a
    /// journal commit an upload would otherwise wait for.
    pub async fn prepare(&self) -> std::io::Result<()> {
        let Some(root) = self.local_root.clone() else {
            return Ok(());
        };
        joined(tokio::task::spawn_blocking(move || {
            let mut made = Vec::new();
            for shard in 0..=255u8 {
                // (a key in the shard: its folders are what is missing)
                let key = root.join(object_key(&format!("{shard:02x}")));
                made.extend(create_dirs(&key)?);
            }
            // Each made folder's name is durable once its parent is synced.
            let parents: std::collections::BTreeSet<&std::path::Path> =
                made.iter().filter_map(|dir| dir.parent()).collect();
            parents
                .into_iter()
                .try_for_each(|dir| std::fs::File::open(dir)?.sync_all())
        }))
        .await
    }

    /// Where `key` is on the local disk, for the file system store.
    fn local_path(&self, key: &str) -> Option<std::path::PathBuf> {
        self.local_root.as_ref().map(|root| root.join(key))
    }

    /// The operator itself, for the resumable uploads' staging area.
    pub fn operator(&self) -> &Operator {
        &self.op
    }

    /// Streams `body` into the key of a new version, stopping after `limit`
    /// bytes, and makes it durable. On any failure the key is gone again.
    pub async fn receive<S, E>(&self, body: S, limit: u64) -> Result<Received, ReceiveError>
    where
        S: Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        let (landing, ()) = self
            .receive_gated(body, std::future::ready(Ok((limit, ()))))
            .await?;
        landing.durable().await
    }

    /// As [`ByteStore::receive`], with the upload's permission still being
    /// decided: `gate` answers the byte limit and what the caller learnt
    /// deciding (given back with the upload), or why the upload is refused
    /// (then nothing was written and the key is gone). Until it
    /// answers, the body keeps arriving and being hashed, up to [`HOLD`]
    /// bytes held in memory; none is written before it allows. Answers
    /// once the whole body is written and its eTag known, while the bytes
    /// are being made durable (see [`Landing`]).
    pub async fn receive_gated<S, E, T>(
        &self,
        body: S,
        gate: impl Future<Output = Result<(u64, T), StorageError>>,
    ) -> Result<(Landing, T), ReceiveError>
    where
        S: Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        // The gate is asked while the upload waits for its place in the
        // memory budget: a refusal does not wait in line.
        let mut gate = std::pin::pin!(gate);
        let mut answered = None;
        let mut waiting = std::pin::pin!(self.receiving.clone().acquire_owned());
        let place = tokio::select! {
            biased;
            place = &mut waiting => place,
            answer = &mut gate => match answer {
                Err(e) => return Err(ReceiveError::Refused(e)),
                Ok(admitted) => {
                    answered = Some(admitted);
                    waiting.await
                }
            },
        };
        let receiving =
            place.map_err(|_| ReceiveError::Body("the node is shutting down".into()))?;
        let gate = async move {
            match answered {
                Some(admitted) => Ok(admitted),
                None => gate.await,
            }
        };
        let version = new_version();
        let key = object_key(&version);
        let result = self.receive_into(&key, body, gate).await;
        match result {
            Ok((size, etag, closing, learnt)) => Ok((
                Landing {
                    received: Received {
                        version,
                        size,
                        etag,
                    },
                    closing,
                    store: self.clone(),
                    _receiving: receiving,
                },
                learnt,
            )),
            Err(e) => {
                self.remove(&key).await;
                Err(e)
            }
        }
    }

    async fn receive_into<S, E, T>(
        &self,
        key: &str,
        mut body: S,
        gate: impl Future<Output = Result<(u64, T), StorageError>>,
    ) -> Result<(u64, String, Closing, T), ReceiveError>
    where
        S: Stream<Item = Result<Bytes, E>> + Unpin,
        E: std::fmt::Display,
    {
        // The file is made now, beside the gate and the body's first bytes.
        let mut opening = Some(self.open(key));
        let mut gate = std::pin::pin!(gate);
        // The gate's answer, once it has allowed.
        let mut admitted: Option<(u64, T)> = None;
        let mut size: u64 = 0;
        let mut intake = Intake {
            hasher: Hasher {
                enabled: self.hash,
                ..Hasher::default()
            },
            writer: None,
            held: Vec::new(),
            held_len: 0,
        };
        // Small body pieces are gathered into one contiguous buffer: each
        // write to the file system is a blocking-pool round trip, so handing
        // it 16 KiB pieces would cost one each; large pieces (hyper reads up
        // to a few hundred KiB at once) are written as they are, uncopied.
        // Every run but the last is a whole number of COALESCE, so runs
        // start at multiples of it: the page cache then keeps the file in
        // large folios, and reading it back (every download) is several
        // times faster than after writes at odd offsets.
        let mut pending = BytesMut::new();
        let outcome: Result<(), ReceiveError> = async {
            loop {
                let next = if admitted.is_some() {
                    body.next().await
                } else if intake.held_len < HOLD {
                    tokio::select! {
                        biased;
                        answer = &mut gate => {
                            admitted = Some(admit(answer, size, &mut opening, &mut intake).await?);
                            continue;
                        }
                        next = body.next() => next,
                    }
                } else {
                    let answer = (&mut gate).await;
                    admitted = Some(admit(answer, size, &mut opening, &mut intake).await?);
                    continue;
                };
                let mut chunk = match next {
                    None => break,
                    Some(Err(e)) => return Err(ReceiveError::Body(e.to_string())),
                    Some(Ok(chunk)) => chunk,
                };
                size += chunk.len() as u64;
                if admitted.as_ref().is_some_and(|(limit, _)| size > *limit) {
                    return Err(ReceiveError::TooLarge);
                }
                if pending.is_empty() && chunk.len() >= COALESCE {
                    intake.run(chunk.split_to(whole_runs(chunk.len()))).await?;
                    if chunk.is_empty() {
                        continue;
                    }
                }
                if pending.capacity() == 0 {
                    pending.reserve(2 * COALESCE);
                }
                pending.extend_from_slice(&chunk);
                if pending.len() >= COALESCE {
                    let run = pending.split_to(whole_runs(pending.len())).freeze();
                    intake.run(run).await?;
                }
            }
            if admitted.is_none() {
                let answer = (&mut gate).await;
                admitted = Some(admit(answer, size, &mut opening, &mut intake).await?);
            }
            if !pending.is_empty() {
                intake.run(pending.split().freeze()).await?;
            }
            Ok(())
        }
        .await;
        match (outcome, intake.writer, admitted) {
            (Ok(()), Some(mut writer), Some((_, learnt))) => {
                // The store's flush (an fsync on the file system) starts
                // now, beside the hash of the last runs and the caller's
                // next steps.
                let closing = tokio::spawn(async move { writer.close().await });
                match intake.hasher.finish().await {
                    Ok(md5) => {
                        let etag = md5.unwrap_or_else(|| mtime_etag(SystemTime::now(), size));
                        Ok((size, etag, closing, learnt))
                    }
                    Err(e) => {
                        // (so that the key's removal comes after)
                        let _ = closing.await;
                        Err(e)
                    }
                }
            }
            (outcome, writer, _) => {
                let e = outcome
                    .err()
                    .unwrap_or_else(|| ReceiveError::Body("the upload was never admitted".into()));
                if let Some(mut writer) = writer
                    && let Err(abort) = writer.abort().await
                {
                    tracing::debug!(?abort, key, "aborting a failed upload");
                }
                // (so that the key's removal comes after the file is made)
                if let Some(opening) = opening {
                    opening.settle().await;
                }
                Err(e)
            }
        }
    }

    /// Starts making the writer of `key`: on the file system the file is
    /// created at once, on a task of its own.
    fn open(&self, key: &str) -> Opening {
        match self.local_path(key) {
            Some(path) => Opening::Local(tokio::spawn(LocalFile::create(path))),
            None => Opening::Store(self.op.clone(), key.to_owned(), self.write_chunk()),
        }
    }

    /// Copies the bytes of `version` to the key of a new version (for
    /// `copy`), durable as an upload's; returns the new version.
    pub async fn copy_version(&self, version: &str) -> Result<String, opendal::Error> {
        let copy = new_version();
        let (source, target) = (object_key(version), object_key(&copy));
        let result = match (self.local_path(&source), self.local_path(&target)) {
            (Some(from), Some(to)) => joined(tokio::task::spawn_blocking(move || {
                let made = create_dirs(&to)?;
                std::fs::copy(&from, &to)?;
                std::fs::File::open(&to)?.sync_all()?;
                sync_names(&made, &to)
            }))
            .await
            .map_err(|e| {
                opendal::Error::new(ErrorKind::Unexpected, "copying object bytes").set_source(e)
            }),
            _ if self.op.info().capability().copy => {
                self.op.copy(&source, &target).await.map(|_| ())
            }
            _ => self.stream_copy(&source, &target).await,
        };
        match result {
            Ok(()) => Ok(copy),
            Err(e) => {
                self.remove(&target).await;
                Err(e)
            }
        }
    }

    async fn stream_copy(&self, from: &str, to: &str) -> Result<(), opendal::Error> {
        let reader = self.op.reader(from).await?;
        let mut stream = reader.into_bytes_stream(..).await?;
        let mut writer = self.op.writer(to).await?;
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(chunk) => writer.write(chunk).await?,
                Err(e) => {
                    let _ = writer.abort().await;
                    return Err(
                        opendal::Error::new(ErrorKind::Unexpected, "copy read failed")
                            .set_source(e),
                    );
                }
            }
        }
        writer.close().await.map(|_| ())
    }

    /// The bytes of `version` from `start` to `end` (exclusive), as a stream.
    pub async fn read(
        &self,
        version: &str,
        start: u64,
        end: u64,
    ) -> Result<impl Stream<Item = std::io::Result<Bytes>> + Send + use<>, opendal::Error> {
        let reader = self.op.reader(&object_key(version)).await?;
        reader.into_bytes_stream(start..end).await
    }

    /// Removes the bytes of `version`; a failure is logged and leaves
    /// unreferenced bytes behind (never a row without bytes).
    pub async fn remove_version(&self, version: &str) {
        self.remove(&object_key(version)).await;
        // and its cached image renditions
        self.renditions.forget_version(version);
        let renditions = crate::render::rendition_prefix(version);
        if let Err(e) = self.op.delete_with(&renditions).recursive(true).await
            && e.kind() != ErrorKind::NotFound
        {
            tracing::warn!(%e, renditions, "could not remove cached renditions");
        }
    }

    /// Removes a key, logging failures (a missing key is fine).
    pub async fn remove(&self, key: &str) {
        match self.op.delete(key).await {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(%e, key, "could not remove bytes from the byte store"),
        }
    }

    /// Removes temporary upload keys older than `grace`: what a crash during
    /// an upload left behind. Returns how many were removed.
    pub async fn sweep_temporary(&self, grace: Duration) -> Result<usize, opendal::Error> {
        let entries = match self.op.list_with(TMP).recursive(true).await {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let now = SystemTime::now();
        let mut removed = 0;
        for entry in entries {
            let path = entry.path();
            if path.ends_with('/') || !path.starts_with(TMP) {
                continue;
            }
            if self.older_than(&entry, now, grace).await {
                self.remove(path).await;
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// Whether `entry` was last written at least `grace` before `now`. A key
    /// whose time cannot be known counts as old only for a zero grace.
    pub async fn older_than(
        &self,
        entry: &opendal::Entry,
        now: SystemTime,
        grace: Duration,
    ) -> bool {
        let modified = match entry.metadata().last_modified() {
            Some(at) => Some(SystemTime::from(at)),
            None => self
                .op
                .stat(entry.path())
                .await
                .ok()
                .and_then(|m| m.last_modified())
                .map(SystemTime::from),
        };
        match modified {
            Some(at) => now.duration_since(at).unwrap_or_default() >= grace,
            None => grace.is_zero(),
        }
    }
}

/// The store's flush of an upload's bytes, under way on a task of its own.
type Closing = tokio::task::JoinHandle<Result<(), ReceiveError>>;

/// An upload whose body is all written and whose eTag is known, while its
/// bytes are being made durable: its row may be written meanwhile, and
/// committed once [`Landing::durable`] has answered (never before, so that
/// no row names bytes a crash could lose). Dropped, the bytes are left to
/// the orphan sweep.
pub(crate) struct Landing {
    pub received: Received,
    closing: Closing,
    store: ByteStore,
    /// The upload's place in the memory budget, until its last writes end.
    _receiving: tokio::sync::OwnedSemaphorePermit,
}

impl Landing {
    /// Whether the row is best written while the bytes are made durable:
    /// only beside a local fsync still under way. A remote store's flush
    /// can take seconds, too long to hold a database connection (shared
    /// with the REST gateway) and the row's lock.
    pub fn stages_row(&self) -> bool {
        // (the local disk's fsync is short and bounded)
        self.store.local_root.is_some() && !self.closing.is_finished()
    }

    /// Waits until the bytes are durable; if they cannot be, their key is
    /// removed.
    pub async fn durable(self) -> Result<Received, ReceiveError> {
        let closed = self.closing.await.unwrap_or_else(|e| {
            Err(ReceiveError::Store(
                opendal::Error::new(ErrorKind::Unexpected, "making an upload durable stopped")
                    .set_source(e),
            ))
        });
        match closed {
            Ok(()) => Ok(self.received),
            Err(e) => {
                self.store.remove(&object_key(&self.received.version)).await;
                Err(e)
            }
        }
    }

    /// For tests: this landing with its flush replaced by `flush` (after
    /// the real one has ended).
    #[cfg(test)]
    pub async fn flushed_by(mut self, flush: Closing) -> Self {
        let _ = (&mut self.closing).await;
        self.closing = flush;
        self
    }

    /// Removes the upload's bytes, once nothing more is written to them.
    pub async fn discard(self) {
        let store = self.store.clone();
        if let Ok(received) = self.durable().await {
            store.remove_version(&received.version).await;
        }
    }
}

/// Bytes of an upload held in memory, received and hashed but not yet
/// written, while its permission is being decided (see
/// [`ByteStore::receive_gated`]): the most a refused caller gets the node
/// to take in, and no more than the hash queue's share of the upload's
/// memory.
const HOLD: usize = COALESCE * HASH_QUEUE;

/// The runs of an upload on their way to the store: each is hashed as it
/// comes, and written once the upload is admitted (held until then).
struct Intake {
    hasher: Hasher,
    writer: Option<Sink>,
    held: Vec<Bytes>,
    held_len: usize,
}

impl Intake {
    async fn run(&mut self, run: Bytes) -> Result<(), ReceiveError> {
        self.hasher.update(run.clone()).await;
        match &mut self.writer {
            Some(writer) => writer.write(run).await,
            None => {
                self.held_len += run.len();
                self.held.push(run);
                Ok(())
            }
        }
    }
}

/// The gate's answer: the byte limit once the upload is admitted (the
/// writer is then ready and has the held runs), or why not.
async fn admit<T>(
    answer: Result<(u64, T), StorageError>,
    size: u64,
    opening: &mut Option<Opening>,
    intake: &mut Intake,
) -> Result<(u64, T), ReceiveError> {
    let (limit, learnt) = answer.map_err(ReceiveError::Refused)?;
    if size > limit {
        return Err(ReceiveError::TooLarge);
    }
    let Some(opened) = opening.take() else {
        return Err(ReceiveError::Body("the upload was admitted twice".into()));
    };
    intake.writer = Some(opened.writer().await?);
    let held = std::mem::take(&mut intake.held);
    intake.held_len = 0;
    if let Some(writer) = &mut intake.writer {
        for run in held {
            writer.write(run).await?;
        }
    }
    Ok((limit, learnt))
}

/// The writer of an upload being made (see [`ByteStore::open`]).
enum Opening {
    Local(tokio::task::JoinHandle<std::io::Result<LocalFile>>),
    Store(Operator, String, usize),
}

impl Opening {
    async fn writer(self) -> Result<Sink, ReceiveError> {
        match self {
            Opening::Local(task) => Ok(Sink::Local(joined(task).await.map_err(io_error)?)),
            Opening::Store(op, key, chunk) => op
                .writer_with(&key)
                .chunk(chunk)
                .await
                .map(Sink::Store)
                .map_err(ReceiveError::Store),
        }
    }

    /// Waits for the file being made (and for the sync of its name), so
    /// that removing the key comes after.
    async fn settle(self) {
        if let Opening::Local(task) = self
            && let Ok(Ok(mut file)) = task.await
        {
            file.settle().await;
        }
    }
}

/// Runs queued for the hashing thread at most (2 MiB): beyond this,
/// receiving waits for the hash to catch up, so memory stays bounded; a
/// 1 MB upload never waits, a large one runs at the hash's pace.
const HASH_QUEUE: usize = 8;

/// The MD5 of an upload (its eTag), computed beside the upload rather than
/// in its way: MD5 runs at about 0.5 GB/s on one core, as slow as the whole
/// copy-and-fsync of the bytes, so runs are hashed on a blocking thread
/// while the next ones arrive and are written; an upload shorter than one
/// run (its only run is under [`COALESCE`]; most are) is hashed where it
/// is, without a thread hand-off.
#[derive(Default)]
struct Hasher {
    /// Off: nothing is hashed and [`Hasher::finish`] answers `None`.
    enabled: bool,
    /// Hashed here until the thread starts.
    inline: Md5,
    thread: Option<(
        tokio::sync::mpsc::Sender<Bytes>,
        tokio::task::JoinHandle<Md5>,
    )>,
}

impl Hasher {
    async fn update(&mut self, run: Bytes) {
        if !self.enabled {
            return;
        }
        if self.thread.is_none() {
            if run.len() < COALESCE {
                self.inline.update(&run);
                return;
            }
            let (sender, mut receiver) = tokio::sync::mpsc::channel::<Bytes>(HASH_QUEUE);
            let mut digest = std::mem::take(&mut self.inline);
            let handle = tokio::task::spawn_blocking(move || {
                while let Some(run) = receiver.blocking_recv() {
                    digest.update(&run);
                }
                digest
            });
            self.thread = Some((sender, handle));
        }
        if let Some((sender, _)) = &self.thread {
            // The thread only stops when the sender is dropped.
            let _ = sender.send(run).await;
        }
    }

    /// The hex digest of everything given to [`Hasher::update`], when on.
    async fn finish(self) -> Result<Option<String>, ReceiveError> {
        if !self.enabled {
            return Ok(None);
        }
        let digest = match self.thread {
            None => self.inline,
            Some((sender, handle)) => {
                drop(sender);
                // Only a runtime shutting down stops the thread early.
                handle.await.map_err(|e| {
                    ReceiveError::Store(
                        opendal::Error::new(ErrorKind::Unexpected, "hashing the upload stopped")
                            .set_source(e),
                    )
                })?
            }
        };
        Ok(Some(
            digest
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        ))
    }
}

/// Where a received upload goes: the operator's writer, or for the file
/// system store a file written directly ([`LocalFile`]).
enum Sink {
    Store(opendal::Writer),
    Local(LocalFile),
}

fn io_error(e: std::io::Error) -> ReceiveError {
    ReceiveError::Store(
        opendal::Error::new(ErrorKind::Unexpected, "writing an upload to disk").set_source(e),
    )
}

impl Sink {
    async fn write(&mut self, run: Bytes) -> Result<(), ReceiveError> {
        match self {
            Sink::Store(writer) => writer.write(run).await.map_err(ReceiveError::Store),
            Sink::Local(file) => file.write(run).await.map_err(io_error),
        }
    }

    /// Makes the bytes durable (the file system store: fsync).
    async fn close(&mut self) -> Result<(), ReceiveError> {
        match self {
            Sink::Store(writer) => writer
                .close()
                .await
                .map(|_| ())
                .map_err(ReceiveError::Store),
            Sink::Local(file) => file.close().await.map_err(io_error),
        }
    }

    /// Stops writing; the caller removes the key.
    async fn abort(&mut self) -> Result<(), ReceiveError> {
        match self {
            Sink::Store(writer) => writer.abort().await.map_err(ReceiveError::Store),
            Sink::Local(file) => {
                file.settle().await;
                Ok(())
            }
        }
    }
}

/// The largest whole number of runs in `len` bytes.
fn whole_runs(len: usize) -> usize {
    len / COALESCE * COALESCE
}

/// Writes of one upload under way at once (at different offsets).
const WRITES_IN_FLIGHT: usize = 2;
/// How much is written between two early syncs (see [`LocalFile`]).
const WRITEBACK_EVERY: u64 = 4 * 1024 * 1024;

/// An upload written straight to its file on the local disk.
///
/// Through the operator, each piece was copied into the file handle's own
/// buffer and written one at a time; here each piece is written from where
/// it arrived (`pwrite` at its offset on the blocking pool), two at a time,
/// so writing keeps pace with receiving. Every [`WRITEBACK_EVERY`] bytes a
/// sync of what is written so far starts in the background, so the final
/// fsync (which makes the upload durable before its row is written) finds
/// little left to do. The file's name is made durable (an fsync of its
/// folder) from the moment it is created, beside the body's arrival rather
/// than after it. The key is the one the operator would write; reading, removing
/// and sweeping go through the operator.
struct LocalFile {
    file: std::sync::Arc<std::fs::File>,
    offset: u64,
    writes: std::collections::VecDeque<tokio::task::JoinHandle<std::io::Result<()>>>,
    unsynced: u64,
    early_sync: Option<tokio::task::JoinHandle<()>>,
    /// Makes the file's name durable: the fsync of its folder (and of the
    /// folders above that `create` made).
    named: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

/// A blocking task's result, its failure to run as an I/O error.
async fn joined<T>(task: tokio::task::JoinHandle<std::io::Result<T>>) -> std::io::Result<T> {
    task.await.map_err(std::io::Error::other)?
}

/// Makes the entry naming `path` durable: an fsync of its folder (a file's
/// own fsync does not promise that its name survives a crash).
fn sync_parent(path: &std::path::Path) -> std::io::Result<()> {
    match path.parent() {
        Some(dir) => std::fs::File::open(dir)?.sync_all(),
        None => Ok(()),
    }
}

/// Makes the names of the folders `create_dirs` made and of the file at
/// `path` durable.
fn sync_names(made: &[std::path::PathBuf], path: &std::path::Path) -> std::io::Result<()> {
    made.iter().try_for_each(|dir| sync_parent(dir))?;
    sync_parent(path)
}

/// Creates the missing folders above `path`; returns them, outermost
/// first (their names become durable with an fsync of each one's parent).
fn create_dirs(path: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let Some(dir) = path.parent() else {
        return Ok(Vec::new());
    };
    let mut missing: Vec<std::path::PathBuf> = dir
        .ancestors()
        .take_while(|d| !d.is_dir())
        .map(std::path::Path::to_path_buf)
        .collect();
    if !missing.is_empty() {
        std::fs::create_dir_all(dir)?;
        missing.reverse();
    }
    Ok(missing)
}

impl LocalFile {
    async fn create(path: std::path::PathBuf) -> std::io::Result<Self> {
        let (file, path, made) = joined(tokio::task::spawn_blocking(move || {
            let made = create_dirs(&path)?;
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)?;
            Ok((file, path, made))
        }))
        .await?;
        Ok(Self {
            file: std::sync::Arc::new(file),
            offset: 0,
            writes: Default::default(),
            unsynced: 0,
            early_sync: None,
            // beside the body's arrival; `close` waits for it
            named: Some(tokio::task::spawn_blocking(move || {
                sync_names(&made, &path)
            })),
        })
    }

    async fn write(&mut self, run: Bytes) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        if self.writes.len() >= WRITES_IN_FLIGHT
            && let Some(oldest) = self.writes.pop_front()
        {
            joined(oldest).await?;
        }
        let (file, at, len) = (self.file.clone(), self.offset, run.len() as u64);
        self.offset += len;
        self.writes.push_back(tokio::task::spawn_blocking(move || {
            file.write_all_at(&run, at)
        }));
        self.unsynced += len;
        if self.unsynced >= WRITEBACK_EVERY
            && self.early_sync.as_ref().is_none_or(|s| s.is_finished())
        {
            self.unsynced = 0;
            let file = self.file.clone();
            // Only a head start: the final fsync decides.
            self.early_sync = Some(tokio::task::spawn_blocking(move || {
                let _ = file.sync_data();
            }));
        }
        Ok(())
    }

    /// Makes the file and its name durable.
    async fn close(&mut self) -> std::io::Result<()> {
        while let Some(write) = self.writes.pop_front() {
            joined(write).await?;
        }
        if let Some(sync) = self.early_sync.take() {
            let _ = sync.await;
        }
        let file = self.file.clone();
        joined(tokio::task::spawn_blocking(move || file.sync_all())).await?;
        match self.named.take() {
            Some(named) => joined(named).await,
            None => Ok(()),
        }
    }

    /// Waits for the writes and syncs under way (so none lands after
    /// removal).
    async fn settle(&mut self) {
        while let Some(write) = self.writes.pop_front() {
            let _ = write.await;
        }
        if let Some(sync) = self.early_sync.take() {
            let _ = sync.await;
        }
        if let Some(named) = self.named.take() {
            let _ = named.await;
        }
    }
}

/// The platform's `mtime` eTag: milliseconds since the epoch and the size,
/// both in hex.
fn mtime_etag(at: SystemTime, size: u64) -> String {
    let ms = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis();
    format!("{ms:x}-{size:x}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use opendal::services::Memory;

    fn store() -> ByteStore {
        ByteStore::new(Operator::new(Memory::default()).unwrap())
    }

    #[tokio::test]
    async fn uploads_beyond_the_memory_budget_wait_for_a_place() {
        // A budget of one upload's buffers: one upload at a time.
        let store = store();
        let store = store.clone().upload_memory(store.memory_per_upload());
        let (feed, first_body) = tokio::sync::mpsc::channel::<Result<Bytes, String>>(4);
        let first = {
            let store = store.clone();
            tokio::spawn(async move {
                let body = tokio_stream_from(first_body);
                store.receive(body, u64::MAX).await.map(|r| r.size)
            })
        };
        feed.send(Ok(Bytes::from_static(b"first"))).await.unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        // A refusal is heard without waiting for a place.
        let refused = tokio::time::timeout(
            Duration::from_secs(5),
            store.receive_gated(
                chunks(&[b"second"]),
                std::future::ready(Err::<(u64, ()), _>(StorageError::BucketNotFound)),
            ),
        )
        .await
        .expect("the refusal waited for the first upload");
        assert!(matches!(
            refused,
            Err(ReceiveError::Refused(StorageError::BucketNotFound))
        ));
        let second = {
            let store = store.clone();
            tokio::spawn(async move {
                store
                    .receive(chunks(&[b"second"]), u64::MAX)
                    .await
                    .map(|r| r.size)
            })
        };
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!second.is_finished(), "the second upload did not wait");
        drop(feed);
        assert_eq!(first.await.unwrap().unwrap(), 5);
        assert_eq!(second.await.unwrap().unwrap(), 6);
    }

    fn tokio_stream_from(
        mut rx: tokio::sync::mpsc::Receiver<Result<Bytes, String>>,
    ) -> impl Stream<Item = Result<Bytes, String>> + Unpin {
        futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
    }

    fn chunks(parts: &[&'static [u8]]) -> impl Stream<Item = Result<Bytes, String>> + Unpin {
        futures_util::stream::iter(
            parts
                .iter()
                .map(|p| Ok(Bytes::from_static(p)))
                .collect::<Vec<_>>(),
        )
    }

    async fn read_all(store: &ByteStore, version: &str, start: u64, end: u64) -> Vec<u8> {
        let mut stream = Box::pin(store.read(version, start, end).await.unwrap());
        let mut out = Vec::new();
        while let Some(chunk) = stream.next().await {
            out.extend_from_slice(&chunk.unwrap());
        }
        out
    }

    /// Receives `pieces` and a short tail; checks the size and the MD5 of
    /// what arrived. Returns it and all the bytes sent.
    async fn receive_whole(store: &ByteStore, mut pieces: Vec<Bytes>) -> (Received, Vec<u8>) {
        pieces.push(Bytes::from_static(b"tail"));
        let all: Vec<u8> = pieces.iter().flat_map(|p| p.iter().copied()).collect();
        let body = futures_util::stream::iter(pieces.into_iter().map(Ok::<_, String>));
        let received = store.receive(body, u64::MAX).await.unwrap();
        assert_eq!(received.size, all.len() as u64);
        let expected: String = Md5::digest(&all)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(received.etag, expected);
        (received, all)
    }

    #[tokio::test]
    async fn receive_copy_read_and_remove() {
        let store = store();
        let received = store
            .receive(chunks(&[b"hello ", b"world"]), 100)
            .await
            .unwrap();
        assert_eq!(received.size, 11);
        assert_eq!(received.etag, "5eb63bbbe01eeed093cb22bb8f5acdc3");
        let version = received.version;
        assert_eq!(read_all(&store, &version, 0, 11).await, b"hello world");
        assert_eq!(read_all(&store, &version, 6, 11).await, b"world");

        let copied = store.copy_version(&version).await.unwrap();
        assert_ne!(copied, version);
        assert_eq!(read_all(&store, &copied, 0, 11).await, b"hello world");

        store.remove_version(&version).await;
        assert!(!store.op.exists(&object_key(&version)).await.unwrap());
        store.remove_version(&version).await; // missing is fine
    }

    #[tokio::test]
    async fn oversized_and_broken_bodies_leave_nothing() {
        let store = store();
        let err = store
            .receive(chunks(&[b"12345", b"67890"]), 7)
            .await
            .unwrap_err();
        assert!(matches!(err, ReceiveError::TooLarge));
        let broken = futures_util::stream::iter(vec![
            Ok(Bytes::from_static(b"abc")),
            Err("connection reset".to_owned()),
        ]);
        let err = store.receive(broken, 100).await.unwrap_err();
        assert!(matches!(err, ReceiveError::Body(ref why) if why.contains("reset")));
        assert!(
            store
                .op
                .list_with("objects/")
                .recursive(true)
                .await
                .unwrap_or_default()
                .iter()
                .all(|e| e.path().ends_with('/'))
        );
    }

    #[tokio::test]
    async fn sweep_removes_only_old_temporary_files() {
        let store = store();
        store.op.write("tmp/left-by-a-crash", "x").await.unwrap();
        store.op.write(&object_key("ab12"), "kept").await.unwrap();
        assert_eq!(
            store
                .sweep_temporary(Duration::from_secs(3600))
                .await
                .unwrap(),
            0
        );
        assert_eq!(store.sweep_temporary(Duration::ZERO).await.unwrap(), 1);
        assert!(!store.op.exists("tmp/left-by-a-crash").await.unwrap());
        assert!(store.op.exists(&object_key("ab12")).await.unwrap());
    }

    #[tokio::test]
    async fn many_small_pieces_and_large_ones_arrive_whole_and_in_order() {
        let store = store();
        // 16 KiB pieces across several runs, then one piece larger than a run
        let mut pieces: Vec<Bytes> = (0..200u32)
            .map(|i| Bytes::from(vec![(i % 251) as u8; 16 * 1024 + (i as usize % 7)]))
            .collect();
        pieces.push(Bytes::from(vec![7u8; 3 * 1024 * 1024 + 5]));
        let (received, all) = receive_whole(&store, pieces).await;
        assert_eq!(
            read_all(&store, &received.version, 0, all.len() as u64).await,
            all
        );
    }

    #[tokio::test]
    async fn without_hashing_the_etag_is_time_and_size() {
        let store = store().hashing(false);
        let before = SystemTime::now();
        // several runs, so the hashing thread would start if it were on
        let pieces: Vec<Bytes> = (0..3).map(|_| Bytes::from(vec![1u8; COALESCE])).collect();
        let body = futures_util::stream::iter(pieces.into_iter().map(Ok::<_, String>));
        let received = store.receive(body, u64::MAX).await.unwrap();
        let (ms, size) = received.etag.split_once('-').unwrap();
        assert_eq!(u64::from_str_radix(size, 16).unwrap(), 3 * COALESCE as u64);
        let ms = u128::from_str_radix(ms, 16).unwrap();
        let since = |t: SystemTime| {
            t.duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .as_millis()
        };
        assert!(since(before) <= ms && ms <= since(SystemTime::now()));
        assert_eq!(
            mtime_etag(SystemTime::UNIX_EPOCH + Duration::from_millis(255), 16),
            "ff-10"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_file_system_store_writes_uploads_itself_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let store =
            ByteStore::new(Operator::new(opendal::services::Fs::default().root(root)).unwrap());
        // small pieces gathered into runs, large ones written as they come:
        // more writes than may be under way at once, and early syncs
        let mut pieces: Vec<Bytes> = (0..300u32)
            .map(|i| Bytes::from(vec![(i % 251) as u8; 16 * 1024 + (i as usize % 5)]))
            .collect();
        for i in 0..24u8 {
            pieces.push(Bytes::from(vec![i; COALESCE + 3 * i as usize]));
        }
        let (received, all) = receive_whole(&store, pieces).await;
        let key = object_key(&received.version);
        assert_eq!(std::fs::read(dir.path().join(&key)).unwrap(), all);
        assert_eq!(
            read_all(&store, &received.version, 0, all.len() as u64).await,
            all
        );
        // a copy is a file of its own, under its own version
        let copied = store.copy_version(&received.version).await.unwrap();
        assert_eq!(
            std::fs::read(dir.path().join(object_key(&copied))).unwrap(),
            all
        );

        // too large: the file is gone again
        let body = futures_util::stream::iter(
            (0..4).map(|_| Ok::<_, String>(Bytes::from(vec![0u8; COALESCE]))),
        );
        let err = store.receive(body, 3 * COALESCE as u64).await.unwrap_err();
        assert!(matches!(err, ReceiveError::TooLarge));
        let mut left: Vec<_> = std::fs::read_dir(dir.path().join("objects"))
            .unwrap()
            .flatten()
            .flat_map(|shard| std::fs::read_dir(shard.path()).unwrap().flatten())
            .map(|file| file.file_name())
            .collect();
        left.sort();
        let mut kept = vec![
            std::ffi::OsString::from(&received.version),
            std::ffi::OsString::from(&copied),
        ];
        kept.sort();
        assert_eq!(left, kept);
    }

    /// The objects on the disk of a file system store: (version, length).
    fn stored(root: &std::path::Path) -> Vec<(String, u64)> {
        let mut files: Vec<(String, u64)> = std::fs::read_dir(root.join("objects"))
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|shard| std::fs::read_dir(shard.path()).unwrap().flatten())
            .map(|file| {
                let name = file.file_name().to_string_lossy().into_owned();
                (name, file.metadata().unwrap().len())
            })
            .collect();
        files.sort();
        files
    }

    #[tokio::test]
    async fn a_gated_upload_writes_nothing_before_it_is_admitted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let store =
            ByteStore::new(Operator::new(opendal::services::Fs::default().root(root)).unwrap());
        let run = |i: usize| Bytes::from(vec![i as u8; COALESCE]);
        let taken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        // A body fed piece by piece, counting the pieces taken from it.
        let body = |rx: tokio::sync::mpsc::Receiver<Result<Bytes, String>>| {
            let taken = taken.clone();
            tokio_stream_from(rx).inspect(move |_| {
                taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            })
        };
        let gated = |rx, answer: tokio::sync::oneshot::Receiver<Result<u64, StorageError>>| {
            let store = store.clone();
            let body = body(rx);
            tokio::spawn(async move {
                let gate = async move { answer.await.unwrap_or(Ok(0)).map(|limit| (limit, ())) };
                store.receive_gated(body, gate).await?.0.durable().await
            })
        };

        // Admitted late: the first runs arrive and wait in memory, the file
        // is made but stays empty; past HOLD, receiving waits for the gate.
        let (feed, rx) = tokio::sync::mpsc::channel(64);
        let (open, answer) = tokio::sync::oneshot::channel();
        let upload = gated(rx, answer);
        let mut all = Vec::new();
        for i in 0..HASH_QUEUE + 4 {
            feed.send(Ok(run(i))).await.unwrap();
            all.extend_from_slice(&run(i));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let files = stored(dir.path());
        assert_eq!(files.len(), 1, "{files:?}");
        assert_eq!(files[0].1, 0, "bytes were written before the gate allowed");
        assert_eq!(taken.load(std::sync::atomic::Ordering::SeqCst), HASH_QUEUE);
        assert!(!upload.is_finished());
        open.send(Ok(u64::MAX)).unwrap();
        feed.send(Ok(Bytes::from_static(b"tail"))).await.unwrap();
        all.extend_from_slice(b"tail");
        drop(feed);
        let received = upload.await.unwrap().unwrap();
        assert_eq!(received.size, all.len() as u64);
        let md5: String = Md5::digest(&all)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(received.etag, md5);
        let key = dir.path().join(object_key(&received.version));
        assert_eq!(std::fs::read(key).unwrap(), all);

        // Three runs, then the gate's answer.
        let answered = |answer_with: Result<u64, StorageError>| {
            let (feed, rx) = tokio::sync::mpsc::channel(64);
            let (open, answer) = tokio::sync::oneshot::channel();
            let upload = gated(rx, answer);
            async move {
                for i in 0..3 {
                    feed.send(Ok(run(i))).await.unwrap();
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
                open.send(answer_with).unwrap();
                upload.await.unwrap()
            }
        };

        // Refused: the refusal comes back (the caller drains what is left
        // of the body), and no file is left.
        taken.store(0, std::sync::atomic::Ordering::SeqCst);
        let refused = answered(Err(StorageError::BucketNotFound))
            .await
            .unwrap_err();
        assert!(
            matches!(refused, ReceiveError::Refused(StorageError::BucketNotFound)),
            "{refused:?}"
        );
        assert_eq!(taken.load(std::sync::atomic::Ordering::SeqCst), 3);
        assert_eq!(
            stored(dir.path()),
            [(received.version.clone(), all.len() as u64)]
        );

        // Admitted with a limit below what already arrived: too large, and
        // no file is left either.
        let too_large = answered(Ok(2 * COALESCE as u64)).await.unwrap_err();
        assert!(matches!(too_large, ReceiveError::TooLarge), "{too_large:?}");
        assert_eq!(stored(dir.path()), [(received.version, all.len() as u64)]);
    }

    #[tokio::test]
    async fn the_file_system_store_prepares_every_shard_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        let op =
            Operator::new(opendal::services::Fs::default().root(root.to_str().unwrap())).unwrap();
        let store = ByteStore::new(op);
        store.prepare().await.unwrap();
        let shards = || {
            let mut names: Vec<String> = std::fs::read_dir(root.join("objects"))
                .unwrap()
                .flatten()
                .map(|e| e.file_name().into_string().unwrap())
                .collect();
            names.sort();
            names
        };
        let expected: Vec<String> = (0..=255u8).map(|s| format!("{s:02x}")).collect();
        assert_eq!(shards(), expected);
        // a shard that went missing is made again; the others are kept
        std::fs::write(root.join("objects/7f/kept"), b"x").unwrap();
        std::fs::remove_dir(root.join("objects/a0")).unwrap();
        store.prepare().await.unwrap();
        assert_eq!(shards(), expected);
        assert!(root.join("objects/7f/kept").exists());
        // every version's key lands in a prepared shard
        assert!(
            root.join(object_key(&new_version()))
                .parent()
                .unwrap()
                .is_dir()
        );
    }

    #[test]
    fn keys_are_sharded_by_version() {
        assert_eq!(object_key("abcdef"), "objects/ab/abcdef");
    }
}
