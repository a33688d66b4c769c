//! Conversations (direct and group), their members, and the key epochs messages go under.

use super::*;

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

/// The caller's unread messages over every conversation they have not archived.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct UnreadTotal {
    pub unread: i64,
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

fn group_name(errors: &mut FieldErrors, name: &str) -> String {
    errors.check("name", crate::domain::text::line(name, 100)).map(str::to_owned).unwrap_or_default()
}

#[derive(Default)]
pub struct ConversationsApi;

#[OpenApi(prefix_path = "/messaging", tag = "ApiTags::Messaging")]
impl ConversationsApi {
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
        changed(&state, &auth.0, &c).await;
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
    ///
    /// One conversation the caller is a member of: its members, name, current key epoch and unread count.
    #[oai(path = "/conversations/:id", method = "get", operation_id = "getConversation")]
    async fn conversation(&self, state: Data<&AppState>, auth: BearerAuth, id: Path<Uuid>) -> Result<Json<Conversation>, MessagingError> {
        auth.0.require("getConversation")?;
        let mut tx = tenancy::begin(&state.db, &realm(&auth.0)).await?;
        Ok(Json(load(&mut tx, id.0, auth.0.user_id).await?))
    }

    /// Rename a group
    ///
    /// Renames a group conversation (not a direct one); members see `conversation.changed`.
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
        changed(&state, &auth.0, &c).await;
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
    ///
    /// Moves the conversation back into the caller's inbox (for the caller only).
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
        changed(&state, &auth.0, &c).await;
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
        changed(&state, &auth.0, &c).await;
        Ok(Json(c))
    }
}

/// Tells a conversation's members (as it stands now) that it changed.
async fn changed(state: &AppState, caller: &Caller, c: &Conversation) {
    state.realtime.publish(to_members(caller, c.members.iter().map(|m| m.id).collect()), Event::ConversationChanged { conversation_id: c.id }).await;
}

impl ConversationsApi {
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
