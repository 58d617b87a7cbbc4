//! The embedded default: a private PostgreSQL cluster inside the data folder.
//!
//! `plinth serve` with no `DATABASE_URL` runs the machine's own PostgreSQL
//! binaries (found on `PATH` or under `/usr/lib/postgresql/*/bin`) on
//! `<data>/postgres`, listening on a unix socket in `<data>/run` and on a free
//! loopback port. PostgreSQL refuses to run as root; when Plinth runs as root
//! the cluster runs as the unprivileged system user `postgres` (created when
//! missing) and its folders belong to that user.
//!
//! The server process is a child of Plinth, in a process group of its own (so
//! a Ctrl-C in the terminal reaches Plinth, which drains its requests first and
//! then stops the cluster) and with a parent-death signal (so it never outlives
//! a Plinth that was killed outright).
//!
//! Plinth watches the server it started. When it dies (killed, out of memory),
//! a thread of its own starts it again on the same port and socket, and
//! PostgreSQL's crash recovery replays its write-ahead log, so nothing
//! committed is lost; meanwhile requests get 503 and `/health` reports the
//! database down. When it cannot be started again ([`RESTART_ATTEMPTS`] in a
//! row fail), [`Cluster::gave_up`] resolves and `plinth serve` exits non-zero
//! with the server log's last lines, for a supervisor (systemd, Docker's
//! restart policy) to take over.

use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::{Gid, Pid, Uid, User, chown};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use tokio::process::Child;
use tokio::sync::{oneshot, watch};

/// `max_connections` of the embedded cluster: a node's two request pools at
/// their largest default size (4 per core, at most 64 each), its owner pool
/// (10), and room for listeners, `plinth seed`/`migrate` and an operator's
/// psql. PostgreSQL's own default (100) is too few from 12 cores on.
pub const MAX_CONNECTIONS: u32 = 200;

/// The database every connection of the embedded cluster uses.
pub const DATABASE: &str = "postgres";
/// The cluster's superuser.
pub const SUPERUSER: &str = "postgres";
/// The unprivileged system user that runs the cluster when Plinth is root.
pub const SYSTEM_USER: &str = "postgres";

/// Failed starts in a row after which a server that died is given up on.
pub const RESTART_ATTEMPTS: u32 = 8;

const INSTALL_HINT: &str = "install them with `apt-get install -y postgresql` \
    (Debian/Ubuntu), or set DATABASE_URL to use a PostgreSQL server you already have";

/// Why the embedded cluster could not be set up, started or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error(
        "no PostgreSQL server binaries found (looked for initdb and postgres in {searched}); {INSTALL_HINT}"
    )]
    NoBinaries { searched: String },
    #[error(
        "the data folder {pgdata} holds a PostgreSQL {found} cluster, but this machine has \
         PostgreSQL {available} binaries; install PostgreSQL {found} (`apt-get install -y \
         postgresql-{found}`), upgrade the cluster with pg_upgrade, or move the folder away \
         to start afresh"
    )]
    VersionMismatch {
        pgdata: PathBuf,
        found: String,
        available: String,
    },
    #[error(
        "the PostgreSQL cluster runs as the system user `{user}`, which cannot reach {path}; \
         choose a data folder it can reach with --data-dir (for example under /var/lib), or \
         let it through with `chmod o+x` on the folders above it"
    )]
    Unreachable { user: String, path: PathBuf },
    #[error(
        "cannot create the system user `{user}` to run PostgreSQL (PostgreSQL refuses to run as root): {reason}"
    )]
    SystemUser { user: String, reason: String },
    #[error("{action} failed: {detail}")]
    Command { action: String, detail: String },
    #[error("cannot prepare {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the PostgreSQL server did not become ready within {seconds} s; its log ({log}) ends with:\n{tail}"
    )]
    NotReady {
        seconds: u64,
        log: PathBuf,
        tail: String,
    },
    #[error("the PostgreSQL server stopped during start-up; its log ({log}) ends with:\n{tail}")]
    Exited { log: PathBuf, tail: String },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ClusterError + '_ {
    move |source| ClusterError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A folder of PostgreSQL server binaries and the major version they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binaries {
    pub dir: PathBuf,
    pub major: String,
}

