//! Secrets sealed at rest. What opens an account, signs traffic or authenticates the platform to
//! someone else (a person's authenticator secret, an enterprise's OpenID client secret, a
//! webhook's signing secrets) is stored sealed with AES-256-GCM (`ring`) under a data key from
//! the environment: `DATA_ENCRYPTION_KEYS`, a versioned key ring (`v1:<base64 of 32 bytes>,v2:…`)
//! whose newest key seals and all of whose keys open. A sealed value is
//! `sealed:v<version>:<base64 of nonce, ciphertext and tag>`; its associated data names the
//! table, the column and the row, so a ciphertext copied to another row or column does not open.
//!
//! At start (`prepare`) the server proves its keys are the database's: each key seals a check
//! value once, which must open again later, and no sealed value may name a key the ring lacks; a
//! missing or wrong key stops the server with a message saying which, never a silent lockout.
//! It then seals values still in clear (written before sealing existed). `backend rekey` re-seals
//! everything under the newest key in small committed batches, so it resumes where it stopped and
//! runs beside live traffic. Every sealed column is in a shared table of `public` (`COLUMNS`):
//! tenant schemas hold none.

use std::{fmt, sync::Arc};

use anyhow::{Context, bail};
use base64::{
    Engine,
    engine::general_purpose::{STANDARD, STANDARD_NO_PAD},
};
use ring::{
    aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey},
    rand::{SecureRandom, SystemRandom},
};
use sqlx::PgPool;
use uuid::Uuid;

const PREFIX: &str = "sealed:v";
const KEY_BYTES: usize = 32;

/// A sealed column: its table, the column that names the row, and its own name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    pub table: &'static str,
    pub id: &'static str,
    pub name: &'static str,
}

/// A person's authenticator secret (TOTP).
pub const TOTP_SECRET: Column = Column { table: "user_totp", id: "user_id", name: "secret" };
/// An enterprise's OpenID client secret (empty: none set, stored as such).
pub const SSO_CLIENT_SECRET: Column = Column { table: "enterprise_sso", id: "enterprise_id", name: "client_secret" };
/// A webhook's signing secret, and the one it replaced, which signs until it expires.
pub const WEBHOOK_SECRET: Column = Column { table: "webhooks", id: "id", name: "secret" };
pub const WEBHOOK_PREVIOUS_SECRET: Column = Column { table: "webhooks", id: "id", name: "previous_secret" };
/// The value each key seals once, to prove later that it is the same key.
const KEY_CHECK: Column = Column { table: "data_key_checks", id: "version", name: "sealed" };

/// Every sealed column (`prepare` and `backend rekey` walk them).
pub const COLUMNS: [Column; 4] = [TOTP_SECRET, SSO_CLIENT_SECRET, WEBHOOK_SECRET, WEBHOOK_PREVIOUS_SECRET];

/// A value as the database holds it, sealed; only `KeyRing::open` gives the secret back, and
/// it never prints.
#[derive(Clone, PartialEq, Eq, sqlx::Type)]
#[sqlx(transparent)]
pub struct Sealed(String);

impl Sealed {
    /// Whether no secret is set (an enterprise without a client secret keeps an empty text).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The key version that sealed it; none for a value still in clear.
    fn version(&self) -> Option<u32> {
        self.0.strip_prefix(PREFIX)?.split_once(':')?.0.parse().ok()
    }
}

impl fmt::Debug for Sealed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sealed(..)")
    }
}

/// A sealed value that does not open: the key that sealed it is not in the ring, or it was
/// tampered with, or moved from another row or column.
#[derive(Debug)]
pub struct Unopened {
    column: Column,
    version: Option<u32>,
}

impl fmt::Display for Unopened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.version {
            Some(v) => {
                write!(f, "a value of {}.{} sealed with key v{v} does not open with DATA_ENCRYPTION_KEYS", self.column.table, self.column.name)
            }
            None => write!(f, "a value of {}.{} is not sealed", self.column.table, self.column.name),
        }
    }
}

impl std::error::Error for Unopened {}

impl From<Unopened> for sqlx::Error {
    fn from(err: Unopened) -> Self {
        sqlx::Error::Decode(Box::new(err))
    }
}

