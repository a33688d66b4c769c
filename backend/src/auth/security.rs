//! The bearer scheme. Taking `BearerAuth` as an operation parameter both enforces and documents
//! authentication: the token must verify and its session must still be live.

use poem::Request;
use poem_openapi::{SecurityScheme, auth::Bearer};
use uuid::Uuid;

use crate::{domain::Role, error::AppError, state::AppState};

/// The authenticated caller, the first argument of everything that touches data.
#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: Uuid,
    pub role: Role,
    pub enterprise_id: Option<Uuid>,
    pub session_id: Uuid,
}

/// A token from `POST /auth/login`, sent as `Authorization: Bearer <token>`.
#[derive(SecurityScheme)]
#[oai(ty = "bearer", bearer_format = "JWT", checker = "check_bearer")]
pub struct BearerAuth(pub Caller);

async fn check_bearer(req: &Request, bearer: Bearer) -> poem::Result<Caller> {
    let state = req.data::<AppState>().expect("AppState is attached to every request");
    let claims = state.tokens.verify(&bearer.token).ok_or(AppError::SessionExpired)?;
    // A session that cannot be checked (PostgreSQL away) is a 503, like any database error.
    if !state.sessions.is_live(claims.sid).await.map_err(AppError::from)? {
        return Err(AppError::SessionExpired.into());
    }
    Ok(Caller { user_id: claims.sub, role: claims.role, enterprise_id: claims.ent, session_id: claims.sid })
}
