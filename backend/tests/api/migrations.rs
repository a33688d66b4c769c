use sqlx::PgPool;

use backend::tenancy::{
    TENANT_MIGRATIONS as M,
    migrate::{Applied, migrate_all, pending},
};

use crate::database::test_database;
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
#[tokio::test]
async fn migrate_reports_a_failed_tenant_goes_on_and_resumes() {
    let (db, _dropped) = test_database().await;
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
#[tokio::test]
async fn old_tenant_schemas_lose_their_foreign_keys_to_users() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let id = app.enterprise(&admin, "Old").await.0.replace('-', "");
    // One statement at a time, so that this also runs on Citus (tenant DDL goes to a worker whole).
    let since: Vec<String> = SINCE_USER_REFERENCES.split(", ").map(|t| format!("t_{id}.{t}")).collect();
    for sql in [
        format!(
            "alter table t_{id}.departments add constraint departments_head_id_fkey foreign key (head_id) references public.users (id) on delete set null"
        ),
        format!("alter table t_{id}.reports add constraint reports_created_by_fkey foreign key (created_by) references public.users (id)"),
        format!(
            "alter table t_{id}.reports add constraint reports_reviewed_by_fkey foreign key (reviewed_by) references public.users (id) on delete set null"
        ),
        format!(
            "alter table t_{id}.report_events add constraint report_events_actor_id_fkey foreign key (actor_id) references public.users (id) on delete set null"
        ),
        format!("drop table {}", since.join(", ")),
        format!("update tenant_schemas set version = 20261125000002 where schema_name = 't_{id}'"),
    ] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql)).execute(&app.db).await.unwrap();
    }
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

