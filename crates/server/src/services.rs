//! Each service's settings as flags and environment variables (the
//! self-hosted platform's names), turned into the service crates' own config
//! structs. The service crates know nothing of flags or environment.

use clap::Args;

use crate::config::Secret;

pub use crate::auth_args::{AuthArgs, GithubArgs, GoogleArgs, PhoneArgs};

/// A duration as the platform writes them (`60s`, `1m`, `500ms`, `1h`), or
/// a bare number of seconds.
pub(crate) fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration like 60s, 1m or 500ms"))?;
    let seconds = match unit.trim() {
        "" | "s" => number,
        "ms" => number / 1000.0,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        other => {
            return Err(format!(
                "unknown unit {other:?} in {text:?} (use ms, s, m or h)"
            ));
        }
    };
    std::time::Duration::try_from_secs_f64(seconds).map_err(|e| format!("{text:?}: {e}"))
}

/// The REST gateway (`/rest/v1`), with PostgREST's setting names.
#[derive(Debug, Clone, Args)]
pub struct RestArgs {
    /// Schemas served, comma separated; the first is the default profile.
    #[arg(
        long,
        env = "PGRST_DB_SCHEMAS",
        value_delimiter = ',',
        default_value = "public"
    )]
    pub db_schemas: Vec<String>,
    /// The role of requests without a user.
    #[arg(long, env = "PGRST_DB_ANON_ROLE", default_value = "anon")]
    pub db_anon_role: String,
    /// Most rows one read returns (unset: no limit).
    #[arg(long, env = "PGRST_DB_MAX_ROWS")]
    pub db_max_rows: Option<i64>,
    /// Schemas added to the search path of every request.
    #[arg(
        long,
        env = "PGRST_DB_EXTRA_SEARCH_PATH",
        value_delimiter = ',',
        default_value = "public,extensions"
    )]
    pub db_extra_search_path: Vec<String>,
    /// Allow count(), sum(), avg(), min(), max() in select.
    #[arg(long, env = "PGRST_DB_AGGREGATES_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub db_aggregates_enabled: bool,
    /// Allow execution plans (Accept: application/vnd.pgrst.plan+json).
    #[arg(long, env = "PGRST_DB_PLAN_ENABLED", default_value_t = false, action = clap::ArgAction::Set)]
    pub db_plan_enabled: bool,
    /// commit, commit-allow-override, rollback or rollback-allow-override.
    #[arg(long, env = "PGRST_DB_TX_END", default_value = "commit")]
    pub db_tx_end: String,
}

impl RestArgs {
    pub fn to_config(&self) -> plinth_rest::RestConfig {
        let clean = |v: &[String]| -> Vec<String> {
            v.iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        };
        plinth_rest::RestConfig {
            db_schemas: clean(&self.db_schemas),
            anon_role: self.db_anon_role.clone(),
            max_rows: self.db_max_rows,
            extra_search_path: clean(&self.db_extra_search_path),
            aggregates_enabled: self.db_aggregates_enabled,
            plan_enabled: self.db_plan_enabled,
            tx_end: self.db_tx_end.clone(),
            schema_poll: None,
        }
    }
}

