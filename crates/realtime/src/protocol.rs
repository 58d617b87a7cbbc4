//! Phoenix channel framing as realtime-js speaks it (pure).
//!
//! * `vsn=1.0.0`: text frames holding a JSON object
//!   `{"join_ref","ref","topic","event","payload"}`.
//! * `vsn=2.0.0`: text frames holding a JSON array
//!   `[join_ref, ref, topic, event, payload]`, plus binary frames of kind 3
//!   (a client's user broadcast: lengths, then the fields, then the payload,
//!   JSON or bytes).
//!
//! The server answers in text frames of the connection's version, except a
//! user broadcast whose payload is bytes: a binary frame of kind 4 to a
//! 2.0.0 socket, nothing to a 1.0.0 one (which cannot carry it).

use axum::body::Bytes;
use axum::extract::ws::{Message, Utf8Bytes};
use serde_json::{Map, Value, json};

/// The protocol version a socket asked for with `?vsn=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vsn {
    V1,
    V2,
}

impl Vsn {
    /// `None` for a version this server does not speak. Phoenix's default,
    /// when the client names none, is 1.0.0.
    pub fn parse(value: Option<&str>) -> Option<Self> {
        match value {
            None | Some("1.0.0") => Some(Self::V1),
            Some("2.0.0") => Some(Self::V2),
            Some(_) => None,
        }
    }
}

/// One message of the channel protocol, either direction.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub join_ref: Option<String>,
    pub msg_ref: Option<String>,
    pub topic: String,
    pub event: String,
    pub payload: Value,
    /// A user broadcast's payload as bytes (realtime-js sends an
    /// `ArrayBuffer` payload so); `payload` then holds only its `type` and
    /// `event`.
    pub bytes: Option<Bytes>,
    /// The message of this frame per protocol version, made once: a
    /// broadcast goes to every socket of a channel as the same shared
    /// `Arc<Frame>`, so it is serialised once per version, not once per
    /// socket.
    pub encoded: Encoded,
}

/// The serialised forms of one frame (v1, v2), filled on first use. Not part
/// of a frame's identity: two frames are equal whatever was cached.
#[derive(Debug, Clone, Default)]
pub struct Encoded([std::sync::OnceLock<Option<Message>>; 2]);

impl PartialEq for Encoded {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Why a client frame could not be read. `topic` and `msg_ref` are filled in
/// when they could be recovered, so the error can be answered on them.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    pub topic: Option<String>,
    pub msg_ref: Option<String>,
    pub join_ref: Option<String>,
    pub reason: &'static str,
}

impl DecodeError {
    fn bare(reason: &'static str) -> Self {
        Self {
            topic: None,
            msg_ref: None,
            join_ref: None,
            reason,
        }
    }
}

impl Frame {
    /// A server push (no refs).
    pub fn push(topic: impl Into<String>, event: impl Into<String>, payload: Value) -> Self {
        Self {
            join_ref: None,
            msg_ref: None,
            topic: topic.into(),
            event: event.into(),
            payload,
            bytes: None,
            encoded: Encoded::default(),
        }
    }

    /// The `phx_reply` to this frame with `status` and `response`.
    pub fn reply(&self, status: &str, response: Value) -> Self {
        Self {
            join_ref: self.join_ref.clone(),
            msg_ref: self.msg_ref.clone(),
            topic: self.topic.clone(),
            event: "phx_reply".into(),
            payload: json!({"status": status, "response": response}),
            bytes: None,
            encoded: Encoded::default(),
        }
    }

    /// An error reply with `{"reason": reason}`.
    pub fn reply_error(&self, reason: &str) -> Self {
        self.reply("error", json!({ "reason": reason }))
    }

    /// The frame as a message for a connection speaking `vsn`, serialised
    /// on the first call for that version and shared after (a cheap clone);
    /// `None` when that version cannot carry it (bytes to a 1.0.0 socket).
    pub fn message(&self, vsn: Vsn) -> Option<Message> {
        let slot = match vsn {
            Vsn::V1 => &self.encoded.0[0],
            Vsn::V2 => &self.encoded.0[1],
        };
        slot.get_or_init(|| match &self.bytes {
            None => Some(Message::Text(Utf8Bytes::from(self.encode(vsn)))),
            Some(bytes) => match vsn {
                Vsn::V1 => None,
                Vsn::V2 => self.user_broadcast(bytes).map(Message::Binary),
            },
        })
        .clone()
    }

