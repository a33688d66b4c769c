//! argon2id with OWASP's memory and time costs (m=19456 KiB, t=2) over two lanes computed in
//! parallel (p=2; RFC 9106 recommends lanes): the same memory an attacker must fill per guess,
//! half the wall time for the person signing in when a core is free (about 6 ms instead of 12).
//! Hashes made with other parameters (p=1 before) verify with their own, which they carry.
//! Hashing is CPU-bound, so it runs on the blocking pool, never on the runtime.

use std::sync::LazyLock;

use anyhow::Context;
use argon2::{Algorithm, Argon2, Params, PasswordHasher, PasswordVerifier, Version};
use tokio::sync::Semaphore;
use tracing::Instrument;

use crate::domain::Password;

pub async fn hash(password: &Password) -> anyhow::Result<String> {
    let plain = password.expose().to_owned();
    run_blocking(move || ARGON2.hash_password(plain.as_bytes()).map(|h| h.to_string()).map_err(|e| anyhow::anyhow!("argon2 hashing failed: {e}")))
        .await
}

/// Whether `plain` matches `stored`. With no stored hash (unknown account) it still does the
/// same work against a dummy hash, so response time does not reveal which e-mails exist.
pub async fn verify(plain: &str, stored: Option<&str>) -> anyhow::Result<bool> {
    let plain = plain.to_owned();
    let known = stored.is_some();
    let stored = stored.map(str::to_owned);
    run_blocking(move || {
        let hash = stored.as_deref().unwrap_or(&DUMMY_HASH);
        let ok = ARGON2.verify_password(plain.as_bytes(), hash).is_ok();
        Ok(ok && known)
    })
    .await
}

static ARGON2: LazyLock<Argon2<'static>> = LazyLock::new(|| {
    let params = Params::new(Params::DEFAULT_M_COST, Params::DEFAULT_T_COST, 2, None).expect("valid argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
});

static DUMMY_HASH: LazyLock<String> =
    LazyLock::new(|| ARGON2.hash_password(b"dummy password for unknown accounts").expect("argon2 hashes a constant").to_string());

/// At most two hashes per core run at once; the rest wait their turn. Each takes ~19 MiB, so
/// without this a burst of sign-ins could fill the blocking pool (512 threads, ~10 GiB).
static HASHING_SLOTS: LazyLock<Semaphore> = LazyLock::new(|| {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    Semaphore::new(cores * 2)
});

async fn run_blocking<T: Send + 'static>(f: impl FnOnce() -> anyhow::Result<T> + Send + 'static) -> anyhow::Result<T> {
    let _slot = HASHING_SLOTS.acquire().await.context("hashing semaphore closed")?;
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || span.in_scope(f)).in_current_span().await.context("password hashing task failed")?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_verifies_only_its_own_password() {
        let pw = Password::parse("correct horse battery").unwrap();
        let h = hash(&pw).await.unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=2$"));
        assert!(verify("correct horse battery", Some(&h)).await.unwrap());
        assert!(!verify("wrong horse battery", Some(&h)).await.unwrap());
    }

    #[tokio::test]
    async fn hashes_made_with_one_lane_still_verify() {
        let one_lane = Argon2::new(Algorithm::Argon2id, Version::V0x13, Params::new(19456, 2, 1, None).unwrap())
            .hash_password(b"correct horse battery")
            .unwrap()
            .to_string();
        assert!(verify("correct horse battery", Some(&one_lane)).await.unwrap());
        assert!(!verify("wrong horse battery", Some(&one_lane)).await.unwrap());
    }

    #[tokio::test]
    async fn unknown_accounts_never_verify() {
        assert!(!verify("dummy password for unknown accounts", None).await.unwrap());
    }
}
