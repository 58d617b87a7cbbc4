//! Security tests: issue 42 (the second review), item 8. A project function
//! stuck in a busy loop held its Deno worker for the whole wall clock (150
//! s), and the requests sent to that worker meanwhile waited behind it. The
//! node's default CPU-time limits (2 s soft, 4 s hard) now retire the
//! worker, so other requests go to another one, then end it with 546
//! `WORKER_LIMIT`. Through the real router, with the default limits; needs
//! Deno (`PLINTH_DENO_BIN` or PATH).

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::spawn_app;

const SPIN: &str = "Deno.serve((req) => {
  if (new URL(req.url).pathname.endsWith('/loop')) {
    for (;;) {
      // busy
    }
  }
  return Response.json({ pid: Deno.pid })
})
";

/// The CPU time of a process so far, in clock ticks (`utime` + `stime` of
/// `/proc/<pid>/stat`; 100 a second on Linux); 0 once it is gone.
fn cpu_ticks(pid: u64) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[tokio::test]
async fn review2_item_08_a_busy_loop_is_ended_at_its_cpu_limit_and_does_not_block_others() {
    let app = spawn_app().await;
    let dir = app.functions_dir().join("spin");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.ts"), SPIN).unwrap();
    let http = reqwest::Client::new();
    let call = |path: &str| {
        http.get(format!("{}/functions/v1/{path}", app.url))
            .header("apikey", &app.keys.anon_key)
            .bearer_auth(&app.keys.anon_key)
            .send()
    };
    let warm: Value = call("spin").await.unwrap().json().await.unwrap();
    let pid = warm["pid"].as_u64().unwrap();
    let before = cpu_ticks(pid);
    let started = Instant::now();
    let looping = tokio::spawn(call("spin/loop"));
    // Past the soft limit (2.2 s of CPU) and a tick of the worker's watch
    // later, still short of the hard one.
    while cpu_ticks(pid) < before + 220 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the loop never ran"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!looping.is_finished());
    let other = tokio::time::timeout(Duration::from_secs(30), call("spin"))
        .await
        .expect("a request waited behind the busy loop")
        .unwrap();
    assert_eq!(other.status(), 200);
    let other: Value = other.json().await.unwrap();
    assert_ne!(other["pid"], warm["pid"]);

    let looped = tokio::time::timeout(Duration::from_secs(60), looping)
        .await
        .expect("the busy loop ran on past its CPU limit")
        .unwrap()
        .unwrap();
    // Long before the 150 s wall clock.
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(looped.status().as_u16(), 546);
    assert_eq!(looped.headers()["sb-error-code"], "WORKER_LIMIT");
    let body: Value = looped.json().await.unwrap();
    assert_eq!(body["code"], json!("WORKER_LIMIT"));
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
}
