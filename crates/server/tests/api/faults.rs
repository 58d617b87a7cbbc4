//! Fast fault tests against a real `plinth serve` (the long ones are
//! `scripts/faults`): SIGKILL of the node during uploads or payments loses
//! nothing it acknowledged, and slow clients do not starve others.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::Digest;
use tokio::io::AsyncWriteExt;

use crate::helpers::{Running, free_port, own_database, plinth};

/// A node on `url`'s database with its data folder in `data`.
fn start_node(data: &std::path::Path, url: &str, port: u16) -> (Running, String) {
    let mut cmd = plinth(data);
    cmd.args(["serve", "--port", &port.to_string()])
        .args(["--migrations", "none", "--policies", "none"])
        .env("DATABASE_URL", url)
        .env("PLINTH_APP_DIR", "/nonexistent");
    let running = Running::start(cmd);
    let lines = running
        .wait_for("Plinth is ready", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("never ready: {seen:#?}"));
    let service = lines
        .iter()
        .find_map(|l| l.strip_prefix("SERVICE_ROLE_KEY="))
        .map(str::to_owned)
        .unwrap_or_default();
    (running, service)
}

fn sha(bytes: &[u8]) -> String {
    plinth_db::hex(&sha2::Sha256::digest(bytes))
}

#[test]
fn a_node_killed_during_uploads_loses_no_acknowledged_upload() {
    let (rt, test_db, url) = own_database();
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let (mut node, service) = start_node(data.path(), &url, port);
    let base = format!("http://127.0.0.1:{port}/storage/v1");
    let acknowledged: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    rt.block_on(async {
        let client = reqwest::Client::new();
        let res = client
            .post(format!("{base}/bucket"))
            .bearer_auth(&service)
            .json(&serde_json::json!({"name": "crash", "public": false}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let mut uploaders = Vec::new();
        for worker in 0..6 {
            let client = client.clone();
            let base = base.clone();
            let service = service.clone();
            let acknowledged = acknowledged.clone();
            uploaders.push(tokio::spawn(async move {
                for i in 0.. {
                    let name = format!("w{worker}/file-{i}.bin");
                    let body: Vec<u8> = (0..200_000u32)
                        .map(|b| (b.wrapping_mul(31) ^ (worker * 7 + i)) as u8)
                        .collect();
                    let digest = sha(&body);
                    match client
                        .post(format!("{base}/object/crash/{name}"))
                        .bearer_auth(&service)
                        .header("content-type", "application/octet-stream")
                        .body(body)
                        .send()
                        .await
                    {
                        Ok(res) if res.status() == 200 => {
                            acknowledged.lock().unwrap().push((name, digest));
                        }
                        // The node is gone: stop.
                        _ => break,
                    }
                }
            }));
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        node.child.kill().unwrap();
        node.child.wait().unwrap();
        for uploader in uploaders {
            uploader.await.unwrap();
        }
    });
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(
        acknowledged.len() >= 6,
        "too few uploads before the kill: {}",
        acknowledged.len()
    );

    // A new node on the same folder and database serves every one of them.
    let port = free_port();
    let (node, _) = start_node(data.path(), &url, port);
    let base = format!("http://127.0.0.1:{port}/storage/v1");
    rt.block_on(async {
        let client = reqwest::Client::new();
        for (name, digest) in &acknowledged {
            let res = client
                .get(format!("{base}/object/crash/{name}"))
                .bearer_auth(&service)
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 200, "{name} was acknowledged and lost");
            assert_eq!(&sha(&res.bytes().await.unwrap()), digest, "{name} changed");
        }
        // And no row names bytes that are not there.
        let names: Vec<String> =
            sqlx::query_scalar("select name from storage.objects where bucket_id = 'crash'")
                .fetch_all(&test_db.db.owner)
                .await
                .unwrap();
        for name in names {
            let res = client
                .get(format!("{base}/object/crash/{name}"))
                .bearer_auth(&service)
                .send()
                .await
                .unwrap();
            assert_eq!(res.status(), 200, "the row of {name} has no bytes");
        }
    });
    println!(
        "acknowledged before the kill and served after: {}",
        acknowledged.len()
    );
    assert!(node.interrupt().success());
    drop(test_db);
}

#[test]
fn slow_clients_do_not_starve_the_others() {
    let (rt, test_db, url) = own_database();
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let (node, _) = start_node(data.path(), &url, port);
    rt.block_on(async {
        // 500 connections that send part of a request head, then a byte now
        // and then, and never finish it.
        let mut slow = Vec::new();
        for _ in 0..500 {
            let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .unwrap();
            stream
                .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
                .await
                .unwrap();
            slow.push(stream);
        }
        let dripping = tokio::spawn(async move {
            for _ in 0..20 {
                for stream in &mut slow {
                    let _ = stream.write_all(b"a").await;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            slow
        });
        // Meanwhile everyone else is served at once.
        let client = reqwest::Client::new();
        let mut slowest = Duration::ZERO;
        for _ in 0..30 {
            let started = Instant::now();
            let res = client
                .get(format!("http://127.0.0.1:{port}/health"))
                .timeout(Duration::from_secs(5))
                .send()
                .await
                .expect("a request behind the slow clients failed");
            assert_eq!(res.status(), 200);
            slowest = slowest.max(started.elapsed());
        }
        println!("slowest of 30 requests beside 500 slow clients: {slowest:?}");
        // Starving would be a timeout; the bound leaves room for a busy machine.
        assert!(slowest < Duration::from_secs(3), "{slowest:?}");
        drop(dripping.await.unwrap());
    });
    assert!(node.interrupt().success());
    drop(test_db);
}

/// A node on the repository's migrations and demo data.
fn start_marketplace_node(data: &std::path::Path, url: &str, port: u16) -> Running {
    let mut cmd = plinth(&crate::helpers::repo_root());
    cmd.args(["serve", "--port", &port.to_string()])
        .args(["--data-dir", &data.display().to_string()])
        .env("DATABASE_URL", url)
        .env("PLINTH_APP_DIR", "/nonexistent");
    let running = Running::start(cmd);
    running
        .wait_for("Plinth is ready", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("never ready: {seen:#?}"));
    running
}

#[test]
fn a_node_killed_during_payments_loses_no_confirmed_order() {
    let (rt, test_db, url) = own_database();
    let data = tempfile::tempdir().unwrap();
    let mut seed = plinth(&crate::helpers::repo_root());
    seed.args([
        "seed",
        "--demo",
        "--data-dir",
        &data.path().display().to_string(),
    ])
    .env("DATABASE_URL", &url);
    let (ok, _, stderr) = crate::helpers::output(seed);
    assert!(ok, "{stderr}");
    let template: uuid::Uuid = rt
        .block_on(
            sqlx::query_scalar(
                "select id from public.templates where is_published and price_in_cents > 0 limit 1",
            )
            .fetch_one(&test_db.db.owner),
        )
        .unwrap();
    let port = free_port();
    let mut node = start_marketplace_node(data.path(), &url, port);
    let anon = {
        let secret = std::fs::read_to_string(data.path().join("jwt-secret")).unwrap();
        let jwt = plinth_db::JwtSecret::new(secret.trim()).unwrap();
        let now = chrono::Utc::now().timestamp();
        jwt.api_key("anon", now, now + 3600)
    };
    let base = format!("http://127.0.0.1:{port}");
    let confirmed: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    rt.block_on(async {
        let client = reqwest::Client::new();
        let mut buyers = Vec::new();
        for worker in 0..4 {
            let (client, base, anon, confirmed) = (
                client.clone(),
                base.clone(),
                anon.clone(),
                confirmed.clone(),
            );
            buyers.push(tokio::spawn(async move {
                for i in 0.. {
                    let post = |path: String, body: serde_json::Value| {
                        client
                            .post(format!("{base}{path}"))
                            .header("apikey", &anon)
                            .bearer_auth(&anon)
                            .json(&body)
                            .send()
                    };
                    let Ok(res) = post(
                        "/functions/v1/create-payment-intent".into(),
                        serde_json::json!({
                            "templateId": template,
                            "buyerEmail": format!("buyer-{worker}-{i}@test.dev"),
                        }),
                    )
                    .await
                    else {
                        break;
                    };
                    let Ok(intent) = res.json::<serde_json::Value>().await else {
                        break;
                    };
                    let payment = intent["confirmUrl"]
                        .as_str()
                        .and_then(|u| u.split('?').next())
                        .and_then(|u| u.rsplit('/').next())
                        .unwrap_or_default()
                        .to_owned();
                    let Ok(res) = post(
                        format!("/api/simulated-payments/{payment}/confirm"),
                        serde_json::json!({"client_secret": intent["clientSecret"]}),
                    )
                    .await
                    else {
                        break;
                    };
                    if res.status() != 200 {
                        break;
                    }
                    confirmed.lock().unwrap().push((
                        intent["orderId"].as_str().unwrap().to_owned(),
                        intent["downloadToken"].as_str().unwrap().to_owned(),
                    ));
                }
            }));
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        node.child.kill().unwrap();
        node.child.wait().unwrap();
        for buyer in buyers {
            buyer.await.unwrap();
        }
    });
    let confirmed = confirmed.lock().unwrap().clone();
    assert!(
        confirmed.len() >= 4,
        "too few payments before the kill: {}",
        confirmed.len()
    );

    // Every confirmed order is paid for on the next node: its download opens.
    let port = free_port();
    let node = start_marketplace_node(data.path(), &url, port);
    rt.block_on(async {
        let client = reqwest::Client::new();
        for (order, token) in &confirmed {
            let res = client
                .post(format!(
                    "http://127.0.0.1:{port}/functions/v1/validate-download"
                ))
                .header("apikey", &anon)
                .bearer_auth(&anon)
                .json(&serde_json::json!({"orderId": order, "token": token}))
                .send()
                .await
                .unwrap();
            let status = res.status();
            assert_eq!(status, 200, "order {order}: {}", res.text().await.unwrap());
        }
    });
    println!(
        "payments confirmed before the kill and paid after: {}",
        confirmed.len()
    );
    assert!(node.interrupt().success());
    drop(test_db);
}
