//! The embedded default: `plinth serve` with no DATABASE_URL starts a private
//! cluster in the data folder, stops it on SIGINT, and reuses it next time.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

use crate::helpers::{
    Running, cluster_connection, free_port, plinth, printed_key, reachable_tempdir,
    write_things_migration,
};

/// Processes whose command line mentions `pgdata`.
fn postgres_processes_on(pgdata: &Path) -> Vec<String> {
    let needle = pgdata.display().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains("postgres") && cmdline.contains(&needle) {
                found.push(cmdline);
            }
        }
    }
    found
}

/// A folder the unprivileged cluster user can reach, whatever the umask.
async fn count_things(data: &Path) -> i64 {
    let mut conn = cluster_connection(data).await;
    let count: i64 = sqlx::query_scalar("select count(*) from public.things")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    // Room for both request pools at their largest default size.
    let slots: String = sqlx::query_scalar("show max_connections")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(slots, plinth_db::cluster::MAX_CONNECTIONS.to_string());
    conn.close().await.unwrap();
    count
}

#[tokio::test]
async fn serve_starts_stops_and_reuses_its_own_cluster() {
    let dir = reachable_tempdir();
    write_things_migration(dir.path());
    let data = dir.path().join("data");
    let pgdata = data.join("postgres");

    for start in 1..=2 {
        let port = free_port();
        let mut cmd = plinth(dir.path());
        cmd.args(["serve", "--port", &port.to_string(), "--policies", "none"]);
        let running = Running::start(cmd);
        let lines = running
            .wait_for("Plinth is ready", Duration::from_secs(90))
            .unwrap_or_else(|seen| panic!("start {start} never became ready: {seen:#?}"));
        // Keys are printed on the first start only.
        assert_eq!(
            lines.iter().any(|l| l.starts_with("ANON_KEY=")),
            start == 1,
            "{lines:#?}"
        );
        let health = reqwest::get(format!("http://127.0.0.1:{port}/health"))
            .await
            .unwrap();
        assert_eq!(health.status(), 200);
        assert_eq!(postgres_processes_on(&pgdata).len() >= 1, true);
        // The migration ran once, whatever the number of starts.
        assert_eq!(count_things(&data).await, 1);

        let status = running.interrupt();
        assert!(status.success(), "exit status {status:?}");
        assert!(
            postgres_processes_on(&pgdata).is_empty(),
            "a postgres process outlived plinth: {:?}",
            postgres_processes_on(&pgdata)
        );
    }
    assert!(pgdata.join("PG_VERSION").exists());
}

#[tokio::test]
async fn a_killed_plinth_takes_its_cluster_down_with_it() {
    let dir = reachable_tempdir();
    let pgdata = dir.path().join("data/postgres");
    let mut cmd = plinth(dir.path());
    cmd.args([
        "serve",
        "--port",
        &free_port().to_string(),
        "--migrations",
        "none",
        "--policies",
        "none",
    ]);
    let mut running = Running::start(cmd);
    running
        .wait_for("Plinth is ready", Duration::from_secs(90))
        .unwrap_or_else(|seen| panic!("never became ready: {seen:#?}"));
    assert!(!postgres_processes_on(&pgdata).is_empty());
    running.child.kill().unwrap();
    running.child.wait().unwrap();
    for _ in 0..100 {
        if postgres_processes_on(&pgdata).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "postgres outlived a killed plinth: {:?}",
        postgres_processes_on(&pgdata)
    );
}

#[tokio::test]
async fn a_data_folder_the_cluster_user_cannot_reach_is_a_clear_error() {
    // A folder private to its owner. As root, the cluster runs as `postgres`,
    // which cannot enter it: a clear error. As anyone else the cluster runs as
    // that same user, and starts.
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut cmd = plinth(dir.path());
    cmd.args([
        "serve",
        "--port",
        &free_port().to_string(),
        "--migrations",
        "none",
        "--policies",
        "none",
    ]);
    let running = Running::start(cmd);
    if nix::unistd::Uid::effective().is_root() {
        let seen = running
            .wait_for("error: ", Duration::from_secs(30))
            .unwrap_or_else(|seen| panic!("no error: {seen:#?}"));
        let last = seen.last().unwrap();
        assert!(last.contains("cannot reach"), "{last}");
        assert!(last.contains("--data-dir"), "{last}");
    } else {
        running
            .wait_for("Plinth is ready", Duration::from_secs(90))
            .unwrap_or_else(|seen| panic!("never became ready: {seen:#?}"));
        assert!(running.interrupt().success());
    }
}

/// The postmaster's process id, from its lock file.
fn postmaster_pid(pgdata: &Path) -> i32 {
    let pid_file = std::fs::read_to_string(pgdata.join("postmaster.pid")).unwrap();
    pid_file.lines().next().unwrap().trim().parse().unwrap()
}

fn sigkill(pid: i32) {
    use nix::sys::signal::{Signal, kill};
    kill(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL).unwrap();
}

