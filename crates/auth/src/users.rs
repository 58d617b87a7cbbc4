//! `auth.users` and `auth.identities`: loading, and the User / Identity JSON
//! of the wire contract.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use sqlx::postgres::PgRow;
use sqlx::{PgConnection, Row};
use uuid::Uuid;

use crate::error::{AuthError, Result};

/// The instance id the platform writes into every row.
pub const INSTANCE_ID: Uuid = Uuid::nil();

const USER_COLUMNS: &str = "id, aud, role, email, encrypted_password, email_confirmed_at, \
    invited_at, confirmation_sent_at, recovery_sent_at, email_change, email_change_sent_at, \
    last_sign_in_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, phone, \
    phone_confirmed_at, confirmed_at, banned_until, deleted_at, is_anonymous, phone_change";

/// One row of `auth.users`, as much as the service needs.
#[derive(Debug, Clone)]
pub struct UserRow {
    pub id: Uuid,
    pub aud: String,
    pub role: String,
    pub email: String,
    pub encrypted_password: Option<String>,
    pub email_confirmed_at: Option<DateTime<Utc>>,
    pub invited_at: Option<DateTime<Utc>>,
    pub confirmation_sent_at: Option<DateTime<Utc>>,
    pub recovery_sent_at: Option<DateTime<Utc>>,
    pub email_change: Option<String>,
    pub email_change_sent_at: Option<DateTime<Utc>>,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    pub app_metadata: Value,
    pub user_metadata: Value,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
    pub phone: String,
    pub phone_confirmed_at: Option<DateTime<Utc>>,
    pub confirmed_at: Option<DateTime<Utc>>,
    pub banned_until: Option<DateTime<Utc>>,
    pub deleted_at: Option<DateTime<Utc>>,
    pub is_anonymous: bool,
    /// A new number waiting for its SMS code (`new_phone`).
    pub phone_change: Option<String>,
}

fn object_or_empty(value: Option<Value>) -> Value {
    match value {
        Some(Value::Object(map)) => Value::Object(map),
        _ => Value::Object(Map::new()),
    }
}

impl UserRow {
    fn from_row(row: &PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            id: row.try_get("id")?,
            aud: row.try_get::<Option<String>, _>("aud")?.unwrap_or_default(),
            role: row
                .try_get::<Option<String>, _>("role")?
                .unwrap_or_default(),
            email: row
                .try_get::<Option<String>, _>("email")?
                .unwrap_or_default(),
            encrypted_password: row
                .try_get::<Option<String>, _>("encrypted_password")?
                .filter(|p| !p.is_empty()),
            email_confirmed_at: row.try_get("email_confirmed_at")?,
            invited_at: row.try_get("invited_at")?,
            confirmation_sent_at: row.try_get("confirmation_sent_at")?,
            recovery_sent_at: row.try_get("recovery_sent_at")?,
            email_change: row
                .try_get::<Option<String>, _>("email_change")?
                .filter(|e| !e.is_empty()),
            email_change_sent_at: row.try_get("email_change_sent_at")?,
            last_sign_in_at: row.try_get("last_sign_in_at")?,
            app_metadata: object_or_empty(row.try_get("raw_app_meta_data")?),
            user_metadata: object_or_empty(row.try_get("raw_user_meta_data")?),
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
            phone: row
                .try_get::<Option<String>, _>("phone")?
                .unwrap_or_default(),
            phone_confirmed_at: row.try_get("phone_confirmed_at")?,
            confirmed_at: row.try_get("confirmed_at")?,
            banned_until: row.try_get("banned_until")?,
            deleted_at: row.try_get("deleted_at")?,
            is_anonymous: row.try_get("is_anonymous")?,
            phone_change: row
                .try_get::<Option<String>, _>("phone_change")?
                .filter(|p| !p.is_empty()),
        })
    }

    /// The role for access tokens: the row's, or `authenticated` when unset
    /// (seed SQL sometimes leaves it empty).
    pub fn token_role(&self) -> &str {
        if self.role.is_empty() {
            "authenticated"
        } else {
            &self.role
        }
    }

    pub fn token_aud(&self) -> &str {
        if self.aud.is_empty() {
            "authenticated"
        } else {
            &self.aud
        }
    }

    pub fn is_banned(&self, now: DateTime<Utc>) -> bool {
        self.banned_until.is_some_and(|until| until > now)
    }
}

