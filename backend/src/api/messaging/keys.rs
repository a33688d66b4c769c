//! Public keys by version, their encrypted backup, and the people one can write to.

use super::*;

/// One version of a user's public keys (base64 of uncompressed P-256 points).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct PublicKeys {
    pub user_id: Uuid,
    pub key_version: i32,
    /// HPKE key agreement (DHKEM P-256).
    pub agreement_key: String,
    /// ECDSA P-256 signatures.
    pub signing_key: String,
    pub created_at: DateTime<Utc>,
}

impl From<db::KeysRecord> for PublicKeys {
    fn from(k: db::KeysRecord) -> Self {
        Self {
            user_id: k.user_id,
            key_version: k.version,
            agreement_key: B64.encode(k.agreement_key),
            signing_key: B64.encode(k.signing_key),
            created_at: k.created_at,
        }
    }
}

/// The caller's new public keys.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RegisterKeys {
    /// Base64 of the uncompressed P-256 point (65 bytes) for HPKE.
    pub agreement_key: String,
    /// Base64 of the uncompressed P-256 point (65 bytes) for ECDSA.
    pub signing_key: String,
    /// The version these keys must get (the caller's newest plus one); 409 `stale_key_version`
    /// otherwise. Omitted: the next one.
    pub key_version: Option<i32>,
}

/// The caller's private keys, encrypted in their browser under a key derived from a passphrase
/// (PBKDF2-SHA-256 with `iterations` and `salt`, then AES-256-GCM with `iv`). Base64 fields.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct KeyBackup {
    pub salt: String,
    pub iterations: i32,
    pub iv: String,
    pub ciphertext: String,
    #[oai(read_only)]
    pub updated_at: Option<DateTime<Utc>>,
}

impl From<db::BackupRecord> for KeyBackup {
    fn from(b: db::BackupRecord) -> Self {
        Self {
            salt: B64.encode(b.salt),
            iterations: b.iterations,
            iv: B64.encode(b.iv),
            ciphertext: B64.encode(b.ciphertext),
            updated_at: Some(b.updated_at),
        }
    }
}

/// What the caller's messenger holds on the server: their newest public keys and their key
/// backup, each null until made. A browser reads it first to know whether to make keys, restore
/// or go on.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MessagingSetup {
    #[oai(nullable)]
    pub keys: Option<PublicKeys>,
    #[oai(nullable)]
    pub backup: Option<KeyBackup>,
}

/// Someone the caller may write to.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Correspondent {
    pub id: Uuid,
    pub full_name: String,
    pub email: String,
    pub role: Role,
    #[oai(nullable)]
    pub department_id: Option<Uuid>,
    /// Their newest key version; null until they open the messenger once (they cannot be
    /// added to a conversation's keys before).
    #[oai(nullable)]
    pub key_version: Option<i32>,
}

#[derive(Debug, ApiResponse)]
pub enum KeysCreated {
    /// Registered.
    #[oai(status = 201)]
    Created(Json<PublicKeys>),
}

#[derive(Default)]
pub struct MessagingKeysApi;

#[OpenApi(prefix_path = "/messaging", tag = "ApiTags::Messaging")]
impl MessagingKeysApi {
    /// Register my public keys
    ///
    /// Adds the next version of the caller's public keys (a browser without the earlier private
    /// keys makes new ones). Older versions stay readable for verifying older messages.
    #[oai(path = "/keys", method = "post", operation_id = "registerMessagingKeys")]
    async fn register_keys(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<RegisterKeys>) -> Result<KeysCreated, MessagingError> {
        auth.0.require("registerMessagingKeys")?;
        let mut errors = FieldErrors::new();
        let agreement = point(&mut errors, "agreementKey", &body.agreement_key);
        let signing = point(&mut errors, "signingKey", &body.signing_key);
        errors.into_result()?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let keys = match db::add_keys(&mut tx, auth.0.user_id, body.key_version, &agreement, &signing).await? {
            db::AddedKeys::Added(keys) => keys,
            db::AddedKeys::StaleVersion => return Err(AppError::Conflict(Conflict::StaleKeyVersion).into()),
            db::AddedKeys::TooMany => return Err(AppError::Conflict(Conflict::TooManyKeys).into()),
        };
        tx.commit().await?;
        Ok(KeysCreated::Created(Json(keys.into())))
    }

