//! `plinth-faults`: the long fault scenarios behind `scripts/faults`. Each
//! runs a real `plinth serve` under load, injects one fault, and asserts
//! what the node must do: answer 503 (never another 5xx) while the database
//! is away, recover by itself, and lose nothing it acknowledged. Figures go
//! to a markdown file (`bench/results/faults.md`); any broken promise exits
//! non-zero.

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

#[derive(Parser)]
struct Cli {
    /// The plinth binary.
    #[arg(long)]
    plinth: PathBuf,
    /// PostgreSQL's server binaries (initdb, pg_ctl).
    #[arg(long)]
    pg_bin: PathBuf,
    /// A PostgreSQL server (superuser URL) for the scenarios that need no
    /// cluster of their own.
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/postgres")]
    server_url: String,
    /// Where the figures go.
    #[arg(long)]
    out: PathBuf,
}

const MIGRATION: &str = "create table public.fault_notes (
  id bigint generated always as identity primary key,
  body text not null
);
alter table public.fault_notes enable row level security;
create policy \"anyone writes and reads\" on public.fault_notes
  for all to anon using (true) with check (true);
grant select, insert on public.fault_notes to anon;
";

/// One scenario's figures.
struct Figures {
    name: &'static str,
    fault: String,
    /// From the fault to `/health` answering 503.
    noticed: Option<Duration>,
    /// From the fault to the first acknowledged write after it.
    recovered: Option<Duration>,
    acknowledged: usize,
    /// Status counts of failed writes during the run.
    failures: BTreeMap<String, usize>,
    lost: usize,
    notes: String,
    /// A fault of the database (what `/health` reports).
    database: bool,
}

