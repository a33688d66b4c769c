//! Passkeys through the API, answered by a software authenticator outside the server
//! (`tests/tools/authenticator.py`: P-256 keys from `cryptography`, CBOR and COSE from Yubico's
//! `fido2`, run by TEST_PYTHON, the test tools' venv that scripts/mail/start.sh makes). The test
//! server's address is `http://localhost:8080`, so its relying party is `localhost`.

use std::{
    io::Write,
    process::{Command, Stdio},
};

use serde_json::{Value, json};

use crate::database::test_database;
use crate::helpers::{Mailbox, TestApp, outbox_drained, parts, python};

const ORIGIN: &str = "http://localhost:8080";

/// Runs the software authenticator: `create` (registration) or `get` (an assertion).
fn authenticator(command: &str, origin: &str, input: Value) -> Value {
    let tool = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tools/authenticator.py");
    let mut child = Command::new(python())
        .args([tool, command, origin])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the test tools' Python (scripts/mail/start.sh) runs");
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "authenticator: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A passkey held by the software authenticator: its private state.
pub struct Device {
    key: Value,
}

impl Device {
    /// Answers `options` (a sign-in's), as the browser on `origin` would.
    pub fn assert(&mut self, options: &Value, origin: &str) -> Value {
        let answer = authenticator("get", origin, json!({ "publicKey": options, "key": self.key }));
        self.key = answer["key"].clone();
        answer["credential"].clone()
    }

    /// An answer with a chosen signature counter, or without user verification.
    fn assert_with(&self, options: &Value, counter: u32, user_verified: bool) -> Value {
        let input = json!({ "publicKey": options, "key": self.key, "counter": counter, "userVerified": user_verified });
        authenticator("get", ORIGIN, input)["credential"].clone()
    }
}

/// The authenticator's answer to registration options asked by the signed-in person (the browser
/// at the app's public address): `{ credential, key }`.
pub async fn registration_answer(app: &TestApp, token: &str) -> Value {
    let (status, options) = app.post(token, "/api/v1/auth/webauthn/registration/options", json!({})).await;
    assert_eq!(status, 200, "{options}");
    authenticator("create", &app.config.mail.public_url, options)
}

/// Registers a passkey named `name` for the signed-in person.
pub async fn register(app: &TestApp, token: &str, name: &str) -> (Device, Value) {
    let created = registration_answer(app, token).await;
    let (status, passkey) = app.post(token, "/api/v1/auth/webauthn/registration", json!({ "name": name, "credential": created["credential"] })).await;
    assert_eq!(status, 201, "{passkey}");
    (Device { key: created["key"].clone() }, passkey)
}

async fn public_post(app: &TestApp, path: &str, body: Value) -> (u16, Value) {
    parts(app.http.post(app.url(path)).json(&body).send().await.unwrap()).await
}

/// The sign-in method of the caller's own current session.
async fn own_method(app: &TestApp, token: &str) -> String {
    let (_, page) = app.get(token, "/api/v1/auth/sessions").await;
    let current = page["items"].as_array().unwrap().iter().find(|s| s["current"] == true).unwrap_or_else(|| panic!("{page}"));
    current["signInMethod"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_passkey_signs_in_alone_or_after_the_password_and_each_answer_counts_once() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Passkey One").await;
    app.staff(&ceo, &acme, "ann@passkey-one.example", "DepartmentUser", None).await;
    let ann = app.token("ann@passkey-one.example", "staff-password").await;

    // Registration asks for a discoverable, user-verified credential of this site, for Ann.
    let (status, options) = app.post(&ann, "/api/v1/auth/webauthn/registration/options", json!({})).await;
    assert_eq!(status, 200, "{options}");
    let public_key = &options["publicKey"];
    assert_eq!(public_key["rp"]["id"], "localhost");
    assert_eq!(public_key["user"]["name"], "ann@passkey-one.example");
    assert_eq!(public_key["authenticatorSelection"]["residentKey"], "required");
    assert_eq!(public_key["authenticatorSelection"]["userVerification"], "required");
    let created = authenticator("create", ORIGIN, options.clone());
    let body = json!({ "name": "  Work laptop ", "credential": created["credential"] });
    let (status, passkey) = app.post(&ann, "/api/v1/auth/webauthn/registration", body.clone()).await;
    assert_eq!(status, 201, "{passkey}");
    assert_eq!((passkey["name"].as_str(), &passkey["lastUsedAt"]), (Some("Work laptop"), &Value::Null));
    // The same answer again: the ceremony was used up.
    let (status, again) = app.post(&ann, "/api/v1/auth/webauthn/registration", body).await;
    assert_eq!((status, again["fields"]["credential"].as_str()), (400, Some("invalid")), "{again}");
    let mut device = Device { key: created["key"].clone() };
    let (_, me) = app.get(&ann, "/api/v1/auth/me").await;
    assert_eq!(me["mfaEnabled"], true, "a passkey is a second factor");
    let (_, status) = app.get(&ann, "/api/v1/auth/mfa").await;
    assert_eq!((status["passkeys"].clone(), status["totpEnabled"].clone()), (json!(1), json!(false)));

    // Alone: no e-mail typed, the passkey names Ann.
    let (status, options) = public_post(&app, "/api/v1/auth/webauthn/login/options", json!({})).await;
    assert_eq!(status, 200, "{options}");
    assert!(options["publicKey"]["allowCredentials"].as_array().is_none_or(Vec::is_empty), "{options}");
    assert_eq!(options["publicKey"]["userVerification"], "required");
    let assertion = device.assert(&options["publicKey"], ORIGIN);
    let (status, signed_in) = public_post(&app, "/api/v1/auth/webauthn/login", json!({ "credential": assertion })).await;
    assert_eq!(status, 200, "{signed_in}");
    assert_eq!(signed_in["user"]["email"], "ann@passkey-one.example");
    assert!(signed_in["deviceToken"].as_str().is_some_and(|t| !t.is_empty()));
    let token = signed_in["token"].as_str().unwrap();
    assert_eq!(own_method(&app, token).await, "passkey");
    let (status, replay) = public_post(&app, "/api/v1/auth/webauthn/login", json!({ "credential": assertion })).await;
    assert_eq!((status, replay["code"].as_str()), (401, Some("challenge_expired")), "an answer signs in once: {replay}");

    // After the password, the passkey is the second factor; the options name Ann's passkey only.
    let (status, step) = parts(app.login("ann@passkey-one.example", "staff-password").await).await;
    assert_eq!(status, 200, "{step}");
    assert_eq!((step["mfaRequired"].clone(), step["methods"].clone()), (json!(true), json!(["webauthn"])));
    let challenge = step["challenge"].as_str().unwrap();
    let (status, options) = public_post(&app, "/api/v1/auth/webauthn/login/options", json!({ "challenge": challenge })).await;
    assert_eq!(status, 200, "{options}");
    let allowed: Vec<&str> = options["publicKey"]["allowCredentials"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(allowed, vec![device.key["credentialId"].as_str().unwrap()]);
    let assertion = device.assert(&options["publicKey"], ORIGIN);
    let (status, verified) = public_post(&app, "/api/v1/auth/login/verify", json!({ "challenge": challenge, "webauthn": assertion })).await;
    assert_eq!(status, 200, "{verified}");
    assert_eq!(own_method(&app, verified["token"].as_str().unwrap()).await, "password_passkey");
    let (status, _) = public_post(&app, "/api/v1/auth/login/verify", json!({ "challenge": challenge, "webauthn": assertion })).await;
    assert_eq!(status, 401, "an answer completes one sign-in");
    let (_, list) = app.get(&ann, "/api/v1/auth/webauthn/credentials").await;
    assert!(list[0]["lastUsedAt"].is_string(), "{list}");

    // A challenge that is not a sign-in's, or whose person has no passkey.
    let (status, _) = public_post(&app, "/api/v1/auth/webauthn/login/options", json!({ "challenge": "garbled" })).await;
    assert_eq!(status, 401);
    let (status, step) = parts(app.login("ceo@passkey-one.example", "ceo-password").await).await;
    assert_eq!((status, step["token"].is_string()), (200, true), "the CEO has no second factor: {step}");
}

#[tokio::test]
async fn a_passkey_answer_that_does_not_verify_never_signs_in() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Passkey Two").await;
    app.staff(&ceo, &acme, "bo@passkey-two.example", "DepartmentUser", None).await;
    let bo = app.token("bo@passkey-two.example", "staff-password").await;
    let (mut device, _) = register(&app, &bo, "Phone").await;

    let app = &app;
    let options = || async { public_post(app, "/api/v1/auth/webauthn/login/options", json!({})).await.1["publicKey"].clone() };
    let sign_in = |credential: Value| async move { public_post(app, "/api/v1/auth/webauthn/login", json!({ "credential": credential })).await };

    // Signed on another site (a phishing page's origin).
    let (status, refused) = sign_in(device.assert(&options().await, "http://localhost.evil.example")).await;
    assert_eq!((status, refused["code"].as_str()), (401, Some("passkey_rejected")), "{refused}");
    // Without user verification (no PIN, no fingerprint).
    let (status, refused) = sign_in(device.assert_with(&options().await, 50, false)).await;
    assert_eq!((status, refused["code"].as_str()), (401, Some("passkey_rejected")), "{refused}");
    // A key no one registered, claiming Bo's user handle.
    let stranger = authenticator(
        "create",
        ORIGIN,
        json!({ "publicKey": { "rp": { "id": "localhost" }, "user": { "id": device.key["userHandle"] }, "challenge": "AAAA", "pubKeyCredParams": [{ "type": "public-key", "alg": -7 }] } }),
    );
    let mut stranger = Device { key: stranger["key"].clone() };
    let (status, refused) = sign_in(stranger.assert(&options().await, ORIGIN)).await;
    assert_eq!((status, refused["code"].as_str()), (401, Some("passkey_rejected")), "{refused}");
    // A counter that went back: a cloned authenticator.
    let (status, _) = sign_in(device.assert_with(&options().await, 10, true)).await;
    assert_eq!(status, 200);
    let (status, refused) = sign_in(device.assert_with(&options().await, 9, true)).await;
    assert_eq!((status, refused["code"].as_str()), (401, Some("passkey_rejected")), "{refused}");
    // Not a credential at all: 400, never a 500.
    for garbage in [
        json!("text"),
        json!({}),
        json!({ "id": "x", "rawId": "x", "type": "public-key", "response": { "clientDataJSON": "bm90IGpzb24", "authenticatorData": "", "signature": "" } }),
    ] {
        let (status, refused) = sign_in(garbage.clone()).await;
        assert!(status == 400 || status == 401, "{garbage}: {status} {refused}");
    }
    // Bo deactivated: the right passkey no longer signs in.
    let bo_id = app.get(&bo, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    assert_eq!(app.put(&ceo, &format!("/api/v1/users/{bo_id}"), json!({ "status": "inactive" })).await.0, 200);
    let (status, refused) = sign_in(device.assert_with(&options().await, 11, true)).await;
    assert_eq!((status, refused["code"].as_str()), (403, Some("account_inactive")), "{refused}");
}

#[tokio::test]
async fn passkeys_are_named_renamed_and_removed_by_their_owner_alone_with_an_email_each_time() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db.clone()).await;
    let mailbox = Mailbox::new();
    let admin = app.admin_token().await;
    let (acme, ceo) = app.enterprise(&admin, "Passkey Three").await;
    app.staff(&ceo, &acme, "cy@passkey-three.example", "DepartmentUser", None).await;
    app.staff(&ceo, &acme, "di@passkey-three.example", "DepartmentUser", None).await;
    let cy = app.token("cy@passkey-three.example", "staff-password").await;
    let di = app.token("di@passkey-three.example", "staff-password").await;
    let (_, laptop) = register(&app, &cy, "Laptop").await;
    let (_, phone) = register(&app, &cy, "Phone").await;
    let id = laptop["id"].as_str().unwrap();

    let (_, list) = app.get(&cy, "/api/v1/auth/webauthn/credentials").await;
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Laptop", "Phone"]);
    let (status, renamed) = app.put(&cy, &format!("/api/v1/auth/webauthn/credentials/{id}"), json!({ "name": "Desk" })).await;
    assert_eq!((status, renamed["name"].as_str()), (200, Some("Desk")), "{renamed}");
    for bad in ["", "   ", "tab\there", &"x".repeat(101)] {
        let (status, refused) = app.put(&cy, &format!("/api/v1/auth/webauthn/credentials/{id}"), json!({ "name": bad })).await;
        assert_eq!(status, 400, "{bad:?}: {refused}");
    }
    // Someone else's passkey does not exist for Di.
    assert_eq!(app.put(&di, &format!("/api/v1/auth/webauthn/credentials/{id}"), json!({ "name": "Mine" })).await.0, 404);
    assert_eq!(app.delete(&di, &format!("/api/v1/auth/webauthn/credentials/{id}")).await.0, 404);
    assert_eq!(app.get(&di, "/api/v1/auth/webauthn/credentials").await.1, json!([]));

    assert_eq!(app.delete(&cy, &format!("/api/v1/auth/webauthn/credentials/{id}")).await.0, 204);
    assert_eq!(app.delete(&cy, &format!("/api/v1/auth/webauthn/credentials/{id}")).await.0, 404);
    let (_, list) = app.get(&cy, "/api/v1/auth/webauthn/credentials").await;
    assert_eq!(list.as_array().unwrap().len(), 1);

    outbox_drained(&db).await;
    let mails = mailbox.wait_for("cy@passkey-three.example", 3).await;
    let subjects: Vec<&str> = mails.iter().map(|m| m["subject"].as_str().unwrap()).collect();
    assert_eq!(subjects.iter().filter(|s| **s == "A passkey was added to your Enterprise Platform account").count(), 2, "{subjects:?}");
    assert!(subjects.contains(&"A passkey was removed from your Enterprise Platform account"), "{subjects:?}");
    assert!(mails.iter().any(|m| m["text"].as_str().unwrap().contains("the passkey \"Desk\" was removed")), "{mails:?}");

    // The CEO's reset takes the rest away.
    let cy_id = app.get(&cy, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    assert_eq!(app.delete(&ceo, &format!("/api/v1/users/{cy_id}/mfa")).await.0, 204);
    let cy = app.token("cy@passkey-three.example", "staff-password").await;
    assert_eq!(app.get(&cy, "/api/v1/auth/webauthn/credentials").await.1, json!([]), "{phone}");
    let (_, audit) = app.get(&admin, &format!("/api/v1/audit-events?target={cy_id}")).await;
    let actions: Vec<&str> = audit["items"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions.iter().filter(|a| **a == "mfa.passkey_added").count(), 2, "{actions:?}");
    assert!(actions.contains(&"mfa.passkey_removed") && actions.contains(&"user.mfa_reset"), "{actions:?}");
}

#[tokio::test]
async fn one_person_may_have_twenty_passkeys() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    for n in 0..20 {
        register(&app, &admin, &format!("Key {n}")).await;
    }
    let (status, refused) = app.post(&admin, "/api/v1/auth/webauthn/registration/options", json!({})).await;
    assert_eq!((status, refused["reason"].as_str()), (409, Some("too_many_passkeys")), "{refused}");
}