/// One row of `auth.identities`.
#[derive(Debug, Clone)]
pub struct IdentityRow {
    pub id: Uuid,
    pub provider_id: String,
    pub user_id: Uuid,
    pub identity_data: Value,
    pub provider: String,
    pub email: Option<String>,
    pub last_sign_in_at: Option<DateTime<Utc>>,
    pub created_at: Option<DateTime<Utc>>,
    pub updated_at: Option<DateTime<Utc>>,
}

impl IdentityRow {
    fn from_row(row: &PgRow) -> sqlx::Result<Self> {
        Ok(Self {
            id: row.try_get("id")?,
            provider_id: row.try_get("provider_id")?,
            user_id: row.try_get("user_id")?,
            identity_data: object_or_empty(row.try_get("identity_data")?),
            provider: row.try_get("provider")?,
            email: row.try_get("email")?,
            last_sign_in_at: row.try_get("last_sign_in_at")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    }

    pub fn to_json(&self) -> Value {
        let mut out = json!({
            "identity_id": self.id,
            "id": self.provider_id,
            "user_id": self.user_id,
            "identity_data": self.identity_data,
            "provider": self.provider,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        });
        if let Some(at) = self.last_sign_in_at {
            out["last_sign_in_at"] = json!(at);
        }
        if let Some(email) = &self.email {
            out["email"] = json!(email);
        }
        out
    }
}

/// A user with identities: what `GET /user` and the session's `user` are.
#[derive(Debug, Clone)]
pub struct User {
    pub row: UserRow,
    pub identities: Vec<IdentityRow>,
    /// The user's MFA factors (the Factor JSON); left out of the JSON when none.
    pub factors: Vec<Value>,
}

impl User {
    pub fn id(&self) -> Uuid {
        self.row.id
    }

    /// The User JSON of the wire contract: optional timestamps are left out
    /// when null; `email`, `phone` and `identities` are always present.
    pub fn to_json(&self) -> Value {
        let r = &self.row;
        let mut out = json!({
            "id": r.id,
            "aud": r.aud,
            "role": r.role,
            "email": r.email,
            "phone": r.phone,
            "app_metadata": r.app_metadata,
            "user_metadata": r.user_metadata,
            "identities": self.identities.iter().map(IdentityRow::to_json).collect::<Vec<_>>(),
            "created_at": r.created_at,
            "updated_at": r.updated_at,
            "is_anonymous": r.is_anonymous,
        });
        let optional = [
            ("email_confirmed_at", r.email_confirmed_at),
            ("phone_confirmed_at", r.phone_confirmed_at),
            ("confirmation_sent_at", r.confirmation_sent_at),
            ("confirmed_at", r.confirmed_at),
            ("recovery_sent_at", r.recovery_sent_at),
            ("email_change_sent_at", r.email_change_sent_at),
            ("invited_at", r.invited_at),
            ("last_sign_in_at", r.last_sign_in_at),
            ("banned_until", r.banned_until),
            ("deleted_at", r.deleted_at),
        ];
        for (key, value) in optional {
            if let Some(at) = value {
                out[key] = json!(at);
            }
        }
        if let Some(new_email) = &r.email_change {
            out["new_email"] = json!(new_email);
        }
        if let Some(new_phone) = &r.phone_change {
            out["new_phone"] = json!(new_phone);
        }
        if !self.factors.is_empty() {
            out["factors"] = json!(self.factors);
        }
        out
    }
}

/// A user by id (not soft-deleted), with identities.
/// The id of the user an admin route names in its path: 404
/// `validation_failed` for what is no UUID, 404 `user_not_found` for no user.
pub(crate) async fn admin_path_user(conn: &mut PgConnection, id: &str) -> Result<Uuid> {
    let id = Uuid::parse_str(id)
        .map_err(|_| AuthError::not_found("validation_failed", "user_id must be an UUID"))?;
    find_by_id(conn, id)
        .await?
        .map(|u| u.id())
        .ok_or_else(|| AuthError::not_found("user_not_found", "User not found"))
}

pub async fn find_by_id(conn: &mut PgConnection, id: Uuid) -> Result<Option<User>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {USER_COLUMNS} from auth.users where id = $1 and deleted_at is null"
    )))
    .bind(id)
    .fetch_optional(&mut *conn)
    .await?;
    match row {
        Some(row) => Ok(Some(
            with_identities(&mut *conn, UserRow::from_row(&row)?).await?,
        )),
        None => Ok(None),
    }
}