/// The data keys, oldest first: the newest seals, every one opens.
#[derive(Clone)]
pub struct KeyRing(Arc<Vec<(u32, [u8; KEY_BYTES])>>);

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyRing(versions {:?})", self.0.iter().map(|(v, _)| *v).collect::<Vec<_>>())
    }
}

impl KeyRing {
    /// Reads `v1:<base64 of 32 bytes>,v2:…` (whitespace around the parts is ignored).
    pub fn parse(text: &str) -> anyhow::Result<Self> {
        let mut keys: Vec<(u32, [u8; KEY_BYTES])> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (version, key) = part.split_once(':').context("each key is written v<number>:<base64 of 32 bytes>")?;
            let version: u32 = version
                .trim()
                .strip_prefix('v')
                .and_then(|v| v.parse().ok())
                .filter(|v| *v > 0)
                .with_context(|| format!("{version:?} is not a key version (v1, v2, …)"))?;
            let bytes = STANDARD.decode(key.trim()).ok().and_then(|b| <[u8; KEY_BYTES]>::try_from(b).ok());
            let Some(bytes) = bytes else { bail!("key v{version} is not the base64 of 32 bytes (e.g. `openssl rand -base64 32`)") };
            if keys.iter().any(|(v, _)| *v == version) {
                bail!("key v{version} is given twice");
            }
            keys.push((version, bytes));
        }
        if keys.is_empty() {
            bail!("no key: write v1:<base64 of 32 bytes>");
        }
        keys.sort_by_key(|(v, _)| *v);
        Ok(Self(Arc::new(keys)))
    }

    /// `DATA_ENCRYPTION_KEYS`. Required, except in development mode (`dev_mode`), where a random
    /// key stands in (a restart with another one is then refused by `prepare`: `make run` keeps
    /// one in `.run/`).
    pub fn from_env(dev_mode: bool) -> anyhow::Result<Self> {
        match std::env::var("DATA_ENCRYPTION_KEYS").ok().filter(|v| !v.trim().is_empty()) {
            Some(text) => Self::parse(&text).context("DATA_ENCRYPTION_KEYS"),
            None if dev_mode => {
                tracing::warn!("DATA_ENCRYPTION_KEYS missing; using a random key (development mode): a restart with another key is refused");
                Ok(Self::random())
            }
            None => bail!(
                "DATA_ENCRYPTION_KEYS is required: v1:<base64 of 32 random bytes> (e.g. `echo v1:$(openssl rand -base64 32)`), \
                 or set APP_ENV=development"
            ),
        }
    }

    /// One random key, v1 (development mode without `DATA_ENCRYPTION_KEYS`, and the tests).
    pub fn random() -> Self {
        let mut key = [0u8; KEY_BYTES];
        SystemRandom::new().fill(&mut key).expect("the system's random numbers");
        Self(Arc::new(vec![(1, key)]))
    }

    /// The version of the key that seals.
    pub fn newest(&self) -> u32 {
        self.0.last().expect("a ring has a key").0
    }

    fn key(&self, version: u32) -> Option<LessSafeKey> {
        let (_, bytes) = self.0.iter().find(|(v, _)| *v == version)?;
        Some(LessSafeKey::new(UnboundKey::new(&AES_256_GCM, bytes).expect("a 32-byte key")))
    }

    /// Seals `plain` for `row` of `column` with the newest key.
    pub fn seal(&self, column: Column, row: &str, plain: &str) -> Sealed {
        let version = self.newest();
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new().fill(&mut nonce).expect("the system's random numbers");
        let mut data = plain.as_bytes().to_vec();
        self.key(version)
            .expect("the newest key")
            .seal_in_place_append_tag(Nonce::assume_unique_for_key(nonce), Aad::from(associated(column, row)), &mut data)
            .expect("AES-GCM seals any text this short");
        let mut out = nonce.to_vec();
        out.extend(data);
        Sealed(format!("{PREFIX}{version}:{}", STANDARD_NO_PAD.encode(out)))
    }

    /// Opens what `seal` made for the same row and column.
    pub fn open(&self, column: Column, row: &str, sealed: &Sealed) -> Result<String, Unopened> {
        let version = sealed.version();
        let unopened = Unopened { column, version };
        let (Some(version), Some((_, body))) = (version, sealed.0.strip_prefix(PREFIX).and_then(|rest| rest.split_once(':'))) else {
            return Err(unopened);
        };
        let Some(key) = self.key(version) else { return Err(unopened) };
        let Some(mut data) = STANDARD_NO_PAD.decode(body).ok().filter(|d| d.len() >= NONCE_LEN) else { return Err(unopened) };
        let mut body = data.split_off(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(&data).map_err(|_| Unopened { column, version: Some(version) })?;
        let plain =
            key.open_in_place(nonce, Aad::from(associated(column, row)), &mut body).map_err(|_| Unopened { column, version: Some(version) })?;
        String::from_utf8(plain.to_vec()).map_err(|_| Unopened { column, version: Some(version) })
    }

    /// `open`, for a row named by a uuid.
    pub fn open_for(&self, column: Column, row: Uuid, sealed: &Sealed) -> Result<String, Unopened> {
        self.open(column, &row.to_string(), sealed)
    }

    /// `seal`, for a row named by a uuid.
    pub fn seal_for(&self, column: Column, row: Uuid, plain: &str) -> Sealed {
        self.seal(column, &row.to_string(), plain)
    }
}

