//! Accounts people own (issue 25), with e-mail through a real SMTP server (the test mail
//! catcher): invitations, password changes and resets, the profile, and notifications.

use std::time::Duration;

use serde_json::{Value, json};

use crate::database::test_database;
use crate::helpers::{Mailbox, RefusingMailServer, TestApp, link_token, outbox_drained, parts, send_mail};

/// A domain of its own for each test: the catcher is shared by every test running at once.
fn domain() -> String {
    crate::helpers::mail_domain("m")
}

async fn accept(app: &TestApp, token: &str, password: &str) -> (u16, Value) {
    parts(app.http.post(app.url("/api/v1/auth/invitations/accept")).json(&json!({ "token": token, "password": password })).send().await.unwrap())
        .await
}

#[tokio::test]
async fn an_enterprise_made_without_a_password_invites_its_ceo_who_chooses_one_in_french_and_is_signed_in() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let d = domain();
    let ceo_email = format!("claire@{d}");
    let (status, ent) = app
        .post(
            &admin,
            "/api/v1/enterprises",
            json!({ "name": format!("Invited {d}"), "ceoFullName": "Claire Dubois", "ceoEmail": ceo_email, "ceoLocale": "fr" }),
        )
        .await;
    assert_eq!(status, 201, "{ent}");
    let (_, users) = app.get(&admin, &format!("/api/v1/users?q={ceo_email}")).await;
    let ceo = &users["items"][0];
    assert_eq!((ceo["invitation"]["status"].as_str(), ceo["locale"].as_str()), (Some("pending"), Some("fr")), "{ceo}");
    // No password signs an invited person in, not even an empty one.
    assert_eq!(app.login(&ceo_email, "anything-at-all-1").await.status(), 401);

    let got = mail.wait_for(&ceo_email, 1).await;
    let message = &got[0];
    assert_eq!(message["subject"], "Test Person vous invite sur Enterprise Platform");
    assert!(message["to"].as_str().unwrap().contains("Claire Dubois"), "{message}");
    let text = message["text"].as_str().unwrap();
    assert!(text.starts_with("Bonjour Claire Dubois,"), "{text}");
    assert!(text.contains(&format!("rejoindre Invited {d} sur Enterprise Platform")), "{text}");
    assert!(text.contains("http://app.test/accept-invitation?token="), "{text}");
    // One message, two forms: plain text and HTML, the HTML escaping what people typed.
    let raw = mail.source(message).await;
    let parsed = mail_parser::MessageParser::default().parse(raw.as_bytes()).unwrap();
    assert_eq!((parsed.text_body_count(), parsed.html_body_count()), (1, 1));
    assert!(parsed.body_html(0).unwrap().contains(r#"<html lang="fr">"#));

    let token = link_token(text, "accept-invitation");
    // The page checks its link as it opens: who it is for, to which enterprise, from whom, and in
    // which language; checking does not use it up.
    let check = |token: String| {
        let app = &app;
        async move { parts(app.http.post(app.url("/api/v1/auth/invitations/check")).json(&json!({ "token": token })).send().await.unwrap()).await }
    };
    for _ in 0..2 {
        let (status, preview) = check(token.clone()).await;
        assert_eq!(status, 200, "{preview}");
        assert_eq!(
            preview,
            json!({ "fullName": "Claire Dubois", "email": ceo_email, "enterpriseName": format!("Invited {d}"), "invitedBy": "Test Person", "locale": "fr" })
        );
    }
    let (status, forged) = check("not-a-token".into()).await;
    assert_eq!((status, forged["fields"]["token"].as_str()), (400, Some("invalid")), "{forged}");
    let (status, refused) = accept(&app, &token, "short").await;
    assert_eq!((status, refused["fields"]["password"].as_str()), (400, Some("too_short")), "{refused}");
    let (status, signed_in) = accept(&app, &token, "a-password-of-her-own").await;
    assert_eq!(status, 200, "{signed_in}");
    assert_eq!((signed_in["user"]["email"].as_str(), signed_in["user"]["invitation"].clone()), (Some(ceo_email.as_str()), Value::Null));
    let session = signed_in["token"].as_str().unwrap();
    assert_eq!(app.me(session).await.status(), 200);
    assert!(signed_in["deviceToken"].is_string());
    // The link worked once.
    let (status, again) = accept(&app, &token, "another-password-entirely").await;
    assert_eq!((status, again["fields"]["token"].as_str()), (400, Some("invalid")), "{again}");
    let (status, used) = check(token.clone()).await;
    assert_eq!((status, used["fields"]["token"].as_str()), (400, Some("invalid")), "a used invitation checks as dead: {used}");
    assert_eq!(app.login(&ceo_email, "a-password-of-her-own").await.status(), 200);
    assert_eq!(app.login(&ceo_email, "another-password-entirely").await.status(), 401);
    let (_, audit) = app.get(&admin, "/api/v1/audit-events?action=user.invitation_accepted").await;
    assert_eq!(audit["items"].as_array().map(Vec::len), Some(1), "{audit}");
}

#[tokio::test]
async fn a_ceo_invites_staff_resends_the_invitation_and_hears_when_it_is_accepted() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db.clone()).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let d = domain();
    let ceo_email = format!("ceo@{d}");
    let (status, ent) = app
        .post(
            &admin,
            "/api/v1/enterprises",
            json!({ "name": format!("Staff {d}"), "ceoFullName": "Alice Martin", "ceoEmail": ceo_email, "ceoPassword": "ceo-password-1" }),
        )
        .await;
    assert_eq!(status, 201, "{ent}");
    let ceo = app.token(&ceo_email, "ceo-password-1").await;
    let finance = app.department(&ceo, ent["id"].as_str().unwrap(), "finance").await;
    let bruno = format!("bruno@{d}");
    let (status, user) = app
        .post(&ceo, "/api/v1/users", json!({ "fullName": "Bruno Leroy", "email": bruno, "role": "DepartmentUser", "departmentId": finance }))
        .await;
    assert_eq!((status, user["invitation"]["status"].as_str()), (201, Some("pending")), "{user}");
    let id = user["id"].as_str().unwrap();
    let first = link_token(mail.wait_for(&bruno, 1).await[0]["text"].as_str().unwrap(), "accept-invitation");
    let text = &mail.received(&bruno).await[0]["text"];
    assert!(text.as_str().unwrap().contains("Alice Martin invited you to join Staff"), "{text}");

    // Resent: a new link, and the first one stops working.
    let (status, body) = app.post(&ceo, &format!("/api/v1/users/{id}/invitation"), json!({})).await;
    assert_eq!(status, 202, "{body}");
    let second = link_token(mail.wait_for(&bruno, 2).await[0]["text"].as_str().unwrap(), "accept-invitation");
    assert_ne!(first, second);
    assert_eq!(accept(&app, &first, "bruno-password-1").await.0, 400);
    let (status, signed_in) = accept(&app, &second, "bruno-password-1").await;
    assert_eq!(status, 200, "{signed_in}");
    // Accepted: nothing left to resend.
    let (status, body) = app.post(&ceo, &format!("/api/v1/users/{id}/invitation"), json!({})).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("already_accepted")), "{body}");
    let (_, listed) = app.get(&ceo, &format!("/api/v1/users/{id}")).await;
    assert_eq!(listed["invitation"], Value::Null);

    // The CEO who sent it is told, with a link into the app.
    let told = mail.wait_for(&ceo_email, 1).await;
    assert_eq!(told[0]["subject"], "Bruno Leroy accepted your invitation");
    assert!(told[0]["text"].as_str().unwrap().contains("http://app.test/admin/users"), "{}", told[0]["text"]);

    // Another enterprise's CEO cannot resend it (404), nor can the staff member (403).
    let (_, other) = app.enterprise(&admin, &format!("Other {d}")).await;
    assert_eq!(app.post(&other, &format!("/api/v1/users/{id}/invitation"), json!({})).await.0, 404);
    let bruno_token = signed_in["token"].as_str().unwrap();
    assert_eq!(app.post(bruno_token, &format!("/api/v1/users/{id}/invitation"), json!({})).await.0, 403);
    outbox_drained(&db).await;
}

