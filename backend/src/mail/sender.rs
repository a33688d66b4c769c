//! Sends the e-mails waiting in the outbox. Every instance with `SMTP_URL` runs it: rows are taken
//! under a lease (`FOR UPDATE SKIP LOCKED`), so two instances never send one message at once, and
//! one that dies mid-send leaves it to be sent again when the lease ends. A message the server
//! refuses for a while (or cannot be reached for) is retried with backoff; one it refuses for good
//! (a 5xx answer: no such mailbox, say) is dropped and recorded where it matters: an invitation
//! shows as bounced to whoever sent it. A message that can never be built, or that makes the code
//! panic, is parked the same way (reason `invalid_message` or `unsendable`) and never holds up
//! the others; the loop itself is supervised (`crate::supervise`) and starts again if it dies.

use std::{collections::BTreeMap, panic::AssertUnwindSafe, time::Duration};

use chrono::{DateTime, Utc};
use futures_util::{FutureExt as _, StreamExt as _};
use lettre::{
    AsyncSmtpTransport, AsyncTransport as _, Message, Tokio1Executor,
    message::{Mailbox, MultiPart},
};
use serde_json::{Value, json};
use uuid::Uuid;

use super::{Kind, templates};
use crate::{
    audit::{Audit, Changes, Target},
    config::MailConfig,
    domain::{DepartmentType, Lang},
    store::{self, outbox::PendingEmail, users::UserRecord},
    usage::Counters,
};

/// Seconds to wait after each failed attempt: 10 s, 1 min, 5 min, 15 min, 1 h, 3 h, 6 h, 12 h
/// (about 22 hours in all), each ±20 % at random.
pub const RETRY_SCHEDULE: &[u64] = &[10, 60, 300, 900, 3600, 10_800, 21_600, 43_200];
/// How long an instance holds the messages it took (a 10 s connection, and ample margin).
const LEASE_SECS: f64 = 60.0;
/// Rows taken per pass, and how many messages are sent at once.
const BATCH: i64 = 32;
const IN_FLIGHT: usize = 4;
/// The longest a conversation with the mail server may take.
const SMTP_TIMEOUT: Duration = Duration::from_secs(10);

pub type Transport = AsyncSmtpTransport<Tokio1Executor>;

/// The transport for `SMTP_URL` (lettre's URL form: `smtp://`, `smtp://…?tls=required` for
/// STARTTLS, `smtps://` for TLS, with `user:password@` to authenticate).
pub fn transport(url: &str) -> anyhow::Result<Transport> {
    Ok(AsyncSmtpTransport::<Tokio1Executor>::from_url(url)?.timeout(Some(SMTP_TIMEOUT)).build())
}

/// What the sender touches: the outbox's database, the mail settings, the enterprises' usage
/// counters (e-mails sent) and how often it looks at an idle outbox (`OUTBOX_POLL_MS`).
#[derive(Clone)]
pub struct Sender {
    pub db: sqlx::PgPool,
    pub mail: MailConfig,
    pub usage: std::sync::Arc<Counters>,
    pub poll: Duration,
}

/// Starts the sender when an SMTP server is configured; it runs until the process ends.
pub fn spawn(state: Sender) -> anyhow::Result<()> {
    let Some(url) = state.mail.smtp_url.as_deref() else {
        tracing::info!("SMTP_URL is not set: e-mails wait in the outbox until a mail server is configured");
        return Ok(());
    };
    let transport = transport(url)?;
    crate::supervise::spawn("mail_sender", move || {
        let (state, transport) = (state.clone(), transport.clone());
        async move {
            loop {
                match pass(&state, &transport).await {
                    Ok(true) => {}
                    Ok(false) => tokio::time::sleep(state.poll).await,
                    Err(err) => {
                        tracing::warn!(error = %err, "sending e-mail failed");
                        tokio::time::sleep(state.poll.max(Duration::from_secs(1))).await;
                    }
                }
            }
        }
    });
    Ok(())
}

