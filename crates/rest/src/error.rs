//! The one error type of the gateway and its HTTP form: PostgREST's
//! `{code, message, details, hint}` with PostgREST's statuses.

pub mod fuzzy;

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
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
    /// Headers chosen by SQL (`RAISE SQLSTATE 'PGRST'`).
    pub headers: Vec<(String, String)>,
    /// The HTTP reason phrase chosen by SQL: `status_text` of a `RAISE
    /// SQLSTATE 'PGRST'` detail, or the message of a `PTnnn` SQLSTATE
    /// (PostgREST Error.hs, `HTTP.mkStatus`). `None`: the standard one.
    pub status_text: Option<String>,
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
            headers: Vec::new(),
            status_text: None,
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
        Self::invalid_json().details(detail.into())
    }

    /// PGRST102 as PostgREST answers a body that is not JSON: no details.
    pub fn invalid_json() -> Self {
        Self::new(StatusCode::BAD_REQUEST, "PGRST102", "Empty or invalid json")
    }

    /// PGRST102: the objects of a JSON (or CSV) body name different keys,
    /// or an array holds something other than objects.
    pub fn keys_must_match() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "PGRST102",
            "All object keys must match",
        )
    }

    /// 400 PGRST102: a request body in a type the endpoint does not read
    /// (PostgREST Payload.hs; raw bodies only for functions).
    pub fn content_type_not_acceptable(mime: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "PGRST102",
            format!("Content-Type not acceptable: {mime}"),
        )
    }

    /// 413: a body over the gateway's limit. PostgREST itself reads any
    /// size (a proxy in front of it sets the limit) and has no code of its
    /// own for this, so the code is PGRST102's, the family of request
    /// bodies the gateway cannot take.
    pub fn body_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "PGRST102",
            "Request body too large",
        )
        .details(format!("The request body is larger than {limit} bytes"))
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

    /// PGRST301 / PGRST303: a token was presented and refused; `claims`
    /// when it was well signed but a time claim refused it (expired, not yet
    /// valid), with `detail` as the message.
    pub fn jwt(claims: bool, detail: &str) -> Self {
        let (code, message) = if claims {
            ("PGRST303", detail.to_owned())
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
        match error {
            sqlx::Error::PoolTimedOut => Self::pool_timeout(error),
            _ => Self::client_error(error),
        }
    }

    fn pool_timeout(error: &dyn std::fmt::Display) -> Self {
        tracing::warn!(%error, "database unavailable");
        Self::new(
            StatusCode::GATEWAY_TIMEOUT,
            "PGRST003",
            "Timed out acquiring connection from connection pool.",
        )
    }

    fn client_error(error: &dyn std::fmt::Display) -> Self {
        tracing::warn!(%error, "database unavailable");
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "PGRST001",
            "Database client error. Retrying the connection.",
        )
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
            Some(pg) => (pg.detail(), pg.hint()),
            None => (None, None),
        };
        Self::from_database(&code, db.message(), detail, hint, authenticated)
    }

    /// An error of the pipelined request pool's connections, mapped as
    /// [`ApiError::from_sqlx`] maps sqlx's.
    pub fn from_pg(error: plinth_db::pipeline::WireError, authenticated: bool) -> Self {
        match error.as_db_error() {
            Some(db) => Self::from_database(
                &db.code,
                &db.message,
                db.detail.as_deref(),
                db.hint.as_deref(),
                authenticated,
            ),
            None => Self::client_error(&error),
        }
    }

    /// No client from the pipelined request pool: timed out waiting (as
    /// PostgREST's PGRST003) or the database cannot be reached.
    pub fn from_pool(error: plinth_db::pipeline::PoolError) -> Self {
        match error {
            plinth_db::pipeline::PoolError::Timeout(_) => Self::pool_timeout(&error),
            other => Self::client_error(&other),
        }
    }

    /// An error the database answered with: its SQLSTATE decides the status
    /// (PostgREST's Error.hs); internal failures are logged, never sent.
    fn from_database(
        code: &str,
        message: &str,
        detail: Option<&str>,
        hint: Option<&str>,
        authenticated: bool,
    ) -> Self {
        if code == "PGRST" {
            return Self::raised(message, detail);
        }
        let status = sqlstate_status(code, authenticated);
        if status.is_server_error() && !code.starts_with("P0") && !code.starts_with("PT") {
            // Internal failures of the server: logged, never sent.
            tracing::error!(%code, %message, "database error");
            let mut e = Self::new(status, code, "Internal database error");
            if status == StatusCode::SERVICE_UNAVAILABLE {
                e.message = "Database unavailable".into();
            }
            return e;
        }
        let mut e = Self::new(status, code, message);
        let pt_status = code.get(2..).and_then(|n| n.parse::<u16>().ok());
        if code.starts_with("PT") && pt_status == Some(status.as_u16()) {
            e.status_text = Some(message.to_owned());
        }
        e.details = detail
            .map(|d| Value::String(d.to_owned()))
            .unwrap_or(Value::Null);
        e.hint = hint
            .map(|h| Value::String(h.to_owned()))
            .unwrap_or(Value::Null);
        if status == StatusCode::UNAUTHORIZED {
            e.www_authenticate = Some("Bearer".into());
        }
        e
    }

    /// `RAISE SQLSTATE 'PGRST' USING MESSAGE = '{"code", "message",
    /// "details"?, "hint"?}', DETAIL = '{"status", "headers"}'`: the error
    /// exactly as SQL wrote it, with its status and headers. Anything else is
    /// PGRST121 (500), as in PostgREST.
    pub fn raised(message: &str, detail: Option<&str>) -> Self {
        let parse_error = |details: String, hint: &str| {
            Self::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "PGRST121",
                "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error",
            )
            .details(details)
            .hint(hint)
        };
        const MESSAGE_HINT: &str = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'.";
        const DETAIL_HINT: &str = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'.";
        let body = serde_json::from_str::<Value>(message).ok().and_then(|v| {
            let o = v.as_object()?;
            let text = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
            let optional = |k: &str| match o.get(k) {
                None | Some(Value::Null) => Some(Value::Null),
                Some(Value::String(s)) => Some(Value::String(s.clone())),
                Some(_) => None,
            };
            Some((
                text("code")?,
                text("message")?,
                optional("details")?,
                optional("hint")?,
            ))
        });
        let Some((code, msg, details, hint)) = body else {
            return parse_error(
                format!("Invalid JSON value for MESSAGE: '{message}'"),
                MESSAGE_HINT,
            );
        };
        let Some(detail) = detail else {
            return parse_error(
                "DETAIL is missing in the RAISE statement".into(),
                DETAIL_HINT,
            );
        };
        let response = serde_json::from_str::<Value>(detail).ok().and_then(|v| {
            let o = v.as_object()?;
            let status = o
                .get("status")?
                .as_u64()
                .and_then(|s| u16::try_from(s).ok())
                .and_then(|s| StatusCode::from_u16(s).ok())?;
            let headers = o
                .get("headers")?
                .as_object()?
                .iter()
                .map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect::<Option<Vec<_>>>()?;
            let status_text = match o.get("status_text") {
                None | Some(Value::Null) => None,
                Some(Value::String(t)) => Some(t.clone()),
                Some(_) => return None,
            };
            Some((status, headers, status_text))
        });
        let Some((status, headers, status_text)) = response else {
            return parse_error(
                format!("Invalid JSON value for DETAIL: '{detail}'"),
                DETAIL_HINT,
            );
        };
        let mut e = Self::new(status, &code, msg);
        e.details = details;
        e.hint = hint;
        e.headers = headers;
        e.status_text = status_text;
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
        // PostgREST's table puts class 57 at 500; these three say the server
        // is shutting down or starting up (a restart, a crash recovery): the
        // database is away as with class 08, and a retry will do.
        "57P01" | "57P02" | "57P03" => return StatusCode::SERVICE_UNAVAILABLE,
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
        for (name, value) in &self.headers {
            if let (Ok(name), Ok(value)) = (
                HeaderName::try_from(name.as_str()),
                HeaderValue::from_str(value),
            ) {
                headers.insert(name, value);
            }
        }
        // A reason phrase that HTTP/1 can carry (no control characters);
        // else the standard one.
        if let Some(phrase) = self
            .status_text
            .and_then(|t| hyper::ext::ReasonPhrase::try_from(t).ok())
        {
            response.extensions_mut().insert(phrase);
        }
        response
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn raised_pgrst_errors() {
        let e = ApiError::raised(
            r#"{"code":"123","message":"Payment Required","details":"Quota exceeded","hint":"Upgrade your plan"}"#,
            Some(r#"{"status":402,"headers":{"X-Powered-By":"Nerd Rage"}}"#),
        );
        assert_eq!(
            (e.status.as_u16(), e.code.as_str(), e.message.as_str()),
            (402, "123", "Payment Required")
        );
        assert_eq!(
            (e.details.clone(), e.hint.clone()),
            (json!("Quota exceeded"), json!("Upgrade your plan"))
        );
        assert_eq!(
            e.headers,
            vec![("X-Powered-By".to_owned(), "Nerd Rage".to_owned())]
        );
        let e = ApiError::raised(
            r#"{"code":"1","message":"m"}"#,
            Some(r#"{"status":418,"headers":{}}"#),
        );
        assert_eq!(
            (e.status.as_u16(), e.details.clone(), e.hint.clone()),
            (418, Value::Null, Value::Null)
        );
        for (message, detail, details) in [
            (
                "not json",
                Some("{}"),
                "Invalid JSON value for MESSAGE: 'not json'",
            ),
            (
                r#"{"message":"no code"}"#,
                Some("{}"),
                r#"Invalid JSON value for MESSAGE: '{"message":"no code"}'"#,
            ),
            (
                r#"{"code":"1","message":"m"}"#,
                None,
                "DETAIL is missing in the RAISE statement",
            ),
            (
                r#"{"code":"1","message":"m"}"#,
                Some(r#"{"status":99999,"headers":{}}"#),
                r#"Invalid JSON value for DETAIL: '{"status":99999,"headers":{}}'"#,
            ),
            (
                r#"{"code":"1","message":"m"}"#,
                Some(r#"{"status":400}"#),
                r#"Invalid JSON value for DETAIL: '{"status":400}'"#,
            ),
        ] {
            let e = ApiError::raised(message, detail);
            assert_eq!(
                (e.status.as_u16(), e.code.as_str()),
                (500, "PGRST121"),
                "{message}"
            );
            assert_eq!(e.details, json!(details));
        }
    }

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
            ("57P01", false, 503),
            ("57P03", true, 503),
            ("57014", true, 500),
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
