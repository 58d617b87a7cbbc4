//! Start-up errors and `plinth keys`, through the real binary.

use std::time::Duration;

use crate::helpers::{free_port, output, own_database, plinth};

fn assert_one_line_error(ok: bool, stderr: &str, needle: &str) {
    assert!(!ok, "expected a failure; stderr: {stderr}");
    let last = stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("error: "), "last line of stderr: {last}");
    assert!(last.contains(needle), "expected {needle:?} in: {last}");
}

#[test]
fn keys_prints_sourceable_lines_that_stay_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = plinth(dir.path());
    cmd.arg("keys");
    let (ok, first, stderr) = output(cmd);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = first.lines().collect();
    assert_eq!(lines.len(), 2, "{first}");
    assert!(lines[0].starts_with("ANON_KEY=ey"), "{first}");
    assert!(lines[1].starts_with("SERVICE_ROLE_KEY=ey"), "{first}");
    let mut again = plinth(dir.path());
    again.arg("keys");
    assert_eq!(output(again).1, first);
}

#[test]
fn keys_made_from_a_configured_secret_verify_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let secret = "a-configured-secret-of-32-characters-or-more";
    let mut cmd = plinth(dir.path());
    cmd.arg("keys").env("JWT_SECRET", secret);
    let (ok, out, stderr) = output(cmd);
    assert!(ok, "{stderr}");
    let anon = out
        .lines()
        .next()
        .unwrap()
        .strip_prefix("ANON_KEY=")
        .unwrap();
    let claims = plinth_db::JwtSecret::new(secret)
        .unwrap()
        .verify(anon)
        .unwrap();
    assert_eq!(claims["role"], "anon");

    let mut short = plinth(dir.path());
    short.arg("keys").env("JWT_SECRET", "too-short");
    let (ok, _, stderr) = output(short);
    assert_one_line_error(ok, &stderr, "at least 32 characters");
}

#[test]
fn keys_generate_prints_a_key_set_that_plinth_then_signs_with() {
    let dir = tempfile::tempdir().unwrap();
    let secret = "a-configured-secret-of-32-characters-or-more";
    let mut cmd = plinth(dir.path());
    cmd.args(["keys", "generate", "--alg", "rs256"])
        .env("JWT_SECRET", secret);
    let (ok, out, stderr) = output(cmd);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let set = lines[0]
        .strip_prefix("GOTRUE_JWT_KEYS='")
        .and_then(|l| l.strip_suffix('\''))
        .unwrap();
    let keys: serde_json::Value = serde_json::from_str(set).unwrap();
    assert_eq!(keys[0]["alg"], "RS256");
    assert!(keys[0]["d"].is_string());
    let with_set = plinth_db::JwtSecret::new(secret)
        .unwrap()
        .with_key_set(set)
        .unwrap();
    let printed_anon = lines[1].strip_prefix("ANON_KEY=").unwrap();
    assert!(with_set.is_current(printed_anon));
    assert_eq!(with_set.verify(printed_anon).unwrap()["role"], "anon");

    // `plinth keys` with the set: API keys signed with its key.
    let mut cmd = plinth(dir.path());
    cmd.arg("keys")
        .env("JWT_SECRET", secret)
        .env("GOTRUE_JWT_KEYS", set);
    let (ok, out, stderr) = output(cmd);
    assert!(ok, "{stderr}");
    let service = out
        .lines()
        .find_map(|l| l.strip_prefix("SERVICE_ROLE_KEY="))
        .unwrap();
    assert!(with_set.is_current(service));
    assert_eq!(with_set.verify(service).unwrap()["role"], "service_role");

    // A broken set stops the command with one clear line.
    let mut cmd = plinth(dir.path());
    cmd.arg("keys")
        .env("JWT_SECRET", secret)
        .env("GOTRUE_JWT_KEYS", r#"[{"kty":"RSA"}]"#);
    let (ok, _, stderr) = output(cmd);
    assert_one_line_error(ok, &stderr, "GOTRUE_JWT_KEYS: key 0 of the JWT key set");
    let mut cmd = plinth(dir.path());
    cmd.args(["keys", "generate", "--alg", "HS999"]);
    assert!(!output(cmd).0);
}

#[test]
fn a_port_in_use_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &port.to_string()])
        .env("DATABASE_URL", plinth_db::testing::server_url());
    let (ok, _, stderr) = output(cmd);
    assert_one_line_error(ok, &stderr, &format!("port {port} is already in use"));
}