impl Figures {
    fn five_hundreds(&self) -> usize {
        self.failures
            .iter()
            .filter(|(k, _)| k.starts_with('5'))
            .map(|(_, n)| n)
            .sum()
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let work = tempfile::Builder::new().prefix("plinth-faults").tempdir()?;
    std::fs::set_permissions(work.path(), std::fs::Permissions::from_mode(0o755))?;
    let mut all = Vec::new();
    let mut broken = Vec::new();

    for (restart_mode, name) in [
        ("fast", "PostgreSQL restarted"),
        ("immediate", "PostgreSQL crashed and restarted at once"),
    ] {
        eprintln!("==> {name}");
        let figures = database_fault(&cli, work.path(), restart_mode, name).await?;
        check_database_fault(&figures, &mut broken);
        all.push(figures);
    }
    eprintln!("==> embedded cluster killed");
    let figures = embedded_killed(&cli, work.path()).await?;
    check_database_fault(&figures, &mut broken);
    all.push(figures);
    eprintln!("==> plinth killed during uploads");
    let figures = killed_during_uploads(&cli, work.path()).await?;
    if figures.lost > 0 {
        broken.push(format!(
            "{}: {} acknowledged uploads lost",
            figures.name, figures.lost
        ));
    }
    all.push(figures);
    eprintln!("==> slow clients");
    let figures = slow_clients(&cli, work.path()).await?;
    if !figures.failures.is_empty() {
        broken.push(format!(
            "{}: requests failed beside slow clients",
            figures.name
        ));
    }
    all.push(figures);

    write_report(&cli.out, &all, &broken)?;
    print!("{}", std::fs::read_to_string(&cli.out)?);
    if !broken.is_empty() {
        bail!("broken: {}", broken.join("; "));
    }
    Ok(())
}

fn check_database_fault(figures: &Figures, broken: &mut Vec<String>) {
    let name = figures.name;
    if figures.lost > 0 {
        broken.push(format!("{name}: {} acknowledged writes lost", figures.lost));
    }
    if figures.recovered.is_none() {
        broken.push(format!("{name}: never recovered"));
    }
    let other_5xx: usize = figures
        .failures
        .iter()
        .filter(|(k, _)| k.starts_with('5') && k.as_str() != "503")
        .map(|(_, n)| n)
        .sum();
    if other_5xx > 0 {
        broken.push(format!("{name}: {other_5xx} answers were 5xx but not 503"));
    }
    if figures.noticed.is_none_or(|d| d > Duration::from_secs(2)) {
        broken.push(format!("{name}: /health did not report it within 2 s"));
    }
}

fn write_report(out: &Path, all: &[Figures], broken: &[String]) -> anyhow::Result<()> {
    let ms =
        |d: Option<Duration>| d.map_or("never".to_owned(), |d| format!("{} ms", d.as_millis()));
    // Only the database faults are seen by /health, and slow clients cause
    // no outage to recover from.
    let cell = |d: Option<Duration>, applies: bool| if applies { ms(d) } else { "—".to_owned() };
    let mut text = String::new();
    text.push_str("# Fault scenarios\n\n");
    text.push_str(&format!(
        "`scripts/faults` at {}, {} UTC. Each scenario runs a real `plinth serve` under load \
         (eight writers, or uploaders), injects the fault, and counts what the clients saw.\n\n",
        revision(),
        chrono_now()
    ));
    text.push_str("| scenario | fault | /health 503 after | recovered after | acknowledged | failed answers | 5xx | lost |\n");
    text.push_str("|---|---|---|---|---|---|---|---|\n");
    for f in all {
        let failures = if f.failures.is_empty() {
            "none".to_owned()
        } else {
            f.failures
                .iter()
                .map(|(k, n)| format!("{k}: {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        text.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
            f.name,
            f.fault,
            cell(f.noticed, f.database),
            cell(f.recovered, f.database || f.name.contains("killed")),
            f.acknowledged,
            failures,
            f.five_hundreds(),
            f.lost
        ));
    }
    text.push('\n');
    for f in all {
        if !f.notes.is_empty() {
            text.push_str(&format!("- **{}**: {}\n", f.name, f.notes));
        }
    }
    text.push('\n');
    if broken.is_empty() {
        text.push_str("Every scenario kept its promises: 503 (never another 5xx) while the database was away, recovery without help, nothing acknowledged lost.\n");
    } else {
        text.push_str(&format!("Broken: {}\n", broken.join("; ")));
    }
    std::fs::write(out, text)?;
    Ok(())
}

fn revision() -> String {
    Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

fn chrono_now() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

// ------------------------------------------------------------ processes

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// Runs a PostgreSQL tool as the cluster's user (`postgres` when root).
fn as_postgres(tool: &Path) -> Command {
    if is_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(tool);
        cmd
    } else {
        Command::new(tool)
    }
}

/// A PostgreSQL cluster of the harness's own, to stop and start.
struct OwnCluster {
    pg_bin: PathBuf,
    dir: PathBuf,
    port: u16,
}

impl OwnCluster {
    fn start(pg_bin: &Path, work: &Path) -> anyhow::Result<Self> {
        let dir = work.join(format!("pg-{}", free_port()));
        std::fs::create_dir_all(&dir)?;
        if is_root() {
            Command::new("chown").arg("postgres:").arg(&dir).status()?;
        }
        let status = as_postgres(&pg_bin.join("initdb"))
            .arg("-D")
            .arg(dir.join("data"))
            .args(["-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"])
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            bail!("initdb failed");
        }
        let cluster = Self {
            pg_bin: pg_bin.to_owned(),
            dir,
            port: free_port(),
        };
        cluster.pg_ctl(&["start", "-w"])?;
        Ok(cluster)
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn pg_ctl(&self, args: &[&str]) -> anyhow::Result<()> {
        let options = format!(
            "-c port={} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c max_connections=300",
            self.port,
            self.dir.display()
        );
        let status = as_postgres(&self.pg_bin.join("pg_ctl"))
            .arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("log"))
            .args(["-o", &options])
            .args(args)
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            bail!("pg_ctl {args:?} failed");
        }
        Ok(())
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        let _ = self.pg_ctl(&["stop", "-m", "immediate"]);
    }
}

/// A running `plinth serve`.
struct Node {
    child: Child,
    url: String,
    anon: String,
    service: String,
}

