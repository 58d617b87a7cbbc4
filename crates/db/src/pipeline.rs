//! The REST gateway's connections: a request's whole transaction as **one
//! batch** of extended-protocol messages ending in a single `Sync`.
//!
//! A client library that waits for each statement's `ReadyForQuery` (or
//! pipelines statements that each end in their own `Sync`, as
//! `tokio-postgres` does) makes the database flush and answer once per
//! statement. Here `BEGIN`, the caller's settings, the statement and
//! `COMMIT` are written with one system call and answered with one: the
//! database does about half the work per request of the four round trips
//! PostgREST pays (`bench/rest.sh`). No Rust client exposes a batch with one
//! `Sync`, so this module keeps a small connection of its own; the messages
//! are encoded and decoded by `postgres-protocol` and parameters by
//! `postgres-types` (both of the `rust-postgres` project), and the pool is
//! `deadpool`'s.
//!
//! The protocol's rule that makes one batch safe: after an `ErrorResponse`
//! the server skips every message up to the `Sync`, so nothing after a
//! failed statement runs, and a transaction left open (`COMMIT` was
//! skipped) is reported by `ReadyForQuery`'s status; the caller then rolls
//! back. A connection given up mid-transaction (the request was dropped) is
//! settled in the background: the rest of its answer is read and its
//! transaction rolled back before the pool hands it out again; one whose
//! socket failed, or whose batch was only partly written, is closed, which
//! ends its transaction too. An idle connection the server has closed
//! since (a terminated backend, a restart) is dropped when the pool would
//! hand it out, before anything is written to it.
//!
//! Statements are prepared once per connection (named, cached by text and
//! parameter types, at most [`STATEMENT_CACHE_LIMIT`]); a new statement's
//! `Parse` goes in the same batch, right before its first `Bind`, so it is
//! planned on the settings (search path) of the statements before it.
//! Parameters travel in binary, results as text.

use std::collections::HashMap;
use std::time::Duration;

use bytes::BytesMut;
use fallible_iterator::FallibleIterator;
use postgres_protocol::authentication::sasl::{ChannelBinding, ScramSha256};
use postgres_protocol::message::{backend, frontend};
use postgres_types::{ToSql, Type};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Prepared statements a connection keeps; past it the connection closes
/// them all and prepares again what requests use.
pub const STATEMENT_CACHE_LIMIT: usize = 256;

/// Where and as whom the pool connects.
#[derive(Debug, Clone)]
pub struct ConnectSettings {
    pub target: Target,
    pub user: String,
    pub password: Option<String>,
    pub database: String,
    pub application_name: String,
    /// The `options` startup parameter (`-c name=value ...`), if any.
    pub options: Option<String>,
}

/// A TCP address or a Unix socket file.
#[derive(Debug, Clone)]
pub enum Target {
    Tcp { host: String, port: u16 },
    Unix(std::path::PathBuf),
}

/// What went wrong on a connection.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    /// The database answered with an error.
    #[error("{0}")]
    Db(DbError),
    #[error("database connection: {0}")]
    Io(#[from] std::io::Error),
    /// The server sent something this client does not expect or support.
    #[error("database protocol: {0}")]
    Protocol(String),
    /// A parameter could not be encoded.
    #[error("encoding a parameter: {0}")]
    Encode(String),
}

impl WireError {
    /// The database's own error, when it answered with one.
    pub fn as_db_error(&self) -> Option<&DbError> {
        match self {
            WireError::Db(e) => Some(e),
            _ => None,
        }
    }

    /// The database cannot be reached or cannot serve now (as
    /// [`crate::is_unavailable`] for sqlx's errors).
    pub fn is_unavailable(&self) -> bool {
        match self {
            WireError::Io(_) => true,
            WireError::Db(db) => crate::unavailable_code(&db.code),
            WireError::Protocol(_) | WireError::Encode(_) => false,
        }
    }
}