/// What Citus's schema-based sharding accepts, checked over every tenant migration: the text of
/// each statement (no trigger, no `create schema`, no inheritance or partitioning, no name
/// qualified by another schema than public's users and enterprises), then the catalog of a tenant
/// built from the baseline (no trigger, no foreign key out of the schema, every table keyed by a
/// UUID, no sequence) and of the shared tables tenant queries join (no trigger).
#[tokio::test]
async fn every_tenant_migration_keeps_to_what_citus_accepts() {
    let (db, _dropped) = test_database().await;
    use sqlparser::{
        dialect::PostgreSqlDialect,
        tokenizer::{Token, Tokenizer},
    };
    for m in M.iter() {
        for statement in backend::tenancy::citus::statements(m.sql.as_ref()).unwrap() {
            let tokens = Tokenizer::new(&PostgreSqlDialect {}, statement).tokenize().unwrap();
            let code: Vec<&Token> = tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_))).collect();
            let words: Vec<String> = code.iter().map(|t| if let Token::Word(w) = t { w.value.to_lowercase() } else { String::new() }).collect();
            let at = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
            let whole = format!("{} ({statement})", m.description);
            let creates_trigger = words.iter().enumerate().any(|(i, w)| {
                w == "create"
                    && words[i + 1..].iter().find(|w| !["or", "replace", "constraint"].contains(&w.as_str())).is_some_and(|w| w == "trigger")
            });
            assert!(!creates_trigger, "a trigger: {whole}");
            assert!(!(at(0) == "create" && at(1) == "schema"), "create schema: {whole}");
            assert!(!words.iter().any(|w| w == "inherits"), "inheritance: {whole}");
            assert!(!words.windows(2).any(|w| w[0] == "partition" && w[1] == "by"), "partitioning: {whole}");
            for (i, t) in code.iter().enumerate() {
                if matches!(t, Token::Period) && i > 0 && matches!(code[i - 1], Token::Word(_)) && matches!(code.get(i + 1), Some(Token::Word(_))) {
                    let name = format!("{}.{}", at(i - 1), at(i + 1));
                    assert!(["public.users", "public.enterprises"].contains(&name.as_str()), "names {name}: {whole}");
                }
            }
        }
    }

    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let schema = format!("t_{}", app.enterprise(&admin, "Sharded").await.0.replace('-', ""));
    for realm in [schema.as_str(), "platform"] {
        let count = |sql: &str| {
            let sql = sql.replace("$schema", &format!("'{realm}'::regnamespace"));
            let db = app.db.clone();
            async move { sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql)).fetch_one(&db).await.unwrap() }
        };
        let tables = "select oid from pg_class where relnamespace = $schema and relkind in ('r', 'p')";
        assert!(count(&format!("select count(*) from ({tables}) t")).await >= 10, "{realm} has its tables");
        assert_eq!(
            count(&format!("select count(*) from pg_trigger where not tgisinternal and tgrelid in ({tables})")).await,
            0,
            "triggers in {realm}"
        );
        assert_eq!(
            count(&format!("select count(*) from pg_constraint where contype = 'f' and conrelid in ({tables}) and confrelid not in ({tables})"))
                .await,
            0,
            "foreign keys out of {realm}"
        );
        assert_eq!(
            count(&format!(
                "select count(*) from ({tables}) t where not exists (select 1 from pg_constraint k join pg_attribute a \
                 on a.attrelid = k.conrelid and a.attnum = k.conkey[1] where k.conrelid = t.oid and k.contype = 'p' and a.atttypid = 'uuid'::regtype)"
            ))
            .await,
            0,
            "tables of {realm} not keyed by a UUID"
        );
        assert_eq!(
            count("select count(*) from pg_class where relnamespace = $schema and relkind in ('S', 'p')").await,
            0,
            "sequences or partitioned tables in {realm}"
        );
        assert_eq!(
            count(&format!("select count(*) from pg_inherits where inhrelid in ({tables}) or inhparent in ({tables})")).await,
            0,
            "inheritance in {realm}"
        );
    }
    // On a Citus cluster (the API suite is run against one, docs/scaling.md): the schema is a
    // distributed schema placed whole on one worker, and the shared tables it joins are reference tables.
    if backend::tenancy::citus::enabled(&mut app.db.acquire().await.unwrap()).await.unwrap() {
        let nodes: Vec<(String, i32)> = sqlx::query_as(
            "select distinct s.nodename, s.nodeport from citus_shards s join pg_dist_node n on n.nodename = s.nodename and n.nodeport = s.nodeport \
             where s.table_name::text like $1 and n.groupid <> 0",
        )
        .bind(format!("{schema}.%"))
        .fetch_all(&app.db)
        .await
        .unwrap();
        assert_eq!(nodes.len(), 1, "{schema} lies whole on one worker: {nodes:?}");
        let references: i64 = sqlx::query_scalar(
            "select count(*) from pg_dist_partition where logicalrelid in ('public.users'::regclass, 'public.enterprises'::regclass) and repmodel = 't'",
        )
        .fetch_one(&app.db)
        .await
        .unwrap();
        assert_eq!(references, 2);
    }
    let shared_triggers: i64 = sqlx::query_scalar(
        "select count(*) from pg_trigger where not tgisinternal and tgrelid in ('public.users'::regclass, 'public.enterprises'::regclass)",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(shared_triggers, 0, "the shared tables tenant queries join (Citus reference tables) have no triggers");
}

