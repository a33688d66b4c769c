//! The encrypted messenger: public keys and their backup, conversations (direct and group), key
//! epochs, messages and read marks, in the caller's realm (their enterprise, or the platform
//! admins'). The server stores what browsers encrypted and checks who may see what; it never
//! holds a plaintext or a private key (docs/messenger-crypto.md). Every id outside the caller's
//! conversations, or of another realm, is 404.

use base64::{Engine, engine::general_purpose::STANDARD as B64};
use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Path, Query},
    payload::Json,
};
use uuid::Uuid;

use super::{
    ApiTags,
    types::{Page, UserSummary, paging},
};
use crate::{
    api_errors,
    auth::{BearerAuth, Caller},
    domain::{FieldErrors, FieldIssue, Role},
    error::{AppError, Conflict},
    realtime::{Audience, Event},
    state::AppState,
    store::messaging as db,
    tenancy::{self, SchemaName},
};

/// Most members a group may have, its creator included.
pub const MAX_GROUP_MEMBERS: usize = 100;
/// Longest message ciphertext: 64 KiB of text and the 16-byte tag.
pub const MAX_CIPHERTEXT_BYTES: usize = 64 * 1024 + 16;
/// Longest key backup ciphertext.
pub const MAX_BACKUP_BYTES: usize = 256 * 1024;
/// Fewest PBKDF2-SHA-256 iterations a backup may claim (OWASP 2023).
pub const MIN_BACKUP_ITERATIONS: i32 = 600_000;
/// A key epoch ends after this many messages...
pub const EPOCH_MAX_MESSAGES: i32 = 100;
/// ...or this many days.
pub const EPOCH_MAX_DAYS: i64 = 7;
/// Messages per page of a timeline: default and most.
pub const MESSAGES_PER_PAGE: u32 = 50;
pub const MAX_MESSAGES_PER_PAGE: u32 = 100;

/// A P-256 public point, uncompressed (65 bytes, starting 0x04).
const POINT_BYTES: usize = 65;
/// An AES-GCM nonce.
const IV_BYTES: usize = 12;
/// An ECDSA P-256 signature as WebCrypto writes it (r || s).
const SIGNATURE_BYTES: usize = 64;
/// An HPKE-wrapped 32-byte key: `enc` (a P-256 point) then 32 bytes sealed with a 16-byte tag.
const WRAPPED_KEY_BYTES: usize = POINT_BYTES + 32 + 16;

#[derive(Default)]
pub struct MessagingApi;

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

/// How far a member has read.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReadMark {
    pub user_id: Uuid,
    pub message_id: Uuid,
    pub read_at: DateTime<Utc>,
}

/// A conversation as the caller sees it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Conversation {
    pub id: Uuid,
    /// `direct` or `group`.
    pub kind: String,
    /// A group's name; null for a direct conversation.
    #[oai(nullable)]
    pub name: Option<String>,
    pub members: Vec<UserSummary>,
    /// Archived by the caller (each member archives for themselves).
    pub archived: bool,
    /// Messages from others the caller has not read.
    pub unread_count: i64,
    #[oai(nullable)]
    pub last_message_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    #[oai(nullable)]
    pub created_by: Option<Uuid>,
    /// The key epoch messages use now; 0 before the first key.
    pub epoch: i32,
    /// A new epoch must be started before the next message (no key yet, a member joined or
    /// left or has new keys (a new browser), or the epoch is 100 messages or 7 days old).
    pub rekey_required: bool,
    /// Each member's read position (members who have read nothing are absent).
    pub read_marks: Vec<ReadMark>,
}

