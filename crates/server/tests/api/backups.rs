//! `plinth backup` and `plinth restore` on the embedded cluster: an online,
//! encrypted archive brings a new data folder back to the same keys, rows
//! and files; `--until` recovers to a moment between two writes.

use std::path::Path;
use std::time::Duration;

use sha2::Digest;
use sqlx::Connection;

use crate::helpers::{
    Running, cluster_connection, free_port, output, plinth, printed_key, reachable_tempdir,
    write_things_migration,
};

const PASSPHRASE: &str = "a passphrase for the test archives";

async fn things(data: &Path) -> Vec<i32> {
    let mut conn = cluster_connection(data).await;
    let ids = sqlx::query_scalar("select id from public.things order by id")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    ids
}

async fn insert_thing(data: &Path, id: i32) {
    let mut conn = cluster_connection(data).await;
    sqlx::query("insert into public.things values ($1)")
        .bind(id)
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
}

/// Serves `data` (in `dir`, whose migrations make `things`) until dropped.
fn serve(dir: &Path, data: &str, backups: Option<&Path>) -> (u16, Running, Vec<String>) {
    let port = free_port();
    let mut cmd = plinth(dir);
    cmd.args(["serve", "--port", &port.to_string(), "--policies", "none"])
        .args(["--data-dir", data])
        .env("PLINTH_APP_DIR", "/nonexistent");
    if let Some(backups) = backups {
        // The node's scheduled log copies go to the same archive as the
        // commands' and are sealed with the same passphrase: without it, a
        // segment the node copied first would be stored in the clear.
        cmd.env("PLINTH_BACKUP_TO", backups)
            .env("PLINTH_BACKUP_PASSPHRASE", PASSPHRASE);
    }
    let running = Running::start(cmd);
    let lines = running
        .wait_for("Plinth is ready", Duration::from_secs(120))
        .unwrap_or_else(|seen| panic!("{data} never became ready: {seen:#?}"));
    (port, running, lines)
}

fn plinth_command(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let mut cmd = plinth(dir);
    cmd.args(args)
        .env("PLINTH_BACKUP_PASSPHRASE", PASSPHRASE)
        .env("RUST_LOG", "warn");
    output(cmd)
}

fn sha256(bytes: &[u8]) -> String {
    plinth_db::hex(&sha2::Sha256::digest(bytes))
}

async fn download(port: u16, key: &str) -> Vec<u8> {
    let res = reqwest::Client::new()
        .get(format!(
            "http://127.0.0.1:{port}/storage/v1/object/vault/report.bin"
        ))
        .bearer_auth(key)
        .header("apikey", key)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    res.bytes().await.unwrap().to_vec()
}

