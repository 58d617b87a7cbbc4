//! The `filter` of a `postgres_changes` subscription (pure): `col=op.value`
//! conditions joined by `,` (all must hold), with an optional `not.` before
//! the operator. Operators: `eq neq lt lte gt gte in is`. Values compare
//! against the changed record's JSON values: numbers numerically, booleans
//! as booleans, everything else as text; a SQL null matches nothing but
//! `is.null`.

use std::cmp::Ordering;

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    conditions: Vec<Condition>,
}

#[derive(Debug, Clone, PartialEq)]
struct Condition {
    column: String,
    negate: bool,
    op: Op,
    values: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Neq,
    Lt,
    Lte,
    Gt,
    Gte,
    In,
    Is,
}

impl Filter {
    /// Parses a filter; the error is a message for the client.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut conditions = Vec::new();
        for part in split_top_level(text, ',') {
            conditions.push(parse_condition(part.trim())?);
        }
        if conditions.is_empty() {
            return Err("empty filter".into());
        }
        Ok(Self { conditions })
    }

    /// Whether `record` satisfies every condition. A column the record does
    /// not carry (a delete's old record holds only the key) matches nothing,
    /// whatever the operator: what is not sent is not told.
    pub fn matches(&self, record: &Map<String, Value>) -> bool {
        self.conditions.iter().all(|c| {
            let Some(value) = record.get(&c.column) else {
                return false;
            };
            match c.holds(value) {
                Some(result) => result != c.negate,
                // Unknown (a SQL null comparison): never a match.
                None => false,
            }
        })
    }
}

fn parse_condition(text: &str) -> Result<Condition, String> {
    let invalid = || format!("invalid filter {text:?}: expected column=operator.value");
    let (column, rest) = text.split_once('=').ok_or_else(invalid)?;
    let column = column.trim();
    if column.is_empty() {
        return Err(invalid());
    }
    let (negate, rest) = match rest.strip_prefix("not.") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (op, value) = rest.split_once('.').ok_or_else(invalid)?;
    let op = match op {
        "eq" => Op::Eq,
        "neq" => Op::Neq,
        "lt" => Op::Lt,
        "lte" => Op::Lte,
        "gt" => Op::Gt,
        "gte" => Op::Gte,
        "in" => Op::In,
        "is" => Op::Is,
        other => {
            return Err(format!(
                "invalid filter {text:?}: unsupported operator {other:?}"
            ));
        }
    };
    let values = match op {
        Op::In => {
            let inner = value
                .strip_prefix('(')
                .and_then(|v| v.strip_suffix(')'))
                .ok_or_else(|| format!("invalid filter {text:?}: in expects (a,b,...)"))?;
            split_top_level(inner, ',')
                .into_iter()
                .map(unquote)
                .collect()
        }
        Op::Is => {
            let v = value.to_ascii_lowercase();
            if !matches!(v.as_str(), "null" | "true" | "false") {
                return Err(format!(
                    "invalid filter {text:?}: is expects null, true or false"
                ));
            }
            vec![v]
        }
        _ => vec![unquote(value)],
    };
    Ok(Condition {
        column: column.to_owned(),
        negate,
        op,
        values,
    })
}

/// Splits on `sep` outside parentheses and double quotes.
fn split_top_level(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quoted, mut escaped, mut start) = (0i32, false, false, 0usize);
    for (i, ch) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match ch {
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            c if c == sep && !quoted && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if start < text.len() || !parts.is_empty() {
        parts.push(&text[start..]);
    }
    parts
}

/// `"a,b"` -> `a,b` (with `\"` and `\\` unescaped); bare values as they are.
fn unquote(value: &str) -> String {
    let trimmed = value;
    match trimmed.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
        Some(inner) => {
            let mut out = String::with_capacity(inner.len());
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                } else {
                    out.push(c);
                }
            }
            out
        }
        None => trimmed.to_owned(),
    }
}

