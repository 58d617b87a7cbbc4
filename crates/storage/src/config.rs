//! Configuration of the storage service. The server crate fills it from the
//! platform's environment names (`STORAGE_BACKEND`, `FILE_STORAGE_BACKEND_PATH`,
//! `GLOBAL_S3_*`, `AWS_*`, `FILE_SIZE_LIMIT`, `STORAGE_PUBLIC_URL`, ...).

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Everything the storage service needs to know besides the database and the
/// JWT secret.
#[derive(Debug, Clone)]
pub struct StorageConfig {
    /// Where the bytes go (`STORAGE_BACKEND`: `file` or `s3`).
    pub backend: Backend,
    /// Largest object accepted in any bucket, in bytes (`FILE_SIZE_LIMIT`,
    /// default 50 MB); a bucket's own `file_size_limit` can only be lower.
    pub file_size_limit: u64,
    /// Absolute URL under which `/storage/v1` is reachable from outside
    /// (`STORAGE_PUBLIC_URL`), for operators and logs; the API itself answers
    /// with paths relative to `/storage/v1`, as the platform does.
    pub public_url: Option<String>,
    /// Lifetime of a signed download URL when the caller does not say
    /// (the client always does; 3600 s on the platform's dashboard).
    pub signed_url_default_expiry: Duration,
    /// Longest lifetime a caller may ask for a signed download URL.
    pub signed_url_max_expiry: Duration,
    /// Lifetime of a signed upload URL (two hours on the platform).
    pub signed_upload_url_expiry: Duration,
    /// Temporary upload files, and object bytes that no row names, older
    /// than this are removed by the sweeps. Younger ones may belong to an
    /// upload still running on another node that shares the byte store, so
    /// they are left alone.
    pub orphan_grace: Duration,
    /// Bytes the buffers of uploads being received may take in all; past
    /// it, further uploads wait for a place (each holds up to 2.5 MiB on
    /// the file system, 10.5 MiB on S3).
    pub upload_memory: usize,
    /// How often the sweeps run after the one at start-up.
    pub orphan_sweep_interval: Duration,
    /// Default `Cache-Control` max-age (seconds) of uploads that send none.
    pub default_cache_control: u64,
    /// How long an unfinished resumable (TUS) upload can be continued (one
    /// hour, the platform's `TUS_URL_EXPIRY_MS` default); its staged bytes
    /// are swept after that.
    pub tus_url_expiry: Duration,
    /// How the file backend makes an upload's eTag
    /// (`STORAGE_FILE_ETAG_ALGORITHM`); the S3 backend always hashes.
    pub file_etag: FileEtag,
    /// Whether `/render/image/...` is served (`ENABLE_IMAGE_TRANSFORMATION`;
    /// on in Plinth, whose app asks for renditions).
    pub image_transformation_enabled: bool,
    /// Smallest and largest rendition width/height; larger asks are clamped
    /// (`IMG_LIMITS_MIN_SIZE`, `IMG_LIMITS_MAX_SIZE`: 1 and 2000 as on the
    /// platform).
    pub image_min_size: u32,
    pub image_max_size: u32,
    /// Largest source object that is rendered, in bytes
    /// (`IMGPROXY_MAX_SRC_FILE_SIZE`, default 20 MB).
    pub image_max_source_bytes: u64,
    /// Most pixels a source may have, read from its header before decoding
    /// (`IMGPROXY_MAX_SRC_RESOLUTION` in megapixels, default 16.8 as imgproxy).
    pub image_max_source_pixels: u64,
    /// Total bytes of stored renditions (`PLINTH_STORAGE_RENDITION_CACHE_MB`,
    /// default 1024); past it the least recently used go. 0 stores none.
    pub rendition_cache_bytes: u64,
    /// Most renditions stored per object version
    /// (`PLINTH_STORAGE_RENDITIONS_PER_OBJECT`, default 12); more distinct
    /// asks of one image are rendered and sent, not stored.
    pub renditions_per_object: usize,
    /// Renditions rendered (cache misses) per client address per minute
    /// (`PLINTH_STORAGE_RENDERS_PER_MINUTE`, default 60: that many at once,
    /// then one a second); past it 429 with `Retry-After`. 0: no limit.
    /// The service role is not limited.
    pub renders_per_minute: u32,
}

