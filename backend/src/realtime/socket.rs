//! `GET /api/v1/ws`: the WebSocket of one tab.
//!
//! The token never travels in the URL (query strings end up in logs): the client's first message
//! is `{"type":"auth","token":"<token>"}`, within 5 seconds; the server answers
//! `{"type":"ready"}` and then sends events (`realtime::Event`). A missing, bad or dead token,
//! and any later end of the session, closes the socket with code 4401 (after a `session.ended`
//! event with the reason, whenever the session's end is known); a session that cannot be
//! checked (PostgreSQL did not answer) closes it with 1013, and the client reconnects. The socket
//! also re-checks its session every 30 seconds, so an end that no event announced (Redis was
//! down) still closes it; the re-check is not a use of the session (only requests are), so an open
//! tab alone never keeps an idle session alive.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use poem::{
    IntoResponse, handler,
    web::{
        Data,
        websocket::{Message, WebSocket, WebSocketConfig},
    },
};
use serde::Deserialize;
use uuid::Uuid;

use super::{Event, Hub, Listener, close};
use crate::auth::{sessions::SessionGuard, token::TokenKeys};

const AUTH_WAIT: Duration = Duration::from_secs(5);
/// Clients send only small messages (auth now; typing later): anything larger is refused, and a
/// socket's buffers stay small (tungstenite's defaults are 128 KiB each way and 64 MiB messages).
const MAX_MESSAGE: usize = 64 * 1024;

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum ClientMessage {
    Auth { token: String },
}

/// What a socket touches: the hub it registers with, the sessions it checks, the keys its token
/// is verified with, and how often it checks its session again (`Intervals::socket_recheck`).
#[derive(Clone)]
pub struct Sockets {
    pub hub: Hub,
    pub sessions: SessionGuard,
    pub tokens: std::sync::Arc<TokenKeys>,
    pub recheck: Duration,
}

#[handler]
pub fn ws(ws: WebSocket, state: Data<&Sockets>) -> impl IntoResponse {
    let state = state.clone();
    let config = WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
        .max_message_size(Some(MAX_MESSAGE))
        .max_frame_size(Some(MAX_MESSAGE));
    ws.config(config).on_upgrade(move |socket| async move {
        let (mut sink, mut stream) = socket.split();
        let listener = match authenticate(&state, &mut stream).await {
            Ok(listener) => listener,
            Err(Refused { code, session_id }) => {
                if let Some(id) = session_id {
                    tell_end(&state, &mut sink, id).await;
                }
                let reason = if code == close::SESSION_ENDED { "session expired" } else { "reconnect" };
                let _ = sink.send(Message::close_with(code, reason)).await;
                return;
            }
        };
        let mut registration = state.hub.register(listener);
        if sink.send(Message::text(r#"{"type":"ready"}"#)).await.is_err() {
            return;
        }
        let mut recheck = tokio::time::interval(state.recheck);
        recheck.tick().await;
        let code = loop {
            tokio::select! {
                incoming = stream.next() => match incoming {
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break None,
                    Some(Ok(_)) => {}
                },
                event = registration.events.recv() => match event {
                    Some(json) => {
                        if sink.send(Message::text(json.to_string())).await.is_err() {
                            break None;
                        }
                    }
                    None => break Some(close::TOO_SLOW),
                },
                changed = registration.close.changed() => {
                    if changed.is_err() {
                        break Some(close::TOO_SLOW);
                    }
                    let code = *registration.close.borrow();
                    if let Some(code) = code {
                        // Whatever was queued before the close (the session.ended event) goes first.
                        while let Ok(json) = registration.events.try_recv() {
                            let _ = sink.send(Message::text(json.to_string())).await;
                        }
                        break Some(code);
                    }
                }
                _ = recheck.tick() => {
                    // Not a use of the session: an open tab alone must not keep it alive.
                    if !state.sessions.still_live(listener.session_id).await.unwrap_or(true) {
                        tell_end(&state, &mut sink, listener.session_id).await;
                        break Some(close::SESSION_ENDED);
                    }
                }
            }
        };
        if let Some(code) = code {
            let reason = if code == close::SESSION_ENDED { "session expired" } else { "reconnect" };
            let _ = sink.send(Message::close_with(code, reason)).await;
        }
    })
}

/// Why a socket was refused: the code to close with, and the session its token named when that
/// session has ended (so the client can be told why).
struct Refused {
    code: u16,
    session_id: Option<Uuid>,
}

impl From<u16> for Refused {
    fn from(code: u16) -> Self {
        Self { code, session_id: None }
    }
}

/// Sends `session.ended` with the reason PostgreSQL keeps, when it keeps one, before a close for a
/// dead session: a tab that was away (asleep, offline, reloading) when the end was announced
/// learns that an administrator ended it, not only that its token is dead. Only the session the
/// socket's own token named is looked up.
async fn tell_end<S>(state: &Sockets, sink: &mut S, session_id: Uuid)
where
    S: futures_util::Sink<Message> + Unpin,
{
    if let Some(reason) = state.sessions.why_ended(session_id).await {
        let event = serde_json::to_string(&Event::SessionEnded { session_id, reason }).expect("events serialize");
        let _ = sink.send(Message::text(event)).await;
    }
}

/// The caller of the socket's first message, if it carries a live session's token in time. Else
/// the code to close with: 4401 when the token is missing, bad or its session has ended (with the
/// session, in that last case); 1013 when the session cannot be checked now (PostgreSQL did not
/// answer), so the client reconnects later instead of signing out.
async fn authenticate<S>(state: &Sockets, stream: &mut S) -> Result<Listener, Refused>
where
    S: futures_util::Stream<Item = std::io::Result<Message>> + Unpin,
{
    let ended = close::SESSION_ENDED;
    let first = tokio::time::timeout(AUTH_WAIT, stream.next()).await.ok().flatten().and_then(Result::ok).ok_or(ended)?;
    let Message::Text(text) = first else { return Err(ended.into()) };
    let ClientMessage::Auth { token } = serde_json::from_str(&text).map_err(|_| ended)?;
    let claims = state.tokens.verify(&token).ok_or(ended)?;
    match state.sessions.is_live(claims.sid).await {
        Ok(true) => Ok(Listener { session_id: claims.sid, user_id: claims.sub, enterprise_id: claims.ent, role: claims.role }),
        Ok(false) => Err(Refused { code: ended, session_id: Some(claims.sid) }),
        Err(err) => {
            tracing::warn!(error = %err, "cannot check a socket's session; it is told to reconnect");
            Err(close::TRY_AGAIN_LATER.into())
        }
    }
}