/// An `ErrorResponse`: SQLSTATE, message, detail and hint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError {
    pub code: String,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl DbError {
    fn parse(body: &backend::ErrorResponseBody) -> Result<Self, WireError> {
        let mut error = DbError {
            code: String::new(),
            message: String::new(),
            detail: None,
            hint: None,
        };
        let mut fields = body.fields();
        while let Some(field) = fields.next().map_err(WireError::Io)? {
            let value = String::from_utf8_lossy(field.value_bytes()).into_owned();
            match field.type_() {
                b'C' => error.code = value,
                b'M' => error.message = value,
                b'D' => error.detail = Some(value),
                b'H' => error.hint = Some(value),
                _ => {}
            }
        }
        Ok(error)
    }
}

fn tx_status(status: u8) -> TxStatus {
    match status {
        b'T' => TxStatus::InTransaction,
        b'E' => TxStatus::Failed,
        _ => TxStatus::Idle,
    }
}

/// The transaction state a `ReadyForQuery` reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxStatus {
    Idle,
    InTransaction,
    Failed,
}

trait Io: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// One connection as `authenticator` (see the module documentation).
pub struct Conn {
    io: Box<dyn Io>,
    read: BytesMut,
    /// (text, parameter type oids) -> statement name.
    statements: HashMap<(String, Vec<u32>), String>,
    next_statement: u64,
    /// Statements to close at the start of the next batch.
    to_close: Vec<String>,
    /// A batch was written and its `ReadyForQuery` not read yet (the
    /// request went away, or the socket failed).
    busy: bool,
    /// A write did not complete, or the socket failed: never reused.
    torn: bool,
    status: TxStatus,
}

impl std::fmt::Debug for Conn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conn")
            .field("statements", &self.statements.len())
            .field("busy", &self.busy)
            .field("status", &self.status)
            .finish()
    }
}

impl Conn {
    /// Connects and logs in (trust, password, MD5 or SCRAM-SHA-256).
    pub async fn connect(settings: &ConnectSettings) -> Result<Self, WireError> {
        let io: Box<dyn Io> = match &settings.target {
            Target::Tcp { host, port } => {
                let stream = tokio::net::TcpStream::connect((host.as_str(), *port)).await?;
                stream.set_nodelay(true)?;
                Box::new(stream)
            }
            Target::Unix(path) => Box::new(tokio::net::UnixStream::connect(path).await?),
        };
        let mut conn = Conn {
            io,
            read: BytesMut::with_capacity(8 * 1024),
            statements: HashMap::new(),
            next_statement: 0,
            to_close: Vec::new(),
            busy: false,
            torn: true,
            status: TxStatus::Idle,
        };
        conn.start_up(settings).await?;
        conn.torn = false;
        Ok(conn)
    }

    async fn start_up(&mut self, settings: &ConnectSettings) -> Result<(), WireError> {
        let mut params = vec![
            ("client_encoding", "UTF8"),
            ("user", settings.user.as_str()),
            ("database", settings.database.as_str()),
            ("application_name", settings.application_name.as_str()),
        ];
        if let Some(options) = &settings.options {
            params.push(("options", options.as_str()));
        }
        let mut out = BytesMut::new();
        frontend::startup_message(params, &mut out)?;
        self.send(&mut out).await?;
        let password = || {
            settings
                .password
                .as_deref()
                .map(str::as_bytes)
                .ok_or_else(|| WireError::Protocol("the server asks for a password".into()))
        };
        let mut scram: Option<ScramSha256> = None;
        loop {
            match self.next().await? {
                backend::Message::AuthenticationOk => {}
                backend::Message::AuthenticationCleartextPassword => {
                    frontend::password_message(password()?, &mut out)?;
                    self.send(&mut out).await?;
                }
                backend::Message::AuthenticationMd5Password(body) => {
                    let hash = postgres_protocol::authentication::md5_hash(
                        settings.user.as_bytes(),
                        password()?,
                        body.salt(),
                    );
                    frontend::password_message(hash.as_bytes(), &mut out)?;
                    self.send(&mut out).await?;
                }
                backend::Message::AuthenticationSasl(body) => {
                    let mut mechanisms = body.mechanisms();
                    let mut offered = false;
                    while let Some(m) = mechanisms.next()? {
                        offered |= m == "SCRAM-SHA-256";
                    }
                    if !offered {
                        return Err(WireError::Protocol(
                            "the server offers no SCRAM-SHA-256 authentication".into(),
                        ));
                    }
                    let s = ScramSha256::new(password()?, ChannelBinding::unsupported());
                    frontend::sasl_initial_response("SCRAM-SHA-256", s.message(), &mut out)?;
                    self.send(&mut out).await?;
                    scram = Some(s);
                }
                backend::Message::AuthenticationSaslContinue(body) => {
                    let s = scram
                        .as_mut()
                        .ok_or_else(|| WireError::Protocol("unexpected SASL message".into()))?;
                    s.update(body.data())?;
                    frontend::sasl_response(s.message(), &mut out)?;
                    self.send(&mut out).await?;
                }
                backend::Message::AuthenticationSaslFinal(body) => {
                    let s = scram
                        .as_mut()
                        .ok_or_else(|| WireError::Protocol("unexpected SASL message".into()))?;
                    s.finish(body.data())?;
                }
                backend::Message::ErrorResponse(body) => {
                    return Err(WireError::Db(DbError::parse(&body)?));
                }
                backend::Message::ReadyForQuery(_) => return Ok(()),
                backend::Message::ParameterStatus(_)
                | backend::Message::BackendKeyData(_)
                | backend::Message::NoticeResponse(_) => {}
                _ => {
                    return Err(WireError::Protocol(
                        "unsupported authentication method".into(),
                    ));
                }
            }
        }
    }