/// A user by e-mail address, any case.
pub async fn find_by_email(conn: &mut PgConnection, email: &str) -> Result<Option<User>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {USER_COLUMNS} from auth.users \
         where lower(email) = lower($1) and is_sso_user = false and deleted_at is null \
         order by created_at limit 1"
    )))
    .bind(email)
    .fetch_optional(&mut *conn)
    .await?;
    match row {
        Some(row) => Ok(Some(
            with_identities(&mut *conn, UserRow::from_row(&row)?).await?,
        )),
        None => Ok(None),
    }
}

/// A user whose token column `column` holds `hash`.
pub async fn find_by_token(
    conn: &mut PgConnection,
    column: TokenColumn,
    hash: &str,
) -> Result<Option<User>> {
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {USER_COLUMNS} from auth.users where {} = $1 and deleted_at is null",
        column.name()
    )))
    .bind(hash)
    .fetch_optional(&mut *conn)
    .await?;
    match row {
        Some(row) => Ok(Some(
            with_identities(&mut *conn, UserRow::from_row(&row)?).await?,
        )),
        None => Ok(None),
    }
}

/// A page of users, newest first, and the total count.
pub async fn list(conn: &mut PgConnection, limit: i64, offset: i64) -> Result<(Vec<User>, i64)> {
    let total: i64 = sqlx::query_scalar("select count(*) from auth.users where deleted_at is null")
        .fetch_one(&mut *conn)
        .await?;
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select {USER_COLUMNS} from auth.users where deleted_at is null \
         order by created_at desc, id limit $1 offset $2"
    )))
    .bind(limit)
    .bind(offset)
    .fetch_all(&mut *conn)
    .await?;
    let mut users = Vec::with_capacity(rows.len());
    for row in rows {
        users.push(with_identities(&mut *conn, UserRow::from_row(&row)?).await?);
    }
    Ok((users, total))
}

async fn with_identities(conn: &mut PgConnection, row: UserRow) -> Result<User> {
    let identities = sqlx::query(
        "select id, provider_id, user_id, identity_data, provider, email, last_sign_in_at, \
                created_at, updated_at \
         from auth.identities where user_id = $1 order by created_at, id",
    )
    .bind(row.id)
    .fetch_all(&mut *conn)
    .await?
    .iter()
    .map(IdentityRow::from_row)
    .collect::<sqlx::Result<Vec<_>>>()?;
    let factors = crate::mfa::factors_json(&mut *conn, row.id).await?;
    Ok(User {
        row,
        identities,
        factors,
    })
}

/// The columns holding hashed e-mail tokens (an e-mail change's are
/// [`crate::email_change`]'s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenColumn {
    Confirmation,
    Recovery,
}

impl TokenColumn {
    pub fn name(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation_token",
            Self::Recovery => "recovery_token",
        }
    }

    fn sent_at(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation_sent_at",
            Self::Recovery => "recovery_sent_at",
        }
    }

    /// The `auth.one_time_token_type` label.
    fn one_time_type(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation_token",
            Self::Recovery => "recovery_token",
        }
    }
}

/// Stores `hash` as the user's outstanding token of this kind (and mirrors
/// it into `auth.one_time_tokens`).
pub async fn set_token(
    conn: &mut PgConnection,
    user_id: Uuid,
    column: TokenColumn,
    hash: &str,
    relates_to: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "update auth.users set {} = $2, {} = $3, updated_at = $3 where id = $1",
        column.name(),
        column.sent_at()
    )))
    .bind(user_id)
    .bind(hash)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    store_one_time_token(conn, user_id, column.one_time_type(), hash, relates_to, now).await
}