/// Storage (`/storage/v1`), with the self-hosted platform's setting names.
#[derive(Debug, Clone, Args)]
pub struct StorageArgs {
    /// Where bytes live: `file` (a folder) or `s3` (any S3-compatible store).
    #[arg(long, env = "STORAGE_BACKEND", default_value = "file")]
    pub storage_backend: String,
    /// The folder of the `file` backend (default: `<data dir>/storage`).
    #[arg(long, env = "FILE_STORAGE_BACKEND_PATH")]
    pub file_storage_backend_path: Option<std::path::PathBuf>,
    /// The `file` backend's eTags: `md5` (of the bytes) or `mtime` (upload
    /// time and size, no hashing: faster uploads of large files).
    #[arg(long, env = "STORAGE_FILE_ETAG_ALGORITHM", default_value = "md5")]
    pub storage_file_etag_algorithm: plinth_storage::FileEtag,
    /// How long an unfinished resumable (TUS) upload can be continued, in
    /// milliseconds (the platform's default: one hour); then it is swept.
    #[arg(long, env = "TUS_URL_EXPIRY_MS", default_value_t = 3_600_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub tus_url_expiry_ms: u64,
    /// Largest upload, in bytes (buckets may set less).
    #[arg(long, env = "FILE_SIZE_LIMIT", default_value_t = 52_428_800)]
    pub file_size_limit: u64,
    /// Public base URL of storage links (default: this server's).
    #[arg(long, env = "STORAGE_PUBLIC_URL")]
    pub storage_public_url: Option<String>,
    /// Serve image transformations at `/render/image/...`.
    #[arg(long, env = "ENABLE_IMAGE_TRANSFORMATION", default_value_t = true, action = clap::ArgAction::Set)]
    pub enable_image_transformation: bool,
    /// Smallest and largest rendition width/height (larger asks are clamped).
    #[arg(long, env = "IMG_LIMITS_MIN_SIZE", default_value_t = 1)]
    pub img_limits_min_size: u32,
    #[arg(long, env = "IMG_LIMITS_MAX_SIZE", default_value_t = 2000)]
    pub img_limits_max_size: u32,
    /// Largest source object that is rendered, in bytes.
    #[arg(long, env = "IMGPROXY_MAX_SRC_FILE_SIZE", default_value_t = 20_000_000)]
    pub imgproxy_max_src_file_size: u64,
    /// Most megapixels a source may have (read before decoding).
    #[arg(long, env = "IMGPROXY_MAX_SRC_RESOLUTION", default_value_t = 16.8)]
    pub imgproxy_max_src_resolution: f64,
    #[arg(long, env = "GLOBAL_S3_BUCKET")]
    pub global_s3_bucket: Option<String>,
    #[arg(long, env = "GLOBAL_S3_ENDPOINT")]
    pub global_s3_endpoint: Option<String>,
    #[arg(long, env = "GLOBAL_S3_FORCE_PATH_STYLE", default_value_t = false, action = clap::ArgAction::Set)]
    pub global_s3_force_path_style: bool,
    #[arg(long, env = "REGION")]
    pub region: Option<String>,
    #[arg(long, env = "AWS_ACCESS_KEY_ID")]
    pub aws_access_key_id: Option<String>,
    #[arg(long, env = "AWS_SECRET_ACCESS_KEY", hide_env_values = true)]
    pub aws_secret_access_key: Option<Secret>,
    /// Megabytes the buffers of uploads being received may take in all;
    /// further uploads wait for a place.
    #[arg(long, env = "PLINTH_STORAGE_UPLOAD_MEMORY_MB", default_value_t = 128)]
    pub storage_upload_memory_mb: usize,
    /// Megabytes of stored image renditions in all; past it the least
    /// recently used go (0: none stored).
    #[arg(
        long,
        env = "PLINTH_STORAGE_RENDITION_CACHE_MB",
        default_value_t = 1024
    )]
    pub storage_rendition_cache_mb: u64,
    /// Renditions stored per object version; more distinct asks are
    /// rendered and sent, not stored.
    #[arg(
        long,
        env = "PLINTH_STORAGE_RENDITIONS_PER_OBJECT",
        default_value_t = 12
    )]
    pub storage_renditions_per_object: usize,
    /// Renditions rendered (cache misses) per client address per minute
    /// (that many at once, then one a second; 429 past it); 0: no limit.
    #[arg(long, env = "PLINTH_STORAGE_RENDERS_PER_MINUTE", default_value_t = 60)]
    pub storage_renders_per_minute: u32,
}

impl StorageArgs {
    pub fn to_config(
        &self,
        data_dir: &std::path::Path,
    ) -> anyhow::Result<plinth_storage::StorageConfig> {
        let backend = match self.storage_backend.as_str() {
            "file" => plinth_storage::Backend::FileSystem {
                root: self
                    .file_storage_backend_path
                    .clone()
                    .unwrap_or_else(|| data_dir.join("storage")),
            },
            "s3" => plinth_storage::Backend::S3(plinth_storage::S3Config {
                bucket: self
                    .global_s3_bucket
                    .clone()
                    .ok_or_else(|| anyhow::anyhow!("STORAGE_BACKEND=s3 needs GLOBAL_S3_BUCKET"))?,
                endpoint: self.global_s3_endpoint.clone(),
                region: self.region.clone(),
                access_key_id: self.aws_access_key_id.clone(),
                secret_access_key: self
                    .aws_secret_access_key
                    .as_ref()
                    .map(|s| s.expose().to_owned()),
                force_path_style: self.global_s3_force_path_style,
                prefix: None,
            }),
            other => anyhow::bail!("STORAGE_BACKEND must be file or s3, not {other:?}"),
        };
        Ok(plinth_storage::StorageConfig {
            backend,
            file_size_limit: self.file_size_limit,
            public_url: self.storage_public_url.clone(),
            file_etag: self.storage_file_etag_algorithm,
            upload_memory: self.storage_upload_memory_mb.saturating_mul(1024 * 1024),
            tus_url_expiry: std::time::Duration::from_millis(self.tus_url_expiry_ms),
            image_transformation_enabled: self.enable_image_transformation,
            image_min_size: self.img_limits_min_size,
            image_max_size: self.img_limits_max_size,
            image_max_source_bytes: self.imgproxy_max_src_file_size,
            image_max_source_pixels: (self.imgproxy_max_src_resolution.max(0.0) * 1e6) as u64,
            rendition_cache_bytes: self.storage_rendition_cache_mb.saturating_mul(1024 * 1024),
            renditions_per_object: self.storage_renditions_per_object,
            renders_per_minute: self.storage_renders_per_minute,
            ..Default::default()
        })
    }
}