/// One pass: sends what is due. True when there was something (look again at once).
pub async fn pass(state: &Sender, transport: &Transport) -> anyhow::Result<bool> {
    let rows = store::outbox::take_due_emails(&state.db, BATCH, LEASE_SECS).await?;
    if rows.is_empty() {
        return Ok(false);
    }
    // Activity items to one person make one message; everything else is a message of its own.
    let mut digests: BTreeMap<Uuid, Vec<PendingEmail>> = BTreeMap::new();
    let mut singles = Vec::new();
    for row in rows {
        match (row.event_type.as_str(), row.recipient_id) {
            ("activity", Some(recipient)) => digests.entry(recipient).or_default().push(row),
            _ => singles.push(vec![row]),
        }
    }
    // A few conversations with the mail server at once (lettre pools its connections).
    futures_util::stream::iter(singles.into_iter().chain(digests.into_values()))
        .for_each_concurrent(IN_FLIGHT, |group| async move {
            // A message that makes the code panic is parked as failed; the others go on.
            let outcome = AssertUnwindSafe(deliver(state, transport, &group)).catch_unwind().await;
            let ids: Vec<i64> = group.iter().map(|r| r.id).collect();
            match outcome {
                Ok(Ok(())) => {}
                Ok(Err(err)) => {
                    tracing::warn!(error = %err, "could not send or record an e-mail");
                    if let Err(err) = store::outbox::emails_retry(&state.db, &ids, Duration::from_secs(60), "internal").await {
                        tracing::warn!(error = %err, "could not reschedule an e-mail; its lease will end");
                    }
                }
                Err(_) => {
                    metrics::counter!("emails_total", "outcome" => "failed").increment(1);
                    tracing::error!(event_type = group[0].event_type, "sending an e-mail panicked; it is parked as failed");
                    if let Err(err) =
                        park(state, &group[0], "unsendable").await.and(store::outbox::emails_done(&state.db, &ids).await.map_err(Into::into))
                    {
                        tracing::warn!(error = %err, "could not park an e-mail; its lease will end");
                    }
                }
            }
        })
        .await;
    Ok(true)
}

/// Why a message is not sent.
enum Skip {
    /// Nothing to send any more (the person is gone, opted out, or the link was replaced).
    Nothing,
}

async fn deliver(state: &Sender, transport: &Transport, group: &[PendingEmail]) -> anyhow::Result<()> {
    let ids: Vec<i64> = group.iter().map(|r| r.id).collect();
    let first = &group[0];
    let kind = Kind::parse(&first.event_type);
    let recipient = match first.recipient_id {
        Some(id) => store::users::find_by_id(&state.db, id).await?.or_else(|| departed(id, first)),
        None => None,
    };
    let (Some(kind), Some(recipient)) = (kind, recipient) else {
        store::outbox::emails_done(&state.db, &ids).await?;
        return Ok(());
    };
    let lang = Lang::from_code(&recipient.locale);
    let context = match context(state, kind, &recipient, group, lang).await? {
        Ok(context) => context,
        Err(Skip::Nothing) => {
            store::outbox::emails_done(&state.db, &ids).await?;
            return Ok(());
        }
    };
    let message = match message(state, kind, lang, &context, &recipient) {
        Ok(message) => message,
        Err(err) => {
            // Never sendable as it stands: parked as failed, with its reason, for the admin to see.
            metrics::counter!("emails_total", "outcome" => "failed").increment(1);
            tracing::warn!(kind = kind.as_str(), user_id = %recipient.id, error = %err, "an e-mail could not be built; it is parked as failed");
            bounced(state, kind, &recipient, first, "invalid_message").await?;
            store::outbox::emails_done(&state.db, &ids).await?;
            return Ok(());
        }
    };
    match transport.send(message).await {
        Ok(_) => {
            metrics::counter!("emails_total", "outcome" => "sent").increment(1);
            tracing::info!(kind = kind.as_str(), user_id = %recipient.id, items = group.len(), "e-mail sent");
            if let Some(enterprise) = first.enterprise_id {
                state.usage.add(enterprise, crate::usage::Counter::Email);
            }
            store::outbox::emails_done(&state.db, &ids).await?;
        }
        Err(err) if err.is_permanent() => {
            metrics::counter!("emails_total", "outcome" => "refused").increment(1);
            let reason = err.status().map_or_else(|| "refused".to_owned(), |code| code.to_string());
            tracing::warn!(kind = kind.as_str(), user_id = %recipient.id, reason, "the mail server refused an e-mail for good");
            bounced(state, kind, &recipient, first, &reason).await?;
            store::outbox::emails_done(&state.db, &ids).await?;
        }
        Err(err) => {
            let attempts = group.iter().map(|r| r.attempts).max().unwrap_or(0);
            let error = if err.is_transient() { "server_busy" } else { "unreachable" };
            match retry_delay(attempts + 1, state.mail.retry_scale) {
                Some(delay) => {
                    metrics::counter!("emails_total", "outcome" => "retried").increment(1);
                    tracing::info!(kind = kind.as_str(), error, attempt = attempts + 1, "e-mail not sent yet; will retry");
                    store::outbox::emails_retry(&state.db, &ids, delay, error).await?;
                }
                None => {
                    metrics::counter!("emails_total", "outcome" => "failed").increment(1);
                    tracing::warn!(kind = kind.as_str(), user_id = %recipient.id, error, "e-mail given up after every retry");
                    bounced(state, kind, &recipient, first, error).await?;
                    store::outbox::emails_done(&state.db, &ids).await?;
                }
            }
        }
    }
    Ok(())
}

