//! Settings: the node's effective configuration (secrets masked by the
//! server before they reach the console), the API keys and the migrations
//! applied, set by set.

use axum::extract::State;
use axum::response::{IntoResponse, Json, Response};
use serde::Serialize;
use serde_json::{Value, json};

use crate::{ConsoleState, Result};

/// One configuration setting as the node runs with it.
#[derive(Debug, Clone, Serialize)]
pub struct Setting {
    /// Its environment name (`PORT`, `GOTRUE_SITE_URL`, ...).
    pub name: String,
    /// The value, or a mask for a secret; `None` when unset without default.
    pub value: Option<String>,
    pub secret: bool,
    /// Given on the command line or in the environment (not a default).
    pub set: bool,
}

/// Whether a setting's value must not be shown.
pub fn is_secret(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    ["SECRET", "PASS", "KEY", "TOKEN", "PRIVATE", "CREDENTIAL"]
        .iter()
        .any(|word| name.contains(word))
}

/// A value as the console may show it: secrets become a mask, and a
/// URL's password is hidden (`postgres://u:•••@host/db`).
pub fn shown_value(name: &str, value: &str) -> String {
    if value.is_empty() {
        return String::new();
    }
    if is_secret(name) {
        return "••••••••".to_owned();
    }
    match url_password(value) {
        Some((before, after)) => format!("{before}••••••••{after}"),
        None => value.to_owned(),
    }
}

/// Splits `scheme://user:password@rest` around the password.
fn url_password(value: &str) -> Option<(&str, &str)> {
    let scheme_end = value.find("://")? + 3;
    let authority_end = value[scheme_end..]
        .find(['/', '?', '#'])
        .map_or(value.len(), |i| scheme_end + i);
    let at = value[scheme_end..authority_end].rfind('@')? + scheme_end;
    let colon = value[scheme_end..at].find(':')? + scheme_end;
    Some((&value[..=colon], &value[at..]))
}

/// `GET /settings`.
pub(crate) async fn show(State(state): State<ConsoleState>) -> Result<Response> {
    let db = &state.inner.db.owner;
    // The tracking tables' names come from the catalog, quoted by it.
    let tables: Vec<(String, String)> = sqlx::query_as(
        "select substr(c.relname, 12), format('%I.%I', n.nspname, c.relname)
           from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'plinth' and c.relkind = 'r' and c.relname like 'migrations\\_%'
          order by c.oid",
    )
    .fetch_all(db)
    .await?;
    let mut migrations: Vec<Value> = Vec::new();
    for (set, table) in tables {
        let applied: sqlx::types::Json<Value> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "select coalesce(jsonb_agg(jsonb_build_object('set', $1::text, 'version', version,
                      'description', description, 'installed_on', installed_on, 'success', success)
                    order by version), '[]')
               from {table}"
        )))
        .bind(&set)
        .fetch_one(db)
        .await?;
        if let Value::Array(list) = applied.0 {
            migrations.extend(list);
        }
    }
    let service = &state.inner.service_key;
    let masked = format!(
        "{}…{}",
        service.chars().take(6).collect::<String>(),
        service
            .chars()
            .rev()
            .take(4)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<String>()
    );
    Ok(Json(json!({
        "config": state.inner.settings,
        "keys": { "anon": state.inner.anon_key, "service_role": masked },
        "migrations": migrations,
    }))
    .into_response())
}

/// `POST /settings/service-key`: the whole key, for the operator to copy.
pub(crate) async fn service_key(State(state): State<ConsoleState>) -> Result<Response> {
    tracing::info!(target: "plinth_console", "console: the service key was revealed");
    Ok(Json(json!({ "service_role": state.inner.service_key })).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_and_url_passwords_are_masked() {
        assert_eq!(shown_value("JWT_SECRET", "abc"), "••••••••");
        assert_eq!(shown_value("SMTP_PASS", "abc"), "••••••••");
        assert_eq!(shown_value("SERVICE_ROLE_KEY", "abc"), "••••••••");
        assert_eq!(shown_value("PORT", "8000"), "8000");
        assert_eq!(
            shown_value(
                "DATABASE_URL",
                "postgres://u:hunter2@db:5432/x?sslmode=require"
            ),
            "postgres://u:••••••••@db:5432/x?sslmode=require"
        );
        assert_eq!(
            shown_value("DATABASE_URL", "postgres://u@db/x"),
            "postgres://u@db/x"
        );
        assert_eq!(
            shown_value("SITE_URL", "https://a.example/p@x"),
            "https://a.example/p@x"
        );
        assert_eq!(shown_value("SMTP_PASS", ""), "");
    }
}
