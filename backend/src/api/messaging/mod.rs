//! The encrypted messenger: public keys and their backup, conversations (direct and group), key
//! epochs, messages and read marks, in the caller's realm (their enterprise, or the platform
//! admins'). The server stores what browsers encrypted and checks who may see what; it never
//! holds a plaintext or a private key (docs/messenger-crypto.md). Every id outside the caller's
//! conversations, or of another realm, is 404.
//!
//! One module per resource: public keys, backups and the directory of people (`keys.rs`),
//! conversations, their members and key epochs (`conversations.rs`), messages (`messages.rs`).

mod conversations;
mod keys;
mod messages;

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

pub use self::{conversations::ConversationsApi, keys::MessagingKeysApi, messages::MessagesApi};

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
}
