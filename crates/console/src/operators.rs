//! Operator accounts (made only on the command line) and their sessions.
//!
//! An operator is not a user of the project: the account lives in
//! `plinth_console.operators`, apart from `auth.users`, so no marketplace
//! admin and no API key is one. Passwords are argon2id; a session is a
//! random cookie of which only the SHA-256 is stored, with an absolute and
//! an idle expiry.

use std::time::Duration;

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use chrono::{DateTime, Utc};
use plinth_limits::{Budget, Limiter};
use rand::RngCore;
use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use uuid::Uuid;

/// The shortest password `plinth admin operator --password-stdin` takes.
pub const MIN_PASSWORD: usize = 12;
/// Failed sign-ins allowed per account and address in [`FAILURE_WINDOW`]
/// (then one more every 90 s).
const MAX_FAILURES: u32 = 10;
/// An address may fail on this many accounts' worth before it is refused.
const ADDRESS_ACCOUNTS: u32 = 3;
const FAILURE_WINDOW: Duration = Duration::from_secs(15 * 60);
/// How long a sign-in of an account under attack waits.
const ACCOUNT_BACKOFF: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Serialize)]
pub struct Operator {
    pub id: Uuid,
    pub email: String,
}

#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    #[error("{0:?} is not an e-mail address")]
    BadEmail(String),
    #[error("the password must have at least {MIN_PASSWORD} characters")]
    ShortPassword,
    #[error("no operator has the address {0}")]
    Unknown(String),
    #[error("cannot hash the password: {0}")]
    Hash(String),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// A new random password for `plinth admin operator` to print: 24
/// characters of base58-like text (about 140 bits).
pub fn generate_password() -> String {
    const ALPHABET: &[u8] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    bytes
        .iter()
        .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
        .collect()
}

fn hash_password(password: &str) -> Result<String, OperatorError> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(|e| OperatorError::Hash(e.to_string()))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| OperatorError::Hash(e.to_string()))
}

fn check_email(email: &str) -> Result<String, OperatorError> {
    let email = email.trim();
    let plausible = email.len() <= 254
        && email
            .split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && domain.contains('.'))
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    if plausible {
        Ok(email.to_owned())
    } else {
        Err(OperatorError::BadEmail(email.to_owned()))
    }
}

/// Creates the operator, or gives an existing one (same address, any case)
/// this password and ends its sessions. Returns whether it was new.
pub async fn set_operator(
    owner: &PgPool,
    email: &str,
    password: &str,
) -> Result<bool, OperatorError> {
    let email = check_email(email)?;
    if password.chars().count() < MIN_PASSWORD {
        return Err(OperatorError::ShortPassword);
    }
    let password = password.to_owned();
    let hash = tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .map_err(|e| OperatorError::Hash(e.to_string()))??;
    let mut tx = owner.begin().await?;
    let existing: Option<Uuid> = sqlx::query_scalar(
        "select id from plinth_console.operators where lower(email) = lower($1)",
    )
    .bind(&email)
    .fetch_optional(&mut *tx)
    .await?;
    let created = match existing {
        Some(id) => {
            sqlx::query("update plinth_console.operators set password_hash = $2 where id = $1")
                .bind(id)
                .bind(&hash)
                .execute(&mut *tx)
                .await?;
            sqlx::query("delete from plinth_console.sessions where operator_id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
            false
        }
        None => {
            sqlx::query(
                "insert into plinth_console.operators (email, password_hash) values ($1, $2)",
            )
            .bind(&email)
            .bind(&hash)
            .execute(&mut *tx)
            .await?;
            true
        }
    };
    tx.commit().await?;
    Ok(created)
}

/// Deletes the operator (and so its sessions).
pub async fn remove_operator(owner: &PgPool, email: &str) -> Result<(), OperatorError> {
    let done = sqlx::query("delete from plinth_console.operators where lower(email) = lower($1)")
        .bind(email.trim())
        .execute(owner)
        .await?;
    if done.rows_affected() == 0 {
        return Err(OperatorError::Unknown(email.trim().to_owned()));
    }
    Ok(())
}

/// A hash of a password no one has, checked for unknown addresses so that
/// a sign-in takes as long whether the account exists or not.
fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash_password(&generate_password()).unwrap_or_default())
}

