//! Request bodies: a JSON object (as `supabase.functions.invoke` sends it)
//! or, for the local confirmation page, a form. Missing, empty and
//! non-string fields all read as absent.

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

    /// The trimmed, non-empty string at the first of `keys` that has one.
    pub fn text(&self, keys: &[&str]) -> Option<String> {
        keys.iter().find_map(|key| {
            self.0
                .get(*key)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        })
    }
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
        let p = Params::json(br#"{"a":" x ","b":"","c":3,"d":null}"#).unwrap();
        assert_eq!(p.text(&["a"]).as_deref(), Some("x"));
        assert_eq!(p.text(&["b"]), None);
        assert_eq!(p.text(&["c"]), None);
        assert_eq!(p.text(&["d", "a"]).as_deref(), Some("x"));
        assert!(Params::json(b"").unwrap().text(&["a"]).is_none());
        assert!(Params::json(b"[1]").is_err());
        assert!(Params::json(b"{nope").is_err());
        let f = Params::json_or_form(b"client_secret=a%20b&x=").unwrap();
        assert_eq!(f.text(&["client_secret"]).as_deref(), Some("a b"));
        assert_eq!(f.text(&["x"]), None);
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