    async fn send(&mut self, out: &mut BytesMut) -> Result<(), WireError> {
        self.io.write_all(out).await?;
        out.clear();
        Ok(())
    }

    /// The next message from the server.
    async fn next(&mut self) -> Result<backend::Message, WireError> {
        loop {
            if let Some(message) = backend::Message::parse(&mut self.read)? {
                return Ok(message);
            }
            if self.read.capacity() - self.read.len() < 4096 {
                self.read.reserve(8 * 1024);
            }
            if self.io.read_buf(&mut self.read).await? == 0 {
                return Err(WireError::Io(std::io::ErrorKind::UnexpectedEof.into()));
            }
        }
    }

    /// The transaction state after the last batch.
    pub fn status(&self) -> TxStatus {
        self.status
    }

    /// Prepared statements this connection holds.
    pub fn prepared(&self) -> usize {
        self.statements.len()
    }

    /// Whether the pool may hand this connection out again as it is.
    fn reusable(&self) -> bool {
        !self.busy && !self.torn && self.status == TxStatus::Idle
    }

    /// Whether the server closed this idle connection (or is closing it:
    /// a terminated backend, `idle_session_timeout`, a restart), judged
    /// without waiting from what it sent since its last answer: an error
    /// (`57P01`…), the end of the stream, or anything but the notices an
    /// idle connection may be sent. Such a connection is never written to.
    fn closed_by_server(&mut self) -> bool {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let mut chunk = [0u8; 1024];
        for _ in 0..8 {
            let mut buf = tokio::io::ReadBuf::new(&mut chunk);
            match std::pin::Pin::new(&mut self.io).poll_read(&mut cx, &mut buf) {
                std::task::Poll::Pending => break,
                std::task::Poll::Ready(Ok(())) if !buf.filled().is_empty() => {
                    self.read.extend_from_slice(buf.filled());
                }
                std::task::Poll::Ready(_) => return true,
            }
        }
        loop {
            match backend::Message::parse(&mut self.read) {
                Ok(None) => return false,
                Ok(Some(
                    backend::Message::NoticeResponse(_)
                    | backend::Message::ParameterStatus(_)
                    | backend::Message::NotificationResponse(_),
                )) => {}
                _ => return true,
            }
        }
    }

