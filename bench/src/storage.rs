//! Storage: upload and public-download throughput against a plain file copy
//! of the same bytes on the same disk, and the server's resident memory
//! while it streams large files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bytes::Bytes;
use serde_json::json;

const MB: u64 = 1024 * 1024;

#[derive(Clone)]
pub struct Options {
    pub url: String,
    pub service_key: String,
    /// The plinth process (for its RSS).
    pub pid: u32,
    /// A folder on the disk the server stores objects on (the baseline copies there).
    pub dir: PathBuf,
    pub seconds: u64,
    /// Concurrent 20 MB transfers of the memory measurement.
    pub concurrency: usize,
    /// Transfers per concurrent client in the memory measurement.
    pub rounds: usize,
}

/// Bytes moved over a time.
struct Rate {
    bytes: u64,
    secs: f64,
    count: u64,
}

impl Rate {
    fn mb_per_s(&self) -> f64 {
        self.bytes as f64 / MB as f64 / self.secs
    }
}

/// Deterministic, incompressible-enough content.
fn content(size: u64) -> Vec<u8> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15 ^ size;
    (0..size)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// Repeats `once` (which moves `size` bytes) for `duration`, at least twice.
fn copy_rate(
    size: u64,
    duration: Duration,
    mut once: impl FnMut() -> std::io::Result<()>,
) -> anyhow::Result<Rate> {
    let started = Instant::now();
    let mut count = 0;
    while count < 2 || started.elapsed() < duration {
        once()?;
        count += 1;
    }
    Ok(Rate {
        bytes: size * count,
        secs: started.elapsed().as_secs_f64(),
        count,
    })
}

/// The plain-copy baselines of one size: (with fsync of the copy, as the
/// server's file store syncs each upload; without).
fn baselines(
    dir: &Path,
    size: u64,
    bytes: &[u8],
    duration: Duration,
) -> anyhow::Result<(Rate, Rate)> {
    let src = dir.join(format!("baseline-src-{size}"));
    let dst = dir.join(format!("baseline-dst-{size}"));
    std::fs::File::create(&src)?.write_all(bytes)?;
    let synced = copy_rate(size, duration, || {
        std::fs::copy(&src, &dst)?;
        std::fs::File::open(&dst)?.sync_all()
    })?;
    let plain = copy_rate(size, duration, || std::fs::copy(&src, &dst).map(|_| ()))?;
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&dst);
    Ok((synced, plain))
}

async fn upload(
    client: &reqwest::Client,
    o: &Options,
    name: &str,
    body: Bytes,
) -> anyhow::Result<()> {
    let response = client
        .post(format!("{}/storage/v1/object/bench/{name}", o.url))
        .header("apikey", &o.service_key)
        .bearer_auth(&o.service_key)
        .header("content-type", "application/octet-stream")
        .header("x-upsert", "true")
        .body(body)
        .send()
        .await?;
    if !response.status().is_success() {
        bail!(
            "upload of {name}: {} {}",
            response.status(),
            response.text().await?
        );
    }
    Ok(())
}

/// Downloads `name` through the public route, discarding the bytes; returns their count.
async fn download(client: &reqwest::Client, url: &str, name: &str) -> anyhow::Result<u64> {
    let mut response = client
        .get(format!("{url}/storage/v1/object/public/bench/{name}"))
        .send()
        .await?;
    if !response.status().is_success() {
        bail!("download of {name}: {}", response.status());
    }
    let mut got = 0;
    while let Some(chunk) = response.chunk().await? {
        got += chunk.len() as u64;
    }
    Ok(got)
}

/// A status line of `/proc/<pid>/status`, in bytes.
fn proc_status_kb(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map(|kb| kb * 1024)
}

