//! `POST /api/broadcast` and `POST /api/broadcast/{topic}/events/{event}`:
//! broadcasts sent over HTTP (realtime-js uses them when the socket is not
//! joined, and for `httpSend`). Answer 202 with an empty body.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::RealtimeState;
use crate::authorization;
use crate::error::RealtimeError;
use crate::relay::Relayed;
use crate::socket::{Identity, verify_token};

#[derive(Debug, Deserialize)]
struct BroadcastBody {
    messages: Vec<HttpMessage>,
}

#[derive(Debug, Deserialize)]
struct HttpMessage {
    topic: String,
    event: String,
    #[serde(default)]
    payload: Value,
    #[serde(default)]
    private: bool,
}

fn authorize(state: &RealtimeState, headers: &HeaderMap) -> Result<Identity, RealtimeError> {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &axum::http::HeaderValue| v.to_str().ok())
    };
    let token = plinth_db::presented_token(text(header::AUTHORIZATION.as_str()), text("apikey"))
        .ok_or_else(|| RealtimeError::refused(StatusCode::UNAUTHORIZED, "API key is missing"))?;
    verify_token(state, token)
        .map_err(|e| RealtimeError::refused(StatusCode::UNAUTHORIZED, e.message()))
}

fn too_large() -> RealtimeError {
    RealtimeError::refused(StatusCode::PAYLOAD_TOO_LARGE, "Payload too large")
}

/// The body, within the frame size limit (each payload's own limit is
/// checked as the platform checks it). A body the framework itself
/// refused (over its own limit, or cut off) is answered in the JSON shape
/// too, never as axum's plain text.
fn checked_body(
    state: &RealtimeState,
    body: Result<Bytes, BytesRejection>,
) -> Result<Bytes, RealtimeError> {
    let body = body.map_err(|e| match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => too_large(),
        status => RealtimeError::refused(status, e.body_text()),
    })?;
    if body.len() > state.inner.config.frame_limit() {
        return Err(too_large());
    }
    Ok(body)
}

/// The topic of a channel named `name` (`supabase.channel(name)`).
fn topic_of(name: &str) -> String {
    if name.starts_with("realtime:") {
        name.to_owned()
    } else {
        format!("realtime:{name}")
    }
}

/// Whether the caller may broadcast to a private topic, asked of the
/// policies once per topic of a request (however many messages a body
/// carries for it).
struct WriteRights<'a> {
    state: &'a RealtimeState,
    identity: &'a Identity,
    known: HashMap<String, bool>,
}

impl<'a> WriteRights<'a> {
    fn new(state: &'a RealtimeState, identity: &'a Identity) -> Self {
        Self {
            state,
            identity,
            known: HashMap::new(),
        }
    }

    async fn may_write(&mut self, sub_topic: &str) -> Result<bool, RealtimeError> {
        if self.identity.ctx.role == "service_role" {
            return Ok(true);
        }
        if let Some(known) = self.known.get(sub_topic) {
            return Ok(*known);
        }
        let policies =
            authorization::authorize(&self.state.inner.db, &self.identity.ctx, sub_topic)
                .await
                .map_err(|e| {
                    tracing::warn!(error = %e, "realtime: authorization check failed");
                    RealtimeError::refused(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "Realtime was unable to connect to the project database",
                    )
                })?;
        self.known
            .insert(sub_topic.to_owned(), policies.broadcast_write);
        Ok(policies.broadcast_write)
    }
}

/// Sends one broadcast. To a private channel only when the caller's
/// policies on `realtime.messages` let them write to it (the service role
/// always may); returns whether it was sent.
async fn send(
    rights: &mut WriteRights<'_>,
    name: &str,
    private: bool,
    event: &str,
    payload: Payload,
) -> Result<bool, RealtimeError> {
    let topic = topic_of(name);
    let sub_topic = topic.strip_prefix("realtime:").unwrap_or(&topic);
    if private && !rights.may_write(sub_topic).await? {
        return Ok(false);
    }
    let (payload, bytes) = match payload {
        Payload::Json(payload) => (
            json!({ "type": "broadcast", "event": event, "payload": payload }),
            None,
        ),
        Payload::Bytes(bytes) => (json!({ "type": "broadcast", "event": event }), Some(bytes)),
    };
    rights.state.publish(
        Relayed::Broadcast {
            topic: authorization::hub_key(&topic, private),
            payload,
            bytes,
        },
        None,
    );
    Ok(true)
}

