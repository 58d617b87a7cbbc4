//! The function host over HTTP with real Deno workers (`PLINTH_DENO_BIN`,
//! else `deno` on PATH; `scripts/test` installs it) and a real PostgreSQL
//! for the secrets. One example function per feature, in `fixtures/`.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::routing::post;
use futures_util::StreamExt;
use plinth_db::JwtSecret;
use plinth_db::testing::TestDb;
use plinth_functions::{Builtin, FunctionsHost, HostConfig, Limits, ProjectEnv};
use serde_json::{Value, json};

const SECRET: &str = "function-host-test-secret-of-32-chars!";

struct TestHost {
    base: String,
    host: FunctionsHost,
    anon: String,
    http: reqwest::Client,
    dir: PathBuf,
    test_db: TestDb,
    _temp: tempfile::TempDir,
}

fn deno() -> PathBuf {
    plinth_functions::find_deno(
        std::env::var_os("PLINTH_DENO_BIN")
            .map(PathBuf::from)
            .as_deref(),
    )
    .expect("no Deno: set PLINTH_DENO_BIN or put deno on PATH (scripts/test installs it)")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

async fn spawn_host(limits: Limits, watch: bool) -> TestHost {
    spawn_host_with(limits, watch, Some(deno())).await
}

async fn spawn_host_with(limits: Limits, watch: bool, deno: Option<PathBuf>) -> TestHost {
    let test_db = TestDb::new(&[plinth_functions::migrations()]).await;
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("functions");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &dir,
    );
    let jwt = JwtSecret::new(SECRET).unwrap();
    let now = chrono_now();
    let anon = jwt.api_key("anon", now, now + 3600);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let config = HostConfig {
        dir: dir.clone(),
        deno,
        runtime_dir: temp.path().join("run"),
        env: ProjectEnv {
            supabase_url: base.clone(),
            public_url: "https://project.example.com".into(),
            anon_key: anon.clone(),
            service_role_key: "service-key".into(),
            db_url: "postgres://db.example/postgres".into(),
        },
        limits,
        watch,
    };
    let host = FunctionsHost::new(config, jwt, test_db.db.owner.clone()).unwrap();
    let builtin = Builtin {
        names: vec!["builtin-hello".into(), "echo".into()],
        router: axum::Router::new()
            .route("/builtin-hello", post(|| async { "from rust" }))
            .route("/echo", post(|| async { "the built-in echo" })),
        verify_jwt: true,
    };
    let router = axum::Router::new().nest(
        "/functions/v1",
        plinth_functions::router(host.clone(), Some(builtin)),
    );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    TestHost {
        base,
        host,
        anon,
        http: reqwest::Client::new(),
        dir,
        test_db,
        _temp: temp,
    }
}

fn chrono_now() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap()
}

impl TestHost {
    fn url(&self, path: &str) -> String {
        format!("{}/functions/v1/{path}", self.base)
    }

    fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.http
            .post(self.url(path))
            .bearer_auth(&self.anon)
            .header("apikey", &self.anon)
    }

    fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.http.get(self.url(path)).bearer_auth(&self.anon)
    }
}

async fn json(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
    (status, body)
}

#[tokio::test]
async fn a_function_gets_the_request_as_sent_and_its_answer_goes_back_as_given() {
    let app = spawn_host(Limits::default(), false).await;
    let response = app
        .post("echo/deeper/path?x=1&y=two")
        .header("x-custom", "kept")
        .body("the body")
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-echo"], "yes");
    let (status, body) = json(response).await;
    assert_eq!(status, 201);
    assert_eq!(body["method"], "POST");
    assert_eq!(body["path"], "/echo/deeper/path");
    assert_eq!(body["query"], "?x=1&y=two");
    assert_eq!(body["custom"], "kept");
    assert_eq!(body["body"], "the body");
    assert_eq!(body["authorization"], format!("Bearer {}", app.anon));

    // Every method the platform lets through.
    for method in ["GET", "PUT", "PATCH", "DELETE"] {
        let response = app
            .http
            .request(method.parse().unwrap(), app.url("echo"))
            .bearer_auth(&app.anon)
            .send()
            .await
            .unwrap();
        let (status, body) = json(response).await;
        assert_eq!((status, body["method"].as_str()), (201, Some(method)));
    }
    let trace = app
        .http
        .request("TRACE".parse().unwrap(), app.url("echo"))
        .bearer_auth(&app.anon)
        .send()
        .await
        .unwrap();
    assert_eq!(trace.status(), 405);
}