#[tokio::test]
async fn an_invitation_the_mail_server_refuses_shows_as_bounced() {
    let (db, _dropped) = test_database().await;
    let refusing = RefusingMailServer::start();
    let app = TestApp::spawn_with(db.clone(), |c| {
        send_mail(c);
        c.mail.smtp_url = Some(refusing.smtp_url.clone());
    })
    .await;
    let admin = app.admin_token().await;
    let d = domain();
    let (_, ceo) = app.enterprise(&admin, &format!("Bounce {d}")).await;
    let address = format!("nobody@{d}");
    let (status, user) = app.post(&ceo, "/api/v1/users", json!({ "fullName": "Nobody", "email": address, "role": "DepartmentUser" })).await;
    assert_eq!(status, 201, "{user}");
    outbox_drained(&db).await;
    let (_, after) = app.get(&ceo, &format!("/api/v1/users/{}", user["id"].as_str().unwrap())).await;
    assert_eq!(after["invitation"]["status"], "bounced", "{after}");
    let (_, audit) = app.get(&ceo, "/api/v1/audit-events?action=email.bounced").await;
    assert_eq!(audit["items"].as_array().map(Vec::len), Some(1), "{audit}");
    assert_eq!(audit["items"][0]["changes"], json!({ "kind": "invitation", "reason": "550" }), "{audit}");
    assert!(Mailbox::new().received(&address).await.is_empty());
}

