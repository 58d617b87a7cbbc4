//! `plinth backup` and `plinth restore`: one consistent archive of a node's
//! database, stored files and generated secrets, taken while it serves.
//!
//! An archive is a folder `plinth-backup-<UTC time>/` at the destination (a
//! local folder, or `s3://bucket/prefix`):
//!
//! * `database/base.tar`: a base backup of the embedded cluster
//!   (`pg_basebackup`, with the write-ahead log it needs), or for a
//!   `DATABASE_URL` server `database/dump` (`pg_dump`, custom format) and
//!   `database/roles.sql` (`pg_dumpall --roles-only`, when allowed);
//! * `files/objects/...`: every stored object version;
//! * `secrets/<name>`: the data folder's generated secrets (JWT secret, API
//!   keys, the cluster's superuser password);
//! * `manifest.json`, written last: what the archive holds, with each entry's
//!   size and SHA-256 (of the bytes as stored). An archive without one is
//!   unfinished and ignored.
//!
//! With `PLINTH_BACKUP_PASSPHRASE`, every entry is encrypted
//! (XChaCha20-Poly1305 in the STREAM construction, 64 KiB chunks, a key
//! derived from the passphrase with argon2id and a salt kept in the
//! manifest); restoring needs the same passphrase.
//!
//! Point-in-time recovery (embedded cluster): with `PLINTH_BACKUP_TO` set,
//! `plinth serve` has the cluster archive its write-ahead log into
//! `<data>/wal-archive` and copies new segments to `wal/` beside the
//! archives every minute (and at every backup). `plinth restore --until`
//! lays the newest base backup finished before that time down and replays
//! the archived log up to it.
//!
//! In a local folder and in staging, what a backup writes is its owner's
//! only (files 0600, folders 0700; see [`perms`]).

mod perms;

use std::collections::BTreeSet;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use chacha20poly1305::aead::stream::{DecryptorBE32, EncryptorBE32};
use chacha20poly1305::{KeyInit, XChaCha20Poly1305};
use chrono::{DateTime, Utc};
use opendal::Operator;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Archive folders start with this.
const PREFIX: &str = "plinth-backup-";
const MANIFEST: &str = "manifest.json";
/// Plaintext bytes per encrypted chunk.
const CHUNK: usize = 64 * 1024;
const MAGIC: &[u8; 8] = b"PLNTENC1";
/// Bytes of the key derivation's salt.
const SALT: usize = 16;
/// Bytes read or written per step when moving files.
const COPY_STEP: usize = 8 * 1024 * 1024;
/// Secrets of the data folder that an archive carries.
const SECRETS: [&str; 4] = [
    "jwt-secret",
    "api-keys.env",
    "postgres-password",
    "signing-keys.json",
];

/// Where archives live.
pub struct Destination {
    op: Operator,
    /// The folder, for a local location: written with private modes.
    local: Option<PathBuf>,
    pub description: String,
}

impl Destination {
    /// `s3://bucket/prefix` (credentials and endpoint from `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY`, `REGION`, `PLINTH_BACKUP_S3_ENDPOINT`), or a
    /// local folder.
    pub fn parse(location: &str) -> anyhow::Result<Self> {
        let backend = match location.strip_prefix("s3://") {
            Some(rest) => {
                let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
                if bucket.is_empty() {
                    bail!("{location} names no bucket; write s3://bucket/prefix");
                }
                let endpoint = std::env::var("PLINTH_BACKUP_S3_ENDPOINT").ok();
                plinth_storage::Backend::S3(plinth_storage::S3Config {
                    bucket: bucket.to_owned(),
                    force_path_style: endpoint.is_some(),
                    endpoint,
                    region: std::env::var("REGION").ok(),
                    access_key_id: std::env::var("AWS_ACCESS_KEY_ID").ok(),
                    secret_access_key: std::env::var("AWS_SECRET_ACCESS_KEY").ok(),
                    prefix: (!prefix.trim_matches('/').is_empty())
                        .then(|| prefix.trim_matches('/').to_owned()),
                })
            }
            None => {
                // Made here, 0700, before the operator would make it 0755.
                perms::private_dir_all(Path::new(location))
                    .with_context(|| format!("cannot create {location}"))?;
                plinth_storage::Backend::FileSystem {
                    root: PathBuf::from(location),
                }
            }
        };
        let op = plinth_storage::build_operator(&backend)
            .map_err(|e| anyhow::anyhow!("cannot open the backup location {location}: {e}"))?;
        let local = match backend {
            plinth_storage::Backend::FileSystem { root } => Some(root),
            _ => None,
        };
        Ok(Self {
            op,
            local,
            description: location.to_owned(),
        })
    }

    /// Stores the file `local` as `key`: in a local folder as a file of the
    /// owner's only (its new folders 0700), elsewhere through the operator.
    async fn put(&self, key: &str, local: &Path) -> anyhow::Result<()> {
        let Some(root) = &self.local else {
            return upload(&self.op, key, local).await;
        };
        let (from, to) = (local.to_owned(), root.join(key));
        tokio::task::spawn_blocking(move || perms::copy_private(&from, &to))
            .await?
            .with_context(|| format!("writing {key}"))
    }

    /// The finished archives, oldest first.
    async fn archives(&self) -> anyhow::Result<Vec<Manifest>> {
        let mut found = Vec::new();
        let entries = match self.op.list("").await {
            Ok(entries) => entries,
            Err(e) if e.kind() == opendal::ErrorKind::NotFound => return Ok(found),
            Err(e) => return Err(e).context("listing the backup location"),
        };
        for entry in entries {
            let name = entry.name().trim_end_matches('/');
            if !name.starts_with(PREFIX) {
                continue;
            }
            // A manifest names its own folder (pruning removes by id).
            if let Ok(bytes) = self.op.read(&format!("{name}/{MANIFEST}")).await
                && let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes.to_vec())
                && manifest.id == name
                && plain_path(name)
            {
                found.push(manifest);
            }
        }
        found.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(found)
    }
}

impl Destination {
    /// Whether what the location already holds is encrypted: its newest log
    /// segment decides, else its newest archive; `None` while it holds
    /// neither.
    pub async fn sealed(&self) -> anyhow::Result<Option<bool>> {
        let listed = list_files(&self.op, "wal/").await?;
        self.sealed_given(&listed.into_iter().collect()).await
    }

    /// [`Destination::sealed`] given the keys under `wal/`, already listed.
    async fn sealed_given(&self, wal: &BTreeSet<String>) -> anyhow::Result<Option<bool>> {
        let newest = wal
            .iter()
            .rev()
            .find(|key| wal_name_allowed(key.trim_start_matches("wal/")));
        if let Some(newest) = newest {
            let head = match self.op.read_with(newest).range(0..MAGIC.len() as u64).await {
                Ok(head) => head.to_vec(),
                // (shorter than the mark: not sealed)
                Err(e) if e.kind() == opendal::ErrorKind::RangeNotSatisfied => Vec::new(),
                Err(e) => return Err(e).with_context(|| format!("reading {newest}")),
            };
            return Ok(Some(head == MAGIC));
        }
        Ok(self
            .archives()
            .await?
            .last()
            .map(|newest| newest.encryption.is_some()))
    }