    /// Brings a connection given up mid-batch or mid-transaction back to
    /// idle: reads the rest of the answer, then rolls back. An error means
    /// it cannot be reused.
    pub async fn settle(&mut self) -> Result<(), WireError> {
        if self.torn {
            return Err(WireError::Protocol("the connection is broken".into()));
        }
        if self.busy {
            let mut failed = false;
            let drained = async {
                loop {
                    match self.next().await? {
                        backend::Message::ReadyForQuery(body) => return Ok(body.status()),
                        backend::Message::ErrorResponse(_) => failed = true,
                        _ => {}
                    }
                }
            }
            .await;
            let status = match drained {
                Ok(status) => status,
                Err(e) => {
                    self.torn = true;
                    return Err(e);
                }
            };
            self.status = tx_status(status);
            self.busy = false;
            if failed {
                // Which of the batch's new statements were prepared is
                // unknown: close them all (closing an unknown name is not an
                // error) and prepare again as needed.
                self.to_close
                    .extend(self.statements.drain().map(|(_, name)| name));
            }
        }
        if self.status != TxStatus::Idle {
            let mut batch = self.batch();
            batch.push("ROLLBACK", &[], &[]);
            if let (_, Some(e)) = batch.run().await {
                return Err(e);
            }
        }
        Ok(())
    }

    /// A new batch on this connection.
    pub fn batch(&mut self) -> Batch<'_> {
        let mut out = BytesMut::with_capacity(1024);
        if self.statements.len() >= STATEMENT_CACHE_LIMIT {
            self.to_close
                .extend(self.statements.drain().map(|(_, name)| name));
        }
        // First in the batch, so that an error later in it cannot skip them.
        let closing = std::mem::take(&mut self.to_close);
        for name in &closing {
            // A name is ASCII without NUL: encoding cannot fail.
            let _ = frontend::close(b'S', name, &mut out);
        }
        Batch {
            conn: self,
            out,
            closing,
            steps: Vec::new(),
            error: None,
        }
    }
}

/// What one statement of a batch answered.
#[derive(Debug)]
pub enum Reply {
    /// Its rows (possibly none) and the number its command tag reports
    /// (rows affected or returned).
    Rows(Vec<Row>, u64),
    /// An earlier statement failed, so this one did not run.
    Skipped,
}

impl Reply {
    pub fn rows(&self) -> &[Row] {
        match self {
            Reply::Rows(rows, _) => rows,
            Reply::Skipped => &[],
        }
    }

    /// Rows affected, as the command tag says (`UPDATE 3`: 3).
    pub fn affected(&self) -> u64 {
        match self {
            Reply::Rows(_, n) => *n,
            Reply::Skipped => 0,
        }
    }
}

/// A row: each column's text, or `None` for NULL.
#[derive(Debug)]
pub struct Row(Vec<Option<String>>);

impl Row {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Column `i` as text (`None`: NULL or no such column).
    pub fn text(&self, i: usize) -> Option<&str> {
        self.0.get(i).and_then(Option::as_deref)
    }

    /// Column `i` as a whole number (`None`: NULL, absent or not a number).
    pub fn int(&self, i: usize) -> Option<i64> {
        self.text(i).and_then(|t| t.parse().ok())
    }

    fn parse(body: &backend::DataRowBody) -> Result<Self, WireError> {
        let buffer = body.buffer();
        let mut columns = Vec::new();
        let mut ranges = body.ranges();
        while let Some(range) = ranges.next()? {
            columns.push(match range {
                Some(range) => Some(
                    std::str::from_utf8(&buffer[range])
                        .map_err(|e| WireError::Protocol(format!("a column is not UTF-8: {e}")))?
                        .to_owned(),
                ),
                None => None,
            });
        }
        Ok(Row(columns))
    }
}

struct Step {
    /// The statement was new: prepared in this batch under this name.
    parsed: Option<(String, (String, Vec<u32>))>,
}

/// Statements queued to run with one `Sync` (see [`Conn::batch`]).
pub struct Batch<'c> {
    conn: &'c mut Conn,
    out: BytesMut,
    /// Statements this batch closes (see [`Conn::batch`]).
    closing: Vec<String>,
    steps: Vec<Step>,
    /// A parameter that could not be encoded: nothing is sent.
    error: Option<WireError>,
}

