//! The dev mailbox pages: plain server-rendered HTML over
//! `auth.mail_messages`, plus a JSON list for scripted tests.
//!
//! The mailbox holds sign-in and password-reset links, so it is the
//! operator's alone: every page wants the mailbox token (printed at start-up
//! as a `?token=` link, which trades it for an HttpOnly cookie) or the
//! service-role key (`Authorization: Bearer` / `apikey`). Anyone else gets a
//! 401 / 403 in the auth error shape.

use axum::Json;
use axum::Router;
use axum::extract::{MatchedPath, Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::Row;
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::tokens::constant_time_eq;

/// The cookie that carries the mailbox token after the printed link was opened.
const COOKIE: &str = "plinth_mailbox";

pub fn router(state: AuthState) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/api/messages", get(api_messages))
        .route("/{id}", get(show))
        .layer(axum::middleware::from_fn(crate::error::error_shape))
        .with_state(state)
}

/// How a request proved it is the operator's.
#[derive(Debug, PartialEq, Eq)]
enum Proof {
    /// The `?token=` of the printed link: pages trade it for the cookie.
    LinkToken,
    /// The cookie, the mailbox token as bearer, or the service-role key.
    Held,
}

/// The value of cookie `name` in the request's `Cookie` headers.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find_map(|(k, v)| (k == name).then_some(v))
}

/// Admits the operator: the mailbox token (query, cookie or bearer) or a
/// service-role JWT. 401 without credentials or with wrong ones, 403 for a
/// valid token of anyone else (the anon key, a user's session).
fn authorize(state: &AuthState, headers: &HeaderMap, query_token: Option<&str>) -> Result<Proof> {
    let expected = state.mailbox_token().unwrap_or_default().as_bytes();
    let matches =
        |given: &str| !expected.is_empty() && constant_time_eq(given.as_bytes(), expected);
    if let Some(given) = query_token {
        return if matches(given) {
            Ok(Proof::LinkToken)
        } else {
            Err(AuthError::api(
                StatusCode::UNAUTHORIZED,
                "no_authorization",
                "This mailbox link is not valid (its token changes at every start of the server)",
            ))
        };
    }
    if cookie(headers, COOKIE).is_some_and(matches) {
        return Ok(Proof::Held);
    }
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let Some(token) = plinth_db::presented_token(text("authorization"), text("apikey")) else {
        return Err(AuthError::api(
            StatusCode::UNAUTHORIZED,
            "no_authorization",
            "The dev mailbox is the operator's: open the link printed at start-up, or send the service_role key",
        ));
    };
    if matches(token) {
        return Ok(Proof::Held);
    }
    let claims = state.jwt().verify(token).map_err(|_| {
        AuthError::api(
            StatusCode::UNAUTHORIZED,
            "bad_jwt",
            "invalid JWT: unable to parse or verify signature",
        )
    })?;
    if claims.get("role").and_then(Value::as_str) == Some("service_role") {
        Ok(Proof::Held)
    } else {
        Err(AuthError::forbidden("not_admin", "User not allowed"))
    }
}

/// The query string without its `token` parameter.
fn without_token(query: Option<&str>) -> String {
    let kept: Vec<(String, String)> = url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .into_owned()
        .filter(|(k, _)| k != "token")
        .collect();
    if kept.is_empty() {
        String::new()
    } else {
        let mut out = url::form_urlencoded::Serializer::new(String::new());
        out.extend_pairs(kept);
        format!("?{}", out.finish())
    }
}

/// The printed link was opened: the token goes into an HttpOnly cookie and
/// the browser comes back to the same page without it in the address.
fn trade_for_cookie(state: &AuthState, base: &str, path: &str, query: Option<&str>) -> Response {
    let token = state.mailbox_token().unwrap_or_default();
    let cookie_path = if base.is_empty() { "/" } else { base };
    let mut response = (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, format!("{path}{}", without_token(query)))],
    )
        .into_response();
    if let Ok(value) = HeaderValue::from_str(&format!(
        "{COOKIE}={token}; Path={cookie_path}; HttpOnly; SameSite=Strict"
    )) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    private(response)
}

