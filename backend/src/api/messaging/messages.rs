//! Messages: sent under the current epoch, read by page, marked read, and typing.

use super::*;

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

#[derive(Debug, ApiResponse)]
pub enum MessageSent {
    /// The same message was already stored (a retry).
    #[oai(status = 200)]
    Existing(Json<Message>),
    /// Stored and announced to the members.
    #[oai(status = 201)]
    Created(Json<Message>),
}

#[derive(Default)]
pub struct MessagesApi;

#[OpenApi(prefix_path = "/messaging", tag = "ApiTags::Messaging")]
impl MessagesApi {
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
        db::unarchive_for_all(&mut tx, view.id).await?;
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