fn conversation(c: db::ConversationRecord, members: &[db::MemberRecord]) -> Conversation {
    let own: Vec<&db::MemberRecord> = members.iter().filter(|m| m.conversation_id == c.id).collect();
    let stale = c.epoch == 0
        || c.epoch_messages >= EPOCH_MAX_MESSAGES
        || c.epoch_started_at.is_some_and(|t| Utc::now() - t >= chrono::Duration::days(EPOCH_MAX_DAYS));
    Conversation {
        id: c.id,
        kind: c.kind,
        name: c.name,
        members: own.iter().map(|m| UserSummary::from_columns(m.user_id, m.full_name.clone(), m.email.clone(), m.role.clone())).collect(),
        archived: c.archived,
        unread_count: c.unread_count,
        last_message_at: c.last_message_at,
        created_at: c.created_at,
        created_by: c.created_by,
        epoch: c.epoch,
        rekey_required: c.rekey_required || c.keys_changed || stale,
        read_marks: own
            .iter()
            .filter_map(|m| Some(ReadMark { user_id: m.user_id, message_id: m.last_read_message_id?, read_at: m.last_read_at? }))
            .collect(),
    }
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreateConversation {
    /// The other person: an active user of the caller's realm.
    pub participant_id: Uuid,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CreateGroupChat {
    /// 1 to 100 characters.
    pub name: String,
    /// The other members (the caller is added): active users of the caller's realm, at most 99.
    pub participant_ids: Vec<Uuid>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UpdateConversation {
    /// The group's new name, 1 to 100 characters.
    pub name: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AddMembers {
    pub user_ids: Vec<Uuid>,
}

/// One member's copy of an epoch key.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct WrappedKey {
    pub user_id: Uuid,
    /// The member's key version it is wrapped for: their newest.
    pub key_version: i32,
    /// Base64 of HPKE `enc` (65 bytes) followed by the sealed 32-byte key (48 bytes).
    pub wrapped_key: String,
}

/// A new key epoch: the next number, and one wrapped key for every member.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct NewEpoch {
    pub epoch: i32,
    /// The caller's key version whose agreement key authenticated the wrapping (HPKE auth mode).
    pub creator_key_version: i32,
    pub keys: Vec<WrappedKey>,
}

/// An epoch key wrapped for the caller.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ConversationKey {
    pub epoch: i32,
    pub key_version: i32,
    pub wrapped_key: String,
    #[oai(nullable)]
    pub created_by: Option<Uuid>,
    pub creator_key_version: i32,
    pub created_at: DateTime<Utc>,
}

/// A message to send, encrypted and signed in the browser.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SendMessage {
    /// Chosen by the sender (it is bound into the encryption); sending the same message again
    /// with the same id returns it instead of a copy.
    pub id: Uuid,
    pub conversation_id: Uuid,
    /// The conversation's current epoch.
    pub epoch: i32,
    /// The sender's key version whose signing key signed it.
    pub sender_key_version: i32,
    /// Base64, 12 bytes.
    pub iv: String,
    /// Base64 of the AES-256-GCM ciphertext with its tag, at most 64 KiB + 16 bytes.
    pub ciphertext: String,
    /// Base64 of the ECDSA P-256 signature (64 bytes).
    pub signature: String,
}

/// A message, or a line the server wrote in the timeline (`kind` other than `message`: a member
/// added, removed or gone, or the group renamed; no ciphertext).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Message {
    pub id: Uuid,
    pub conversation_id: Uuid,
    /// `message`, `member_added`, `member_removed`, `member_left` or `renamed`.
    pub kind: String,
    /// The author, or who added, removed or renamed.
    #[oai(nullable)]
    pub sender_id: Option<Uuid>,
    /// Whom a membership line is about.
    #[oai(nullable)]
    pub subject_id: Option<Uuid>,
    #[oai(nullable)]
    pub epoch: Option<i32>,
    #[oai(nullable)]
    pub sender_key_version: Option<i32>,
    #[oai(nullable)]
    pub iv: Option<String>,
    #[oai(nullable)]
    pub ciphertext: Option<String>,
    #[oai(nullable)]
    pub signature: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl From<db::MessageRecord> for Message {
    fn from(m: db::MessageRecord) -> Self {
        Self {
            id: m.id,
            conversation_id: m.conversation_id,
            kind: m.kind,
            sender_id: m.sender_id,
            subject_id: m.subject_id,
            epoch: m.epoch,
            sender_key_version: m.sender_key_version,
            iv: m.iv.map(|b| B64.encode(b)),
            ciphertext: m.ciphertext.map(|b| B64.encode(b)),
            signature: m.signature.map(|b| B64.encode(b)),
            created_at: m.created_at,
        }
    }
}

/// Messages before a point, oldest first, and whether older ones exist.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MessagePage {
    pub items: Vec<Message>,
    pub has_more: bool,
}

