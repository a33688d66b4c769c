use serde_json::json;

use crate::database::test_database;
use crate::helpers::TestApp;

async fn schemas(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar("select schema_name::text from information_schema.schemata where schema_name like 't\\_%' order by 1")
        .fetch_all(&app.db)
        .await
        .unwrap()
}

/// The spare tenant schemas a server keeps ready (`TENANT_SPARE_SCHEMAS`), oldest first.
async fn spares(db: &sqlx::PgPool) -> Vec<String> {
    sqlx::query_scalar("select schema_name from tenant_schemas where enterprise_id is null and schema_name <> 'platform' order by 1")
        .fetch_all(db)
        .await
        .unwrap()
}

/// Waits (up to 60 s: a busy machine) until the server keeps two spares, none of them `taken`.
async fn two_spares_without(db: &sqlx::PgPool, taken: Option<&str>) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let now = spares(db).await;
        if now.len() == 2 && taken.is_none_or(|t| !now.iter().any(|s| s == t)) {
            return now;
        }
        assert!(std::time::Instant::now() < deadline, "spares never refilled: {now:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// On Citus a tenant's baseline is about thirty DDL round trips to the workers, so the server
/// makes tenant schemas ahead (`tenancy::spares`): a new enterprise takes one, whole and at the
/// newest version, and another is made in its place.
#[tokio::test]
async fn a_new_enterprise_takes_a_schema_made_ahead_and_another_is_made_in_its_place() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db.clone(), |c| c.tenant_spares = Some(2)).await;
    let before = two_spares_without(&db, None).await;
    let admin = app.admin_token().await;
    let (id, ceo) = app.enterprise(&admin, "Spare One").await;
    let taken = format!("t_{}", id.replace('-', ""));
    assert_eq!(taken, before[0], "the oldest spare gave the enterprise its id");
    let version: i64 =
        sqlx::query_scalar("select version from tenant_schemas where enterprise_id = $1::uuid").bind(&id).fetch_one(&db).await.unwrap();
    assert_eq!(version, backend::tenancy::latest_version());
    let (status, departments) = app.get(&ceo, &format!("/api/v1/enterprises/{id}/departments")).await;
    assert_eq!(status, 200, "{departments}");
    assert_eq!(departments.as_array().unwrap().len(), 5, "{departments}");
    let (status, head) = app
        .post(
            &ceo,
            "/api/v1/users",
            json!({ "fullName": "Head", "email": "head@spare-one.example", "password": "staff-password", "role": "DepartmentHead", "departmentId": departments[0]["id"] }),
        )
        .await;
    assert_eq!(status, 201, "{head}");
    let after = two_spares_without(&db, Some(&taken)).await;
    assert_eq!(after[0], before[1], "the other spare waits for the next enterprise");
    // Spares are not tenants: the platform counts one enterprise.
    let (_, page) = app.get(&admin, "/api/v1/enterprises").await;
    assert_eq!(page["total"], 1, "{page}");
}

#[tokio::test]
async fn creating_an_enterprise_makes_its_ceo_schema_and_five_departments() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;

    let (status, body) = app
        .post(
            &admin,
            "/api/v1/enterprises",
            json!({
                "name": "Acme", "description": "Anvils", "ceoFullName": "Ada CEO",
                "ceoEmail": "ada@acme.example", "ceoPassword": "ceo-password"
            }),
        )
        .await;

    assert_eq!(status, 201, "{body}");
    assert_eq!(body["name"], "Acme");
    assert_eq!(body["isActive"], true);
    assert_eq!(body["ceo"]["email"], "ada@acme.example");
    assert_eq!(body["ceo"]["role"], "EnterpriseCeo");
    let id = body["id"].as_str().unwrap();
    assert_eq!(schemas(&app).await, vec![format!("t_{}", id.replace('-', ""))]);
    let version: i64 =
        sqlx::query_scalar("select version from tenant_schemas where enterprise_id = $1::uuid").bind(id).fetch_one(&app.db).await.unwrap();
    assert_eq!(version, backend::tenancy::latest_version());

    let (status, detail) = app.get(&admin, &format!("/api/v1/enterprises/{id}")).await;
    assert_eq!(status, 200);
    let types: Vec<&str> = detail["departments"].as_array().unwrap().iter().map(|d| d["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["finance", "operations", "sales_marketing", "human_resources", "information_technology"], "in the product's order");
    assert_eq!(detail["userCount"], 1);
    assert_eq!(detail["reportCount"], 0);
    // The CEO can sign in and sees their enterprise.
    let ceo = app.token("ada@acme.example", "ceo-password").await;
    assert_eq!(app.get(&ceo, &format!("/api/v1/enterprises/{id}")).await.0, 200);
}

#[tokio::test]
async fn invalid_input_names_every_field() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (status, body) =
        app.post(&admin, "/api/v1/enterprises", json!({ "name": " ", "ceoFullName": "", "ceoEmail": "nope", "ceoPassword": "short" })).await;
    assert_eq!(status, 400);
    assert_eq!(body["fields"], json!({ "name": "required", "ceoFullName": "required", "ceoEmail": "invalid_email", "ceoPassword": "too_short" }));
}