/// A schema built while tenant tables still had `updated_at` triggers loses them when migrated,
/// and the server keeps `updated_at` itself: an edit moves it.
#[tokio::test]
async fn updated_at_is_written_by_the_server_not_by_triggers() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (enterprise, ceo) = app.enterprise(&admin, "Old").await;
    let id = enterprise.replace('-', "");
    // Such a schema exists only on plain PostgreSQL: Citus refuses triggers on distributed tables.
    let citus = backend::tenancy::citus::enabled(&mut app.db.acquire().await.unwrap()).await.unwrap();
    if !citus {
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "create trigger departments_updated_at before update on t_{id}.departments for each row execute function public.set_updated_at();
             create trigger reports_updated_at before update on t_{id}.reports for each row execute function public.set_updated_at();"
        )))
        .execute(&app.db)
        .await
        .unwrap();
    }
    sqlx::query(sqlx::AssertSqlSafe(format!("update tenant_schemas set version = 20261128000002 where schema_name = 't_{id}'")))
        .execute(&app.db)
        .await
        .unwrap();
    let applied = backend::tenancy::migrate::migrate_one(&app.db, &M, &format!("t_{id}")).await.unwrap();
    assert_eq!(applied, Applied::Migrated { from: 20261128000002, to: backend::tenancy::latest_version() });
    let triggers: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "select count(*) from pg_trigger where not tgisinternal and tgrelid in ('t_{id}.departments'::regclass, 't_{id}.reports'::regclass)"
    )))
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(triggers, 0);

    let stamp = |table: &'static str| {
        let db = app.db.clone();
        let sql = format!("select max(updated_at) from t_{id}.{table}");
        async move { sqlx::query_scalar::<_, chrono::DateTime<chrono::Utc>>(sqlx::AssertSqlSafe(sql)).fetch_one(&db).await.unwrap() }
    };
    let department = app.department(&ceo, &enterprise, "finance").await;
    let before = stamp("departments").await;
    let path = format!("/api/v1/enterprises/{enterprise}/departments/{department}");
    assert_eq!(app.put(&ceo, &path, serde_json::json!({ "description": "Edited" })).await.0, 200);
    assert!(stamp("departments").await > before, "editing a department moves its updated_at");

    app.staff(&ceo, &enterprise, "writer@old.example", "DepartmentUser", Some(&department)).await;
    let writer = app.token("writer@old.example", "staff-password").await;
    let body = serde_json::json!({ "title": "Q1", "content": "", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": "draft" });
    let (_, draft) = app.post(&writer, &format!("/api/v1/departments/{department}/reports"), body).await;
    let report = format!("/api/v1/reports/{}", draft["id"].as_str().unwrap());
    let (status, edited) = app.put(&writer, &report, serde_json::json!({ "title": "Q1 revised" })).await;
    assert_eq!(status, 200, "{edited}");
    assert!(edited["updatedAt"].as_str().unwrap() > draft["updatedAt"].as_str().unwrap(), "an edit moves a report's updatedAt");
    let (_, submitted) = app.put(&writer, &report, serde_json::json!({ "status": "submitted" })).await;
    assert!(submitted["updatedAt"].as_str().unwrap() > edited["updatedAt"].as_str().unwrap(), "a move does too: {submitted}");
    assert!(submitted["submittedAt"].is_string(), "{submitted}");
}

/// Enterprise names become unique ignoring case and accents (migration 20261201000001). On a
/// database that already holds names colliding so, the migration does not fail: the oldest keeps
/// its name, each later one gets the first free " (2)", " (3)", ... Then the index holds.
#[sqlx::test(migrations = false)]
async fn unique_enterprise_names_migrate_a_database_that_already_has_duplicates(db: PgPool) {
    const BEFORE_UNIQUE_NAMES: i64 = 20261130000001;
    backend::db::MIGRATOR.run_to(BEFORE_UNIQUE_NAMES, &db).await.unwrap();
    // Oldest first; "Acme Industries (2)" exists already, so the first duplicate cannot take it.
    let seeded =
        [("Acme Industries", 5), ("ACME industries", 4), ("Acme Industries (2)", 3), ("Acmé Industries", 2), ("  Globex  ", 1), ("globex", 0)];
    for (name, days_ago) in seeded {
        sqlx::query("insert into enterprises (id, name, schema_name, created_at) values ($1, $2, $3, now() - make_interval(days => $4))")
            .bind(uuid::Uuid::now_v7())
            .bind(name)
            .bind(format!("t_seeded_{days_ago}"))
            .bind(days_ago)
            .execute(&db)
            .await
            .unwrap();
    }

    backend::db::MIGRATOR.run(&db).await.unwrap();

    let names: Vec<String> = sqlx::query_scalar("select name from enterprises order by created_at").fetch_all(&db).await.unwrap();
    assert_eq!(names, ["Acme Industries", "ACME industries (3)", "Acme Industries (2)", "Acmé Industries (4)", "Globex", "globex (2)"]);
    let duplicate = sqlx::query("insert into enterprises (id, name, schema_name) values ($1, 'acme INDUSTRIES', 't_duplicate')")
        .bind(uuid::Uuid::now_v7())
        .execute(&db)
        .await
        .unwrap_err();
    assert!(backend::store::enterprises::is_duplicate_name(&duplicate), "{duplicate}");
}
