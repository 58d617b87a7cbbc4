//! Ordered, checksummed migration sets.
//!
//! Plinth applies several *sets* of SQL files, one after the other: the
//! platform SQL of each service crate (embedded in the binary), then the
//! project's `migrations/` folder, then its `policies/` folder. Each set is a
//! sqlx [`Migrator`] with a tracking table of its own
//! (`plinth.migrations_<set>`), so version numbers of different sets never
//! collide and one set can be left out (`--migrations none`) without the others
//! complaining about it.
//!
//! A file is named `<version>_<description>.sql` (the version is a whole
//! number, usually a `YYYYMMDDHHMMSS` timestamp as the platform's CLI writes
//! it). Once applied, its checksum is recorded; a file edited afterwards is
//! refused with a message naming it, because migrations are forward-only.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sqlx::migrate::{MigrateError, Migration, MigrationType, Migrator};
use sqlx::{AssertSqlSafe, PgPool, SqlSafeStr};

/// Schema holding the tracking tables of every migration set.
pub const TRACKING_SCHEMA: &str = "plinth";

/// One ordered list of SQL files applied and tracked together.
#[derive(Debug, Clone)]
pub struct MigrationSet {
    /// Short name, also the suffix of the tracking table (`[a-z0-9_]+`).
    name: String,
    /// The files, sorted by version.
    files: Vec<MigrationFile>,
}

/// One SQL file of a set.
#[derive(Debug, Clone)]
pub struct MigrationFile {
    pub version: i64,
    /// Where the file came from, as shown to people (`migrations/2026…_x.sql`).
    pub label: String,
    pub sql: String,
}

/// Why a set could not be loaded or applied. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error("cannot read migration folder {path}: {source}")]
    ReadDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read migration file {path}: {source}")]
    ReadFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "migration file {label} is not named <version>_<description>.sql \
         (for example 20261122093000_create_templates.sql)"
    )]
    BadName { label: String },
    #[error("migration files {first} and {second} have the same version {version}")]
    DuplicateVersion {
        version: i64,
        first: String,
        second: String,
    },
    #[error(
        "{label} was edited after it was applied (its checksum no longer matches the one \
         recorded in {table}); applied migrations are never changed: restore the file and \
         put the change in a new file"
    )]
    Edited { label: String, table: String },
    #[error(
        "version {version} of the {set} migrations was applied to this database but its file \
         is gone from this set; restore the file or point Plinth at the right folder"
    )]
    Missing { set: String, version: i64 },
    #[error("applying {label} failed: {message}")]
    Apply { label: String, message: String },
    #[error(
        "{label} was left half-applied by an earlier run; fix it by hand and remove its row \
         from {table}"
    )]
    Dirty { label: String, table: String },
    #[error("running the {set} migrations failed: {source}")]
    Other { set: String, source: MigrateError },
    #[error("cannot grant project_admin what it may reach: {0}")]
    ProjectAdmin(String),
}

impl MigrationSet {
    /// A set from files compiled into the binary: `(file name, sql)` pairs.
    /// `origin` is the folder shown in messages (`crates/db/migrations`).
    pub fn embedded(
        name: &str,
        origin: &str,
        files: &[(&str, &str)],
    ) -> Result<Self, MigrationError> {
        let mut parsed = Vec::with_capacity(files.len());
        for (file_name, sql) in files {
            let label = format!("{origin}/{file_name}");
            let version = parse_version(file_name).ok_or(MigrationError::BadName {
                label: label.clone(),
            })?;
            parsed.push(MigrationFile {
                version,
                label,
                sql: (*sql).to_owned(),
            });
        }
        Self::new(name, parsed)
    }