/// Mirrors an outstanding token into `auth.one_time_tokens` (one a user and
/// `token_type`, the label of `auth.one_time_token_type`).
pub(crate) async fn store_one_time_token(
    conn: &mut PgConnection,
    user_id: Uuid,
    token_type: &str,
    hash: &str,
    relates_to: &str,
    now: DateTime<Utc>,
) -> Result<()> {
    sqlx::query(
        "insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at) \
         values ($1, $2, $3::auth.one_time_token_type, $4, $5, $6, $6) \
         on conflict (user_id, token_type) do update \
           set token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = excluded.updated_at",
    )
    .bind(Uuid::new_v4())
    .bind(user_id)
    .bind(token_type)
    .bind(hash)
    .bind(relates_to)
    .bind(now.naive_utc())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Merges `patch` into the user's identity of `provider`; when there is
/// none, inserts one (provider id: the user id) with `identity_data` `data`.
/// True when it inserted.
pub(crate) async fn upsert_identity(
    conn: &mut PgConnection,
    user_id: Uuid,
    provider: &str,
    patch: Value,
    data: Value,
    now: DateTime<Utc>,
) -> Result<bool> {
    let updated = sqlx::query(
        "update auth.identities set identity_data = identity_data || $2, updated_at = $3 \
         where user_id = $1 and provider = $4",
    )
    .bind(user_id)
    .bind(patch)
    .bind(now)
    .bind(provider)
    .execute(&mut *conn)
    .await?;
    if updated.rows_affected() > 0 {
        return Ok(false);
    }
    sqlx::query(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $5, $5)",
    )
    .bind(user_id.to_string())
    .bind(user_id)
    .bind(data)
    .bind(provider)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(true)
}

/// An address the provider just proved, on an account whose owner never
/// confirmed it: confirmed now, and the password (whoever set it) and the
/// confirmation token dropped.
pub(crate) async fn claim_unconfirmed(
    conn: &mut PgConnection,
    user: &User,
    now: DateTime<Utc>,
) -> Result<()> {
    if user.row.email_confirmed_at.is_some() {
        return Ok(());
    }
    // Whoever registered this address never proved it; the provider just
    // did. Their password must not carry over.
    sqlx::query(
        "update auth.users set encrypted_password = '', email_confirmed_at = $2, \
           confirmation_token = '', updated_at = $2 where id = $1",
    )
    .bind(user.id())
    .bind(now)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Clears the user's token of this kind once it was used.
pub async fn clear_token(
    conn: &mut PgConnection,
    user_id: Uuid,
    column: TokenColumn,
) -> Result<()> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "update auth.users set {} = '' where id = $1",
        column.name()
    )))
    .bind(user_id)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "delete from auth.one_time_tokens where user_id = $1 and token_type = $2::auth.one_time_token_type",
    )
    .bind(user_id)
    .bind(column.one_time_type())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Merges `patch` into the object `base` key by key; a `null` value removes
/// the key (how `PUT /user` treats `data`).
pub fn merge_metadata(base: &Value, patch: &Map<String, Value>) -> Value {
    let mut merged = match base {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    for (key, value) in patch {
        if value.is_null() {
            merged.remove(key);
        } else {
            merged.insert(key.clone(), value.clone());
        }
    }
    Value::Object(merged)
}

/// `app_metadata` with `provider` added to `providers` (first provider
/// stays `provider`).
pub fn add_provider(app_metadata: &Value, provider: &str) -> Value {
    let mut map = match app_metadata {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    if !map.contains_key("provider") {
        map.insert("provider".into(), json!(provider));
    }
    let mut providers: Vec<Value> = map
        .get("providers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !providers.iter().any(|p| p == provider) {
        providers.push(json!(provider));
    }
    map.insert("providers".into(), Value::Array(providers));
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_merges_and_nulls_delete() {
        let base = json!({"a": 1, "b": 2});
        let patch = json!({"b": null, "c": 3});
        let merged = merge_metadata(&base, patch.as_object().unwrap());
        assert_eq!(merged, json!({"a": 1, "c": 3}));
        assert_eq!(merge_metadata(&Value::Null, &Map::new()), json!({}));
    }

    #[test]
    fn providers_are_added_once() {
        let meta = add_provider(&json!({}), "email");
        assert_eq!(meta, json!({"provider": "email", "providers": ["email"]}));
        let meta = add_provider(&meta, "github");
        let meta = add_provider(&meta, "github");
        assert_eq!(
            meta,
            json!({"provider": "email", "providers": ["email", "github"]})
        );
    }
}
