//! The one error type of the gateway and its HTTP form: PostgREST's
//! `{code, message, details, hint}` with PostgREST's statuses.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use sqlx::postgres::PgDatabaseError;

/// An error as the client sees it. Built by every stage; turned into HTTP
/// once, in [`IntoResponse`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    pub status: StatusCode,
    /// `PGRSTxxx` or a SQLSTATE.
    pub code: String,
    pub message: String,
    /// `null`, a string or (PGRST201/203) an array.
    pub details: Value,
    pub hint: Value,
    /// `WWW-Authenticate` for 401s.
    pub www_authenticate: Option<String>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.to_owned(),
            message: message.into(),
            details: Value::Null,
            hint: Value::Null,
            www_authenticate: None,
        }
    }

    pub fn details(mut self, details: impl Into<Value>) -> Self {
        self.details = details.into();
        self
    }

    pub fn hint(mut self, hint: impl Into<Value>) -> Self {
        self.hint = hint.into();
        self
    }

    /// PGRST100: the query string does not parse.
    pub fn parse(what: &str, input: &str, detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "PGRST100",
            format!("\"failed to parse {what} ({input})\""),
        )
        .details(detail.into())
    }

    /// PGRST102: the body is not the JSON expected.
    pub fn bad_body(detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "PGRST102", "Empty or invalid json").details(detail.into())
    }

    /// PGRST106: a profile header names a schema that is not exposed.
    pub fn bad_schema(schema: &str, exposed: &[String]) -> Self {
        Self::new(
            StatusCode::NOT_ACCEPTABLE,
            "PGRST106",
            format!("Invalid schema: {schema}"),
        )
        .hint(format!(
            "Only the following schemas are exposed: {}",
            exposed.join(", ")
        ))
    }

    /// PGRST107: no acceptable media type.
    pub fn not_acceptable(accept: &str) -> Self {
        Self::new(
            StatusCode::NOT_ACCEPTABLE,
            "PGRST107",
            format!("None of these media types are available: {accept}"),
        )
    }

    /// PGRST116: a singular response was asked for but the result is not one row.
    pub fn singular(rows: i64) -> Self {
        Self::new(
            StatusCode::NOT_ACCEPTABLE,
            "PGRST116",
            "Cannot coerce the result to a single JSON object",
        )
        .details(format!("The result contains {rows} rows"))
    }

    /// 405 for a method this resource does not support.
    pub fn method(message: impl Into<String>) -> Self {
        Self::new(StatusCode::METHOD_NOT_ALLOWED, "PGRST117", message)
    }

    /// PGRST205: unknown table or view.
    pub fn no_table(schema: &str, name: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "PGRST205",
            format!("Could not find the table '{schema}.{name}' in the schema cache"),
        )
    }

    /// PGRST204: unknown column in a payload or `columns=`.
    pub fn no_column(column: &str, table: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "PGRST204",
            format!("Could not find the '{column}' column of '{table}' in the schema cache"),
        )
    }

    /// 42703 (as Postgres would say it): unknown column in select, filters or order.
    pub fn undefined_column(table: &str, column: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "42703",
            format!("column {table}.{column} does not exist"),
        )
    }

    /// PGRST301 / PGRST303: a token was presented and refused.
    pub fn jwt(expired: bool, detail: &str) -> Self {
        let (code, message) = if expired {
            ("PGRST303", "JWT expired".to_owned())
        } else {
            ("PGRST301", detail.to_owned())
        };
        let mut e = Self::new(StatusCode::UNAUTHORIZED, code, message.clone());
        e.www_authenticate = Some(format!(
            "Bearer error=\"invalid_token\", error_description=\"{}\"",
            message.replace(['"', '\\', '\r', '\n'], "")
        ));
        e
    }

    /// 503/504 when the database cannot be reached; never leaks the cause.
    pub fn unavailable(error: &sqlx::Error) -> Self {
        tracing::warn!(%error, "database unavailable");
        match error {
            sqlx::Error::PoolTimedOut => Self::new(
                StatusCode::GATEWAY_TIMEOUT,
                "PGRST003",
                "Timed out acquiring connection from connection pool.",
            ),
            _ => Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "PGRST001",
                "Database client error. Retrying the connection.",
            ),
        }
    }

    /// An error of the statement, mapped with PostgREST's SQLSTATE table.
    /// `authenticated`: the request ran as a role other than the anonymous one
    /// (decides 401 vs 403 for 42501).
    pub fn from_sqlx(error: sqlx::Error, authenticated: bool) -> Self {
        let sqlx::Error::Database(db) = &error else {
            return Self::unavailable(&error);
        };
        let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
        let (detail, hint) = match db.try_downcast_ref::<PgDatabaseError>() {
            Some(pg) => (pg.detail().map(str::to_owned), pg.hint().map(str::to_owned)),
            None => (None, None),
        };
        let status = sqlstate_status(&code, authenticated);
        if status.is_server_error() && !code.starts_with("P0") && !code.starts_with("PT") {
            // Internal failures of the server: logged, never sent.
            tracing::error!(%code, message = %db.message(), "database error");
            let mut e = Self::new(status, &code, "Internal database error");
            if status == StatusCode::SERVICE_UNAVAILABLE {
                e.message = "Database unavailable".into();
            }
            return e;
        }
        let mut e = Self::new(status, &code, db.message());
        e.details = detail.map(Value::String).unwrap_or(Value::Null);
        e.hint = hint.map(Value::String).unwrap_or(Value::Null);
        if status == StatusCode::UNAUTHORIZED {
            e.www_authenticate = Some("Bearer".into());
        }
        e
    }

    pub fn body(&self) -> Value {
        json!({
            "code": self.code,
            "details": self.details,
            "hint": self.hint,
            "message": self.message,
        })
    }
}