    /// Refuses to add to the location what is not sealed as what it holds:
    /// without a passphrase beside encrypted backups (the copies would be
    /// stored in the clear), or with one beside unencrypted backups (a
    /// restore reads every log segment it needs sealed alike, and only
    /// unsealed ones where nothing is encrypted).
    pub async fn check_sealing(&self, passphrase: Option<&str>) -> anyhow::Result<()> {
        let sealed = self.sealed().await?;
        self.refuse_mismatch(sealed, passphrase.is_some())
    }

    /// The refusal of [`Destination::check_sealing`] for a location whose
    /// sealing is known.
    pub fn refuse_mismatch(&self, sealed: Option<bool>, sealing: bool) -> anyhow::Result<()> {
        match (sealed, sealing) {
            (Some(true), false) => bail!(
                "{} holds encrypted backups: set PLINTH_BACKUP_PASSPHRASE (without it, backups and log copies would be stored there in the clear)",
                self.description
            ),
            (Some(false), true) => bail!(
                "{} holds unencrypted backups: send encrypted ones to a new location (one location holds one kind, so that a restore can read all it needs)",
                self.description
            ),
            _ => Ok(()),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Manifest {
    format: u32,
    id: String,
    plinth_version: String,
    started_at: DateTime<Utc>,
    finished_at: DateTime<Utc>,
    database: DatabasePart,
    encryption: Option<Encryption>,
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum DatabasePart {
    /// A base backup of the embedded cluster; `wal_start` is the first
    /// write-ahead log segment recovery over it needs.
    Physical { wal_start: String },
    /// `pg_dump` of a `DATABASE_URL` server.
    Logical,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Encryption {
    cipher: String,
    kdf: String,
    salt: String,
    m_cost: u32,
    t_cost: u32,
    p_cost: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    name: String,
    size: u64,
    sha256: String,
}

/// What a backup reads.
pub struct Source<'a> {
    pub data_dir: &'a Path,
    /// The embedded cluster, when the node runs on one.
    pub cluster: Option<plinth_db::cluster::BaseBackups>,
    /// `DATABASE_URL`, otherwise.
    pub database_url: Option<&'a str>,
    pub pg_bin_dir: Option<&'a Path>,
    /// The node's byte store.
    pub storage: plinth_storage::Backend,
}

/// Takes one archive into `dest`; copies the archived write-ahead log too.
/// Returns the archive's id.
pub async fn backup(
    source: &Source<'_>,
    dest: &Destination,
    passphrase: Option<&str>,
) -> anyhow::Result<String> {
    dest.check_sealing(passphrase).await?;
    let started_at = Utc::now();
    let id = format!("{PREFIX}{}", started_at.format("%Y%m%dT%H%M%S%.3fZ"));
    let staging = Staging::new(&std::env::temp_dir().join(format!("{id}.staging")))?;
    let key = passphrase.map(Key::new).transpose()?.map(Arc::new);
    let mut entries = Vec::new();

    // The database first: the files then copied include every version the
    // backup's rows name (a version replaced meanwhile may be missing; its
    // row then fails its download until written again).
    let database = match &source.cluster {
        Some(cluster) => {
            let out = staging.dir("database")?;
            // pg_basebackup writes as this process's user.
            let wal_start = cluster.take(&out).await.context("taking the base backup")?;
            entries.push(("database/base.tar".to_owned(), out.join("base.tar")));
            DatabasePart::Physical { wal_start }
        }
        None => {
            let url = source
                .database_url
                .context("neither an embedded cluster nor DATABASE_URL")?;
            let out = staging.dir("database")?;
            logical_dump(url, source.pg_bin_dir, &out).await?;
            entries.push(("database/dump".to_owned(), out.join("dump")));
            if out.join("roles.sql").exists() {
                entries.push(("database/roles.sql".to_owned(), out.join("roles.sql")));
            }
            DatabasePart::Logical
        }
    };
    let finished_at = Utc::now();

    for secret in SECRETS {
        let path = source.data_dir.join(secret);
        if path.is_file() {
            entries.push((format!("secrets/{secret}"), path));
        }
    }
    let mut recorded = Vec::new();
    for (name, local) in &entries {
        recorded.push(store_entry(dest, &id, name, local, key.clone(), &staging).await?);
    }

    let store = plinth_storage::build_operator(&source.storage)
        .map_err(|e| anyhow::anyhow!("cannot open the byte store: {e}"))?;
    let in_place = match &source.storage {
        plinth_storage::Backend::FileSystem { root } => Some(root.as_path()),
        _ => None,
    };
    recorded.extend(store_files(&store, in_place, dest, &id, key.clone(), &staging).await?);
    let manifest = Manifest {
        format: 1,
        id: id.clone(),
        plinth_version: env!("CARGO_PKG_VERSION").to_owned(),
        started_at,
        finished_at,
        database,
        encryption: key.as_deref().map(Key::describe),
        entries: recorded,
    };
    let written = staging.root.join(MANIFEST);
    perms::create_private(&written)?.write_all(&serde_json::to_vec_pretty(&manifest)?)?;
    dest.put(&format!("{id}/{MANIFEST}"), &written)
        .await
        .context("writing the manifest")?;
    sync_wal(source.data_dir, dest, passphrase).await?;
    Ok(id)
}

/// Copies archived write-ahead log segments not yet at `dest` to its `wal/`.
pub async fn sync_wal(
    data_dir: &Path,
    dest: &Destination,
    passphrase: Option<&str>,
) -> anyhow::Result<usize> {
    let archive = data_dir.join("wal-archive");
    let Ok(dir) = fs::read_dir(&archive) else {
        return Ok(0);
    };
    let present: BTreeSet<String> = list_files(&dest.op, "wal/").await?.into_iter().collect();
    let mut copied = 0;
    let mut names: Vec<String> = dir
        .flatten()
        .filter(|e| e.path().is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !present.contains(&format!("wal/{name}")))
        .collect();
    if names.is_empty() {
        return Ok(0);
    }
    // (asked again each time: a backup taken meanwhile may have decided)
    let sealed = dest.sealed_given(&present).await?;
    dest.refuse_mismatch(sealed, passphrase.is_some())?;
    let key = passphrase.map(Key::new).transpose()?;
    names.sort();
    for name in names {
        let target = format!("wal/{name}");
        let local = archive.join(&name);
        match &key {
            Some(key) => {
                // A file of its own: a scheduled sync and `plinth backup` may
                // seal the same segment at the same moment.
                let sealed = tempfile::Builder::new()
                    .prefix("plinth-wal-")
                    .suffix(".sealed")
                    .tempfile()?;
                key.encrypt_file(&local, sealed.path())?;
                dest.put(&target, sealed.path()).await?;
            }
            None => dest.put(&target, &local).await?,
        }
        copied += 1;
    }
    Ok(copied)
}

/// Keeps the `keep` newest archives at `dest` and the log segments they
/// need; removes the rest. Returns how many archives went.
pub async fn prune(dest: &Destination, keep: usize) -> anyhow::Result<usize> {
    let archives = dest.archives().await?;
    let doomed = archives.len().saturating_sub(keep.max(1));
    for old in &archives[..doomed] {
        dest.op
            .delete_with(&format!("{}/", old.id))
            .recursive(true)
            .await
            .with_context(|| format!("removing {}", old.id))?;
    }
    // Segments older than the oldest kept base backup's first one are
    // needed by no archive left.
    let oldest_start = archives[doomed..].iter().find_map(|m| match &m.database {
        DatabasePart::Physical { wal_start } => Some(wal_start.clone()),
        DatabasePart::Logical => None,
    });
    if let Some(oldest_start) = oldest_start {
        for key in list_files(&dest.op, "wal/").await? {
            let name = key.trim_start_matches("wal/");
            let segment = name.get(..24).unwrap_or(name);
            let is_segment = wal_name_allowed(name) && !name.ends_with(".history");
            if is_segment && segment < oldest_start.as_str() {
                dest.op.delete(&key).await.ok();
            }
        }
    }
    Ok(doomed)
}

/// What a restore writes.
pub struct Target<'a> {
    /// A new (missing or empty) data folder.
    pub data_dir: &'a Path,
    pub pg_bin_dir: Option<&'a Path>,
    /// Where the restored files go (the byte store the restored node will use).
    pub storage: plinth_storage::Backend,
}

/// Restores the newest archive at `from` (finished before `until`, with the
/// write-ahead log replayed up to `until` when given) into a new data folder.
/// Returns the archive's id.
pub async fn restore(
    from: &Destination,
    target: &Target<'_>,
    until: Option<DateTime<Utc>>,
    passphrase: Option<&str>,
) -> anyhow::Result<String> {
    let data_dir = target.data_dir;
    if data_dir.exists()
        && fs::read_dir(data_dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        bail!(
            "{} is not empty; restore into a new data folder",
            data_dir.display()
        );
    }
    let archives = from.archives().await?;
    let manifest = archives
        .iter()
        .rev()
        .find(|m| until.is_none_or(|until| m.finished_at <= until))
        .cloned()
        .with_context(|| match until {
            Some(until) => format!(
                "{} holds no backup finished before {until}",
                from.description
            ),
            None => format!("{} holds no finished backup", from.description),
        })?;
    // Whoever can write to the location wrote the manifest: its names become
    // paths here, so only the kinds of entry a backup writes are taken.
    if let Some(entry) = manifest.entries.iter().find(|e| !entry_allowed(&e.name)) {
        bail!(
            "{} names an entry {:?} that no backup writes; the archive is not plinth's or was tampered with",
            manifest.id,
            entry.name
        );
    }
    if until.is_some() && !matches!(manifest.database, DatabasePart::Physical { .. }) {
        bail!(
            "--until needs a backup of the embedded cluster with its archived write-ahead log; {} is a dump",
            manifest.id
        );
    }
    let key = match (&manifest.encryption, passphrase) {
        (Some(described), Some(passphrase)) => Some(Key::from_manifest(passphrase, described)?),
        (Some(_), None) => bail!("{} is encrypted: set PLINTH_BACKUP_PASSPHRASE", manifest.id),
        (None, _) => None,
    };

    fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create {}", data_dir.display()))?;
    // The cluster's user reads the base backup and the log from here.
    fs::set_permissions(data_dir, fs::Permissions::from_mode(0o755))?;
    let staging = Staging::new(&data_dir.join(".restore"))?;
    // (private: only the database's files are shared, with the cluster's user)
    let mut fetched = Vec::new();
    for entry in &manifest.entries {
        let stored = staging.root.join("stored").join(&entry.name);
        download(
            &from.op,
            &format!("{}/{}", manifest.id, entry.name),
            &stored,
        )
        .await?;
        let (size, sha256) = digest(&stored)?;
        if size != entry.size || sha256 != entry.sha256 {
            bail!(
                "{}/{} does not match its checksum in the manifest: the archive is damaged",
                manifest.id,
                entry.name
            );
        }
        let plain = match &key {
            Some(key) => {
                let plain = staging.root.join("plain").join(&entry.name);
                perms::private_dir_all(plain.parent().unwrap_or(&staging.root))?;
                key.decrypt_file(&stored, &plain)
                    .with_context(|| format!("decrypting {} (a wrong passphrase?)", entry.name))?;
                plain
            }
            None => stored,
        };
        fetched.push((entry.name.clone(), plain));
    }

    let store = plinth_storage::build_operator(&target.storage)
        .map_err(|e| anyhow::anyhow!("cannot open the byte store: {e}"))?;
    let mut base_tar = None;
    let mut dump = None;
    let mut roles = None;
    for (name, path) in &fetched {
        if let Some(secret) = name.strip_prefix("secrets/") {
            perms::copy_private(path, &data_dir.join(secret))?;
        } else if let Some(key_name) = name.strip_prefix("files/") {
            upload(&store, key_name, path).await?;
        } else if name == "database/base.tar" {
            base_tar = Some(path.clone());
        } else if name == "database/dump" {
            dump = Some(path.clone());
        } else if name == "database/roles.sql" {
            roles = Some(path.clone());
        }
    }

    match (&manifest.database, base_tar, dump) {
        (DatabasePart::Physical { wal_start }, Some(base_tar), _) => {
            perms::share_with_cluster(&staging.root, &base_tar)?;
            let wal = match until {
                Some(_) => {
                    let wal = staging.dir("wal")?;
                    fetch_wal(from, &wal, wal_start, key.as_ref()).await?;
                    perms::share_with_cluster(&staging.root, &wal)?;
                    Some(wal)
                }
                None => None,
            };
            let until_text = until.map(|t| t.format("%Y-%m-%d %H:%M:%S%.6f+00").to_string());
            plinth_db::Cluster::prepare_recovery(
                data_dir,
                &base_tar,
                wal.as_deref(),
                until_text.as_deref(),
            )
            .await?;
            let mut cluster = plinth_db::Cluster::start(data_dir, target.pg_bin_dir).await?;
            let recovered = cluster.wait_recovered(Duration::from_secs(600)).await;
            cluster.stop().await?;
            recovered?;
        }
        (DatabasePart::Logical, _, Some(dump)) => {
            let mut cluster = plinth_db::Cluster::start(data_dir, target.pg_bin_dir).await?;
            let restored =
                logical_restore(&cluster, target.pg_bin_dir, &dump, roles.as_deref()).await;
            cluster.stop().await?;
            restored?;
        }
        _ => bail!("{} holds no database", manifest.id),
    }
    drop(staging);
    Ok(manifest.id)
}

async fn fetch_wal(
    from: &Destination,
    into: &Path,
    wal_start: &str,
    key: Option<&Key>,
) -> anyhow::Result<()> {
    for key_name in list_files(&from.op, "wal/").await? {
        let name = key_name.trim_start_matches("wal/");
        if !wal_name_allowed(name) {
            continue;
        }
        let segment = name.get(..24).unwrap_or(name);
        if segment.len() == 24 && segment < wal_start && !name.ends_with(".history") {
            continue;
        }
        let local = into.join(name);
        download(&from.op, &key_name, &local).await?;
        if let Some(key) = key {
            let plain = into.join(format!("{name}.plain"));
            key.decrypt_file(&local, &plain)?;
            fs::rename(&plain, &local)?;
        }
    }
    Ok(())
}

async fn logical_dump(url: &str, bin_dir: Option<&Path>, out: &Path) -> anyhow::Result<()> {
    let binaries = plinth_db::Cluster::binaries(bin_dir)?;
    let status = tokio::process::Command::new(binaries.tool("pg_dump"))
        .args(["--format", "custom", "--file"])
        .arg(out.join("dump"))
        .arg("--dbname")
        .arg(url)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .context("running pg_dump")?;
    if !status.status.success() {
        bail!(
            "pg_dump failed: {}",
            String::from_utf8_lossy(&status.stderr).trim()
        );
    }
    // Roles are the server's, not the database's: kept when the user may
    // read them (a managed server's user often may not).
    let roles = tokio::process::Command::new(binaries.tool("pg_dumpall"))
        .args(["--roles-only", "--no-role-passwords", "--file"])
        .arg(out.join("roles.sql"))
        .arg("--dbname")
        .arg(url)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .context("running pg_dumpall")?;
    if !roles.status.success() {
        let _ = fs::remove_file(out.join("roles.sql"));
        tracing::warn!(
            "roles not included (pg_dumpall: {})",
            String::from_utf8_lossy(&roles.stderr).trim()
        );
    }
    Ok(())
}

async fn logical_restore(
    cluster: &plinth_db::Cluster,
    bin_dir: Option<&Path>,
    dump: &Path,
    roles: Option<&Path>,
) -> anyhow::Result<()> {
    let binaries = plinth_db::Cluster::binaries(bin_dir)?;
    let host = cluster.layout().socket_dir.display().to_string();
    let port = cluster.port().to_string();
    let connect = [
        "--host",
        host.as_str(),
        "--port",
        port.as_str(),
        "--username",
        plinth_db::cluster::SUPERUSER,
    ];
    if let Some(roles) = roles {
        // Roles that exist already (the superuser) are errors to pass over.
        let _ = tokio::process::Command::new(binaries.tool("psql"))
            .args(connect)
            .args([
                "--dbname",
                plinth_db::cluster::DATABASE,
                "--quiet",
                "--file",
            ])
            .arg(roles)
            .stdin(std::process::Stdio::null())
            .output()
            .await
            .context("running psql")?;
    }
    let out = tokio::process::Command::new(binaries.tool("pg_restore"))
        .args(connect)
        .args(["--dbname", plinth_db::cluster::DATABASE, "--no-owner"])
        .arg(dump)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .context("running pg_restore")?;
    if !out.status.success() {
        bail!(
            "pg_restore failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

/// An entry a backup writes: the database's, a known secret, or an object
/// version's bytes, every part of its name plain.
fn entry_allowed(name: &str) -> bool {
    match name {
        "database/base.tar" | "database/dump" | "database/roles.sql" => true,
        _ => match name.strip_prefix("secrets/") {
            Some(secret) => SECRETS.contains(&secret),
            None => name.strip_prefix("files/objects/").is_some_and(plain_path),
        },
    }
}

/// A relative path of plain parts: no empty part, no `.` or `..`, only
/// letters, digits, `-`, `_` and `.`.
fn plain_path(path: &str) -> bool {
    !path.is_empty()
        && path.split('/').all(|part| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        })
}

/// A file of the archived log: a segment (24 hex digits, maybe with a
/// suffix such as `.partial` or `.00000028.backup`) or a timeline history.
fn wal_name_allowed(name: &str) -> bool {
    !name.contains('/')
        && plain_path(name)
        && (name
            .get(..24)
            .is_some_and(|s| s.bytes().all(|b| b.is_ascii_hexdigit()))
            || name.ends_with(".history"))
}

/// Every file key under `prefix` (recursively).
async fn list_files(op: &Operator, prefix: &str) -> anyhow::Result<Vec<String>> {
    match op.list_with(prefix).recursive(true).await {
        Ok(entries) => Ok(entries
            .into_iter()
            .map(|e| e.path().to_owned())
            .filter(|p| !p.ends_with('/'))
            .collect()),
        Err(e) if e.kind() == opendal::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e).with_context(|| format!("listing {prefix}")),
    }
}

/// Stores every object of the byte store `store` as `files/...` of archive
/// `id`, one at a time: read where it is when the store is the folder
/// `in_place`; otherwise fetched into the staging folder and removed once
/// stored, so a backup needs room for one file, not for the whole store. A
/// version removed since the listing (replaced or deleted meanwhile) is left
/// out rather than failing the backup.
async fn store_files(
    store: &Operator,
    in_place: Option<&Path>,
    dest: &Destination,
    id: &str,
    key: Option<Arc<Key>>,
    staging: &Staging,
) -> anyhow::Result<Vec<Entry>> {
    let files = staging.dir("files")?;
    let mut recorded = Vec::new();
    for key_name in list_files(store, "objects/").await? {
        let name = format!("files/{key_name}");
        let local = match in_place {
            Some(root) => root.join(&key_name),
            None => files.join(&key_name),
        };
        // Only the source's absence leaves a file out: a destination that
        // answers "not found" fails the backup like any other error.
        let stored = match in_place {
            None => match download(store, &key_name, &local).await {
                Err(e) => Err((gone(&e), e)),
                Ok(()) => store_entry(dest, id, &name, &local, key.clone(), staging)
                    .await
                    .map_err(|e| (false, e)),
            },
            Some(_) => store_entry(dest, id, &name, &local, key.clone(), staging)
                .await
                .map_err(|e| (gone(&e) && !local.exists(), e)),
        };
        if in_place.is_none() {
            let _ = fs::remove_file(&local);
        }
        match stored {
            Ok(entry) => recorded.push(entry),
            Err((true, _)) => {
                tracing::debug!(key = %key_name, "an object removed during the backup is left out");
            }
            Err((false, e)) => return Err(e),
        }
    }
    Ok(recorded)
}

/// Stores `local` as entry `name` of archive `id` (sealed first under
/// `key`, in the staging folder, removed once stored); the entry as stored.
/// Sealing and hashing run on the blocking pool: a scheduled backup shares
/// the node's runtime.
async fn store_entry(
    dest: &Destination,
    id: &str,
    name: &str,
    local: &Path,
    key: Option<Arc<Key>>,
    staging: &Staging,
) -> anyhow::Result<Entry> {
    let sealed = match key {
        Some(key) => {
            let sealed = staging.root.join("sealed").join(name);
            perms::private_dir_all(sealed.parent().unwrap_or(&staging.root))?;
            let (from, to) = (local.to_owned(), sealed.clone());
            tokio::task::spawn_blocking(move || key.encrypt_file(&from, &to)).await??;
            Some(sealed)
        }
        None => None,
    };
    let stored = sealed.clone().unwrap_or_else(|| local.to_owned());
    let result = async {
        let hashed = stored.clone();
        let (size, sha256) = tokio::task::spawn_blocking(move || digest(&hashed)).await??;
        dest.put(&format!("{id}/{name}"), &stored).await?;
        Ok(Entry {
            name: name.to_owned(),
            size,
            sha256,
        })
    }
    .await;
    if let Some(sealed) = sealed {
        let _ = fs::remove_file(sealed);
    }
    result
}

/// Whether `error` is a file or object that is no longer there.
fn gone(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::NotFound)
            || cause
                .downcast_ref::<opendal::Error>()
                .is_some_and(|e| e.kind() == opendal::ErrorKind::NotFound)
    })
}

async fn upload(op: &Operator, key: &str, local: &Path) -> anyhow::Result<()> {
    use tokio::io::AsyncReadExt;
    let mut file = tokio::fs::File::open(local)
        .await
        .with_context(|| format!("reading {}", local.display()))?;
    let mut writer = op
        .writer(key)
        .await
        .with_context(|| format!("writing {key}"))?;
    let mut buffer = vec![0; COPY_STEP];
    loop {
        let n = file.read(&mut buffer).await?;
        if n == 0 {
            break;
        }
        writer
            .write(buffer[..n].to_vec())
            .await
            .with_context(|| format!("writing {key}"))?;
    }
    writer
        .close()
        .await
        .with_context(|| format!("writing {key}"))?;
    Ok(())
}

async fn download(op: &Operator, key: &str, local: &Path) -> anyhow::Result<()> {
    use futures_util::StreamExt;
    if let Some(parent) = local.parent() {
        perms::private_dir_all(parent)?;
    }
    let mut file =
        perms::create_private(local).with_context(|| format!("writing {}", local.display()))?;
    let reader = op
        .reader_with(key)
        .chunk(COPY_STEP)
        .await
        .with_context(|| format!("reading {key}"))?;
    let mut stream = reader
        .into_bytes_stream(..)
        .await
        .with_context(|| format!("reading {key}"))?;
    while let Some(chunk) = stream.next().await {
        file.write_all(&chunk.with_context(|| format!("reading {key}"))?)?;
    }
    file.sync_all()?;
    Ok(())
}

/// Size and hex SHA-256 of a file.
fn digest(path: &Path) -> anyhow::Result<(u64, String)> {
    let mut file = fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; COPY_STEP];
    let mut size = 0u64;
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        size += n as u64;
        hasher.update(&buffer[..n]);
    }
    Ok((size, plinth_db::hex(&hasher.finalize())))
}

