//! Request bodies: a JSON object (as `supabase.functions.invoke` sends it)
//! or, for the local confirmation page, a form. Missing, empty and
//! non-string fields all read as absent.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use crate::error::FunctionError;

#[derive(Debug, Default)]
pub struct Params(Map<String, Value>);

impl Params {
    /// A JSON object; an empty body is an empty object.
    pub fn json(body: &[u8]) -> Result<Self, FunctionError> {
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Self::default());
        }
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(map)) => Ok(Self(map)),
            _ => Err(FunctionError::BadRequest("Invalid JSON body".into())),
        }
    }

    /// JSON when it looks like JSON, else `application/x-www-form-urlencoded`.
    pub fn json_or_form(body: &[u8]) -> Result<Self, FunctionError> {
        let trimmed = body.trim_ascii_start();
        if trimmed.is_empty() || trimmed.starts_with(b"{") {
            return Self::json(body);
        }
        Ok(Self(
            form_urlencoded::parse(body)
                .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
                .collect(),
        ))
    }

    /// The body as request `T` (one of [`crate::wire`]'s, whose fields are
    /// read with [`lenient_text`] / [`lenient_optional_text`]).
    pub fn into_request<T: DeserializeOwned>(self) -> Result<T, FunctionError> {
        serde_json::from_value(Value::Object(self.0))
            .map_err(|_| FunctionError::BadRequest("Invalid JSON body".into()))
    }
}

/// The trimmed text of a string; anything else (and a blank string) is absent.
fn clean(value: Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim()).filter(|t| !t.is_empty()).map(str::to_owned),
        _ => None,
    }
}

/// A text field that never fails: absent, `null`, blank or not a string is "".
pub fn lenient_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(clean(Value::deserialize(d)?).unwrap_or_default())
}

/// An optional text field that never fails: absent, `null`, blank or not a
/// string is `None`.
pub fn lenient_optional_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(clean(Value::deserialize(d)?))
}

/// `Some(text)` unless `text` is empty (what [`lenient_text`] makes of an
/// absent field).
pub fn present(text: &str) -> Option<&str> {
    Some(text).filter(|t| !t.is_empty())
}

/// A plausible e-mail address (what the `orders` and newsletter check
/// constraints accept: one `@`, no blanks, something on both sides).
pub fn is_email(text: &str) -> bool {
    let mut parts = text.split('@');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(local), Some(domain), None) => {
            !local.is_empty()
                && !domain.is_empty()
                && !text.chars().any(char::is_whitespace)
                && text.len() <= 320
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        use crate::wire::{
            SimulatedConfirmRequest, SubscribeToNewsletterRequest, TrackTemplateViewRequest,
        };
        let p: TrackTemplateViewRequest =
            Params::json(br#"{"template_id":" x ","ip_address":"","user_agent":3,"extra":null}"#)
                .unwrap()
                .into_request()
                .unwrap();
        assert_eq!(p.template_id, "x");
        assert_eq!((p.ip_address, p.user_agent), (None, None));
        let p: TrackTemplateViewRequest =
            Params::json(br#"{"template_id":null,"ip_address":" 10.0.0.1 "}"#)
                .unwrap()
                .into_request()
                .unwrap();
        assert_eq!(
            (p.template_id.as_str(), p.ip_address.as_deref()),
            ("", Some("10.0.0.1"))
        );
        let empty: TrackTemplateViewRequest = Params::json(b"").unwrap().into_request().unwrap();
        assert_eq!(empty, TrackTemplateViewRequest::default());
        let n: SubscribeToNewsletterRequest =
            Params::json(br#"{"email":"a@b","name":" ","Name":"N"}"#)
                .unwrap()
                .into_request()
                .unwrap();
        assert_eq!((n.name.as_str(), n.legacy_name.as_str()), ("", "N"));
        assert!(Params::json(b"[1]").is_err());
        assert!(Params::json(b"{nope").is_err());
        let f: SimulatedConfirmRequest = Params::json_or_form(b"client_secret=a%20b&return_url=")
            .unwrap()
            .into_request()
            .unwrap();
        assert_eq!((f.client_secret.as_str(), f.return_url), ("a b", None));
        assert_eq!(present(""), None);
        assert_eq!(present("x"), Some("x"));
    }

    #[test]
    fn emails() {
        for ok in ["a@b", "buyer@example.com"] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in ["", "a", "a@", "@b", "a@b@c", "a b@c"] {
            assert!(!is_email(bad), "{bad}");
        }
    }
}
