//! Realtime: (a) broadcast fan-out to many websockets against a plain
//! in-process websocket fan-out (a tokio broadcast channel feeding one writer
//! task per loopback socket) of the same frames to the same clients; (b) the
//! latency of a row change from INSERT to the subscriber against a plain
//! LISTEN/NOTIFY round trip on the same database, interleaved.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use sqlx::Connection;
use tokio::net::TcpStream;
use tokio::sync::{Notify, Semaphore, broadcast};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

const TOPIC: &str = "realtime:bench";
const HEARTBEAT: Duration = Duration::from_secs(25);
/// How long the publisher waits for a slow delivery before moving on.
const STALL: Duration = Duration::from_secs(2);

pub struct Options {
    pub url: String,
    pub anon_key: String,
    pub db_url: String,
    pub clients: usize,
    pub seconds: u64,
    /// Broadcasts in flight: the publisher sends broadcast n only once every
    /// client has received broadcast n - window.
    pub window: u64,
    pub inserts: usize,
}

/// Delivery bookkeeping shared by the receivers and the publisher.
struct Fanout {
    clients: usize,
    window: u64,
    /// Receivers of broadcast n counted in slot n % window.
    slots: Vec<AtomicUsize>,
    received: Vec<AtomicU64>,
    gaps: AtomicU64,
    turn: Notify,
    /// One frame as the clients received it (the baseline sends the same bytes).
    sample: Mutex<Option<String>>,
}

fn seq_of(text: &str) -> Option<u64> {
    let at = text.find("\"seq\":")? + 6;
    let digits: &str = &text[at..];
    let end = digits
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(digits.len());
    digits[..end].parse().ok()
}

impl Fanout {
    fn new(clients: usize, window: u64) -> Arc<Self> {
        Arc::new(Self {
            clients,
            window,
            slots: (0..window).map(|_| AtomicUsize::new(0)).collect(),
            received: (0..clients).map(|_| AtomicU64::new(0)).collect(),
            gaps: AtomicU64::new(0),
            turn: Notify::new(),
            sample: Mutex::new(None),
        })
    }

    fn delivered(&self) -> u64 {
        self.received
            .iter()
            .map(|r| r.load(Ordering::Relaxed))
            .sum()
    }

    fn on_frame(&self, text: &str, last: &mut Option<u64>, client: usize) {
        let Some(seq) = seq_of(text) else { return };
        self.received[client].fetch_add(1, Ordering::Relaxed);
        let expected = last.map_or(0, |l| l + 1);
        if seq > expected {
            self.gaps.fetch_add(seq - expected, Ordering::Relaxed);
        }
        *last = Some(seq);
        if self.slots[(seq % self.window) as usize].fetch_add(1, Ordering::AcqRel) + 1
            == self.clients
        {
            self.turn.notify_one();
        }
        if client == 0
            && seq == 0
            && let Ok(mut sample) = self.sample.lock()
        {
            *sample = Some(text.to_owned());
        }
    }

    /// Waits until broadcast n may be sent; true when it gave up waiting.
    async fn wait_turn(&self, n: u64) -> bool {
        if n < self.window {
            return false;
        }
        let slot = &self.slots[(n % self.window) as usize];
        let deadline = tokio::time::Instant::now() + STALL;
        loop {
            if slot.load(Ordering::Acquire) >= self.clients {
                slot.store(0, Ordering::Release);
                return false;
            }
            if tokio::time::timeout_at(deadline, self.turn.notified())
                .await
                .is_err()
            {
                slot.store(0, Ordering::Release);
                return true;
            }
        }
    }
}

