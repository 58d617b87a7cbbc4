//! Numbers and booleans of request bodies as the platform's validator reads
//! them. Its schemas are checked with type coercion on (Fastify's Ajv
//! defaults), so `{"expiresIn": "60"}` is the integer 60, `"true"` is
//! `true`, `null` is `0` or `false` and a one-element array is its element;
//! what cannot be coerced is refused with the validator's words
//! (`body/expiresIn must be integer`), in storage's error shape.

use axum::body::Bytes;
use serde::de::DeserializeOwned;
use serde_json::{Number, Value};

use crate::error::StorageError;

/// What a field's schema asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Integer,
    Boolean,
}

pub(crate) use Kind::{Boolean, Integer};

/// Parses a JSON body (an empty one is `{}`) into `T`, after coercing
/// `fields` of it in place.
pub(crate) fn parse<T: DeserializeOwned>(
    body: &Bytes,
    fields: &[(&str, Kind)],
) -> Result<T, StorageError> {
    let invalid =
        |e: serde_json::Error| StorageError::InvalidRequest(format!("invalid request body: {e}"));
    let mut value: Value = if body.iter().all(u8::is_ascii_whitespace) {
        Value::Object(Default::default())
    } else {
        serde_json::from_slice(body).map_err(invalid)?
    };
    coerce_fields(&mut value, fields)?;
    serde_json::from_value(value).map_err(invalid)
}

/// Coerces the present `fields` of `body` (when it is an object) in place.
pub(crate) fn coerce_fields(body: &mut Value, fields: &[(&str, Kind)]) -> Result<(), StorageError> {
    let Some(map) = body.as_object_mut() else {
        return Ok(());
    };
    for (name, kind) in fields {
        if let Some(value) = map.get_mut(*name) {
            *value = coerce(value, *kind)
                .map_err(|rule| StorageError::InvalidRequest(format!("body/{name} {rule}")))?;
        }
    }
    Ok(())
}

/// `value` as the schema's type, or the rule it breaks.
fn coerce(value: &Value, kind: Kind) -> Result<Value, &'static str> {
    match kind {
        Kind::Integer => integer(value).map(|n| {
            if n.abs() < 9.007_199_254_740_992e15 {
                Value::Number(Number::from(n as i64))
            } else {
                Number::from_f64(n).map_or(Value::Null, Value::Number)
            }
        }),
        Kind::Boolean => boolean(value).map(Value::Bool),
    }
}

fn integer(value: &Value) -> Result<f64, &'static str> {
    let number = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if !s.is_empty() => js_number(s),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Null => Some(0.0),
        Value::Array(items) if items.len() == 1 && !items[0].is_array() => {
            return integer(&items[0]);
        }
        _ => None,
    };
    let number = number.ok_or("must be integer")?;
    if !number.is_finite() {
        return Err("must pass \"finite\" keyword validation");
    }
    if number.fract() != 0.0 {
        return Err("must be integer");
    }
    Ok(number)
}

fn boolean(value: &Value) -> Result<bool, &'static str> {
    match value {
        Value::Bool(b) => Ok(*b),
        Value::Null => Ok(false),
        Value::String(s) if s == "false" => Ok(false),
        Value::String(s) if s == "true" => Ok(true),
        Value::Number(n) if n.as_f64() == Some(0.0) => Ok(false),
        Value::Number(n) if n.as_f64() == Some(1.0) => Ok(true),
        Value::Array(items) if items.len() == 1 && !items[0].is_array() => boolean(&items[0]),
        _ => Err("must be boolean"),
    }
}

