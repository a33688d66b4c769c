use std::time::Duration;

use anyhow::Context;
use sqlx::{
    PgPool,
    migrate::{MigrateDatabase, Migrator},
    postgres::PgPoolOptions,
};

/// The public-schema migrations (`migrations/`), embedded at build time.
pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

pub fn pool(url: &str) -> anyhow::Result<PgPool> {
    Ok(PgPoolOptions::new()
        .max_connections(20)
        .acquire_timeout(Duration::from_secs(5))
        .connect_lazy(url)
        .context("invalid DATABASE_URL")?)
}

/// Creates the database when it does not exist yet, then applies pending migrations.
pub async fn migrate(url: &str) -> anyhow::Result<PgPool> {
    if !sqlx::Postgres::database_exists(url).await.context("cannot reach PostgreSQL")? {
        tracing::info!("creating the database");
        sqlx::Postgres::create_database(url).await.context("cannot create the database")?;
    }
    let pool = pool(url)?;
    MIGRATOR.run(&pool).await.context("migration failed")?;
    Ok(pool)
}
