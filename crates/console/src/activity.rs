//! What the node did lately, for the console's logs, health and function
//! sections: the server's log lines (a `tracing` layer) and every request
//! (fed by the server's request middleware), kept in a bounded ring and
//! passed on live to whoever tails them. Nothing here is written to disk; a
//! restarted node starts with an empty book.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::sync::broadcast;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// Entries kept for `GET /logs` and the health figures.
const KEPT: usize = 2000;
/// Requests kept per service for the latency figures.
const KEPT_PER_SERVICE: usize = 500;
/// A tail that falls this far behind loses the oldest entries.
const TAIL_QUEUE: usize = 512;

/// One log line or one request.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub id: u64,
    pub at: DateTime<Utc>,
    pub level: &'static str,
    pub service: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub route: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// A request as the server's middleware saw it.
#[derive(Debug, Clone)]
pub struct RequestSeen<'a> {
    pub service: &'static str,
    pub method: &'a str,
    /// The path without its query (queries may carry keys).
    pub path: &'a str,
    pub route: Option<&'a str>,
    pub status: u16,
    pub elapsed: Duration,
    pub request_id: Option<&'a str>,
}

/// The node's activity book. Cheap to clone.
#[derive(Clone)]
pub struct Activity {
    inner: Arc<Inner>,
}

struct Inner {
    next_id: AtomicU64,
    started: std::time::Instant,
    book: Mutex<Book>,
    tail: broadcast::Sender<Arc<Entry>>,
}

#[derive(Default)]
struct Book {
    entries: VecDeque<Arc<Entry>>,
    services: HashMap<&'static str, ServiceFigures>,
}

#[derive(Default)]
struct ServiceFigures {
    requests: u64,
    errors: u64,
    total: Duration,
    recent: VecDeque<Duration>,
}

/// A service's request figures since start.
#[derive(Debug, Clone, Serialize)]
pub struct ServiceHealth {
    pub service: &'static str,
    pub requests: u64,
    /// Answers with a 5xx status.
    pub errors: u64,
    pub mean_ms: f64,
    /// Over the last requests kept.
    pub p95_ms: f64,
}

impl std::fmt::Debug for Activity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Activity").finish_non_exhaustive()
    }
}

impl Default for Activity {
    fn default() -> Self {
        Self::new()
    }
}

impl Activity {
    pub fn new() -> Self {
        Self {
            inner: Arc::new(Inner {
                next_id: AtomicU64::new(1),
                started: std::time::Instant::now(),
                book: Mutex::new(Book::default()),
                tail: broadcast::channel(TAIL_QUEUE).0,
            }),
        }
    }

    /// How long this node has been up.
    pub fn uptime(&self) -> Duration {
        self.inner.started.elapsed()
    }

    /// Notes one answered request.
    pub fn request(&self, seen: &RequestSeen<'_>) {
        let level = if seen.status >= 500 {
            "ERROR"
        } else if seen.status >= 400 {
            "WARN"
        } else {
            "INFO"
        };
        let entry = Entry {
            id: 0,
            at: Utc::now(),
            level,
            service: seen.service,
            message: format!("{} {} {}", seen.method, seen.path, seen.status),
            method: Some(seen.method.to_owned()),
            path: Some(seen.path.to_owned()),
            route: seen.route.map(str::to_owned),
            status: Some(seen.status),
            duration_ms: Some(seen.elapsed.as_secs_f64() * 1000.0),
            request_id: seen.request_id.map(str::to_owned),
        };
        {
            let Ok(mut book) = self.inner.book.lock() else {
                return;
            };
            let figures = book.services.entry(seen.service).or_default();
            figures.requests += 1;
            figures.errors += u64::from(seen.status >= 500);
            figures.total += seen.elapsed;
            if figures.recent.len() == KEPT_PER_SERVICE {
                figures.recent.pop_front();
            }
            figures.recent.push_back(seen.elapsed);
        }
        self.push(entry);
    }

    fn push(&self, mut entry: Entry) {
        entry.id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let entry = Arc::new(entry);
        if let Ok(mut book) = self.inner.book.lock() {
            if book.entries.len() == KEPT {
                book.entries.pop_front();
            }
            book.entries.push_back(entry.clone());
        }
        // No tail listening is not an error.
        let _ = self.inner.tail.send(entry);
    }

    /// The entries kept that pass `filter`, oldest first, at most `limit`
    /// (the newest ones).
    pub fn entries(&self, filter: &Filter, limit: usize) -> Vec<Arc<Entry>> {
        let Ok(book) = self.inner.book.lock() else {
            return Vec::new();
        };
        let mut out: Vec<_> = book
            .entries
            .iter()
            .rev()
            .filter(|e| filter.admits(e))
            .take(limit)
            .cloned()
            .collect();
        out.reverse();
        out
    }

    /// New entries as they come.
    pub fn tail(&self) -> broadcast::Receiver<Arc<Entry>> {
        self.inner.tail.subscribe()
    }

