//! Configuration: command-line flags, each with an environment variable of
//! the self-hosted platform's name where one exists (`DATABASE_URL`, `PORT`,
//! `JWT_SECRET`, `ANON_KEY`, …), read after an optional env file. Every option
//! is listed in `plinth.env.example` at the repository's root.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Plinth: a self-hosted backend (auth, REST, storage, functions, realtime)
/// that the official Supabase client libraries talk to, in one binary.
#[derive(Debug, Parser)]
#[command(name = "plinth", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply migrations, then serve the API and the app on one port.
    Serve(ServeArgs),
    /// Apply the platform SQL, the project's migrations and its policies, then exit.
    Migrate(DbArgs),
    /// Print the API keys as lines a shell can source (ANON_KEY=…, SERVICE_ROLE_KEY=…);
    /// `keys generate` makes a new signing key set.
    Keys(KeysArgs),
    /// Load the project's seed data (`--demo`: the demo data in seed/demo.sql).
    Seed(SeedArgs),
    /// Manage the project's admins (rows of public.admins) and the console's operators.
    Admin(AdminArgs),
    /// Write one consistent archive (database, stored files, generated
    /// secrets) to a folder or s3://bucket/prefix, while serving goes on.
    Backup(BackupArgs),
    /// Bring a new data folder back to an archive (`--until`: to a moment
    /// after it, replaying the archived write-ahead log).
    Restore(RestoreArgs),
    /// The project's own edge functions: scaffold one, list them, serve
    /// with reload on change, and manage their secrets.
    Functions {
        #[command(subcommand)]
        action: FunctionsAction,
    },
    /// Generate code from the live schema.
    Gen {
        #[command(subcommand)]
        what: GenCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum FunctionsAction {
    /// Make `<functions dir>/<name>/index.ts` from a template.
    New(FunctionNewArgs),
    /// List the project's functions and their settings.
    List(FunctionDirArgs),
    /// `plinth serve`, with each function reloaded when its files change.
    Serve(Box<ServeArgs>),
    /// The secrets every function finds in its environment.
    Secrets {
        #[command(subcommand)]
        action: SecretsAction,
    },
}

#[derive(Debug, Args)]
pub struct FunctionDirArgs {
    /// Folder of the project's functions.
    #[arg(long, env = "PLINTH_FUNCTIONS_DIR", default_value = "functions")]
    pub functions_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct FunctionNewArgs {
    /// The function's name: a letter, then letters, digits, `-` and `_`.
    pub name: String,

    #[command(flatten)]
    pub dir: FunctionDirArgs,
}

#[derive(Debug, Subcommand)]
pub enum SecretsAction {
    /// Set secrets: `NAME=value` pairs, and/or the lines of `--env-file`.
    /// Running workers are replaced so that they see the new values.
    Set(SecretsSetArgs),
    /// List the secrets' names and the SHA-256 of their values.
    List(DbOnlyArgs),
    /// Remove secrets by name.
    Unset(SecretsUnsetArgs),
}

#[derive(Debug, Args)]
pub struct SecretsSetArgs {
    /// `NAME=value` pairs.
    pub pairs: Vec<String>,

    /// A file of `NAME=value` lines (as a `.env` file).
    #[arg(long)]
    pub env_file: Option<PathBuf>,

    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct SecretsUnsetArgs {
    /// The secrets' names.
    #[arg(required = true)]
    pub names: Vec<String>,

    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct DbOnlyArgs {
    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Subcommand)]
pub enum GenCommand {
    /// Types of the schema.
    Types {
        #[command(subcommand)]
        language: TypesLanguage,
    },
}

#[derive(Debug, Subcommand)]
pub enum TypesLanguage {
    /// The `Database` type for `createClient<Database>()`, printed to stdout.
    Typescript(TypegenArgs),
}

#[derive(Debug, Args)]
pub struct TypegenArgs {
    #[command(flatten)]
    pub db: DbArgs,

    /// Schemas to describe, comma separated.
    #[arg(long, value_delimiter = ',', default_value = "public")]
    pub schema: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SeedArgs {
    #[command(flatten)]
    pub db: DbArgs,

    /// Load the demo data (`<seed dir>/demo.sql`) instead of `<seed dir>/seed.sql`.
    #[arg(long)]
    pub demo: bool,

    /// Folder of the project's seed files.
    #[arg(long, env = "PLINTH_SEED_DIR", default_value = "seed")]
    pub seed_dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct AdminArgs {
    #[command(subcommand)]
    pub action: AdminAction,
}

#[derive(Debug, Subcommand)]
pub enum AdminAction {
    /// Make the user with this e-mail an admin.
    Grant(AdminUserArgs),
    /// Take admin rights from the user with this e-mail.
    Revoke(AdminUserArgs),
    /// Create an operator of the console (`/_/console`) and print its new
    /// password; again for the same address: a new password, and its
    /// sessions end.
    Operator(OperatorArgs),
}

#[derive(Debug, Args)]
pub struct OperatorArgs {
    /// The operator's e-mail address (not a user of the project).
    pub email: String,

    /// Read the password from standard input (one line; at least 12
    /// characters) instead of generating one.
    #[arg(long, conflicts_with = "remove")]
    pub password_stdin: bool,

    /// Delete the operator (its sessions end).
    #[arg(long)]
    pub remove: bool,

    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct AdminUserArgs {
    /// The user's e-mail address (they must have signed up).
    pub email: String,

    #[command(flatten)]
    pub db: DbArgs,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: DbArgs,

    #[command(flatten)]
    pub backup: BackupSettings,

    /// Port of the API and the app.
    #[arg(long, env = "PORT", default_value_t = 8000)]
    pub port: u16,

    /// Address to listen on (0.0.0.0 to accept connections from other machines).
    #[arg(long, env = "PLINTH_HOST", default_value = "127.0.0.1")]
    pub host: String,

    /// Folder of the built web app served at `/` (missing: a short page about the API instead).
    #[arg(long, env = "PLINTH_APP_DIR", default_value = "app/dist")]
    pub app_dir: PathBuf,

    /// The external automation webhook (an absolute http(s) URL) that the
    /// app's newsletter form posts to before the subscribe-to-newsletter
    /// function; handed to the app at run time and allowed by its CSP.
    #[arg(long, env = "PLINTH_NEWSLETTER_WEBHOOK_URL")]
    pub newsletter_webhook_url: Option<String>,

    /// Believe X-Forwarded-For / X-Real-IP (set when behind a reverse proxy or
    /// load balancer that sets them); otherwise they are dropped and the peer
    /// address is the client's, so nobody dodges per-address rate limits.
    #[arg(long, env = "PLINTH_TRUST_PROXY_HEADERS", default_value_t = false, action = clap::ArgAction::Set)]
    pub trust_proxy_headers: bool,

    /// This node's database is a read replica: it applies no migrations,
    /// writes nothing, and serves only the REST gateway (for the GET and
    /// HEAD requests a load balancer routes to replicas), `/health` and
    /// `/metrics`; its schema cache reloads every 10 s.
    #[arg(long, env = "PLINTH_READ_REPLICA", default_value_t = false, action = clap::ArgAction::Set)]
    pub read_replica: bool,

    /// A bearer token that may read `/metrics` (besides the service key),
    /// for a Prometheus that should not hold the service key.
    #[arg(long, env = "PLINTH_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<Secret>,

    #[command(flatten)]
    pub console: ConsoleArgs,

    #[command(flatten)]
    pub auth: crate::services::AuthArgs,

    #[command(flatten)]
    pub rest: crate::services::RestArgs,

    #[command(flatten)]
    pub storage: crate::services::StorageArgs,

    #[command(flatten)]
    pub realtime: crate::services::RealtimeArgs,

    #[command(flatten)]
    pub functions: crate::services::FunctionsArgs,

    #[command(flatten)]
    pub function_host: crate::services::FunctionHostArgs,

    /// The functions' `SUPABASE_DB_URL`. Unset: the `project_admin` role (no
    /// superuser), with a password derived from JWT_SECRET, on the database
    /// Plinth uses (the embedded cluster over 127.0.0.1).
    #[arg(long, env = "PLINTH_FUNCTIONS_DB_URL", hide_env_values = true)]
    pub functions_db_url: Option<Secret>,
}

/// The operator console at `/_/console` (off unless enabled).
#[derive(Debug, Args)]
pub struct ConsoleArgs {
    /// Serve the operator console at `/_/console` (sign-in with an account
    /// made by `plinth admin operator <email>`).
    #[arg(long = "console", env = "PLINTH_CONSOLE", default_value_t = false, action = clap::ArgAction::Set)]
    pub enabled: bool,

    /// Folder of the built console app.
    #[arg(long, env = "PLINTH_CONSOLE_DIR", default_value = "console/dist")]
    pub console_dir: PathBuf,

    /// A console session ends this many hours after sign-in.
    #[arg(long, env = "PLINTH_CONSOLE_SESSION_HOURS", default_value_t = 8)]
    pub console_session_hours: u32,

    /// ... or after this many minutes without a call.
    #[arg(long, env = "PLINTH_CONSOLE_IDLE_MINUTES", default_value_t = 30)]
    pub console_idle_minutes: u32,
}

impl ServeArgs {
    /// PLINTH_NEWSLETTER_WEBHOOK_URL, checked: an absolute `http:`/`https:`
    /// URL with a host and no credentials (the app and everyone who loads
    /// it read it), or `None` when unset or blank.
    pub fn newsletter_webhook_url(&self) -> anyhow::Result<Option<url::Url>> {
        let Some(raw) = self.newsletter_webhook_url.as_deref().map(str::trim) else {
            return Ok(None);
        };
        if raw.is_empty() {
            return Ok(None);
        }
        let refuse = |why: &str| {
            anyhow::anyhow!(
                "PLINTH_NEWSLETTER_WEBHOOK_URL must be an absolute http(s) URL such as \
                 https://hook.example.com/newsletter ({why}): {raw:?}"
            )
        };
        let url = url::Url::parse(raw).map_err(|e| refuse(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(refuse("the scheme must be http or https"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(refuse("it has no host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            // Not echoed: the value holds a password.
            anyhow::bail!(
                "PLINTH_NEWSLETTER_WEBHOOK_URL must be an absolute http(s) URL without a user name or \
                 password (every visitor of the app reads it)"
            );
        }
        Ok(Some(url))
    }
}

#[derive(Debug, Args)]
pub struct KeysArgs {
    #[command(subcommand)]
    pub action: Option<KeysAction>,

    #[command(flatten)]
    pub keys: KeyArgs,

    /// The data folder holding the generated secret.
    #[arg(long, env = "PLINTH_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum KeysAction {
    /// Make a new signing key and print GOTRUE_JWT_KEYS='[…]' (the new key first, the
    /// configured keys after it, left to verify only), then ANON_KEY=… and
    /// SERVICE_ROLE_KEY=… signed with the new key. Nothing is written.
    Generate {
        /// The new key's algorithm.
        #[arg(long, value_enum, ignore_case = true, default_value = "ES256")]
        alg: SigningAlg,
    },
}

/// The algorithms `plinth keys generate` makes keys for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SigningAlg {
    #[value(name = "ES256")]
    Es256,
    #[value(name = "RS256")]
    Rs256,
}

/// Where the database is and what to apply to it.
#[derive(Debug, Args)]
pub struct DbArgs {
    /// The data folder: the embedded PostgreSQL cluster, generated secrets, stored files.
    #[arg(long, env = "PLINTH_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    /// Use this PostgreSQL database instead of the embedded cluster.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<Secret>,

    /// Password of the `authenticator` role, set at start-up. Unset, a server
    /// that asks for one gets one derived from JWT_SECRET.
    #[arg(long, env = "AUTHENTICATOR_PASSWORD", hide_env_values = true)]
    pub authenticator_password: Option<Secret>,

    /// Largest number of connections of the request pool (default: four per
    /// CPU core; more connections than that only make Postgres switch
    /// between them, while requests wait briefly for a free one instead).
    #[arg(long, env = "PLINTH_DB_POOL_SIZE", default_value_t = default_pool_size())]
    pub db_pool_size: u32,

    /// Largest number of connections of the owner pool (migrations, auth's own tables).
    #[arg(long, env = "PLINTH_DB_OWNER_POOL_SIZE", default_value_t = 10)]
    pub db_owner_pool_size: u32,

    /// Seconds a request waits for a database connection before it is
    /// answered 503 with `Retry-After` (PostgREST's
    /// `db-pool-acquisition-timeout`, 10 s there; shorter here, so that
    /// while the database is away requests fail fast instead of hanging).
    #[arg(long, env = "PLINTH_DB_POOL_ACQUISITION_TIMEOUT", default_value_t = 3,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub db_pool_acquisition_timeout: u64,

    /// Folder of PostgreSQL server binaries (default: PATH, then /usr/lib/postgresql/*/bin).
    #[arg(long, env = "PLINTH_PG_BIN_DIR")]
    pub pg_bin_dir: Option<PathBuf>,

    /// The project's migrations, applied after the platform SQL (`none` to skip).
    #[arg(long, env = "PLINTH_MIGRATIONS", default_value = "migrations")]
    pub migrations: ProjectDir,

    /// The project's row-level-security policies, applied after its migrations (`none` to skip).
    #[arg(long, env = "PLINTH_POLICIES", default_value = "policies")]
    pub policies: ProjectDir,

    #[command(flatten)]
    pub keys: KeyArgs,

    #[command(flatten)]
    pub log: LogArgs,
}

fn default_pool_size() -> u32 {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get()) as u32;
    (cores * 4).clamp(4, 64)
}

/// The JWT secret and API keys; generated into the data folder when unset.
#[derive(Debug, Args)]
pub struct KeyArgs {
    /// HS256 secret of every token (at least 32 characters).
    #[arg(long, env = "JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<Secret>,

    /// The anon API key (a JWT with role anon signed with JWT_SECRET).
    #[arg(long, env = "ANON_KEY", hide_env_values = true)]
    pub anon_key: Option<Secret>,

    /// The service_role API key (a JWT with role service_role signed with JWT_SECRET).
    #[arg(long, env = "SERVICE_ROLE_KEY", hide_env_values = true)]
    pub service_role_key: Option<Secret>,

    /// The signing keys, as GoTrue reads them: a JSON array of private JWKs (RS256, ES256,
    /// or HS256 `oct`), each with a `kid`. The first key that may sign signs every token;
    /// every key verifies, and JWT_SECRET still verifies HS256 tokens (legacy keys).
    #[arg(long, env = "GOTRUE_JWT_KEYS", hide_env_values = true)]
    pub jwt_keys: Option<Secret>,

    /// A file holding the signing keys' JSON (instead of GOTRUE_JWT_KEYS).
    #[arg(long, env = "PLINTH_JWT_KEYS_FILE", conflicts_with = "jwt_keys")]
    pub jwt_keys_file: Option<PathBuf>,

    /// Refuse tokens without an `exp` claim, in every service (and configured
    /// keys without one at start-up). Off, as on the platform: a token
    /// without `exp` never expires; an `exp` present is always checked.
    #[arg(long, env = "PLINTH_JWT_REQUIRE_EXP", default_value_t = false, action = clap::ArgAction::Set)]
    pub jwt_require_exp: bool,
}

#[derive(Debug, Clone, Args)]
pub struct LogArgs {
    /// Log lines as human-readable text or as JSON objects.
    #[arg(long, env = "PLINTH_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

/// A project folder setting: a path, or `none`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectDir {
    None,
    Dir(PathBuf),
}

impl FromStr for ProjectDir {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(if s == "none" {
            Self::None
        } else {
            Self::Dir(PathBuf::from(s))
        })
    }
}

impl ProjectDir {
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::None => None,
            Self::Dir(p) => Some(p),
        }
    }
}

/// A value that must never be printed (logs, `--help`, `Debug`).
/// Scheduled backups of `plinth serve`, and the settings `plinth backup` shares.
#[derive(Debug, Clone, Args)]
pub struct BackupSettings {
    /// Where scheduled backups go (a folder or s3://bucket/prefix); with the
    /// embedded cluster, its write-ahead log is archived there too (for
    /// `plinth restore --until`).
    #[arg(long, env = "PLINTH_BACKUP_TO")]
    pub backup_to: Option<String>,
    /// How often `plinth serve` takes a backup: `30m`, `6h`, `1d`, `@daily`.
    #[arg(long, env = "PLINTH_BACKUP_SCHEDULE")]
    pub backup_schedule: Option<String>,
    /// Archives kept at the destination (older ones, and the log only they
    /// need, are removed after each backup).
    #[arg(long, env = "PLINTH_BACKUP_KEEP", default_value_t = 7)]
    pub backup_keep: usize,
    /// Encrypts archives (and archived log) with a key derived from it.
    #[arg(long, env = "PLINTH_BACKUP_PASSPHRASE", hide_env_values = true)]
    pub backup_passphrase: Option<Secret>,
}

#[derive(Debug, Args)]
pub struct BackupArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub storage: crate::services::StorageArgs,
    #[command(flatten)]
    pub settings: BackupSettings,
    /// Destination: a folder, or s3://bucket/prefix (default: PLINTH_BACKUP_TO).
    #[arg(long)]
    pub to: Option<String>,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    #[command(flatten)]
    pub db: DbArgs,
    #[command(flatten)]
    pub storage: crate::services::StorageArgs,
    /// Where the archives are: a folder, or s3://bucket/prefix.
    #[arg(long)]
    pub from: String,
    /// Recover to this moment (RFC 3339, e.g. 2026-11-25T20:30:00Z): the
    /// newest archive finished before it, then its archived log replayed.
    #[arg(long)]
    pub until: Option<String>,
    /// Decrypts the archives.
    #[arg(long, env = "PLINTH_BACKUP_PASSPHRASE", hide_env_values = true)]
    pub passphrase: Option<Secret>,
}

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(..)")
    }
}

impl FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self(s.to_owned()))
    }
}

