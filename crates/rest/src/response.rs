//! Stage 6: status, headers and body, as PostgREST sends them. The body is
//! the text Postgres built; this stage only chooses status and headers
//! (`Content-Range`, `Content-Type`, `Location`, `Preference-Applied`,
//! `Content-Profile`, `Server-Timing`, and `response.headers` /
//! `response.status` set by SQL).

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::Value;

use crate::error::ApiError;
use crate::execute::Outcome;
use crate::plan::{Action, CallResult, Plan};
use crate::request::{MediaType, Method, ReturnPref};

/// Per-stage durations for `Server-Timing`, in milliseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timings {
    pub jwt: f64,
    pub parse: f64,
    pub plan: f64,
    pub transaction: f64,
    pub response: f64,
}

impl Timings {
    pub fn header(&self) -> String {
        format!(
            "jwt;dur={:.1}, parse;dur={:.1}, plan;dur={:.1}, transaction;dur={:.1}, response;dur={:.1}",
            self.jwt, self.parse, self.plan, self.transaction, self.response
        )
    }
}

/// `lower-upper/total` as PostgREST writes it.
pub fn content_range(offset: i64, rows: i64, total: Option<i64>) -> String {
    let upper = offset.saturating_add(rows).saturating_sub(1);
    let total_text = total.map_or("*".to_owned(), |t| t.to_string());
    if total != Some(0) && offset <= upper {
        format!("{offset}-{upper}/{total_text}")
    } else {
        format!("*/{total_text}")
    }
}

/// PostgREST's `Content-Type` (MediaType.hs `toContentType`): the
/// negotiated type with its parameters (`nulls=stripped`, a plan's `for`
/// and `options`) and the charset.
fn content_type(plan: &Plan) -> String {
    match &plan.action {
        Action::OpenApi => "application/openapi+json; charset=utf-8".to_owned(),
        // A media type handler's type; the charset only for the types
        // PostgREST knows other than application/octet-stream.
        Action::Call {
            call:
                crate::plan::Call {
                    handler: Some((mime, _)),
                    ..
                },
            ..
        } => match mime.as_str() {
            "application/json"
            | "application/geo+json"
            | "text/csv"
            | "text/plain"
            | "text/xml"
            | "application/openapi+json"
            | "application/x-www-form-urlencoded" => {
                format!("{mime}; charset=utf-8")
            }
            _ => mime.clone(),
        },
        _ => plan.media.content_type(plan.strip_nulls),
    }
}

