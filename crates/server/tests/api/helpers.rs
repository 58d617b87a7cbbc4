//! Shared test helpers: an app on port 0 over a fresh database, and a way to
//! run the real `plinth` binary.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use plinth_db::testing::TestDb;
use plinth_server::app::{ConsoleSetup, Services};
use plinth_server::config::{KeyArgs, ProjectDir};
use plinth_server::keys::Keys;
use plinth_server::{AppState, migration_sets, router};

/// The repository's root (for its `migrations/` and `policies/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A node serving on `127.0.0.1:<random port>` over a fresh database with
/// every migration set of the repository applied.
pub struct TestApp {
    pub url: String,
    pub keys: Arc<Keys>,
    pub test_db: TestDb,
    _data: tempfile::TempDir,
}

impl TestApp {
    /// The node's folder of project functions (served as they are written).
    pub fn functions_dir(&self) -> PathBuf {
        self._data.path().join("functions")
    }

    /// The node's byte store (the file system backend's folder).
    pub fn storage_dir(&self) -> PathBuf {
        self._data.path().join("storage")
    }

    /// The node's built app (see [`spawn_app_serving`]).
    pub fn app_dir(&self) -> PathBuf {
        self._data.path().join("app")
    }
}

/// The publishable key every test node hands to its app.
pub const TEST_STRIPE_PUBLISHABLE_KEY: &str = "pk_test_plinth";

/// The metrics token of every test app.
pub const TEST_METRICS_TOKEN: &str = "test-metrics-token";

pub async fn spawn_app() -> TestApp {
    spawn_app_with(Default::default()).await
}

/// [`spawn_app`] with the REST gateway configured by `rest_config` (e.g.
/// `tx_end: "commit-allow-override"` so a request may ask for `Prefer: tx=rollback`).
pub async fn spawn_app_with(rest_config: plinth_rest::RestConfig) -> TestApp {
    spawn_node(rest_config, None, false).await
}

/// [`spawn_app`] with `PLINTH_JWT_REQUIRE_EXP` on: every service refuses
/// tokens without `exp`.
pub async fn spawn_app_requiring_exp() -> TestApp {
    spawn_node(Default::default(), None, true).await
}

/// The site and API addresses of [`spawn_app_serving`]'s node, which its
/// pages' canonical and image URLs name.
pub const TEST_SITE_URL: &str = "https://templates.example";
pub const TEST_API_URL: &str = "https://api.templates.example";

/// [`spawn_app`] serving a built app whose `index.html` is `index_html`,
/// with [`TEST_SITE_URL`] and [`TEST_API_URL`] as its public addresses.
pub async fn spawn_app_serving(index_html: &str) -> TestApp {
    spawn_node(Default::default(), Some((index_html, None)), false).await
}

/// [`spawn_app_serving`] with the app's `routes.json` (its route patterns).
pub async fn spawn_app_serving_routes(index_html: &str, routes_json: &str) -> TestApp {
    spawn_node(
        Default::default(),
        Some((index_html, Some(routes_json))),
        false,
    )
    .await
}