#[test]
fn an_unreachable_database_url_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &free_port().to_string()]).env(
        "DATABASE_URL",
        "postgres://someone:hunter2@127.0.0.1:1/nowhere",
    );
    let started = std::time::Instant::now();
    let (ok, _, stderr) = output(cmd);
    assert_one_line_error(
        ok,
        &stderr,
        "cannot connect to the database at 127.0.0.1:1/nowhere",
    );
    assert!(!stderr.contains("hunter2"), "the password leaked: {stderr}");
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn missing_postgres_binaries_say_how_to_install_them() {
    let dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &free_port().to_string()])
        .env("PLINTH_PG_BIN_DIR", empty.path());
    let (ok, _, stderr) = output(cmd);
    assert_one_line_error(ok, &stderr, "apt-get install -y postgresql");
}

#[test]
fn a_cluster_of_another_major_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pgdata = dir.path().join("data/postgres");
    std::fs::create_dir_all(&pgdata).unwrap();
    std::fs::write(pgdata.join("PG_VERSION"), "9\n").unwrap();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &free_port().to_string()]);
    let (ok, _, stderr) = output(cmd);
    assert_one_line_error(ok, &stderr, "holds a PostgreSQL 9 cluster");
}

#[test]
fn an_edited_project_migration_stops_start_up_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let migrations = dir.path().join("migrations");
    std::fs::create_dir_all(&migrations).unwrap();
    let file = migrations.join("20261122000000_things.sql");
    std::fs::write(&file, "create table public.things (id int);").unwrap();
    // A database of its own on the test server.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let test_db = rt.block_on(plinth_db::testing::TestDb::new(&[]));
    let url = format!(
        "{}/{}",
        plinth_db::testing::server_url().rsplit_once('/').unwrap().0,
        test_db.name
    );
    let mut first = plinth(dir.path());
    first
        .args(["migrate", "--policies", "none"])
        .env("DATABASE_URL", &url);
    let (ok, out, stderr) = output(first);
    assert!(ok, "{stderr}");
    assert!(out.contains("migrations applied"));

    std::fs::write(&file, "create table public.things (id bigint);").unwrap();
    let mut second = plinth(dir.path());
    second
        .args(["migrate", "--policies", "none"])
        .env("DATABASE_URL", &url);
    let (ok, _, stderr) = output(second);
    assert_one_line_error(
        ok,
        &stderr,
        "20261122000000_things.sql was edited after it was applied",
    );
    drop(test_db);
}

