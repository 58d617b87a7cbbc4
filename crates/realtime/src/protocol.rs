//! Phoenix channel framing as realtime-js speaks it (pure).
//!
//! * `vsn=1.0.0`: text frames holding a JSON object
//!   `{"join_ref","ref","topic","event","payload"}`.
//! * `vsn=2.0.0`: text frames holding a JSON array
//!   `[join_ref, ref, topic, event, payload]`, plus binary frames of kind 3
//!   (a client's user broadcast: lengths, then the fields, then the payload).
//!
//! The server always answers in text frames of the connection's version.

use axum::extract::ws::Utf8Bytes;
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
    /// The text of this frame per protocol version, made once: a broadcast
    /// goes to every socket of a channel as the same shared `Arc<Frame>`,
    /// so it is serialised once per version, not once per socket.
    pub encoded: Encoded,
}

/// The serialised forms of one frame (v1, v2), filled on first use. Not part
/// of a frame's identity: two frames are equal whatever was cached.
#[derive(Debug, Clone, Default)]
pub struct Encoded([std::sync::OnceLock<Utf8Bytes>; 2]);

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
            encoded: Encoded::default(),
        }
    }

    /// An error reply with `{"reason": reason}`.
    pub fn reply_error(&self, reason: &str) -> Self {
        self.reply("error", json!({ "reason": reason }))
    }

    /// The frame's text for a connection speaking `vsn`, serialised on the
    /// first call for that version and shared after (a cheap clone).
    pub fn text(&self, vsn: Vsn) -> Utf8Bytes {
        let slot = match vsn {
            Vsn::V1 => &self.encoded.0[0],
            Vsn::V2 => &self.encoded.0[1],
        };
        slot.get_or_init(|| Utf8Bytes::from(self.encode(vsn)))
            .clone()
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
        encoded: Encoded::default(),
    })
}

/// Kind of the binary frame a client sends for a user broadcast.
pub const KIND_USER_BROADCAST_PUSH: u8 = 3;

/// Reads one binary frame (vsn 2.0.0 only): a user broadcast push (kind 3),
/// turned into the `broadcast` frame it stands for. Only JSON payloads
/// (encoding 1) are accepted.
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
    if encoding != 1 {
        return Err(frame_fail(
            "binary broadcast payloads are not supported; send JSON",
        ));
    }
    let inner: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(body).map_err(|_| frame_fail("malformed broadcast payload"))?
    };
    Ok(Frame {
        join_ref: opt(join_ref),
        msg_ref: opt(msg_ref),
        topic,
        event: "broadcast".into(),
        payload: json!({"type": "broadcast", "event": user_event, "payload": inner}),
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
            decode_binary(&kind3("1", "5", "realtime:room", "msg", 0, b"\x00\x01")).unwrap_err();
        assert_eq!(err.msg_ref.as_deref(), Some("5"));
    }

    #[test]
    fn versions() {
        assert_eq!(Vsn::parse(Some("2.0.0")), Some(Vsn::V2));
        assert_eq!(Vsn::parse(None), Some(Vsn::V1));
        assert_eq!(Vsn::parse(Some("3.0.0")), None);
    }
}