/// Makes the private bucket `vault` and stores `report.bin` in it (the
/// file [`download`] reads); returns the file's bytes.
async fn store_report(port: u16, service: &str) -> Vec<u8> {
    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}/storage/v1");
    let res = client
        .post(format!("{base}/bucket"))
        .bearer_auth(service)
        .json(&serde_json::json!({"name": "vault", "public": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let file: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
    let res = client
        .post(format!("{base}/object/vault/report.bin"))
        .bearer_auth(service)
        .header("content-type", "application/octet-stream")
        .body(file.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    file
}

#[tokio::test]
async fn an_online_backup_restores_the_same_keys_rows_and_files_and_to_a_moment() {
    let dir = reachable_tempdir();
    write_things_migration(dir.path());
    let backups = dir.path().join("backups");
    let data = dir.path().join("data");

    let (port, node, lines) = serve(dir.path(), "data", Some(&backups));
    let service = printed_key(lines.iter().map(String::as_str), "SERVICE_ROLE_KEY");
    let file = store_report(port, &service).await;

    // Online: the node keeps serving while the archive is taken.
    let (ok, out, stderr) = plinth_command(
        dir.path(),
        &[
            "backup",
            "--to",
            backups.to_str().unwrap(),
            "--data-dir",
            "data",
        ],
    );
    assert!(ok, "{stderr}");
    assert!(out.contains("plinth-backup-"), "{out}");
    insert_thing(&data, 2).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let between = chrono::Utc::now();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    insert_thing(&data, 3).await;
    // The segment holding row 3 is archived once switched away from.
    let mut conn = cluster_connection(&data).await;
    let segment: String = sqlx::query_scalar("select pg_walfile_name(pg_switch_wal())")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    for _ in 0..100 {
        if data.join("wal-archive").join(&segment).exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        data.join("wal-archive").join(&segment).exists(),
        "{segment} was not archived"
    );
    // A second backup, which also copies the archived log.
    let (ok, _, stderr) = plinth_command(
        dir.path(),
        &[
            "backup",
            "--to",
            backups.to_str().unwrap(),
            "--data-dir",
            "data",
        ],
    );
    assert!(ok, "{stderr}");
    assert!(node.interrupt().success());

    // The archive is encrypted: no secret or file byte is readable in it.
    let secret = std::fs::read_to_string(data.join("jwt-secret")).unwrap();
    let mut stored = Vec::new();
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            if entry.path().is_dir() {
                walk(&entry.path(), out);
            } else {
                out.push(entry.path());
            }
        }
    }
    walk(&backups, &mut stored);
    for path in &stored {
        let bytes = std::fs::read(path).unwrap();
        assert!(
            !bytes
                .windows(secret.trim().len())
                .any(|w| w == secret.trim().as_bytes()),
            "the JWT secret is readable in {}",
            path.display()
        );
        assert!(
            !bytes.windows(4096).any(|w| w == &file[1000..5096]),
            "the file is readable in {}",
            path.display()
        );
    }
    // Without the passphrase, no restore.
    let mut cmd = plinth(dir.path());
    cmd.args([
        "restore",
        "--from",
        backups.to_str().unwrap(),
        "--data-dir",
        "nope",
    ]);
    let (ok, _, stderr) = output(cmd);
    assert!(!ok);
    assert!(stderr.contains("PLINTH_BACKUP_PASSPHRASE"), "{stderr}");
    // Nor a backup, nor a node copying its log, in the clear beside them.
    let mut cmd = plinth(dir.path());
    cmd.args(["backup", "--to", backups.to_str().unwrap()])
        .args(["--data-dir", "data"]);
    let (ok, _, stderr) = output(cmd);
    assert!(!ok);
    assert!(stderr.contains("holds encrypted backups"), "{stderr}");
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &free_port().to_string()])
        .args(["--data-dir", "data"])
        .env("PLINTH_BACKUP_TO", &backups)
        .env("PLINTH_APP_DIR", "/nonexistent");
    let mut refused = Running::start(cmd);
    refused
        .wait_for("holds encrypted backups", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("the node did not refuse: {seen:#?}"));
    let status = refused.child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
    let mut after = Vec::new();
    walk(&backups, &mut after);
    assert_eq!(after.len(), stored.len(), "something was written");

    // The newest archive: same keys, rows and files.
    let (ok, out, stderr) = plinth_command(
        dir.path(),
        &[
            "restore",
            "--from",
            backups.to_str().unwrap(),
            "--data-dir",
            "restored",
        ],
    );
    assert!(ok, "{stderr}");
    assert!(out.contains("restored plinth-backup-"), "{out}");
    let restored = dir.path().join("restored");
    assert_eq!(
        std::fs::read_to_string(restored.join("jwt-secret")).unwrap(),
        secret
    );
    let (port, node, lines) = serve(dir.path(), "restored", None);
    assert!(
        !lines.iter().any(|l| l.starts_with("ANON_KEY=")),
        "new keys were made"
    );
    assert_eq!(things(&restored).await, vec![1, 2, 3]);
    assert_eq!(sha256(&download(port, &service).await), sha256(&file));
    assert!(node.interrupt().success());

    // To the moment between rows 2 and 3.
    let until = between.to_rfc3339();
    let (ok, _, stderr) = plinth_command(
        dir.path(),
        &[
            "restore",
            "--from",
            backups.to_str().unwrap(),
            "--until",
            &until,
            "--data-dir",
            "at-moment",
        ],
    );
    assert!(ok, "{stderr}");
    let at_moment = dir.path().join("at-moment");
    let (port, node, _) = serve(dir.path(), "at-moment", None);
    assert_eq!(things(&at_moment).await, vec![1, 2]);
    assert_eq!(sha256(&download(port, &service).await), sha256(&file));
    assert!(node.interrupt().success());

    // A folder that is not empty is refused.
    let (ok, _, stderr) = plinth_command(
        dir.path(),
        &[
            "restore",
            "--from",
            backups.to_str().unwrap(),
            "--data-dir",
            "restored",
        ],
    );
    assert!(!ok);
    assert!(stderr.contains("not empty"), "{stderr}");
}