/// Realtime (`/realtime/v1`): limits of one node.
#[derive(Debug, Clone, Args)]
pub struct RealtimeArgs {
    /// Most websocket connections one node accepts.
    #[arg(long, env = "REALTIME_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub realtime_max_connections: usize,
    /// Most websocket connections from one client address (the peer, or the
    /// first X-Forwarded-For entry with PLINTH_TRUST_PROXY_HEADERS).
    #[arg(long, env = "REALTIME_MAX_CONNECTIONS_PER_IP", default_value_t = 200)]
    pub realtime_max_connections_per_ip: usize,
    /// Most websocket connections of one signed-in user, from any address.
    #[arg(long, env = "REALTIME_MAX_CONNECTIONS_PER_USER", default_value_t = 50)]
    pub realtime_max_connections_per_user: usize,
    /// Most channels one connection may join (the platform's name,
    /// TENANT_MAX_CHANNELS_PER_CLIENT, is read too).
    #[arg(
        long,
        env = "REALTIME_MAX_CHANNELS_PER_CONNECTION",
        default_value_t = 100
    )]
    pub realtime_max_channels_per_connection: usize,
    #[arg(long, env = "TENANT_MAX_CHANNELS_PER_CLIENT", hide = true)]
    pub tenant_max_channels_per_client: Option<usize>,
    /// Largest broadcast or presence message, in bytes (the platform's
    /// max_payload_size_in_kb): a larger one is refused as the platform
    /// refuses it, and the socket stays open.
    #[arg(long, env = "REALTIME_MAX_MESSAGE_SIZE", default_value_t = 262_144)]
    pub realtime_max_message_size: usize,
    /// Largest websocket message read at all, in bytes; a larger one closes
    /// the socket (1009).
    #[arg(long, env = "REALTIME_MAX_FRAME_SIZE", default_value_t = 524_288)]
    pub realtime_max_frame_size: usize,
    /// Most events a connection may send per second (the platform's name,
    /// TENANT_MAX_EVENTS_PER_SECOND, is read too).
    #[arg(long, env = "REALTIME_MAX_EVENTS_PER_SECOND", default_value_t = 100)]
    pub realtime_max_events_per_second: u32,
    #[arg(long, env = "TENANT_MAX_EVENTS_PER_SECOND", hide = true)]
    pub tenant_max_events_per_second: Option<u32>,
    /// Most channel joins a connection may make per second; past it the
    /// socket is closed (the platform's name, TENANT_MAX_JOINS_PER_SECOND,
    /// is read too).
    #[arg(long, env = "REALTIME_MAX_JOINS_PER_SECOND", default_value_t = 100)]
    pub realtime_max_joins_per_second: u32,
    #[arg(long, env = "TENANT_MAX_JOINS_PER_SECOND", hide = true)]
    pub tenant_max_joins_per_second: Option<u32>,
    /// Most presence tracks and untracks a connection may make per second;
    /// past it the channel is closed.
    #[arg(
        long,
        env = "REALTIME_MAX_PRESENCE_EVENTS_PER_SECOND",
        default_value_t = 10
    )]
    pub realtime_max_presence_events_per_second: u32,
    /// Most presence members (keys) of one channel topic, across nodes.
    #[arg(long, env = "REALTIME_MAX_PRESENCE_MEMBERS", default_value_t = 1000)]
    pub realtime_max_presence_members: usize,
    /// Only private channels may be joined (the platform's "allow public
    /// access" off): their rights come from the policies on
    /// `realtime.messages`.
    #[arg(long, env = "REALTIME_PRIVATE_ONLY", default_value_t = false, action = clap::ArgAction::Set)]
    pub realtime_private_only: bool,
}

