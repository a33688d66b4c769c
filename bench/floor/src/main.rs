//! The minimal authenticated read, the floor `GET /reports/{id}` is measured against
//! (bench/mixed.sh, issue 28's third rung): poem and sqlx as the server uses them, an HS256 check
//! of the server's own bearer token, one Redis GET of its session's cached state, and one prepared
//! single-row query of the report, answered as JSON. Nothing else: no tenancy, roles, history,
//! logging or metrics. Loopback only; a benchmark tool, never deployed.
//!
//! Environment: `BIND_ADDR`, `DATABASE_URL`, `REDIS_URL`, `REDIS_PREFIX`, `JWT_SECRET` (those the
//! server under test was given), and `FLOOR_SCHEMA`, the tenant schema whose reports are read.

use std::env::var;

use anyhow::Context;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use poem::{
    EndpointExt, Route, Server, get, handler,
    http::StatusCode,
    listener::TcpListener,
    web::{Data, Json, Path, TypedHeader, headers},
};
use serde::{Deserialize, Serialize};
use sqlx::postgres::PgPoolOptions;
use uuid::Uuid;

#[derive(Clone)]
struct Floor {
    db: sqlx::PgPool,
    /// One multiplexed connection shared by every request: no pool, no ping on checkout.
    redis: deadpool_redis::redis::aio::MultiplexedConnection,
    prefix: String,
    key: DecodingKey,
    validation: Validation,
    /// Made once from `FLOOR_SCHEMA`, a checked name.
    query: &'static str,
}

#[derive(Deserialize)]
struct Claims {
    sid: Uuid,
}

#[derive(Serialize, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
struct Report {
    id: Uuid,
    department_id: Uuid,
    title: String,
    status: String,
    updated_at: chrono::DateTime<chrono::Utc>,
}

#[handler]
async fn read(
    Data(floor): Data<&Floor>,
    TypedHeader(auth): TypedHeader<headers::Authorization<headers::authorization::Bearer>>,
    Path(id): Path<Uuid>,
) -> poem::Result<Json<Report>> {
    let unauthorized = || poem::Error::from_status(StatusCode::UNAUTHORIZED);
    let claims = jsonwebtoken::decode::<Claims>(auth.token(), &floor.key, &floor.validation).map_err(|_| unauthorized())?.claims;
    let live: Option<String> = deadpool_redis::redis::cmd("GET")
        .arg(format!("{}session:{}", floor.prefix, claims.sid))
        .query_async(&mut floor.redis.clone())
        .await
        .map_err(poem::error::InternalServerError)?;
    if live.as_deref() != Some("1") {
        return Err(unauthorized());
    }
    let report = sqlx::query_as::<_, Report>(sqlx::AssertSqlSafe(floor.query))
        .bind(id)
        .fetch_optional(&floor.db)
        .await
        .map_err(poem::error::InternalServerError)?
        .ok_or_else(|| poem::Error::from_status(StatusCode::NOT_FOUND))?;
    Ok(Json(report))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let schema = var("FLOOR_SCHEMA").context("FLOOR_SCHEMA")?;
    anyhow::ensure!(schema.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'), "FLOOR_SCHEMA: a schema name");
    let mut validation = Validation::new(Algorithm::HS256);
    validation.leeway = 0;
    let floor = Floor {
        // As many connections as the server's pool (backend/src/db.rs), never pinged before a
        // query (sqlx's default pings each checkout: a round trip the least read does not make).
        db: PgPoolOptions::new().max_connections(20).test_before_acquire(false).connect_lazy(&var("DATABASE_URL").context("DATABASE_URL")?)?,
        redis: deadpool_redis::redis::Client::open(var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into()))?
            .get_multiplexed_async_connection()
            .await?,
        prefix: var("REDIS_PREFIX").unwrap_or_default(),
        key: DecodingKey::from_secret(var("JWT_SECRET").context("JWT_SECRET")?.as_bytes()),
        validation,
        query: format!("select id, department_id, title, status, updated_at from {schema}.reports where id = $1").leak(),
    };
    let app = Route::new().at("/api/v1/reports/:id", get(read)).data(floor);
    Server::new(TcpListener::bind(var("BIND_ADDR").unwrap_or_else(|_| "127.0.0.1:8290".into()))).run(app).await?;
    Ok(())
}