/// Reads one client's socket until it closes (or the task is aborted),
/// sending a Phoenix heartbeat every 25 s.
async fn receive(mut ws: Ws, fan: Arc<Fanout>, client: usize) {
    let mut heartbeat =
        tokio::time::interval_at(tokio::time::Instant::now() + HEARTBEAT, HEARTBEAT);
    let mut last = None;
    let mut next_ref = 100u64;
    loop {
        tokio::select! {
            message = ws.next() => match message {
                Some(Ok(Message::Text(text))) => fan.on_frame(text.as_str(), &mut last, client),
                Some(Ok(_)) => {}
                _ => break,
            },
            _ = heartbeat.tick() => {
                next_ref += 1;
                let frame = json!([null, next_ref.to_string(), "phoenix", "heartbeat", {}]);
                if ws.send(Message::text(frame.to_string())).await.is_err() {
                    break;
                }
            }
        }
    }
}

fn ws_url(o: &Options) -> String {
    format!(
        "{}/realtime/v1/websocket?apikey={}&vsn=2.0.0",
        o.url.replacen("http", "ws", 1),
        o.anon_key
    )
}

/// Joins `topic` and returns the reply's payload once it is `ok`.
async fn join(ws: &mut Ws, topic: &str, config: Value, token: &str) -> anyhow::Result<Value> {
    let frame = json!(["1", "1", topic, "phx_join", {"config": config, "access_token": token}]);
    ws.send(Message::text(frame.to_string())).await?;
    let reply = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(message) = ws.next().await {
            if let Message::Text(text) = message? {
                let v: Value = serde_json::from_str(text.as_str())?;
                if v[3] == "phx_reply" && v[1] == "1" {
                    return Ok(v[4].clone());
                }
            }
        }
        bail!("socket closed before the join reply")
    })
    .await
    .context("no join reply within 10 s")??;
    if reply["status"] != "ok" {
        bail!("join refused: {reply}");
    }
    Ok(reply)
}

fn broadcast_config() -> Value {
    json!({"broadcast": {"self": false}, "presence": {"key": ""}, "postgres_changes": []})
}

/// Opens `count` sockets, `parallel` handshakes at a time.
async fn open_many<F, Fut>(count: usize, parallel: usize, open: F) -> anyhow::Result<Vec<Ws>>
where
    F: Fn() -> Fut,
    Fut: Future<Output = anyhow::Result<Ws>> + Send + 'static,
{
    let gate = Arc::new(Semaphore::new(parallel));
    let mut tasks = Vec::with_capacity(count);
    for _ in 0..count {
        let permit = gate.clone().acquire_owned().await?;
        let opening = open();
        tasks.push(tokio::spawn(async move {
            let ws = opening.await;
            drop(permit);
            ws
        }));
    }
    let mut sockets = Vec::with_capacity(count);
    for task in tasks {
        sockets.push(task.await??);
    }
    Ok(sockets)
}

/// Delivered messages per second over the measured span (after one warm-up
/// second), and what the run lost.
struct FanoutFigures {
    per_second: f64,
    sent: u64,
    stalls: u64,
    missing: u64,
    gaps: u64,
}