impl RealtimeArgs {
    pub fn to_config(&self) -> plinth_realtime::RealtimeConfig {
        plinth_realtime::RealtimeConfig {
            max_connections: self.realtime_max_connections,
            max_connections_per_ip: self.realtime_max_connections_per_ip,
            max_connections_per_user: self.realtime_max_connections_per_user,
            max_channels_per_connection: self
                .tenant_max_channels_per_client
                .unwrap_or(self.realtime_max_channels_per_connection),
            max_message_size: self.realtime_max_message_size,
            max_frame_size: self.realtime_max_frame_size,
            max_events_per_second: self
                .tenant_max_events_per_second
                .unwrap_or(self.realtime_max_events_per_second),
            max_joins_per_second: self
                .tenant_max_joins_per_second
                .unwrap_or(self.realtime_max_joins_per_second),
            max_presence_events_per_second: self.realtime_max_presence_events_per_second,
            max_presence_members: self.realtime_max_presence_members,
            private_only: self.realtime_private_only,
            ..Default::default()
        }
    }
}

/// The marketplace's functions and payments (`/functions/v1`, `/api`).
#[derive(Debug, Clone, Args)]
pub struct FunctionsArgs {
    /// Stripe secret key; unset: the simulated payment provider (no network needed).
    #[arg(long, env = "STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<Secret>,
    /// Stripe publishable key (`pk_…`), given to the app's checkout form.
    #[arg(long, env = "STRIPE_PUBLISHABLE_KEY")]
    pub stripe_publishable_key: Option<String>,
    /// Stripe API base URL (a test double's, in tests).
    #[arg(long, env = "STRIPE_API_BASE")]
    pub stripe_api_base: Option<String>,
    /// Signing secret of the Stripe webhook (`whsec_…`); unset: the webhook answers 503.
    #[arg(long, env = "STRIPE_WEBHOOK_SECRET", hide_env_values = true)]
    pub stripe_webhook_secret: Option<Secret>,
    /// The platform's fee on paid templates, in basis points (1000 = 10 %).
    #[arg(long, env = "PLATFORM_FEE_BPS", default_value_t = 1000)]
    pub platform_fee_bps: u32,
    /// Currency of prices.
    #[arg(long, env = "PAYMENT_CURRENCY", default_value = "usd")]
    pub payment_currency: String,
    /// Where the payment provider sends creators back after onboarding.
    #[arg(long, env = "STRIPE_CONNECT_RETURN_URL")]
    pub stripe_connect_return_url: Option<String>,
    #[arg(long, env = "STRIPE_CONNECT_REFRESH_URL")]
    pub stripe_connect_refresh_url: Option<String>,
    /// A visitor's views of one template count once per this many seconds.
    #[arg(long, env = "VIEW_DEDUP_WINDOW_SECS", default_value_t = 1800)]
    pub view_dedup_window_secs: u64,
    /// Lifetime of download links, in seconds.
    #[arg(long, env = "DOWNLOAD_URL_EXPIRY_SECS", default_value_t = 600)]
    pub download_url_expiry_secs: u64,
    /// The period (seconds) the functions' limits below count in; a budget
    /// of n refills one call every window/n.
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_RATE_LIMIT_WINDOW_SECS",
        default_value_t = 3600
    )]
    pub functions_rate_limit_window_secs: u64,
    /// create-free-order calls per client address per window (0: no limit).
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_RATE_LIMIT_FREE_ORDERS",
        default_value_t = 30
    )]
    pub functions_rate_limit_free_orders: u32,
    /// track-template-view calls per client address per window (0: no limit).
    #[arg(long, env = "PLINTH_FUNCTIONS_RATE_LIMIT_VIEWS", default_value_t = 600)]
    pub functions_rate_limit_views: u32,
    /// subscribe-to-newsletter calls per client address per window (0: no limit).
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_RATE_LIMIT_NEWSLETTER",
        default_value_t = 20
    )]
    pub functions_rate_limit_newsletter: u32,
    /// Free-download e-mails per recipient address per window, across
    /// templates (0: no limit); one per address and template per window.
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_RATE_LIMIT_EMAILS_PER_ADDRESS",
        default_value_t = 10
    )]
    pub functions_rate_limit_emails_per_address: u32,
}

