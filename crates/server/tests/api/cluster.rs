//! The embedded default: `plinth serve` with no DATABASE_URL starts a private
//! cluster in the data folder, stops it on SIGINT, and reuses it next time.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

use crate::helpers::{Running, free_port, plinth};

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
fn reachable_tempdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

async fn count_things(data: &Path) -> i64 {
    let pid_file = std::fs::read_to_string(data.join("postgres/postmaster.pid")).unwrap();
    let lines: Vec<&str> = pid_file.lines().collect();
    let options = PgConnectOptions::new()
        .socket(lines[4].trim())
        .port(lines[3].trim().parse().unwrap())
        .username("postgres")
        .database("postgres");
    let mut conn = PgConnection::connect_with(&options).await.unwrap();
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
    let migrations = dir.path().join("migrations");
    std::fs::create_dir_all(&migrations).unwrap();
    std::fs::write(
        migrations.join("1_things.sql"),
        "create table public.things (id int); insert into public.things values (1);",
    )
    .unwrap();
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