#[test]
fn json_logs_are_one_object_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let test_db = rt.block_on(plinth_db::testing::TestDb::new(&[]));
    let url = format!(
        "{}/{}",
        plinth_db::testing::server_url().rsplit_once('/').unwrap().0,
        test_db.name
    );
    let port = free_port();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &port.to_string(), "--log-format", "json"])
        .args(["--migrations", "none", "--policies", "none"])
        .env("DATABASE_URL", &url)
        .env("RUST_LOG", "info,tower_http=debug");
    let running = crate::helpers::Running::start(cmd);
    // Logs (stderr) and the ready line (stdout) arrive on separate pipes:
    // wait for the log line itself.
    let lines = running
        .wait_for("plinth is listening", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("never listening: {seen:#?}"));
    let logged: Vec<serde_json::Value> = lines
        .iter()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let listening = logged
        .iter()
        .find(|v| v["message"] == "plinth is listening")
        .unwrap_or_else(|| panic!("no listening line in {lines:#?}"));
    assert_eq!(listening["level"], "INFO");
    assert_eq!(listening["url"], format!("http://127.0.0.1:{port}"));

    // What is logged while a request is handled carries its id.
    let res = rt.block_on(
        reqwest::Client::new()
            .get(format!(
                "http://127.0.0.1:{port}/health?apikey=secret-in-query"
            ))
            .header("x-request-id", "log-trace-7")
            .send(),
    );
    assert_eq!(res.unwrap().headers()["x-request-id"], "log-trace-7");
    let lines = running
        .wait_for("log-trace-7", Duration::from_secs(10))
        .unwrap_or_else(|seen| panic!("no log line with the request id: {seen:#?}"));
    let line: serde_json::Value = serde_json::from_str(lines.last().unwrap()).unwrap();
    assert_eq!(line["span"]["request_id"], "log-trace-7", "{line}");
    assert_eq!(line["span"]["path"], "/health", "{line}");
    assert!(
        !lines.iter().any(|l| l.contains("secret-in-query")),
        "the query reached the logs: {lines:#?}"
    );
    // The console is off unless enabled.
    let console = rt
        .block_on(
            reqwest::Client::new()
                .get(format!("http://127.0.0.1:{port}/_/console/api/session"))
                .send(),
        )
        .unwrap();
    assert_eq!(console.status(), reqwest::StatusCode::NOT_FOUND);
    assert!(running.interrupt().success());
    drop(test_db);
}

#[test]
fn the_console_warns_without_tls_and_its_log_book_reads_info_whatever_rust_log_says() {
    let (rt, test_db, url) = own_database();
    let (ok, _, stderr) = in_repo(&["admin", "operator", "ops@example.test"], &url);
    assert!(ok, "{stderr}");
    rt.block_on(plinth_console::set_operator(
        &test_db.db.owner,
        "ops@example.test",
        "a long operator password",
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let mut cmd = plinth(dir.path());
    cmd.args(["serve", "--port", &port.to_string()])
        .args(["--migrations", "none", "--policies", "none"])
        .env("DATABASE_URL", &url)
        .env("PLINTH_CONSOLE", "true")
        .env("RUST_LOG", "warn");
    let running = crate::helpers::Running::start(cmd);
    let lines = running
        .wait_for("Plinth is ready", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("never ready: {seen:#?}"));
    assert!(
        lines.iter().any(|l| l.contains("without TLS in front")),
        "no warning: {lines:#?}"
    );
    let http = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}/_/console/api");
    let signed = rt
        .block_on(
            http.post(format!("{base}/session"))
                .header("x-plinth-console", "1")
                .json(&serde_json::json!({ "email": "ops@example.test", "password": "a long operator password" }))
                .send(),
        )
        .unwrap();
    assert_eq!(signed.status(), reqwest::StatusCode::OK);
    let cookie = signed.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let read = |path: &str| -> serde_json::Value {
        rt.block_on(async {
            http.get(format!("{base}{path}"))
                .header("cookie", &cookie)
                .send()
                .await?
                .json()
                .await
        })
        .unwrap()
    };
    let logs = read("/logs?service=node&level=info");
    let messages: Vec<&str> = logs["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["message"].as_str())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("plinth is listening")),
        "{messages:#?}"
    );
    let settings = read("/settings");
    let setting = |name: &str| {
        settings["config"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {settings}"))
            .clone()
    };
    assert_eq!(setting("PORT")["value"], port.to_string());
    assert_eq!(setting("PORT")["set"], true);
    assert_eq!(setting("PLINTH_CONSOLE")["value"], "true");
    assert_eq!(setting("JWT_EXPIRY")["set"], false);
    assert!(running.interrupt().success());
    drop(test_db);
}

fn in_repo(args: &[&str], url: &str) -> (bool, String, String) {
    let root = crate::helpers::repo_root();
    let mut cmd = plinth(&root);
    cmd.args(args)
        .args([
            "--data-dir",
            &std::env::temp_dir()
                .join("plinth-cli-keys")
                .display()
                .to_string(),
        ])
        .env("DATABASE_URL", url);
    output(cmd)
}

#[test]
fn seed_demo_loads_a_living_marketplace_and_admin_grant_makes_admins() {
    let (rt, test_db, url) = own_database();
    let (ok, out, stderr) = in_repo(&["seed", "--demo"], &url);
    assert!(ok, "{stderr}");
    assert!(out.contains("demo.sql"), "{out}");
    let count = |sql: &'static str| -> i64 {
        rt.block_on(sqlx::query_scalar::<_, i64>(sql).fetch_one(&test_db.db.owner))
            .unwrap()
    };
    assert!(count("select count(*) from public.templates where is_published") >= 10);
    assert!(count("select count(*) from public.templates_draft") >= 1);
    assert!(count("select count(*) from public.templates_pending_approval") >= 1);
    assert!(count("select count(*) from public.templates_rejected") >= 1);
    assert!(count("select count(*) from public.template_upvotes") >= 10);
    assert!(count("select count(*) from public.template_ratings") >= 10);
    // Loading it again changes nothing.
    let before = count("select count(*) from public.template_upvotes");
    assert!(in_repo(&["seed", "--demo"], &url).0);
    assert_eq!(
        count("select count(*) from public.template_upvotes"),
        before
    );

    let is_admin = |email: &str| -> bool {
        rt.block_on(
            sqlx::query_scalar::<_, bool>(
                "select exists (select 1 from public.admins a join auth.users u on u.id = a.user_id
                 where u.email = $1)",
            )
            .bind(email)
            .fetch_one(&test_db.db.owner),
        )
        .unwrap()
    };
    assert!(!is_admin("maya@demo.plinth.dev"));
    let (ok, out, stderr) = in_repo(&["admin", "grant", "Maya@Demo.Plinth.dev"], &url);
    assert!(ok, "{stderr}");
    assert!(out.contains("is an admin"), "{out}");
    assert!(is_admin("maya@demo.plinth.dev"));
    let (ok, _, stderr) = in_repo(&["admin", "revoke", "maya@demo.plinth.dev"], &url);
    assert!(ok, "{stderr}");
    assert!(!is_admin("maya@demo.plinth.dev"));

    let (ok, _, stderr) = in_repo(&["admin", "grant", "nobody@example.com"], &url);
    assert_one_line_error(ok, &stderr, "no user has the e-mail nobody@example.com");
    drop(test_db);
}