/// Password checks under way at once: each holds argon2's 19 MiB and a
/// core, and sign-in is open to anyone who reaches the console.
static HASH_SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// The operator whose address and password these are.
pub async fn check_password(
    owner: &PgPool,
    email: &str,
    password: &str,
) -> Result<Option<Operator>, sqlx::Error> {
    let row: Option<(Uuid, String, String)> = sqlx::query_as(
        "select id, email, password_hash from plinth_console.operators where lower(email) = lower($1)",
    )
    .bind(email.trim())
    .fetch_optional(owner)
    .await?;
    let hash = row
        .as_ref()
        .map_or_else(|| decoy_hash().to_owned(), |r| r.2.clone());
    let password = password.to_owned();
    let Ok(_slot) = HASH_SLOTS.acquire().await else {
        return Ok(None);
    };
    let matches = tokio::task::spawn_blocking(move || {
        PasswordHash::new(&hash).is_ok_and(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
    })
    .await
    .unwrap_or(false);
    Ok(match row {
        Some((id, email, _)) if matches => Some(Operator { id, email }),
        _ => None,
    })
}

/// Failed sign-ins, in memory (per node), as user sign-ins count them: per
/// account *and* client address (past [`MAX_FAILURES`] in
/// [`FAILURE_WINDOW`], that address is refused for that account, the
/// operator elsewhere is not), per address whatever the account (a
/// spraying address is refused), and per account from anywhere, which only
/// slows its sign-ins down ([`ACCOUNT_BACKOFF`]) and never refuses them.
#[derive(Debug)]
pub struct Failures {
    pair: Limiter,
    address: Limiter,
    account: Limiter,
}

impl Default for Failures {
    fn default() -> Self {
        let budget = |n| Budget::per(n, FAILURE_WINDOW);
        Self {
            pair: Limiter::new("console sign-in failures", budget(MAX_FAILURES)),
            address: Limiter::new(
                "console address failures",
                budget(MAX_FAILURES * ADDRESS_ACCOUNTS),
            ),
            account: Limiter::new("console account failures", budget(MAX_FAILURES)),
        }
    }
}

/// What a sign-in attempt may do.
#[derive(Debug, PartialEq, Eq)]
pub enum Attempt {
    /// Check the password, after waiting this long.
    Go(Duration),
    /// Refused (429): this address spent its failures.
    Refused,
}

impl Failures {
    /// Counts an attempt of `email` from `address` before its password is
    /// checked (so a burst cannot slip past); [`Self::succeeded`] takes it
    /// back.
    pub fn attempt(&self, address: &str, email: &str) -> Attempt {
        let email = email.trim().to_lowercase();
        let address = plinth_limits::address_key(address);
        if self.address.peek(&address).is_err() || self.pair.check((&email, &address)).is_err() {
            return Attempt::Refused;
        }
        match self.account.peek(&email) {
            Ok(()) => Attempt::Go(Duration::ZERO),
            Err(_) => Attempt::Go(ACCOUNT_BACKOFF),
        }
    }

    pub fn failed(&self, address: &str, email: &str) {
        let email = email.trim().to_lowercase();
        let _ = self.address.check(plinth_limits::address_key(address));
        let _ = self.account.check(&email);
    }

    pub fn succeeded(&self, address: &str, email: &str) {
        let email = email.trim().to_lowercase();
        self.pair
            .refund((&email, &plinth_limits::address_key(address)));
    }
}

/// A session's cookie value: 32 random bytes, hex.
pub fn new_session_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    plinth_db::hex(&bytes)
}

fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Starts a session; returns its expiry.
pub async fn start_session(
    owner: &PgPool,
    operator: &Operator,
    token: &str,
    lifetime: Duration,
    address: &str,
    user_agent: Option<&str>,
) -> Result<DateTime<Utc>, sqlx::Error> {
    let mut tx = owner.begin().await?;
    // Sessions that ended stay in the table only until the next sign-in.
    sqlx::query(
        "delete from plinth_console.sessions where expires_at < now() or last_seen_at < now() - interval '1 day'",
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query("update plinth_console.operators set last_sign_in_at = now() where id = $1")
        .bind(operator.id)
        .execute(&mut *tx)
        .await?;
    let expires: DateTime<Utc> = sqlx::query_scalar(
        "insert into plinth_console.sessions (id_hash, operator_id, expires_at, ip, user_agent)
         values ($1, $2, now() + make_interval(secs => $3), $4, $5)
         returning expires_at",
    )
    .bind(token_hash(token))
    .bind(operator.id)
    .bind(lifetime.as_secs_f64())
    .bind(address)
    .bind(user_agent.map(|ua| ua.chars().take(512).collect::<String>()))
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(expires)
}

/// The operator of a live session, marking it seen; `None` for an unknown,
/// expired or idle one.
pub async fn session(
    owner: &PgPool,
    token: &str,
    idle: Duration,
) -> Result<Option<(Operator, DateTime<Utc>)>, sqlx::Error> {
    let row: Option<(Uuid, String, DateTime<Utc>)> = sqlx::query_as(
        "update plinth_console.sessions s set last_seen_at = now()
           from plinth_console.operators o
          where s.id_hash = $1 and o.id = s.operator_id
            and s.expires_at > now()
            and s.last_seen_at > now() - make_interval(secs => $2)
         returning o.id, o.email, s.expires_at",
    )
    .bind(token_hash(token))
    .bind(idle.as_secs_f64())
    .fetch_optional(owner)
    .await?;
    Ok(row.map(|(id, email, expires)| (Operator { id, email }, expires)))
}

pub async fn end_session(owner: &PgPool, token: &str) -> Result<(), sqlx::Error> {
    sqlx::query("delete from plinth_console.sessions where id_hash = $1")
        .bind(token_hash(token))
        .execute(owner)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_refuse_an_address_for_an_account_and_only_slow_the_account() {
        let failures = Failures::default();
        let here = "10.0.0.1";
        for _ in 0..MAX_FAILURES {
            assert_eq!(
                failures.attempt(here, "a@example.com"),
                Attempt::Go(Duration::ZERO)
            );
            failures.failed(here, "a@example.com");
        }
        assert_eq!(
            failures.attempt(here, "A@example.com"),
            Attempt::Refused,
            "same account"
        );
        // The operator elsewhere is not locked out, only slowed.
        assert_eq!(
            failures.attempt("10.0.0.2", "a@example.com"),
            Attempt::Go(ACCOUNT_BACKOFF)
        );
        // Another account from the same address still goes.
        assert_eq!(
            failures.attempt(here, "b@example.com"),
            Attempt::Go(Duration::ZERO)
        );
    }

    #[test]
    fn a_spraying_address_is_refused_and_a_success_is_not_counted() {
        let failures = Failures::default();
        let here = "10.0.0.1";
        for n in 0..MAX_FAILURES * ADDRESS_ACCOUNTS {
            let email = format!("{}@example.com", n % ADDRESS_ACCOUNTS + 100);
            assert!(matches!(failures.attempt(here, &email), Attempt::Go(_)));
            failures.failed(here, &email);
        }
        assert_eq!(failures.attempt(here, "new@example.com"), Attempt::Refused);
        let there = "10.0.0.9";
        for _ in 0..MAX_FAILURES {
            assert!(matches!(
                failures.attempt(there, "c@example.com"),
                Attempt::Go(_)
            ));
            failures.succeeded(there, "c@example.com");
        }
        assert!(matches!(
            failures.attempt(there, "c@example.com"),
            Attempt::Go(_)
        ));
    }

    #[test]
    fn generated_passwords_are_long_and_differ() {
        let a = generate_password();
        assert_eq!(a.len(), 24);
        assert_ne!(a, generate_password());
        assert!(check_email("ops@example.com").is_ok());
        for bad in ["", "ops", "ops@local", "a b@example.com", "@example.com"] {
            assert!(check_email(bad).is_err(), "{bad}");
        }
    }
}
