//! The messenger's tables, in the caller's realm schema (a tenant transaction): public keys and
//! their backups, conversations and their members, wrapped epoch keys, messages and read marks.
//! Nothing here can read a message: the server stores what browsers encrypted.

use chrono::{DateTime, Utc};
use sqlx::PgConnection;
use uuid::Uuid;

/// A user's public keys of one version.
#[derive(Debug, sqlx::FromRow)]
pub struct KeysRecord {
    pub user_id: Uuid,
    pub version: i32,
    pub agreement_key: Vec<u8>,
    pub signing_key: Vec<u8>,
    pub created_at: DateTime<Utc>,
}

/// The newest version of the user's keys (`None`: the user has not set up the messenger).
pub async fn latest_key_version(tx: &mut PgConnection, user_id: Uuid) -> sqlx::Result<Option<i32>> {
    sqlx::query_scalar("select max(version) from messaging_keys where user_id = $1").bind(user_id).fetch_one(tx).await
}

/// Most key versions a user may register in a day, and in all: every new version makes the
/// conversations they are in start a new epoch, so an unbounded stream of them would keep every
/// other member's epochs failing (`stale_epoch`).
pub const MAX_KEY_VERSIONS_PER_DAY: i64 = 10;
pub const MAX_KEY_VERSIONS: i32 = 200;

pub enum AddedKeys {
    Added(KeysRecord),
    /// `expected` is not the next version.
    StaleVersion,
    /// Over `MAX_KEY_VERSIONS_PER_DAY` or `MAX_KEY_VERSIONS`.
    TooMany,
}

/// Adds the next version of the caller's keys.
pub async fn add_keys(tx: &mut PgConnection, user_id: Uuid, expected: Option<i32>, agreement: &[u8], signing: &[u8]) -> sqlx::Result<AddedKeys> {
    // One registration at a time per user: the version is read and written under the lock.
    sqlx::query("select pg_advisory_xact_lock(hashtextextended($1::text, 7))").bind(user_id).execute(&mut *tx).await?;
    let next = latest_key_version(tx, user_id).await?.unwrap_or(0) + 1;
    if expected.is_some_and(|v| v != next) {
        return Ok(AddedKeys::StaleVersion);
    }
    let recent: i64 = sqlx::query_scalar("select count(*) from messaging_keys where user_id = $1 and created_at > now() - interval '1 day'")
        .bind(user_id)
        .fetch_one(&mut *tx)
        .await?;
    if recent >= MAX_KEY_VERSIONS_PER_DAY || next > MAX_KEY_VERSIONS {
        return Ok(AddedKeys::TooMany);
    }
    sqlx::query_as(
        "insert into messaging_keys (user_id, version, agreement_key, signing_key) values ($1, $2, $3, $4) \
         returning user_id, version, agreement_key, signing_key, created_at",
    )
    .bind(user_id)
    .bind(next)
    .bind(agreement)
    .bind(signing)
    .fetch_one(tx)
    .await
    .map(AddedKeys::Added)
}

/// The user's keys of `version`, or their newest.
pub async fn keys(tx: &mut PgConnection, user_id: Uuid, version: Option<i32>) -> sqlx::Result<Option<KeysRecord>> {
    sqlx::query_as(
        "select user_id, version, agreement_key, signing_key, created_at from messaging_keys \
         where user_id = $1 and ($2::int is null or version = $2) order by version desc limit 1",
    )
    .bind(user_id)
    .bind(version)
    .fetch_optional(tx)
    .await
}

#[derive(Debug, sqlx::FromRow)]
pub struct BackupRecord {
    pub salt: Vec<u8>,
    pub iterations: i32,
    pub iv: Vec<u8>,
    pub ciphertext: Vec<u8>,
    pub updated_at: DateTime<Utc>,
}

pub struct NewBackup<'a> {
    pub salt: &'a [u8],
    pub iterations: i32,
    pub iv: &'a [u8],
    pub ciphertext: &'a [u8],
}

pub async fn backup(tx: &mut PgConnection, user_id: Uuid) -> sqlx::Result<Option<BackupRecord>> {
    sqlx::query_as("select salt, iterations, iv, ciphertext, updated_at from messaging_key_backups where user_id = $1")
        .bind(user_id)
        .fetch_optional(tx)
        .await
}

