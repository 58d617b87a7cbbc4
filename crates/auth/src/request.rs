//! Reading requests: query strings, JSON bodies, the caller's token and IP.

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::ConnectInfo;
use axum::http::{Extensions, HeaderMap, header};
use serde::de::DeserializeOwned;
use serde_json::Value;
use uuid::Uuid;

use crate::AuthState;
use crate::error::{AuthError, Result};
use crate::users::{self, User};

/// The query string as a map (later duplicates win).
pub fn query_map(raw: Option<&str>) -> HashMap<String, String> {
    url::form_urlencoded::parse(raw.unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

/// The body as JSON; an empty body (or `null`) reads as `{}`.
///
/// As the platform reads bodies, `null` where a field of the body's type is
/// expected counts as the field left out, at any depth (`"issuer": null`,
/// `"gotrue_meta_security": {"captcha_token": null}`); inside free-form
/// objects (`data`, `user_metadata`, `app_metadata`, ...) a `null` stays,
/// since there it means "remove this key".
pub fn json_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    let bad_json = |e: serde_json::Error| {
        AuthError::bad_request(
            "bad_json",
            format!(
                "Could not parse request body as JSON: {}",
                describe_json_error(&e)
            ),
        )
    };
    let value: Value = if bytes.iter().all(u8::is_ascii_whitespace) {
        Value::Null
    } else {
        serde_json::from_slice(bytes).map_err(bad_json)?
    };
    let value = match value {
        Value::Null => Value::Object(serde_json::Map::new()),
        other => other,
    };
    T::deserialize(nulls_absent::Lenient(value)).map_err(bad_json)
}

/// A deserializer over a parsed body that skips `null` members of the
/// objects read as structs (see [`json_body`]); everything else is
/// `serde_json::Value`'s own reading.
mod nulls_absent {
    use serde::de::value::StringDeserializer;
    use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::{Error, Value};

    pub struct Lenient(pub Value);

    macro_rules! forward {
        ($($method:ident)*) => {$(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                self.0.$method(visitor)
            }
        )*};
    }

    impl<'de> Deserializer<'de> for Lenient {
        type Error = Error;

        forward! {
            deserialize_any deserialize_bool deserialize_i8 deserialize_i16
            deserialize_i32 deserialize_i64 deserialize_i128 deserialize_u8
            deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
            deserialize_f32 deserialize_f64 deserialize_char deserialize_str
            deserialize_string deserialize_bytes deserialize_byte_buf
            deserialize_unit deserialize_map deserialize_identifier
            deserialize_ignored_any
        }

        fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0 {
                Value::Null => visitor.visit_none(),
                other => visitor.visit_some(Lenient(other)),
            }
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Error> {
            match self.0 {
                Value::Object(map) => visitor.visit_map(Members {
                    members: map.into_iter().filter(|(_, v)| !v.is_null()),
                    value: None,
                }),
                other => other.deserialize_struct(name, fields, visitor),
            }
        }

        fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0 {
                Value::Array(items) => visitor.visit_seq(Items(items.into_iter())),
                other => other.deserialize_seq(visitor),
            }
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            visitor: V,
        ) -> Result<V::Value, Error> {
            visitor.visit_newtype_struct(self)
        }

        fn deserialize_unit_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            visitor: V,
        ) -> Result<V::Value, Error> {
            self.0.deserialize_unit_struct(name, visitor)
        }

        fn deserialize_tuple<V: Visitor<'de>>(
            self,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, Error> {
            self.0.deserialize_tuple(len, visitor)
        }

        fn deserialize_tuple_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            len: usize,
            visitor: V,
        ) -> Result<V::Value, Error> {
            self.0.deserialize_tuple_struct(name, len, visitor)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            name: &'static str,
            variants: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Error> {
            self.0.deserialize_enum(name, variants, visitor)
        }
    }

    /// An object's members but its `null` ones.
    struct Members<I> {
        members: I,
        value: Option<Value>,
    }

    impl<'de, I: Iterator<Item = (String, Value)>> MapAccess<'de> for Members<I> {
        type Error = Error;

        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, Error> {
            let Some((key, value)) = self.members.next() else {
                return Ok(None);
            };
            self.value = Some(value);
            seed.deserialize(StringDeserializer::<Error>::new(key))
                .map(Some)
        }

        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
            let value = self
                .value
                .take()
                .ok_or_else(|| <Error as de::Error>::custom("a value without its key"))?;
            seed.deserialize(Lenient(value))
        }
    }

    struct Items(std::vec::IntoIter<Value>);

    impl<'de> SeqAccess<'de> for Items {
        type Error = Error;

        fn next_element_seed<T: DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>, Error> {
            self.0
                .next()
                .map(|item| seed.deserialize(Lenient(item)))
                .transpose()
        }

        fn size_hint(&self) -> Option<usize> {
            Some(self.0.len())
        }
    }
}