/// A string as JavaScript's `Number()` reads it (surrounding white space
/// ignored, blank is 0, decimal, exponent, `Infinity`, `0x`/`0o`/`0b`
/// integers); `None` where it gives `NaN`.
pub(crate) fn js_number(text: &str) -> Option<f64> {
    let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    if text.is_empty() {
        return Some(0.0);
    }
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        let lower = text.get(..2).map(str::to_ascii_lowercase);
        if lower.as_deref() == Some(prefix) {
            let digits = &text[2..];
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return None;
            }
            let digit = |c: char| f64::from(c.to_digit(radix).unwrap_or_default());
            return Some(
                digits
                    .chars()
                    .fold(0.0, |n, c| n * f64::from(radix) + digit(c)),
            );
        }
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    if unsigned == "Infinity" {
        return Some(if text.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    // Rust's float syntax is JavaScript's decimal literal, but for its own
    // words (`inf`, `NaN`): a literal starts with a digit or a point.
    if !unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(value: Value, kind: Kind) -> Result<Value, String> {
        let mut body = json!({ "x": value });
        coerce_fields(&mut body, &[("x", kind)]).map_err(|e| e.to_string())?;
        Ok(body["x"].clone())
    }

    #[test]
    fn integers_are_coerced_as_the_platforms_validator_does() {
        for (given, taken) in [
            (json!(60), 60),
            (json!(60.0), 60),
            (json!("60"), 60),
            (json!(" 60 "), 60),
            (json!("6e1"), 60),
            (json!("0x3c"), 60),
            (json!("+60"), 60),
            (json!("-5"), -5),
            (json!(true), 1),
            (json!(false), 0),
            (json!(null), 0),
            (json!(["60"]), 60),
            (json!(" "), 0),
        ] {
            assert_eq!(one(given.clone(), Integer), Ok(json!(taken)), "{given}");
        }
        for (given, rule) in [
            (json!("sixty"), "body/x must be integer"),
            (json!(""), "body/x must be integer"),
            (json!("60s"), "body/x must be integer"),
            (json!("60.5"), "body/x must be integer"),
            (json!(60.5), "body/x must be integer"),
            (json!("NaN"), "body/x must be integer"),
            (json!("inf"), "body/x must be integer"),
            (json!("0x"), "body/x must be integer"),
            (json!({}), "body/x must be integer"),
            (json!([1, 2]), "body/x must be integer"),
            (json!([[1]]), "body/x must be integer"),
            (
                json!("Infinity"),
                "body/x must pass \"finite\" keyword validation",
            ),
            (
                json!("-1e999"),
                "body/x must pass \"finite\" keyword validation",
            ),
        ] {
            assert_eq!(one(given.clone(), Integer), Err(rule.to_owned()), "{given}");
        }
        // Beyond what an i64 holds exactly it stays a number.
        assert_eq!(one(json!("1e20"), Integer), Ok(json!(1e20)));
    }

    #[test]
    fn booleans_are_coerced_as_the_platforms_validator_does() {
        for (given, taken) in [
            (json!(true), true),
            (json!("true"), true),
            (json!(1), true),
            (json!("false"), false),
            (json!(0), false),
            (json!(null), false),
            (json!(["true"]), true),
        ] {
            assert_eq!(one(given.clone(), Boolean), Ok(json!(taken)), "{given}");
        }
        for given in [json!("yes"), json!("TRUE"), json!(2), json!({}), json!("")] {
            assert_eq!(
                one(given.clone(), Boolean),
                Err("body/x must be boolean".to_owned()),
                "{given}"
            );
        }
    }

    #[test]
    fn bodies_parse_with_their_fields_coerced() {
        #[derive(Debug, serde::Deserialize, PartialEq)]
        struct Body {
            #[serde(rename = "expiresIn")]
            expires_in: Option<i64>,
            flag: Option<bool>,
        }
        let parsed: Body = parse(
            &Bytes::from_static(br#"{"expiresIn":"60","flag":"true"}"#),
            &[("expiresIn", Integer), ("flag", Boolean)],
        )
        .unwrap();
        assert_eq!(
            parsed,
            Body {
                expires_in: Some(60),
                flag: Some(true)
            }
        );
        let empty: Body = parse(&Bytes::from_static(b"  "), &[("expiresIn", Integer)]).unwrap();
        assert_eq!(empty.expires_in, None);
        let refused = parse::<Body>(
            &Bytes::from_static(br#"{"expiresIn":"soon"}"#),
            &[("expiresIn", Integer)],
        )
        .unwrap_err();
        assert_eq!(refused.to_string(), "body/expiresIn must be integer");
        assert_eq!(refused.status_code(), 400);
    }
}