#[tokio::test]
async fn the_jwt_is_checked_unless_the_function_opts_out() {
    let app = spawn_host(Limits::default(), false).await;
    let missing = app.http.post(app.url("echo")).send().await.unwrap();
    assert_eq!(
        json(missing).await,
        (
            401,
            json!({ "code": 401, "message": "Missing authorization header" })
        )
    );
    let forged = JwtSecret::new("another-secret-entirely-of-32-chars!!")
        .unwrap()
        .api_key("service_role", chrono_now(), chrono_now() + 60);
    let invalid = app
        .http
        .post(app.url("echo"))
        .bearer_auth(forged)
        .send()
        .await
        .unwrap();
    assert_eq!(
        json(invalid).await,
        (401, json!({ "code": 401, "message": "Invalid JWT" }))
    );
    // The apikey alone is not a bearer token.
    let apikey_only = app
        .http
        .post(app.url("echo"))
        .header("apikey", &app.anon)
        .send()
        .await
        .unwrap();
    assert_eq!(apikey_only.status(), 401);
    // A preflight carries no token and reaches the function.
    let preflight = app
        .http
        .request(reqwest::Method::OPTIONS, app.url("echo"))
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert_eq!(json(preflight).await.1["method"], "OPTIONS");
    // verify_jwt = false: any token, or none.
    let open = app
        .http
        .post(app.url("open"))
        .bearer_auth("not-a-jwt")
        .send()
        .await
        .unwrap();
    assert_eq!(open.status(), 200);
    assert_eq!(open.text().await.unwrap(), "open to all");
}