/// The node; with `app`, serving a built app of that `index.html` (and
/// `routes.json`); with `require_exp`, refusing tokens without `exp`.
async fn spawn_node(
    rest_config: plinth_rest::RestConfig,
    app: Option<(&str, Option<&str>)>,
    require_exp: bool,
) -> TestApp {
    let root = repo_root();
    let sets = migration_sets(
        &ProjectDir::Dir(root.join("migrations")),
        &ProjectDir::Dir(root.join("policies")),
    )
    .expect("the repository's migrations load");
    let test_db = TestDb::new(&sets).await;
    let data = tempfile::tempdir().unwrap();
    let no_keys = KeyArgs {
        jwt_secret: None,
        anon_key: None,
        service_role_key: None,
        jwt_keys: None,
        jwt_keys_file: None,
        jwt_require_exp: require_exp,
    };
    let keys = Arc::new(Keys::load_or_generate(&no_keys, data.path()).unwrap());
    let state = AppState {
        db: test_db.db.clone(),
        keys: keys.clone(),
        trust_proxy_headers: false,
        stripe_publishable_key: Some(TEST_STRIPE_PUBLISHABLE_KEY.to_owned()),
        newsletter_webhook_url: None,
        metrics_token: Some(Arc::from(TEST_METRICS_TOKEN)),
        metrics: Default::default(),
    };
    let mut auth_config = plinth_auth::AuthConfig::default();
    auth_config.password_hash = plinth_auth::HashCost::cheap();
    let auth =
        plinth_auth::AuthState::new(test_db.db.clone(), keys.secret.clone(), auth_config).unwrap();
    let rest = plinth_rest::RestState::new(test_db.db.clone(), keys.secret.clone(), rest_config)
        .await
        .unwrap();
    let storage_config = plinth_storage::StorageConfig {
        backend: plinth_storage::Backend::FileSystem {
            root: data.path().join("storage"),
        },
        ..Default::default()
    };
    let storage =
        plinth_storage::StorageState::new(test_db.db.clone(), keys.secret.clone(), storage_config)
            .await
            .unwrap();
    let realtime = plinth_realtime::RealtimeState::new(
        test_db.db.clone(),
        keys.secret.clone(),
        Default::default(),
    )
    .await
    .unwrap();
    let mut functions_config = plinth_marketplace::FunctionsConfig::default();
    let app_dir = data.path().join("app");
    if let Some((index_html, routes_json)) = app {
        std::fs::create_dir(&app_dir).unwrap();
        std::fs::write(app_dir.join("index.html"), index_html).unwrap();
        if let Some(routes_json) = routes_json {
            std::fs::write(app_dir.join("routes.json"), routes_json).unwrap();
        }
        functions_config.site_url = TEST_SITE_URL.into();
        functions_config.api_external_url = TEST_API_URL.into();
    }
    let functions = plinth_marketplace::FunctionsState::new(
        test_db.db.clone(),
        keys.secret.clone(),
        functions_config,
        auth.mailer().clone(),
    )
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    // The project's own functions: those a test writes into `<data>/functions`.
    let function_host = plinth_functions::FunctionsHost::new(
        plinth_functions::HostConfig {
            dir: data.path().join("functions"),
            deno: plinth_functions::find_deno(
                std::env::var_os("PLINTH_DENO_BIN")
                    .map(PathBuf::from)
                    .as_deref(),
            ),
            runtime_dir: data.path().join("functions-run"),
            env: plinth_functions::ProjectEnv {
                supabase_url: url.clone(),
                public_url: url.clone(),
                anon_key: keys.anon_key.clone(),
                service_role_key: keys.service_role_key.clone(),
                db_url: String::new(),
            },
            limits: Default::default(),
            watch: true,
        },
        keys.secret.clone(),
        test_db.db.owner.clone(),
    )
    .unwrap();
    // Every test node serves the console, whose book sees every request.
    let activity = plinth_console::Activity::new();
    state.metrics.report_to(activity.clone());
    let console = ConsoleSetup {
        config: plinth_console::ConsoleConfig {
            app_dir: data.path().join("no-console"),
            session_lifetime: Duration::from_secs(3600),
            idle_timeout: Duration::from_secs(600),
            // (tails' session checks within a test's patience)
            stream_check: Duration::from_secs(1),
            node: "test-node:0".into(),
            secure_cookies: false,
        },
        activity,
        settings: plinth_server::config::effective_settings(),
    };
    let app = router(
        state,
        &app_dir,
        Services {
            auth,
            rest,
            storage,
            realtime,
            functions,
            function_host,
            console: Some(console),
        },
    );
    tokio::spawn(plinth_server::run(listener, app, std::future::pending()));
    TestApp {
        url,
        keys,
        test_db,
        _data: data,
    }
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A temporary folder the embedded cluster's own user can enter (mode 755).
pub fn reachable_tempdir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Gives the project in `dir` one migration: `public.things` with the row 1.
pub fn write_things_migration(dir: &Path) {
    let migrations = dir.join("migrations");
    std::fs::create_dir_all(&migrations).unwrap();
    std::fs::write(
        migrations.join("1_things.sql"),
        "create table public.things (id int); insert into public.things values (1);",
    )
    .unwrap();
}

/// The `plinth` binary, with no database configuration inherited from the
/// test environment, working in `dir`.
pub fn plinth(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_plinth"));
    cmd.current_dir(dir)
        .env_remove("DATABASE_URL")
        .env_remove("JWT_SECRET")
        .env_remove("ANON_KEY")
        .env_remove("SERVICE_ROLE_KEY")
        .env_remove("PORT")
        .env_remove("PLINTH_DATA_DIR")
        .env("PLINTH_ENV_FILE", "/dev/null")
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null());
    cmd
}