impl Default for StorageConfig {
    fn default() -> Self {
        Self {
            backend: Backend::default(),
            file_size_limit: 50 * 1024 * 1024,
            public_url: None,
            signed_url_default_expiry: Duration::from_secs(3600),
            signed_url_max_expiry: Duration::from_secs(60 * 60 * 24 * 365),
            signed_upload_url_expiry: Duration::from_secs(2 * 60 * 60),
            orphan_grace: Duration::from_secs(60 * 60),
            orphan_sweep_interval: Duration::from_secs(60 * 60),
            upload_memory: 128 * 1024 * 1024,
            default_cache_control: 3600,
            tus_url_expiry: Duration::from_secs(60 * 60),
            file_etag: FileEtag::Md5,
            image_transformation_enabled: true,
            image_min_size: 1,
            image_max_size: 2000,
            image_max_source_bytes: 20_000_000,
            image_max_source_pixels: 16_800_000,
            rendition_cache_bytes: 1024 * 1024 * 1024,
            renditions_per_object: 12,
            renders_per_minute: 60,
        }
    }
}

/// The eTag of an upload on the file backend, as the platform's
/// `STORAGE_FILE_ETAG_ALGORITHM` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FileEtag {
    /// The hex MD5 of the bytes (the platform's default). MD5 runs at about
    /// half a gigabyte a second on one core, which bounds the upload rate of
    /// a large file however fast the disk is.
    #[default]
    Md5,
    /// Upload time in milliseconds and size, both in hex
    /// (`"18c2f1a6b2e-1312d00"`): no hashing, so uploads go at the speed of
    /// the disk; it tells versions apart as the platform's `mtime` does.
    Mtime,
}

impl std::str::FromStr for FileEtag {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "md5" => Ok(Self::Md5),
            "mtime" => Ok(Self::Mtime),
            other => Err(format!(
                "STORAGE_FILE_ETAG_ALGORITHM must be either \"mtime\" or \"md5\", not {other:?}"
            )),
        }
    }
}

/// Where object bytes are kept.
#[derive(Clone)]
pub enum Backend {
    /// A folder of the local file system (`STORAGE_BACKEND=file`,
    /// `FILE_STORAGE_BACKEND_PATH`; default `./data/storage`).
    FileSystem { root: PathBuf },
    /// Any S3-compatible object store (`STORAGE_BACKEND=s3`).
    S3(S3Config),
    /// Process memory; for tests and throw-away instances only (bytes are lost
    /// at exit while their rows stay).
    Memory,
}

impl Default for Backend {
    fn default() -> Self {
        Backend::FileSystem {
            root: PathBuf::from("data").join("storage"),
        }
    }
}

impl fmt::Debug for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backend::FileSystem { root } => {
                f.debug_struct("FileSystem").field("root", root).finish()
            }
            Backend::S3(s3) => f.debug_tuple("S3").field(s3).finish(),
            Backend::Memory => f.write_str("Memory"),
        }
    }
}

/// An S3-compatible bucket. Secrets are never printed.
#[derive(Clone, Default)]
pub struct S3Config {
    /// `GLOBAL_S3_BUCKET`.
    pub bucket: String,
    /// `GLOBAL_S3_ENDPOINT`, e.g. `http://127.0.0.1:9000` for MinIO; `None`
    /// for AWS itself.
    pub endpoint: Option<String>,
    /// `REGION` (`AWS_DEFAULT_REGION`); `us-east-1` when unset.
    pub region: Option<String>,
    /// `AWS_ACCESS_KEY_ID`.
    pub access_key_id: Option<String>,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: Option<String>,
    /// `GLOBAL_S3_FORCE_PATH_STYLE`: `true` addresses the bucket as
    /// `endpoint/bucket/key` (MinIO and most self-hosted stores); `false` as
    /// `bucket.endpoint/key`.
    pub force_path_style: bool,
    /// A key prefix inside the bucket (several projects may share one).
    pub prefix: Option<String>,
}

impl fmt::Debug for S3Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3Config")
            .field("bucket", &self.bucket)
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("access_key_id", &self.access_key_id.as_ref().map(|_| ".."))
            .field(
                "secret_access_key",
                &self.secret_access_key.as_ref().map(|_| ".."),
            )
            .field("force_path_style", &self.force_path_style)
            .field("prefix", &self.prefix)
            .finish()
    }
}