impl Batch<'_> {
    /// Queues `sql` with `params` (binary, of the given `types`); its reply
    /// comes at the same position of [`Batch::run`]'s list.
    pub fn push(&mut self, sql: &str, types: &[Type], params: &[&(dyn ToSql + Sync)]) {
        if self.error.is_some() {
            return;
        }
        if types.len() != params.len() {
            self.error = Some(WireError::Encode(format!(
                "{} parameter types for {} parameters",
                types.len(),
                params.len()
            )));
            return;
        }
        let key = (sql.to_owned(), types.iter().map(Type::oid).collect());
        let mut parsed = None;
        let name = match self.conn.statements.get(&key) {
            Some(name) => name.clone(),
            None => {
                self.conn.next_statement += 1;
                let name = format!("plinth_{}", self.conn.next_statement);
                if let Err(e) =
                    frontend::parse(&name, sql, types.iter().map(Type::oid), &mut self.out)
                {
                    self.error = Some(e.into());
                    return;
                }
                self.conn.statements.insert(key.clone(), name.clone());
                parsed = Some((name.clone(), key));
                name
            }
        };
        let encoded = frontend::bind(
            "",
            &name,
            std::iter::repeat_n(1, params.len()),
            params.iter().zip(types),
            |(param, ty), buf| match param.to_sql_checked(ty, buf) {
                Ok(postgres_types::IsNull::No) => Ok(postgres_protocol::IsNull::No),
                Ok(postgres_types::IsNull::Yes) => Ok(postgres_protocol::IsNull::Yes),
                Err(e) => Err(e),
            },
            Some(0),
            &mut self.out,
        );
        if let Err(e) = encoded {
            self.error = Some(WireError::Encode(match e {
                frontend::BindError::Conversion(e) => e.to_string(),
                frontend::BindError::Serialization(e) => e.to_string(),
            }));
            if let Some((_, key)) = parsed {
                self.conn.statements.remove(&key);
            }
            return;
        }
        if let Err(e) = frontend::execute("", 0, &mut self.out) {
            self.error = Some(e.into());
            return;
        }
        self.steps.push(Step { parsed });
    }

    /// Sends the batch with one `Sync` and reads every answer up to its
    /// `ReadyForQuery`. The first statement that failed is the error; the
    /// replies of the others are in the list (`Skipped` after the error).
    pub async fn run(mut self) -> (Vec<Reply>, Option<WireError>) {
        if let Some(e) = self.error.take() {
            // Nothing is sent: the statements to close wait for the next
            // batch, and those this one would have prepared do not exist.
            self.conn.to_close.append(&mut self.closing);
            for step in &self.steps {
                if let Some((_, key)) = &step.parsed {
                    self.conn.statements.remove(key);
                }
            }
            return (Vec::new(), Some(e));
        }
        frontend::sync(&mut self.out);
        let conn = self.conn;
        conn.busy = true;
        let mut replies: Vec<Reply> = Vec::with_capacity(self.steps.len());
        let mut rows: Vec<Row> = Vec::new();
        let mut error: Option<WireError> = None;
        // Steps whose statement is prepared in this batch, waiting for their
        // ParseComplete; those left at the end were skipped after an error
        // and are not on the server.
        let mut parse_pending: Vec<usize> = self
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.parsed.is_some())
            .map(|(i, _)| i)
            .rev()
            .collect();
        let outcome: Result<(), WireError> = async {
            conn.torn = true;
            conn.io.write_all(&self.out).await?;
            conn.torn = false;
            loop {
                match conn.next().await? {
                    backend::Message::ParseComplete => {
                        parse_pending.pop();
                    }
                    backend::Message::DataRow(body) => {
                        if error.is_none() {
                            rows.push(Row::parse(&body)?);
                        }
                    }
                    backend::Message::CommandComplete(body) => {
                        let tag = body.tag()?;
                        let n = tag
                            .rsplit(' ')
                            .next()
                            .and_then(|n| n.parse().ok())
                            .unwrap_or(0);
                        replies.push(Reply::Rows(std::mem::take(&mut rows), n));
                    }
                    backend::Message::EmptyQueryResponse => {
                        replies.push(Reply::Rows(Vec::new(), 0));
                    }
                    backend::Message::ErrorResponse(body) => {
                        let db = DbError::parse(&body)?;
                        if error.is_none() {
                            error = Some(WireError::Db(db));
                        }
                    }
                    backend::Message::ReadyForQuery(body) => {
                        conn.status = tx_status(body.status());
                        return Ok(());
                    }
                    backend::Message::BindComplete
                    | backend::Message::CloseComplete
                    | backend::Message::NoData
                    | backend::Message::NoticeResponse(_)
                    | backend::Message::ParameterStatus(_)
                    | backend::Message::NotificationResponse(_)
                    | backend::Message::PortalSuspended => {}
                    _ => {
                        return Err(WireError::Protocol(
                            "unexpected message in a batch's answer".into(),
                        ));
                    }
                }
            }
        }
        .await;
        for i in parse_pending {
            if let Some((_, key)) = &self.steps[i].parsed {
                conn.statements.remove(key);
            }
        }
        if let Err(e) = outcome {
            // The socket failed: the pool closes this connection.
            conn.torn = true;
            return (replies, Some(e));
        }
        conn.busy = false;
        while replies.len() < self.steps.len() {
            replies.push(Reply::Skipped);
        }
        (replies, error)
    }
}

