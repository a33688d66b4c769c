use sqlx::PgPool;

use backend::tenancy::{
    TENANT_MIGRATIONS as M,
    migrate::{Applied, migrate_all, pending},
};

use crate::helpers::TestApp;

/// The version of the tenant migration before the one that adds reports.
const BEFORE_REPORTS: i64 = 20261125000001;

/// Tables of the reports migration and every later one: dropping them puts a tenant back before
/// reports.
const SINCE_REPORTS: &str = "report_events, reports, spreadsheets, messages, conversation_keys, conversation_members, conversations, \
    messaging_key_backups, messaging_keys";

/// Tables of the migrations after the one that dropped the foreign keys to users.
const SINCE_USER_REFERENCES: &str =
    "spreadsheets, messages, conversation_keys, conversation_members, conversations, messaging_key_backups, messaging_keys";

/// Pretends every tenant is behind (from the reports migration on) by taking those tables away
/// and resetting the version; one tenant keeps them, so the replay fails there.
#[sqlx::test(migrator = "backend::db::MIGRATOR")]
async fn migrate_reports_a_failed_tenant_goes_on_and_resumes(db: PgPool) {
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let mut ids = Vec::new();
    for name in ["One", "Two", "Three"] {
        ids.push(app.enterprise(&admin, name).await.0.replace('-', ""));
    }
    assert!(pending(&app.db, &M).await.unwrap().is_empty(), "nothing pending after creation");
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "set search_path = t_{0}; drop table {SINCE_REPORTS}; set search_path = t_{1}; drop table {SINCE_REPORTS}; reset search_path;
         update tenant_schemas set version = {2} where enterprise_id is not null;",
        ids[0], ids[1], BEFORE_REPORTS
    )))
    .execute(&app.db)
    .await
    .unwrap();
    assert_eq!(pending(&app.db, &M).await.unwrap().len(), 3);

    let summary = migrate_all(&app.db, &M, 2, |_, _, _| {}).await.unwrap();
    assert_eq!(summary.migrated, 2);
    assert_eq!(summary.failed.len(), 1);
    assert_eq!(summary.failed[0].0, format!("t_{}", ids[2]));
    assert!(summary.failed[0].1.contains("already exists"), "{:?}", summary.failed);
    let last_error: Option<String> = sqlx::query_scalar("select last_error from tenant_schemas where schema_name = $1")
        .bind(format!("t_{}", ids[2]))
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert!(last_error.is_some());
    assert_eq!(pending(&app.db, &M).await.unwrap(), vec![format!("t_{}", ids[2])]);

    // Fixed by the operator, a second run picks up only what is left.
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("set search_path = t_{0}; drop table {SINCE_REPORTS}; reset search_path", ids[2])))
        .execute(&app.db)
        .await
        .unwrap();
    let summary = migrate_all(&app.db, &M, 2, |_, _, _| {}).await.unwrap();
    assert_eq!((summary.migrated, summary.failed.len()), (1, 0));
    assert!(pending(&app.db, &M).await.unwrap().is_empty());
    let tables: i64 = sqlx::query_scalar("select count(*) from information_schema.tables where table_name = 'reports' and table_schema like 't\\_%'")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(tables, 3, "the three tenants have reports again");
    assert_eq!(backend::tenancy::migrate::migrate_one(&app.db, &M, &format!("t_{}", ids[0])).await.unwrap(), Applied::UpToDate);
}

/// A schema built while tenant tables still had foreign keys to public.users loses them when
/// migrated (tenant-migrations/20261126000001_user_references_without_foreign_keys.sql).
#[sqlx::test(migrator = "backend::db::MIGRATOR")]
async fn old_tenant_schemas_lose_their_foreign_keys_to_users(db: PgPool) {
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let id = app.enterprise(&admin, "Old").await.0.replace('-', "");
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "alter table t_{id}.departments add constraint departments_head_id_fkey foreign key (head_id) references public.users (id) on delete set null;
         alter table t_{id}.reports add constraint reports_created_by_fkey foreign key (created_by) references public.users (id);
         alter table t_{id}.reports add constraint reports_reviewed_by_fkey foreign key (reviewed_by) references public.users (id) on delete set null;
         alter table t_{id}.report_events add constraint report_events_actor_id_fkey foreign key (actor_id) references public.users (id) on delete set null;
         set search_path = t_{id}; drop table {SINCE_USER_REFERENCES}; reset search_path;
         update tenant_schemas set version = 20261125000002 where schema_name = 't_{id}';"
    )))
    .execute(&app.db)
    .await
    .unwrap();
    let user_keys = || async {
        sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(format!(
            "select count(*) from pg_constraint where contype = 'f' and confrelid = 'public.users'::regclass and connamespace = 't_{id}'::regnamespace"
        )))
        .fetch_one(&app.db)
        .await
        .unwrap()
    };
    assert_eq!(user_keys().await, 4);
    let applied = backend::tenancy::migrate::migrate_one(&app.db, &M, &format!("t_{id}")).await.unwrap();
    assert_eq!(applied, Applied::Migrated { from: 20261125000002, to: backend::tenancy::latest_version() });
    assert_eq!(user_keys().await, 0);
}