/// `plinth serve`'s schedule (`PLINTH_BACKUP_SCHEDULE`, `PLINTH_BACKUP_KEEP`)
/// on a server of one's own: backups are taken on their own, each a
/// `pg_dump` of the database with the stored files, and the oldest are
/// pruned to the number kept. (The loop runs here with a tick of 100 ms and
/// a backup every 300 ms instead of a minute and an hour.)
#[tokio::test]
async fn scheduled_backups_are_taken_and_pruned_on_their_own() {
    use plinth_server::backup::{Destination, Scheduled, run_scheduled};

    let test_db = plinth_db::testing::TestDb::new(&[]).await;
    let url = format!(
        "{}/{}",
        plinth_db::testing::server_url().rsplit_once('/').unwrap().0,
        test_db.name
    );
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::raw_sql("create table public.things (id int); insert into public.things values (7);")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let backups = dir.path().join("backups");
    let stored = dir.path().join("storage/objects/ab/abcdef");
    std::fs::create_dir_all(stored.parent().unwrap()).unwrap();
    std::fs::write(&stored, b"a stored file").unwrap();

    let schedule = tokio::spawn(run_scheduled(Scheduled {
        dest: Destination::parse(backups.to_str().unwrap()).unwrap(),
        data_dir: dir.path().join("data"),
        cluster: None,
        database_url: Some(url),
        pg_bin_dir: None,
        storage: plinth_storage::Backend::FileSystem {
            root: dir.path().join("storage"),
        },
        passphrase: None,
        every: Some(Duration::from_millis(300)),
        keep: 2,
        tick: Duration::from_millis(100),
    }));
    let archives = || -> Vec<String> {
        let mut found: Vec<String> = std::fs::read_dir(&backups)
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().into_string().unwrap())
                    .filter(|n| n.starts_with("plinth-backup-"))
                    .filter(|n| backups.join(n).join("manifest.json").exists())
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        found
    };
    let mut seen = std::collections::BTreeSet::new();
    let started = std::time::Instant::now();
    while seen.len() < 4 && started.elapsed() < Duration::from_secs(60) {
        seen.extend(archives());
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    schedule.abort();
    let _ = schedule.await;
    assert!(seen.len() >= 4, "backups taken: {seen:?}");
    // Pruned to the two newest (a backup may have finished since the
    // last look, never one more than kept).
    let kept = archives();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept.iter()
            .all(|id| seen.contains(id) || id > seen.last().unwrap())
    );
    assert!(!backups.join(seen.first().unwrap()).exists());

    // The newest holds a dump of the database and the stored file, as its
    // manifest says.
    let newest = backups.join(kept.last().unwrap());
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(newest.join("manifest.json")).unwrap()).unwrap();
    let names: Vec<&str> = manifest["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"database/dump"), "{names:?}");
    assert!(names.contains(&"files/objects/ab/abcdef"), "{names:?}");
    let dump = std::fs::read(newest.join("database/dump")).unwrap();
    assert!(dump.starts_with(b"PGDMP"), "not a pg_dump archive");
    assert!(
        dump.windows(b"things".len()).any(|w| w == b"things"),
        "the dump lacks the table"
    );
    assert_eq!(
        std::fs::read(newest.join("files/objects/ab/abcdef")).unwrap(),
        b"a stored file"
    );
}

