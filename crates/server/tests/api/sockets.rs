//! A websocket flood against a real `plinth serve`: capped per address, and
//! the memory the sockets took is given back when they close.

use std::time::Duration;

use crate::helpers::{Running, free_port, own_database, plinth, printed_key};

/// Resident memory of process `pid`, in bytes.
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        * 1024
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

#[test]
fn a_socket_flood_is_capped_and_its_memory_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, test_db, url) = own_database();
    let port = free_port();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &port.to_string()])
        .args(["--migrations", "none", "--policies", "none"])
        .env("DATABASE_URL", &url)
        .env("PLINTH_TRUST_PROXY_HEADERS", "true")
        .env("REALTIME_MAX_CONNECTIONS_PER_IP", "200");
    let running = Running::start(cmd);
    let lines = running
        .wait_for("Plinth is ready", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("never ready: {seen:#?}"));
    let anon = printed_key(lines.iter().map(String::as_str), "ANON_KEY");
    let pid = running.child.id();
    let ws_url = format!("ws://127.0.0.1:{port}/realtime/v1/websocket?apikey={anon}&vsn=2.0.0");

    let connect = |address: String| {
        let ws_url = ws_url.clone();
        async move {
            use tokio_tungstenite::tungstenite::client::IntoClientRequest;
            let mut request = ws_url.into_client_request().unwrap();
            request
                .headers_mut()
                .insert("x-forwarded-for", address.parse().unwrap());
            tokio_tungstenite::connect_async(request).await
        }
    };
    rt.block_on(async {
        // Warm up: one socket opened and closed.
        drop(connect("192.0.2.1".into()).await.unwrap());
        tokio::time::sleep(Duration::from_millis(500)).await;
        let before = rss(pid);

        // 800 sockets from one address: 200 get in.
        let mut open = Vec::new();
        let mut refused = 0;
        for _ in 0..800 {
            match connect("198.51.100.7".into()).await {
                Ok((ws, _)) => open.push(ws),
                Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                    assert_eq!(response.status(), 429);
                    refused += 1;
                }
                Err(other) => panic!("unexpected error {other}"),
            }
        }
        assert_eq!((open.len(), refused), (200, 600));
        // 600 more from other addresses: 800 open in all.
        for i in 0..600 {
            let (ws, _) = connect(format!("10.1.{}.{}", i / 200, i % 200 + 1))
                .await
                .unwrap();
            open.push(ws);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let during = rss(pid);

        drop(open);
        tokio::time::sleep(Duration::from_secs(3)).await;
        let after = rss(pid);
        println!(
            "plinth RSS: {:.1} MB before, {:.1} MB with 800 sockets, {:.1} MB after they closed",
            mb(before),
            mb(during),
            mb(after)
        );
        assert!(
            during < before + 64_000_000,
            "800 idle sockets took {:.1} MB",
            mb(during - before)
        );
        assert!(
            after < before + 6_000_000,
            "{:.1} MB stayed after the sockets closed",
            mb(after.saturating_sub(before))
        );
    });
    assert!(running.interrupt().success());
    drop(test_db);
}