/// Samples the server's RSS every 2 ms while `work` runs; returns (RSS
/// before, peak during (max of the samples and of VmHWM, which is reset
/// first when the kernel allows), result of `work`).
async fn with_rss<T>(pid: u32, work: impl Future<Output = T>) -> (u64, u64, bool, T) {
    // Writing 5 to clear_refs resets VmHWM to the current RSS.
    let hwm_reset = std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok();
    let before = proc_status_kb(pid, "VmRSS:").unwrap_or(0);
    let peak = Arc::new(AtomicU64::new(before));
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, stop) = (peak.clone(), stop.clone());
        tokio::spawn(async move {
            // Bounded: at most 10 minutes of samples.
            for _ in 0..300_000 {
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                if let Some(rss) = proc_status_kb(pid, "VmRSS:") {
                    peak.fetch_max(rss, Ordering::Relaxed);
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
    };
    let out = work.await;
    stop.store(true, Ordering::Relaxed);
    let _ = sampler.await;
    let mut max = peak.load(Ordering::Relaxed);
    if hwm_reset && let Some(hwm) = proc_status_kb(pid, "VmHWM:") {
        max = max.max(hwm);
    }
    (before, max, hwm_reset, out)
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(o.concurrency * 2)
        .build()?;
    let bucket = client
        .post(format!("{}/storage/v1/bucket", o.url))
        .header("apikey", &o.service_key)
        .bearer_auth(&o.service_key)
        .json(&json!({"id": "bench", "name": "bench", "public": true}))
        .send()
        .await
        .context("creating the bucket")?;
    if !bucket.status().is_success() {
        let (status, text) = (bucket.status(), bucket.text().await?);
        // A second run against the same server finds the bucket there.
        if !text.contains("already exists") {
            bail!("creating the bucket: {status} {text}");
        }
    }
    let duration = Duration::from_secs(o.seconds);
    println!(
        "storage bench: single stream, {} s per measurement; baseline: std::fs::copy of the same bytes in {}",
        o.seconds,
        o.dir.display()
    );
    println!(
        "  {:<14} {:>12} {:>22} {:>7}   {:>12} {:>18} {:>7}",
        "size", "upload MB/s", "copy+fsync MB/s", "ratio", "download MB/s", "copy MB/s", "ratio"
    );
    for size in [MB, 20 * MB] {
        let bytes = Bytes::from(content(size));
        let name = format!("file-{}mb", size / MB);
        let dir = o.dir.clone();
        let for_copy = bytes.clone();
        let (synced, plain) =
            tokio::task::spawn_blocking(move || baselines(&dir, size, &for_copy, duration))
                .await??;

        upload(&client, &o, &name, bytes.clone()).await?; // warm-up
        let started = Instant::now();
        let mut count = 0u64;
        while count < 2 || started.elapsed() < duration {
            upload(&client, &o, &name, bytes.clone()).await?;
            count += 1;
        }
        let up = Rate {
            bytes: size * count,
            secs: started.elapsed().as_secs_f64(),
            count,
        };

        let got = download(&client, &o.url, &name).await?; // warm-up
        if got != size {
            bail!("downloaded {got} bytes of {size}");
        }
        let started = Instant::now();
        let mut count = 0u64;
        let mut moved = 0;
        while count < 2 || started.elapsed() < duration {
            moved += download(&client, &o.url, &name).await?;
            count += 1;
        }
        let down = Rate {
            bytes: moved,
            secs: started.elapsed().as_secs_f64(),
            count,
        };
        println!(
            "  {:<14} {:>12.1} {:>22.1} {:>7.2}   {:>12.1} {:>18.1} {:>7.2}",
            format!("{} MB", size / MB),
            up.mb_per_s(),
            synced.mb_per_s(),
            up.mb_per_s() / synced.mb_per_s(),
            down.mb_per_s(),
            plain.mb_per_s(),
            down.mb_per_s() / plain.mb_per_s(),
        );
        println!(
            "  {:<14} ({} uploads, {} downloads, {} synced copies, {} copies)",
            "", up.count, down.count, synced.count, plain.count
        );
    }

    // Memory: several concurrent 20 MB transfers, repeated.
    let size = 20 * MB;
    let name = "file-20mb";
    let body = Bytes::from(content(size));
    println!(
        "  memory: plinth RSS while {} clients each move a 20 MB file {} times",
        o.concurrency, o.rounds
    );
    let (before, peak, hwm, served) = with_rss(o.pid, async {
        let mut tasks = Vec::new();
        for _ in 0..o.concurrency {
            let (client, url) = (client.clone(), o.url.clone());
            let rounds = o.rounds;
            tasks.push(tokio::spawn(async move {
                let mut served = 0u64;
                for _ in 0..rounds {
                    served += download(&client, &url, name).await?;
                }
                anyhow::Ok(served)
            }));
        }
        let mut served = 0;
        for task in tasks {
            served += task.await??;
        }
        anyhow::Ok(served)
    })
    .await;
    let served = served?;
    report_memory("downloads", before, peak, hwm, served, size, o.concurrency);

    let (before, peak, hwm, received) = with_rss(o.pid, async {
        let mut tasks = Vec::new();
        for worker in 0..o.concurrency {
            let body = body.clone();
            let client = client.clone();
            let o = o.clone();
            tasks.push(tokio::spawn(async move {
                // Fewer uploads than downloads: each one is fsynced.
                let rounds = o.rounds.div_ceil(2);
                for _ in 0..rounds {
                    upload(&client, &o, &format!("mem-{worker}"), body.clone()).await?;
                }
                anyhow::Ok(size * rounds as u64)
            }));
        }
        let mut received = 0;
        for task in tasks {
            received += task.await??;
        }
        anyhow::Ok(received)
    })
    .await;
    let received = received?;
    report_memory("uploads", before, peak, hwm, received, size, o.concurrency);
    Ok(())
}

fn report_memory(
    what: &str,
    before: u64,
    peak: u64,
    hwm: bool,
    moved: u64,
    size: u64,
    streams: usize,
) {
    let growth = peak.saturating_sub(before);
    println!(
        "    {what:<9}: {:>6.0} MB moved, RSS before {:>5.1} MB, peak {:>5.1} MB{}; growth {:>5.1} MB = {:.4} of the bytes moved, {:.2} of one file, {:.2} MB per concurrent stream",
        moved as f64 / MB as f64,
        before as f64 / MB as f64,
        peak as f64 / MB as f64,
        if hwm {
            " (VmHWM reset first)"
        } else {
            " (sampled)"
        },
        growth as f64 / MB as f64,
        growth as f64 / moved as f64,
        growth as f64 / size as f64,
        growth as f64 / MB as f64 / streams.max(1) as f64,
    );
}