/// A folder removed when dropped.
struct Staging {
    root: PathBuf,
}

impl Staging {
    fn new(root: &Path) -> anyhow::Result<Self> {
        let _ = fs::remove_dir_all(root);
        perms::private_dir_all(root)
            .with_context(|| format!("cannot create {}", root.display()))?;
        // (one that could not be removed is closed all the same)
        fs::set_permissions(root, fs::Permissions::from_mode(0o700))?;
        Ok(Self {
            root: root.to_owned(),
        })
    }

    fn dir(&self, name: &str) -> anyhow::Result<PathBuf> {
        let dir = self.root.join(name);
        perms::private_dir_all(&dir)?;
        Ok(dir)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// The archive key, from a passphrase. Each encrypted file carries the salt
/// its key was derived with (log segments are copied by other runs than the
/// archive they belong to); other salts' keys are derived when met.
struct Key {
    passphrase: String,
    salt: Vec<u8>,
    cipher: XChaCha20Poly1305,
    described: Encryption,
    others: std::sync::Mutex<std::collections::HashMap<Vec<u8>, XChaCha20Poly1305>>,
}

impl Key {
    const M_COST: u32 = 64 * 1024;
    const T_COST: u32 = 3;
    const P_COST: u32 = 1;

    fn new(passphrase: &str) -> anyhow::Result<Self> {
        let salt: [u8; SALT] = rand::random();
        Self::derive(
            passphrase,
            Encryption {
                cipher: "xchacha20poly1305-stream-be32-64k".into(),
                kdf: "argon2id".into(),
                salt: plinth_db::hex(&salt),
                m_cost: Self::M_COST,
                t_cost: Self::T_COST,
                p_cost: Self::P_COST,
            },
        )
    }

    fn from_manifest(passphrase: &str, described: &Encryption) -> anyhow::Result<Self> {
        if described.kdf != "argon2id" || !described.cipher.starts_with("xchacha20poly1305-stream")
        {
            bail!(
                "the archive is encrypted with {} / {}, which this plinth does not know",
                described.kdf,
                described.cipher
            );
        }
        Self::derive(passphrase, described.clone())
    }

    fn derive(passphrase: &str, described: Encryption) -> anyhow::Result<Self> {
        if passphrase.is_empty() {
            bail!("PLINTH_BACKUP_PASSPHRASE is empty");
        }
        let salt = plinth_db::unhex(&described.salt)
            .filter(|s| s.len() == SALT)
            .context("the manifest's salt is not 16 bytes of hex")?;
        let cipher = Self::cipher(passphrase, &salt, &described)?;
        Ok(Self {
            passphrase: passphrase.to_owned(),
            salt,
            cipher,
            described,
            others: Default::default(),
        })
    }

    fn cipher(
        passphrase: &str,
        salt: &[u8],
        described: &Encryption,
    ) -> anyhow::Result<XChaCha20Poly1305> {
        let params = argon2::Params::new(
            described.m_cost,
            described.t_cost,
            described.p_cost,
            Some(32),
        )
        .map_err(|e| anyhow::anyhow!("key derivation settings: {e}"))?;
        let mut key = [0u8; 32];
        argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params)
            .hash_password_into(passphrase.as_bytes(), salt, &mut key)
            .map_err(|e| anyhow::anyhow!("deriving the key: {e}"))?;
        Ok(XChaCha20Poly1305::new(&key.into()))
    }

    /// The cipher of a file encrypted under `salt`.
    fn cipher_for(&self, salt: &[u8]) -> anyhow::Result<XChaCha20Poly1305> {
        if salt == self.salt.as_slice() {
            return Ok(self.cipher.clone());
        }
        let mut others = self.others.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(cipher) = others.get(salt) {
            return Ok(cipher.clone());
        }
        let cipher = Self::cipher(&self.passphrase, salt, &self.described)?;
        others.insert(salt.to_vec(), cipher.clone());
        Ok(cipher)
    }

    fn describe(&self) -> Encryption {
        self.described.clone()
    }

    /// `MAGIC`, the 16-byte salt, a 19-byte nonce, then chunks: a 4-byte big-endian length and
    /// that many bytes of ciphertext (the last chunk sealed as last).
    fn encrypt_file(&self, from: &Path, to: &Path) -> anyhow::Result<()> {
        let nonce: [u8; 19] = rand::random();
        let mut encryptor = EncryptorBE32::from_aead(self.cipher.clone(), (&nonce).into());
        let mut input = fs::File::open(from)?;
        let mut output = std::io::BufWriter::new(perms::create_private(to)?);
        output.write_all(MAGIC)?;
        output.write_all(&self.salt)?;
        output.write_all(&nonce)?;
        let mut chunk = vec![0; CHUNK];
        let mut filled = read_full(&mut input, &mut chunk)?;
        loop {
            let mut next = vec![0; CHUNK];
            let next_filled = if filled == CHUNK {
                read_full(&mut input, &mut next)?
            } else {
                0
            };
            if next_filled == 0 {
                let sealed = encryptor
                    .encrypt_last(&chunk[..filled])
                    .map_err(|_| anyhow::anyhow!("encryption failed"))?;
                write_chunk(&mut output, &sealed)?;
                break;
            }
            let sealed = encryptor
                .encrypt_next(&chunk[..filled])
                .map_err(|_| anyhow::anyhow!("encryption failed"))?;
            write_chunk(&mut output, &sealed)?;
            chunk = next;
            filled = next_filled;
        }
        output.flush()?;
        Ok(())
    }

    fn decrypt_file(&self, from: &Path, to: &Path) -> anyhow::Result<()> {
        let mut input = std::io::BufReader::new(fs::File::open(from)?);
        let mut magic = [0u8; 8];
        input.read_exact(&mut magic)?;
        if &magic != MAGIC {
            bail!("not an encrypted archive entry");
        }
        let mut salt = [0u8; SALT];
        input.read_exact(&mut salt)?;
        let mut nonce = [0u8; 19];
        input.read_exact(&mut nonce)?;
        let mut decryptor = DecryptorBE32::from_aead(self.cipher_for(&salt)?, (&nonce).into());
        let mut output = std::io::BufWriter::new(perms::create_private(to)?);
        let mut current = read_chunk(&mut input)?.context("an empty encrypted entry")?;
        loop {
            match read_chunk(&mut input)? {
                Some(next) => {
                    let plain = decryptor
                        .decrypt_next(current.as_slice())
                        .map_err(|_| anyhow::anyhow!("the entry does not decrypt"))?;
                    output.write_all(&plain)?;
                    current = next;
                }
                None => {
                    let plain = decryptor
                        .decrypt_last(current.as_slice())
                        .map_err(|_| anyhow::anyhow!("the entry does not decrypt"))?;
                    output.write_all(&plain)?;
                    break;
                }
            }
        }
        output.flush()?;
        Ok(())
    }
}

fn read_full(input: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        let n = input.read(&mut buffer[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    Ok(filled)
}

fn write_chunk(output: &mut impl Write, sealed: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(sealed.len()).map_err(std::io::Error::other)?;
    output.write_all(&len.to_be_bytes())?;
    output.write_all(sealed)
}

fn read_chunk(input: &mut impl Read) -> anyhow::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match input.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let len = u32::from_be_bytes(len) as usize;
    if len > CHUNK + 64 {
        bail!("a damaged encrypted entry");
    }
    let mut sealed = vec![0; len];
    input.read_exact(&mut sealed)?;
    Ok(Some(sealed))
}

/// `PLINTH_BACKUP_SCHEDULE`: `30m`, `6h`, `1d` (or `@hourly`, `@daily`).
pub fn parse_schedule(text: &str) -> anyhow::Result<Duration> {
    let text = text.trim();
    let seconds = match text {
        "@hourly" => 3600,
        "@daily" => 86_400,
        "@weekly" => 7 * 86_400,
        _ => {
            let split = text.len().saturating_sub(1);
            let (number, unit) = text.split_at(split);
            let n: u64 = number.parse().ok().filter(|n| *n > 0).with_context(|| {
                format!("PLINTH_BACKUP_SCHEDULE {text:?} is not like 30m, 6h or 1d")
            })?;
            match unit {
                "m" => n * 60,
                "h" => n * 3600,
                "d" => n * 86_400,
                _ => bail!("PLINTH_BACKUP_SCHEDULE {text:?} is not like 30m, 6h or 1d"),
            }
        }
    };
    if seconds < 300 {
        bail!("PLINTH_BACKUP_SCHEDULE {text:?} is shorter than 5 minutes");
    }
    Ok(Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encrypted_entries_come_back_whole_and_only_with_the_passphrase() {
        let dir = tempfile::tempdir().unwrap();
        let key = Key::new("correct horse").unwrap();
        for size in [0usize, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
            let plain: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
            let from = dir.path().join("plain");
            fs::write(&from, &plain).unwrap();
            let sealed = dir.path().join("sealed");
            key.encrypt_file(&from, &sealed).unwrap();
            let sealed_bytes = fs::read(&sealed).unwrap();
            if size > 64 {
                assert!(!sealed_bytes.windows(64).any(|w| w == &plain[..64]));
            }
            let back = dir.path().join("back");
            let again = Key::from_manifest("correct horse", &key.describe()).unwrap();
            again.decrypt_file(&sealed, &back).unwrap();
            assert_eq!(fs::read(&back).unwrap(), plain, "size {size}");

            let wrong = Key::from_manifest("wrong horse", &key.describe()).unwrap();
            assert!(wrong.decrypt_file(&sealed, &back).is_err(), "size {size}");
            // A truncated entry is refused, not cut short.
            if size > CHUNK {
                fs::write(&sealed, &sealed_bytes[..sealed_bytes.len() - 10]).unwrap();
                assert!(again.decrypt_file(&sealed, &back).is_err());
            }
        }
    }

    #[test]
    fn files_sealed_by_another_run_decrypt_with_the_same_passphrase() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("plain");
        fs::write(&from, b"a log segment").unwrap();
        let sealed = dir.path().join("sealed");
        Key::new("pass")
            .unwrap()
            .encrypt_file(&from, &sealed)
            .unwrap();
        let other_run = Key::new("pass").unwrap();
        let back = dir.path().join("back");
        other_run.decrypt_file(&sealed, &back).unwrap();
        assert_eq!(fs::read(&back).unwrap(), b"a log segment");
        assert!(
            Key::new("other")
                .unwrap()
                .decrypt_file(&sealed, &back)
                .is_err()
        );
    }

    #[tokio::test]
    async fn pruning_keeps_the_newest_archives_and_the_log_they_need() {
        let dir = tempfile::tempdir().unwrap();
        for (i, start) in [3, 5, 7].into_iter().enumerate() {
            let id = format!("{PREFIX}2026112{i}T000000.000Z");
            let database = DatabasePart::Physical {
                wal_start: wal_segment(start),
            };
            write_manifest(dir.path(), &id, &manifest(&id, database, None, Vec::new()));
            fs::write(dir.path().join(&id).join("database/base.tar"), b"tar").unwrap();
        }
        // An unfinished archive (no manifest) is not counted, nor removed.
        fs::create_dir_all(dir.path().join(format!("{PREFIX}20261129T000000.000Z"))).unwrap();
        fs::create_dir_all(dir.path().join("wal")).unwrap();
        for n in 1..=8 {
            fs::write(dir.path().join("wal").join(wal_segment(n)), b"wal").unwrap();
        }
        fs::write(dir.path().join("wal/00000002.history"), b"history").unwrap();

        let dest = Destination::parse(dir.path().to_str().unwrap()).unwrap();
        assert_eq!(prune(&dest, 2).await.unwrap(), 1);
        let kept: Vec<String> = dest
            .archives()
            .await
            .unwrap()
            .into_iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(
            kept,
            vec![
                format!("{PREFIX}20261121T000000.000Z"),
                format!("{PREFIX}20261122T000000.000Z")
            ]
        );
        assert!(
            !dir.path()
                .join(format!("{PREFIX}20261120T000000.000Z"))
                .exists()
        );
        let mut wal: Vec<String> = fs::read_dir(dir.path().join("wal"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        wal.sort();
        let mut expected: Vec<String> = (5..=8).map(wal_segment).collect();
        expected.push("00000002.history".into());
        expected.sort();
        assert_eq!(wal, expected);
        // Keeping more than there are removes nothing.
        assert_eq!(prune(&dest, 10).await.unwrap(), 0);
    }

    #[tokio::test]
    async fn an_object_gone_before_it_is_stored_is_told_from_other_failures() {
        let dir = tempfile::tempdir().unwrap();
        let dest = Destination::parse(dir.path().join("backups").to_str().unwrap()).unwrap();
        let staging = Staging::new(&dir.path().join("staging")).unwrap();
        let missing = dir.path().join("gone");
        for key in [None, Some(Arc::new(Key::new("correct horse").unwrap()))] {
            let sealing = key.is_some();
            let error = store_entry(
                &dest,
                "an-id",
                "files/objects/ab/gone",
                &missing,
                key,
                &staging,
            )
            .await
            .unwrap_err();
            assert!(gone(&error), "sealing {sealing}: {error:#}");
        }
        // Gone from a byte store (S3's objects are fetched first).
        let error = download(&dest.op, "objects/ab/nothing", &dir.path().join("fetched"))
            .await
            .unwrap_err();
        assert!(gone(&error), "{error:#}");
        // Any other failure stops the backup: a folder where a file was.
        let error = store_entry(
            &dest,
            "an-id",
            "files/objects/ab/dir",
            dir.path(),
            None,
            &staging,
        )
        .await
        .unwrap_err();
        assert!(!gone(&error), "{error:#}");
        assert!(!dir.path().join("backups/an-id").exists());

        // A file that is there is stored, sealed, with the sealed bytes'
        // size and digest, and no sealed copy stays behind.
        fs::write(dir.path().join("here"), b"a stored file").unwrap();
        let key = Arc::new(Key::new("correct horse").unwrap());
        let entry = store_entry(
            &dest,
            "an-id",
            "files/objects/ab/here",
            &dir.path().join("here"),
            Some(key.clone()),
            &staging,
        )
        .await
        .unwrap();
        let stored = dir.path().join("backups/an-id/files/objects/ab/here");
        assert_eq!(entry.size, fs::metadata(&stored).unwrap().len());
        assert_eq!(entry.sha256, digest(&stored).unwrap().1);
        let plain = dir.path().join("plain");
        key.decrypt_file(&stored, &plain).unwrap();
        assert_eq!(fs::read(&plain).unwrap(), b"a stored file");
        assert!(!staging.root.join("sealed/files/objects/ab/here").exists());
    }

    #[tokio::test]
    async fn objects_fetched_from_a_store_go_one_at_a_time_and_leave_nothing_staged() {
        let dir = tempfile::tempdir().unwrap();
        let dest = Destination::parse(dir.path().join("backups").to_str().unwrap()).unwrap();
        let staging = Staging::new(&dir.path().join("staging")).unwrap();
        // A store that is not a folder here (as S3 is).
        let store = Operator::new(opendal::services::Memory::default()).unwrap();
        let objects = [
            ("objects/ab/one", &b"first"[..]),
            ("objects/cd/two", &b"second"[..]),
        ];
        for (key, bytes) in objects {
            store.write(key, bytes.to_vec()).await.unwrap();
        }
        let key = Arc::new(Key::new("correct horse").unwrap());
        let mut entries = store_files(&store, None, &dest, "an-id", Some(key.clone()), &staging)
            .await
            .unwrap();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["files/objects/ab/one", "files/objects/cd/two"]);
        for ((key_name, bytes), entry) in objects.iter().zip(&entries) {
            let stored = dir.path().join("backups/an-id").join(&entry.name);
            assert_eq!(entry.sha256, digest(&stored).unwrap().1, "{key_name}");
            let plain = dir.path().join("plain");
            key.decrypt_file(&stored, &plain).unwrap();
            assert_eq!(&fs::read(&plain).unwrap()[..], *bytes, "{key_name}");
        }
        // Nothing fetched or sealed stays in the staging folder.
        let mut left = Vec::new();
        let mut folders = vec![staging.root.clone()];
        while let Some(folder) = folders.pop() {
            for entry in fs::read_dir(&folder).unwrap().flatten() {
                if entry.path().is_dir() {
                    folders.push(entry.path());
                } else {
                    left.push(entry.path());
                }
            }
        }
        assert!(left.is_empty(), "{left:?}");
    }

    /// A finished archive's manifest, made now.
    fn manifest(
        id: &str,
        database: DatabasePart,
        encryption: Option<Encryption>,
        entries: Vec<Entry>,
    ) -> Manifest {
        Manifest {
            format: 1,
            id: id.to_owned(),
            plinth_version: "test".into(),
            started_at: Utc::now(),
            finished_at: Utc::now(),
            database,
            encryption,
            entries,
        }
    }

    /// Writes `manifest` into folder `folder` of `dir` (made, with its
    /// `database/`).
    fn write_manifest(dir: &Path, folder: &str, manifest: &Manifest) {
        let root = dir.join(folder);
        fs::create_dir_all(root.join("database")).unwrap();
        fs::write(root.join(MANIFEST), serde_json::to_vec(manifest).unwrap()).unwrap();
    }

    fn wal_segment(n: u32) -> String {
        format!("00000001000000000000{n:04X}")
    }

    /// Seals `plain` into `to` under `key`.
    fn sealed_file(key: &Key, plain: &[u8], to: &Path) {
        let from = to.with_extension("plain");
        fs::write(&from, plain).unwrap();
        key.encrypt_file(&from, to).unwrap();
        fs::remove_file(&from).unwrap();
    }

    #[tokio::test]
    async fn a_location_holds_one_kind_of_backup_and_refuses_the_other() {
        let dir = tempfile::tempdir().unwrap();
        let dest = Destination::parse(dir.path().to_str().unwrap()).unwrap();
        let key = Key::new("correct horse").unwrap();
        let refusal = |r: anyhow::Result<()>| r.unwrap_err().to_string();
        // An empty location takes either.
        assert_eq!(dest.sealed().await.unwrap(), None);
        dest.check_sealing(None).await.unwrap();
        dest.check_sealing(Some("correct horse")).await.unwrap();

        // An encrypted archive and no log yet: the archive decides.
        let id = format!("{PREFIX}20261201T000000.000Z");
        let sealed = manifest(&id, DatabasePart::Logical, Some(key.describe()), Vec::new());
        write_manifest(dir.path(), &id, &sealed);
        assert_eq!(dest.sealed().await.unwrap(), Some(true));
        let error = refusal(dest.check_sealing(None).await);
        assert!(error.contains("holds encrypted backups"), "{error}");
        assert!(error.contains("PLINTH_BACKUP_PASSPHRASE"), "{error}");
        dest.check_sealing(Some("correct horse")).await.unwrap();

        // The newest log segment decides over the archives: an unsealed one
        // (and one shorter than the mark) ...
        fs::create_dir_all(dir.path().join("wal")).unwrap();
        fs::write(dir.path().join("wal").join(wal_segment(1)), b"wal").unwrap();
        assert_eq!(dest.sealed().await.unwrap(), Some(false));
        let error = refusal(dest.check_sealing(Some("correct horse")).await);
        assert!(error.contains("holds unencrypted backups"), "{error}");
        dest.check_sealing(None).await.unwrap();
        // ... then a sealed one after it.
        sealed_file(&key, b"wal", &dir.path().join("wal").join(wal_segment(2)));
        assert_eq!(dest.sealed().await.unwrap(), Some(true));
        assert!(refusal(dest.check_sealing(None).await).contains("holds encrypted backups"));
    }

    #[tokio::test]
    async fn log_copies_are_sealed_as_the_location_is_or_not_made() {
        let dir = tempfile::tempdir().unwrap();
        let (data, location) = (dir.path().join("data"), dir.path().join("backups"));
        fs::create_dir_all(data.join("wal-archive")).unwrap();
        fs::write(
            data.join("wal-archive").join(wal_segment(3)),
            b"segment three",
        )
        .unwrap();
        fs::create_dir_all(location.join("wal")).unwrap();
        let key = Key::new("correct horse").unwrap();
        sealed_file(&key, b"two", &location.join("wal").join(wal_segment(2)));
        let dest = Destination::parse(location.to_str().unwrap()).unwrap();

        // Without the passphrase, nothing is copied in the clear.
        let error = sync_wal(&data, &dest, None).await.unwrap_err().to_string();
        assert!(error.contains("holds encrypted backups"), "{error}");
        assert!(!location.join("wal").join(wal_segment(3)).exists());
        // A backup without it is refused before it starts.
        let source = Source {
            data_dir: &data,
            cluster: None,
            database_url: None,
            pg_bin_dir: None,
            storage: plinth_storage::Backend::FileSystem {
                root: data.join("storage"),
            },
        };
        let error = backup(&source, &dest, None).await.unwrap_err().to_string();
        assert!(error.contains("holds encrypted backups"), "{error}");
        assert!(dest.archives().await.unwrap().is_empty());

        // With it, the segment goes sealed, and comes back whole.
        assert_eq!(
            sync_wal(&data, &dest, Some("correct horse")).await.unwrap(),
            1
        );
        let stored = location.join("wal").join(wal_segment(3));
        assert_eq!(&fs::read(&stored).unwrap()[..MAGIC.len()], MAGIC);
        let plain = dir.path().join("plain");
        key.decrypt_file(&stored, &plain).unwrap();
        assert_eq!(fs::read(&plain).unwrap(), b"segment three");
        // Nothing new: nothing to copy or check.
        assert_eq!(sync_wal(&data, &dest, None).await.unwrap(), 0);
    }

    /// Writes a finished, unencrypted archive in folder `folder` of `dir`
    /// whose manifest says `id` and lists `names` (the bytes of those that
    /// stay inside the folder are written too).
    fn forged_archive(dir: &Path, folder: &str, id: &str, names: &[&str]) {
        let root = dir.join(folder);
        let mut entries = Vec::new();
        for name in names {
            if !name.contains("..") {
                let path = root.join(name);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, b"planted").unwrap();
            }
            entries.push(Entry {
                name: (*name).to_owned(),
                size: 7,
                sha256: plinth_db::hex(&Sha256::digest(b"planted")),
            });
        }
        write_manifest(
            dir,
            folder,
            &manifest(id, DatabasePart::Logical, None, entries),
        );
    }

    #[tokio::test]
    async fn a_tampered_manifest_cannot_write_or_delete_outside_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let location = dir.path().join("backups");
        let target = dir.path().join("restored");
        let storage = plinth_storage::Backend::FileSystem {
            root: target.join("storage"),
        };
        for name in [
            "secrets/../../../escaped",
            "secrets/authorized_keys",
            "files/../escaped",
            "files/objects/../../escaped",
            "database/../escaped",
        ] {
            let id = format!("{PREFIX}20261201T000000.000Z");
            let _ = fs::remove_dir_all(&location);
            forged_archive(&location, &id, &id, &["database/dump", name]);
            let dest = Destination::parse(location.to_str().unwrap()).unwrap();
            let error = restore(
                &dest,
                &Target {
                    data_dir: &target,
                    pg_bin_dir: None,
                    storage: storage.clone(),
                },
                None,
                None,
            )
            .await
            .unwrap_err()
            .to_string();
            assert!(error.contains("no backup writes"), "{name}: {error}");
            assert!(
                !target.exists(),
                "{name}: the restore wrote before refusing"
            );
            assert!(!dir.path().join("escaped").exists(), "{name}");
        }

        // A manifest whose id is not its folder's name is not an archive:
        // pruning (which removes by id) leaves everything alone.
        let _ = fs::remove_dir_all(&location);
        forged_archive(
            &location,
            &format!("{PREFIX}20261201T000000.000Z"),
            "..",
            &[],
        );
        forged_archive(&location, &format!("{PREFIX}20261202T000000.000Z"), "", &[]);
        fs::write(dir.path().join("precious"), b"keep").unwrap();
        let dest = Destination::parse(location.to_str().unwrap()).unwrap();
        assert!(dest.archives().await.unwrap().is_empty());
        assert_eq!(prune(&dest, 1).await.unwrap(), 0);
        assert!(dir.path().join("precious").exists());
        assert_eq!(fs::read_dir(&location).unwrap().count(), 2);
    }

    #[test]
    fn log_names_are_segments_or_histories() {
        for good in [
            "000000010000000000000003",
            "000000010000000000000003.partial",
            "000000010000000000000003.00000028.backup",
            "00000002.history",
        ] {
            assert!(wal_name_allowed(good), "{good}");
        }
        for bad in [
            "../000000010000000000000003",
            "sub/00000002.history",
            "passwd",
            "",
            "..",
        ] {
            assert!(!wal_name_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn schedules_are_intervals_of_five_minutes_or_more() {
        assert_eq!(parse_schedule("30m").unwrap(), Duration::from_secs(1800));
        assert_eq!(parse_schedule("6h").unwrap(), Duration::from_secs(21_600));
        assert_eq!(parse_schedule("1d").unwrap(), Duration::from_secs(86_400));
        assert_eq!(
            parse_schedule("@daily").unwrap(),
            Duration::from_secs(86_400)
        );
        for bad in ["", "1m", "0h", "h", "5x", "-1d", "1.5h"] {
            assert!(parse_schedule(bad).is_err(), "{bad}");
        }
    }
}

/// What `plinth serve` backs up on its own (`PLINTH_BACKUP_TO`).
pub struct Scheduled {
    pub dest: Destination,
    pub data_dir: PathBuf,
    pub cluster: Option<plinth_db::cluster::BaseBackups>,
    pub database_url: Option<String>,
    pub pg_bin_dir: Option<PathBuf>,
    pub storage: plinth_storage::Backend,
    pub passphrase: Option<String>,
    /// `None`: only the log is copied (backups are taken by `plinth backup`).
    pub every: Option<Duration>,
    pub keep: usize,
    /// How often the log is copied and a backup's time looked at
    /// ([`WAL_SYNC_EVERY`]).
    pub tick: Duration,
}

/// How often archived log segments are copied to the destination.
pub const WAL_SYNC_EVERY: Duration = Duration::from_secs(60);

/// Runs until the node stops: copies the archived log every `tick` (a
/// minute) and takes a backup (then prunes) every `every`.
pub async fn run_scheduled(plan: Scheduled) {
    let mut next_backup = plan.every.map(|every| tokio::time::Instant::now() + every);
    loop {
        tokio::time::sleep(plan.tick).await;
        if next_backup.is_some_and(|at| tokio::time::Instant::now() >= at) {
            let source = Source {
                data_dir: &plan.data_dir,
                cluster: plan.cluster.clone(),
                database_url: plan.database_url.as_deref(),
                pg_bin_dir: plan.pg_bin_dir.as_deref(),
                storage: plan.storage.clone(),
            };
            match backup(&source, &plan.dest, plan.passphrase.as_deref()).await {
                Ok(id) => {
                    tracing::info!(%id, to = %plan.dest.description, "scheduled backup taken");
                    if let Err(e) = prune(&plan.dest, plan.keep).await {
                        tracing::warn!("pruning old backups: {e:#}");
                    }
                }
                Err(e) => tracing::error!("scheduled backup failed: {e:#}"),
            }
            next_backup = plan.every.map(|every| tokio::time::Instant::now() + every);
        } else if plan.cluster.is_some()
            && let Err(e) = sync_wal(&plan.data_dir, &plan.dest, plan.passphrase.as_deref()).await
        {
            tracing::warn!("copying the archived write-ahead log: {e:#}");
        }
    }
}