/// Backups on a real S3 (moto on loopback): a node whose files are on S3
/// backs up to an `s3://bucket/prefix`, and the archive comes back into a
/// new data folder with its files on another bucket.
#[tokio::test]
async fn backups_to_s3_of_files_on_s3_come_back_whole() {
    let dir = reachable_tempdir();
    let dir_path = dir.path();
    let store = crate::moto::fresh_bucket();
    let vault = crate::moto::fresh_bucket();
    let target = crate::moto::fresh_bucket();
    let endpoint = store.endpoint.clone().unwrap();
    let to = format!("s3://{}/nightly", vault.bucket);
    // The same credentials and endpoint serve the files and the archives.
    let with_s3 = |cmd: &mut std::process::Command, bucket: &str| {
        cmd.env("STORAGE_BACKEND", "s3")
            .env("GLOBAL_S3_BUCKET", bucket)
            .env("GLOBAL_S3_ENDPOINT", &endpoint)
            .env("GLOBAL_S3_FORCE_PATH_STYLE", "true")
            .env("REGION", "us-east-1")
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("PLINTH_BACKUP_S3_ENDPOINT", &endpoint)
            .env("PLINTH_BACKUP_TO", &to)
            .env("PLINTH_BACKUP_PASSPHRASE", PASSPHRASE);
    };
    let serve_on = |data: &str, bucket: &str| {
        let port = free_port();
        let mut cmd = plinth(dir_path);
        cmd.args(["serve", "--port", &port.to_string(), "--policies", "none"])
            .args(["--data-dir", data])
            .env("PLINTH_APP_DIR", "/nonexistent");
        with_s3(&mut cmd, bucket);
        let running = Running::start(cmd);
        let lines = running
            .wait_for("Plinth is ready", Duration::from_secs(120))
            .unwrap_or_else(|seen| panic!("{data} never became ready: {seen:#?}"));
        (port, running, lines)
    };
    let run = |args: &[&str], bucket: &str| {
        let mut cmd = plinth(dir_path);
        cmd.args(args);
        with_s3(&mut cmd, bucket);
        output(cmd)
    };
    write_things_migration(dir_path);
    let data = dir_path.join("data");

    let (port, node, lines) = serve_on("data", &store.bucket);
    let service = printed_key(lines.iter().map(String::as_str), "SERVICE_ROLE_KEY");
    let file = store_report(port, &service).await;
    // Stored under its object's key, not its name.
    let stored = crate::moto::keys(&store.bucket);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert!(stored[0].starts_with("objects/"), "{stored:?}");

    let (ok, out, stderr) = run(&["backup", "--data-dir", "data"], &store.bucket);
    assert!(ok, "{stderr}");
    assert!(out.contains("plinth-backup-"), "{out}");
    insert_thing(&data, 2).await;
    let (ok, _, stderr) = run(&["backup", "--data-dir", "data"], &store.bucket);
    assert!(ok, "{stderr}");
    assert!(node.interrupt().success());

    // Everything under the prefix: two archives, each with its manifest.
    let archived = crate::moto::keys(&vault.bucket);
    assert!(
        archived.iter().all(|k| k.starts_with("nightly/")),
        "{archived:?}"
    );
    let manifests = archived
        .iter()
        .filter(|k| k.starts_with("nightly/plinth-backup-") && k.ends_with("/manifest.json"))
        .count();
    assert_eq!(manifests, 2, "{archived:?}");

    // The newest archive, its files written to the new node's bucket.
    let (ok, out, stderr) = run(
        &["restore", "--from", &to, "--data-dir", "restored"],
        &target.bucket,
    );
    assert!(ok, "{stderr}");
    assert!(out.contains("restored plinth-backup-"), "{out}");
    assert_eq!(crate::moto::keys(&target.bucket), stored);
    let restored = dir_path.join("restored");
    let (port, node, _) = serve_on("restored", &target.bucket);
    assert_eq!(things(&restored).await, vec![1, 2]);
    assert_eq!(sha256(&download(port, &service).await), sha256(&file));
    assert!(node.interrupt().success());
}