    /// A set read from a folder at run time: every `*.sql` file in it (other
    /// files, such as a README, are ignored).
    pub fn from_dir(name: &str, dir: &Path) -> Result<Self, MigrationError> {
        let entries = std::fs::read_dir(dir).map_err(|source| MigrationError::ReadDir {
            path: dir.to_owned(),
            source,
        })?;
        let mut files = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| MigrationError::ReadDir {
                path: dir.to_owned(),
                source,
            })?;
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("sql") || !path.is_file() {
                continue;
            }
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let label = path.display().to_string();
            let version = parse_version(&file_name).ok_or(MigrationError::BadName {
                label: label.clone(),
            })?;
            let sql = std::fs::read_to_string(&path)
                .map_err(|source| MigrationError::ReadFile { path, source })?;
            files.push(MigrationFile {
                version,
                label,
                sql,
            });
        }
        Self::new(name, files)
    }

    fn new(name: &str, mut files: Vec<MigrationFile>) -> Result<Self, MigrationError> {
        assert!(
            !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "migration set names are [a-z0-9_]+ (they name a table): {name:?}"
        );
        files.sort_by_key(|f| f.version);
        let mut seen: BTreeMap<i64, &str> = BTreeMap::new();
        for file in &files {
            if let Some(first) = seen.insert(file.version, &file.label) {
                return Err(MigrationError::DuplicateVersion {
                    version: file.version,
                    first: first.to_owned(),
                    second: file.label.clone(),
                });
            }
        }
        Ok(Self {
            name: name.to_owned(),
            files,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn files(&self) -> &[MigrationFile] {
        &self.files
    }

    /// The table recording which files of this set were applied.
    pub fn tracking_table(&self) -> String {
        format!("{TRACKING_SCHEMA}.migrations_{}", self.name)
    }

    fn label_of(&self, version: i64) -> String {
        self.files
            .iter()
            .find(|f| f.version == version)
            .map(|f| f.label.clone())
            .unwrap_or_else(|| format!("version {version} of the {} migrations", self.name))
    }

    fn migrator(&self) -> Migrator {
        let migrations = self
            .files
            .iter()
            .map(|f| {
                // A first line `-- no-transaction` runs the file outside a
                // transaction (for statements such as CREATE INDEX CONCURRENTLY),
                // the same marker sqlx's own folder loader understands.
                let no_tx = f.sql.trim_start().starts_with("-- no-transaction");
                Migration::new(
                    f.version,
                    Cow::Owned(f.label.clone()),
                    MigrationType::Simple,
                    AssertSqlSafe(f.sql.clone()).into_sql_str(),
                    no_tx,
                )
            })
            .collect();
        let mut migrator = Migrator::with_migrations(migrations);
        migrator.dangerous_set_table_name(self.tracking_table());
        migrator.create_schema(TRACKING_SCHEMA);
        migrator
    }

    /// Applies every file of this set not applied yet, in version order, after
    /// checking that every applied one is unchanged.
    pub async fn run(&self, pool: &PgPool) -> Result<(), MigrationError> {
        self.migrator().run(pool).await.map_err(|e| self.explain(e))
    }

    fn explain(&self, error: MigrateError) -> MigrationError {
        match error {
            MigrateError::VersionMismatch(v) => MigrationError::Edited {
                label: self.label_of(v),
                table: self.tracking_table(),
            },
            MigrateError::VersionMissing(version) => MigrationError::Missing {
                set: self.name.clone(),
                version,
            },
            MigrateError::ExecuteMigration(e, v) => MigrationError::Apply {
                label: self.label_of(v),
                message: describe_db_error(&e),
            },
            MigrateError::Dirty(v) => MigrationError::Dirty {
                label: self.label_of(v),
                table: self.tracking_table(),
            },
            source => MigrationError::Other {
                set: self.name.clone(),
                source,
            },
        }
    }
}

/// Applies the sets in the order given, then gives `project_admin` what it
/// may reach of what they made ([`crate::project_admin::grant`]).
pub async fn run_all(pool: &PgPool, sets: &[MigrationSet]) -> Result<(), MigrationError> {
    for set in sets {
        tracing::debug!(
            set = set.name(),
            files = set.files().len(),
            "applying migrations"
        );
        set.run(pool).await?;
    }
    // The project's migrations may have made schemas and tables since.
    crate::project_admin::grant(pool)
        .await
        .map_err(|e| MigrationError::ProjectAdmin(describe_db_error(&e)))
}

/// Checks an embedded set against the folder it was compiled from: the same
/// `.sql` files with the same contents, so a file added to the folder but not
/// to the crate's list is caught by that crate's unit test.
pub fn matches_folder(set: &MigrationSet, dir: &Path) -> Result<(), String> {
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sql"))
        .collect();
    on_disk.sort();
    let file_name = |f: &MigrationFile| f.label.rsplit('/').next().unwrap_or_default().to_owned();
    let mut embedded: Vec<String> = set.files().iter().map(file_name).collect();
    embedded.sort();
    if on_disk != embedded {
        return Err(format!(
            "{} holds {on_disk:?} but the set embeds {embedded:?}",
            dir.display()
        ));
    }
    for file in set.files() {
        let on_disk =
            std::fs::read_to_string(dir.join(file_name(file))).map_err(|e| e.to_string())?;
        if on_disk != file.sql {
            return Err(format!("{} differs from what was compiled in", file.label));
        }
    }
    Ok(())
}

/// `20261122093000_create_templates.sql` -> `20261122093000`.
fn parse_version(file_name: &str) -> Option<i64> {
    let stem = file_name.strip_suffix(".sql")?;
    let (version, description) = stem.split_once('_')?;
    if version.is_empty() || description.is_empty() || !version.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    version.parse().ok()
}

/// A database error as one line with Postgres's own message, detail and
/// position, without driver noise.
pub fn describe_db_error(error: &sqlx::Error) -> String {
    match error {
        sqlx::Error::Database(db) => {
            let mut message = db.message().to_owned();
            if let Some(pg) = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>() {
                if let Some(detail) = pg.detail() {
                    message.push_str(&format!(" ({detail})"));
                }
                if let Some(sqlx::postgres::PgErrorPosition::Original(pos)) = pg.position() {
                    message.push_str(&format!(" at character {pos}"));
                }
            }
            message
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_come_from_file_names() {
        let cases = [
            ("20261122093000_create_templates.sql", Some(20261122093000)),
            ("0001_roles.sql", Some(1)),
            ("0001_.sql", None),
            ("_roles.sql", None),
            ("roles.sql", None),
            ("12a_roles.sql", None),
            ("0001_roles.txt", None),
            ("99999999999999999999_too_big.sql", None),
        ];
        for (name, expected) in cases {
            assert_eq!(parse_version(name), expected, "{name}");
        }
    }

    #[test]
    fn duplicate_versions_are_refused_naming_both_files() {
        let err = MigrationSet::embedded(
            "x",
            "here",
            &[("0001_a.sql", "select 1"), ("01_b.sql", "select 2")],
        )
        .unwrap_err();
        let message = err.to_string();
        assert!(message.contains("here/0001_a.sql"), "{message}");
        assert!(message.contains("here/01_b.sql"), "{message}");
    }

    #[test]
    fn badly_named_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "ignored").unwrap();
        std::fs::write(dir.path().join("create_things.sql"), "select 1").unwrap();
        let err = MigrationSet::from_dir("x", dir.path()).unwrap_err();
        assert!(
            matches!(&err, MigrationError::BadName { label } if label.ends_with("create_things.sql")),
            "{err}"
        );
    }

    #[test]
    fn the_platform_set_embeds_its_whole_folder() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        matches_folder(&crate::platform_migrations(), &dir).unwrap();
        let other = MigrationSet::embedded("x", "here", &[("0001_a.sql", "select 1")]).unwrap();
        assert!(matches_folder(&other, &dir).is_err());
    }

    #[test]
    fn folder_sets_are_sorted_by_version() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("20_b.sql"), "select 2").unwrap();
        std::fs::write(dir.path().join("3_a.sql"), "select 1").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
        let set = MigrationSet::from_dir("x", dir.path()).unwrap();
        let versions: Vec<i64> = set.files().iter().map(|f| f.version).collect();
        assert_eq!(versions, vec![3, 20]);
        assert_eq!(set.tracking_table(), "plinth.migrations_x");
    }
}