#[tokio::test]
async fn a_taken_ceo_email_is_409_and_leaves_nothing() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    app.enterprise(&admin, "Acme").await;

    let (status, body) = app
        .post(
            &admin,
            "/api/v1/enterprises",
            json!({
                "name": "Copycat", "ceoFullName": "Other", "ceoEmail": "CEO@acme.example", "ceoPassword": "ceo-password"
            }),
        )
        .await;

    assert_eq!((status, body["code"].as_str()), (409, Some("conflict")));
    assert_eq!(body["fields"], json!({ "ceoEmail": "taken" }));
    let names: Vec<String> = sqlx::query_scalar("select name from enterprises").fetch_all(&app.db).await.unwrap();
    assert_eq!(names, ["Acme"]);
    assert_eq!(schemas(&app).await.len(), 1);
}

#[tokio::test]
async fn a_failure_after_the_schema_is_created_leaves_no_row_and_no_schema() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    // Fail the last step of the transaction: recording the tenant's version.
    for sql in [
        "create function fail() returns trigger language plpgsql as $$ begin raise exception 'forced failure'; end $$",
        "create trigger fail before insert on tenant_schemas for each row execute function fail()",
    ] {
        sqlx::raw_sql(sql).execute(&app.db).await.unwrap();
    }

    let (status, body) = app
        .post(
            &admin,
            "/api/v1/enterprises",
            json!({
                "name": "Doomed", "ceoFullName": "Nobody", "ceoEmail": "ceo@doomed.example", "ceoPassword": "ceo-password"
            }),
        )
        .await;

    assert_eq!((status, body["code"].as_str()), (500, Some("internal")));
    assert!(!body.to_string().contains("forced failure"), "internals stay in the log: {body}");
    let rows: (i64, i64) = sqlx::query_as("select (select count(*) from enterprises), (select count(*) from users where enterprise_id is not null)")
        .fetch_one(&app.db)
        .await
        .unwrap();
    assert_eq!(rows, (0, 0));
    assert!(schemas(&app).await.is_empty());
}

#[tokio::test]
async fn the_list_searches_filters_and_pages() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    for name in ["Alpha", "Beta", "Gamma"] {
        app.enterprise(&admin, name).await;
    }
    let (beta, _) = (app.get(&admin, "/api/v1/enterprises?q=bet").await.1["items"][0]["id"].as_str().unwrap().to_owned(), ());
    app.put(&admin, &format!("/api/v1/enterprises/{beta}"), json!({ "isActive": false })).await;

    let (status, page) = app.get(&admin, "/api/v1/enterprises?pageSize=2&page=1").await;
    assert_eq!(status, 200);
    assert_eq!((page["total"].as_i64(), page["items"].as_array().unwrap().len(), page["pageSize"].as_i64()), (Some(3), 2, Some(2)));
    let (_, page2) = app.get(&admin, "/api/v1/enterprises?pageSize=2&page=2").await;
    assert_eq!(page2["items"].as_array().unwrap().len(), 1);
    let (_, inactive) = app.get(&admin, "/api/v1/enterprises?active=false").await;
    assert_eq!(inactive["items"][0]["name"], "Beta");
    assert_eq!(inactive["total"], 1);
    let (_, by_ceo_email) = app.get(&admin, "/api/v1/enterprises?q=ceo@gamma").await;
    assert_eq!(by_ceo_email["items"][0]["name"], "Gamma");
    // 100 is the most a page holds.
    assert_eq!(app.get(&admin, "/api/v1/enterprises?pageSize=101").await.0, 400);
    assert_eq!(app.get(&admin, "/api/v1/enterprises?page=0").await.0, 400);
}