/// PostgREST's SQLSTATE -> HTTP status table.
pub fn sqlstate_status(code: &str, authenticated: bool) -> StatusCode {
    let class = code.get(..2).unwrap_or("");
    match code {
        "23503" | "23505" => return StatusCode::CONFLICT,
        "25006" => return StatusCode::METHOD_NOT_ALLOWED,
        "42883" | "42P01" => return StatusCode::NOT_FOUND,
        "42P17" => return StatusCode::INTERNAL_SERVER_ERROR,
        "42501" => {
            return if authenticated {
                StatusCode::FORBIDDEN
            } else {
                StatusCode::UNAUTHORIZED
            };
        }
        "53400" => return StatusCode::INTERNAL_SERVER_ERROR,
        "P0001" => return StatusCode::BAD_REQUEST,
        _ => {}
    }
    if class == "PT"
        && let Some(status) = code
            .get(2..)
            .and_then(|s| s.parse::<u16>().ok())
            .and_then(|s| StatusCode::from_u16(s).ok())
        {
            return status;
        }
    match class {
        "08" | "53" => StatusCode::SERVICE_UNAVAILABLE,
        "0L" | "0P" | "28" => StatusCode::FORBIDDEN,
        "09" | "25" | "2D" | "38" | "39" | "3B" | "40" | "54" | "55" | "57" | "58" | "F0"
        | "HV" | "XX" | "P0" => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.body().to_string();
        let mut response = (self.status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        if let Some(value) = self
            .www_authenticate
            .as_deref()
            .and_then(|v| HeaderValue::from_str(v).ok())
        {
            headers.insert(header::WWW_AUTHENTICATE, value);
        }
        response
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn sqlstate_table() {
        let cases = [
            ("23505", false, 409),
            ("23503", true, 409),
            ("42501", false, 401),
            ("42501", true, 403),
            ("P0001", true, 400),
            ("P0002", true, 500),
            ("42P01", true, 404),
            ("42883", true, 404),
            ("25006", true, 405),
            ("08006", true, 503),
            ("PT418", true, 418),
            ("22P02", true, 400),
            ("23502", true, 400),
            ("XX000", true, 500),
            ("28000", true, 403),
        ];
        for (code, authed, status) in cases {
            assert_eq!(sqlstate_status(code, authed).as_u16(), status, "{code}");
        }
    }
}
