#![allow(clippy::unwrap_used)]

//! The project's own functions on a whole node: a function that imports
//! `npm:@supabase/supabase-js` and calls back into the node as its caller
//! (row-level security applies), CORS left to the function, a project
//! function in a built-in's place, and `plinth functions ...` on the real
//! binary (scaffold, list, secrets, serve with reload, no Deno).
//!
//! Needs Deno (`PLINTH_DENO_BIN` or PATH; `scripts/test` installs it) and
//! the npm registry (the first run fetches supabase-js into `DENO_DIR`).

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{Running, free_port, output, own_database, plinth, printed_key, spawn_app};

fn write_function(functions: &Path, name: &str, source: &str) {
    std::fs::create_dir_all(functions.join(name)).unwrap();
    std::fs::write(functions.join(name).join("index.ts"), source).unwrap();
}

const NOTES: &str = r#"
import { createClient } from 'npm:@supabase/supabase-js@2'

Deno.serve(async (req: Request) => {
  const supabase = createClient(Deno.env.get('SUPABASE_URL')!, Deno.env.get('SUPABASE_ANON_KEY')!, {
    global: { headers: { Authorization: req.headers.get('Authorization')! } },
    auth: { persistSession: false },
  })
  const { data, error } = await supabase.from('fn_notes').select('body').order('body')
  if (error) return Response.json({ error }, { status: 500 })
  return Response.json(data.map((row: { body: string }) => row.body))
})
"#;

fn deno_bin() -> String {
    std::env::var("PLINTH_DENO_BIN").unwrap_or_else(|_| "deno".into())
}

