//! The operator's function secrets: set with `plinth functions secrets set
//! NAME=value`, stored sealed in `plinth_functions.secrets`, given to every
//! worker as environment variables. A change is announced on
//! [`CHANGED_CHANNEL`]; the host then replaces its workers.

use chacha20poly1305::aead::{Aead, Payload};
use chacha20poly1305::{KeyInit, XChaCha20Poly1305, XNonce};
use plinth_db::JwtSecret;
use rand::RngCore;
use sha2::{Digest, Sha256};
use sqlx::PgPool;

/// `NOTIFY` channel of a change of the secrets.
pub const CHANGED_CHANNEL: &str = "plinth_functions_secrets";

/// The largest value, in bytes.
pub const MAX_VALUE_BYTES: usize = 64 * 1024;

/// Names the platform reserves (its own variables) are refused.
const RESERVED_PREFIXES: [&str; 2] = ["SUPABASE_", "SB_"];

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error(
        "{0:?} is not a secret name: letters, digits and _, not starting with a digit, at most 256"
    )]
    BadName(String),
    #[error("{0} is reserved: names starting with SUPABASE_ or SB_ are the platform's")]
    Reserved(String),
    #[error("the value of {0} is over {MAX_VALUE_BYTES} bytes")]
    TooLarge(String),
    #[error("the secret {0} cannot be opened: JWT_SECRET changed since it was set; set it again")]
    Sealed(String),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// A secret as listed: its name, the SHA-256 of its value (hex), and when it
/// was set. The value itself is never listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub name: String,
    pub digest: String,
    /// ISO 8601, UTC.
    pub updated_at: String,
}

/// Checks a name as `set` and `unset` do.
pub fn check_name(name: &str) -> Result<(), SecretError> {
    let mut chars = name.chars();
    let well_formed = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && name.len() <= 256
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !well_formed {
        return Err(SecretError::BadName(name.to_owned()));
    }
    if RESERVED_PREFIXES
        .iter()
        .any(|p| name.to_ascii_uppercase().starts_with(p))
    {
        return Err(SecretError::Reserved(name.to_owned()));
    }
    Ok(())
}

fn cipher(jwt: &JwtSecret) -> XChaCha20Poly1305 {
    XChaCha20Poly1305::new(&jwt.derive_key("plinth-functions/secrets").into())
}

/// Sets (or replaces) each `(name, value)` in one transaction and announces
/// the change.
pub async fn set(
    owner: &PgPool,
    jwt: &JwtSecret,
    pairs: &[(String, String)],
) -> Result<(), SecretError> {
    for (name, value) in pairs {
        check_name(name)?;
        if value.len() > MAX_VALUE_BYTES {
            return Err(SecretError::TooLarge(name.clone()));
        }
    }
    let cipher = cipher(jwt);
    let mut tx = owner.begin().await?;
    for (name, value) in pairs {
        let mut nonce = [0u8; 24];
        rand::rng().fill_bytes(&mut nonce);
        let sealed = cipher
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: value.as_bytes(),
                    aad: name.as_bytes(),
                },
            )
            .map_err(|_| SecretError::Sealed(name.clone()))?;
        let stored = [nonce.as_slice(), &sealed].concat();
        let digest = plinth_db::hex(&Sha256::digest(value.as_bytes()));
        sqlx::query(
            "insert into plinth_functions.secrets (name, sealed, digest) values ($1, $2, $3)
             on conflict (name) do update set sealed = excluded.sealed,
               digest = excluded.digest, updated_at = now()",
        )
        .bind(name)
        .bind(stored)
        .bind(digest)
        .execute(&mut *tx)
        .await?;
    }
    announce(&mut tx).await?;
    tx.commit().await?;
    Ok(())
}

/// Removes the named secrets; returns those that existed.
pub async fn unset(owner: &PgPool, names: &[String]) -> Result<Vec<String>, SecretError> {
    for name in names {
        check_name(name)?;
    }
    let mut tx = owner.begin().await?;
    let removed: Vec<String> = sqlx::query_scalar(
        "delete from plinth_functions.secrets where name = any($1) returning name",
    )
    .bind(names)
    .fetch_all(&mut *tx)
    .await?;
    announce(&mut tx).await?;
    tx.commit().await?;
    Ok(removed)
}

/// Tells every node, at commit, that the secrets changed.
async fn announce(tx: &mut sqlx::Transaction<'_, sqlx::Postgres>) -> Result<(), sqlx::Error> {
    sqlx::query("select pg_notify($1, '')")
        .bind(CHANGED_CHANNEL)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Every secret's name, digest and time, by name.
pub async fn list(owner: &PgPool) -> Result<Vec<Listed>, SecretError> {
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "select name, digest, to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
         from plinth_functions.secrets order by name",
    )
    .fetch_all(owner)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(name, digest, updated_at)| Listed {
            name,
            digest,
            updated_at,
        })
        .collect())
}

/// Every secret opened, for a worker's environment.
pub async fn load(owner: &PgPool, jwt: &JwtSecret) -> Result<Vec<(String, String)>, SecretError> {
    let rows: Vec<(String, Vec<u8>)> =
        sqlx::query_as("select name, sealed from plinth_functions.secrets order by name")
            .fetch_all(owner)
            .await?;
    let cipher = cipher(jwt);
    rows.into_iter()
        .map(|(name, stored)| {
            let opened = (stored.len() > 24)
                .then(|| {
                    let (nonce, sealed) = stored.split_at(24);
                    let nonce: [u8; 24] = nonce.try_into().ok()?;
                    cipher
                        .decrypt(
                            &XNonce::from(nonce),
                            Payload {
                                msg: sealed,
                                aad: name.as_bytes(),
                            },
                        )
                        .ok()
                })
                .flatten()
                .and_then(|bytes| String::from_utf8(bytes).ok());
            match opened {
                Some(value) => Ok((name, value)),
                None => Err(SecretError::Sealed(name)),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(check_name("STRIPE_KEY").is_ok());
        assert!(check_name("_x1").is_ok());
        for bad in ["", "1A", "A-B", "A B", "A=B", "Ä"] {
            assert!(
                matches!(check_name(bad), Err(SecretError::BadName(_))),
                "{bad}"
            );
        }
        for reserved in ["SUPABASE_URL", "supabase_anon_key", "SB_REGION"] {
            assert!(
                matches!(check_name(reserved), Err(SecretError::Reserved(_))),
                "{reserved}"
            );
        }
    }
}