#[test]
fn admin_operator_makes_console_operators_on_the_command_line() {
    let (rt, test_db, url) = own_database();
    let hash_of = |email: &str| -> Option<String> {
        rt.block_on(
            sqlx::query_scalar::<_, String>(
                "select password_hash from plinth_console.operators where lower(email) = lower($1)",
            )
            .bind(email)
            .fetch_optional(&test_db.db.owner),
        )
        .unwrap()
    };
    // A generated password, printed once, that signs in.
    let (ok, out, stderr) = in_repo(&["admin", "operator", "Ops@Example.test"], &url);
    assert!(ok, "{stderr}");
    let password = out
        .split("(shown once): ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no password in {out}"))
        .to_owned();
    assert_eq!(password.len(), 24);
    let first = hash_of("ops@example.test").expect("the operator exists");
    assert!(first.starts_with("$argon2id$"), "{first}");
    assert!(!first.contains(&password));
    let checked = rt
        .block_on(plinth_console::operators::check_password(
            &test_db.db.owner,
            "ops@example.test",
            &password,
        ))
        .unwrap();
    assert!(checked.is_some(), "the printed password signs in");

    // A password from standard input: too short is refused, else it replaces.
    let with_stdin = |input: &str| {
        let root = crate::helpers::repo_root();
        let mut cmd = plinth(&root);
        cmd.args(["admin", "operator", "ops@example.test", "--password-stdin"])
            .args([
                "--data-dir",
                &std::env::temp_dir()
                    .join("plinth-cli-keys")
                    .display()
                    .to_string(),
            ])
            .env("DATABASE_URL", &url)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let done = child.wait_with_output().unwrap();
        (
            done.status.success(),
            String::from_utf8_lossy(&done.stderr).into_owned(),
        )
    };
    let (ok, stderr) = with_stdin("short\n");
    assert_one_line_error(ok, &stderr, "at least 12 characters");
    assert_eq!(hash_of("ops@example.test").as_deref(), Some(first.as_str()));
    let (ok, stderr) = with_stdin("a much longer password\n");
    assert!(ok, "{stderr}");
    assert_ne!(hash_of("ops@example.test").as_deref(), Some(first.as_str()));

    let (ok, _, stderr) = in_repo(&["admin", "operator", "ops@example.test", "--remove"], &url);
    assert!(ok, "{stderr}");
    assert!(hash_of("ops@example.test").is_none());
    let (ok, _, stderr) = in_repo(&["admin", "operator", "not an address"], &url);
    assert_one_line_error(ok, &stderr, "is not an e-mail address");
    drop(test_db);
}