/// Polls `/health` until it answers `want`; how long that took.
async fn health_becomes(port: u16, want: u16, within: Duration) -> Duration {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    while started.elapsed() < within {
        if let Ok(res) = client
            .get(format!("http://127.0.0.1:{port}/health"))
            .send()
            .await
            && res.status().as_u16() == want
        {
            return started.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("/health did not answer {want} within {within:?}");
}

/// A `plinth serve` on its own cluster, with one committed row in `things`.
fn serve_with_things(dir: &Path, port: u16) -> Running {
    write_things_migration(dir);
    let mut cmd = plinth(dir);
    cmd.args(["serve", "--port", &port.to_string(), "--policies", "none"]);
    let running = Running::start(cmd);
    running
        .wait_for("Plinth is ready", Duration::from_secs(90))
        .unwrap_or_else(|seen| panic!("never became ready: {seen:#?}"));
    running
}

#[tokio::test]
async fn a_killed_cluster_is_started_again_with_nothing_committed_lost() {
    let dir = reachable_tempdir();
    let data = dir.path().join("data");
    let pgdata = data.join("postgres");
    let port = free_port();
    let running = serve_with_things(dir.path(), port);

    // A row committed just before the crash.
    let mut conn = cluster_connection(&data).await;
    sqlx::query("insert into public.things values (2)")
        .execute(&mut conn)
        .await
        .unwrap();
    drop(conn);

    let first = postmaster_pid(&pgdata);
    // A restart takes a few hundred milliseconds, too short a window to be
    // sure to see: the first starts fail (no PG_VERSION), so the node is
    // down for as long as the test needs to see it report so.
    let version = pgdata.join("PG_VERSION");
    let aside = dir.path().join("PG_VERSION");
    std::fs::rename(&version, &aside).unwrap();
    sigkill(first);
    let down = health_becomes(port, 503, Duration::from_secs(10)).await;
    assert!(down < Duration::from_secs(3), "503 only after {down:?}");
    // The server comes back by itself once it can.
    std::fs::rename(&aside, &version).unwrap();
    health_becomes(port, 200, Duration::from_secs(60)).await;
    let second = postmaster_pid(&pgdata);
    assert_ne!(first, second, "the same postmaster answers");
    assert_eq!(count_things(&data).await, 2, "a committed row was lost");

    // Shutdown is prompt even with the server just killed again.
    sigkill(second);
    let asked = std::time::Instant::now();
    let status = running.interrupt();
    assert!(status.success(), "exit status {status:?}");
    assert!(
        asked.elapsed() < Duration::from_secs(15),
        "stopping took {:?}",
        asked.elapsed()
    );
    for _ in 0..50 {
        if postgres_processes_on(&pgdata).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "a postgres process outlived plinth: {:?}",
        postgres_processes_on(&pgdata)
    );
}

#[tokio::test]
async fn a_cluster_that_cannot_start_again_ends_serve_with_the_reason() {
    let dir = reachable_tempdir();
    let pgdata = dir.path().join("data/postgres");
    let port = free_port();
    let running = serve_with_things(dir.path(), port);
    // Without PG_VERSION the server refuses to start on the folder.
    std::fs::rename(pgdata.join("PG_VERSION"), dir.path().join("PG_VERSION")).unwrap();
    sigkill(postmaster_pid(&pgdata));
    let seen = running
        .wait_for("error: ", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("serve did not end with an error: {seen:#?}"));
    let mut running = running;
    let status = running.child.wait().unwrap();
    assert!(!status.success(), "exit status {status:?}");
    // The error, then the server log's last lines.
    let error: Vec<String> = std::iter::once(seen.last().unwrap().clone())
        .chain(running.lines.iter())
        .collect();
    let error = error.join("\n");
    assert!(error.contains("did not start again"), "{error}");
    assert!(
        error.contains("PG_VERSION"),
        "the log's reason is missing: {error}"
    );
    assert!(postgres_processes_on(&pgdata).is_empty());
}

#[tokio::test]
async fn a_server_that_asks_authenticator_for_a_password_gets_one_at_start_up() {
    // Node A runs the embedded cluster, whose TCP logins need a password.
    // Node B reaches it over TCP as the superuser with no
    // AUTHENTICATOR_PASSWORD: its request pools must still log in.
    let dir = reachable_tempdir();
    let pgdata = dir.path().join("data/postgres");
    let a = serve_with_things(dir.path(), free_port());
    let pid_file = std::fs::read_to_string(pgdata.join("postmaster.pid")).unwrap();
    let pg_port: u16 = pid_file.lines().nth(3).unwrap().trim().parse().unwrap();
    let superuser_password =
        std::fs::read_to_string(dir.path().join("data/postgres-password")).unwrap();
    let url = format!(
        "postgres://postgres:{}@127.0.0.1:{pg_port}/postgres",
        superuser_password.trim()
    );
    // A table for node B's REST gateway to read (no policies: no rows).
    let mut owner = PgConnection::connect(&url).await.unwrap();
    sqlx::raw_sql("create table public.probe (id int primary key)")
        .execute(&mut owner)
        .await
        .unwrap();
    drop(owner);
    for start in 1..=2 {
        let port = free_port();
        let mut cmd = plinth(dir.path());
        cmd.env("DATABASE_URL", &url).args([
            "serve",
            "--port",
            &port.to_string(),
            "--policies",
            "none",
            "--data-dir",
            "data-b",
        ]);
        let b = Running::start(cmd);
        b.wait_for("Plinth is ready", Duration::from_secs(60))
            .unwrap_or_else(|seen| panic!("node B start {start} never became ready: {seen:#?}"));
        let health = reqwest::get(format!("http://127.0.0.1:{port}/health"))
            .await
            .unwrap();
        assert_eq!(health.status(), 200, "start {start}");
        // The REST gateway's own pool logs in with the password too
        // (SCRAM over TCP): a read answers.
        let secret = std::fs::read_to_string(dir.path().join("data-b/jwt-secret")).unwrap();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
        let anon =
            plinth_db::JwtSecret::new(secret.trim())
                .unwrap()
                .api_key("anon", now, now + 3600);
        let read = reqwest::Client::new()
            .get(format!("http://127.0.0.1:{port}/rest/v1/probe?select=id"))
            .header("apikey", &anon)
            .send()
            .await
            .unwrap();
        let status = read.status();
        let body = read.text().await.unwrap();
        assert_eq!(
            (status.as_u16(), body.as_str()),
            (200, "[]"),
            "start {start}"
        );
        assert!(b.interrupt().success());
    }
    // The password is the one derived from node B's JWT secret.
    let secret = std::fs::read_to_string(dir.path().join("data-b/jwt-secret")).unwrap();
    let secret = plinth_db::JwtSecret::new(secret.trim()).unwrap();
    let password = plinth_db::hex(&secret.derive_key("authenticator password"));
    let options = PgConnectOptions::new()
        .host("127.0.0.1")
        .port(pg_port)
        .username("authenticator")
        .password(&password)
        .database("postgres");
    PgConnection::connect_with(&options)
        .await
        .expect("authenticator logs in with the derived password")
        .close()
        .await
        .unwrap();
    assert!(a.interrupt().success());
}

/// `SUPABASE_DB_URL` on the embedded default: a function's worker may use
/// the network but may not enter the cluster's socket folder, so its URL is
/// `project_admin` over the loopback port with its password derived from the
/// JWT secret. The function reaches that port from inside its sandbox, and
/// the URL logs in over TCP (a password-less or socket URL would not), as a
/// powerful role that is no superuser.
#[tokio::test]
async fn a_function_is_given_a_database_url_it_can_use() {
    let dir = reachable_tempdir();
    write_things_migration(dir.path());
    let function = dir.path().join("functions/db-url");
    std::fs::create_dir_all(&function).unwrap();
    std::fs::write(
        function.join("index.ts"),
        r#"Deno.serve(async () => {
  const url = new URL(Deno.env.get('SUPABASE_DB_URL') ?? 'missing:')
  let reached: boolean | string = false
  try {
    const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) })
    conn.close()
    reached = true
  } catch (e) {
    reached = String(e)
  }
  return Response.json({ url: url.href, reached })
})
"#,
    )
    .unwrap();
    let port = free_port();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &port.to_string(), "--policies", "none"])
        .env(
            "PLINTH_DENO_BIN",
            std::env::var("PLINTH_DENO_BIN").unwrap_or_else(|_| "deno".into()),
        );
    let running = Running::start(cmd);
    let lines = running
        .wait_for("Plinth is ready", Duration::from_secs(90))
        .unwrap_or_else(|seen| panic!("never became ready: {seen:#?}"));
    let anon = printed_key(lines.iter().map(String::as_str), "ANON_KEY");
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!("http://127.0.0.1:{port}/functions/v1/db-url"))
        .bearer_auth(&anon)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["reached"], true, "{answer}");
    let url = answer["url"].as_str().unwrap();
    let options: PgConnectOptions = url.parse().unwrap();
    assert_eq!(options.get_host(), "127.0.0.1", "{url}");
    let mut conn = PgConnection::connect_with(&options)
        .await
        .expect("the URL logs in over TCP");
    let (user, superuser, bypassrls): (String, bool, bool) = sqlx::query_as(
        "select rolname::text, rolsuper, rolbypassrls from pg_roles where rolname = current_user",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        (user.as_str(), superuser, bypassrls),
        ("project_admin", false, true)
    );
    for refused in [
        "copy (select 1) to program 'true'",
        "select pg_read_file('PG_VERSION')",
    ] {
        let error = sqlx::raw_sql(refused).execute(&mut conn).await.unwrap_err();
        let code = error.as_database_error().and_then(|e| e.code());
        assert_eq!(code.as_deref(), Some("42501"), "{refused}: {error}");
    }
    let things: i64 = sqlx::query_scalar("select count(*) from public.things")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(things, 1);
    conn.close().await.unwrap();
    let status = running.interrupt();
    assert!(status.success(), "exit status {status:?}");
}