/// A running `plinth serve` whose stdout lines arrive on a channel.
pub struct Running {
    pub child: Child,
    pub lines: mpsc::Receiver<String>,
}

impl Running {
    pub fn start(mut cmd: Command) -> Self {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("plinth starts");
        let (tx, lines) = mpsc::channel();
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
        }
        Self { child, lines }
    }

    /// Waits for a line containing `needle`; returns every line read so far.
    pub fn wait_for(&self, needle: &str, within: Duration) -> Result<Vec<String>, Vec<String>> {
        let deadline = std::time::Instant::now() + within;
        let mut seen = Vec::new();
        while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let hit = line.contains(needle);
                    seen.push(line);
                    if hit {
                        return Ok(seen);
                    }
                }
                Err(_) => break,
            }
        }
        Err(seen)
    }

    /// Sends SIGINT (as Ctrl-C does) and waits for the exit.
    pub fn interrupt(mut self) -> std::process::ExitStatus {
        use nix::sys::signal::{Signal, kill};
        use nix::unistd::Pid;
        kill(Pid::from_raw(self.child.id() as i32), Signal::SIGINT).unwrap();
        for _ in 0..300 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("plinth did not stop within 30 s of SIGINT");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The key `name` (`ANON_KEY`, `SERVICE_ROLE_KEY`) among the `NAME=value`
/// lines plinth printed.
pub fn printed_key<'a>(lines: impl IntoIterator<Item = &'a str>, name: &str) -> String {
    let prefix = format!("{name}=");
    lines
        .into_iter()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {name} printed"))
        .to_owned()
}

/// Runs a command to completion: (success, stdout, stderr).
pub fn output(mut cmd: Command) -> (bool, String, String) {
    let out = cmd.output().expect("plinth runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A database of its own on the test server (no migrations), its URL, and
/// a runtime to reach it from a synchronous test.
pub fn own_database() -> (tokio::runtime::Runtime, TestDb, String) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let test_db = rt.block_on(TestDb::new(&[]));
    let url = format!(
        "{}/{}",
        plinth_db::testing::server_url().rsplit_once('/').unwrap().0,
        test_db.name
    );
    (rt, test_db, url)
}

/// A superuser connection to the embedded cluster running on `data`.
pub async fn cluster_connection(data: &Path) -> sqlx::postgres::PgConnection {
    use sqlx::Connection;
    let pid_file = std::fs::read_to_string(data.join("postgres/postmaster.pid")).unwrap();
    let lines: Vec<&str> = pid_file.lines().collect();
    let options = sqlx::postgres::PgConnectOptions::new()
        .socket(lines[4].trim())
        .port(lines[3].trim().parse().unwrap())
        .username("postgres")
        .database("postgres");
    sqlx::postgres::PgConnection::connect_with(&options)
        .await
        .unwrap()
}