/// Headers of every mailbox answer: never cached, never framed, no referrer
/// (the pages link to sign-in links), nothing active.
fn private(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        ),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// The `token` query parameter, if any.
fn query_token(query: Option<&str>) -> Option<String> {
    crate::request::query_map(query).remove("token")
}

struct Message {
    id: Uuid,
    recipient: String,
    subject: String,
    body: String,
    created_at: DateTime<Utc>,
}

/// Messages to `to` (all without it), newest first. A text message's
/// recipient is `+<number>`: `to` may name it with or without the `+` (which
/// an unencoded query string turns into a space).
async fn messages(state: &AuthState, to: Option<&str>) -> Result<Vec<Message>> {
    let rows = sqlx::query(
        "select id, recipient, subject, body_text, created_at from auth.mail_messages \
         where $1::text is null or lower(recipient) = lower($1) or recipient = '+' || trim($1) \
         order by created_at desc, id limit 200",
    )
    .bind(to)
    .fetch_all(&state.db().owner)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(Message {
                id: r.try_get("id")?,
                recipient: r.try_get("recipient")?,
                subject: r.try_get("subject")?,
                body: r.try_get("body_text")?,
                created_at: r.try_get("created_at")?,
            })
        })
        .collect::<sqlx::Result<Vec<_>>>()
        .map_err(Into::into)
}

fn disabled() -> Response {
    AuthError::not_found(
        "not_found",
        "The dev mailbox is off: mail goes to the configured SMTP server.",
    )
    .into_response()
}

/// Escapes text for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The `http(s)://` links in a text.
pub fn links(text: &str) -> Vec<String> {
    text.split_whitespace()
        .filter(|w| w.starts_with("http://") || w.starts_with("https://"))
        .map(str::to_owned)
        .collect()
}

