//! A second factor (issue 26): authenticator apps and recovery codes, the sign-in's second step,
//! set-up during sign-in when a policy requires it, and the admin's or CEO's reset. The codes an
//! authenticator app would show are computed outside the server, by pyotp (TEST_PYTHON, the test
//! tools' venv that scripts/mail/start.sh makes).

use std::process::Command;

use serde_json::{Value, json};

use crate::database::test_database;
use crate::helpers::{Mailbox, TestApp, outbox_drained, parts, python};

/// The code an authenticator app with `secret` shows `offset` seconds from now (pyotp).
pub fn code_at(secret: &str, offset: i64) -> String {
    let out = Command::new(python())
        .args(["-c", "import pyotp, sys, time; print(pyotp.TOTP(sys.argv[1]).at(int(time.time()) + int(sys.argv[2])))", secret, &offset.to_string()])
        .output()
        .expect("the test tools' Python (scripts/mail/start.sh) runs");
    assert!(out.status.success(), "pyotp: {}", String::from_utf8_lossy(&out.stderr));
    let code = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert_eq!(code.len(), 6, "{code}");
    code
}

/// A six-digit code that is not the one now, nor either step beside it.
fn wrong_code(secret: &str) -> String {
    let right = [code_at(secret, -30), code_at(secret, 0), code_at(secret, 30)];
    (0..1_000_000).map(|n| format!("{n:06}")).find(|c| !right.contains(c)).unwrap()
}

async fn login(app: &TestApp, email: &str, password: &str) -> (u16, Value) {
    parts(app.login(email, password).await).await
}

async fn verify(app: &TestApp, challenge: &str, code: &str) -> (u16, Value) {
    let body = json!({ "challenge": challenge, "code": code });
    parts(app.http.post(app.url("/api/v1/auth/login/verify")).json(&body).send().await.unwrap()).await
}

async fn delete_with(app: &TestApp, token: &str, path: &str, body: Value) -> u16 {
    app.http.delete(app.url(path)).bearer_auth(token).json(&body).send().await.unwrap().status().as_u16()
}