/// Makes and recycles [`Conn`]s for [`Pool`]: a connection is handed out
/// again only when its last batch ended idle and the server has not closed
/// it since (see [`Conn::closed_by_server`]).
#[derive(Debug)]
pub struct Manager {
    settings: ConnectSettings,
}

impl deadpool::managed::Manager for Manager {
    type Type = Conn;
    type Error = WireError;

    async fn create(&self) -> Result<Conn, WireError> {
        Conn::connect(&self.settings).await
    }

    async fn recycle(
        &self,
        conn: &mut Conn,
        _: &deadpool::managed::Metrics,
    ) -> deadpool::managed::RecycleResult<WireError> {
        if conn.reusable() && !conn.closed_by_server() {
            Ok(())
        } else {
            Err(deadpool::managed::RecycleError::message(
                "a batch did not finish on this connection",
            ))
        }
    }
}

/// The pool of [`Conn`]s.
pub type Pool = deadpool::managed::Pool<Manager>;

/// A connection taken from the [`Pool`] for one request. Dropped while its
/// batch is unanswered or its transaction open (the request was dropped),
/// it is settled ([`Conn::settle`]) on a task of its own before it goes
/// back; one that cannot be settled is closed by the pool.
pub struct Pooled(Option<deadpool::managed::Object<Manager>>);

impl Pooled {
    /// A connection of `pool`, waiting at most the pool's wait timeout.
    /// One the server closed while it was idle is dropped, not handed out.
    pub async fn get(pool: &Pool) -> Result<Self, PoolError> {
        pool.get().await.map(|object| Pooled(Some(object)))
    }

    /// Whether the connection served an earlier request: the server may
    /// have dropped it since in a way not yet seen (a new one it has not).
    pub fn reused(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|o| deadpool::managed::Object::metrics(o).recycle_count > 0)
    }
}

impl std::ops::Deref for Pooled {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.0.as_ref().expect("held until dropped")
    }
}

impl std::ops::DerefMut for Pooled {
    fn deref_mut(&mut self) -> &mut Conn {
        self.0.as_mut().expect("held until dropped")
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let Some(mut object) = self.0.take() else {
            return;
        };
        if object.reusable() || object.torn {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = object.settle().await {
                    tracing::debug!(%e, "a dropped request's connection is closed");
                }
            });
        }
    }
}
/// Why [`Pool::get`] gave no connection.
pub type PoolError = deadpool::managed::PoolError<WireError>;

/// A pool of at most `max_size` connections, each made on first need.
pub fn pool(settings: ConnectSettings, max_size: usize, wait: Duration) -> Pool {
    Pool::builder(Manager { settings })
        .max_size(max_size)
        .wait_timeout(Some(wait))
        .create_timeout(Some(wait))
        .runtime(deadpool::Runtime::Tokio1)
        .build()
        .expect("a pool with a runtime and timeouts builds")
}