pub async fn put_backup(tx: &mut PgConnection, user_id: Uuid, b: NewBackup<'_>) -> sqlx::Result<BackupRecord> {
    sqlx::query_as(
        "insert into messaging_key_backups (user_id, salt, iterations, iv, ciphertext, updated_at) values ($1, $2, $3, $4, $5, now()) \
         on conflict (user_id) do update set salt = excluded.salt, iterations = excluded.iterations, iv = excluded.iv, \
         ciphertext = excluded.ciphertext, updated_at = excluded.updated_at \
         returning salt, iterations, iv, ciphertext, updated_at",
    )
    .bind(user_id)
    .bind(b.salt)
    .bind(b.iterations)
    .bind(b.iv)
    .bind(b.ciphertext)
    .fetch_one(tx)
    .await
}

/// Someone the caller may write to: an active user of the same realm.
#[derive(Debug, sqlx::FromRow)]
pub struct CorrespondentRecord {
    pub id: Uuid,
    pub full_name: String,
    pub email: String,
    pub role: String,
    pub department_id: Option<Uuid>,
    pub key_version: Option<i32>,
}

/// Active users of the realm (`enterprise`; none: the platform admins) but `me`, by name.
pub async fn correspondents(
    tx: &mut PgConnection,
    enterprise: Option<Uuid>,
    me: Uuid,
    q: Option<&str>,
    paging: super::Paging,
) -> sqlx::Result<(Vec<CorrespondentRecord>, i64)> {
    const WHERE: &str = "u.enterprise_id is not distinct from $1 and u.status = 'active' and u.id <> $2 \
        and ($3::text is null or u.full_name ilike '%' || $3 || '%' or u.email ilike '%' || $3 || '%')";
    let pattern = q.map(|q| q.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_"));
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select u.id, u.full_name, u.email, u.role, u.department_id, \
         (select max(version) from messaging_keys k where k.user_id = u.id) as key_version \
         from public.users u where {WHERE} order by u.full_name, u.id limit $4 offset $5"
    )))
    .bind(enterprise)
    .bind(me)
    .bind(pattern.as_deref())
    .bind(paging.limit())
    .bind(paging.offset())
    .fetch_all(&mut *tx)
    .await?;
    let total = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("select count(*) from public.users u where {WHERE}")))
        .bind(enterprise)
        .bind(me)
        .bind(pattern.as_deref())
        .fetch_one(tx)
        .await?;
    Ok((rows, total))
}

/// Which of `ids` are active users of the realm.
pub async fn active_in_realm(tx: &mut PgConnection, enterprise: Option<Uuid>, ids: &[Uuid]) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select id from public.users where id = any($1) and enterprise_id is not distinct from $2 and status = 'active'")
        .bind(ids)
        .bind(enterprise)
        .fetch_all(tx)
        .await
}

/// Whether the user (active or not) belongs to the realm.
pub async fn in_realm(tx: &mut PgConnection, enterprise: Option<Uuid>, user: Uuid) -> sqlx::Result<bool> {
    sqlx::query_scalar("select exists (select 1 from public.users where id = $1 and enterprise_id is not distinct from $2)")
        .bind(user)
        .bind(enterprise)
        .fetch_one(tx)
        .await
}

/// Holds the users' rows (as a foreign key would) so none is deleted while they are added.
pub async fn hold_users(tx: &mut PgConnection, ids: &[Uuid]) -> sqlx::Result<usize> {
    let held: Vec<i32> = sqlx::query_scalar("select 1 from public.users where id = any($1) for key share").bind(ids).fetch_all(tx).await?;
    Ok(held.len())
}

/// A conversation as one member sees it.
#[derive(Debug, sqlx::FromRow)]
pub struct ConversationRecord {
    pub id: Uuid,
    pub kind: String,
    pub name: Option<String>,
    pub created_by: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub last_message_at: Option<DateTime<Utc>>,
    pub epoch: i32,
    pub epoch_started_at: Option<DateTime<Utc>>,
    pub epoch_messages: i32,
    pub rekey_required: bool,
    pub archived: bool,
    /// A member's newest keys are not those the current epoch's key was wrapped for (they set up
    /// the messenger in a new browser): the next message needs a new epoch, or that browser could
    /// not read it.
    pub keys_changed: bool,
    pub unread_count: i64,
}