/// The caller's unread messages over every conversation they have not archived.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UnreadTotal {
    pub unread: i64,
}

#[derive(Debug, ApiResponse)]
pub enum KeysCreated {
    /// Registered.
    #[oai(status = 201)]
    Created(Json<PublicKeys>),
}

#[derive(Debug, ApiResponse)]
pub enum ConversationOpened {
    /// The conversation already existed.
    #[oai(status = 200)]
    Existing(Json<Conversation>),
    /// Made.
    #[oai(status = 201)]
    Created(Json<Conversation>),
}

#[derive(Debug, ApiResponse)]
pub enum MessageSent {
    /// The same message was already stored (a retry).
    #[oai(status = 200)]
    Existing(Json<Message>),
    /// Stored and announced to the members.
    #[oai(status = 201)]
    Created(Json<Message>),
}

#[derive(Debug, ApiResponse)]
pub enum Done {
    /// Done.
    #[oai(status = 204)]
    Done,
}

api_errors!(MessagingError {
    /// A field is invalid (`validation_failed`).
    400 BadRequest,
    /// No token, or its session has ended.
    401 Unauthorized,
    /// Not allowed in this conversation (`forbidden`).
    403 Forbidden,
    /// No such user, conversation or message for this caller.
    404 NotFound,
    /// The state changed, or a new key epoch is needed (`conflict` with a `reason`).
    409 Conflict,
});

/// The schema of the caller's messages: their enterprise's, or the platform admins'.
fn realm(caller: &Caller) -> SchemaName {
    caller.enterprise_id.map_or_else(SchemaName::platform, SchemaName::for_enterprise)
}

fn bytes(errors: &mut FieldErrors, field: &str, value: &str, ok: impl Fn(usize) -> bool) -> Vec<u8> {
    let decoded = B64.decode(value.as_bytes()).ok().filter(|b| ok(b.len()));
    errors.check(field, decoded.ok_or(FieldIssue::Invalid)).unwrap_or_default()
}

fn point(errors: &mut FieldErrors, field: &str, value: &str) -> Vec<u8> {
    let decoded = B64.decode(value.as_bytes()).ok().filter(|b| b.len() == POINT_BYTES && b[0] == 4);
    errors.check(field, decoded.ok_or(FieldIssue::Invalid)).unwrap_or_default()
}

fn group_name(errors: &mut FieldErrors, name: &str) -> String {
    let name = name.trim();
    let checked = match name.chars().count() {
        0 => Err(FieldIssue::Required),
        1..=100 => Ok(name.to_owned()),
        _ => Err(FieldIssue::TooLong),
    };
    errors.check("name", checked).unwrap_or_default()
}

/// Everyone named is an active user of the caller's realm (anyone else is 404), held so none is
/// deleted meanwhile.
async fn realm_users(tx: &mut sqlx::PgConnection, caller: &Caller, ids: &[Uuid]) -> Result<(), AppError> {
    let found = db::active_in_realm(tx, caller.enterprise_id, ids).await?;
    if found.len() != ids.len() || db::hold_users(tx, ids).await? != ids.len() {
        return Err(AppError::NotFound);
    }
    Ok(())
}

/// The conversation as the caller sees it, with its members.
async fn load(tx: &mut sqlx::PgConnection, id: Uuid, me: Uuid) -> Result<Conversation, AppError> {
    let c = db::conversation(tx, id, me, false).await?.ok_or(AppError::NotFound)?;
    let members = db::members(tx, &[id]).await?;
    Ok(conversation(c, &members))
}

fn to_members(caller: &Caller, users: Vec<Uuid>) -> Audience {
    Audience::Users { enterprise: caller.enterprise_id, users }
}

#[OpenApi(prefix_path = "/messaging", tag = "ApiTags::Messaging")]
impl MessagingApi {
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

