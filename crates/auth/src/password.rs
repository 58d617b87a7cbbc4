//! Password hashing and strength rules.
//!
//! New hashes are argon2id PHC strings. Hashes imported from the platform
//! (or written by seed SQL with `crypt(password, gen_salt('bf'))`) are
//! bcrypt; they verify here and are replaced by argon2id after a successful
//! sign-in. Hashing is CPU-heavy, so it runs on the blocking thread pool.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::RngCore;

use crate::config::HashCost;
use crate::error::{AuthError, Result};

/// What a stored hash says about a password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Wrong password, or no usable hash.
    Mismatch,
    /// Right password, hash is current.
    Match,
    /// Right password, but the hash is of an old kind (bcrypt) or cost and
    /// should be replaced.
    MatchNeedsRehash,
}

fn hasher(cost: HashCost) -> Result<Argon2<'static>> {
    let params = Params::new(cost.memory_kib, cost.iterations, cost.parallelism, None)
        .map_err(AuthError::internal)?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// An argon2id PHC string for `password` (blocking; see [`hash`]).
pub fn hash_blocking(password: &str, cost: HashCost) -> Result<String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(AuthError::internal)?;
    hasher(cost)?
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(AuthError::internal)
}

/// Checks `password` against a stored hash (blocking; see [`verify`]).
pub fn verify_blocking(password: &str, stored: &str, cost: HashCost) -> Verdict {
    if stored.starts_with("$argon2") {
        let Ok(parsed) = PasswordHash::new(stored) else {
            return Verdict::Mismatch;
        };
        // Verification uses the parameters inside the hash.
        if Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_err()
        {
            return Verdict::Mismatch;
        }
        let current = Params::try_from(&parsed).is_ok_and(|p| {
            p.m_cost() == cost.memory_kib
                && p.t_cost() == cost.iterations
                && p.p_cost() == cost.parallelism
        });
        if current && parsed.algorithm.as_str() == "argon2id" {
            Verdict::Match
        } else {
            Verdict::MatchNeedsRehash
        }
    } else if stored.starts_with("$2") {
        match bcrypt::verify(password, stored) {
            Ok(true) => Verdict::MatchNeedsRehash,
            _ => Verdict::Mismatch,
        }
    } else {
        Verdict::Mismatch
    }
}

/// [`hash_blocking`] on the blocking pool.
pub async fn hash(password: String, cost: HashCost) -> Result<String> {
    tokio::task::spawn_blocking(move || hash_blocking(&password, cost))
        .await
        .map_err(AuthError::internal)?
}

/// [`verify_blocking`] on the blocking pool. `stored = None` still spends
/// the time of one hash, so unknown accounts answer as slowly as known ones.
pub async fn verify(password: String, stored: Option<String>, cost: HashCost) -> Result<Verdict> {
    tokio::task::spawn_blocking(move || match stored {
        Some(stored) => verify_blocking(&password, &stored, cost),
        None => {
            let _ = hash_blocking(&password, cost);
            Verdict::Mismatch
        }
    })
    .await
    .map_err(AuthError::internal)
}

/// Refuses passwords shorter than `min_length` characters (422
/// `weak_password`, reason `length`).
pub fn check_strength(password: &str, min_length: usize) -> Result<()> {
    if password.chars().count() < min_length {
        return Err(AuthError::WeakPassword {
            message: format!("Password should be at least {min_length} characters."),
            reasons: vec!["length"],
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argon2id_round_trip() {
        let cost = HashCost::cheap();
        let hash = hash_blocking("correct horse", cost).unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert_eq!(
            verify_blocking("correct horse", &hash, cost),
            Verdict::Match
        );
        assert_eq!(verify_blocking("wrong", &hash, cost), Verdict::Mismatch);
        // Stronger configured cost: still verifies, asks for a rehash.
        let stronger = HashCost {
            memory_kib: 128,
            ..cost
        };
        assert_eq!(
            verify_blocking("correct horse", &hash, stronger),
            Verdict::MatchNeedsRehash
        );
    }

    #[test]
    fn bcrypt_hashes_verify_and_ask_for_rehash() {
        let hash = bcrypt::hash("imported", 4).unwrap();
        let cost = HashCost::cheap();
        assert_eq!(
            verify_blocking("imported", &hash, cost),
            Verdict::MatchNeedsRehash
        );
        assert_eq!(verify_blocking("other", &hash, cost), Verdict::Mismatch);
        // pgcrypto writes `$2a$`.
        let pg = hash.replacen("$2b$", "$2a$", 1);
        assert_eq!(
            verify_blocking("imported", &pg, cost),
            Verdict::MatchNeedsRehash
        );
    }

    #[test]
    fn garbage_hashes_never_match() {
        let cost = HashCost::cheap();
        for stored in ["", "plain", "$argon2id$broken", "$2a$zz"] {
            assert_eq!(
                verify_blocking("x", stored, cost),
                Verdict::Mismatch,
                "{stored}"
            );
        }
    }

    #[test]
    fn strength_counts_characters() {
        assert!(check_strength("12345", 6).is_err());
        assert!(check_strength("123456", 6).is_ok());
        assert!(check_strength("ääääää", 6).is_ok());
    }
}