#[tokio::test]
async fn a_function_calls_back_as_its_caller_under_row_level_security() {
    let app = spawn_app().await;
    let owner = &app.test_db.db.owner;
    sqlx::raw_sql(
        "create table public.fn_notes (user_id uuid not null, body text not null);
         alter table public.fn_notes enable row level security;
         create policy own_notes on public.fn_notes for select to authenticated using (user_id = auth.uid());
         grant select on public.fn_notes to anon, authenticated;
         notify pgrst, 'reload schema';",
    )
    .execute(owner)
    .await
    .unwrap();
    let ada = uuid::Uuid::new_v4();
    let bo = uuid::Uuid::new_v4();
    sqlx::query(
        "insert into public.fn_notes (user_id, body) values ($1, 'ada 1'), ($1, 'ada 2'), ($2, 'bo 1')",
    )
    .bind(ada)
    .bind(bo)
    .execute(owner)
    .await
    .unwrap();
    let functions = app.functions_dir();
    write_function(&functions, "notes", NOTES);
    let token = |user: uuid::Uuid| {
        app.keys.secret.sign(&json!({
            "sub": user.to_string(), "role": "authenticated", "aud": "authenticated",
            "exp": chrono::Utc::now().timestamp() + 600,
        }))
    };
    let http = reqwest::Client::new();
    let call = |bearer: String| {
        http.post(format!("{}/functions/v1/notes", app.url))
            .header("apikey", &app.keys.anon_key)
            .bearer_auth(bearer)
            .send()
    };
    // The schema cache reloads in the background; the first call may race it.
    let mut seen = Value::Null;
    for _ in 0..50 {
        let response = call(token(ada)).await.unwrap();
        seen = response.json().await.unwrap();
        if seen.is_array() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(seen, json!(["ada 1", "ada 2"]));
    let bos: Value = call(token(bo)).await.unwrap().json().await.unwrap();
    assert_eq!(bos, json!(["bo 1"]));
    let anons: Value = call(app.keys.anon_key.clone())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(anons, json!([]));
}

#[tokio::test]
async fn cors_is_the_functions_own_and_a_project_function_replaces_a_built_in() {
    let app = spawn_app().await;
    let functions = app.functions_dir();
    write_function(
        &functions,
        "quiet",
        "Deno.serve((req) => new Response(req.method === 'OPTIONS' ? 'preflight seen' : 'quiet'))\n",
    );
    let http = reqwest::Client::new();
    let preflight = http
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/functions/v1/quiet", app.url),
        )
        .header("origin", "https://elsewhere.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    // The function answered; the node added no CORS header of its own.
    assert_eq!(preflight.status(), 200);
    assert!(
        preflight
            .headers()
            .get("access-control-allow-origin")
            .is_none()
    );
    assert_eq!(preflight.text().await.unwrap(), "preflight seen");
    // A built-in keeps the node's CORS.
    let builtin = http
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/functions/v1/track-template-view", app.url),
        )
        .header("origin", "https://elsewhere.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    assert!(
        builtin
            .headers()
            .get("access-control-allow-origin")
            .is_some()
    );

    write_function(
        &functions,
        "track-template-view",
        "Deno.serve(() => Response.json({ mine: true }))\n",
    );
    let replaced: Value = http
        .post(format!("{}/functions/v1/track-template-view", app.url))
        .bearer_auth(&app.keys.anon_key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(replaced, json!({ "mine": true }));
}

#[test]
fn plinth_functions_scaffolds_lists_keeps_secrets_and_serves_with_reload() {
    let (rt, test_db, url) = own_database();
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let mut cmd = plinth(dir.path());
        cmd.args(args)
            .env("DATABASE_URL", &url)
            .env("JWT_SECRET", "functions-cli-secret-of-32-characters!");
        output(cmd)
    };
    let (ok, out, stderr) = run(&["functions", "new", "hello"]);
    assert!(ok, "{stderr}");
    assert!(out.contains("functions/hello/index.ts"), "{out}");
    let index = std::fs::read_to_string(dir.path().join("functions/hello/index.ts")).unwrap();
    assert!(index.contains("Deno.serve"));
    let (ok, _, stderr) = run(&["functions", "new", "hello"]);
    assert!(!ok && stderr.contains("exists already"), "{stderr}");
    let (ok, _, stderr) = run(&["functions", "new", "../escape"]);
    assert!(!ok && stderr.contains("is not a function name"), "{stderr}");
    assert!(!dir.path().join("escape").exists());
    let (ok, out, _) = run(&["functions", "list"]);
    assert!(ok);
    assert!(out.contains("hello\tverify_jwt=true"), "{out}");
    assert!(out.contains("Built in: track-template-view"), "{out}");

    // Secrets: set (arguments and an env file), list without values, unset.
    std::fs::write(
        dir.path().join("secrets.env"),
        "FROM_FILE=\"filed value\"\n",
    )
    .unwrap();
    let (ok, _, stderr) = run(&[
        "functions",
        "secrets",
        "set",
        "GREETING=hello there",
        "--env-file",
        "secrets.env",
    ]);
    assert!(ok, "{stderr}");
    let (ok, out, _) = run(&["functions", "secrets", "list"]);
    assert!(ok);
    assert!(
        out.contains("FROM_FILE\tsha256:") && out.contains("GREETING\tsha256:"),
        "{out}"
    );
    assert!(
        !out.contains("hello there") && !out.contains("filed value"),
        "{out}"
    );
    let (ok, _, stderr) = run(&["functions", "secrets", "set", "SUPABASE_URL=http://evil"]);
    assert!(!ok && stderr.contains("reserved"), "{stderr}");
    let (ok, out, _) = run(&["functions", "secrets", "unset", "FROM_FILE", "NEVER_SET"]);
    assert!(ok);
    assert!(
        out.contains("Removed FROM_FILE") && out.contains("NEVER_SET was not set"),
        "{out}"
    );

    // `functions serve`: the function answers with the secret, and an edit
    // is served at once.
    write_function(
        &dir.path().join("functions"),
        "hello",
        "Deno.serve(() => new Response(`v1 ${Deno.env.get('GREETING')}`))\n",
    );
    let port = free_port();
    let mut cmd = plinth(dir.path());
    cmd.args(["functions", "serve"])
        .env("DATABASE_URL", &url)
        .env("JWT_SECRET", "functions-cli-secret-of-32-characters!")
        .env("PORT", port.to_string())
        .env("PLINTH_DENO_BIN", deno_bin())
        .env("RUST_LOG", "info");
    let running = Running::start(cmd);
    running
        .wait_for("plinth is listening", Duration::from_secs(60))
        .expect("plinth functions serve starts");
    let (_, keys, _) = run(&["keys"]);
    let anon = printed_key(keys.lines(), "ANON_KEY");
    let call = || {
        rt.block_on(async {
            reqwest::Client::new()
                .post(format!("http://127.0.0.1:{port}/functions/v1/hello"))
                .bearer_auth(&anon)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        })
    };
    assert_eq!(call(), "v1 hello there");
    write_function(
        &dir.path().join("functions"),
        "hello",
        "Deno.serve(() => new Response('v2'))\n",
    );
    assert_eq!(call(), "v2");
    // Each invocation is in the server's log with the function's name.
    running
        .wait_for("invocation", Duration::from_secs(5))
        .expect("the invocation is logged");
    // A worker does not outlive its server, even one killed outright.
    write_function(
        &dir.path().join("functions"),
        "hello",
        "Deno.serve(() => new Response(String(Deno.pid)))\n",
    );
    let worker: u32 = call().parse().unwrap();
    // Alive: not gone, and not a zombie left for whoever adopted it to reap.
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
        })
    };
    assert!(alive(worker));
    let mut running = running;
    running.child.kill().unwrap();
    let _ = running.child.wait();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while alive(worker) {
        assert!(
            std::time::Instant::now() < deadline,
            "worker {worker} outlived its server"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(running);

    // No Deno: one line at start-up says what to do, and the function
    // answers 503.
    let mut cmd = plinth(dir.path());
    cmd.arg("serve")
        .env("DATABASE_URL", &url)
        .env("JWT_SECRET", "functions-cli-secret-of-32-characters!")
        .env("PORT", free_port().to_string())
        .env("PLINTH_DENO_BIN", "/nonexistent/deno")
        .env("PATH", "/usr/bin:/bin");
    let running = Running::start(cmd);
    running
        .wait_for("no Deno was found", Duration::from_secs(60))
        .expect("the missing Deno is named at start-up");
    drop(running);
    drop(test_db);
}