/// Turns an authenticator on for the signed-in person; answers its secret and recovery codes.
pub(crate) async fn enrol(app: &TestApp, token: &str) -> (String, Vec<String>) {
    let (status, setup) = app.post(token, "/api/v1/auth/mfa/totp", json!({})).await;
    assert_eq!(status, 200, "{setup}");
    let secret = setup["secret"].as_str().unwrap().to_owned();
    let (status, confirmed) = app.post(token, "/api/v1/auth/mfa/totp/confirm", json!({ "code": code_at(&secret, 0) })).await;
    assert_eq!(status, 200, "{confirmed}");
    let codes = confirmed["recoveryCodes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_owned()).collect();
    (secret, codes)
}

/// The sign-in method of the caller's own current session.
pub(crate) async fn own_method(app: &TestApp, token: &str) -> String {
    let (status, page) = app.get(token, "/api/v1/auth/sessions").await;
    assert_eq!(status, 200, "{page}");
    let current = page["items"].as_array().unwrap().iter().find(|s| s["current"] == true).unwrap_or_else(|| panic!("{page}"));
    current["signInMethod"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_authenticator_turns_on_with_its_first_code_then_each_sign_in_needs_a_code_that_works_once() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Totp One").await;
    let email = "ceo@totp-one.example";
    let (_, status) = app.get(&ceo, "/api/v1/auth/mfa").await;
    assert_eq!(status, json!({ "totpEnabled": false, "passkeys": 0, "recoveryCodesLeft": 0, "required": false }));

    let (status, setup) = app.post(&ceo, "/api/v1/auth/mfa/totp", json!({})).await;
    assert_eq!(status, 200, "{setup}");
    let secret = setup["secret"].as_str().unwrap().to_owned();
    let url = setup["otpauthUrl"].as_str().unwrap();
    assert!(url.starts_with("otpauth://totp/Enterprise%20Platform:ceo%40totp-one.example?"), "{url}");
    assert!(url.contains(&format!("secret={secret}")), "{url}");
    // Not on until a first code proves the app has the secret.
    assert_eq!(login(&app, email, "ceo-password").await.1["mfaRequired"], Value::Null);
    let (status, refused) = app.post(&ceo, "/api/v1/auth/mfa/totp/confirm", json!({ "code": wrong_code(&secret) })).await;
    assert_eq!((status, refused["fields"]["code"].as_str()), (400, Some("invalid")), "{refused}");
    let first = code_at(&secret, 0);
    let (status, confirmed) = app.post(&ceo, "/api/v1/auth/mfa/totp/confirm", json!({ "code": first })).await;
    assert_eq!(status, 200, "{confirmed}");
    let codes: Vec<&str> = confirmed["recoveryCodes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    assert_eq!(codes.len(), 10);
    assert!(codes.iter().all(|c| c.len() == 19 && c.split('-').all(|g| g.len() == 4)), "{codes:?}");
    assert_eq!(app.post(&ceo, "/api/v1/auth/mfa/totp", json!({})).await.0, 409, "one authenticator at a time");
    let (_, me) = parts(app.me(&ceo).await).await;
    assert_eq!(me["mfaEnabled"], true);
    let (_, status) = app.get(&ceo, "/api/v1/auth/mfa").await;
    assert_eq!(status, json!({ "totpEnabled": true, "passkeys": 0, "recoveryCodesLeft": 10, "required": false }));

    // The password alone no longer signs in.
    let (status, step) = login(&app, email, "ceo-password").await;
    assert_eq!(status, 200, "{step}");
    assert_eq!(
        (step["mfaRequired"].clone(), step["methods"].clone(), step["enrollmentRequired"].clone()),
        (json!(true), json!(["totp", "recovery_code"]), json!(false))
    );
    assert_eq!(step["token"], Value::Null, "no token before the second factor");
    let challenge = step["challenge"].as_str().unwrap();
    // The code that confirmed the set-up was used: it does not sign in.
    let (status, replay) = verify(&app, challenge, &first).await;
    assert_eq!((status, replay["code"].as_str()), (401, Some("invalid_code")), "{replay}");
    assert_eq!(replay["message"], "This code is not correct");
    // The next step's code does (one step of drift is allowed), once.
    let next = code_at(&secret, 30);
    let (status, signed_in) = verify(&app, challenge, &next).await;
    assert_eq!(status, 200, "{signed_in}");
    assert_eq!(signed_in["user"]["email"], email);
    assert_eq!(signed_in["recoveryCodes"], Value::Null, "recovery codes come with a set-up only");
    let token = signed_in["token"].as_str().unwrap();
    assert_eq!(app.me(token).await.status(), 200);
    assert_eq!(own_method(&app, token).await, "password_totp");
    let (_, again) = login(&app, email, "ceo-password").await;
    assert_eq!(verify(&app, again["challenge"].as_str().unwrap(), &next).await.0, 401, "a code works once");

    // A recovery code works once, however it is typed.
    let typed = codes[3].to_uppercase().replace('-', " ");
    let (status, by_recovery) = verify(&app, again["challenge"].as_str().unwrap(), &typed).await;
    assert_eq!(status, 200, "{by_recovery}");
    assert_eq!(own_method(&app, by_recovery["token"].as_str().unwrap()).await, "password_recovery_code");
    assert_eq!(verify(&app, again["challenge"].as_str().unwrap(), codes[3]).await.0, 401, "a recovery code works once");
    let (_, status) = app.get(&ceo, "/api/v1/auth/mfa").await;
    assert_eq!(status["recoveryCodesLeft"], 9);

    // A challenge that is not ours, or a missing code.
    let (status, garbled) = verify(&app, "not-a-challenge", &code_at(&secret, 0)).await;
    assert_eq!((status, garbled["code"].as_str()), (401, Some("challenge_expired")), "{garbled}");
    let (status, empty) = verify(&app, again["challenge"].as_str().unwrap(), "").await;
    assert_eq!((status, empty["fields"]["code"].as_str()), (400, Some("required")), "{empty}");
    // A bearer token is not a challenge, nor a challenge a bearer token.
    assert_eq!(verify(&app, token, &code_at(&secret, 0)).await.0, 401);
    assert_eq!(app.me(again["challenge"].as_str().unwrap()).await.status(), 401);

    let (_, audit) = app.get(&admin, "/api/v1/audit-events?action=mfa.totp_enabled").await;
    assert_eq!(audit["items"].as_array().map(Vec::len), Some(1), "{audit}");
    let (_, audit) = app.get(&admin, "/api/v1/audit-events?action=auth.recovery_code_used").await;
    assert_eq!(audit["items"].as_array().map(Vec::len), Some(1), "{audit}");
}

#[tokio::test]
async fn wrong_codes_at_the_second_step_are_limited_like_passwords() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Totp Limits").await;
    let (secret, _) = enrol(&app, &ceo).await;
    let (_, step) = login(&app, "ceo@totp-limits.example", "ceo-password").await;
    let challenge = step["challenge"].as_str().unwrap();
    let wrong = wrong_code(&secret);
    // Five attempts per account and client in the window (the tests' limit), then 429.
    for _ in 0..5 {
        assert_eq!(verify(&app, challenge, &wrong).await.0, 401);
    }
    let resp = app
        .http
        .post(app.url("/api/v1/auth/login/verify"))
        .json(&json!({ "challenge": challenge, "code": code_at(&secret, 0) }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 429, "even the right code waits");
    assert!(resp.headers().get("retry-after").is_some());
    let (_, audit) = app.get(&admin, "/api/v1/audit-events?action=auth.sign_in_failed").await;
    assert_eq!(audit["items"][0]["changes"]["reason"], "wrong_code", "{audit}");
}

#[tokio::test]
async fn turning_it_off_and_new_recovery_codes_need_a_code_or_the_password() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Totp Off").await;
    let (secret, old_codes) = enrol(&app, &ceo).await;

    let url = "/api/v1/auth/mfa/recovery-codes";
    let (status, refused) = app.post(&ceo, url, json!({})).await;
    assert_eq!((status, refused["fields"]["code"].as_str()), (400, Some("required")), "{refused}");
    let (status, refused) = app.post(&ceo, url, json!({ "password": "not-the-password" })).await;
    assert_eq!((status, refused["fields"]["password"].as_str()), (400, Some("invalid")), "{refused}");
    let (status, fresh) = app.post(&ceo, url, json!({ "password": "ceo-password" })).await;
    assert_eq!(status, 200, "{fresh}");
    let fresh: Vec<String> = fresh["recoveryCodes"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_owned()).collect();
    assert_eq!(fresh.len(), 10);
    assert!(fresh.iter().all(|c| !old_codes.contains(c)));
    let (_, step) = login(&app, "ceo@totp-off.example", "ceo-password").await;
    assert_eq!(verify(&app, step["challenge"].as_str().unwrap(), &old_codes[0]).await.0, 401, "the earlier codes stopped working");

    assert_eq!(delete_with(&app, &ceo, "/api/v1/auth/mfa/totp", json!({ "code": wrong_code(&secret) })).await, 400);
    assert_eq!(delete_with(&app, &ceo, "/api/v1/auth/mfa/totp", json!({ "code": code_at(&secret, 30) })).await, 204);
    assert_eq!(delete_with(&app, &ceo, "/api/v1/auth/mfa/totp", json!({ "password": "ceo-password" })).await, 409, "nothing left to turn off");
    let (status, signed_in) = login(&app, "ceo@totp-off.example", "ceo-password").await;
    assert_eq!(status, 200);
    assert!(signed_in["token"].is_string(), "the password alone signs in again: {signed_in}");
    let (_, audit) = app.get(&admin, "/api/v1/audit-events?action=mfa.totp_disabled").await;
    assert_eq!(audit["items"].as_array().map(Vec::len), Some(1), "{audit}");
}

#[tokio::test]
async fn a_policy_has_people_without_a_second_factor_set_one_up_right_after_the_password() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (enterprise, ceo) = app.enterprise(&admin, "Totp Policy").await;
    let finance = app.department(&ceo, &enterprise, "finance").await;
    app.staff(&ceo, &enterprise, "head@totp-policy.example", "DepartmentHead", Some(&finance)).await;
    app.staff(&ceo, &enterprise, "user@totp-policy.example", "DepartmentUser", Some(&finance)).await;
    let policy = format!("/api/v1/enterprises/{enterprise}/security-policy");

    // The platform's list is the default: department users must have a second factor.
    let (status, platform) = app.put(&admin, "/api/v1/platform/security-policy", json!({ "mfaRequiredRoles": ["DepartmentUser"] })).await;
    assert_eq!((status, platform), (200, json!({ "mfaRequiredRoles": ["DepartmentUser"] })));
    let (_, own) = app.get(&ceo, &policy).await;
    assert_eq!(own, json!({ "mfaRequiredRoles": null, "platformDefault": ["DepartmentUser"] }));
    let (status, step) = login(&app, "user@totp-policy.example", "staff-password").await;
    assert_eq!(status, 200, "{step}");
    assert_eq!((step["mfaRequired"].clone(), step["enrollmentRequired"].clone(), step["methods"].clone()), (json!(true), json!(true), json!([])));
    assert_eq!(login(&app, "head@totp-policy.example", "staff-password").await.1["mfaRequired"], Value::Null);

    // The CEO's own list replaces it: heads, not users.
    let (status, changed) = app.put(&ceo, &policy, json!({ "mfaRequiredRoles": ["DepartmentHead"] })).await;
    assert_eq!((status, changed["mfaRequiredRoles"].clone()), (200, json!(["DepartmentHead"])), "{changed}");
    let (status, refused) = app.put(&ceo, &policy, json!({ "mfaRequiredRoles": ["PlatformAdmin"] })).await;
    assert_eq!((status, refused["fields"]["mfaRequiredRoles"].as_str()), (400, Some("invalid")), "{refused}");
    assert!(login(&app, "user@totp-policy.example", "staff-password").await.1["token"].is_string());
    let (_, step) = login(&app, "head@totp-policy.example", "staff-password").await;
    assert_eq!(step["enrollmentRequired"], true, "{step}");
    let challenge = step["challenge"].as_str().unwrap();

    // Nothing is set up yet: no code can pass.
    assert_eq!(verify(&app, challenge, "123456").await.0, 401);
    let resp = app.http.post(app.url("/api/v1/auth/login/totp")).json(&json!({ "challenge": challenge })).send().await.unwrap();
    let (status, setup) = parts(resp).await;
    assert_eq!(status, 200, "{setup}");
    let secret = setup["secret"].as_str().unwrap();
    let (status, signed_in) = verify(&app, challenge, &code_at(secret, 0)).await;
    assert_eq!(status, 200, "{signed_in}");
    assert_eq!(signed_in["recoveryCodes"].as_array().map(Vec::len), Some(10), "{signed_in}");
    let head = signed_in["token"].as_str().unwrap();
    assert_eq!(own_method(&app, head).await, "password_totp");
    assert_eq!(parts(app.me(head).await).await.1["mfaEnabled"], true);
    let (_, status) = app.get(head, "/api/v1/auth/mfa").await;
    assert_eq!((status["totpEnabled"].clone(), status["required"].clone()), (json!(true), json!(true)));
    // The next sign-in asks for a code like anyone's.
    let (_, step) = login(&app, "head@totp-policy.example", "staff-password").await;
    assert_eq!((step["enrollmentRequired"].clone(), step["methods"].clone()), (json!(false), json!(["totp", "recovery_code"])));
    // An enrolment challenge is needed to set up at sign-in.
    let resp = app.http.post(app.url("/api/v1/auth/login/totp")).json(&json!({ "challenge": step["challenge"] })).send().await.unwrap();
    assert_eq!(resp.status(), 401);

    // Back to the platform's default.
    let (status, back) = app.put(&ceo, &policy, json!({ "mfaRequiredRoles": null })).await;
    assert_eq!((status, back["mfaRequiredRoles"].clone()), (200, Value::Null));
    assert_eq!(login(&app, "user@totp-policy.example", "staff-password").await.1["enrollmentRequired"], true);
    let (_, audit) = app.get(&admin, "/api/v1/audit-events?action=enterprise.security_policy_updated").await;
    assert_eq!(audit["items"].as_array().map(Vec::len), Some(2), "{audit}");
}

#[tokio::test]
async fn the_ceo_resets_a_lost_second_factor_and_the_persons_sessions_end() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let (enterprise, ceo) = app.enterprise(&admin, "Totp Reset").await;
    let finance = app.department(&ceo, &enterprise, "finance").await;
    // An address of its own on every run: the catcher keeps what earlier runs received.
    let email = format!("lost-{}@totp-reset.example", uuid::Uuid::now_v7().simple());
    let id = app.staff(&ceo, &enterprise, &email, "DepartmentUser", Some(&finance)).await;
    let staff = app.token(&email, "staff-password").await;
    enrol(&app, &staff).await;
    let (_, listed) = app.get(&ceo, &format!("/api/v1/users/{id}")).await;
    assert_eq!(listed["mfaEnabled"], true);

    let (status, _) = app.delete(&ceo, &format!("/api/v1/users/{id}/mfa")).await;
    assert_eq!(status, 204);
    assert_eq!(app.me(&staff).await.status(), 401, "their sessions ended");
    let (status, signed_in) = login(&app, &email, "staff-password").await;
    assert!(status == 200 && signed_in["token"].is_string(), "the password alone signs in: {signed_in}");
    let (status, again) = app.delete(&ceo, &format!("/api/v1/users/{id}/mfa")).await;
    assert_eq!((status, again["reason"].as_str()), (409, Some("totp_not_enabled")), "{again}");
    // The person hears of each change by e-mail: set up, then reset by the CEO.
    outbox_drained(&app.db).await;
    let got = mail.wait_for(&email, 2).await;
    let subjects: Vec<&str> = got.iter().map(|m| m["subject"].as_str().unwrap()).collect();
    assert!(subjects.contains(&"Two-step sign-in is on for your Enterprise Platform account"), "{subjects:?}");
    assert!(subjects.contains(&"Your Enterprise Platform two-step sign-in was reset"), "{subjects:?}");
    let reset = got.iter().find(|m| m["subject"] == "Your Enterprise Platform two-step sign-in was reset").unwrap();
    assert!(reset["text"].as_str().unwrap().contains("Totp Reset CEO reset the two-step sign-in"), "{reset}");
    let (_, audit) = app.get(&ceo, "/api/v1/audit-events?action=user.mfa_reset").await;
    assert_eq!((audit["items"].as_array().map(Vec::len), audit["items"][0]["changes"]["sessionsEnded"].clone()), (Some(1), json!(1)), "{audit}");
}
