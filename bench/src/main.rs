//! Load generators for the benchmarks in `bench/`. Each prints the figure
//! and its baseline from the same run, and the ratio between them.

mod limits;
mod realtime;
mod rest_sql;
mod storage;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use serde_json::{Value, json};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Auth: password-grant throughput against the raw argon2id hash rate,
    /// and refresh-grant throughput.
    Auth {
        /// A running plinth (with ENABLE_EMAIL_AUTOCONFIRM=true and high rate limits).
        #[arg(long)]
        url: String,
        #[arg(long)]
        anon_key: String,
        /// Concurrent clients.
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
        /// Seconds per measurement.
        #[arg(long, default_value_t = 5)]
        seconds: u64,
    },
    /// The rate limiter: checks per second with many clients held, against
    /// the same with few.
    Limits {
        /// Clients the limiter holds (each at its limit).
        #[arg(long, default_value_t = 200_000)]
        held: u64,
        /// Seconds per measurement.
        #[arg(long, default_value_t = 3)]
        seconds: u64,
    },
    /// Storage: upload and public-download MB/s against a plain file copy of
    /// the same bytes on the same disk, and the server's RSS while streaming.
    Storage {
        #[arg(long)]
        url: String,
        #[arg(long)]
        service_key: String,
        /// The plinth process, whose RSS is sampled.
        #[arg(long)]
        pid: u32,
        /// A folder on the disk plinth stores objects on (for the baseline copies).
        #[arg(long)]
        dir: std::path::PathBuf,
        /// Seconds per throughput measurement.
        #[arg(long, default_value_t = 5)]
        seconds: u64,
        /// Concurrent 20 MB transfers while RSS is sampled.
        #[arg(long, default_value_t = 8)]
        concurrency: usize,
        /// 20 MB downloads per concurrent client while RSS is sampled.
        #[arg(long, default_value_t = 10)]
        rounds: usize,
    },
    /// Realtime: broadcast fan-out deliveries/s against a plain websocket
    /// fan-out of the same frames, and postgres_changes latency against a
    /// LISTEN/NOTIFY round trip.
    Realtime {
        #[arg(long)]
        url: String,
        #[arg(long)]
        anon_key: String,
        /// The plinth database (as its owner), for the change table and the NOTIFY baseline.
        #[arg(long)]
        db_url: String,
        /// Websocket clients of the fan-out.
        #[arg(long, default_value_t = 1000)]
        clients: usize,
        /// Seconds of fan-out measurement (each side).
        #[arg(long, default_value_t = 10)]
        seconds: u64,
        /// Broadcasts in flight (well below the server's 1024-frame outbox per socket).
        #[arg(long, default_value_t = 64)]
        window: u64,
        /// Measured INSERTs (and NOTIFYs) of the latency measurement.
        #[arg(long, default_value_t = 500)]
        inserts: usize,
    },
    /// REST: print a pgbench script running the statement the gateway runs
    /// for a GET of `path` (binds written as literals), in PostgREST's
    /// transaction shape as the anonymous role: the baseline of a query.
    RestSql {
        /// The plinth database (as its owner), whose schema is read.
        #[arg(long)]
        db_url: String,
        /// Below `/rest/v1`, with its query string, e.g. `/templates?select=id`.
        #[arg(long)]
        path: String,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Auth {
            url,
            anon_key,
            concurrency,
            seconds,
        } => auth(&url, &anon_key, concurrency, Duration::from_secs(seconds)).await,
        Command::Limits { held, seconds } => {
            limits::run(held, Duration::from_secs(seconds));
            Ok(())
        }
        Command::Storage {
            url,
            service_key,
            pid,
            dir,
            seconds,
            concurrency,
            rounds,
        } => {
            storage::run(storage::Options {
                url,
                service_key,
                pid,
                dir,
                seconds,
                concurrency,
                rounds,
            })
            .await
        }
        Command::Realtime {
            url,
            anon_key,
            db_url,
            clients,
            seconds,
            window,
            inserts,
        } => {
            realtime::run(realtime::Options {
                url,
                anon_key,
                db_url,
                clients,
                seconds,
                window: window.max(1),
                inserts,
            })
            .await
        }
        Command::RestSql { db_url, path } => {
            print!("{}", rest_sql::pgbench_script(&db_url, &path).await?);
            Ok(())
        }
    }
}

/// Requests per second and latency percentiles of one measurement.
struct Figures {
    per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
    errors: usize,
}

impl std::fmt::Display for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:>9.1}/s  p50 {:>7.2} ms  p99 {:>7.2} ms  errors {}",
            self.per_second, self.p50_ms, self.p99_ms, self.errors
        )
    }
}

/// Runs `work` on `concurrency` tasks for `duration`; each call is one timed operation.
async fn measure<F, Fut>(concurrency: usize, duration: Duration, work: F) -> Figures
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let work = Arc::new(work);
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..concurrency {
        let (work, stop) = (work.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0;
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                if work(worker).await {
                    latencies.push(t.elapsed());
                } else {
                    errors += 1;
                }
            }
            (latencies, errors)
        }));
    }
    tokio::time::sleep(duration).await;
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    let mut errors = 0;
    for task in tasks {
        if let Ok((l, e)) = task.await {
            all.extend(l);
            errors += e;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    all.sort();
    let pct = |p: f64| {
        all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1)))
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    };
    Figures {
        per_second: all.len() as f64 / elapsed,
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
        errors,
    }
}