#[test]
fn a_node_on_a_read_replica_serves_rest_reads_and_writes_nothing() {
    let (rt, test_db, url) = own_database();
    let (ok, _, stderr) = in_repo(&["seed", "--demo"], &url);
    assert!(ok, "{stderr}");
    // As a hot standby: every transaction is read-only.
    rt.block_on(
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "alter database \"{}\" set default_transaction_read_only = on",
            test_db.name
        )))
        .execute(&test_db.db.owner),
    )
    .unwrap();
    let secret = "a-read-replica-test-secret-of-forty-chars!";
    let jwt = plinth_db::JwtSecret::new(secret).unwrap();
    let now = chrono::Utc::now().timestamp();
    let anon = jwt.api_key("anon", now, now + 3600);
    let service = jwt.api_key("service_role", now, now + 3600);

    let dir = tempfile::tempdir().unwrap();
    let serve = |replica: bool| {
        let port = free_port();
        let mut cmd = plinth(&crate::helpers::repo_root());
        cmd.args(["serve", "--port", &port.to_string()])
            .args(["--data-dir", &dir.path().display().to_string()])
            .env("DATABASE_URL", &url)
            .env("JWT_SECRET", secret)
            .env("PLINTH_APP_DIR", "/nonexistent")
            .env("PLINTH_READ_REPLICA", replica.to_string());
        (port, crate::helpers::Running::start(cmd))
    };
    // A read-write node cannot start on it (its migrations write).
    let (_, primary_node) = serve(false);
    let seen = primary_node
        .wait_for("error: ", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("a read-write node started on a replica: {seen:#?}"));
    assert!(seen.last().unwrap().contains("read-only"), "{seen:#?}");

    let (port, node) = serve(true);
    node.wait_for("Plinth is ready", Duration::from_secs(60))
        .unwrap_or_else(|seen| panic!("the replica node never became ready: {seen:#?}"));
    let base = format!("http://127.0.0.1:{port}");
    rt.block_on(async {
        let client = reqwest::Client::new();
        let health = client.get(format!("{base}/health")).send().await.unwrap();
        assert_eq!(health.status(), 200);
        let read = client
            .get(format!("{base}/rest/v1/categories?select=slug"))
            .header("apikey", &anon)
            .send()
            .await
            .unwrap();
        assert_eq!(read.status(), 200);
        let rows: Vec<serde_json::Value> = read.json().await.unwrap();
        assert!(!rows.is_empty());
        // It registered no realtime node (a write a standby would refuse).
        let nodes: i64 = sqlx::query_scalar("select count(*) from realtime.nodes")
            .fetch_one(&test_db.db.owner)
            .await
            .unwrap();
        assert_eq!(nodes, 0);
        // Auth, storage and realtime are the primary's nodes' to serve.
        let auth = client
            .get(format!("{base}/auth/v1/settings"))
            .header("apikey", &anon)
            .send()
            .await
            .unwrap();
        assert_eq!(auth.status(), 404);
        let metrics = client
            .get(format!("{base}/metrics"))
            .bearer_auth(&service)
            .send()
            .await
            .unwrap();
        assert_eq!(metrics.status(), 200);
    });
    assert!(node.interrupt().success());
    drop(test_db);
}