    /// My key backup
    ///
    /// The caller's encrypted private keys, for a new browser to restore. 404 when none.
    #[oai(path = "/backup", method = "get", operation_id = "getMessagingBackup")]
    async fn backup(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<KeyBackup>, MessagingError> {
        auth.0.require("getMessagingBackup")?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let b = db::backup(&mut tx, auth.0.user_id).await?.ok_or(AppError::NotFound)?;
        Ok(Json(KeyBackup {
            salt: B64.encode(b.salt),
            iterations: b.iterations,
            iv: B64.encode(b.iv),
            ciphertext: B64.encode(b.ciphertext),
            updated_at: Some(b.updated_at),
        }))
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

    /// Open a direct conversation
    ///
    /// With another user of the caller's realm: the existing one (200) or a new one (201).
    #[oai(path = "/conversations", method = "post", operation_id = "createConversation")]
    async fn create_direct(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        body: Json<CreateConversation>,
    ) -> Result<ConversationOpened, MessagingError> {
        auth.0.require("createConversation")?;
        let me = auth.0.user_id;
        if body.participant_id == me {
            let mut errors = FieldErrors::new();
            errors.check::<()>("participantId", Err(FieldIssue::Invalid));
            return Err(AppError::Validation(errors).into());
        }
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        realm_users(&mut tx, &auth.0, &[body.participant_id]).await?;
        let (id, created) = db::direct(&mut tx, me, body.participant_id).await?;
        let c = load(&mut tx, id, me).await?;
        tx.commit().await?;
        if created {
            state.realtime.publish(to_members(&auth.0, vec![me, body.participant_id]), Event::ConversationChanged { conversation_id: id }).await;
            Ok(ConversationOpened::Created(Json(c)))
        } else {
            Ok(ConversationOpened::Existing(Json(c)))
        }
    }

    /// Start a group chat
    ///
    /// The caller and 1 to 99 others of their realm.
    #[oai(path = "/group-chats", method = "post", operation_id = "createGroupChat")]
    async fn create_group(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        body: Json<CreateGroupChat>,
    ) -> Result<ConversationOpened, MessagingError> {
        auth.0.require("createGroupChat")?;
        let me = auth.0.user_id;
        let mut errors = FieldErrors::new();
        let name = group_name(&mut errors, &body.name);
        let mut others: Vec<Uuid> = body.participant_ids.iter().copied().filter(|id| *id != me).collect();
        others.sort();
        others.dedup();
        let count = match others.len() {
            0 => Err(FieldIssue::Required),
            n if n < MAX_GROUP_MEMBERS => Ok(()),
            _ => Err(FieldIssue::TooLong),
        };
        errors.check("participantIds", count);
        errors.into_result()?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        realm_users(&mut tx, &auth.0, &others).await?;
        let id = db::create_group(&mut tx, me, &name, &others).await?;
        let c = load(&mut tx, id, me).await?;
        tx.commit().await?;
        state
            .realtime
            .publish(to_members(&auth.0, c.members.iter().map(|m| m.id).collect()), Event::ConversationChanged { conversation_id: id })
            .await;
        Ok(ConversationOpened::Created(Json(c)))
    }

    /// My conversations
    ///
    /// The most recently active first; `archived=true` lists the archived ones instead.
    #[oai(path = "/conversations", method = "get", operation_id = "listConversations")]
    async fn conversations(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        archived: Query<Option<bool>>,
        #[oai(validator(minimum(value = "1")))] page: Query<Option<u32>>,
        #[oai(name = "pageSize", validator(minimum(value = "1"), maximum(value = "100")))] page_size: Query<Option<u32>>,
    ) -> Result<Json<Page<Conversation>>, MessagingError> {
        auth.0.require("listConversations")?;
        let paging = paging(page.0, page_size.0);
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let (rows, total) = db::conversations(&mut tx, auth.0.user_id, archived.0.unwrap_or(false), paging).await?;
        let ids: Vec<Uuid> = rows.iter().map(|c| c.id).collect();
        let members = db::members(&mut tx, &ids).await?;
        Ok(Json(Page::new(rows.into_iter().map(|c| conversation(c, &members)).collect(), total, paging)))
    }

    /// My unread total
    ///
    /// Unread messages over every conversation the caller has not archived (the sidebar's
    /// badge).
    #[oai(path = "/unread", method = "get", operation_id = "getUnreadTotal")]
    async fn unread(&self, state: Data<&AppState>, auth: BearerAuth) -> Result<Json<UnreadTotal>, MessagingError> {
        auth.0.require("getUnreadTotal")?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        Ok(Json(UnreadTotal { unread: db::unread_total(&mut tx, auth.0.user_id).await? }))
    }

    /// A conversation
    #[oai(path = "/conversations/:id", method = "get", operation_id = "getConversation")]
    async fn conversation(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Conversation>, MessagingError> {
        auth.0.require("getConversation")?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        Ok(Json(load(&mut tx, id.0, auth.0.user_id).await?))
    }

    /// Rename a group
    #[oai(path = "/conversations/:id", method = "put", operation_id = "updateConversation")]
    async fn rename(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<UpdateConversation>,
    ) -> Result<Json<Conversation>, MessagingError> {
        auth.0.require("updateConversation")?;
        let mut errors = FieldErrors::new();
        let name = group_name(&mut errors, &body.name);
        errors.into_result()?;
        let me = auth.0.user_id;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let c = db::conversation(&mut tx, id.0, me, true).await?.ok_or(AppError::NotFound)?;
        if c.kind != "group" {
            return Err(AppError::Conflict(Conflict::DirectConversation).into());
        }
        db::rename(&mut tx, c.id, &name).await?;
        db::system_entry(&mut tx, c.id, "renamed", me, None).await?;
        let c = load(&mut tx, c.id, me).await?;
        tx.commit().await?;
        state
            .realtime
            .publish(to_members(&auth.0, c.members.iter().map(|m| m.id).collect()), Event::ConversationChanged { conversation_id: c.id })
            .await;
        Ok(Json(c))
    }

    /// Archive a conversation
    ///
    /// For the caller only; it leaves their main list (and unread total) until unarchived.
    #[oai(path = "/conversations/:id/archive", method = "post", operation_id = "archiveConversation")]
    async fn archive(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Conversation>, MessagingError> {
        auth.0.require("archiveConversation")?;
        self.set_archived(&state, &auth.0, id.0, true).await
    }

    /// Unarchive a conversation
    #[oai(path = "/conversations/:id/unarchive", method = "post", operation_id = "unarchiveConversation")]
    async fn unarchive(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Conversation>, MessagingError> {
        auth.0.require("unarchiveConversation")?;
        self.set_archived(&state, &auth.0, id.0, false).await
    }

    /// Add members to a group
    ///
    /// Any member may add active users of the realm (at most 100 members). The next message
    /// needs a new key epoch, so the newcomers read nothing sent before they joined.
    #[oai(path = "/conversations/:id/members", method = "post", operation_id = "addConversationMembers")]
    async fn add_members(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<AddMembers>,
    ) -> Result<Json<Conversation>, MessagingError> {
        auth.0.require("addConversationMembers")?;
        let me = auth.0.user_id;
        let mut users = body.user_ids.clone();
        users.sort();
        users.dedup();
        if users.is_empty() || users.len() >= MAX_GROUP_MEMBERS {
            let mut errors = FieldErrors::new();
            errors.check::<()>("userIds", Err(if users.is_empty() { FieldIssue::Required } else { FieldIssue::TooLong }));
            return Err(AppError::Validation(errors).into());
        }
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let c = db::conversation(&mut tx, id.0, me, true).await?.ok_or(AppError::NotFound)?;
        if c.kind != "group" {
            return Err(AppError::Conflict(Conflict::DirectConversation).into());
        }
        realm_users(&mut tx, &auth.0, &users).await?;
        let added = db::add_members(&mut tx, c.id, me, &users).await?;
        if db::member_ids(&mut tx, c.id).await?.len() > MAX_GROUP_MEMBERS {
            let mut errors = FieldErrors::new();
            errors.check::<()>("userIds", Err(FieldIssue::TooLong));
            return Err(AppError::Validation(errors).into());
        }
        for user in &added {
            db::system_entry(&mut tx, c.id, "member_added", me, Some(*user)).await?;
        }
        let c = load(&mut tx, c.id, me).await?;
        tx.commit().await?;
        state
            .realtime
            .publish(to_members(&auth.0, c.members.iter().map(|m| m.id).collect()), Event::ConversationChanged { conversation_id: c.id })
            .await;
        Ok(Json(c))
    }

    /// Remove a member, or leave
    ///
    /// A member leaves by removing themselves; the group's creator removes others (anyone may
    /// once the creator has left). Nothing more is accepted under the old key: the next message
    /// needs a new epoch, which the removed member cannot read.
    #[oai(path = "/conversations/:id/members/:userId", method = "delete", operation_id = "removeConversationMember")]
    async fn remove_member(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        #[oai(name = "userId")] user_id: Path<Uuid>,
    ) -> Result<Done, MessagingError> {
        auth.0.require("removeConversationMember")?;
        let me = auth.0.user_id;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let c = db::conversation(&mut tx, id.0, me, true).await?.ok_or(AppError::NotFound)?;
        if c.kind != "group" {
            return Err(AppError::Conflict(Conflict::DirectConversation).into());
        }
        let before = db::member_ids(&mut tx, c.id).await?;
        if !before.contains(&user_id.0) {
            return Err(AppError::NotFound.into());
        }
        let creator_here = c.created_by.is_some_and(|creator| before.contains(&creator));
        if user_id.0 != me && creator_here && c.created_by != Some(me) {
            return Err(AppError::Forbidden.into());
        }
        db::remove_member(&mut tx, c.id, user_id.0).await?;
        let (kind, subject) = if user_id.0 == me { ("member_left", None) } else { ("member_removed", Some(user_id.0)) };
        db::system_entry(&mut tx, c.id, kind, me, subject).await?;
        tx.commit().await?;
        state.realtime.publish(to_members(&auth.0, before), Event::ConversationChanged { conversation_id: c.id }).await;
        Ok(Done::Done)
    }

    /// My keys of a conversation
    ///
    /// Every epoch key wrapped for the caller, oldest first (none from before they joined).
    #[oai(path = "/conversations/:id/keys", method = "get", operation_id = "listConversationKeys")]
    async fn conversation_keys(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
    ) -> Result<Json<Vec<ConversationKey>>, MessagingError> {
        auth.0.require("listConversationKeys")?;
        let me = auth.0.user_id;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        db::conversation(&mut tx, id.0, me, false).await?.ok_or(AppError::NotFound)?;
        let keys = db::conversation_keys(&mut tx, id.0, me).await?;
        Ok(Json(
            keys.into_iter()
                .map(|k| ConversationKey {
                    epoch: k.epoch,
                    key_version: k.key_version,
                    wrapped_key: B64.encode(k.wrapped_key),
                    created_by: k.created_by,
                    creator_key_version: k.creator_key_version,
                    created_at: k.created_at,
                })
                .collect(),
        ))
    }

    /// Start a key epoch
    ///
    /// The next epoch number, with the new key wrapped for exactly the current members at their
    /// newest key versions. 409 `stale_epoch` when another epoch began or the members or their
    /// keys changed meanwhile (reload and retry), `no_keys` when a member has none yet.
    #[oai(path = "/conversations/:id/epochs", method = "post", operation_id = "createConversationEpoch")]
    async fn start_epoch(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        body: Json<NewEpoch>,
    ) -> Result<Json<Conversation>, MessagingError> {
        auth.0.require("createConversationEpoch")?;
        let me = auth.0.user_id;
        let mut errors = FieldErrors::new();
        let wrapped: Vec<Vec<u8>> = body
            .keys
            .iter()
            .enumerate()
            .map(|(i, k)| bytes(&mut errors, &format!("keys[{i}].wrappedKey"), &k.wrapped_key, |n| n == WRAPPED_KEY_BYTES))
            .collect();
        if body.keys.is_empty() || body.keys.len() > MAX_GROUP_MEMBERS {
            errors.check::<()>("keys", Err(FieldIssue::Invalid));
        }
        errors.into_result()?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let c = db::conversation(&mut tx, id.0, me, true).await?.ok_or(AppError::NotFound)?;
        if body.epoch != c.epoch + 1 {
            return Err(AppError::Conflict(Conflict::StaleEpoch).into());
        }
        let members = db::member_key_versions(&mut tx, c.id).await?;
        if members.iter().any(|(_, v)| v.is_none()) {
            return Err(AppError::Conflict(Conflict::NoKeys).into());
        }
        let mut wanted: Vec<(Uuid, i32)> = members.iter().map(|(u, v)| (*u, v.unwrap_or_default())).collect();
        let mut given: Vec<(Uuid, i32)> = body.keys.iter().map(|k| (k.user_id, k.key_version)).collect();
        wanted.sort();
        given.sort();
        let creator_version = wanted.iter().find(|(u, _)| *u == me).map(|(_, v)| *v);
        if wanted != given || creator_version != Some(body.creator_key_version) {
            return Err(AppError::Conflict(Conflict::StaleEpoch).into());
        }
        let keys: Vec<db::WrappedKey> =
            body.keys.iter().zip(&wrapped).map(|(k, w)| db::WrappedKey { user_id: k.user_id, key_version: k.key_version, wrapped_key: w }).collect();
        db::start_epoch(&mut tx, c.id, body.epoch, me, body.creator_key_version, &keys).await?;
        let c = load(&mut tx, c.id, me).await?;
        tx.commit().await?;
        state
            .realtime
            .publish(to_members(&auth.0, c.members.iter().map(|m| m.id).collect()), Event::ConversationChanged { conversation_id: c.id })
            .await;
        Ok(Json(c))
    }

    /// Send a message
    ///
    /// Encrypted and signed by the sender's browser under the conversation's current epoch.
    /// 409 `rekey_required` when a new epoch must be started first.
    #[oai(path = "/messages", method = "post", operation_id = "sendMessage")]
    async fn send(&self, state: Data<&AppState>, auth: BearerAuth, body: Json<SendMessage>) -> Result<MessageSent, MessagingError> {
        auth.0.require("sendMessage")?;
        let me = auth.0.user_id;
        let mut errors = FieldErrors::new();
        let iv = bytes(&mut errors, "iv", &body.iv, |n| n == IV_BYTES);
        let ciphertext = bytes(&mut errors, "ciphertext", &body.ciphertext, |n| (16..=MAX_CIPHERTEXT_BYTES).contains(&n));
        let signature = bytes(&mut errors, "signature", &body.signature, |n| n == SIGNATURE_BYTES);
        errors.into_result()?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let c = db::conversation(&mut tx, body.conversation_id, me, true).await?.ok_or(AppError::NotFound)?;
        if let Some(existing) = db::message(&mut tx, body.id, me).await? {
            let same = existing.sender_id == Some(me) && existing.conversation_id == c.id && existing.ciphertext.as_deref() == Some(&ciphertext[..]);
            return if same { Ok(MessageSent::Existing(Json(existing.into()))) } else { Err(AppError::Conflict(Conflict::IdTaken).into()) };
        }
        let view = conversation(c, &[]);
        if view.rekey_required || body.epoch != view.epoch {
            return Err(AppError::Conflict(Conflict::RekeyRequired).into());
        }
        if db::keys(&mut tx, me, Some(body.sender_key_version)).await?.is_none() {
            let mut errors = FieldErrors::new();
            errors.check::<()>("senderKeyVersion", Err(FieldIssue::Invalid));
            return Err(AppError::Validation(errors).into());
        }
        let message = db::insert_message(
            &mut tx,
            db::NewMessage {
                id: body.id,
                conversation_id: view.id,
                sender_id: me,
                epoch: body.epoch,
                sender_key_version: body.sender_key_version,
                iv: &iv,
                ciphertext: &ciphertext,
                signature: &signature,
            },
        )
        .await?
        .ok_or(AppError::Conflict(Conflict::IdTaken))?;
        let members = db::member_ids(&mut tx, view.id).await?;
        tx.commit().await?;
        state
            .realtime
            .publish(to_members(&auth.0, members), Event::MessageCreated { conversation_id: view.id, message_id: message.id, sender_id: me })
            .await;
        Ok(MessageSent::Created(Json(message.into())))
    }

    /// A conversation's messages
    ///
    /// Up to `limit` (1 to 100, default 50) messages before the message `before` (default: the
    /// newest), oldest first; `hasMore` says whether older ones exist.
    #[oai(path = "/conversations/:id/messages", method = "get", operation_id = "listMessages")]
    async fn messages(
        &self,
        state: Data<&AppState>,
        auth: BearerAuth,
        id: Path<Uuid>,
        before: Query<Option<Uuid>>,
        #[oai(validator(minimum(value = "1"), maximum(value = "100")))] limit: Query<Option<u32>>,
    ) -> Result<Json<MessagePage>, MessagingError> {
        auth.0.require("listMessages")?;
        let me = auth.0.user_id;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        db::conversation(&mut tx, id.0, me, false).await?.ok_or(AppError::NotFound)?;
        let before = match before.0 {
            Some(b) => Some(db::message(&mut tx, b, me).await?.filter(|m| m.conversation_id == id.0).ok_or(AppError::NotFound)?),
            None => None,
        };
        let limit = i64::from(limit.0.unwrap_or(MESSAGES_PER_PAGE).min(MAX_MESSAGES_PER_PAGE));
        let (mut rows, has_more) = db::messages(&mut tx, id.0, me, before.as_ref(), limit).await?;
        rows.reverse();
        Ok(Json(MessagePage { items: rows.into_iter().map(Message::from).collect(), has_more }))
    }

    /// Mark read
    ///
    /// The caller has read the conversation up to this message (a read mark never moves back).
    #[oai(path = "/messages/:id/read", method = "post", operation_id = "markMessageRead")]
    async fn read(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Done, MessagingError> {
        auth.0.require("markMessageRead")?;
        let me = auth.0.user_id;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        let message = db::message(&mut tx, id.0, me).await?.ok_or(AppError::NotFound)?;
        let moved = db::mark_read(&mut tx, message.conversation_id, me, message.id, message.created_at).await?;
        let members = if moved { db::member_ids(&mut tx, message.conversation_id).await? } else { Vec::new() };
        tx.commit().await?;
        if moved {
            let event = Event::MessageRead { conversation_id: message.conversation_id, user_id: me, message_id: message.id };
            state.realtime.publish(to_members(&auth.0, members), event).await;
        }
        Ok(Done::Done)
    }

    /// I am typing
    ///
    /// Tells the other members' open tabs (never stored). Send it at most every few seconds.
    #[oai(path = "/conversations/:id/typing", method = "post", operation_id = "sendTyping")]
    async fn typing(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Done, MessagingError> {
        auth.0.require("sendTyping")?;
        let me = auth.0.user_id;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        db::conversation(&mut tx, id.0, me, false).await?.ok_or(AppError::NotFound)?;
        let others: Vec<Uuid> = db::member_ids(&mut tx, id.0).await?.into_iter().filter(|u| *u != me).collect();
        tx.commit().await?;
        state.realtime.publish(to_members(&auth.0, others), Event::Typing { conversation_id: id.0, user_id: me }).await;
        Ok(Done::Done)
    }
}

impl MessagingApi {
    async fn set_archived(&self, state: &AppState, caller: &Caller, id: Uuid, archived: bool) -> Result<Json<Conversation>, MessagingError> {
        let mut tx = tenancy::begin(&state.db, &realm(caller)).await?;
        db::conversation(&mut tx, id, caller.user_id, false).await?.ok_or(AppError::NotFound)?;
        db::set_archived(&mut tx, id, caller.user_id, archived).await?;
        let c = load(&mut tx, id, caller.user_id).await?;
        tx.commit().await?;
        state.realtime.publish(to_members(caller, vec![caller.user_id]), Event::ConversationChanged { conversation_id: id }).await;
        Ok(Json(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_must_be_uncompressed_p256_points() {
        let mut errors = FieldErrors::new();
        let mut good = vec![4u8; POINT_BYTES];
        good[1] = 9;
        assert_eq!(point(&mut errors, "k", &B64.encode(&good)), good);
        assert!(errors.is_empty());
        for bad in [B64.encode([4u8; 33]), B64.encode([2u8; POINT_BYTES]), "not base64!".into(), String::new()] {
            let mut errors = FieldErrors::new();
            point(&mut errors, "k", &bad);
            assert_eq!(errors.iter().collect::<Vec<_>>(), [("k", FieldIssue::Invalid)], "{bad}");
        }
    }

    #[test]
    fn group_names_are_trimmed_and_bounded() {
        let mut errors = FieldErrors::new();
        assert_eq!(group_name(&mut errors, "  Board  "), "Board");
        group_name(&mut errors, "   ");
        assert_eq!(errors.iter().collect::<Vec<_>>(), [("name", FieldIssue::Required)]);
        let mut errors = FieldErrors::new();
        group_name(&mut errors, &"é".repeat(101));
        assert_eq!(errors.iter().collect::<Vec<_>>(), [("name", FieldIssue::TooLong)]);
    }
}