    /// Request figures per service, in a stable order.
    pub fn services(&self) -> Vec<ServiceHealth> {
        let Ok(book) = self.inner.book.lock() else {
            return Vec::new();
        };
        let mut out: Vec<_> = book
            .services
            .iter()
            .map(|(service, f)| {
                let mut recent: Vec<_> = f.recent.iter().copied().collect();
                recent.sort_unstable();
                let p95 = recent
                    .get((recent.len() * 95).div_ceil(100).saturating_sub(1))
                    .copied()
                    .unwrap_or_default();
                ServiceHealth {
                    service,
                    requests: f.requests,
                    errors: f.errors,
                    mean_ms: if f.requests == 0 {
                        0.0
                    } else {
                        f.total.as_secs_f64() * 1000.0 / f.requests as f64
                    },
                    p95_ms: p95.as_secs_f64() * 1000.0,
                }
            })
            .collect();
        out.sort_by_key(|s| s.service);
        out
    }

    /// The `tracing` layer that copies the server's log lines into the book.
    /// The server adds it with its own level filter.
    pub fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: Subscriber + for<'a> LookupSpan<'a>,
    {
        Capture {
            activity: self.clone(),
        }
    }
}

/// Which entries a reader wants.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    /// The least severe level shown.
    pub level: Option<Level>,
    pub service: Option<String>,
    pub status: Option<StatusFilter>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusFilter {
    /// `4xx`: 400 to 499.
    Class(u16),
    Code(u16),
}

impl StatusFilter {
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.trim().to_ascii_lowercase();
        if let Some(class) = text.strip_suffix("xx") {
            return match class.parse::<u16>() {
                Ok(c @ 1..=5) => Some(Self::Class(c)),
                _ => None,
            };
        }
        match text.parse::<u16>() {
            Ok(code @ 100..=599) => Some(Self::Code(code)),
            _ => None,
        }
    }

    fn admits(self, status: u16) -> bool {
        match self {
            Self::Class(c) => status / 100 == c,
            Self::Code(code) => status == code,
        }
    }
}

/// A level name as the console sends it (`error`, `warn`, `info`, `debug`).
pub fn parse_level(text: &str) -> Option<Level> {
    match text.trim().to_ascii_lowercase().as_str() {
        "error" => Some(Level::ERROR),
        "warn" | "warning" => Some(Level::WARN),
        "info" => Some(Level::INFO),
        "debug" => Some(Level::DEBUG),
        "trace" => Some(Level::TRACE),
        _ => None,
    }
}

impl Filter {
    pub fn admits(&self, entry: &Entry) -> bool {
        if let Some(least) = self.level {
            let level = parse_level(entry.level).unwrap_or(Level::INFO);
            // tracing orders ERROR as the smallest (most severe) level.
            if level > least {
                return false;
            }
        }
        if let Some(service) = &self.service
            && entry.service != service
        {
            return false;
        }
        if let Some(status) = self.status {
            return entry.status.is_some_and(|s| status.admits(s));
        }
        true
    }
}

struct Capture {
    activity: Activity,
}

impl<S> Layer<S> for Capture
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != "request" {
            return;
        }
        let mut fields = SpanFields::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let meta = event.metadata();
        let mut text = Text::default();
        event.record(&mut text);
        let mut request_id = None;
        let mut method = None;
        let mut path = None;
        if let Some(scope) = ctx.event_scope(event) {
            for span in scope {
                if let Some(fields) = span.extensions().get::<SpanFields>() {
                    request_id = request_id.or_else(|| fields.request_id.clone());
                    method = method.or_else(|| fields.method.clone());
                    path = path.or_else(|| fields.path.clone());
                }
            }
        }
        self.activity.push(Entry {
            id: 0,
            at: Utc::now(),
            level: level_name(*meta.level()),
            service: service_of_target(meta.target()),
            message: text.finish(),
            method,
            path,
            route: None,
            status: None,
            duration_ms: None,
            request_id,
        });
    }
}

/// The request span's fields (the server's `request` span: method, path,
/// request id), kept on the span for the events written inside it.
#[derive(Default)]
struct SpanFields {
    method: Option<String>,
    path: Option<String>,
    request_id: Option<String>,
}

impl Visit for SpanFields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.record_debug(field, &format_args!("{value}"));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let slot = match field.name() {
            "method" => &mut self.method,
            "path" => &mut self.path,
            "request_id" => &mut self.request_id,
            _ => return,
        };
        *slot = Some(format!("{value:?}"));
    }
}

fn level_name(level: Level) -> &'static str {
    match level {
        Level::ERROR => "ERROR",
        Level::WARN => "WARN",
        Level::INFO => "INFO",
        Level::DEBUG => "DEBUG",
        Level::TRACE => "TRACE",
    }
}