/// Runs the publisher loop: `send(n)` publishes broadcast n.
async fn publish<F>(fan: &Fanout, seconds: u64, mut send: F) -> anyhow::Result<FanoutFigures>
where
    F: AsyncFnMut(u64) -> anyhow::Result<()>,
{
    let started = Instant::now();
    let warm = Duration::from_secs(1);
    let end = warm + Duration::from_secs(seconds);
    let mut measured_from: Option<(Instant, u64)> = None;
    let mut n = 0u64;
    let mut stalls = 0;
    while started.elapsed() < end {
        if measured_from.is_none() && started.elapsed() >= warm {
            measured_from = Some((Instant::now(), fan.delivered()));
        }
        if fan.wait_turn(n).await {
            stalls += 1;
        }
        send(n).await?;
        n += 1;
    }
    let delivered = fan.delivered();
    let (from, base) = measured_from.unwrap_or((started, 0));
    let per_second = (delivered - base) as f64 / from.elapsed().as_secs_f64();
    // Let the last frames arrive (bounded).
    let expected = n * fan.clients as u64;
    for _ in 0..300 {
        if fan.delivered() >= expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(FanoutFigures {
        per_second,
        sent: n,
        stalls,
        missing: expected.saturating_sub(fan.delivered()),
        gaps: fan.gaps.load(Ordering::Relaxed),
    })
}

fn payload(n: u64) -> Value {
    json!({"seq": n, "body": "the quick brown fox jumps over the lazy dog, 0123456789abcdef"})
}

async fn plinth_fanout(o: &Options) -> anyhow::Result<(FanoutFigures, Option<String>)> {
    let fan = Fanout::new(o.clients, o.window);
    let url = ws_url(o);
    let started = Instant::now();
    let sockets = open_many(o.clients, 32, || {
        let (url, key) = (url.clone(), o.anon_key.clone());
        async move {
            let (mut ws, _) = tokio_tungstenite::connect_async(url).await?;
            join(&mut ws, TOPIC, broadcast_config(), &key).await?;
            Ok(ws)
        }
    })
    .await?;
    println!(
        "  {} sockets joined {TOPIC} in {:.1} s",
        sockets.len(),
        started.elapsed().as_secs_f64()
    );
    let receivers: Vec<_> = sockets
        .into_iter()
        .enumerate()
        .map(|(i, ws)| tokio::spawn(receive(ws, fan.clone(), i)))
        .collect();

    let (mut publisher, _) = tokio_tungstenite::connect_async(url.clone()).await?;
    join(&mut publisher, TOPIC, broadcast_config(), &o.anon_key).await?;
    let (mut sink, mut replies) = publisher.split();
    let drain = tokio::spawn(async move { while let Some(Ok(_)) = replies.next().await {} });
    let figures = publish(&fan, o.seconds, async |n| {
        let frame = json!([null, (n + 10).to_string(), TOPIC, "broadcast",
            {"type": "broadcast", "event": "tick", "payload": payload(n)}]);
        Ok(sink.send(Message::text(frame.to_string())).await?)
    })
    .await;
    drain.abort();
    for r in receivers {
        r.abort();
    }
    let sample = fan.sample.lock().ok().and_then(|s| s.clone());
    Ok((figures?, sample))
}

/// The same frames to the same number of loopback websocket clients, from a
/// tokio broadcast channel read by one writer task per socket.
async fn plain_fanout(o: &Options, sample: Option<String>) -> anyhow::Result<FanoutFigures> {
    let template = sample.unwrap_or_else(|| {
        json!([null, null, TOPIC, "broadcast", {"type": "broadcast", "event": "tick", "payload": payload(0)}]).to_string()
    });
    let at = template
        .find("\"seq\":0")
        .context("sample frame without seq")?
        + 6;
    let (head, tail) = (template[..at].to_owned(), template[at + 1..].to_owned());

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    let (tx, _) = broadcast::channel::<Utf8Bytes>(4 * o.window as usize + 64);
    let server = {
        let tx = tx.clone();
        let clients = o.clients;
        tokio::spawn(async move {
            let mut writers = Vec::new();
            for _ in 0..clients {
                let Ok((tcp, _)) = listener.accept().await else {
                    break;
                };
                let mut rx = tx.subscribe();
                writers.push(tokio::spawn(async move {
                    let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                        return;
                    };
                    loop {
                        match rx.recv().await {
                            Ok(frame) => {
                                if ws.send(Message::Text(frame)).await.is_err() {
                                    break;
                                }
                            }
                            Err(broadcast::error::RecvError::Lagged(_)) => continue,
                            Err(broadcast::error::RecvError::Closed) => break,
                        }
                    }
                }));
            }
            writers
        })
    };
    let fan = Fanout::new(o.clients, o.window);
    let url = format!("ws://{address}/");
    let sockets = open_many(o.clients, 32, || {
        let url = url.clone();
        async move { Ok(tokio_tungstenite::connect_async(url).await?.0) }
    })
    .await?;
    let writers = server.await?;
    let receivers: Vec<_> = sockets
        .into_iter()
        .enumerate()
        .map(|(i, ws)| tokio::spawn(receive(ws, fan.clone(), i)))
        .collect();
    let figures = publish(&fan, o.seconds, async |n| {
        let frame = Utf8Bytes::from(format!("{head}{n}{tail}"));
        tx.send(frame)
            .map(|_| ())
            .map_err(|_| anyhow::anyhow!("no writer left"))
    })
    .await;
    drop(tx);
    for task in writers.into_iter().chain(receivers) {
        task.abort();
    }
    figures
}

