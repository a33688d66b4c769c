//! The bearer scheme. Taking `BearerAuth` as an operation parameter both enforces and documents
//! authentication. A bearer is either a session's token (a JWT from `POST /auth/login`: it must
//! verify and its session must still be live) or a program's token (`ept_…` or `eps_…`: it must
//! be live in PostgreSQL, see `store::api_tokens::live`).

use poem::Request;
use poem_openapi::{SecurityScheme, auth::Bearer};
use uuid::Uuid;

use super::api_token;
use super::{sessions::SessionGuard, token::TokenKeys};
use crate::{domain::Role, error::AppError, state::AppState, store};

/// The authenticated caller, the first argument of everything that touches data.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: Uuid,
    pub role: Role,
    pub enterprise_id: Option<Uuid>,
    /// The session (for a program's token: the token's id).
    pub session_id: Uuid,
    pub credential: Credential,
}

impl Caller {
    /// The person acting: none for a service credential, which has no person behind it.
    pub fn person_id(&self) -> Option<Uuid> {
        match self.credential {
            Credential::Token { service: true, .. } => None,
            _ => Some(self.user_id),
        }
    }
}

/// How the caller authenticated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// A person signed in: everything their role allows.
    Session,
    /// A program's token: what the owner's role allows within the token's scopes. A service
    /// credential acts for its enterprise (as its CEO) and has no person behind it: `user_id`
    /// is then the token's id.
    Token { scopes: Vec<String>, service: bool },
}

/// A session token from `POST /auth/login`, or a program's token from `POST /api-tokens`, sent as
/// `Authorization: Bearer <token>`.
#[derive(SecurityScheme)]
#[oai(ty = "bearer", bearer_format = "JWT", checker = "check_bearer")]
pub struct BearerAuth(pub Caller);

/// `last_used_at` is written at most this often per token.
const TOUCH_SECS: i64 = 60;

/// A bearer already verified for this request (by the request limit, which counts a request
/// against its verified credential): the operation does not verify it twice.
#[derive(Clone)]
pub struct Verified(pub Caller);

async fn check_bearer(req: &Request, bearer: Bearer) -> poem::Result<Caller> {
    if let Some(Verified(caller)) = req.data::<Verified>() {
        return Ok(caller.clone());
    }
    // poem-openapi hands a security scheme's checker the request alone.
    let state = req.data::<AppState>().expect("AppState is attached to every request");
    Ok(verify(&Bearers::of(state), &bearer.token).await?)
}

/// What checking a bearer touches: programs' tokens (in the database), the keys sessions' tokens
/// are signed with, and the sessions.
pub struct Bearers<'a> {
    pub db: &'a sqlx::PgPool,
    pub tokens: &'a TokenKeys,
    pub sessions: &'a SessionGuard,
}

impl<'a> Bearers<'a> {
    pub fn of(state: &'a AppState) -> Self {
        Self { db: &state.db, tokens: &state.tokens, sessions: &state.sessions }
    }
}

/// The caller the request's bearer stands for, when there is one and it checks out: verified
/// once per request (the first asker keeps it on the request for the others). `Err` when it could
/// not be checked (PostgreSQL away: a 503 at once, rather than the operation waiting for the
/// database a second time).
pub async fn verified(state: &Bearers<'_>, req: &mut Request) -> Result<Option<Caller>, AppError> {
    if let Some(Verified(caller)) = req.data::<Verified>() {
        return Ok(Some(caller.clone()));
    }
    let Some(header) = req.headers().get(poem::http::header::AUTHORIZATION).and_then(|h| h.to_str().ok()) else { return Ok(None) };
    let Some((scheme, token)) = header.split_once(' ') else { return Ok(None) };
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Ok(None);
    }
    let caller = match verify(state, token.trim()).await {
        Ok(caller) => caller,
        Err(err @ (AppError::Busy { .. } | AppError::Unexpected(_))) => return Err(err),
        Err(_) => return Ok(None),
    };
    req.extensions_mut().insert(Verified(caller.clone()));
    Ok(Some(caller))
}

/// The caller a bearer stands for, if it checks out: a live session's token or a live program's
/// token.
pub async fn verify(state: &Bearers<'_>, token: &str) -> Result<Caller, AppError> {
    if api_token::is_api_token(token) {
        return check_api_token(state, token).await;
    }
    let Some(claims) = state.tokens.verify(token) else {
        // Ours but expired: the session is over. Anything else was never a token of ours.
        return Err(if state.tokens.signed_here(token) { AppError::SessionExpired } else { AppError::Unauthorized });
    };
    // A session that cannot be checked (PostgreSQL away) is a 503, like any database error.
    if !state.sessions.is_live(claims.sid).await? {
        return Err(state.sessions.why_ended(claims.sid).await.map_or(AppError::SessionExpired, AppError::SessionEnded));
    }
    Ok(Caller { user_id: claims.sub, role: claims.role, enterprise_id: claims.ent, session_id: claims.sid, credential: Credential::Session })
}

async fn check_api_token(state: &Bearers<'_>, secret: &str) -> Result<Caller, AppError> {
    let token = store::api_tokens::live(state.db, &api_token::hash(secret)).await?.ok_or(AppError::Unauthorized)?;
    if token.last_used_at.is_none_or(|at| (chrono::Utc::now() - at).num_seconds() >= TOUCH_SECS) {
        store::api_tokens::touch(state.db, token.id).await?;
    }
    let role: Role = token.role.parse().map_err(|_| AppError::Unauthorized)?;
    let service = token.user_id.is_none();
    Ok(Caller {
        user_id: token.user_id.unwrap_or(token.id),
        role,
        enterprise_id: token.enterprise_id,
        session_id: token.id,
        credential: Credential::Token { scopes: token.scopes, service },
    })
}