impl Node {
    fn start(
        plinth: &Path,
        dir: &Path,
        database_url: Option<&str>,
        extra: &[(&str, &str)],
    ) -> anyhow::Result<Self> {
        let port = free_port();
        let migrations = dir.join("migrations");
        std::fs::create_dir_all(&migrations)?;
        std::fs::write(migrations.join("1_fault_notes.sql"), MIGRATION)?;
        let mut cmd = Command::new(plinth);
        cmd.current_dir(dir)
            .args(["serve", "--port", &port.to_string(), "--policies", "none"])
            .env_remove("DATABASE_URL")
            .env("PLINTH_ENV_FILE", "/dev/null")
            .env("PLINTH_APP_DIR", "/nonexistent")
            .env("RUST_LOG", "error")
            .env("PLINTH_DB_POOL_ACQUISITION_TIMEOUT", "2")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(url) = database_url {
            cmd.env("DATABASE_URL", url);
        }
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().context("starting plinth")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut anon = String::new();
        let mut service = String::new();
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx.recv_timeout(left).context("plinth never became ready")?;
            if let Some(key) = line.strip_prefix("ANON_KEY=") {
                anon = key.to_owned();
            }
            if let Some(key) = line.strip_prefix("SERVICE_ROLE_KEY=") {
                service = key.to_owned();
            }
            if line.contains("Plinth is ready") {
                break;
            }
        }
        if anon.is_empty() {
            // Not the first start: `plinth keys` prints them.
            let out = Command::new(plinth)
                .current_dir(dir)
                .arg("keys")
                .env("PLINTH_ENV_FILE", "/dev/null")
                .output()?;
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                if let Some(key) = line.strip_prefix("ANON_KEY=") {
                    anon = key.to_owned();
                }
                if let Some(key) = line.strip_prefix("SERVICE_ROLE_KEY=") {
                    service = key.to_owned();
                }
            }
        }
        Ok(Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
            anon,
            service,
        })
    }

    fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ------------------------------------------------------------ load

#[derive(Default)]
struct Seen {
    acknowledged: Vec<i64>,
    failures: BTreeMap<String, usize>,
    /// When each write was acknowledged.
    successes: Vec<Instant>,
    /// When each write failed.
    failed_at: Vec<Instant>,
}