impl FunctionsArgs {
    pub fn to_config(
        &self,
        site_url: &str,
        api_external_url: &str,
    ) -> plinth_marketplace::FunctionsConfig {
        plinth_marketplace::FunctionsConfig {
            stripe_secret_key: self
                .stripe_secret_key
                .as_ref()
                .map(|s| s.expose().to_owned()),
            stripe_api_base: self.stripe_api_base.clone(),
            stripe_webhook_secret: self
                .stripe_webhook_secret
                .as_ref()
                .map(|s| s.expose().to_owned()),
            platform_fee_bps: self.platform_fee_bps,
            currency: self.payment_currency.clone(),
            site_url: site_url.to_owned(),
            api_external_url: api_external_url.to_owned(),
            connect_return_url: self.stripe_connect_return_url.clone(),
            connect_refresh_url: self.stripe_connect_refresh_url.clone(),
            view_window: std::time::Duration::from_secs(self.view_dedup_window_secs),
            download_url_expiry: std::time::Duration::from_secs(self.download_url_expiry_secs),
            rate_limits: plinth_marketplace::RateLimits {
                window: std::time::Duration::from_secs(self.functions_rate_limit_window_secs),
                free_orders: self.functions_rate_limit_free_orders,
                views: self.functions_rate_limit_views,
                newsletter: self.functions_rate_limit_newsletter,
                emails_per_address: self.functions_rate_limit_emails_per_address,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        storage: StorageArgs,
    }

    fn storage(args: &[&str]) -> Result<plinth_storage::StorageConfig, String> {
        let cli = Cli::try_parse_from(std::iter::once("plinth").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.storage
            .to_config(std::path::Path::new("/tmp/data"))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn storage_settings_take_the_platforms_names_defaults_and_limits() {
        let config = storage(&[]).unwrap();
        assert_eq!(config.tus_url_expiry.as_secs(), 3600);
        assert_eq!(config.file_etag, plinth_storage::FileEtag::Md5);
        let config = storage(&[
            "--tus-url-expiry-ms",
            "90000",
            "--storage-file-etag-algorithm",
            "mtime",
        ])
        .unwrap();
        assert_eq!(config.tus_url_expiry.as_millis(), 90_000);
        assert_eq!(config.file_etag, plinth_storage::FileEtag::Mtime);
        for bad in [
            ["--tus-url-expiry-ms", "0"],
            ["--tus-url-expiry-ms", "soon"],
            ["--storage-file-etag-algorithm", "sha1"],
        ] {
            let error = storage(&bad).unwrap_err();
            assert!(error.contains(bad[1]), "{error}");
        }
    }
}

/// The function host: the project's own TypeScript functions in Deno
/// workers (`/functions/v1/{name}`).
#[derive(Debug, Args)]
pub struct FunctionHostArgs {
    /// Folder of the project's own functions: `<name>/index.ts` each (the
    /// platform's layout), and an optional `config.toml` with
    /// `[functions.<name>]` settings.
    #[arg(long, env = "PLINTH_FUNCTIONS_DIR", default_value = "functions")]
    pub functions_dir: std::path::PathBuf,

    /// The Deno binary that runs them (else `deno` on PATH; `scripts/serve`
    /// installs one from the npm registry).
    #[arg(long, env = "PLINTH_DENO_BIN")]
    pub deno_bin: Option<std::path::PathBuf>,

    /// A worker's memory limit (its V8 heap and resident set), in MB.
    #[arg(long, env = "PLINTH_FUNCTIONS_MEMORY_MB", default_value_t = 256,
          value_parser = clap::value_parser!(u64).range(32..))]
    pub functions_memory_mb: u64,

    /// A request's wall-clock limit, in seconds (546 past it).
    #[arg(long, env = "PLINTH_FUNCTIONS_WALL_CLOCK_SECS", default_value_t = 150,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub functions_wall_clock_secs: u64,

    /// A worker's soft CPU-time limit, in ms (from when it was ready, all
    /// its threads): past it, the worker takes no new request and stops once
    /// those it has are answered. 0: none.
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_CPU_SOFT_LIMIT_MS",
        default_value_t = 2000
    )]
    pub functions_cpu_soft_limit_ms: u64,