#[tokio::test]
async fn a_forgotten_password_is_reset_from_an_emailed_link_that_ends_every_session() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::with_mail(db.clone()).await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let d = domain();
    let (_, ceo) = app.enterprise(&admin, &format!("Reset {d}")).await;
    let (_, me) = app.get(&ceo, "/api/v1/auth/me").await;
    let address = me["email"].as_str().unwrap().to_owned();
    let second = app.token(&address, "ceo-password").await;
    // An API token made while the account was in someone else's hands, perhaps.
    let (status, made) = app.post(&ceo, "/api/v1/api-tokens", json!({ "name": "Nightly export", "scopes": ["reports:read"] })).await;
    assert_eq!(status, 201, "{made}");
    let api_token = made["token"].as_str().unwrap().to_owned();
    let ask = |email: String| {
        let app = &app;
        async move {
            let resp = app.http.post(app.url("/api/v1/auth/password-reset")).json(&json!({ "email": email })).send().await.unwrap();
            resp.status().as_u16()
        }
    };
    // The same answer whether or not an account has the address.
    assert_eq!(ask(format!("nobody@{d}")).await, 202);
    assert_eq!(ask(address.clone()).await, 202);
    let got = mail.wait_for(&address, 1).await;
    assert!(got[0]["subject"].as_str().unwrap().starts_with("Reset your Enterprise Platform password"), "{}", got[0]);
    let token = link_token(got[0]["text"].as_str().unwrap(), "reset-password");

    let confirm = |token: String, password: &'static str| {
        let app = &app;
        async move {
            parts(
                app.http
                    .post(app.url("/api/v1/auth/password-reset/confirm"))
                    .json(&json!({ "token": token, "password": password }))
                    .send()
                    .await
                    .unwrap(),
            )
            .await
        }
    };
    // The page checks its link as it opens (204 while it works), without using it up.
    let check = |token: String| {
        let app = &app;
        async move { app.http.post(app.url("/api/v1/auth/password-reset/check")).json(&json!({ "token": token })).send().await.unwrap() }
    };
    assert_eq!(check(token.clone()).await.status(), 204);
    assert_eq!(check(token.clone()).await.status(), 204);
    let resp = app
        .http
        .post(app.url("/api/v1/auth/password-reset/confirm"))
        .json(&json!({ "token": token, "password": "a-brand-new-secret" }))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 204);
    // Every session of the account ended; the old password no longer works, the new one does.
    assert_eq!(app.me(&ceo).await.status(), 401);
    assert_eq!(app.me(&second).await.status(), 401);
    assert_eq!(app.login(&address, "ceo-password").await.status(), 401);
    assert_eq!(app.login(&address, "a-brand-new-secret").await.status(), 200);
    // The person is told, and shown the API tokens that still act for them (a reset keeps them).
    let got = mail.wait_for(&address, 2).await;
    let notice = got.iter().find(|m| m["subject"] == "The password of your Enterprise Platform account was reset").expect("a reset notice");
    let text = notice["text"].as_str().unwrap();
    assert!(text.contains("These API tokens still act for you"), "{text}");
    assert!(text.contains(&format!("- Nightly export ({}…), made ", made["prefix"].as_str().unwrap())), "{text}");
    assert!(text.contains("never used"), "{text}");
    assert_eq!(app.me(&api_token).await.status(), 200, "the reset keeps API tokens");
    let (status, dead) = parts(check(token.clone()).await).await;
    assert_eq!((status, dead["fields"]["token"].as_str()), (400, Some("invalid")), "a used link checks as dead: {dead}");
    let (status, reused) = confirm(token, "yet-another-secret-9").await;
    assert_eq!((status, reused["fields"]["token"].as_str()), (400, Some("invalid")), "{reused}");
    let (status, forged) = confirm("not-a-token".into(), "yet-another-secret-9").await;
    assert_eq!(status, 400, "{forged}");
    outbox_drained(&db).await;
    assert!(mail.received(&format!("nobody@{d}")).await.is_empty(), "no account, no e-mail");

    // Limited per address: the fourth request within the hour is refused, with when to retry.
    assert_eq!(ask(address.clone()).await, 202);
    assert_eq!(ask(address.clone()).await, 202);
    let resp = app.http.post(app.url("/api/v1/auth/password-reset")).json(&json!({ "email": address })).send().await.unwrap();
    assert_eq!(resp.status(), 429);
    assert!(resp.headers().get("retry-after").is_some());
    let resp = app.http.post(app.url("/api/v1/auth/password-reset")).json(&json!({ "email": "not an address" })).send().await.unwrap();
    assert_eq!(resp.status(), 400);
}