const CONVERSATION_COLUMNS: &str = "c.id, c.kind, c.name, c.created_by, c.created_at, c.last_message_at, c.epoch, \
    c.epoch_started_at, c.epoch_messages, c.rekey_required, m.archived, \
    (c.epoch > 0 and exists (select 1 from conversation_members o where o.conversation_id = c.id \
       and (select max(v.version) from messaging_keys v where v.user_id = o.user_id) is distinct from \
           (select k.key_version from conversation_keys k where k.conversation_id = c.id and k.epoch = c.epoch and k.user_id = o.user_id))) \
       as keys_changed, \
    (select count(*) from messages x where x.conversation_id = c.id and x.kind = 'message' and x.sender_id is distinct from m.user_id \
       and x.created_at > coalesce(m.last_read_at, m.joined_at)) as unread_count";

/// A member of a conversation and how far they have read.
#[derive(Debug, sqlx::FromRow)]
pub struct MemberRecord {
    pub conversation_id: Uuid,
    pub user_id: Uuid,
    pub full_name: Option<String>,
    pub email: Option<String>,
    pub role: Option<String>,
    pub joined_at: DateTime<Utc>,
    pub last_read_message_id: Option<Uuid>,
    pub last_read_at: Option<DateTime<Utc>>,
}

/// The conversation, if `me` is a member (locked for update when `lock`).
pub async fn conversation(tx: &mut PgConnection, id: Uuid, me: Uuid, lock: bool) -> sqlx::Result<Option<ConversationRecord>> {
    let lock = if lock { " for update of c" } else { "" };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select {CONVERSATION_COLUMNS} from conversations c join conversation_members m on m.conversation_id = c.id and m.user_id = $2 \
         where c.id = $1{lock}"
    )))
    .bind(id)
    .bind(me)
    .fetch_optional(tx)
    .await
}

/// The caller's conversations, archived or not, the most recently active first.
pub async fn conversations(tx: &mut PgConnection, me: Uuid, archived: bool, paging: super::Paging) -> sqlx::Result<(Vec<ConversationRecord>, i64)> {
    let rows = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select {CONVERSATION_COLUMNS} from conversations c join conversation_members m on m.conversation_id = c.id and m.user_id = $1 \
         where m.archived = $2 order by coalesce(c.last_message_at, c.created_at) desc, c.id desc limit $3 offset $4"
    )))
    .bind(me)
    .bind(archived)
    .bind(paging.limit())
    .bind(paging.offset())
    .fetch_all(&mut *tx)
    .await?;
    let total = sqlx::query_scalar("select count(*) from conversation_members where user_id = $1 and archived = $2")
        .bind(me)
        .bind(archived)
        .fetch_one(tx)
        .await?;
    Ok((rows, total))
}

/// Messages from others the caller has not read, over every conversation not archived.
pub async fn unread_total(tx: &mut PgConnection, me: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "select count(*) from conversation_members m join messages x on x.conversation_id = m.conversation_id \
         where m.user_id = $1 and not m.archived and x.kind = 'message' and x.sender_id is distinct from $1 \
         and x.created_at > coalesce(m.last_read_at, m.joined_at)",
    )
    .bind(me)
    .fetch_one(tx)
    .await
}

/// The members of these conversations, in the order they joined.
pub async fn members(tx: &mut PgConnection, conversations: &[Uuid]) -> sqlx::Result<Vec<MemberRecord>> {
    sqlx::query_as(
        "select m.conversation_id, m.user_id, u.full_name, u.email, u.role, m.joined_at, m.last_read_message_id, m.last_read_at \
         from conversation_members m left join public.users u on u.id = m.user_id \
         where m.conversation_id = any($1) order by m.joined_at, m.user_id",
    )
    .bind(conversations)
    .fetch_all(tx)
    .await
}

pub async fn member_ids(tx: &mut PgConnection, conversation: Uuid) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select user_id from conversation_members where conversation_id = $1 order by joined_at, user_id")
        .bind(conversation)
        .fetch_all(tx)
        .await
}