fn describe_json_error(error: &serde_json::Error) -> String {
    // serde's message names the field and the expected type; no input echoed.
    let text = error.to_string();
    text.split(" at line ").next().unwrap_or(&text).to_owned()
}

/// The client's address: the first `X-Forwarded-For` entry (the server runs
/// behind a proxy in production), else the TCP peer.
pub fn client_ip(headers: &HeaderMap, extensions: &Extensions) -> String {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    plinth_db::client_address(
        header("x-forwarded-for"),
        header("x-real-ip"),
        extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip()),
    )
}

pub fn user_agent(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The `Authorization: Bearer` token, if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Verified claims of the bearer token (signature and expiry by the
/// service's clock).
pub fn claims(state: &AuthState, headers: &HeaderMap) -> Result<Value> {
    let token = bearer(headers).ok_or_else(|| {
        AuthError::api(
            axum::http::StatusCode::UNAUTHORIZED,
            "no_authorization",
            "This endpoint requires a valid Bearer token",
        )
    })?;
    let bad_jwt = |why: &str| {
        AuthError::forbidden(
            "bad_jwt",
            format!("invalid JWT: unable to parse or verify signature, {why}"),
        )
    };
    let claims = state.jwt().verify(token).map_err(|e| match e {
        plinth_db::JwtError::Expired => bad_jwt("token has invalid claims: token is expired"),
        plinth_db::JwtError::Invalid(reason) => bad_jwt(match reason.as_str() {
            plinth_db::jwt::NO_EXP => {
                "token has invalid claims: token is missing required claim: exp"
            }
            plinth_db::jwt::NOT_YET_VALID => "token has invalid claims: token is not valid yet",
            plinth_db::jwt::URL_TOKEN => "token is a storage URL token",
            _ => "token signature is invalid",
        }),
    })?;
    if claims
        .get("exp")
        .and_then(Value::as_i64)
        .is_some_and(|exp| exp <= state.clock().timestamp())
    {
        return Err(bad_jwt("token has invalid claims: token is expired"));
    }
    Ok(claims)
}

/// A signed-in user: the token's user and session.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user: User,
    pub session_id: Option<Uuid>,
}

/// The caller of a user endpoint; the session named by the token must still
/// exist and the user too.
pub async fn caller(state: &AuthState, headers: &HeaderMap) -> Result<Caller> {
    let claims = claims(state, headers)?;
    let sub = claims
        .get("sub")
        .and_then(Value::as_str)
        .and_then(|s| Uuid::parse_str(s).ok())
        .ok_or_else(|| AuthError::forbidden("bad_jwt", "invalid claim: missing sub claim"))?;
    let session_id = match claims.get("session_id").and_then(Value::as_str) {
        Some(s) => Some(Uuid::parse_str(s).map_err(|_| {
            AuthError::forbidden("bad_jwt", "invalid claim: session_id claim must be a UUID")
        })?),
        None => None,
    };
    let mut conn = state.db().owner.acquire().await?;
    if let Some(session_id) = session_id
        && !crate::sessions::exists(&mut conn, session_id).await?
    {
        return Err(AuthError::forbidden(
            "session_not_found",
            "Session from session_id claim in JWT does not exist",
        ));
    }
    let user = users::find_by_id(&mut conn, sub).await?.ok_or_else(|| {
        AuthError::forbidden(
            "user_not_found",
            "User from sub claim in JWT does not exist",
        )
    })?;
    // An access token issued before a ban no longer works here.
    if user.row.is_banned(state.now()) {
        return Err(AuthError::forbidden("user_banned", "User is banned"));
    }
    Ok(Caller { user, session_id })
}

/// GoTrue's default `GOTRUE_JWT_ADMIN_ROLES`.
pub const ADMIN_ROLES: [&str; 2] = ["service_role", "supabase_admin"];

/// Admin endpoints: the bearer must carry an admin role ([`ADMIN_ROLES`]).
pub fn require_admin(state: &AuthState, headers: &HeaderMap) -> Result<()> {
    let claims = claims(state, headers)?;
    if claims
        .get("role")
        .and_then(Value::as_str)
        .is_some_and(|role| ADMIN_ROLES.contains(&role))
    {
        Ok(())
    } else {
        Err(AuthError::forbidden("not_admin", "User not allowed"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode() {
        let q = query_map(Some(
            "grant_type=password&redirect_to=http%3A%2F%2Fx%2Fy%3Fa%3D1",
        ));
        assert_eq!(q["grant_type"], "password");
        assert_eq!(q["redirect_to"], "http://x/y?a=1");
        assert!(query_map(None).is_empty());
    }

    #[test]
    fn empty_bodies_are_objects_and_bad_json_is_400() {
        let v: Value = json_body(b"").unwrap();
        assert_eq!(v, serde_json::json!({}));
        let err = json_body::<Value>(b"{nope").unwrap_err();
        assert_eq!(err.parts().1, "bad_json");
    }

    #[test]
    fn nulls_are_absent_fields_but_stay_inside_free_form_objects() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(default)]
        struct Inner {
            kind: String,
        }
        impl Default for Inner {
            fn default() -> Self {
                Self {
                    kind: "unset".into(),
                }
            }
        }
        #[derive(Debug, Default, serde::Deserialize)]
        #[serde(default)]
        struct Body {
            issuer: String,
            uris: Vec<String>,
            flag: bool,
            inner: Option<Inner>,
            data: Option<Value>,
            id: Option<Uuid>,
        }
        let body: Body = json_body(
            br#"{"issuer": null, "uris": null, "flag": null, "inner": {"kind": null},
                 "data": {"a": null, "b": 1}, "id": null}"#,
        )
        .unwrap();
        assert_eq!(body.issuer, "");
        assert!(body.uris.is_empty() && !body.flag && body.id.is_none());
        assert_eq!(body.inner.unwrap().kind, "unset");
        assert_eq!(body.data, Some(serde_json::json!({"a": null, "b": 1})));
        let whole: Body = json_body(b"null").unwrap();
        assert_eq!(whole.issuer, "");
        // Still typed: a wrong type is refused, and said so.
        let err = json_body::<Body>(br#"{"issuer": 5}"#).unwrap_err();
        assert_eq!(err.parts().1, "bad_json");
        assert!(err.parts().2.contains("invalid type"), "{}", err.parts().2);
        let id: Body =
            json_body(br#"{"id": "6f1c7f7e-0000-4000-8000-000000000001", "uris": ["x"]}"#).unwrap();
        assert!(id.id.is_some() && id.uris == ["x"]);
    }

    #[test]
    fn forwarded_addresses_win() {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "203.0.113.9, 10.0.0.1".parse().unwrap());
        assert_eq!(client_ip(&headers, &Extensions::new()), "203.0.113.9");
        assert_eq!(client_ip(&HeaderMap::new(), &Extensions::new()), "unknown");
    }
}
