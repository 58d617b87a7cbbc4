//! PostgREST v14's behaviour, case by case, over HTTP against a real
//! Postgres: each module checks status, headers and body of one area
//! against what PostgREST documents (and, where its documentation is
//! silent, against its source, named in a comment beside the case).
//!
//! The schema is `schema/*.sql`, one file per area, applied in name order
//! to a fresh database per test. The Node suite
//! (`sdk-ts/tests/rest-postgrest.test.ts`) reads the same files.

#[path = "../support/mod.rs"]
mod support;

mod embeds;
mod formats;
mod hints;
mod rpc;
mod writes;

use plinth_db::MigrationSet;
use plinth_rest::RestConfig;
use support::App;

/// Every area's SQL, in name order.
pub const SCHEMA_FILES: &[(&str, &str)] = &[
    ("0010_rpc.sql", include_str!("schema/0010_rpc.sql")),
    ("0020_writes.sql", include_str!("schema/0020_writes.sql")),
    ("0030_embeds.sql", include_str!("schema/0030_embeds.sql")),
    ("0040_formats.sql", include_str!("schema/0040_formats.sql")),
    ("0050_hints.sql", include_str!("schema/0050_hints.sql")),
];

fn schema() -> MigrationSet {
    MigrationSet::embedded(
        "postgrest_cases",
        "crates/rest/tests/postgrest/schema",
        SCHEMA_FILES,
    )
    .expect("postgrest test schema set")
}

/// The gateway with the usual test configuration over the case schema.
pub async fn spawn() -> App {
    spawn_with(support::default_config()).await
}

pub async fn spawn_with(config: RestConfig) -> App {
    support::spawn_with(schema(), config).await
}