/// The recipient a message carries itself, because their account is gone when it is sent (the
/// CEO of a purged enterprise, `to: { name, email, locale }`).
fn departed(id: Uuid, row: &PendingEmail) -> Option<UserRecord> {
    let to = row.payload.get("to")?;
    let text = |key: &str| to.get(key).and_then(Value::as_str).map(str::to_owned);
    let now = Utc::now();
    Some(UserRecord {
        id,
        enterprise_id: None,
        department_id: None,
        role: store::users::RoleColumn(crate::domain::Role::EnterpriseCeo),
        full_name: text("name").unwrap_or_default(),
        email: text("email")?,
        password_hash: None,
        status: store::users::StatusColumn(crate::domain::UserStatus::Inactive),
        locale: text("locale").unwrap_or_else(|| "en".to_owned()),
        notify_reports: false,
        notify_sign_ins: false,
        notify_invitations: false,
        invitation_sent_at: None,
        invitation_expires_at: None,
        invitation_bounced_at: None,
        last_login_at: None,
        created_at: now,
        enterprise_active: None,
        enterprise_name: None,
        mfa_enabled: false,
        scim_external_id: None,
        sso_subject: None,
        sso_issuer: None,
        updated_at: now,
        erased_at: None,
    })
}

/// The message for `recipient`. Their name goes in the `To:` header only when it is one clean line
/// (a name stored before names were checked may not be): the address alone reaches them as well.
fn message(state: &Sender, kind: Kind, lang: Lang, context: &Value, recipient: &UserRecord) -> anyhow::Result<Message> {
    let rendered = templates::render(kind, lang, context)?;
    let name = crate::domain::text::clean_name(&recipient.full_name).map(str::to_owned);
    let to = Mailbox::new(name, recipient.email.parse()?);
    Ok(Message::builder()
        .from(state.mail.from.parse()?)
        .to(to)
        .subject(rendered.subject)
        .multipart(MultiPart::alternative_plain_html(rendered.text, rendered.html))?)
}

/// A message the code could not handle at all (it panicked): recorded as bounced when its
/// recipient is known.
async fn park(state: &Sender, row: &PendingEmail, reason: &str) -> anyhow::Result<()> {
    let (Some(kind), Some(id)) = (Kind::parse(&row.event_type), row.recipient_id) else { return Ok(()) };
    match store::users::find_by_id(&state.db, id).await? {
        Some(recipient) => bounced(state, kind, &recipient, row, reason).await,
        None => Ok(()),
    }
}

/// The delay before the attempt after the `failed`-th failure, if any is left.
pub fn retry_delay(failed: i32, scale: f64) -> Option<Duration> {
    use rand::Rng as _;
    let index = usize::try_from(failed).ok()?.checked_sub(1)?;
    let base = *RETRY_SCHEDULE.get(index)? as f64 * scale;
    Some(Duration::from_secs_f64(base * rand::rng().random_range(0.8..1.2)))
}

/// A message that will never arrive: an invitation shows as bounced; the audit log says so.
async fn bounced(state: &Sender, kind: Kind, recipient: &UserRecord, row: &PendingEmail, reason: &str) -> anyhow::Result<()> {
    if let Some(token) = row.payload.get("tokenId").and_then(Value::as_str).and_then(|t| t.parse::<Uuid>().ok()) {
        store::account_tokens::mark_bounced(&state.db, token, reason).await?;
    }
    let mut conn = state.db.acquire().await?;
    let target = Target::new("user", recipient.id, &recipient.full_name);
    let facts = Changes::new().with("kind", kind.as_str()).with("reason", reason);
    Audit::system().record(&mut conn, recipient.enterprise_id, "email.bounced", Some(target), facts).await?;
    Ok(())
}