    /// A user's public keys
    ///
    /// Their newest keys, or those of `version`. 404 for someone outside the caller's realm or
    /// without keys.
    #[oai(path = "/keys/:userId", method = "get", operation_id = "getMessagingKeys")]
    async fn keys(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(name = "userId")] user_id: Path<Uuid>,
        #[oai(validator(minimum(value = "1")))] version: Query<Option<i32>>,
    ) -> Result<Json<PublicKeys>, MessagingError> {
        auth.0.require("getMessagingKeys")?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        // Keys of a deleted user are gone with them; a user of another realm has none here.
        if !db::in_realm(&mut tx, auth.0.enterprise_id, user_id.0).await? {
            return Err(AppError::NotFound.into());
        }
        let keys = db::keys(&mut tx, user_id.0, version.0).await?.ok_or(AppError::NotFound)?;
        Ok(Json(keys.into()))
    }

    /// My messenger's state
    ///
    /// The caller's newest public keys and key backup, each null when there is none yet: the
    /// first call of a browser opening the messenger (an absence here is expected, not a 404).
    #[oai(path = "/setup", method = "get", operation_id = "getMessagingSetup")]
    async fn setup(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<MessagingSetup>, MessagingError> {
        auth.0.require("getMessagingSetup")?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let keys = db::keys(&mut tx, auth.0.user_id, None).await?.map(PublicKeys::from);
        let backup = db::backup(&mut tx, auth.0.user_id).await?.map(KeyBackup::from);
        Ok(Json(MessagingSetup { keys, backup }))
    }

    /// My key backup
    ///
    /// The caller's encrypted private keys, for a new browser to restore. 404 when none.
    #[oai(path = "/backup", method = "get", operation_id = "getMessagingBackup")]
    async fn backup(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<KeyBackup>, MessagingError> {
        auth.0.require("getMessagingBackup")?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let backup = db::backup(&mut tx, auth.0.user_id).await?.ok_or(AppError::NotFound)?;
        Ok(Json(backup.into()))
    }

    /// Save my key backup
    ///
    /// Replaces the caller's backup. At least 600,000 PBKDF2 iterations, a 16 to 64-byte salt, a
    /// 12-byte IV and at most 256 KiB of ciphertext.
    #[oai(path = "/backup", method = "put", operation_id = "putMessagingBackup")]
    async fn put_backup(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<KeyBackup>) -> Result<Json<KeyBackup>, MessagingError> {
        auth.0.require("putMessagingBackup")?;
        let mut errors = FieldErrors::new();
        let salt = bytes(&mut errors, "salt", &body.salt, |n| (16..=64).contains(&n));
        let iv = bytes(&mut errors, "iv", &body.iv, |n| n == IV_BYTES);
        let ciphertext = bytes(&mut errors, "ciphertext", &body.ciphertext, |n| (17..=MAX_BACKUP_BYTES).contains(&n));
        errors.check("iterations", if (MIN_BACKUP_ITERATIONS..=10_000_000).contains(&body.iterations) { Ok(()) } else { Err(FieldIssue::Invalid) });
        errors.into_result()?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let b = db::put_backup(&mut tx, auth.0.user_id, db::NewBackup { salt: &salt, iterations: body.iterations, iv: &iv, ciphertext: &ciphertext })
            .await?;
        tx.commit().await?;
        Ok(Json(KeyBackup { updated_at: Some(b.updated_at), ..body.0 }))
    }

    /// Whom I may message
    ///
    /// Active users of the caller's enterprise (the platform admins: each other), by name;
    /// `q` searches names and e-mails.
    #[oai(path = "/users", method = "get", operation_id = "listMessagingUsers")]
    async fn users(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        #[oai(validator(max_length = 200))] q: Query<Option<String>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<Correspondent>>, MessagingError> {
        auth.0.require("listMessagingUsers")?;
        let paging = paging(page.0, page_size.0);
        let q = q.0.as_deref().map(str::trim).filter(|q| !q.is_empty());
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let (rows, total) = db::correspondents(&mut tx, auth.0.enterprise_id, auth.0.user_id, q, paging).await?;
        let items = rows
            .into_iter()
            .map(|r| Correspondent {
                id: r.id,
                full_name: r.full_name,
                email: r.email,
                role: r.role.parse().unwrap_or(Role::DepartmentUser),
                department_id: r.department_id,
                key_version: r.key_version,
            })
            .collect();
        Ok(Json(Page::new(items, total, paging)))
    }
}