impl Binaries {
    /// The path of one of the binaries (`pg_dump`, `psql`, ...).
    pub fn tool(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

/// The folders searched for binaries: an explicit one alone when given;
/// otherwise each `PATH` entry, then `<root>/*/bin` for each root (newest
/// version first).
pub fn candidate_dirs(explicit: Option<&Path>, path_var: &str, roots: &[&Path]) -> Vec<PathBuf> {
    if let Some(dir) = explicit {
        return vec![dir.to_owned()];
    }
    let mut dirs: Vec<PathBuf> = std::env::split_paths(path_var).collect();
    for root in roots {
        let mut versions: Vec<(u32, PathBuf)> = fs::read_dir(root)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| {
                let major = e.file_name().to_str()?.parse::<u32>().ok()?;
                Some((major, e.path().join("bin")))
            })
            .collect();
        versions.sort_by_key(|(major, _)| std::cmp::Reverse(*major));
        dirs.extend(versions.into_iter().map(|(_, dir)| dir));
    }
    dirs
}

/// Finds server binaries among `dirs`: the first folder with both `initdb`
/// and `postgres`, preferring one of major version `want` (the version an
/// existing cluster was made with) when there is one.
pub fn find_binaries(dirs: &[PathBuf], want: Option<&str>) -> Result<Binaries, ClusterError> {
    let mut found: Vec<Binaries> = Vec::new();
    for dir in dirs {
        let initdb = dir.join("initdb");
        if !is_executable(&initdb) || !is_executable(&dir.join("postgres")) {
            continue;
        }
        // `/usr/local/bin/initdb` is often a link into the versioned folder,
        // where `postgres` and the rest live; use that folder.
        let real_dir = fs::canonicalize(&initdb)
            .ok()
            .and_then(|p| p.parent().map(Path::to_owned))
            .filter(|d| is_executable(&d.join("postgres")))
            .unwrap_or_else(|| dir.clone());
        let Some(major) = server_major_version(&real_dir.join("postgres")) else {
            continue;
        };
        let binaries = Binaries {
            dir: real_dir,
            major,
        };
        if want.is_none_or(|w| w == binaries.major) {
            return Ok(binaries);
        }
        if !found.contains(&binaries) {
            found.push(binaries);
        }
    }
    match (found.into_iter().next(), want) {
        (Some(other), Some(_)) => Ok(other), // the caller reports the mismatch
        _ => Err(ClusterError::NoBinaries {
            searched: describe_dirs(dirs),
        }),
    }
}

fn describe_dirs(dirs: &[PathBuf]) -> String {
    if dirs.is_empty() {
        return "no folder at all".into();
    }
    let shown: Vec<String> = dirs
        .iter()
        .take(6)
        .map(|d| d.display().to_string())
        .collect();
    let more = dirs.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)` -> `15`.
fn server_major_version(postgres: &Path) -> Option<String> {
    let out = std::process::Command::new(postgres)
        .arg("--version")
        .output()
        .ok()?;
    parse_major_version(&String::from_utf8_lossy(&out.stdout))
}

fn parse_major_version(version_line: &str) -> Option<String> {
    let after = version_line.split(')').nth(1)?.trim_start();
    let major: String = after.chars().take_while(|c| c.is_ascii_digit()).collect();
    (!major.is_empty()).then_some(major)
}

/// Who the cluster's processes run as.
#[derive(Debug, Clone)]
struct RunAs {
    /// `None`: as Plinth itself (not root).
    user: Option<(String, Uid, Gid)>,
}

impl RunAs {
    fn decide() -> Result<Self, ClusterError> {
        if !Uid::effective().is_root() {
            return Ok(Self { user: None });
        }
        let user = match User::from_name(SYSTEM_USER) {
            Ok(Some(user)) => user,
            _ => {
                create_system_user(SYSTEM_USER)?;
                User::from_name(SYSTEM_USER).ok().flatten().ok_or_else(|| {
                    ClusterError::SystemUser {
                        user: SYSTEM_USER.into(),
                        reason: "it is still missing after useradd".into(),
                    }
                })?
            }
        };
        Ok(Self {
            user: Some((user.name, user.uid, user.gid)),
        })
    }

    fn command(&self, program: &Path) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(program);
        if let Some((name, uid, gid)) = &self.user {
            cmd.uid(uid.as_raw()).gid(gid.as_raw());
            cmd.env("USER", name).env("LOGNAME", name).env("HOME", "/");
        }
        cmd.env_remove("PGDATA")
            .env_remove("PGPORT")
            .env_remove("PGHOST");
        cmd
    }

    /// Makes `path` (a folder Plinth just created) belong to the cluster's user.
    fn own(&self, path: &Path) -> Result<(), ClusterError> {
        if let Some((_, uid, gid)) = &self.user {
            chown(path, Some(*uid), Some(*gid)).map_err(|e| ClusterError::Io {
                path: path.to_owned(),
                source: e.into(),
            })?;
        }
        Ok(())
    }

    /// Whether the cluster's user can enter and write `dir`.
    async fn can_use(&self, dir: &Path) -> bool {
        if self.user.is_none() {
            return true;
        }
        self.command(Path::new("/bin/sh"))
            .arg("-c")
            .arg("test -d \"$1\" -a -x \"$1\" -a -w \"$1\"")
            .arg("sh")
            .arg(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await
            .is_ok_and(|s| s.success())
    }

    fn name(&self) -> String {
        match &self.user {
            Some((name, _, _)) => name.clone(),
            None => "the current user".into(),
        }
    }
}

fn create_system_user(name: &str) -> Result<(), ClusterError> {
    let result = std::process::Command::new("useradd")
        .args(["--system", "--no-create-home", "--home-dir", "/nonexistent"])
        .args(["--shell", "/usr/sbin/nologin", "--user-group", name])
        .output();
    match result {
        Ok(out) if out.status.success() => {
            tracing::info!(user = name, "created the system user that runs PostgreSQL");
            Ok(())
        }
        Ok(out) => Err(ClusterError::SystemUser {
            user: name.into(),
            reason: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        }),
        Err(e) => Err(ClusterError::SystemUser {
            user: name.into(),
            reason: format!("useradd: {e}"),
        }),
    }
}

/// Where the cluster lives inside a data folder.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The cluster itself (`PGDATA`).
    pub pgdata: PathBuf,
    /// Folder of the unix socket.
    pub socket_dir: PathBuf,
    /// The server's log.
    pub log: PathBuf,
    /// Where the server archives its write-ahead log when this folder exists
    /// (`plinth serve` with `PLINTH_BACKUP_TO` creates it): point-in-time
    /// recovery replays it over a base backup.
    pub wal_archive: PathBuf,
    /// The superuser's password for TCP logins, written when the cluster is
    /// made (readable by the data folder's owner only).
    pub password: PathBuf,
}

impl Layout {
    pub fn new(data_dir: &Path) -> Self {
        let socket_dir = data_dir.join("run");
        // A unix socket path is limited to 107 bytes; a deep data folder gets
        // its socket in the temporary folder instead.
        let socket_path_len = socket_dir.as_os_str().len() + "/.s.PGSQL.65535".len();
        let socket_dir = if socket_path_len < 100 {
            socket_dir
        } else {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            data_dir.hash(&mut hasher);
            std::env::temp_dir().join(format!("plinth-{:016x}", hasher.finish()))
        };
        Self {
            pgdata: data_dir.join("postgres"),
            socket_dir,
            log: data_dir.join("postgres.log"),
            wal_archive: data_dir.join("wal-archive"),
            password: data_dir.join("postgres-password"),
        }
    }
}

/// A running embedded cluster.
#[derive(Debug)]
pub struct Cluster {
    layout: Layout,
    port: u16,
    /// The watcher of the server process, when this Plinth started it (`None`
    /// when it adopted a server another Plinth on the same data folder had
    /// started).
    watcher: Option<Watcher>,
    binaries: Binaries,
}

impl Cluster {
    /// Creates the cluster on first use, starts it (or adopts one already
    /// running on this data folder) and waits until it accepts connections.
    ///
    /// Call it from the thread that will live as long as the cluster (the
    /// main thread): the parent-death signal is tied to that thread.
    pub async fn start(data_dir: &Path, bin_dir: Option<&Path>) -> Result<Self, ClusterError> {
        let path_var = std::env::var("PATH").unwrap_or_default();
        let dirs = candidate_dirs(bin_dir, &path_var, &[Path::new("/usr/lib/postgresql")]);
        Self::start_with(data_dir, &dirs).await
    }

    /// The server binaries `plinth` uses: those of `bin_dir`, else found on
    /// `PATH` or under `/usr/lib/postgresql` (newest first).
    pub fn binaries(bin_dir: Option<&Path>) -> Result<Binaries, ClusterError> {
        let path_var = std::env::var("PATH").unwrap_or_default();
        let dirs = candidate_dirs(bin_dir, &path_var, &[Path::new("/usr/lib/postgresql")]);
        find_binaries(&dirs, None)
    }

    /// [`Cluster::start`] with the binary folders to search given.
    pub async fn start_with(data_dir: &Path, bin_dirs: &[PathBuf]) -> Result<Self, ClusterError> {
        let layout = Layout::new(data_dir);
        let existing_version = fs::read_to_string(layout.pgdata.join("PG_VERSION"))
            .ok()
            .map(|v| v.trim().to_owned());
        let binaries = find_binaries(bin_dirs, existing_version.as_deref())?;
        if let Some(found) = existing_version
            && found != binaries.major
        {
            return Err(ClusterError::VersionMismatch {
                pgdata: layout.pgdata.clone(),
                found,
                available: binaries.major,
            });
        }

        let run_as = RunAs::decide()?;
        fs::create_dir_all(data_dir).map_err(io_error(data_dir))?;
        for dir in [&layout.pgdata, &layout.socket_dir] {
            if !dir.exists() {
                fs::create_dir_all(dir).map_err(io_error(dir))?;
                fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
                    .map_err(io_error(dir))?;
                run_as.own(dir)?;
            }
            if !run_as.can_use(dir).await {
                return Err(ClusterError::Unreachable {
                    user: run_as.name(),
                    path: fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()),
                });
            }
        }

        if let Some(cluster) = Self::adopt(&layout, &binaries).await {
            return Ok(cluster);
        }
        if !layout.pgdata.join("PG_VERSION").exists() {
            init(&layout, &binaries, &run_as).await?;
        }

        let port = free_loopback_port().map_err(io_error(Path::new("127.0.0.1")))?;
        let server = Server {
            layout: layout.clone(),
            binaries: binaries.clone(),
            run_as,
            port,
        };
        let mut child = server.spawn()?;
        if let Err(e) = server.until_ready(&mut child, Some(READY_LIMIT)).await {
            stop_child(child).await;
            return Err(e);
        }
        let cluster = Self {
            layout,
            port,
            watcher: Some(Watcher::start(server, child)?),
            binaries,
        };
        tracing::info!(
            pgdata = %cluster.layout.pgdata.display(),
            port,
            version = %cluster.binaries.major,
            "embedded PostgreSQL is running"
        );
        Ok(cluster)
    }

    /// A server already running on this data folder (another Plinth node on
    /// the same folder, or one left over): use it instead of starting another.
    async fn adopt(layout: &Layout, binaries: &Binaries) -> Option<Self> {
        let pid_file = fs::read_to_string(layout.pgdata.join("postmaster.pid")).ok()?;
        let lines: Vec<&str> = pid_file.lines().collect();
        let pid: i32 = lines.first()?.trim().parse().ok()?;
        let port: u16 = lines.get(3)?.trim().parse().ok()?;
        let socket_dir = PathBuf::from(lines.get(4)?.trim());
        if !process_exists(pid) {
            return None;
        }
        let cluster = Self {
            layout: Layout {
                socket_dir,
                ..layout.clone()
            },
            port,
            watcher: None,
            binaries: binaries.clone(),
        };
        PgConnection::connect_with(&cluster.connect_options(SUPERUSER))
            .await
            .ok()?
            .close()
            .await
            .ok()?;
        tracing::info!(
            pid,
            port,
            "using the PostgreSQL server already running on this data folder"
        );
        Some(cluster)
    }

    /// Connection options for `user` over the unix socket (trusted: only the
    /// cluster's user and root can enter the socket folder).
    pub fn connect_options(&self, user: &str) -> PgConnectOptions {
        socket_options(&self.layout.socket_dir, self.port, user)
    }

    /// The loopback TCP port the server also listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The superuser's password for logins over the loopback TCP port
    /// (`None` when the file is gone or unreadable).
    pub fn superuser_password(&self) -> Option<String> {
        let password = fs::read_to_string(&self.layout.password).ok()?;
        Some(password.trim().to_owned()).filter(|p| !p.is_empty())
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The server's process id, when this Plinth started it and it is
    /// running (`None` while it is being started again).
    pub fn pid(&self) -> Option<u32> {
        let pid = self.watcher.as_ref()?.pid.load(Ordering::Relaxed);
        (pid != 0).then_some(pid)
    }

    /// Resolves, with the reason, when the server died and could not be
    /// started again; never when this Plinth did not start it.
    pub fn gave_up(&self) -> impl Future<Output = String> + Send + 'static {
        let gave_up = self.watcher.as_ref().map(|w| w.gave_up.clone());
        async move {
            let Some(mut gave_up) = gave_up else {
                return std::future::pending().await;
            };
            let reason = match gave_up.wait_for(Option::is_some).await {
                Ok(reason) => reason.clone(),
                // The watcher has stopped: the cluster was stopped on purpose.
                Err(_) => None,
            };
            match reason {
                Some(reason) => reason,
                None => std::future::pending().await,
            }
        }
    }

    /// Why the server was given up on, once it was.
    pub fn failure(&self) -> Option<String> {
        self.watcher.as_ref()?.gave_up.borrow().clone()
    }

    /// Stops the server if this Plinth started it: a fast shutdown (open
    /// sessions are ended, everything written is kept), then an immediate one
    /// if it has not finished within 30 s. Prompt whatever state the server
    /// is in (dead, or being started again).
    pub async fn stop(&mut self) -> Result<(), ClusterError> {
        let Some(watcher) = self.watcher.take() else {
            return Ok(());
        };
        let _ = watcher.stop.send(());
        let _ = watcher.stopped.await;
        Ok(())
    }
}

fn socket_options(socket_dir: &Path, port: u16, user: &str) -> PgConnectOptions {
    PgConnectOptions::new()
        .socket(socket_dir)
        .port(port)
        .username(user)
        .database(DATABASE)
        .application_name("plinth")
}

impl Cluster {
    /// Creates the WAL archive folder of `data_dir` (owned by the cluster's
    /// user), so that the server archives its write-ahead log from its next
    /// start on.
    pub fn enable_wal_archive(data_dir: &Path) -> Result<(), ClusterError> {
        let dir = Layout::new(data_dir).wal_archive;
        if dir.to_string_lossy().contains('\'') {
            return Err(ClusterError::Command {
                action: "archiving the write-ahead log".into(),
                detail: format!(
                    "{} contains a quote; choose another data folder",
                    dir.display()
                ),
            });
        }
        if !dir.is_dir() {
            fs::create_dir_all(&dir).map_err(io_error(&dir))?;
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).map_err(io_error(&dir))?;
            RunAs::decide()?.own(&dir)?;
        }
        Ok(())
    }

    /// What it takes to back the running server up, for a task of its own.
    pub fn base_backups(&self) -> BaseBackups {
        BaseBackups {
            options: self.connect_options(SUPERUSER),
            socket_dir: self.layout.socket_dir.clone(),
            port: self.port,
            tool: self.binaries.tool("pg_basebackup"),
        }
    }
}

/// Takes base backups of an embedded cluster; cheap to clone.
#[derive(Debug, Clone)]
pub struct BaseBackups {
    options: PgConnectOptions,
    socket_dir: PathBuf,
    port: u16,
    tool: PathBuf,
}

impl BaseBackups {
    /// A base backup of the running server as one tar file (`base.tar`,
    /// holding the write-ahead log it needs) in `out`, which must exist and
    /// be empty. Returns the name of the WAL segment the backup starts in:
    /// recovery over this backup needs no archived segment older than it.
    pub async fn take(&self, out: &Path) -> Result<String, ClusterError> {
        let mut conn = PgConnection::connect_with(&self.options)
            .await
            .map_err(|e| ClusterError::Command {
                action: "connecting for a base backup".into(),
                detail: e.to_string(),
            })?;
        let start: String = sqlx::query_scalar("select pg_walfile_name(pg_current_wal_lsn())")
            .fetch_one(&mut conn)
            .await
            .map_err(|e| ClusterError::Command {
                action: "reading the current WAL segment".into(),
                detail: e.to_string(),
            })?;
        let _ = conn.close().await;
        let out_text = tokio::process::Command::new(&self.tool)
            .arg("--host")
            .arg(&self.socket_dir)
            .arg("--port")
            .arg(self.port.to_string())
            .args([
                "--username",
                SUPERUSER,
                "--format",
                "tar",
                "--wal-method",
                "fetch",
            ])
            .args(["--checkpoint", "fast", "--no-manifest", "--pgdata"])
            .arg(out)
            .env_remove("PGDATA")
            .stdin(Stdio::null())
            .output()
            .await
            .map_err(|e| ClusterError::Command {
                action: "running pg_basebackup".into(),
                detail: e.to_string(),
            })?;
        if !out_text.status.success() {
            return Err(ClusterError::Command {
                action: "pg_basebackup".into(),
                detail: String::from_utf8_lossy(&out_text.stderr).trim().to_owned(),
            });
        }
        Ok(start)
    }
}

impl Cluster {
    /// Lays a base backup (`base.tar` from [`Cluster::base_backup`]) down as
    /// the cluster of the new data folder `data_dir`, to recover at its next
    /// start: from the archived segments in `wal` (readable by the cluster's
    /// user) up to `until` (a PostgreSQL timestamp), then to go on as a
    /// primary. Without `wal`, it recovers to the end of the backup.
    pub async fn prepare_recovery(
        data_dir: &Path,
        base_tar: &Path,
        wal: Option<&Path>,
        until: Option<&str>,
    ) -> Result<(), ClusterError> {
        let layout = Layout::new(data_dir);
        let run_as = RunAs::decide()?;
        fs::create_dir_all(data_dir).map_err(io_error(data_dir))?;
        for dir in [&layout.pgdata, &layout.socket_dir] {
            fs::create_dir_all(dir).map_err(io_error(dir))?;
            fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(io_error(dir))?;
            run_as.own(dir)?;
        }
        let out = run_as
            .command(Path::new("tar"))
            .arg("-xf")
            .arg(base_tar)
            .arg("-C")
            .arg(&layout.pgdata)
            .stdin(Stdio::null())
            .output()
            .await
            .map_err(|e| ClusterError::Command {
                action: "unpacking the base backup".into(),
                detail: e.to_string(),
            })?;
        if !out.status.success() {
            return Err(ClusterError::Command {
                action: "unpacking the base backup".into(),
                detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            });
        }
        let Some(wal) = wal else {
            return Ok(());
        };
        // The path is quoted into a setting and a shell command.
        if wal.to_string_lossy().contains(['\'', '"']) {
            return Err(ClusterError::Command {
                action: "preparing recovery".into(),
                detail: format!(
                    "{} contains a quote; choose another data folder",
                    wal.display()
                ),
            });
        }
        let mut settings = format!(
            "\n# written by plinth restore\nrestore_command = 'cp \"{}/%f\" \"%p\"'\n",
            wal.display()
        );
        if let Some(until) = until {
            settings.push_str(&format!(
                "recovery_target_time = '{until}'\nrecovery_target_action = 'promote'\n"
            ));
        }
        let auto = layout.pgdata.join("postgresql.auto.conf");
        let mut text = fs::read_to_string(&auto).unwrap_or_default();
        text.push_str(&settings);
        fs::write(&auto, text).map_err(io_error(&auto))?;
        let signal = layout.pgdata.join("recovery.signal");
        fs::write(&signal, "").map_err(io_error(&signal))?;
        for file in [&auto, &signal] {
            run_as.own(file)?;
        }
        Ok(())
    }

    /// Waits until the server has finished recovering and accepts writes.
    pub async fn wait_recovered(&self, limit: Duration) -> Result<(), ClusterError> {
        let started = Instant::now();
        loop {
            if let Ok(mut conn) = PgConnection::connect_with(&self.connect_options(SUPERUSER)).await
            {
                let recovering: Option<bool> = sqlx::query_scalar("select pg_is_in_recovery()")
                    .fetch_one(&mut conn)
                    .await
                    .ok();
                let _ = conn.close().await;
                if recovering == Some(false) {
                    return Ok(());
                }
            }
            if started.elapsed() > limit {
                return Err(ClusterError::NotReady {
                    seconds: limit.as_secs(),
                    log: self.layout.log.clone(),
                    tail: log_tail(&self.layout.log),
                });
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// How long a server just started may take to accept connections.
const READY_LIMIT: Duration = Duration::from_secs(60);

/// What it takes to start the server (again).
#[derive(Debug, Clone)]
struct Server {
    layout: Layout,
    binaries: Binaries,
    run_as: RunAs,
    port: u16,
}

impl Server {
    fn spawn(&self) -> Result<Child, ClusterError> {
        spawn_server(&self.layout, &self.binaries, &self.run_as, self.port)
    }

    fn options(&self) -> PgConnectOptions {
        socket_options(&self.layout.socket_dir, self.port, SUPERUSER)
    }

    /// Waits until `child` accepts connections: an error when it exits first,
    /// or when `limit` passes (no limit: crash recovery takes what it takes).
    async fn until_ready(
        &self,
        child: &mut Child,
        limit: Option<Duration>,
    ) -> Result<(), ClusterError> {
        let started = Instant::now();
        loop {
            if let Ok(Some(_)) = child.try_wait() {
                return Err(ClusterError::Exited {
                    log: self.layout.log.clone(),
                    tail: log_tail(&self.layout.log),
                });
            }
            if let Ok(conn) = PgConnection::connect_with(&self.options()).await {
                let _ = conn.close().await;
                return Ok(());
            }
            if let Some(limit) = limit
                && started.elapsed() > limit
            {
                return Err(ClusterError::NotReady {
                    seconds: limit.as_secs(),
                    log: self.layout.log.clone(),
                    tail: log_tail(&self.layout.log),
                });
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// The thread that watches the server process, restarts it when it dies and
/// stops it when asked.
#[derive(Debug)]
struct Watcher {
    stop: oneshot::Sender<()>,
    stopped: oneshot::Receiver<()>,
    /// The running server's process id; 0 while it is being started again.
    pid: Arc<AtomicU32>,
    gave_up: watch::Receiver<Option<String>>,
}

impl Watcher {
    /// Hands `child` to a thread of its own. Servers started again are forked
    /// from that thread, which lives until the server is stopped: their
    /// parent-death signal is tied to it.
    fn start(server: Server, child: Child) -> Result<Self, ClusterError> {
        let (stop, stop_rx) = oneshot::channel();
        let (stopped_tx, stopped) = oneshot::channel();
        let pid = Arc::new(AtomicU32::new(child.id().unwrap_or(0)));
        let (gave_up_tx, gave_up) = watch::channel(None);
        let runtime = tokio::runtime::Handle::current();
        let watching = WatchLoop {
            server,
            pid: pid.clone(),
            gave_up: gave_up_tx,
        };
        let started_pid = pid.load(Ordering::Relaxed);
        let spawned = std::thread::Builder::new()
            .name("plinth-postgres".into())
            .spawn(move || {
                runtime.block_on(watching.run(child, stop_rx));
                let _ = stopped_tx.send(());
            });
        if let Err(e) = spawned {
            // The child went down with the closure, unwatched: stop it.
            if let Ok(raw) = i32::try_from(started_pid)
                && raw > 0
            {
                let _ = kill(Pid::from_raw(raw), Signal::SIGINT);
            }
            return Err(ClusterError::Command {
                action: "starting the thread that watches PostgreSQL".into(),
                detail: e.to_string(),
            });
        }
        Ok(Self {
            stop,
            stopped,
            pid,
            gave_up,
        })
    }
}

struct WatchLoop {
    server: Server,
    pid: Arc<AtomicU32>,
    gave_up: watch::Sender<Option<String>>,
}

impl WatchLoop {
    async fn run(self, mut child: Child, mut stop: oneshot::Receiver<()>) {
        loop {
            let status = tokio::select! {
                _ = &mut stop => {
                    stop_child(child).await;
                    return;
                }
                status = child.wait() => status,
            };
            self.pid.store(0, Ordering::Relaxed);
            tracing::error!(
                status = %status.map_or_else(|e| e.to_string(), |s| s.to_string()),
                log = %self.server.layout.log.display(),
                "embedded PostgreSQL exited; starting it again (crash recovery keeps what was committed)"
            );
            match self.start_again(&mut stop).await {
                Some(again) => child = again,
                None => return,
            }
        }
    }

    /// Starts the server again, backing off between failed starts. `None`
    /// when asked to stop meanwhile, or after giving up (then it waits for
    /// the stop).
    async fn start_again(&self, stop: &mut oneshot::Receiver<()>) -> Option<Child> {
        let mut last_error = String::new();
        for attempt in 0..RESTART_ATTEMPTS {
            // Orphaned backends of the dead server hold its shared memory for
            // a moment; the first retries come quickly.
            let pause = Duration::from_millis(250 << attempt.min(3));
            tokio::select! {
                _ = &mut *stop => return None,
                _ = tokio::time::sleep(if attempt == 0 { Duration::ZERO } else { pause }) => {}
            }
            let mut child = match self.server.spawn() {
                Ok(child) => child,
                Err(e) => {
                    last_error = e.to_string();
                    continue;
                }
            };
            self.pid.store(child.id().unwrap_or(0), Ordering::Relaxed);
            let ready = tokio::select! {
                _ = &mut *stop => {
                    stop_child(child).await;
                    return None;
                }
                ready = self.server.until_ready(&mut child, None) => ready,
            };
            match ready {
                Ok(()) => {
                    tracing::info!(
                        attempt = attempt + 1,
                        "embedded PostgreSQL is running again"
                    );
                    return Some(child);
                }
                Err(e) => {
                    self.pid.store(0, Ordering::Relaxed);
                    tracing::warn!(
                        attempt = attempt + 1,
                        "embedded PostgreSQL did not start again: {e}"
                    );
                    last_error = e.to_string();
                    stop_child(child).await;
                }
            }
        }
        let reason = format!(
            "the embedded PostgreSQL server died and did not start again in {RESTART_ATTEMPTS} attempts: {last_error}"
        );
        tracing::error!("{reason}");
        let _ = self.gave_up.send(Some(reason));
        let _ = stop.await;
        None
    }
}

/// A fast shutdown of `child` (open sessions are ended, everything written is
/// kept), then an immediate one if it has not finished within 30 s.
async fn stop_child(mut child: Child) {
    let Some(pid) = child.id() else {
        return; // already reaped
    };
    let pid = Pid::from_raw(pid as i32);
    let _ = kill(pid, Signal::SIGINT);
    match tokio::time::timeout(Duration::from_secs(30), child.wait()).await {
        Ok(_) => tracing::info!("embedded PostgreSQL stopped"),
        Err(_) => {
            tracing::warn!("PostgreSQL did not stop in 30 s; stopping it immediately");
            let _ = kill(pid, Signal::SIGQUIT);
            let _ = child.wait().await;
        }
    }
}

async fn init(layout: &Layout, binaries: &Binaries, run_as: &RunAs) -> Result<(), ClusterError> {
    tracing::info!(pgdata = %layout.pgdata.display(), "creating the embedded PostgreSQL cluster");
    // Local (socket) connections are trusted: only root and the cluster's user
    // can enter the socket folder. TCP connections need the superuser's
    // password, generated here and kept beside the cluster for operators.
    let password = crate::random_token(32);
    let pwfile = layout.socket_dir.join("initdb.pw");
    fs::write(&pwfile, &password).map_err(io_error(&pwfile))?;
    fs::set_permissions(&pwfile, fs::Permissions::from_mode(0o600)).map_err(io_error(&pwfile))?;
    run_as.own(&pwfile)?;
    let out = run_as
        .command(&binaries.tool("initdb"))
        .arg("--pgdata")
        .arg(&layout.pgdata)
        .args([
            "--username",
            SUPERUSER,
            "--encoding",
            "UTF8",
            "--locale",
            "C",
        ])
        .args(["--auth-local", "trust", "--auth-host", "scram-sha-256"])
        .arg("--pwfile")
        .arg(&pwfile)
        .stdin(Stdio::null())
        .output()
        .await;
    let _ = fs::remove_file(&pwfile);
    let out = out.map_err(|e| ClusterError::Command {
        action: "running initdb".into(),
        detail: e.to_string(),
    })?;
    if !out.status.success() {
        return Err(ClusterError::Command {
            action: "initdb".into(),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        });
    }
    let secret = &layout.password;
    fs::write(secret, &password).map_err(io_error(secret))?;
    fs::set_permissions(secret, fs::Permissions::from_mode(0o600)).map_err(io_error(secret))?;
    Ok(())
}

#[allow(unsafe_code)]
fn spawn_server(
    layout: &Layout,
    binaries: &Binaries,
    run_as: &RunAs,
    port: u16,
) -> Result<tokio::process::Child, ClusterError> {
    let log = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&layout.log)
        .map_err(io_error(&layout.log))?;
    let log_err = log.try_clone().map_err(io_error(&layout.log))?;
    let mut cmd = run_as.command(&binaries.tool("postgres"));
    cmd.arg("-D")
        .arg(&layout.pgdata)
        .arg("-c")
        .arg(format!("port={port}"))
        .arg("-c")
        .arg("listen_addresses=127.0.0.1")
        .arg("-c")
        .arg(format!(
            "unix_socket_directories={}",
            layout.socket_dir.display()
        ))
        .arg("-c")
        .arg("unix_socket_permissions=0700")
        .arg("-c")
        .arg(format!("max_connections={MAX_CONNECTIONS}"));
    let quotable = !layout.wal_archive.to_string_lossy().contains('\'');
    if layout.wal_archive.is_dir() && quotable {
        // A segment already archived is not copied again (nor overwritten).
        let dir = layout.wal_archive.display();
        cmd.args(["-c", "archive_mode=on", "-c", "archive_timeout=60"])
            .arg("-c")
            .arg(format!(
                "archive_command=test ! -f '{dir}/%f' && cp '%p' '{dir}/%f'"
            ));
    }
    cmd.stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .process_group(0)
        .kill_on_drop(false);
    // SAFETY: the closure runs in the forked child before exec and only makes
    // one async-signal-safe system call (prctl).
    unsafe {
        cmd.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(Signal::SIGINT).map_err(std::io::Error::from)
        });
    }
    cmd.spawn().map_err(|e| ClusterError::Command {
        action: "starting postgres".into(),
        detail: e.to_string(),
    })
}

fn free_loopback_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
    Ok(listener.local_addr()?.port())
}

fn process_exists(pid: i32) -> bool {
    // Signal 0 checks existence; EPERM means it exists but belongs to another user.
    match kill(Pid::from_raw(pid), None) {
        Ok(()) => true,
        Err(e) => e == nix::errno::Errno::EPERM,
    }
}

/// The last lines of the server's log, for error messages.
fn log_tail(log: &Path) -> String {
    let Ok(mut file) = fs::File::open(log) else {
        return "(no log)".into();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(2048)));
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn major_version_is_read_from_the_version_line() {
        let cases = [
            (
                "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)\n",
                Some("15"),
            ),
            ("postgres (PostgreSQL) 17.2\n", Some("17")),
            ("postgres (PostgreSQL) 9.6.24\n", Some("9")),
            ("something else", None),
        ];
        for (line, expected) in cases {
            assert_eq!(parse_major_version(line).as_deref(), expected, "{line}");
        }
    }

    fn fake_binaries(dir: &Path, version: &str) {
        fs::create_dir_all(dir).unwrap();
        for tool in ["initdb", "postgres"] {
            let path = dir.join(tool);
            fs::write(
                &path,
                format!("#!/bin/sh\necho 'postgres (PostgreSQL) {version}.1'\n"),
            )
            .unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    #[test]
    fn versioned_folders_are_searched_newest_first_after_path() {
        let root = tempfile::tempdir().unwrap();
        for v in ["13", "16", "9"] {
            fs::create_dir_all(root.path().join(v).join("bin")).unwrap();
        }
        fs::create_dir_all(root.path().join("not-a-version")).unwrap();
        let dirs = candidate_dirs(None, "/a:/b", &[root.path()]);
        let expected: Vec<PathBuf> = vec![
            "/a".into(),
            "/b".into(),
            root.path().join("16/bin"),
            root.path().join("13/bin"),
            root.path().join("9/bin"),
        ];
        assert_eq!(dirs, expected);
        assert_eq!(
            candidate_dirs(Some(Path::new("/x")), "/a", &[root.path()]),
            vec![PathBuf::from("/x")]
        );
    }

    #[test]
    fn binaries_of_the_wanted_version_are_preferred() {
        let root = tempfile::tempdir().unwrap();
        let new = root.path().join("16/bin");
        let old = root.path().join("14/bin");
        fake_binaries(&new, "16");
        fake_binaries(&old, "14");
        let dirs = vec![new.clone(), old.clone()];
        assert_eq!(find_binaries(&dirs, None).unwrap().dir, new);
        assert_eq!(find_binaries(&dirs, Some("14")).unwrap().dir, old);
        // None of the wanted version: the first is returned for the caller to
        // report the mismatch.
        assert_eq!(find_binaries(&dirs, Some("12")).unwrap().major, "16");
    }

    #[test]
    fn missing_binaries_say_how_to_install_them() {
        let empty = tempfile::tempdir().unwrap();
        let err = find_binaries(&[empty.path().to_owned()], None).unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("apt-get install -y postgresql"),
            "{message}"
        );
        assert!(
            message.contains(&empty.path().display().to_string()),
            "{message}"
        );
    }

    #[test]
    fn deep_data_folders_get_their_socket_in_the_temporary_folder() {
        let short = Layout::new(Path::new("/srv/data"));
        assert_eq!(short.socket_dir, Path::new("/srv/data/run"));
        let deep = format!("/srv/{}", "d".repeat(120));
        let layout = Layout::new(Path::new(&deep));
        assert!(layout.socket_dir.starts_with(std::env::temp_dir()));
        assert_eq!(layout.pgdata, Path::new(&deep).join("postgres"));
    }
}