/// The direct conversation of the two users, made if it does not exist. `true`: just made.
pub async fn direct(tx: &mut PgConnection, me: Uuid, other: Uuid) -> sqlx::Result<(Uuid, bool)> {
    let (a, b) = if me < other { (me, other) } else { (other, me) };
    let pair = format!("{a}:{b}");
    let made: Option<Uuid> = sqlx::query_scalar(
        "insert into conversations (id, kind, direct_pair, created_by) values ($1, 'direct', $2, $3) \
         on conflict (direct_pair) do nothing returning id",
    )
    .bind(Uuid::now_v7())
    .bind(&pair)
    .bind(me)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(id) = made {
        sqlx::query("insert into conversation_members (conversation_id, user_id, added_by) select $1, unnest($2::uuid[]), $3")
            .bind(id)
            .bind([a, b].as_slice())
            .bind(me)
            .execute(tx)
            .await?;
        return Ok((id, true));
    }
    let id = sqlx::query_scalar("select id from conversations where direct_pair = $1").bind(&pair).fetch_one(tx).await?;
    Ok((id, false))
}

/// A new group of `me` and `others`.
pub async fn create_group(tx: &mut PgConnection, me: Uuid, name: &str, others: &[Uuid]) -> sqlx::Result<Uuid> {
    let id = Uuid::now_v7();
    sqlx::query("insert into conversations (id, kind, name, created_by) values ($1, 'group', $2, $3)")
        .bind(id)
        .bind(name)
        .bind(me)
        .execute(&mut *tx)
        .await?;
    let everyone: Vec<Uuid> = std::iter::once(me).chain(others.iter().copied()).collect();
    sqlx::query("insert into conversation_members (conversation_id, user_id, added_by) select $1, unnest($2::uuid[]), $3")
        .bind(id)
        .bind(&everyone)
        .bind(me)
        .execute(tx)
        .await?;
    Ok(id)
}

pub async fn rename(tx: &mut PgConnection, id: Uuid, name: &str) -> sqlx::Result<()> {
    sqlx::query("update conversations set name = $2 where id = $1").bind(id).bind(name).execute(tx).await?;
    Ok(())
}

/// Adds members (those already in are left alone); the next message needs a new epoch, so they
/// read nothing sent before they joined. Returns who was added.
pub async fn add_members(tx: &mut PgConnection, id: Uuid, by: Uuid, users: &[Uuid]) -> sqlx::Result<Vec<Uuid>> {
    let added: Vec<Uuid> = sqlx::query_scalar(
        "insert into conversation_members (conversation_id, user_id, added_by) select $1, unnest($2::uuid[]), $3 \
         on conflict do nothing returning user_id",
    )
    .bind(id)
    .bind(users)
    .bind(by)
    .fetch_all(&mut *tx)
    .await?;
    if !added.is_empty() {
        sqlx::query("update conversations set rekey_required = true where id = $1").bind(id).execute(tx).await?;
    }
    Ok(added)
}

/// Removes a member; nothing more is accepted under the key they hold. `false`: not a member.
pub async fn remove_member(tx: &mut PgConnection, id: Uuid, user: Uuid) -> sqlx::Result<bool> {
    let removed =
        sqlx::query("delete from conversation_members where conversation_id = $1 and user_id = $2").bind(id).bind(user).execute(&mut *tx).await?;
    if removed.rows_affected() == 0 {
        return Ok(false);
    }
    sqlx::query("update conversations set rekey_required = true where id = $1").bind(id).execute(tx).await?;
    Ok(true)
}

/// A line in the timeline that the server writes itself: who did what to whom.
pub async fn system_entry(tx: &mut PgConnection, conversation: Uuid, kind: &str, actor: Uuid, subject: Option<Uuid>) -> sqlx::Result<()> {
    sqlx::query("insert into messages (id, conversation_id, kind, sender_id, subject_id) values ($1, $2, $3, $4, $5)")
        .bind(Uuid::now_v7())
        .bind(conversation)
        .bind(kind)
        .bind(actor)
        .bind(subject)
        .execute(tx)
        .await?;
    Ok(())
}

pub async fn set_archived(tx: &mut PgConnection, id: Uuid, me: Uuid, archived: bool) -> sqlx::Result<()> {
    sqlx::query("update conversation_members set archived = $3 where conversation_id = $1 and user_id = $2")
        .bind(id)
        .bind(me)
        .bind(archived)
        .execute(tx)
        .await?;
    Ok(())
}

/// A new message brings the conversation back for everyone who archived it (as chat apps do):
/// it is unread for them, and belongs among their active conversations again.
pub async fn unarchive_for_all(tx: &mut PgConnection, id: Uuid) -> sqlx::Result<()> {
    sqlx::query("update conversation_members set archived = false where conversation_id = $1 and archived").bind(id).execute(tx).await?;
    Ok(())
}