    /// The binary user broadcast (kind 4) carrying `bytes`: lengths of the
    /// topic, the event and the (absent) metadata, the payload's encoding
    /// (0: bytes), then the fields and the payload. `None` when a field is
    /// longer than its one-byte length can say.
    fn user_broadcast(&self, bytes: &Bytes) -> Option<Bytes> {
        let event = self.payload.get("event").and_then(Value::as_str)?;
        let topic_len = u8::try_from(self.topic.len()).ok()?;
        let event_len = u8::try_from(event.len()).ok()?;
        let mut out = Vec::with_capacity(5 + self.topic.len() + event.len() + bytes.len());
        out.extend_from_slice(&[KIND_USER_BROADCAST, topic_len, event_len, 0, ENCODING_BYTES]);
        out.extend_from_slice(self.topic.as_bytes());
        out.extend_from_slice(event.as_bytes());
        out.extend_from_slice(bytes);
        Some(Bytes::from(out))
    }

    /// Serialises for a connection speaking `vsn`.
    pub fn encode(&self, vsn: Vsn) -> String {
        let value = match vsn {
            Vsn::V2 => json!([
                self.join_ref,
                self.msg_ref,
                self.topic,
                self.event,
                self.payload
            ]),
            Vsn::V1 => json!({
                "join_ref": self.join_ref,
                "ref": self.msg_ref,
                "topic": self.topic,
                "event": self.event,
                "payload": self.payload,
            }),
        };
        value.to_string()
    }
}

/// A ref as the client sent it: a string, or (leniently) a number.
fn read_ref(value: Option<&Value>) -> Result<Option<String>, ()> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(()),
    }
}

/// Reads one text frame.
pub fn decode_text(vsn: Vsn, text: &str) -> Result<Frame, DecodeError> {
    let value: Value =
        serde_json::from_str(text).map_err(|_| DecodeError::bare("malformed message"))?;
    let (join_ref, msg_ref, topic, event, payload) = match (vsn, value) {
        (Vsn::V2, Value::Array(mut items)) if items.len() == 5 => {
            let payload = items.pop().unwrap_or(Value::Null);
            let event = items.pop().unwrap_or(Value::Null);
            let topic = items.pop().unwrap_or(Value::Null);
            let msg_ref = items.pop().unwrap_or(Value::Null);
            let join_ref = items.pop().unwrap_or(Value::Null);
            (join_ref, msg_ref, topic, event, payload)
        }
        (Vsn::V1, Value::Object(mut map)) => (
            map.remove("join_ref").unwrap_or(Value::Null),
            map.remove("ref").unwrap_or(Value::Null),
            map.remove("topic").unwrap_or(Value::Null),
            map.remove("event").unwrap_or(Value::Null),
            map.remove("payload").unwrap_or(Value::Null),
        ),
        _ => return Err(DecodeError::bare("malformed message")),
    };
    let join_ref = read_ref(Some(&join_ref)).map_err(|_| DecodeError::bare("malformed message"))?;
    let msg_ref = read_ref(Some(&msg_ref)).map_err(|_| DecodeError::bare("malformed message"))?;
    let Value::String(topic) = topic else {
        return Err(DecodeError::bare("malformed message"));
    };
    let fail = |reason| DecodeError {
        topic: Some(topic.clone()),
        msg_ref: msg_ref.clone(),
        join_ref: join_ref.clone(),
        reason,
    };
    let Value::String(event) = event else {
        return Err(fail("malformed message"));
    };
    let payload = match payload {
        Value::Object(map) => Value::Object(map),
        Value::Null => Value::Object(Map::new()),
        _ => return Err(fail("payload must be an object")),
    };
    Ok(Frame {
        join_ref,
        msg_ref,
        topic,
        event,
        payload,
        bytes: None,
        encoded: Encoded::default(),
    })
}