#[tokio::test]
async fn changing_ones_password_ends_every_other_session_and_keeps_this_one() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Change").await;
    let other = app.token("ceo@change.example", "ceo-password").await;
    let (status, wrong) = app.put(&ceo, "/api/v1/auth/me/password", json!({ "currentPassword": "not-it", "newPassword": "fresh-password-42" })).await;
    assert_eq!((status, wrong["fields"]["currentPassword"].as_str()), (400, Some("invalid")), "{wrong}");
    let (status, weak) = app.put(&ceo, "/api/v1/auth/me/password", json!({ "currentPassword": "ceo-password", "newPassword": "12345678" })).await;
    assert_eq!((status, weak["fields"]["newPassword"].as_str()), (400, Some("too_weak")), "{weak}");
    let (status, body) =
        app.put(&ceo, "/api/v1/auth/me/password", json!({ "currentPassword": "ceo-password", "newPassword": "fresh-password-42" })).await;
    assert_eq!(status, 204, "{body}");
    assert_eq!(app.me(&ceo).await.status(), 200, "the session that changed it stays");
    assert_eq!(app.me(&other).await.status(), 401, "every other session ended");
    assert_eq!(app.login("ceo@change.example", "fresh-password-42").await.status(), 200);
    assert_eq!(app.login("ceo@change.example", "ceo-password").await.status(), 401);
}