impl Condition {
    /// `Some(true/false)`, or `None` when SQL would say null.
    fn holds(&self, value: &Value) -> Option<bool> {
        match self.op {
            Op::Is => Some(match self.values.first().map(String::as_str) {
                Some("null") => value.is_null(),
                Some("true") => value == &Value::Bool(true),
                Some("false") => value == &Value::Bool(false),
                _ => false,
            }),
            Op::In => {
                if value.is_null() {
                    return None;
                }
                Some(
                    self.values
                        .iter()
                        .any(|v| compare(value, v) == Some(Ordering::Equal)),
                )
            }
            op => {
                let ordering = compare(value, self.values.first()?)?;
                Some(match op {
                    Op::Eq => ordering == Ordering::Equal,
                    Op::Neq => ordering != Ordering::Equal,
                    Op::Lt => ordering == Ordering::Less,
                    Op::Lte => ordering != Ordering::Greater,
                    Op::Gt => ordering == Ordering::Greater,
                    Op::Gte => ordering != Ordering::Less,
                    Op::In | Op::Is => false,
                })
            }
        }
    }
}

/// Orders a record value against a filter value; `None` when incomparable
/// (null, or a number against text that is no number).
fn compare(value: &Value, text: &str) -> Option<Ordering> {
    match value {
        Value::Null => None,
        Value::Bool(b) => {
            let other = match text.to_ascii_lowercase().as_str() {
                "true" | "t" => true,
                "false" | "f" => false,
                _ => return None,
            };
            Some(b.cmp(&other))
        }
        Value::Number(n) => {
            if let (Some(a), Ok(b)) = (n.as_i64(), text.trim().parse::<i64>()) {
                return Some(a.cmp(&b));
            }
            let b: f64 = text.trim().parse().ok()?;
            n.as_f64()?.partial_cmp(&b)
        }
        Value::String(s) => Some(s.as_str().cmp(text)),
        other => Some(other.to_string().as_str().cmp(text)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(filter: &str, record: Value) -> bool {
        let Value::Object(map) = record else {
            panic!("object")
        };
        Filter::parse(filter).unwrap().matches(&map)
    }

    #[test]
    fn operators() {
        let rec = || json!({"id": 5, "name": "b", "ok": true, "gone": null, "price": 2.5});
        let table: &[(&str, bool)] = &[
            ("id=eq.5", true),
            ("id=eq.6", false),
            ("id=neq.6", true),
            ("id=lt.6", true),
            ("id=lt.5", false),
            ("id=lte.5", true),
            ("id=gt.4", true),
            ("id=gte.6", false),
            ("price=gt.2", true),
            ("price=lt.2.6", true),
            ("name=eq.b", true),
            ("name=gt.a", true),
            ("name=in.(a,b)", true),
            ("name=in.(a,c)", false),
            ("name=in.(\"x,y\",b)", true),
            ("id=in.(1,5)", true),
            ("ok=eq.true", true),
            ("ok=is.true", true),
            ("gone=is.null", true),
            ("gone=eq.1", false),
            ("gone=neq.1", false),
            ("missing=eq.1", false),
            ("missing=is.null", false),
            ("missing=not.is.null", false),
            ("missing=not.eq.1", false),
            ("id=not.eq.5", false),
            ("id=not.in.(1,2)", true),
            ("id=eq.5,name=eq.b", true),
            ("id=eq.5,name=eq.c", false),
            ("id=eq.abc", false),
        ];
        for (filter, expected) in table {
            assert_eq!(check(filter, rec()), *expected, "{filter}");
        }
    }

    #[test]
    fn bad_filters_are_refused() {
        for bad in [
            "",
            "id",
            "id=5",
            "id=like.x",
            "id=in.1,2",
            "=eq.1",
            "x=is.maybe",
        ] {
            assert!(Filter::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn quoted_values() {
        assert!(check(r#"name=eq."a,b""#, json!({"name": "a,b"})));
        assert!(check(
            r#"name=eq."say \"hi\"""#,
            json!({"name": "say \"hi\""})
        ));
    }
}