fn associated(column: Column, row: &str) -> Vec<u8> {
    format!("enterprise-platform/{}.{}/{row}", column.table, column.name).into_bytes()
}

/// At start: proves the ring is the database's (each key's check value opens; no value is sealed
/// with a key the ring lacks), then seals what is still in clear. Refuses (an error saying what to
/// do) rather than start with keys that would lock people out.
pub async fn prepare(pool: &PgPool, keys: &KeyRing) -> anyhow::Result<()> {
    for (version, _) in keys.0.iter() {
        let row = version.to_string();
        let check: Option<Sealed> = sqlx::query_scalar("select sealed from public.data_key_checks where version = $1")
            .bind(i32::try_from(*version)?)
            .fetch_optional(pool)
            .await?;
        match check {
            Some(sealed) => {
                if keys.open(KEY_CHECK, &row, &sealed).is_err() {
                    bail!(
                        "DATA_ENCRYPTION_KEYS: key v{version} is not the key v{version} this database's secrets were sealed with; \
                         give the server its original key (the secrets cannot be read without it)"
                    );
                }
            }
            None => {
                let ring = KeyRing(Arc::new(vec![*keys.0.iter().find(|(v, _)| v == version).expect("in the ring")]));
                sqlx::query("insert into public.data_key_checks (version, sealed) values ($1, $2) on conflict (version) do nothing")
                    .bind(i32::try_from(*version)?)
                    .bind(ring.seal(KEY_CHECK, &row, "enterprise-platform"))
                    .execute(pool)
                    .await?;
            }
        }
    }
    for column in COLUMNS {
        let versions: Vec<i32> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "select distinct substring({name} from '^sealed:v([0-9]+):')::int from public.{table} where {name} like 'sealed:v%'",
            name = column.name,
            table = column.table
        )))
        .fetch_all(pool)
        .await?;
        for version in versions {
            if u32::try_from(version).ok().and_then(|v| keys.key(v)).is_none() {
                bail!(
                    "DATA_ENCRYPTION_KEYS lacks key v{version}, which sealed secrets of {}.{}: add it back \
                     (a key can leave the ring only after `backend rekey` has re-sealed everything with a newer one)",
                    column.table,
                    column.name
                );
            }
        }
    }
    let sealed = reseal(pool, keys, Reseal::Clear).await?;
    if sealed > 0 {
        tracing::info!(sealed, "secrets stored in clear were sealed");
    }
    Ok(())
}

/// What `reseal` takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reseal {
    /// Values still in clear.
    Clear,
    /// Every value not sealed with the newest key (`backend rekey`).
    NotNewest,
}

/// The most rows one transaction re-seals.
const BATCH: i64 = 200;