#[tokio::test]
async fn a_person_edits_their_own_profile_language_and_notifications() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Profile").await;
    let (_, before) = app.get(&ceo, "/api/v1/auth/me").await;
    assert_eq!(before["locale"], "en");
    assert_eq!(before["notifications"], json!({ "reports": true, "signIns": true, "invitations": true }));
    let (status, after) =
        app.put(&ceo, "/api/v1/auth/me", json!({ "fullName": "Claire D.", "locale": "fr", "notifications": { "reports": false } })).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!((after["fullName"].as_str(), after["locale"].as_str()), (Some("Claire D."), Some("fr")));
    assert_eq!(after["notifications"], json!({ "reports": false, "signIns": true, "invitations": true }));
    // A new browser signs in to the account's language.
    let resp = app.login("ceo@profile.example", "ceo-password").await;
    let (_, signed_in) = parts(resp).await;
    assert_eq!(signed_in["user"]["locale"], "fr");
    let (status, empty) = app.put(&ceo, "/api/v1/auth/me", json!({ "fullName": "  " })).await;
    assert_eq!((status, empty["fields"]["fullName"].as_str()), (400, Some("required")), "{empty}");
    let (status, _) = app.put(&ceo, "/api/v1/auth/me", json!({ "locale": "de" })).await;
    assert_eq!(status, 400);
    assert_eq!(app.put("", "/api/v1/auth/me", json!({ "locale": "fr" })).await.0, 401);
}