const CHANGES_SETUP: &str = r#"
create table public.bench_events (
  id bigint generated always as identity primary key,
  n int not null,
  sent_at timestamptz not null default clock_timestamp(),
  body text not null default 'bench'
);
alter table public.bench_events enable row level security;
create policy "anyone reads" on public.bench_events for select to anon using (true);
grant select on public.bench_events to anon;
select realtime.enable('public', 'bench_events');
create table public.bench_plain (id bigint generated always as identity primary key, n int not null);
"#;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted
        .get(((sorted.len() as f64 * p) as usize).min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or(f64::NAN)
}

async fn change_latency(o: &Options) -> anyhow::Result<()> {
    let mut db = sqlx::PgConnection::connect(&o.db_url).await?;
    sqlx::raw_sql(CHANGES_SETUP).execute(&mut db).await?;
    let (mut ws, _) = tokio_tungstenite::connect_async(ws_url(o)).await?;
    let config = json!({
        "broadcast": {"self": false}, "presence": {"key": ""},
        "postgres_changes": [{"event": "INSERT", "schema": "public", "table": "bench_events"}],
    });
    let topic = "realtime:bench-changes";
    join(&mut ws, topic, config, &o.anon_key).await?;
    // The subscription is live once the server says so.
    tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(message) = ws.next().await {
            if let Message::Text(text) = message? {
                let v: Value = serde_json::from_str(text.as_str())?;
                if v[3] == "system" {
                    if v[4]["status"] != "ok" {
                        bail!("subscription failed: {}", v[4]);
                    }
                    return Ok(());
                }
            }
        }
        bail!("socket closed before the subscription was confirmed")
    })
    .await
    .context("no system message within 10 s")??;

    let mut listener = sqlx::postgres::PgListener::connect(&o.db_url).await?;
    listener.listen("bench_latency").await?;

    let warmup = 20;
    let (mut change, mut notify, mut insert, mut row) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut lost = 0;
    let mut heartbeat_at = Instant::now();
    for i in 0..(warmup + o.inserts) {
        if heartbeat_at.elapsed() > Duration::from_secs(20) {
            let frame = json!([null, format!("hb{i}"), "phoenix", "heartbeat", {}]);
            ws.send(Message::text(frame.to_string())).await?;
            heartbeat_at = Instant::now();
        }
        // A row change: INSERT (autocommit) until the subscriber has it.
        let sent = Instant::now();
        sqlx::query("insert into public.bench_events (n) values ($1)")
            .bind(i as i32)
            .execute(&mut db)
            .await?;
        let inserted = sent.elapsed();
        let arrived = tokio::time::timeout(Duration::from_secs(5), async {
            while let Some(message) = ws.next().await {
                if let Ok(Message::Text(text)) = message {
                    let v: Value = serde_json::from_str(text.as_str()).unwrap_or_default();
                    if v[3] == "postgres_changes" && v[4]["data"]["record"]["n"] == json!(i) {
                        return true;
                    }
                }
            }
            false
        })
        .await
        .unwrap_or(false);
        let change_took = sent.elapsed();

        // The baseline: NOTIFY until a LISTENing connection has it.
        let sent = Instant::now();
        sqlx::query("select pg_notify('bench_latency', $1)")
            .bind(i.to_string())
            .execute(&mut db)
            .await?;
        let heard = tokio::time::timeout(Duration::from_secs(5), async {
            while let Ok(n) = listener.recv().await {
                if n.payload() == i.to_string() {
                    return true;
                }
            }
            false
        })
        .await
        .unwrap_or(false);
        let notify_took = sent.elapsed();

        // The tighter baseline: a committed INSERT whose statement NOTIFYs.
        let sent = Instant::now();
        sqlx::query(
            "with i as (insert into public.bench_plain (n) values ($1) returning n) \
             select pg_notify('bench_latency', 'row ' || n) from i",
        )
        .bind(i as i32)
        .execute(&mut db)
        .await?;
        let row_heard = tokio::time::timeout(Duration::from_secs(5), async {
            while let Ok(n) = listener.recv().await {
                if n.payload() == format!("row {i}") {
                    return true;
                }
            }
            false
        })
        .await
        .unwrap_or(false);
        let row_took = sent.elapsed();
        if i < warmup {
            continue;
        }
        if !arrived || !heard || !row_heard {
            lost += 1;
            continue;
        }
        change.push(change_took.as_secs_f64() * 1000.0);
        notify.push(notify_took.as_secs_f64() * 1000.0);
        insert.push(inserted.as_secs_f64() * 1000.0);
        row.push(row_took.as_secs_f64() * 1000.0);
    }
    for v in [&mut change, &mut notify, &mut insert, &mut row] {
        v.sort_by(f64::total_cmp);
    }
    println!(
        "  postgres_changes latency, {} rounds of: INSERT into the realtime table; pg_notify; INSERT that NOTIFYs (one at a time, autocommit):",
        o.inserts
    );
    println!("  {:<44} {:>9} {:>9}", "", "p50 ms", "p99 ms");
    for (name, v) in [
        ("INSERT -> postgres_changes at the client", &change),
        ("pg_notify -> PgListener (baseline)", &notify),
        ("INSERT+pg_notify -> PgListener (baseline 2)", &row),
        ("INSERT alone (for reference)", &insert),
    ] {
        println!(
            "  {name:<44} {:>9.2} {:>9.2}",
            percentile(v, 0.5),
            percentile(v, 0.99)
        );
    }
    println!(
        "  ratio change/NOTIFY: p50 {:.2}, p99 {:.2}; change/(INSERT+NOTIFY): p50 {:.2}, p99 {:.2}   (lost or late > 5 s: {lost})",
        percentile(&change, 0.5) / percentile(&notify, 0.5),
        percentile(&change, 0.99) / percentile(&notify, 0.99),
        percentile(&change, 0.5) / percentile(&row, 0.5),
        percentile(&change, 0.99) / percentile(&row, 0.99),
    );
    Ok(())
}

pub async fn run(o: Options) -> anyhow::Result<()> {
    println!(
        "realtime bench: broadcast fan-out to {} sockets for {} s (after 1 s warm-up), {} broadcasts in flight",
        o.clients, o.seconds, o.window
    );
    let (plinth, sample) = plinth_fanout(&o).await?;
    if let Some(sample) = &sample {
        println!("  frame as delivered ({} bytes): {sample}", sample.len());
    }
    // Let the server close the old sockets before the baseline runs.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let plain = plain_fanout(&o, sample).await?;
    println!(
        "  {:<40} {:>14} {:>9} {:>8} {:>9} {:>7}",
        "", "deliveries/s", "sent", "stalls", "missing", "gaps"
    );
    for (name, f) in [
        ("plinth broadcast", &plinth),
        ("plain websocket fan-out (baseline)", &plain),
    ] {
        println!(
            "  {name:<40} {:>14.0} {:>9} {:>8} {:>9} {:>7}",
            f.per_second, f.sent, f.stalls, f.missing, f.gaps
        );
    }
    println!(
        "  ratio plinth/plain: {:.2} (1.0: the server adds nothing to a bare fan-out of the same frames)",
        plinth.per_second / plain.per_second
    );
    change_latency(&o).await
}