#[tokio::test]
async fn a_ceo_reads_only_their_own_enterprise_and_never_manages_enterprises() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (mine, ceo) = app.enterprise(&admin, "Mine").await;
    let (other, _) = app.enterprise(&admin, "Other").await;

    assert_eq!(app.get(&ceo, &format!("/api/v1/enterprises/{mine}")).await.0, 200);
    assert_eq!(app.get(&ceo, &format!("/api/v1/enterprises/{other}")).await.0, 404);
    assert_eq!(app.get(&ceo, "/api/v1/enterprises").await.0, 403);
    let create = json!({ "name": "X", "ceoFullName": "X", "ceoEmail": "x@x.example", "ceoPassword": "ceo-password" });
    assert_eq!(app.post(&ceo, "/api/v1/enterprises", create).await.0, 403);
    assert_eq!(app.put(&ceo, &format!("/api/v1/enterprises/{mine}"), json!({ "name": "Y" })).await.0, 403);
    assert_eq!(app.delete(&ceo, &format!("/api/v1/enterprises/{mine}")).await.0, 403);
}

#[tokio::test]
async fn deactivating_an_enterprise_signs_its_people_out_and_keeps_them_out() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = app.enterprise(&admin, "Acme").await;
    assert_eq!(app.me(&ceo).await.status(), 200);

    let (status, body) = app.put(&admin, &format!("/api/v1/enterprises/{id}"), json!({ "isActive": false, "name": "Acme Ltd" })).await;
    assert_eq!(status, 200);
    assert_eq!((body["isActive"].as_bool(), body["name"].as_str()), (Some(false), Some("Acme Ltd")));

    assert_eq!(app.me(&ceo).await.status(), 401);
    let (status, body) = crate::helpers::parts(app.login("ceo@acme.example", "ceo-password").await).await;
    assert_eq!((status, body["code"].as_str()), (403, Some("account_inactive")));

    app.put(&admin, &format!("/api/v1/enterprises/{id}"), json!({ "isActive": true })).await;
    assert_eq!(app.login("ceo@acme.example", "ceo-password").await.status(), 200);
}

/// Tenant DDL locks `public.users` (the tenant tables reference it); the CEO is inserted last so
/// that concurrent creations queue instead of deadlocking.
#[tokio::test]
async fn concurrent_creations_all_succeed() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let creations = (0..6).map(|i| {
        let body = json!({
            "name": format!("Parallel {i}"), "ceoFullName": "CEO", "ceoEmail": format!("ceo{i}@parallel.example"), "ceoPassword": "ceo-password"
        });
        app.post(&admin, "/api/v1/enterprises", body)
    });
    for (status, body) in futures_util::future::join_all(creations).await {
        assert_eq!(status, 201, "{body}");
    }
    assert_eq!(schemas(&app).await.len(), 6);
}

/// A foreign key from a tenant table to a shared table puts triggers on the shared table, one set
/// per tenant: at a few thousand tenants, deleting one user ran out of lock slots.
#[tokio::test]
async fn tenants_put_no_triggers_or_foreign_keys_on_shared_tables() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let shared_triggers = || async {
        sqlx::query_scalar::<_, i64>("select count(*) from pg_trigger where tgrelid in ('public.users'::regclass, 'public.enterprises'::regclass)")
            .fetch_one(&app.db)
            .await
            .unwrap()
    };
    let before = shared_triggers().await;
    app.enterprise(&admin, "Acme").await;
    app.enterprise(&admin, "Globex").await;
    assert_eq!(shared_triggers().await, before);
    let tenant_keys: i64 = sqlx::query_scalar(
        "select count(*) from pg_constraint where contype = 'f' and connamespace <> 'public'::regnamespace \
         and confrelid in (select oid from pg_class where relnamespace = 'public'::regnamespace)",
    )
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(tenant_keys, 0);
}

