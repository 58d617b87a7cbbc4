//! Test support: a fresh, fully migrated database per test.
//!
//! The server is `DATABASE_URL` when set, else the local PostgreSQL at
//! `127.0.0.1:5432` as user `postgres`. The first test to ask for a given
//! list of migration sets builds a template database with them (under an
//! advisory lock, so parallel test processes build it once); every test then
//! gets its own copy (`CREATE DATABASE … TEMPLATE …`, milliseconds), dropped
//! again when the [`TestDb`] goes away.

use std::str::FromStr;
use std::time::Duration;

use sha2::{Digest, Sha256};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, PgConnection};

use crate::{Database, MigrationSet, PoolSettings};

/// The server tests run against.
pub fn server_url() -> String {
    std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

fn server_options() -> PgConnectOptions {
    PgConnectOptions::from_str(&server_url())
        .expect("DATABASE_URL is a postgres:// URL")
        .application_name("plinth-tests")
}

/// A database of its own for one test.
#[derive(Debug)]
pub struct TestDb {
    pub name: String,
    /// Owner connection options (the test server's user, this database).
    pub options: PgConnectOptions,
    pub db: Database,
}

impl TestDb {
    /// A fresh database with `sets` applied, in order.
    pub async fn new(sets: &[MigrationSet]) -> Self {
        let template = ensure_template(sets).await;
        let name = format!("plinth_test_{}", crate::random_token(12).to_lowercase());
        let mut admin = PgConnection::connect_with(&server_options())
            .await
            .expect("the test PostgreSQL server is reachable");
        // Another test may be copying the same template this very moment;
        // PostgreSQL then refuses briefly ("being accessed by other users").
        let mut attempt = 0;
        loop {
            let result = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                "create database \"{name}\" template \"{template}\""
            )))
            .execute(&mut admin)
            .await;
            match result {
                Ok(_) => break,
                Err(e) if attempt < 50 => {
                    attempt += 1;
                    tracing::debug!(%e, "retrying create database");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(e) => panic!("cannot create test database: {e}"),
            }
        }
        let _ = admin.close().await;
        let options = server_options().database(&name);
        let db = Database::connect(options.clone(), &PoolSettings::default())
            .await
            .expect("the fresh test database is reachable");
        Self { name, options, db }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop runs inside the test's runtime, which is blocked here: a thread
        // of its own with its own runtime drops the database. `with (force)`
        // ends this test's pooled connections; the pools themselves belong to
        // the blocked runtime and must not be awaited from here.
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                if let Ok(mut admin) = PgConnection::connect_with(&server_options()).await {
                    let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                        "drop database if exists \"{name}\" with (force)"
                    )))
                    .execute(&mut admin)
                    .await;
                    let _ = admin.close().await;
                }
            });
        })
        .join();
    }
}

/// The template database for `sets`, named after a digest of their files
/// and of the grants every migration run ends with, so changed SQL gets a
/// new template.
async fn ensure_template(sets: &[MigrationSet]) -> String {
    let mut digest = Sha256::new();
    digest.update(crate::project_admin::grants_sql().as_bytes());
    for set in sets {
        digest.update(set.name().as_bytes());
        for file in set.files() {
            digest.update(file.version.to_le_bytes());
            digest.update(file.label.as_bytes());
            digest.update(file.sql.as_bytes());
        }
    }
    let hex: String = digest
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    let template = format!("plinth_tpl_{hex}");

    let mut admin = PgConnection::connect_with(&server_options()).await.expect(
        "the test PostgreSQL server is reachable (set DATABASE_URL, or run one at 127.0.0.1:5432)",
    );
    sqlx::query("select pg_advisory_lock(7270514)")
        .execute(&mut admin)
        .await
        .expect("advisory lock");
    let exists: bool =
        sqlx::query_scalar("select exists (select 1 from pg_database where datname = $1)")
            .bind(&template)
            .fetch_one(&mut admin)
            .await
            .expect("pg_database is readable");
    if !exists {
        let building = format!("{template}_building");
        // One statement at a time: several in one string would form an
        // implicit transaction, which CREATE and DROP DATABASE refuse.
        for statement in [
            format!("drop database if exists \"{building}\" with (force)"),
            format!("create database \"{building}\""),
        ] {
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                .execute(&mut admin)
                .await
                .expect("cannot create the template database");
        }
        let pool = PgPoolOptions::new()
            .max_connections(1)
            .connect_with(server_options().database(&building))
            .await
            .expect("the template database is reachable");
        crate::migrate::run_all(&pool, sets)
            .await
            .unwrap_or_else(|e| panic!("migrations fail on a fresh database: {e}"));
        pool.close().await;
        for statement in [
            format!("alter database \"{building}\" rename to \"{template}\""),
            format!("alter database \"{template}\" is_template true"),
        ] {
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement))
                .execute(&mut admin)
                .await
                .expect("cannot finish the template database");
        }
    }
    let _ = sqlx::query("select pg_advisory_unlock(7270514)")
        .execute(&mut admin)
        .await;
    let _ = admin.close().await;
    template
}
