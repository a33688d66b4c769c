//! Secrets sealed at rest (issue 46): a copy of the database holds no secret that signs,
//! authenticates or opens anything, and the data key can be rotated while people work, losing
//! nothing; a server with a missing or wrong key refuses to start.

use backend::sealed::{KeyRing, Reseal, SSO_CLIENT_SECRET, Sealed, WEBHOOK_SECRET};
use base64::Engine;
use rand::RngCore;
use serde_json::json;
use sqlx::PgPool;

use crate::database::test_database;
use crate::helpers::TestApp;
use crate::mfa::{code_at, enrol};
use crate::sso::issuer;

/// `v<version>:<base64 of 32 random bytes>`.
fn key(version: u32) -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("v{version}:{}", base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// The whole test database as `pg_dump` writes it.
fn dump(db: &PgPool) -> String {
    let mut url = url::Url::parse(&std::env::var("DATABASE_URL").expect("DATABASE_URL")).unwrap();
    url.set_path(&format!("/{}", db.connect_options().get_database().expect("a database name")));
    let out = std::process::Command::new("pg_dump").args(["--no-owner", "--dbname", url.as_str()]).output().expect("pg_dump runs");
    assert!(out.status.success(), "pg_dump: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A CEO's enterprise with an authenticator (its secret), a client secret for single sign-on and
/// webhooks (their secrets).
struct Secrets {
    enterprise: String,
    ceo_email: String,
    ceo: String,
    totp: String,
    client_secret: String,
    webhooks: Vec<(String, String)>,
}

async fn make_secrets(app: &TestApp, name: &str, webhooks: usize) -> Secrets {
    let admin = app.admin_token().await;
    let (enterprise, ceo) = app.enterprise(&admin, name).await;
    let ceo_email = format!("ceo@{}.example", name.to_lowercase().replace(' ', "-"));
    let (totp, _) = enrol(app, &ceo).await;
    let client_secret = format!("sso-secret-{}", uuid::Uuid::now_v7().simple());
    let body = json!({ "issuer": issuer(), "clientId": "platform", "clientSecret": client_secret, "domains": [ceo_email.split('@').nth(1).unwrap()], "provisioning": "just_in_time" });
    let (status, saved) = app.put(&ceo, &format!("/api/v1/enterprises/{enterprise}/sso"), body).await;
    assert_eq!(status, 200, "{saved}");
    let mut hooks = Vec::new();
    for n in 0..webhooks {
        let (status, hook) =
            app.post(&ceo, "/api/v1/webhooks", json!({ "url": format!("https://127.0.0.1/hook/{n}"), "events": ["user.created"] })).await;
        assert_eq!(status, 201, "{hook}");
        hooks.push((hook["id"].as_str().unwrap().to_owned(), hook["secret"].as_str().unwrap().to_owned()));
    }
    Secrets { enterprise, ceo_email, ceo, totp, client_secret, webhooks: hooks }
}

/// A sign-in with password and the authenticator's current code: the sealed secret opened.
async fn signs_in_with_a_code(app: &TestApp, email: &str, totp: &str) -> bool {
    let (status, first) = crate::helpers::parts(app.login(email, "ceo-password").await).await;
    assert_eq!(status, 200, "{first}");
    let challenge = first["challenge"].as_str().unwrap_or_else(|| panic!("a second step: {first}"));
    // The next step's code: the current one confirmed the enrolment, and a code works once.
    let body = json!({ "challenge": challenge, "code": code_at(totp, 30) });
    let answer = app.http.post(app.url("/api/v1/auth/login/verify")).json(&body).send().await.unwrap();
    answer.status() == 200
}

/// Every sealed column's values, with the key version that sealed each.
async fn sealed_versions(db: &PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "select substring(v from '^sealed:v[0-9]+') from (
             select secret as v from public.user_totp
             union all select client_secret from public.enterprise_sso where client_secret <> ''
             union all select secret from public.webhooks
             union all select previous_secret from public.webhooks where previous_secret is not null
         ) s order by 1",
    )
    .fetch_all(db)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_dump_of_the_database_holds_no_secret_in_clear_and_each_still_works() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let made = make_secrets(&app, "Sealed One", 1).await;
    let ceo = made.ceo.clone();
    // A rotation: the old secret signs on beside the new one, sealed as the previous secret.
    let (hook, old) = made.webhooks[0].clone();
    let (status, rotated) = app.post(&ceo, &format!("/api/v1/webhooks/{hook}/rotate-secret"), json!({})).await;
    assert_eq!(status, 200, "{rotated}");
    let new = rotated["secret"].as_str().unwrap().to_owned();

    let dump = dump(&db);
    for (what, secret) in [
        ("the authenticator secret", &made.totp),
        ("the client secret", &made.client_secret),
        ("the webhook secret", &new),
        ("the previous webhook secret", &old),
    ] {
        assert!(!dump.contains(secret.as_str()), "{what} is in the dump in clear");
    }
    // The base64 inside `whsec_` is the signing key itself.
    for secret in [&new, &old] {
        assert!(!dump.contains(secret.trim_start_matches("whsec_")), "a webhook's signing key is in the dump");
    }
    assert_eq!(sealed_versions(&db).await, ["sealed:v1"; 4], "four secrets, each sealed with the one key");

    assert!(signs_in_with_a_code(&app, &made.ceo_email, &made.totp).await, "the authenticator still works");
    let stored: Sealed = sqlx::query_scalar("select client_secret from public.enterprise_sso").fetch_one(&db).await.unwrap();
    let enterprise: uuid::Uuid = made.enterprise.parse().unwrap();
    assert_eq!(app.config.data_keys.open_for(SSO_CLIENT_SECRET, enterprise, &stored).unwrap(), made.client_secret);
    // Moved to another enterprise's row, a sealed value does not open.
    assert!(app.config.data_keys.open_for(SSO_CLIENT_SECRET, uuid::Uuid::now_v7(), &stored).is_err());
}

#[tokio::test]
async fn a_new_data_key_reseals_everything_while_people_work_and_the_old_key_can_then_leave() {
    let (db, _dropped) = test_database().await;
    let (k1, k2) = (key(1), key(2));
    let first = KeyRing::parse(&k1).unwrap();
    let app = TestApp::spawn_with(db.clone(), |c| c.data_keys = first.clone()).await;
    let made = make_secrets(&app, "Rekey One", 12).await;

    // Every server gets the new key beside the old one; then `backend rekey` runs while a CEO
    // rotates webhook secrets and signs in with their authenticator.
    let both = KeyRing::parse(&format!("{k1},{k2}")).unwrap();
    let during = TestApp::spawn_like_with(&app, db.clone(), |c| c.data_keys = both.clone()).await;
    // The CEO's session, from the first instance, works on this one (one database, one Redis).
    let ceo = made.ceo.clone();
    let traffic = async {
        let mut latest: Vec<(String, String)> = made.webhooks.clone();
        for round in 0..3 {
            for (id, secret) in latest.iter_mut() {
                let (status, rotated) = during.post(&ceo, &format!("/api/v1/webhooks/{id}/rotate-secret"), json!({})).await;
                assert_eq!(status, 200, "round {round}: {rotated}");
                *secret = rotated["secret"].as_str().unwrap().to_owned();
            }
        }
        latest
    };
    let (latest, resealed) = tokio::join!(traffic, backend::sealed::reseal(&db, &both, Reseal::NotNewest));
    let resealed = resealed.expect("rekey");
    assert!(resealed > 0, "something was sealed with the old key");
    // A second run finds nothing left: rekey resumes and ends.
    assert_eq!(backend::sealed::reseal(&db, &both, Reseal::NotNewest).await.unwrap(), 0);
    let versions = sealed_versions(&db).await;
    assert!(!versions.is_empty() && versions.iter().all(|v| v == "sealed:v2"), "everything under the new key: {versions:?}");

    // Nothing lost: each webhook's secret is the last one its rotation answered, and the
    // authenticator and the client secret open under the new key alone.
    let second = KeyRing::parse(&k2).unwrap();
    for (id, secret) in &latest {
        let stored: Sealed = sqlx::query_scalar("select secret from public.webhooks where id = $1::uuid").bind(id).fetch_one(&db).await.unwrap();
        assert_eq!(&second.open_for(WEBHOOK_SECRET, id.parse().unwrap(), &stored).unwrap(), secret);
    }
    let after = TestApp::spawn_like_with(&app, db.clone(), |c| c.data_keys = second.clone()).await;
    assert!(signs_in_with_a_code(&after, &made.ceo_email, &made.totp).await, "the authenticator works with the new key alone");
    let stored: Sealed = sqlx::query_scalar("select client_secret from public.enterprise_sso").fetch_one(&db).await.unwrap();
    assert_eq!(second.open_for(SSO_CLIENT_SECRET, made.enterprise.parse().unwrap(), &stored).unwrap(), made.client_secret);

    // A server without the key the secrets are sealed with, or with a wrong key of that version,
    // refuses to start, saying so.
    let missing = backend::sealed::prepare(&db, &first).await.unwrap_err().to_string();
    assert!(missing.contains("lacks key v2"), "{missing}");
    let wrong = backend::sealed::prepare(&db, &KeyRing::parse(&key(2)).unwrap()).await.unwrap_err().to_string();
    assert!(wrong.contains("is not the key v2"), "{wrong}");
}
