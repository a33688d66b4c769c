//! The HTTP API under /api/v1: one module per OpenAPI tag. Handlers are thin: parse, authorize,
//! call, map.

mod auth;
mod types;

use poem_openapi::{OpenApiService, Tags};

pub use types::User;

#[derive(Tags)]
pub enum ApiTags {
    /// Signing in and out, and who the caller is.
    Auth,
}

// A tuple of the tag structs once there are several (poem-openapi has no 1-tuple impl).
pub type Api = auth::AuthApi;

/// The API service; `base` is where it is mounted (written into the document's `servers`).
pub fn service() -> OpenApiService<Api, ()> {
    OpenApiService::new(auth::AuthApi, "Enterprise Platform API", env!("CARGO_PKG_VERSION"))
        .description(
            "Multi-tenant enterprise management platform. Every error is `{ code, message, fields? }` \
             with a stable `code`. Lists are pages `{ items, total, page, pageSize }`. Authenticate \
             with `Authorization: Bearer <token>` from `POST /auth/login`.",
        )
        .server("/api/v1")
}

/// The OpenAPI document as committed in `openapi.json`.
pub fn spec_json() -> String {
    let mut json = service().spec();
    json.push('\n');
    json
}