/// The members' newest key versions (`None`: no keys yet).
pub async fn member_key_versions(tx: &mut PgConnection, conversation: Uuid) -> sqlx::Result<Vec<(Uuid, Option<i32>)>> {
    sqlx::query_as(
        "select m.user_id, (select max(version) from messaging_keys k where k.user_id = m.user_id) \
         from conversation_members m where m.conversation_id = $1",
    )
    .bind(conversation)
    .fetch_all(tx)
    .await
}

pub struct WrappedKey<'a> {
    pub user_id: Uuid,
    pub key_version: i32,
    pub wrapped_key: &'a [u8],
}

/// Starts the next epoch with one wrapped key per member (the caller checked they are exactly
/// the members, with their newest keys, and that `epoch` is the next one).
pub async fn start_epoch(
    tx: &mut PgConnection,
    id: Uuid,
    epoch: i32,
    by: Uuid,
    creator_key_version: i32,
    keys: &[WrappedKey<'_>],
) -> sqlx::Result<()> {
    let users: Vec<Uuid> = keys.iter().map(|k| k.user_id).collect();
    let versions: Vec<i32> = keys.iter().map(|k| k.key_version).collect();
    let wrapped: Vec<&[u8]> = keys.iter().map(|k| k.wrapped_key).collect();
    sqlx::query(
        "insert into conversation_keys (conversation_id, epoch, user_id, key_version, wrapped_key, created_by, creator_key_version) \
         select $1, $2, u, v, w, $3, $4 from unnest($5::uuid[], $6::int[], $7::bytea[]) as t(u, v, w)",
    )
    .bind(id)
    .bind(epoch)
    .bind(by)
    .bind(creator_key_version)
    .bind(&users)
    .bind(&versions)
    .bind(&wrapped)
    .execute(&mut *tx)
    .await?;
    sqlx::query("update conversations set epoch = $2, epoch_started_at = now(), epoch_messages = 0, rekey_required = false where id = $1")
        .bind(id)
        .bind(epoch)
        .execute(tx)
        .await?;
    Ok(())
}

#[derive(Debug, sqlx::FromRow)]
pub struct ConversationKeyRecord {
    pub epoch: i32,
    pub key_version: i32,
    pub wrapped_key: Vec<u8>,
    pub created_by: Option<Uuid>,
    pub creator_key_version: i32,
    pub created_at: DateTime<Utc>,
}

/// The epoch keys wrapped for `me` in this conversation, oldest first.
pub async fn conversation_keys(tx: &mut PgConnection, id: Uuid, me: Uuid) -> sqlx::Result<Vec<ConversationKeyRecord>> {
    sqlx::query_as(
        "select epoch, key_version, wrapped_key, created_by, creator_key_version, created_at from conversation_keys \
         where conversation_id = $1 and user_id = $2 order by epoch",
    )
    .bind(id)
    .bind(me)
    .fetch_all(tx)
    .await
}

#[derive(Debug, sqlx::FromRow)]
pub struct MessageRecord {
    pub id: Uuid,
    pub conversation_id: Uuid,
    pub kind: String,
    pub sender_id: Option<Uuid>,
    pub subject_id: Option<Uuid>,
    pub epoch: Option<i32>,
    pub sender_key_version: Option<i32>,
    pub iv: Option<Vec<u8>>,
    pub ciphertext: Option<Vec<u8>>,
    pub signature: Option<Vec<u8>>,
    pub created_at: DateTime<Utc>,
}

/// A message's columns, of the table named (or aliased) `x`.
const MESSAGE_COLUMNS: &str =
    "x.id, x.conversation_id, x.kind, x.sender_id, x.subject_id, x.epoch, x.sender_key_version, x.iv, x.ciphertext, x.signature, x.created_at";

pub struct NewMessage<'a> {
    pub id: Uuid,
    pub conversation_id: Uuid,
    pub sender_id: Uuid,
    pub epoch: i32,
    pub sender_key_version: i32,
    pub iv: &'a [u8],
    pub ciphertext: &'a [u8],
    pub signature: &'a [u8],
}