/// argon2id hashes per second with the auth service's default cost, on as
/// many threads as the machine has cores (the ceiling of password sign-ins):
/// each hash in memory of its own, as the library's one-call hash does, or
/// (`kept`) each thread reusing one block of memory, as the server does.
fn argon2_rate(duration: Duration, kept: bool) -> f64 {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            std::thread::spawn(move || {
                let params = argon2::Params::new(19_456, 2, 1, None).expect("valid argon2 params");
                let mut memory = if kept {
                    vec![argon2::Block::default(); params.block_count()]
                } else {
                    Vec::new()
                };
                let hasher = argon2::Argon2::new(
                    argon2::Algorithm::Argon2id,
                    argon2::Version::V0x13,
                    params,
                );
                let mut count = 0u64;
                let mut out = [0u8; 32];
                while Instant::now() < deadline {
                    let mut salt = [7u8; 16];
                    salt[..8].copy_from_slice(&count.to_le_bytes());
                    let password = b"correct-horse-battery";
                    let _ = if kept {
                        hasher.hash_password_into_with_memory(
                            password,
                            &salt,
                            &mut out,
                            &mut memory,
                        )
                    } else {
                        hasher.hash_password_into(password, &salt, &mut out)
                    };
                    count += 1;
                }
                count
            })
        })
        .collect();
    let total: u64 = handles.into_iter().map(|h| h.join().unwrap_or(0)).sum();
    total as f64 / started.elapsed().as_secs_f64()
}

async fn auth(
    url: &str,
    anon_key: &str,
    concurrency: usize,
    duration: Duration,
) -> anyhow::Result<()> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency * 2)
        .build()?;
    let token_url = |grant: &str| format!("{url}/auth/v1/token?grant_type={grant}");
    let email = format!("bench-{}@example.com", std::process::id());
    let password = "correct-horse-battery";
    let signup = client
        .post(format!("{url}/auth/v1/signup"))
        .header("apikey", anon_key)
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .context("sign-up")?;
    if !signup.status().is_success() {
        bail!(
            "sign-up failed: {} {}",
            signup.status(),
            signup.text().await?
        );
    }

    println!(
        "auth bench: {concurrency} concurrent clients, {} s each",
        duration.as_secs()
    );
    let hash_rate = tokio::task::spawn_blocking(move || argon2_rate(duration, false)).await?;
    println!("  raw argon2id hashes (baseline) {hash_rate:>9.1}/s");
    let kept_rate = tokio::task::spawn_blocking(move || argon2_rate(duration, true)).await?;
    println!("  the same in kept memory        {kept_rate:>9.1}/s");

    let password_grant = {
        let (client, url, key, email) = (
            client.clone(),
            token_url("password"),
            anon_key.to_owned(),
            email.clone(),
        );
        measure(concurrency, duration, move |_| {
            let (client, url, key, email) =
                (client.clone(), url.clone(), key.clone(), email.clone());
            async move {
                client
                    .post(url)
                    .header("apikey", key)
                    .json(&json!({"email": email, "password": password}))
                    .send()
                    .await
                    .is_ok_and(|r| r.status().is_success())
            }
        })
        .await
    };
    println!("  password grant                 {password_grant}");

    // One session per client, each refreshing its own chain.
    let mut chains = Vec::new();
    for _ in 0..concurrency {
        let session: Value = client
            .post(token_url("password"))
            .header("apikey", anon_key)
            .json(&json!({"email": email, "password": password}))
            .send()
            .await?
            .json()
            .await?;
        let token = session["refresh_token"]
            .as_str()
            .context("no refresh token")?
            .to_owned();
        chains.push(tokio::sync::Mutex::new(token));
    }
    let chains = Arc::new(chains);
    let refresh_grant = {
        let (client, url, key) = (
            client.clone(),
            token_url("refresh_token"),
            anon_key.to_owned(),
        );
        measure(concurrency, duration, move |worker| {
            let (client, url, key, chains) =
                (client.clone(), url.clone(), key.clone(), chains.clone());
            async move {
                let mut token = chains[worker].lock().await;
                let Ok(response) = client
                    .post(url)
                    .header("apikey", key)
                    .json(&json!({"refresh_token": *token}))
                    .send()
                    .await
                else {
                    return false;
                };
                match response.json::<Value>().await {
                    Ok(v) => match v["refresh_token"].as_str() {
                        Some(next) => {
                            *token = next.to_owned();
                            true
                        }
                        None => false,
                    },
                    Err(_) => false,
                }
            }
        })
        .await
    };
    println!("  refresh grant                  {refresh_grant}");
    println!(
        "  ratio: password grants per raw argon2id hash = {:.2} (1.0 means sign-in costs nothing but its hash)",
        password_grant.per_second / hash_rate
    );
    println!(
        "         per hash in kept memory = {:.2}",
        password_grant.per_second / kept_rate
    );
    Ok(())
}