#[tokio::test]
async fn submissions_reach_the_ceo_as_one_digest_and_a_rejection_reaches_its_author_with_the_notes() {
    let (db, _dropped) = test_database().await;
    // The reports are written through a server that sends no mail, so the three items wait
    // together however slowly the machine serves the calls; a sending server started after
    // them (on the same database) finds them due and must send them as one digest.
    let quiet = TestApp::spawn_with(db.clone(), |c| {
        c.mail.public_url = "http://app.test".into();
        c.mail.digest_window = Duration::from_millis(500);
    })
    .await;
    let mail = Mailbox::new();
    let admin = quiet.admin_token().await;
    let d = domain();
    let ceo_email = format!("ceo@{d}");
    let app = &quiet;
    let (status, ent) = app
        .post(
            &admin,
            "/api/v1/enterprises",
            json!({ "name": format!("Digest {d}"), "ceoFullName": "Alice Martin", "ceoEmail": ceo_email, "ceoPassword": "ceo-password-1" }),
        )
        .await;
    assert_eq!(status, 201, "{ent}");
    let ent = ent["id"].as_str().unwrap();
    let ceo = app.token(&ceo_email, "ceo-password-1").await;
    let finance = app.department(&ceo, ent, "finance").await;
    let author_email = format!("bruno@{d}");
    app.staff(&ceo, ent, &author_email, "DepartmentUser", Some(&finance)).await;
    let author = app.token(&author_email, "staff-password").await;
    let report = |title: &str| {
        json!({ "title": title, "content": "Figures", "periodStart": "2026-01-01", "periodEnd": "2026-01-31", "status": "submitted",
                "data": { "columns": ["Month", "Revenue"], "rows": [["Jan", 1]] } })
    };
    let mut ids = Vec::new();
    for title in ["January", "February", "March"] {
        let (status, r) = app.post(&author, &format!("/api/v1/departments/{finance}/reports"), report(title)).await;
        assert_eq!(status, 201, "{r}");
        ids.push(r["id"].as_str().unwrap().to_owned());
    }
    let app = TestApp::with_mail_like(&quiet, db.clone()).await;
    let digest = mail.wait_for(&ceo_email, 1).await;
    assert_eq!(digest[0]["subject"], "3 updates on Enterprise Platform", "{}", digest[0]);
    let text = digest[0]["text"].as_str().unwrap();
    for title in ["January", "February", "March"] {
        assert!(text.contains(&format!(r#"Staff Member submitted the report "{title}" (Finance)."#)), "{text}");
    }
    assert!(text.contains(&format!("http://app.test/ceo/reports/{}", ids[0])), "{text}");

    let (status, body) =
        app.post(&ceo, &format!("/api/v1/reports/{}/review", ids[1]), json!({ "status": "rejected", "reviewNotes": "Add the <b>refunds</b>" })).await;
    assert_eq!(status, 200, "{body}");
    let told = mail.wait_for(&author_email, 1).await;
    assert_eq!(told[0]["subject"], r#"Alice Martin rejected your report "February""#);
    assert!(told[0]["text"].as_str().unwrap().contains("Notes: Add the <b>refunds</b>"), "{}", told[0]["text"]);
    let html = told[0]["html"].as_str().unwrap();
    assert!(html.contains("Add the &lt;b&gt;refunds") && !html.contains("<b>refunds"), "{html}");
    assert!(told[0]["text"].as_str().unwrap().contains(&format!("http://app.test/department/{finance}/reports/{}", ids[1])));

    // Turned off in the profile: an approval is not e-mailed.
    assert_eq!(app.put(&author, "/api/v1/auth/me", json!({ "notifications": { "reports": false } })).await.0, 200);
    assert_eq!(app.post(&ceo, &format!("/api/v1/reports/{}/review", ids[0]), json!({ "status": "approved" })).await.0, 200);
    outbox_drained(&db).await;
    assert_eq!(mail.received(&author_email).await.len(), 1);
}

#[tokio::test]
async fn a_sign_in_from_a_new_country_is_emailed_to_the_person() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db.clone(), |c| {
        c.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
        c.mail.smtp_url = Some(Mailbox::smtp_url());
        c.mail.public_url = "http://app.test".into();
        c.events.outbox_poll = Duration::from_millis(100);
    })
    .await;
    let mail = Mailbox::new();
    let admin = app.admin_token().await;
    let d = domain();
    let address = format!("travel@{d}");
    let (_, ceo) = app.enterprise(&admin, &format!("Travel {d}")).await;
    let ent = app.get(&ceo, "/api/v1/auth/me").await.1["enterpriseId"].as_str().unwrap().to_owned();
    let (status, _) = app
        .post(
            &ceo,
            "/api/v1/users",
            json!({ "fullName": "Tom Traveller", "email": address, "password": "travel-password-1", "role": "DepartmentUser", "enterpriseId": ent }),
        )
        .await;
    assert_eq!(status, 201);
    // London (GB), then Sweden (the MaxMind test database's addresses): a new country.
    assert_eq!(app.login_from(&address, "travel-password-1", Some("81.2.69.160")).await.status(), 200);
    assert_eq!(app.login_from(&address, "travel-password-1", Some("89.160.20.112")).await.status(), 200);
    let got = mail.wait_for(&address, 1).await;
    let subject = got[0]["subject"].as_str().unwrap();
    assert!(subject.starts_with("New sign-in to your Enterprise Platform account from"), "{subject}");
    assert!(subject.ends_with("SE"), "{subject}");
    let text = got[0]["text"].as_str().unwrap();
    assert!(text.contains("http://app.test/settings/profile"), "{text}");
    assert!(
        text.contains("Your account had not been used from this country before.") || text.contains("too soon after a sign-in far away"),
        "{text}"
    );
}

#[tokio::test]
async fn the_link_checks_refuse_bad_input_with_a_400_never_a_500() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    for path in ["/api/v1/auth/password-reset/check", "/api/v1/auth/invitations/check"] {
        for body in
            [json!({}), json!({ "token": 5 }), json!({ "token": null }), json!({ "token": "x".repeat(201) }), json!({ "token": "" }), json!([])]
        {
            let resp = app.http.post(app.url(path)).json(&body).send().await.unwrap();
            assert_eq!(resp.status(), 400, "{path} {body}");
        }
        let resp = app.http.post(app.url(path)).header("content-type", "application/json").body("{not json").send().await.unwrap();
        assert_eq!(resp.status(), 400, "{path}: a body that is not JSON");
    }
    // The rules of webhook URLs take no input but a token: none is a 401.
    assert_eq!(app.http.get(app.url("/api/v1/webhooks/url-rules")).send().await.unwrap().status(), 401);
}