/// Escaped text with its links made clickable.
fn linkify(text: &str) -> String {
    text.split('\n')
        .map(|line| {
            line.split(' ')
                .map(|word| {
                    if word.starts_with("http://") || word.starts_with("https://") {
                        let w = escape(word);
                        format!("<a href=\"{w}\">{w}</a>")
                    } else {
                        escape(word)
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>body{{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}\
         table{{border-collapse:collapse;width:100%}}td,th{{text-align:left;padding:.4rem;border-bottom:1px solid #ddd}}\
         pre{{white-space:pre-wrap;background:#f6f6f6;padding:1rem}}</style></head><body>{body}</body></html>",
        escape(title)
    ))
}

/// Where the mailbox is mounted, from the matched route (the server picks
/// the prefix; links must be absolute to work with or without a trailing
/// slash).
fn mount_point(matched: Option<&MatchedPath>, suffix: &str) -> String {
    let path = matched.map(MatchedPath::as_str).unwrap_or("");
    path.strip_suffix(suffix)
        .unwrap_or(path)
        .trim_end_matches('/')
        .to_owned()
}

async fn index(
    State(state): State<AuthState>,
    matched: Option<MatchedPath>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    let base = mount_point(matched.as_ref(), "");
    if !state.mailer().is_dev_mailbox() {
        return Ok(disabled());
    }
    if authorize(&state, &headers, query_token(query.as_deref()).as_deref())? == Proof::LinkToken {
        let path = if base.is_empty() { "/" } else { &base };
        return Ok(trade_for_cookie(&state, &base, path, query.as_deref()));
    }
    let to = crate::request::query_map(query.as_deref()).remove("to");
    let list = messages(&state, to.as_deref()).await?;
    let mut body = String::from(
        "<h1>Dev mailbox</h1><p>E-mail Plinth would have sent. Configure SMTP to send real mail.</p>",
    );
    if list.is_empty() {
        body.push_str("<p>No messages yet.</p>");
    } else {
        body.push_str("<table><tr><th>When</th><th>To</th><th>Subject</th></tr>");
        for m in &list {
            body.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td><a href=\"{}/{}\">{}</a></td></tr>",
                m.created_at.format("%Y-%m-%d %H:%M:%S UTC"),
                escape(&m.recipient),
                escape(&base),
                m.id,
                escape(&m.subject)
            ));
        }
        body.push_str("</table>");
    }
    Ok(private(page("Dev mailbox", &body).into_response()))
}

async fn show(
    State(state): State<AuthState>,
    matched: Option<MatchedPath>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    Path(id): Path<String>,
) -> Result<Response> {
    let base = mount_point(matched.as_ref(), "/{id}");
    if !state.mailer().is_dev_mailbox() {
        return Ok(disabled());
    }
    if authorize(&state, &headers, query_token(query.as_deref()).as_deref())? == Proof::LinkToken {
        let path = format!("{base}/{}", escape_path(&id));
        return Ok(trade_for_cookie(&state, &base, &path, query.as_deref()));
    }
    let no_such = || AuthError::not_found("not_found", "No such message").into_response();
    let Ok(id) = Uuid::parse_str(&id) else {
        return Ok(no_such());
    };
    let row = sqlx::query(
        "select recipient, subject, body_text, created_at from auth.mail_messages where id = $1",
    )
    .bind(id)
    .fetch_optional(&state.db().owner)
    .await?;
    let Some(row) = row else {
        return Ok(no_such());
    };
    let recipient: String = row.try_get("recipient").map_err(crate::AuthError::from)?;
    let subject: String = row.try_get("subject").map_err(crate::AuthError::from)?;
    let text: String = row.try_get("body_text").map_err(crate::AuthError::from)?;
    let created_at: DateTime<Utc> = row.try_get("created_at").map_err(crate::AuthError::from)?;
    let body = format!(
        "<p><a href=\"{}\">&larr; All messages</a></p><h1>{}</h1><p>To: {}<br>At: {}</p><pre>{}</pre>",
        escape(&base),
        escape(&subject),
        escape(&recipient),
        created_at.format("%Y-%m-%d %H:%M:%S UTC"),
        linkify(&text)
    );
    Ok(private(page(&subject, &body).into_response()))
}

/// A path segment, percent-encoded.
fn escape_path(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes()).collect()
}

/// `GET /api/messages?to=<email>`: newest first, with the links found in
/// each message.
async fn api_messages(
    State(state): State<AuthState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    if !state.mailer().is_dev_mailbox() {
        return Ok(disabled());
    }
    authorize(&state, &headers, query_token(query.as_deref()).as_deref())?;
    let to = crate::request::query_map(query.as_deref()).remove("to");
    let list = messages(&state, to.as_deref()).await?;
    let out: Vec<Value> = list
        .iter()
        .map(|m| {
            json!({
                "id": m.id,
                "to": m.recipient,
                "subject": m.subject,
                "text": m.body,
                "links": links(&m.body),
                "created_at": m.created_at,
            })
        })
        .collect();
    Ok(private(Json(json!({ "messages": out })).into_response()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_escaped_and_clickable() {
        let html = linkify("Go <here>:\nhttp://x/verify?token=a&type=signup\nbye");
        assert_eq!(
            html,
            "Go &lt;here&gt;:\n<a href=\"http://x/verify?token=a&amp;type=signup\">http://x/verify?token=a&amp;type=signup</a>\nbye"
        );
        assert_eq!(links("a https://b/c d"), vec!["https://b/c"]);
    }

    #[test]
    fn cookies_and_queries_are_read_without_the_token() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::COOKIE,
            "a=1; plinth_mailbox=xyz; b=2".parse().unwrap(),
        );
        assert_eq!(cookie(&headers, COOKIE), Some("xyz"));
        assert_eq!(cookie(&HeaderMap::new(), COOKIE), None);
        assert_eq!(without_token(Some("token=abc&to=a%40b.c")), "?to=a%40b.c");
        assert_eq!(without_token(Some("token=abc")), "");
        assert_eq!(without_token(None), "");
    }
}