impl Cli {
    /// Parses the command line after loading the env file: `PLINTH_ENV_FILE`
    /// when set, else `.env` in the working folder when present. Variables
    /// already in the environment win over the file.
    pub fn load() -> anyhow::Result<Self> {
        match std::env::var_os("PLINTH_ENV_FILE") {
            Some(file) => {
                dotenvy::from_path(&file).map_err(|e| {
                    anyhow::anyhow!(
                        "cannot read PLINTH_ENV_FILE {}: {e}",
                        Path::new(&file).display()
                    )
                })?;
            }
            None => {
                if let Err(e) = dotenvy::dotenv()
                    && !e.not_found()
                {
                    anyhow::bail!("cannot read .env: {e}");
                }
            }
        }
        Ok(Self::parse())
    }
}

/// `plinth serve`'s settings as this process runs with them, for the
/// console: every option that has an environment name, its value from the
/// command line, the environment (env file included) or its default, and
/// secrets masked. Read again from the process's own arguments.
pub fn effective_settings() -> Vec<plinth_console::Setting> {
    use clap::CommandFactory;
    use clap::parser::ValueSource;
    let command = Cli::command();
    let Ok(matches) = command.clone().try_get_matches_from(std::env::args_os()) else {
        return Vec::new();
    };
    let (Some(serve), Some(serve_matches)) = (
        command.find_subcommand("serve"),
        matches.subcommand_matches("serve"),
    ) else {
        return Vec::new();
    };
    let mut out: Vec<plinth_console::Setting> = serve
        .get_arguments()
        .filter_map(|arg| {
            let name = arg.get_env()?.to_string_lossy().into_owned();
            let id = arg.get_id().as_str();
            let value = serve_matches
                .get_raw(id)
                .map(|values| {
                    values
                        .map(|v| v.to_string_lossy().into_owned())
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .map(|v| plinth_console::settings::shown_value(&name, &v));
            let set = matches!(
                serve_matches.value_source(id),
                Some(ValueSource::CommandLine | ValueSource::EnvVariable)
            );
            Some(plinth_console::Setting {
                secret: plinth_console::settings::is_secret(&name),
                name,
                value,
                set,
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn project_folders_may_be_none() {
        let cli = Cli::try_parse_from([
            "plinth",
            "migrate",
            "--migrations",
            "none",
            "--policies",
            "p",
        ])
        .unwrap();
        let Command::Migrate(db) = cli.command else {
            panic!("not migrate")
        };
        assert_eq!(db.migrations, ProjectDir::None);
        assert_eq!(db.policies.path(), Some(Path::new("p")));
    }

    /// Every environment variable of every command is in the example file.
    #[test]
    fn the_example_env_file_lists_every_option() {
        let example = include_str!("../../../plinth.env.example");
        let mut missing = Vec::new();
        let mut stack = vec![Cli::command()];
        while let Some(command) = stack.pop() {
            for arg in command.get_arguments() {
                if let Some(env) = arg.get_env() {
                    let name = env.to_string_lossy().into_owned();
                    if !example.contains(&format!("{name}=")) {
                        missing.push(name);
                    }
                }
            }
            stack.extend(command.get_subcommands().cloned());
        }
        missing.sort();
        missing.dedup();
        assert!(missing.is_empty(), "plinth.env.example lacks {missing:?}");
    }

    #[test]
    fn the_newsletter_webhook_must_be_an_absolute_http_url() {
        let webhook = |value: &str| {
            let cli = Cli::try_parse_from(["plinth", "serve", "--newsletter-webhook-url", value])
                .unwrap();
            let Command::Serve(args) = cli.command else {
                panic!("not serve")
            };
            args.newsletter_webhook_url()
        };
        let url = webhook("https://hook.example.com/abc?x=1")
            .unwrap()
            .unwrap();
        assert_eq!(url.as_str(), "https://hook.example.com/abc?x=1");
        assert_eq!(
            webhook(" http://127.0.0.1:9000/hook ")
                .unwrap()
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9000/hook"
        );
        assert!(webhook("").unwrap().is_none());
        for bad in [
            "hook.example.com/abc",
            "/relative/path",
            "ftp://hook.example.com/abc",
            "javascript:alert(1)",
            "https://user:secret@hook.example.com/abc",
            "https://",
        ] {
            let error = webhook(bad).unwrap_err().to_string();
            assert!(!error.contains("secret"), "{error}");
            assert!(
                error.starts_with("PLINTH_NEWSLETTER_WEBHOOK_URL must be an absolute http(s) URL"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn secrets_do_not_print() {
        let secret: Secret = "hunter2-hunter2".parse().unwrap();
        assert_eq!(format!("{secret:?}"), "Secret(..)");
    }
}