/// The service a log line comes from, by the crate that wrote it.
pub fn service_of_target(target: &str) -> &'static str {
    let krate = target.split("::").next().unwrap_or(target);
    match krate {
        "plinth_auth" => "auth",
        "plinth_rest" => "rest",
        "plinth_storage" => "storage",
        "plinth_realtime" => "realtime",
        "plinth_functions" | "plinth_marketplace" => "functions",
        "plinth_console" => "console",
        _ => "node",
    }
}

/// An event's message followed by its other fields (`key=value`).
#[derive(Default)]
struct Text {
    message: String,
    fields: String,
}

impl Text {
    fn finish(self) -> String {
        match (self.message.is_empty(), self.fields.is_empty()) {
            (_, true) => self.message,
            (true, false) => self.fields,
            (false, false) => format!("{} {}", self.message, self.fields),
        }
    }
}

impl Visit for Text {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            self.field(field, format_args!("{value}"));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            self.field(field, format_args!("{value:?}"));
        }
    }
}

impl Text {
    fn field(&mut self, field: &Field, value: std::fmt::Arguments<'_>) {
        if !self.fields.is_empty() {
            self.fields.push(' ');
        }
        let _ = write!(self.fields, "{}={}", field.name(), value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(service: &'static str, status: u16, ms: u64) -> RequestSeen<'static> {
        RequestSeen {
            service,
            method: "GET",
            path: "/rest/v1/x",
            route: Some("/rest/v1/{table}"),
            status,
            elapsed: Duration::from_millis(ms),
            request_id: Some("abc"),
        }
    }

    #[test]
    fn requests_are_entries_and_figures() {
        let activity = Activity::new();
        for ms in 1..=20 {
            activity.request(&seen("rest", 200, ms));
        }
        activity.request(&seen("rest", 503, 100));
        activity.request(&seen("auth", 401, 5));
        let rest = &activity.services()[1];
        assert_eq!(rest.service, "rest");
        assert_eq!((rest.requests, rest.errors), (21, 1));
        assert!((rest.p95_ms - 20.0).abs() < 0.01, "{}", rest.p95_ms);
        let entries = activity.entries(&Filter::default(), 1000);
        assert_eq!(entries.len(), 22);
        assert_eq!(entries[20].level, "ERROR");
        assert_eq!(entries[21].message, "GET /rest/v1/x 401");
        assert!(entries.windows(2).all(|w| w[0].id < w[1].id));
    }

    #[test]
    fn filters_by_level_service_and_status() {
        let activity = Activity::new();
        activity.request(&seen("rest", 200, 1));
        activity.request(&seen("rest", 404, 1));
        activity.request(&seen("auth", 500, 1));
        let count = |filter: Filter| activity.entries(&filter, 100).len();
        let warn = Filter {
            level: parse_level("warn"),
            ..Filter::default()
        };
        assert_eq!(count(warn), 2);
        let rest = Filter {
            service: Some("rest".into()),
            ..Filter::default()
        };
        assert_eq!(count(rest), 2);
        let client_errors = Filter {
            status: StatusFilter::parse("4xx"),
            ..Filter::default()
        };
        assert_eq!(count(client_errors), 1);
        let exact = Filter {
            status: StatusFilter::parse("500"),
            ..Filter::default()
        };
        assert_eq!(count(exact), 1);
        assert_eq!(StatusFilter::parse("9xx"), None);
        assert_eq!(StatusFilter::parse("abc"), None);
        assert_eq!(activity.entries(&Filter::default(), 2)[0].status, Some(404));
    }

    #[test]
    fn the_book_keeps_only_the_newest() {
        let activity = Activity::new();
        for _ in 0..KEPT + 10 {
            activity.request(&seen("rest", 200, 1));
        }
        let entries = activity.entries(&Filter::default(), usize::MAX);
        assert_eq!(entries.len(), KEPT);
        assert_eq!(entries[0].id, 11);
    }

    #[test]
    fn log_lines_are_captured_with_their_fields() {
        use tracing_subscriber::layer::SubscriberExt;
        let activity = Activity::new();
        let mut tail = activity.tail();
        let subscriber = tracing_subscriber::registry().with(activity.layer());
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(target: "plinth_storage::sweep", removed = 3, "swept");
            let span =
                tracing::info_span!("request", method = %"GET", path = %"/x", request_id = %"r-1");
            let _inside = span.enter();
            tracing::error!(target: "plinth_auth::admin", "failed");
        });
        let entry = tail.try_recv().expect("the line reached the tail");
        assert_eq!(entry.level, "WARN");
        assert_eq!(entry.service, "storage");
        assert_eq!(entry.message, "swept removed=3");
        let inside = tail.try_recv().expect("the second line reached the tail");
        assert_eq!((inside.level, inside.service), ("ERROR", "auth"));
        assert_eq!(inside.request_id.as_deref(), Some("r-1"));
        assert_eq!(inside.path.as_deref(), Some("/x"));
    }
}