/// Eight writers inserting rows until stopped, and a `/health` poller.
struct Load {
    seen: Arc<Mutex<Seen>>,
    health_503: Arc<Mutex<Vec<Instant>>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Load {
    fn start(node: &Node) -> Self {
        let seen: Arc<Mutex<Seen>> = Arc::default();
        let health_503: Arc<Mutex<Vec<Instant>>> = Arc::default();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("a client");
        let mut tasks = Vec::new();
        for writer in 0..8 {
            let (client, seen, stop) = (client.clone(), seen.clone(), stop.clone());
            let url = format!("{}/rest/v1/fault_notes", node.url);
            let anon = node.anon.clone();
            tasks.push(tokio::spawn(async move {
                let mut i = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    i += 1;
                    let res = client
                        .post(&url)
                        .header("apikey", &anon)
                        .header("prefer", "return=representation")
                        .json(&json!({"body": format!("writer {writer} row {i}")}))
                        .send()
                        .await;
                    let failure = match res {
                        Ok(res) if res.status().as_u16() == 201 => {
                            let body: Value = res.json().await.unwrap_or(Value::Null);
                            match body[0]["id"].as_i64() {
                                Some(id) => {
                                    let mut seen = seen.lock().expect("not poisoned");
                                    seen.acknowledged.push(id);
                                    seen.successes.push(Instant::now());
                                    None
                                }
                                None => Some("201 without a row".to_owned()),
                            }
                        }
                        Ok(res) => Some(res.status().as_u16().to_string()),
                        Err(e) if e.is_timeout() => Some("timeout".to_owned()),
                        Err(_) => Some("connection".to_owned()),
                    };
                    if let Some(failure) = failure {
                        {
                            let mut seen = seen.lock().expect("not poisoned");
                            *seen.failures.entry(failure).or_default() += 1;
                            seen.failed_at.push(Instant::now());
                        }
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
            }));
        }
        {
            let (client, health_503, stop) = (client.clone(), health_503.clone(), stop.clone());
            let url = format!("{}/health", node.url);
            tasks.push(tokio::spawn(async move {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    if let Ok(res) = client.get(&url).send().await
                        && res.status().as_u16() == 503
                    {
                        health_503
                            .lock()
                            .expect("not poisoned")
                            .push(Instant::now());
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }));
        }
        Self {
            seen,
            health_503,
            tasks,
            stop,
        }
    }

    /// Stops the load; figures relative to `fault`.
    async fn finish(self, fault: Instant) -> (Seen, Option<Duration>, Option<Duration>) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        for task in self.tasks {
            let _ = task.await;
        }
        let seen = std::mem::take(&mut *self.seen.lock().expect("not poisoned"));
        let noticed = self
            .health_503
            .lock()
            .expect("not poisoned")
            .iter()
            .find(|t| **t >= fault)
            .map(|t| *t - fault);
        // The end of the failure window: the first acknowledged write after
        // the last failed one.
        let last_failure = seen.failed_at.iter().max().copied().unwrap_or(fault);
        let recovered = seen
            .successes
            .iter()
            .filter(|t| **t > last_failure)
            .min()
            .map(|t| t.saturating_duration_since(fault));
        (seen, noticed, recovered)
    }
}

/// Acknowledged ids missing from the table.
async fn lost(db_url: &str, acknowledged: &[i64]) -> anyhow::Result<usize> {
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect(db_url)
        .await?;
    let present: Vec<i64> = sqlx::query_scalar("select id from public.fault_notes")
        .fetch_all(&pool)
        .await?;
    pool.close().await;
    let present: HashSet<i64> = present.into_iter().collect();
    Ok(acknowledged
        .iter()
        .filter(|id| !present.contains(id))
        .count())
}

// ------------------------------------------------------------ scenarios

/// Writes under load while the node's own PostgreSQL is restarted.
async fn database_fault(
    cli: &Cli,
    work: &Path,
    mode: &str,
    name: &'static str,
) -> anyhow::Result<Figures> {
    let cluster = OwnCluster::start(&cli.pg_bin, work)?;
    let dir = work.join(format!("node-{}", free_port()));
    std::fs::create_dir_all(&dir)?;
    let node = Node::start(&cli.plinth, &dir, Some(&cluster.url()), &[])?;
    let load = Load::start(&node);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let fault = Instant::now();
    match mode {
        "fast" => cluster.pg_ctl(&["restart", "-m", "fast", "-w"])?,
        _ => {
            cluster.pg_ctl(&["stop", "-m", "immediate"])?;
            cluster.pg_ctl(&["start", "-w"])?;
        }
    }
    let back = fault.elapsed();
    tokio::time::sleep(Duration::from_secs(8)).await;
    let (seen, noticed, recovered) = load.finish(fault).await;
    let lost = lost(&cluster.url(), &seen.acknowledged).await?;
    node.stop();
    Ok(Figures {
        name,
        fault: format!(
            "`pg_ctl {}` mid-load (down for {} ms)",
            if mode == "fast" {
                "restart -m fast"
            } else {
                "stop -m immediate; start"
            },
            back.as_millis()
        ),
        noticed,
        recovered,
        acknowledged: seen.acknowledged.len(),
        failures: seen.failures,
        lost,
        notes: String::new(),
        database: true,
    })
}

/// Writes under load while the embedded cluster's postmaster is SIGKILLed.
async fn embedded_killed(cli: &Cli, work: &Path) -> anyhow::Result<Figures> {
    let dir = work.join("embedded");
    std::fs::create_dir_all(&dir)?;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755))?;
    let node = Node::start(&cli.plinth, &dir, None, &[])?;
    let load = Load::start(&node);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let pid_file = std::fs::read_to_string(dir.join("data/postgres/postmaster.pid"))?;
    let pid = pid_file
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned();
    let fault = Instant::now();
    Command::new("kill").args(["-KILL", &pid]).status()?;
    tokio::time::sleep(Duration::from_secs(10)).await;
    let (seen, noticed, recovered) = load.finish(fault).await;
    // The cluster now runs again: read it as its superuser.
    let pid_file = std::fs::read_to_string(dir.join("data/postgres/postmaster.pid"))?;
    let lines: Vec<&str> = pid_file.lines().collect();
    let url = format!(
        "postgres://postgres@localhost:{}/postgres?host={}",
        lines.get(3).unwrap_or(&"").trim(),
        lines.get(4).unwrap_or(&"").trim()
    );
    let lost = lost(&url, &seen.acknowledged).await?;
    node.stop();
    Ok(Figures {
        name: "embedded cluster killed",
        fault: "SIGKILL of the postmaster mid-load; plinth starts it again".into(),
        noticed,
        recovered,
        acknowledged: seen.acknowledged.len(),
        failures: seen.failures,
        lost,
        notes: String::new(),
        database: true,
    })
}

