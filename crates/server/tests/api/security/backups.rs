//! Security tests: backups.
//!
//! Issue 42 item 9: an archive holds every user's rows and files and the
//! project's secrets (JWT secret, API keys, the cluster's password). Taken
//! without a passphrase, it is still its owner's only: in a local folder
//! every file is 0600 and every folder 0700 (created so, never opened
//! first), and a restore lays the secrets down 0600 and still brings the
//! node back.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlx::Connection;

use crate::helpers::{
    Running, cluster_connection, free_port, output, plinth, printed_key, reachable_tempdir,
    write_things_migration,
};

const SECRETS: [&str; 3] = ["jwt-secret", "api-keys.env", "postgres-password"];

/// Serves `data` of `dir`, its log copied to `backups` when given.
fn serve(dir: &Path, data: &str, backups: Option<&Path>) -> (u16, Running, Vec<String>) {
    let port = free_port();
    let mut cmd = plinth(dir);
    cmd.args(["serve", "--port", &port.to_string(), "--policies", "none"])
        .args(["--data-dir", data])
        .env("PLINTH_APP_DIR", "/nonexistent")
        .env_remove("PLINTH_BACKUP_PASSPHRASE");
    if let Some(backups) = backups {
        cmd.env("PLINTH_BACKUP_TO", backups);
    }
    let running = Running::start(cmd);
    let lines = running
        .wait_for("Plinth is ready", Duration::from_secs(120))
        .unwrap_or_else(|seen| panic!("{data} never became ready: {seen:#?}"));
    (port, running, lines)
}

/// `plinth <args>` without a passphrase.
fn run(dir: &Path, args: &[&str]) -> (bool, String, String) {
    let mut cmd = plinth(dir);
    cmd.args(args).env_remove("PLINTH_BACKUP_PASSPHRASE");
    output(cmd)
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o777
}

/// Every folder (from `dir` itself) and every file below it.
fn walk(dir: &Path, folders: &mut Vec<PathBuf>, files: &mut Vec<PathBuf>) {
    folders.push(dir.to_owned());
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            walk(&entry.path(), folders, files);
        } else {
            files.push(entry.path());
        }
    }
}

async fn things(data: &Path) -> Vec<i32> {
    let mut conn = cluster_connection(data).await;
    let ids = sqlx::query_scalar("select id from public.things order by id")
        .fetch_all(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    ids
}

/// Writes row 2 and waits until the log segment holding it is archived.
async fn insert_and_archive(data: &Path) {
    let mut conn = cluster_connection(data).await;
    sqlx::query("insert into public.things values (2)")
        .execute(&mut conn)
        .await
        .unwrap();
    let segment: String = sqlx::query_scalar("select pg_walfile_name(pg_switch_wal())")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    let archived = data.join("wal-archive").join(&segment);
    for _ in 0..100 {
        if archived.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{segment} was not archived");
}

#[tokio::test]
async fn review2_item_09_unencrypted_backups_keep_secrets_private() {
    let dir = reachable_tempdir();
    write_things_migration(dir.path());
    let backups = dir.path().join("backups");
    let data = dir.path().join("data");
    let (port, node, lines) = serve(dir.path(), "data", Some(&backups));
    let service = printed_key(lines.iter().map(String::as_str), "SERVICE_ROLE_KEY");

    // A user's file in a private bucket.
    let client = reqwest::Client::new();
    let storage = format!("http://127.0.0.1:{port}/storage/v1");
    let made = client
        .post(format!("{storage}/bucket"))
        .bearer_auth(&service)
        .json(&serde_json::json!({"name": "vault", "public": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 200);
    let stored = client
        .post(format!("{storage}/object/vault/report.txt"))
        .bearer_auth(&service)
        .header("content-type", "text/plain")
        .body("a user's private report")
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status(), 200);

    // Two unencrypted backups; the second also copies the archived log.
    let to = backups.to_str().unwrap();
    let (ok, out, stderr) = run(dir.path(), &["backup", "--to", to, "--data-dir", "data"]);
    assert!(ok, "{stderr}");
    assert!(out.contains("plinth-backup-"), "{out}");
    insert_and_archive(&data).await;
    let (ok, _, stderr) = run(dir.path(), &["backup", "--to", to, "--data-dir", "data"]);
    assert!(ok, "{stderr}");
    assert!(node.interrupt().success());

    let (mut folders, mut files) = (Vec::new(), Vec::new());
    walk(&backups, &mut folders, &mut files);
    for folder in &folders {
        assert_eq!(mode(folder), 0o700, "{}", folder.display());
    }
    for file in &files {
        assert_eq!(mode(file) & 0o077, 0, "{}", file.display());
    }
    let named = |suffix: &str| -> Vec<&PathBuf> {
        files
            .iter()
            .filter(|f| f.to_string_lossy().ends_with(suffix))
            .collect()
    };
    // What was checked is the whole archive, in the clear: the database,
    // the user's file, the log and the secrets.
    assert_eq!(named("/database/base.tar").len(), 2, "{files:#?}");
    assert_eq!(named("/manifest.json").len(), 2, "{files:#?}");
    assert!(
        files
            .iter()
            .any(|f| f.parent() == Some(backups.join("wal").as_path())),
        "{files:#?}"
    );
    assert!(
        files
            .iter()
            .any(|f| std::fs::read(f).unwrap() == b"a user's private report"),
        "{files:#?}"
    );
    for secret in SECRETS {
        let copies = named(&format!("/secrets/{secret}"));
        assert_eq!(copies.len(), 2, "{secret}: {files:#?}");
        for copy in copies {
            assert_eq!(mode(copy), 0o600, "{}", copy.display());
            assert_eq!(
                std::fs::read(copy).unwrap(),
                std::fs::read(data.join(secret)).unwrap()
            );
        }
    }

    // The restore still works, and lays the secrets down 0600.
    let (ok, out, stderr) = run(
        dir.path(),
        &["restore", "--from", to, "--data-dir", "restored"],
    );
    assert!(ok, "{stderr}");
    assert!(out.contains("restored plinth-backup-"), "{out}");
    let restored = dir.path().join("restored");
    assert!(!restored.join(".restore").exists());
    for secret in SECRETS {
        assert_eq!(mode(&restored.join(secret)), 0o600, "{secret}");
        assert_eq!(
            std::fs::read(restored.join(secret)).unwrap(),
            std::fs::read(data.join(secret)).unwrap()
        );
    }
    let (port, node, lines) = serve(dir.path(), "restored", None);
    assert!(
        !lines.iter().any(|l| l.starts_with("ANON_KEY=")),
        "new keys were made"
    );
    assert_eq!(things(&restored).await, vec![1, 2]);
    let read = client
        .get(format!(
            "http://127.0.0.1:{port}/storage/v1/object/vault/report.txt"
        ))
        .bearer_auth(&service)
        .header("apikey", &service)
        .send()
        .await
        .unwrap();
    assert_eq!(read.status(), 200);
    assert_eq!(read.text().await.unwrap(), "a user's private report");
    assert!(node.interrupt().success());
}