/// Stores a message (the caller checked membership and epoch); `None` if its id is taken.
/// The sender has read everything up to their own message.
pub async fn insert_message(tx: &mut PgConnection, m: NewMessage<'_>) -> sqlx::Result<Option<MessageRecord>> {
    let stored: Option<MessageRecord> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "insert into messages as x (id, conversation_id, sender_id, epoch, sender_key_version, iv, ciphertext, signature) \
         values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (id) do nothing returning {MESSAGE_COLUMNS}"
    )))
    .bind(m.id)
    .bind(m.conversation_id)
    .bind(m.sender_id)
    .bind(m.epoch)
    .bind(m.sender_key_version)
    .bind(m.iv)
    .bind(m.ciphertext)
    .bind(m.signature)
    .fetch_optional(&mut *tx)
    .await?;
    let Some(stored) = stored else { return Ok(None) };
    sqlx::query("update conversations set last_message_at = $2, epoch_messages = epoch_messages + 1 where id = $1")
        .bind(m.conversation_id)
        .bind(stored.created_at)
        .execute(&mut *tx)
        .await?;
    mark_read(tx, m.conversation_id, m.sender_id, stored.id, stored.created_at).await?;
    Ok(Some(stored))
}

/// What of a conversation's timeline a member sees: messages of the epochs they hold a key for
/// (a newcomer cannot read earlier ones, and is not told who spoke when either), and the
/// membership entries from their joining on. `x` is the message, `m` the member's row.
const VISIBLE_TO_MEMBER: &str = "(case when x.epoch is null then x.created_at >= m.joined_at \
     else exists (select 1 from conversation_keys k where k.conversation_id = x.conversation_id and k.epoch = x.epoch and k.user_id = m.user_id) end)";

/// The message, if it is in a conversation `me` belongs to and `me` may see it.
pub async fn message(tx: &mut PgConnection, id: Uuid, me: Uuid) -> sqlx::Result<Option<MessageRecord>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select {MESSAGE_COLUMNS} from messages x join conversation_members m on m.conversation_id = x.conversation_id and m.user_id = $2 \
         where x.id = $1 and {VISIBLE_TO_MEMBER}"
    )))
    .bind(id)
    .bind(me)
    .fetch_optional(tx)
    .await
}

/// Up to `limit` messages `me` may see before `before` (newest first), and whether older ones
/// exist.
pub async fn messages(
    tx: &mut PgConnection,
    conversation: Uuid,
    me: Uuid,
    before: Option<&MessageRecord>,
    limit: i64,
) -> sqlx::Result<(Vec<MessageRecord>, bool)> {
    let mut rows: Vec<MessageRecord> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "select {MESSAGE_COLUMNS} from messages x join conversation_members m on m.conversation_id = x.conversation_id and m.user_id = $5 \
         where x.conversation_id = $1 and {VISIBLE_TO_MEMBER} \
         and ($2::timestamptz is null or (x.created_at, x.id) < ($2, $3)) order by x.created_at desc, x.id desc limit $4"
    )))
    .bind(conversation)
    .bind(before.map(|b| b.created_at))
    .bind(before.map(|b| b.id))
    .bind(limit + 1)
    .bind(me)
    .fetch_all(tx)
    .await?;
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    Ok((rows, more))
}

/// Moves `me`'s read mark to this message, never backwards. `true` when it moved.
pub async fn mark_read(tx: &mut PgConnection, conversation: Uuid, me: Uuid, message: Uuid, at: DateTime<Utc>) -> sqlx::Result<bool> {
    let moved = sqlx::query(
        "update conversation_members set last_read_at = $3, last_read_message_id = $4 \
         where conversation_id = $1 and user_id = $2 and (last_read_at is null or last_read_at < $3)",
    )
    .bind(conversation)
    .bind(me)
    .bind(at)
    .bind(message)
    .execute(tx)
    .await?;
    Ok(moved.rows_affected() == 1)
}

/// A deleted user leaves every conversation (which then needs a new key) and their keys go.
pub async fn forget_user(tx: &mut PgConnection, user: Uuid) -> sqlx::Result<()> {
    sqlx::query(
        "with gone as (delete from conversation_members where user_id = $1 returning conversation_id), \
         keys as (delete from messaging_keys where user_id = $1), \
         backups as (delete from messaging_key_backups where user_id = $1) \
         update conversations set rekey_required = true where id in (select conversation_id from gone)",
    )
    .bind(user)
    .execute(tx)
    .await?;
    Ok(())
}