/// Uploads under way when the node is SIGKILLed; a new node on the same
/// folder and database.
async fn killed_during_uploads(cli: &Cli, work: &Path) -> anyhow::Result<Figures> {
    let (admin, db, db_url) = fresh_database(cli, "plinth_faults").await?;
    let dir = work.join("uploads");
    std::fs::create_dir_all(&dir)?;
    let node = Node::start(&cli.plinth, &dir, Some(&db_url), &[])?;
    let client = reqwest::Client::new();
    let res = client
        .post(format!("{}/storage/v1/bucket", node.url))
        .bearer_auth(&node.service)
        .json(&json!({"name": "crash", "public": false}))
        .send()
        .await?;
    if !res.status().is_success() {
        bail!("creating the bucket: {}", res.status());
    }
    let acknowledged: Arc<Mutex<Vec<(String, Vec<u8>)>>> = Arc::default();
    let failures: Arc<Mutex<BTreeMap<String, usize>>> = Arc::default();
    let mut uploaders = Vec::new();
    for worker in 0..8u32 {
        let (client, acknowledged, failures) =
            (client.clone(), acknowledged.clone(), failures.clone());
        let url = format!("{}/storage/v1/object/crash", node.url);
        let service = node.service.clone();
        uploaders.push(tokio::spawn(async move {
            for i in 0u32.. {
                let name = format!("w{worker}/{i}.bin");
                let body: Vec<u8> = (0..1_000_000u32)
                    .map(|b| (b.wrapping_mul(2_654_435_761) ^ (worker << 8) ^ i) as u8)
                    .collect();
                let digest = sha2_digest(&body);
                match client
                    .post(format!("{url}/{name}"))
                    .bearer_auth(&service)
                    .header("content-type", "application/octet-stream")
                    .body(body)
                    .send()
                    .await
                {
                    Ok(res) if res.status().as_u16() == 200 => {
                        acknowledged
                            .lock()
                            .expect("not poisoned")
                            .push((name, digest));
                    }
                    Ok(res) => {
                        *failures
                            .lock()
                            .expect("not poisoned")
                            .entry(res.status().as_u16().to_string())
                            .or_default() += 1;
                    }
                    Err(_) => {
                        *failures
                            .lock()
                            .expect("not poisoned")
                            .entry("connection".into())
                            .or_default() += 1;
                        break;
                    }
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let fault = Instant::now();
    drop(node); // SIGKILL
    for uploader in uploaders {
        let _ = uploader.await;
    }
    let node = Node::start(&cli.plinth, &dir, Some(&db_url), &[])?;
    let recovered = fault.elapsed();
    let acknowledged = acknowledged.lock().expect("not poisoned").clone();
    let mut lost = 0;
    for (name, digest) in &acknowledged {
        let res = client
            .get(format!("{}/storage/v1/object/crash/{name}", node.url))
            .bearer_auth(&node.service)
            .send()
            .await?;
        if res.status().as_u16() != 200 || sha2_digest(&res.bytes().await?) != *digest {
            lost += 1;
        }
    }
    node.stop();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "drop database {db} with (force)"
    )))
    .execute(&admin)
    .await?;
    let failures = failures.lock().expect("not poisoned").clone();
    Ok(Figures {
        name: "plinth killed during uploads",
        fault: "SIGKILL of plinth with eight 1 MB uploads in flight; a new node on the same folder".into(),
        noticed: None,
        recovered: Some(recovered),
        acknowledged: acknowledged.len(),
        failures,
        lost,
        notes: "recovered after: until the new node is ready; every acknowledged upload then downloads byte for byte".into(),
        database: false,
    })
}

/// Normal requests beside connections that drip a request head forever.
async fn slow_clients(cli: &Cli, work: &Path) -> anyhow::Result<Figures> {
    let (admin, db, db_url) = fresh_database(cli, "plinth_slow").await?;
    let dir = work.join("slow");
    std::fs::create_dir_all(&dir)?;
    let node = Node::start(&cli.plinth, &dir, Some(&db_url), &[])?;
    let port: u16 = node.url.rsplit(':').next().unwrap_or("0").parse()?;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .build()?;
    let url = format!("{}/rest/v1/fault_notes?select=id&limit=1", node.url);
    let measure = |client: reqwest::Client, url: String, anon: String| async move {
        let mut times = Vec::new();
        let mut failures = BTreeMap::<String, usize>::new();
        for _ in 0..300 {
            let started = Instant::now();
            match client.get(&url).header("apikey", &anon).send().await {
                Ok(res) if res.status().is_success() => times.push(started.elapsed()),
                Ok(res) => {
                    *failures
                        .entry(res.status().as_u16().to_string())
                        .or_default() += 1
                }
                Err(_) => *failures.entry("connection".into()).or_default() += 1,
            }
        }
        times.sort();
        (times, failures)
    };
    let (before, _) = measure(client.clone(), url.clone(), node.anon.clone()).await;
    let mut slow = Vec::new();
    for _ in 0..2000 {
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
        stream
            .write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
            .await?;
        slow.push(stream);
    }
    let dripping = tokio::spawn(async move {
        for _ in 0..30 {
            for stream in &mut slow {
                let _ = stream.write_all(b"a").await;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        slow
    });
    let (during, failures) = measure(client, url, node.anon.clone()).await;
    dripping.abort();
    node.stop();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "drop database {db} with (force)"
    )))
    .execute(&admin)
    .await?;
    let p99 = |t: &[Duration]| t.get(t.len() * 99 / 100).copied().unwrap_or_default();
    let p50 = |t: &[Duration]| t.get(t.len() / 2).copied().unwrap_or_default();
    Ok(Figures {
        name: "slow clients",
        fault: "2000 connections dripping a request head, one byte per 500 ms".into(),
        noticed: None,
        recovered: None,
        acknowledged: during.len(),
        failures,
        lost: 0,
        notes: format!(
            "300 reads alone: p50 {:.1} ms, p99 {:.1} ms; beside the slow clients: p50 {:.1} ms, p99 {:.1} ms",
            p50(&before).as_secs_f64() * 1e3,
            p99(&before).as_secs_f64() * 1e3,
            p50(&during).as_secs_f64() * 1e3,
            p99(&during).as_secs_f64() * 1e3
        ),
        database: false,
    })
}

/// A new database on the server: a pool on the server (to drop it with),
/// its name and its URL.
async fn fresh_database(cli: &Cli, prefix: &str) -> anyhow::Result<(sqlx::PgPool, String, String)> {
    let db = format!("{prefix}_{}", std::process::id());
    let admin = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect(&cli.server_url)
        .await?;
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("create database {db}")))
        .execute(&admin)
        .await?;
    let url = format!(
        "{}/{db}",
        cli.server_url.rsplit_once('/').map_or("", |p| p.0)
    );
    Ok((admin, db, url))
}

fn sha2_digest(bytes: &[u8]) -> Vec<u8> {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).to_vec()
}