    /// A worker's hard CPU-time limit, in ms, counted as the soft one: past
    /// it, the worker is stopped and its requests answered 546. At least the
    /// soft limit; 0: none.
    #[arg(
        long,
        env = "PLINTH_FUNCTIONS_CPU_HARD_LIMIT_MS",
        default_value_t = 4000
    )]
    pub functions_cpu_hard_limit_ms: u64,

    /// Warm workers per function, at most.
    #[arg(long, env = "PLINTH_FUNCTIONS_MAX_WORKERS", default_value_t = 2,
          value_parser = clap::value_parser!(u64).range(1..=64))]
    pub functions_max_workers: u64,

    /// Requests one worker serves at once.
    #[arg(long, env = "PLINTH_FUNCTIONS_WORKER_CONCURRENCY", default_value_t = 64,
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub functions_worker_concurrency: u64,

    /// How long a request waits for a busy function's worker before a 503,
    /// in seconds.
    #[arg(long, env = "PLINTH_FUNCTIONS_QUEUE_SECS", default_value_t = 5)]
    pub functions_queue_secs: u64,

    /// A worker idle this long (seconds) is stopped.
    #[arg(long, env = "PLINTH_FUNCTIONS_IDLE_SECS", default_value_t = 60)]
    pub functions_idle_secs: u64,

    /// How long a worker may take to start, in seconds (its first start may
    /// fetch `npm:` packages).
    #[arg(long, env = "PLINTH_FUNCTIONS_BOOT_SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub functions_boot_secs: u64,

    /// Serve a changed function's new code from its next request (`plinth
    /// functions serve` turns it on).
    #[arg(long, env = "PLINTH_FUNCTIONS_WATCH", default_value_t = false, action = clap::ArgAction::Set)]
    pub functions_watch: bool,
}

impl FunctionHostArgs {
    /// The host's limits; refused when the hard CPU limit is below the soft
    /// one (both set).
    pub fn limits(&self) -> anyhow::Result<plinth_functions::Limits> {
        use std::time::Duration;
        let count = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        let cpu = |ms: u64| (ms > 0).then(|| Duration::from_millis(ms));
        let (soft, hard) = (
            self.functions_cpu_soft_limit_ms,
            self.functions_cpu_hard_limit_ms,
        );
        if soft > 0 && hard > 0 && hard < soft {
            anyhow::bail!(
                "PLINTH_FUNCTIONS_CPU_HARD_LIMIT_MS ({hard}) must be at least \
                 PLINTH_FUNCTIONS_CPU_SOFT_LIMIT_MS ({soft}), or 0 for no hard limit"
            );
        }
        Ok(plinth_functions::Limits {
            memory_mb: self.functions_memory_mb,
            wall_clock: Duration::from_secs(self.functions_wall_clock_secs),
            cpu_soft_limit: cpu(soft),
            cpu_hard_limit: cpu(hard),
            max_workers: count(self.functions_max_workers),
            worker_concurrency: count(self.functions_worker_concurrency),
            queue_wait: Duration::from_secs(self.functions_queue_secs),
            idle: Duration::from_secs(self.functions_idle_secs),
            boot: Duration::from_secs(self.functions_boot_secs),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod function_host_tests {
    use super::FunctionHostArgs;
    use clap::Parser;
    use std::time::Duration;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        host: FunctionHostArgs,
    }

    fn limits(args: &[&str]) -> Result<plinth_functions::Limits, String> {
        let cli = Cli::try_parse_from(std::iter::once("plinth").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.host.limits().map_err(|e| e.to_string())
    }

    #[test]
    fn the_cpu_limits_default_to_2_and_4_s_and_0_turns_one_off() {
        let defaults = limits(&[]).unwrap();
        assert_eq!(defaults.cpu_soft_limit, Some(Duration::from_millis(2000)));
        assert_eq!(defaults.cpu_hard_limit, Some(Duration::from_millis(4000)));
        let off = limits(&["--functions-cpu-soft-limit-ms", "0"]).unwrap();
        assert_eq!(off.cpu_soft_limit, None);
        let error = limits(&["--functions-cpu-hard-limit-ms", "1000"]).unwrap_err();
        assert!(error.contains("must be at least"), "{error}");
        let only_soft = limits(&["--functions-cpu-hard-limit-ms", "0"]).unwrap();
        assert_eq!(only_soft.cpu_hard_limit, None);
    }
}