#[tokio::test]
async fn names_route_to_the_users_function_then_the_builtins_and_nothing_else() {
    let app = spawn_host(Limits::default(), false).await;
    // A user function of a built-in's name takes its place.
    let echo = app.post("echo").send().await.unwrap();
    assert_eq!(echo.status(), 201);
    let builtin = app.post("builtin-hello").send().await.unwrap();
    assert_eq!(builtin.text().await.unwrap(), "from rust");
    // The host checks the built-ins' callers too.
    let anonymous = app
        .http
        .post(app.url("builtin-hello"))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);
    for name in [
        "nothing-here",
        "..%2Fecho",
        "%2e%2e%2fenv",
        "echo%2F..%2Fenv",
        "data",
        "config.toml",
        "reader%00",
    ] {
        let response = app.post(name).send().await.unwrap();
        assert_eq!(
            json(response).await,
            (
                404,
                json!({ "code": "NOT_FOUND", "message": "Requested function was not found" })
            ),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_function_sees_the_project_variables_and_secrets_and_nothing_else() {
    let app = spawn_host(Limits::default(), false).await;
    let pairs = [("GREETING".to_owned(), "hello from the vault".to_owned())];
    let jwt = JwtSecret::new(SECRET).unwrap();
    plinth_functions::secrets::set(&app.test_db.db.owner, &jwt, &pairs)
        .await
        .unwrap();
    let (status, env) = json(app.get("env").send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(env["url"], app.base.as_str());
    assert_eq!(env["publicUrl"], "https://project.example.com");
    assert_eq!(env["anon"], app.anon.as_str());
    assert_eq!(env["service"], "service-key");
    assert_eq!(env["db"], "postgres://db.example/postgres");
    assert_eq!(env["secret"], "hello from the vault");
    assert_eq!(env["path"], "denied");
    assert_eq!(env["home"], "denied");

    // A new value reaches new workers: the change is announced and the
    // host replaces its workers.
    let pairs = [("GREETING".to_owned(), "a new greeting".to_owned())];
    plinth_functions::secrets::set(&app.test_db.db.owner, &jwt, &pairs)
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, env) = json(app.get("env").send().await.unwrap()).await;
        if env["secret"] == "a new greeting" {
            break;
        }
        assert!(Instant::now() < deadline, "the new secret never arrived");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // Stored sealed: neither the value nor its name's value is in the row.
    let sealed: Vec<u8> =
        sqlx::query_scalar("select sealed from plinth_functions.secrets where name = 'GREETING'")
            .fetch_one(&app.test_db.db.owner)
            .await
            .unwrap();
    assert!(
        !sealed
            .windows(b"a new greeting".len())
            .any(|w| w == b"a new greeting")
    );
    let listed = plinth_functions::secrets::list(&app.test_db.db.owner)
        .await
        .unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "GREETING");
    assert_eq!(listed[0].digest.len(), 64);
    // Another project's secret cannot open them.
    let other = JwtSecret::new("another-secret-entirely-of-32-chars!!").unwrap();
    assert!(matches!(
        plinth_functions::secrets::load(&app.test_db.db.owner, &other).await,
        Err(plinth_functions::secrets::SecretError::Sealed(name)) if name == "GREETING"
    ));
    // The platform's names are not secrets.
    let reserved = [("SUPABASE_URL".to_owned(), "http://evil".to_owned())];
    assert!(
        plinth_functions::secrets::set(&app.test_db.db.owner, &jwt, &reserved)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn a_function_reads_its_own_folder_only() {
    let app = spawn_host(Limits::default(), false).await;
    let (status, body) = json(app.get("reader").send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(body["own"], "its own file\n");
    assert_eq!(body["outside"], "denied");
}

#[tokio::test]
async fn a_function_uses_its_import_map_and_the_static_files_granted_to_it() {
    let app = spawn_host(Limits::default(), false).await;
    let (status, body) = json(app.get("mapped").send().await.unwrap()).await;
    assert_eq!(
        (status, body),
        (
            200,
            json!({ "greeting": "hello, map", "shared": "shared by config" })
        )
    );
    // A folder without an entrypoint is no function.
    assert_eq!(app.get("shared").send().await.unwrap().status(), 404);
}

#[tokio::test]
async fn request_and_response_bodies_stream() {
    let app = spawn_host(Limits::default(), false).await;
    // The request body goes out in chunks over half a second.
    let chunks = futures_util::stream::iter(0..5).then(|i| async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok::<_, std::io::Error>(vec![b'x'; 1000 + i])
    });
    let response = app
        .post("stream")
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.bytes_stream();
    let mut events = Vec::new();
    let mut arrivals = Vec::new();
    let mut text = String::new();
    while let Some(chunk) = body.next().await {
        text.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        while let Some(end) = text.find("\n\n") {
            let event: String = text.drain(..end + 2).collect();
            events.push(event.trim().trim_start_matches("data: ").to_owned());
            arrivals.push(Instant::now());
        }
    }
    assert_eq!(events.len(), 5);
    let first: Value = serde_json::from_str(&events[0]).unwrap();
    assert_eq!(first["received"], 5010);
    // The events arrived as they were written, not all at the end.
    let spread = arrivals[4] - arrivals[0];
    assert!(spread >= Duration::from_millis(600), "{spread:?}");
}

#[tokio::test]
async fn a_request_over_the_wall_clock_limit_is_stopped_with_546() {
    let limits = Limits {
        wall_clock: Duration::from_secs(2),
        ..Limits::default()
    };
    let app = spawn_host(limits, false).await;
    let (_, warm) = json(app.get("slow").send().await.unwrap()).await;
    let started = Instant::now();
    let response = app.get("slow?ms=20000").send().await.unwrap();
    assert_eq!(response.headers()["sb-error-code"], "WORKER_LIMIT");
    assert_eq!(json(response).await.0, 546);
    assert!(started.elapsed() < Duration::from_secs(5));
    // The worker was replaced; the function still answers.
    let (status, again) = json(app.get("slow").send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_ne!(again["pid"], warm["pid"]);
}

#[tokio::test]
async fn a_worker_over_its_memory_is_stopped_with_546_and_replaced() {
    let limits = Limits {
        memory_mb: 128,
        ..Limits::default()
    };
    let app = spawn_host(limits, false).await;
    for path in ["hog/heap", "hog/buffers"] {
        let (_, before) = json(app.get("hog").send().await.unwrap()).await;
        let started = Instant::now();
        let response = app.get(path).send().await.unwrap();
        // Stopped for its memory, long before the wall clock.
        assert!(started.elapsed() < Duration::from_secs(30), "{path}");
        assert_eq!(
            response.headers()["sb-error-code"],
            "WORKER_LIMIT",
            "{path}"
        );
        assert_eq!(json(response).await.0, 546, "{path}");
        let (status, after) = json(app.get("hog").send().await.unwrap()).await;
        assert_eq!(status, 200);
        assert_ne!(after["pid"], before["pid"], "{path}");
    }
}

#[tokio::test]
async fn a_crash_is_a_500_and_the_function_comes_back() {
    let app = spawn_host(Limits::default(), false).await;
    let (_, before) = json(app.get("crash").send().await.unwrap()).await;
    let thrown = app.get("crash/throw").send().await.unwrap();
    assert_eq!(thrown.headers()["sb-error-code"], "WORKER_ERROR");
    assert_eq!(json(thrown).await.0, 500);
    // A thrown error does not end the worker.
    let (_, same) = json(app.get("crash").send().await.unwrap()).await;
    assert_eq!(same["pid"], before["pid"]);

    let exited = app.get("crash/exit").send().await.unwrap();
    assert_eq!(
        json(exited).await,
        (
            500,
            json!({ "code": "WORKER_ERROR", "message": "Function exited before it answered (please check logs)" })
        )
    );
    let (status, after) = json(app.get("crash").send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_ne!(after["pid"], before["pid"]);
}

#[tokio::test]
async fn a_function_that_cannot_start_is_a_503_boot_error() {
    let app = spawn_host(Limits::default(), false).await;
    let started = Instant::now();
    let response = app.get("broken").send().await.unwrap();
    // Answered as soon as the worker gave up, not at the boot limit.
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(response.headers()["sb-error-code"], "BOOT_ERROR");
    assert_eq!(
        json(response).await,
        (
            503,
            json!({ "code": "BOOT_ERROR", "message": "Function failed to start (please check logs)" })
        )
    );
    // Without Deno, the same answer (and the server's log says why).
    let without = spawn_host_with(Limits::default(), false, None).await;
    let response = without.get("echo").send().await.unwrap();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["sb-error-code"], "BOOT_ERROR");
}

#[tokio::test]
async fn past_the_pool_requests_wait_their_turn_then_get_a_503_never_a_hang() {
    let limits = Limits {
        max_workers: 1,
        worker_concurrency: 2,
        queue_wait: Duration::from_secs(2),
        ..Limits::default()
    };
    let app = spawn_host(limits, false).await;
    assert_eq!(app.get("slow").send().await.unwrap().status(), 200);
    let started = Instant::now();
    // Two hold the only worker's two places for 3 s. Two more arrive at
    // 0.3 s: their 2 s of waiting end before a place frees, so they get a
    // 503. One more arrives at 2 s and waits its turn (places free at 3 s).
    let call = |delay_ms: u64, sleep_ms: u64| {
        let request = app.get(&format!("slow?ms={sleep_ms}"));
        async move {
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            let response = request.send().await.unwrap();
            (delay_ms, response)
        }
    };
    let responses = futures_util::future::join_all([
        call(0, 3000),
        call(0, 3000),
        call(300, 0),
        call(300, 0),
        call(2000, 0),
    ])
    .await;
    let statuses: Vec<(u64, u16)> = responses
        .iter()
        .map(|(delay, r)| (*delay, r.status().as_u16()))
        .collect();
    assert_eq!(
        statuses,
        vec![(0, 200), (0, 200), (300, 503), (300, 503), (2000, 200)],
        "{statuses:?}"
    );
    let (_, refused) = &responses[2];
    assert_eq!(refused.headers()["sb-error-code"], "WORKER_LIMIT");
    assert_eq!(refused.headers()["retry-after"], "1");
    assert!(started.elapsed() < Duration::from_secs(8));
    assert_eq!(app.host.worker_pids("slow").len(), 1);
}

#[tokio::test]
async fn idle_workers_stop_and_changed_files_are_served_at_once_when_watching() {
    let limits = Limits {
        idle: Duration::from_secs(1),
        ..Limits::default()
    };
    let app = spawn_host(limits, true).await;
    let (_, first) = json(app.get("slow").send().await.unwrap()).await;
    let pid = first["pid"].as_u64().unwrap();
    assert_eq!(
        app.host.worker_pids("slow"),
        vec![u32::try_from(pid).unwrap()]
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !app.host.worker_pids("slow").is_empty() {
        assert!(
            Instant::now() < deadline,
            "the idle worker was never stopped"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(!Path::new(&format!("/proc/{pid}")).exists());

    // Watching: an edit is served by the next request.
    let (_, before) = json(app.get("echo").send().await.unwrap()).await;
    assert_eq!(before["method"], "GET");
    std::fs::write(
        app.dir.join("echo/index.ts"),
        "Deno.serve(() => Response.json({ edited: true }))\n",
    )
    .unwrap();
    let (status, after) = json(app.get("echo").send().await.unwrap()).await;
    assert_eq!((status, after), (200, json!({ "edited": true })));
    // A new function is found without a restart.
    std::fs::create_dir_all(app.dir.join("fresh")).unwrap();
    std::fs::write(
        app.dir.join("fresh/index.ts"),
        "Deno.serve(() => new Response('fresh'))\n",
    )
    .unwrap();
    let fresh = app.get("fresh").send().await.unwrap();
    assert_eq!(fresh.text().await.unwrap(), "fresh");
    assert!(app.host.names().contains(&"fresh".to_owned()));
}

/// The CPU time of a process so far, in clock ticks (`utime` + `stime` of
/// `/proc/<pid>/stat`; 100 a second on Linux).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[tokio::test]
async fn a_busy_loop_is_ended_at_its_cpu_limit_and_others_are_served_meanwhile() {
    let limits = Limits {
        wall_clock: Duration::from_secs(60),
        cpu_soft_limit: Some(Duration::from_millis(300)),
        cpu_hard_limit: Some(Duration::from_millis(1500)),
        ..Limits::default()
    };
    let app = spawn_host(limits, false).await;
    let (_, warm) = json(app.get("spin").send().await.unwrap()).await;
    let pid = u32::try_from(warm["pid"].as_u64().unwrap()).unwrap();
    let before = cpu_ticks(pid);
    let started = Instant::now();
    let looping = tokio::spawn(app.get("spin/loop").send());
    // The loop has spent more than the soft limit (400 ms) and the worker
    // has had a tick (200 ms) to see it, far from the hard limit.
    while cpu_ticks(pid) < before + 40 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the loop never ran"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!looping.is_finished());
    // A request sent while the loop runs goes to another worker: it does
    // not wait behind the loop.
    let other = tokio::time::timeout(Duration::from_secs(30), app.get("spin").send())
        .await
        .expect("the request waited behind the busy loop")
        .unwrap();
    let (status, other) = json(other).await;
    assert_eq!(status, 200);
    assert_ne!(other["pid"], warm["pid"]);
    // The loop is ended at the hard limit, long before the wall clock.
    let response = tokio::time::timeout(Duration::from_secs(30), looping)
        .await
        .expect("the busy loop was not ended at its CPU limit")
        .unwrap()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(response.headers()["sb-error-code"], "WORKER_LIMIT");
    assert_eq!(
        json(response).await,
        (
            546,
            json!({ "code": "WORKER_LIMIT", "message": "Function failed due to not having enough compute resources (please check logs)" })
        )
    );
    assert!(!Path::new(&format!("/proc/{pid}")).exists());
    assert_eq!(
        app.host.worker_pids("spin"),
        vec![u32::try_from(other["pid"].as_u64().unwrap()).unwrap()]
    );
}
