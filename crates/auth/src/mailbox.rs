//! The dev mailbox pages: plain server-rendered HTML over
//! `auth.mail_messages`, plus a JSON list for scripted tests.

use axum::Json;
use axum::Router;
use axum::extract::{MatchedPath, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::Row;
use uuid::Uuid;

use crate::AuthState;
use crate::error::Result;

pub fn router(state: AuthState) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/api/messages", get(api_messages))
        .route("/{id}", get(show))
        .with_state(state)
}

struct Message {
    id: Uuid,
    recipient: String,
    subject: String,
    body: String,
    created_at: DateTime<Utc>,
}

async fn messages(state: &AuthState, to: Option<&str>) -> Result<Vec<Message>> {
    let rows = sqlx::query(
        "select id, recipient, subject, body_text, created_at from auth.mail_messages \
         where $1::text is null or lower(recipient) = lower($1) \
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
    (
        StatusCode::NOT_FOUND,
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
    RawQuery(query): RawQuery,
) -> Result<Response> {
    let base = mount_point(matched.as_ref(), "");
    if !state.mailer().is_dev_mailbox() {
        return Ok(disabled());
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
    Ok(page("Dev mailbox", &body).into_response())
}

async fn show(
    State(state): State<AuthState>,
    matched: Option<MatchedPath>,
    Path(id): Path<String>,
) -> Result<Response> {
    let base = mount_point(matched.as_ref(), "/{id}");
    if !state.mailer().is_dev_mailbox() {
        return Ok(disabled());
    }
    let Ok(id) = Uuid::parse_str(&id) else {
        return Ok((StatusCode::NOT_FOUND, "No such message").into_response());
    };
    let row = sqlx::query(
        "select recipient, subject, body_text, created_at from auth.mail_messages where id = $1",
    )
    .bind(id)
    .fetch_optional(&state.db().owner)
    .await?;
    let Some(row) = row else {
        return Ok((StatusCode::NOT_FOUND, "No such message").into_response());
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
    Ok(page(&subject, &body).into_response())
}

/// `GET /api/messages?to=<email>`: newest first, with the links found in
/// each message.
async fn api_messages(
    State(state): State<AuthState>,
    RawQuery(query): RawQuery,
) -> Result<Response> {
    if !state.mailer().is_dev_mailbox() {
        return Ok(disabled());
    }
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
    Ok(Json(json!({ "messages": out })).into_response())
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
}