/// Kind of the binary frame a client sends for a user broadcast.
pub const KIND_USER_BROADCAST_PUSH: u8 = 3;
/// Kind of the binary frame the server sends for a user broadcast.
pub const KIND_USER_BROADCAST: u8 = 4;
/// A user broadcast payload's encodings: bytes as they are, or JSON.
const ENCODING_BYTES: u8 = 0;
const ENCODING_JSON: u8 = 1;

/// Reads one binary frame (vsn 2.0.0 only): a user broadcast push (kind 3),
/// turned into the `broadcast` frame it stands for, its payload JSON or
/// bytes.
pub fn decode_binary(bytes: &[u8]) -> Result<Frame, DecodeError> {
    let header = bytes
        .get(..7)
        .ok_or(DecodeError::bare("malformed binary message"))?;
    if header[0] != KIND_USER_BROADCAST_PUSH {
        return Err(DecodeError::bare("unsupported binary message"));
    }
    let lens = [header[1], header[2], header[3], header[4], header[5]].map(usize::from);
    let encoding = header[6];
    let mut fields = Vec::with_capacity(5);
    let mut at = 7usize;
    for len in lens {
        let field = bytes
            .get(at..at + len)
            .ok_or(DecodeError::bare("malformed binary message"))?;
        let text = std::str::from_utf8(field)
            .map_err(|_| DecodeError::bare("malformed binary message"))?;
        fields.push(text.to_owned());
        at += len;
    }
    let body = &bytes[at..];
    let [join_ref, msg_ref, topic, user_event, _metadata] = <[String; 5]>::try_from(fields)
        .map_err(|_| DecodeError::bare("malformed binary message"))?;
    let opt = |s: String| (!s.is_empty()).then_some(s);
    let frame_fail = |reason| DecodeError {
        topic: Some(topic.clone()),
        msg_ref: opt(msg_ref.clone()),
        join_ref: opt(join_ref.clone()),
        reason,
    };
    let (inner, bytes) = match encoding {
        ENCODING_JSON if body.is_empty() => (Some(Value::Null), None),
        ENCODING_JSON => (
            Some(
                serde_json::from_slice(body)
                    .map_err(|_| frame_fail("malformed broadcast payload"))?,
            ),
            None,
        ),
        ENCODING_BYTES => (None, Some(Bytes::copy_from_slice(body))),
        _ => return Err(frame_fail("unknown broadcast payload encoding")),
    };
    let payload = match inner {
        Some(inner) => json!({"type": "broadcast", "event": user_event, "payload": inner}),
        None => json!({"type": "broadcast", "event": user_event}),
    };
    Ok(Frame {
        join_ref: opt(join_ref),
        msg_ref: opt(msg_ref),
        topic,
        event: "broadcast".into(),
        payload,
        bytes,
        encoded: Encoded::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_arrays_round_trip() {
        let frame =
            decode_text(Vsn::V2, r#"["1","2","realtime:room","phx_join",{"a":1}]"#).unwrap();
        assert_eq!(frame.join_ref.as_deref(), Some("1"));
        assert_eq!(frame.msg_ref.as_deref(), Some("2"));
        assert_eq!(frame.topic, "realtime:room");
        assert_eq!(frame.event, "phx_join");
        assert_eq!(
            frame.reply("ok", json!({})).encode(Vsn::V2),
            r#"["1","2","realtime:room","phx_reply",{"response":{},"status":"ok"}]"#
        );
    }

    #[test]
    fn v1_objects_round_trip() {
        let frame = decode_text(
            Vsn::V1,
            r#"{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"7"}"#,
        )
        .unwrap();
        assert_eq!(frame.join_ref, None);
        assert_eq!(frame.msg_ref.as_deref(), Some("7"));
        let out: Value =
            serde_json::from_str(&frame.reply("ok", json!({})).encode(Vsn::V1)).unwrap();
        assert_eq!(out["ref"], "7");
        assert_eq!(out["event"], "phx_reply");
        assert_eq!(out["payload"]["status"], "ok");
    }

    #[test]
    fn bad_frames_are_refused_with_what_could_be_read() {
        assert_eq!(
            decode_text(Vsn::V2, "nope").unwrap_err().reason,
            "malformed message"
        );
        assert!(decode_text(Vsn::V2, r#"{"topic":"x"}"#).is_err());
        assert!(decode_text(Vsn::V1, r#"[null,"1","t","e",{}]"#).is_err());
        assert!(decode_text(Vsn::V2, r#"[null,"1","t"]"#).is_err());
        let err = decode_text(Vsn::V2, r#"[null,"3","realtime:a","broadcast",[1]]"#).unwrap_err();
        assert_eq!(err.topic.as_deref(), Some("realtime:a"));
        assert_eq!(err.msg_ref.as_deref(), Some("3"));
    }

    fn kind3(
        join_ref: &str,
        msg_ref: &str,
        topic: &str,
        event: &str,
        encoding: u8,
        body: &[u8],
    ) -> Vec<u8> {
        let mut out = vec![
            3,
            join_ref.len() as u8,
            msg_ref.len() as u8,
            topic.len() as u8,
            event.len() as u8,
            2,
            encoding,
        ];
        for part in [join_ref, msg_ref, topic, event, "{}"] {
            out.extend_from_slice(part.as_bytes());
        }
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn binary_user_broadcasts_become_broadcast_frames() {
        let frame =
            decode_binary(&kind3("1", "4", "realtime:room", "msg", 1, br#"{"x":1}"#)).unwrap();
        assert_eq!(frame.event, "broadcast");
        assert_eq!(frame.msg_ref.as_deref(), Some("4"));
        assert_eq!(
            frame.payload,
            json!({"type":"broadcast","event":"msg","payload":{"x":1}})
        );

        assert!(decode_binary(&[3, 200, 0, 0, 0, 0, 1]).is_err());
        assert!(decode_binary(&[9, 0, 0, 0, 0, 0, 1]).is_err());
        assert!(decode_binary(&[]).is_err());
        let err =
            decode_binary(&kind3("1", "5", "realtime:room", "msg", 7, b"\x00\x01")).unwrap_err();
        assert_eq!(err.msg_ref.as_deref(), Some("5"));
        assert_eq!(err.reason, "unknown broadcast payload encoding");
    }

    #[test]
    fn byte_payloads_go_out_as_user_broadcasts_to_v2_only() {
        let frame =
            decode_binary(&kind3("1", "6", "realtime:room", "blob", 0, b"\x00\xffab")).unwrap();
        assert_eq!(frame.payload, json!({"type":"broadcast","event":"blob"}));
        assert_eq!(frame.bytes.as_deref(), Some(&b"\x00\xffab"[..]));
        let mut out = Frame::push("realtime:room", "broadcast", frame.payload.clone());
        out.bytes = frame.bytes.clone();
        let Some(Message::Binary(bytes)) = out.message(Vsn::V2) else {
            panic!("a binary message");
        };
        // kind 4, topic and event lengths, no metadata, encoding 0 (bytes).
        let mut expected = vec![4, 13, 4, 0, 0];
        expected.extend_from_slice(b"realtime:roomblob\x00\xffab");
        assert_eq!(&bytes[..], &expected[..]);
        assert_eq!(out.message(Vsn::V1), None);
        // A topic too long for its length byte cannot be sent at all.
        let mut long = Frame::push("x".repeat(300), "broadcast", frame.payload);
        long.bytes = frame.bytes;
        assert_eq!(long.message(Vsn::V2), None);
        // JSON frames stay text in both versions.
        let text = Frame::push("realtime:room", "broadcast", json!({"a": 1}));
        assert!(matches!(text.message(Vsn::V1), Some(Message::Text(_))));
        assert!(matches!(text.message(Vsn::V2), Some(Message::Text(_))));
    }

    #[test]
    fn versions() {
        assert_eq!(Vsn::parse(Some("2.0.0")), Some(Vsn::V2));
        assert_eq!(Vsn::parse(None), Some(Vsn::V1));
        assert_eq!(Vsn::parse(Some("3.0.0")), None);
    }
}