/// What the template needs, or why nothing is to be sent.
async fn context(state: &Sender, kind: Kind, to: &UserRecord, group: &[PendingEmail], lang: Lang) -> anyhow::Result<Result<Value, Skip>> {
    let base = &state.mail.public_url;
    let data = &group[0].payload;
    let text = |key: &str| data.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    Ok(Ok(match kind {
        Kind::Invitation | Kind::PasswordReset => {
            // A link that was replaced (a newer invitation), used or expired is not sent.
            let Some(token) = data.get("tokenId").and_then(Value::as_str).and_then(|t| t.parse::<Uuid>().ok()) else {
                return Ok(Err(Skip::Nothing));
            };
            // The link's secret is made now, for this message only: the outbox never held it.
            let Some((secret, expires)) = store::account_tokens::rekey(&state.db, token).await? else {
                return Ok(Err(Skip::Nothing));
            };
            let page = if kind == Kind::Invitation { "accept-invitation" } else { "reset-password" };
            json!({
                "name": to.full_name,
                "inviter": text("inviter"),
                "enterprise": data.get("enterprise").cloned().unwrap_or(Value::Null),
                "link": format!("{base}/{page}?token={secret}"),
                "expires": crate::export::long_date(expires.date_naive(), lang),
            })
        }
        Kind::SignInAlert => {
            if !to.notify_sign_ins {
                return Ok(Err(Skip::Nothing));
            }
            let at = data.get("at").and_then(Value::as_str).and_then(|t| t.parse::<DateTime<Utc>>().ok()).unwrap_or_else(Utc::now);
            let flags: Vec<&str> =
                data.get("flags").and_then(Value::as_array).map(|f| f.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            json!({
                "name": to.full_name,
                "when": crate::export::long_time(at, lang),
                "place": data.get("place").cloned().unwrap_or(Value::Null),
                "browser": data.get("browser").cloned().unwrap_or(Value::Null),
                "new_country": flags.contains(&"new_country"),
                "impossible_travel": flags.contains(&"impossible_travel"),
                "link": format!("{base}/settings/profile"),
            })
        }
        Kind::SecurityNotice => {
            let at = data.get("at").and_then(Value::as_str).and_then(|t| t.parse::<DateTime<Utc>>().ok()).unwrap_or_else(Utc::now);
            json!({
                "name": to.full_name,
                "change": text("change"),
                "actor": text("actor"),
                "passkey": text("passkey"),
                "when": crate::export::long_time(at, lang),
                "link": format!("{base}/settings/profile"),
                // A password reset's notice: the API tokens that still act for the person.
                "tokens": data.get("tokens").and_then(Value::as_array).map(|tokens| tokens.iter().map(|t| {
                    let time = |key: &str| t.get(key).and_then(Value::as_str).and_then(|v| v.parse::<DateTime<Utc>>().ok()).map(|v| crate::export::long_time(v, lang));
                    json!({
                        "name": t.get("name").and_then(Value::as_str).unwrap_or_default(),
                        "prefix": t.get("prefix").and_then(Value::as_str).unwrap_or_default(),
                        "made": time("createdAt"),
                        "used": time("lastUsedAt"),
                    })
                }).collect::<Vec<_>>()).unwrap_or_default(),
                "tokens_link": format!("{base}/settings/api-tokens"),
            })
        }
        Kind::EnterpriseDeletion => {
            let purge_after = data.get("purgeAfter").and_then(Value::as_str).and_then(|t| t.parse::<DateTime<Utc>>().ok());
            json!({
                "name": to.full_name,
                "step": text("step"),
                "enterprise": text("enterprise"),
                "purge_after": purge_after.map(|at| crate::export::long_date(at.date_naive(), lang)),
            })
        }
        Kind::ExportReady => {
            let expires = data.get("expiresAt").and_then(Value::as_str).and_then(|t| t.parse::<DateTime<Utc>>().ok()).unwrap_or_else(Utc::now);
            let size = data.get("sizeBytes").and_then(Value::as_i64).unwrap_or_default();
            json!({
                "name": to.full_name,
                "enterprise": text("enterprise"),
                "expires": crate::export::long_time(expires, lang),
                "size": crate::export::file_size(size, lang),
                "link": format!("{base}{}", data.get("path").and_then(Value::as_str).unwrap_or("/")),
            })
        }
        Kind::Activity => {
            let items: Vec<Value> = group
                .iter()
                .map(|r| &r.payload)
                .filter(|item| {
                    let kind = item.get("kind").and_then(Value::as_str).unwrap_or_default();
                    if kind == "invitation_accepted" { to.notify_invitations } else { to.notify_reports }
                })
                .map(|item| {
                    let mut item = item.clone();
                    let path = item.get("path").and_then(Value::as_str).unwrap_or("/").to_owned();
                    item["link"] = Value::String(format!("{base}{path}"));
                    // The department as the reader's language names it.
                    let department = item.get("departmentType").and_then(Value::as_str).and_then(|t| t.parse::<DepartmentType>().ok());
                    item["department"] = department.map_or(Value::Null, |d| Value::String(crate::export::department_label(d, lang).to_owned()));
                    item
                })
                .collect();
            if items.is_empty() {
                return Ok(Err(Skip::Nothing));
            }
            json!({ "name": to.full_name, "items": items })
        }
    }))
}