/// Builds the response of a successful execution.
pub fn respond(
    plan: &Plan,
    outcome: Outcome,
    offset: i64,
    location_base: &str,
) -> Result<Response, ApiError> {
    let mut headers: Vec<(HeaderName, String)> = Vec::new();
    let head = plan.method == Method::Head;
    // An execution plan: 200 with the plan, its type and the profile, for
    // reads and writes alike (PostgREST Response.hs `DbPlanResult`).
    if let MediaType::Plan { .. } = plan.media {
        let mut response = Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, content_type(plan));
        if plan.profile_given {
            response = response.header("content-profile", plan.schema.as_str());
        }
        let body = if head {
            Body::empty()
        } else {
            Body::from(outcome.body.unwrap_or_default())
        };
        return response.body(body).map_err(|_| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "PGRST000",
                "Could not build the response",
            )
        });
    }
    let mut body = outcome.body.clone().unwrap_or_default();
    let mut rows = outcome.page_total;
    let mut outcome = outcome;
    // A function that returns one value (or void) counts one row, asked to
    // count or not (PostgREST Statements.hs `mainCall`: page_total 1, the
    // count query over its one-row source).
    if let Action::Call { result, .. } = &plan.action
        && !matches!(
            result,
            CallResult::Rows { set: true, .. } | CallResult::Scalar { set: true }
        )
    {
        rows = 1;
        if plan.count.is_some() {
            outcome.total = Some(1);
        }
    } else if let Action::Call {
        result: CallResult::Scalar { set: true },
        ..
    } = &plan.action
        && plan.count.is_some()
        && outcome.total.is_none()
    {
        // A set of scalars is returned whole: its count is its length.
        outcome.total = Some(rows);
    }
    let status = match &plan.action {
        Action::Read { .. } | Action::Call { .. } => {
            let is_void = matches!(
                plan.action,
                Action::Call {
                    result: CallResult::Void,
                    ..
                }
            );
            // Every function call has a range, void and single values too
            // (PostgREST Response.hs: `contentRange` for any CallReadPlan).
            let ranged = matches!(plan.action, Action::Read { .. } | Action::Call { .. });
            if ranged {
                headers.push((
                    header::CONTENT_RANGE,
                    content_range(offset, rows, outcome.total),
                ));
            }
            if is_void {
                body.clear();
                StatusCode::NO_CONTENT
            } else {
                match outcome.total {
                    Some(total) if ranged && offset > total => {
                        return Err(ApiError::new(
                            StatusCode::RANGE_NOT_SATISFIABLE,
                            "PGRST103",
                            "Requested range not satisfiable",
                        )
                        .details(format!(
                            "An offset of {offset} was requested, but there are only {total} rows."
                        )));
                    }
                    Some(total) if ranged && rows < total => StatusCode::PARTIAL_CONTENT,
                    _ => StatusCode::OK,
                }
            }
        }
        Action::Mutate { returning, .. } => {
            let representation = plan.prefer.return_ == Some(ReturnPref::Representation);
            let headers_only = plan.prefer.return_ == Some(ReturnPref::HeadersOnly);
            match plan.method {
                Method::Post | Method::Put | Method::Delete => {
                    let total = outcome.total.map_or("*".to_owned(), |t| t.to_string());
                    headers.push((header::CONTENT_RANGE, format!("*/{total}")));
                    // Only for exactly one inserted row (PostgREST Statements.hs).
                    if headers_only
                        && plan.method == Method::Post
                        && rows == 1
                        && let Some(loc) = location(location_base, &body, &plan.location_key)
                    {
                        headers.push((header::LOCATION, loc));
                    }
                }
                _ => {
                    headers.push((header::CONTENT_RANGE, content_range(0, rows, outcome.total)));
                }
            }
            if !representation || returning.is_none() {
                body.clear();
            }
            // A merging upsert that inserted nothing answers 200; PUT
            // answers 201 when it inserted, 200 when it merged, both only
            // with a body (PostgREST Response.hs).
            let merged_only = outcome.inserted.is_some_and(|n| n <= 0);
            match plan.method {
                Method::Post if merged_only => StatusCode::OK,
                Method::Post => StatusCode::CREATED,
                Method::Put if representation && outcome.inserted.is_some_and(|n| n > 0) => {
                    StatusCode::CREATED
                }
                _ if representation => StatusCode::OK,
                _ => StatusCode::NO_CONTENT,
            }
        }
        Action::OpenApi | Action::Options => StatusCode::OK,
    };
    let mut status = status;
    if let Some(s) = outcome
        .response_status
        .as_deref()
        .and_then(|s| s.trim().parse::<u16>().ok())
        .and_then(|s| StatusCode::from_u16(s).ok())
    {
        status = s;
    }
    if !body.is_empty() || matches!(plan.action, Action::Read { .. }) {
        headers.push((header::CONTENT_TYPE, content_type(plan)));
    }
    if !plan.preference_applied.is_empty() {
        headers.push((
            HeaderName::from_static("preference-applied"),
            plan.preference_applied.join(", "),
        ));
    }
    if plan.profile_given {
        headers.push((
            HeaderName::from_static("content-profile"),
            plan.schema.clone(),
        ));
    }
    // Headers set by SQL: `response.headers` is a JSON array of objects.
    if let Some(Value::Array(items)) = outcome
        .response_headers
        .as_deref()
        .and_then(|h| serde_json::from_str::<Value>(h).ok())
    {
        for item in items {
            if let Value::Object(map) = item {
                for (k, v) in map {
                    if let (Ok(name), Some(v)) = (HeaderName::try_from(k.as_str()), v.as_str()) {
                        headers.push((name, v.to_owned()));
                    }
                }
            }
        }
    }
    let mut response = Response::builder().status(status);
    for (name, value) in headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            response = response.header(name, v);
        }
    }
    let body = if head || status == StatusCode::NO_CONTENT {
        Body::empty()
    } else if let Action::Call {
        call: crate::plan::Call {
            handler: Some((_, true)),
            ..
        },
        ..
    } = &plan.action
    {
        // A bytea handler's value, sent as hex by the statement.
        Body::from(
            (0..body.len() / 2)
                .filter_map(|i| u8::from_str_radix(body.get(2 * i..2 * i + 2)?, 16).ok())
                .collect::<Vec<u8>>(),
        )
    } else {
        Body::from(body)
    };
    response.body(body).map_err(|_| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "PGRST000",
            "Could not build the response",
        )
    })
}

/// What `Location` leaves unencoded: letters, digits and `-_.~`, as
/// PostgREST's `renderSimpleQuery` (http-types `urlEncode`).
pub const URL_UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// `Location: /table?pk=eq.value` from the first returned row.
fn location(base: &str, body: &str, key: &[String]) -> Option<String> {
    let rows: Value = serde_json::from_str(body).ok()?;
    let first = match &rows {
        Value::Array(a) => a.first()?,
        Value::Object(_) => &rows,
        _ => return None,
    };
    let mut parts = Vec::new();
    for k in key {
        let v = match first.get(k)? {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        parts.push(format!(
            "{}=eq.{}",
            percent_encoding::utf8_percent_encode(k, URL_UNRESERVED),
            percent_encoding::utf8_percent_encode(&v, URL_UNRESERVED)
        ));
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!("{base}?{}", parts.join("&")))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges() {
        assert_eq!(content_range(0, 10, None), "0-9/*");
        assert_eq!(content_range(5, 5, Some(20)), "5-9/20");
        assert_eq!(content_range(0, 0, Some(0)), "*/0");
        assert_eq!(content_range(0, 0, None), "*/*");
        // Huge offsets saturate instead of overflowing.
        assert_eq!(content_range(i64::MAX, 3, None), "*/*");
    }

    #[test]
    fn server_timing_header() {
        let t = Timings {
            jwt: 0.04,
            parse: 1.25,
            plan: 0.5,
            transaction: 12.345,
            response: 0.0,
        };
        assert_eq!(
            t.header(),
            "jwt;dur=0.0, parse;dur=1.2, plan;dur=0.5, transaction;dur=12.3, response;dur=0.0"
        );
    }

    #[test]
    fn locations() {
        assert_eq!(
            location("/todos", r#"[{"id":5,"x":1}]"#, &["id".into()]).as_deref(),
            Some("/todos?id=eq.5")
        );
        assert_eq!(location("/t", "[]", &["id".into()]), None);
    }
}