/// Issue 27: names are unique across the platform, compared ignoring case and accents, and a
/// taken one is a 409 naming the field, on creation and on renaming.
#[tokio::test]
async fn a_taken_name_ignoring_case_and_accents_is_409_on_the_name_field() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let create = |name: &str, email: &str| json!({ "name": name, "ceoFullName": "Someone", "ceoEmail": email, "ceoPassword": "ceo-password" });
    let (status, acme) = app.post(&admin, "/api/v1/enterprises", create("Acme Industries", "ceo1@acme.example")).await;
    assert_eq!(status, 201, "{acme}");

    for (i, variant) in ["Acme Industries", "ACME industries", "Acmé Industries", "  acmé INDUSTRIES  "].into_iter().enumerate() {
        let (status, body) = app.post(&admin, "/api/v1/enterprises", create(variant, &format!("ceo-variant{i}@acme.example"))).await;
        assert_eq!((status, body["code"].as_str()), (409, Some("conflict")), "{variant}: {body}");
        assert_eq!(body["fields"], json!({ "name": "taken" }), "{variant}");
        assert_eq!(body["message"], "An enterprise with this name already exists");
    }
    // Nothing was left behind by the refused creations: one enterprise, one tenant schema, no CEO.
    let names: Vec<String> = sqlx::query_scalar("select name from enterprises").fetch_all(&app.db).await.unwrap();
    assert_eq!(names, ["Acme Industries"]);
    assert_eq!(schemas(&app).await.len(), 1);
    let variant_ceos: i64 = sqlx::query_scalar("select count(*) from users where email like 'ceo-variant%'").fetch_one(&app.db).await.unwrap();
    assert_eq!(variant_ceos, 0);

    // A genuinely different name passes, in creation and in renaming.
    let (status, other) = app.post(&admin, "/api/v1/enterprises", create("Acme Industries East", "ceo2@acme.example")).await;
    assert_eq!(status, 201, "{other}");
    let other = format!("/api/v1/enterprises/{}", other["id"].as_str().unwrap());
    for variant in ["acme industries", "ACMÉ Industries"] {
        let (status, body) = app.put(&admin, &other, json!({ "name": variant })).await;
        assert_eq!((status, body["code"].as_str(), &body["fields"]), (409, Some("conflict"), &json!({ "name": "taken" })), "{variant}: {body}");
    }
    let (_, unchanged) = app.get(&admin, &other).await;
    assert_eq!(unchanged["name"], "Acme Industries East", "a refused rename changes nothing");
    let (status, renamed) = app.put(&admin, &other, json!({ "name": "Acme Industries West", "description": "Moved" })).await;
    assert_eq!((status, renamed["name"].as_str()), (200, Some("Acme Industries West")), "{renamed}");
    // An enterprise keeps its own name, in another case or with accents.
    let own = format!("/api/v1/enterprises/{}", acme["id"].as_str().unwrap());
    let (status, recased) = app.put(&admin, &own, json!({ "name": "ACMÉ Industries" })).await;
    assert_eq!((status, recased["name"].as_str()), (200, Some("ACMÉ Industries")), "{recased}");
    // A name is kept while the deletion can be undone, and freed by the purge.
    assert_eq!(app.delete(&admin, &own).await.0, 202);
    assert_eq!(app.post(&admin, "/api/v1/enterprises", create("Acme industries", "ceo3@acme.example")).await.0, 409);
    assert_eq!(app.post(&admin, &format!("{own}/purge"), json!({ "confirmName": "ACMÉ Industries" })).await.0, 204);
    let (status, body) = app.post(&admin, "/api/v1/enterprises", create("Acme industries", "ceo3@acme.example")).await;
    assert_eq!(status, 201, "{body}");
}

/// `backend seed-demo` never makes a second enterprise of a name that is taken, ignoring case and
/// accents.
#[tokio::test]
async fn the_demo_seed_leaves_a_taken_name_alone() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let admin = app.admin_token().await;
    let body = json!({ "name": "ACMÉ industries", "ceoFullName": "Someone", "ceoEmail": "someone@elsewhere.example", "ceoPassword": "ceo-password" });
    assert_eq!(app.post(&admin, "/api/v1/enterprises", body).await.0, 201);

    backend::seed::seed_demo(&db, &app.config.data_keys).await.unwrap();
    backend::seed::seed_demo(&db, &app.config.data_keys).await.unwrap();

    let names: Vec<String> = sqlx::query_scalar("select name from enterprises order by name").fetch_all(&db).await.unwrap();
    // The demo's own enterprise on its way out is there once.
    assert_eq!(names, ["ACMÉ industries", "Globex Services", "Initech Legacy"]);
}