/// A broadcast's user payload: JSON, or bytes (`application/octet-stream`,
/// realtime-js's `httpSend` of an `ArrayBuffer`).
enum Payload {
    Json(Value),
    Bytes(Bytes),
}

/// The platform's validation error of a payload over the size limit.
const PAYLOAD_TOO_BIG: &str = "Payload size exceeds tenant limit";

fn unprocessable(errors: Value) -> RealtimeError {
    RealtimeError::Answered {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        body: json!({ "errors": errors }),
    }
}

pub(crate) async fn broadcast(
    State(state): State<RealtimeState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, RealtimeError> {
    let identity = authorize(&state, &headers)?;
    let body = checked_body(&state, body)?;
    let body: BroadcastBody = serde_json::from_slice(&body).map_err(|_| {
        RealtimeError::refused(
            StatusCode::BAD_REQUEST,
            "Body must be {\"messages\":[{\"topic\",\"event\",\"payload\"}]}",
        )
    })?;
    // As the platform validates a batch: one payload over the limit refuses
    // them all, each message's errors in its place.
    let max = state.inner.config.max_message_size;
    let too_big: Vec<bool> = body
        .messages
        .iter()
        .map(|m| serde_json::to_vec(&m.payload).map_or(true, |bytes| bytes.len() > max))
        .collect();
    if too_big.contains(&true) {
        let verdicts: Vec<Value> = too_big
            .into_iter()
            .map(|big| match big {
                true => json!({ "payload": [PAYLOAD_TOO_BIG] }),
                false => json!({}),
            })
            .collect();
        return Err(unprocessable(json!({ "messages": verdicts })));
    }
    // A private message the caller may not write is skipped, as the
    // platform's batch skips it.
    let mut rights = WriteRights::new(&state, &identity);
    for message in body.messages {
        send(
            &mut rights,
            &message.topic,
            message.private,
            &message.event,
            Payload::Json(message.payload),
        )
        .await?;
    }
    Ok(StatusCode::ACCEPTED)
}

#[derive(Debug, Deserialize)]
pub(crate) struct PrivateQuery {
    #[serde(default)]
    private: Option<String>,
}

pub(crate) async fn broadcast_event(
    State(state): State<RealtimeState>,
    Path((name, event)): Path<(String, String)>,
    axum::extract::Query(query): axum::extract::Query<PrivateQuery>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<StatusCode, RealtimeError> {
    let identity = authorize(&state, &headers)?;
    let body = checked_body(&state, body)?;
    let private = query.private.as_deref() == Some("true");
    if body.len() > state.inner.config.max_message_size {
        return Err(unprocessable(json!({ "payload": [PAYLOAD_TOO_BIG] })));
    }
    let binary = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.trim_start().starts_with("application/octet-stream"));
    let payload = if binary {
        Payload::Bytes(body)
    } else if body.is_empty() {
        Payload::Json(json!({}))
    } else {
        Payload::Json(serde_json::from_slice(&body).map_err(|_| {
            RealtimeError::refused(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Send a JSON payload (application/json) or bytes (application/octet-stream)",
            )
        })?)
    };
    // Unlike the batch, a single message the caller may not write is
    // refused out loud (realtime-js's httpSend throws its message).
    let sent = send(
        &mut WriteRights::new(&state, &identity),
        &name,
        private,
        &event,
        payload,
    )
    .await?;
    if !sent {
        return Err(RealtimeError::Answered {
            status: StatusCode::FORBIDDEN,
            body: json!({ "message": "Unauthorized" }),
        });
    }
    Ok(StatusCode::ACCEPTED)
}