/// Seals values in clear, or re-seals every value not sealed with the newest key, column by column
/// in committed batches of at most 200 rows (locked while they change, so a concurrent write is
/// never lost). Returns how many values it wrote.
pub async fn reseal(pool: &PgPool, keys: &KeyRing, which: Reseal) -> anyhow::Result<u64> {
    let newest = format!("{PREFIX}{}:%", keys.newest());
    let mut done = 0;
    for column in COLUMNS {
        let wanted = match which {
            Reseal::Clear => format!("{name} not like 'sealed:v%'", name = column.name),
            Reseal::NotNewest => format!("{name} not like $1", name = column.name),
        };
        let select = format!(
            "select {id}::text, {name} from public.{table} where {name} is not null and {name} <> '' and {wanted} \
             order by {id} limit {BATCH} for update",
            id = column.id,
            name = column.name,
            table = column.table
        );
        let update = format!("update public.{table} set {name} = $1 where {id} = $2::uuid", table = column.table, name = column.name, id = column.id);
        loop {
            let mut tx = pool.begin().await?;
            let mut query = sqlx::query_as::<_, (String, Sealed)>(sqlx::AssertSqlSafe(select.clone()));
            if which == Reseal::NotNewest {
                query = query.bind(&newest);
            }
            let rows = query.fetch_all(&mut *tx).await?;
            if rows.is_empty() {
                break;
            }
            for (row, value) in &rows {
                let plain = match value.version() {
                    Some(_) => keys.open(column, row, value)?,
                    None => value.0.clone(),
                };
                sqlx::query(sqlx::AssertSqlSafe(update.clone())).bind(keys.seal(column, row, &plain)).bind(row).execute(&mut *tx).await?;
            }
            tx.commit().await?;
            done += rows.len() as u64;
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    const K1: &str = "v1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
    const K2: &str = "v2:ICEiIyQlJicoKSorLC0uLzAxMjM0NTY3ODk6Ozw9Pj8=";

    #[test]
    fn the_newest_key_seals_every_key_opens_and_a_value_opens_only_where_it_was_sealed() {
        let old = KeyRing::parse(K1).unwrap();
        let both = KeyRing::parse(&format!("{K2}, {K1}")).unwrap();
        assert_eq!(both.newest(), 2);
        let sealed = old.seal(WEBHOOK_SECRET, "a", "whsec_x");
        assert!(sealed.0.starts_with("sealed:v1:"), "{}", sealed.0);
        assert!(!sealed.0.contains("whsec_x"));
        assert_eq!(both.open(WEBHOOK_SECRET, "a", &sealed).unwrap(), "whsec_x");
        let resealed = both.seal(WEBHOOK_SECRET, "a", "whsec_x");
        assert!(resealed.0.starts_with("sealed:v2:"));
        assert_ne!(both.seal(WEBHOOK_SECRET, "a", "whsec_x"), resealed, "a new nonce each time");
        // Another row, another column, a ring without the key, a changed byte: none opens.
        assert!(both.open(WEBHOOK_SECRET, "b", &sealed).is_err());
        assert!(both.open(WEBHOOK_PREVIOUS_SECRET, "a", &sealed).is_err());
        assert!(old.open(WEBHOOK_SECRET, "a", &resealed).is_err());
        let mut tampered = sealed.0.clone().into_bytes();
        let last = tampered.len() - 2;
        tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
        assert!(both.open(WEBHOOK_SECRET, "a", &Sealed(String::from_utf8(tampered).unwrap())).is_err());
        assert!(both.open(WEBHOOK_SECRET, "a", &Sealed("whsec_x".into())).is_err(), "clear text is not a sealed value");
    }

    #[test]
    fn a_key_ring_is_versioned_base64_keys_of_32_bytes() {
        for refused in ["", "v1", "1:AAAA", "v0:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "v1:AAEC", &format!("{K1},{K1}")] {
            assert!(KeyRing::parse(refused).is_err(), "{refused}");
        }
        assert!(format!("{:?}", KeyRing::parse(K1).unwrap()).contains("[1]"), "Debug names versions, never keys");
        assert_eq!(format!("{:?}", Sealed("sealed:v1:abc".into())), "Sealed(..)");
    }
}
