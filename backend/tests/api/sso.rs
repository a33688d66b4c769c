//! Single sign-on with an enterprise's OpenID provider, against a real one: `oidc-provider`
//! (scripts/oidc/provider.mjs, started by scripts/test.sh), whose sign-in page lets in whatever
//! address is typed. A small cookie-keeping client plays the person's browser at the provider.

use reqwest::{Client, redirect::Policy};
use serde_json::{Value, json};
use url::Url;

use crate::database::test_database;
use crate::{
    helpers::{Mailbox, TestApp, link_token},
    mfa::{code_at, enrol, own_method},
};

pub(crate) fn issuer() -> String {
    std::env::var("OIDC_ISSUER").expect("OIDC_ISSUER: start the test provider first (source scripts/oidc/start.sh)")
}

/// The person's browser at the provider: its own cookies, every redirect looked at.
struct Browser(Client);

impl Browser {
    fn new() -> Self {
        Self::trusting(None)
    }

    /// A browser that also trusts `root` (an enterprise's own authority, installed on its
    /// people's machines).
    fn trusting(root: Option<&reqwest::Certificate>) -> Self {
        let builder = Client::builder().cookie_store(true).redirect(Policy::none());
        Self(root.into_iter().fold(builder, |b, root| b.add_root_certificate(root.clone())).build().unwrap())
    }

    /// Follows `authorization_url` through the provider's sign-in page as `email`, up to where
    /// the provider sends the browser back to the app: that URL (`/sign-in/sso?code&state&iss`,
    /// or `?error`).
    async fn sign_in(&self, authorization_url: &str, email: &str) -> Url {
        self.sign_in_with(authorization_url, email, &[]).await
    }

    /// As `sign_in`, with more fields for the test provider (`subject`, `email_verified`: what
    /// another provider might send, scripts/oidc/provider.mjs).
    async fn sign_in_with(&self, authorization_url: &str, email: &str, extra: &[(&str, &str)]) -> Url {
        let mut form = vec![("email", email)];
        form.extend_from_slice(extra);
        let mut url = Url::parse(authorization_url).unwrap();
        for _ in 0..10 {
            if url.path() == "/sign-in/sso" {
                return url;
            }
            let resp = self.0.get(url.clone()).send().await.unwrap();
            if resp.status().is_redirection() {
                url = url.join(resp.headers()["location"].to_str().unwrap()).unwrap();
                continue;
            }
            assert_eq!(resp.status(), 200, "at {url}");
            assert!(url.path().starts_with("/interaction/"), "the provider's page is its sign-in page: {url}");
            let login = url.join(&format!("{}/login", url.path())).unwrap();
            let resp = self.0.post(login).form(&form).send().await.unwrap();
            assert!(resp.status().is_redirection(), "the provider took the address: {}", resp.status());
            url = url.join(resp.headers()["location"].to_str().unwrap()).unwrap();
        }
        panic!("the provider never sent the browser back");
    }
}

fn query(url: &Url, name: &str) -> String {
    url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned()).unwrap_or_else(|| panic!("no {name} in {url}"))
}

/// An enterprise (CEO `ceo@<slug>.example`) whose provider signs in `<slug>.example`.
async fn with_sso(app: &TestApp, admin: &str, name: &str, extra: Value) -> (String, String) {
    let (id, ceo) = app.enterprise(admin, name).await;
    let domain = format!("{}.example", name.to_lowercase().replace(' ', "-"));
    let mut body = json!({
        "issuer": issuer(), "clientId": "platform", "clientSecret": "platform-secret",
        "domains": [domain], "provisioning": "just_in_time",
    });
    body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let (status, saved) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), body).await;
    assert_eq!(status, 200, "{saved}");
    prove(app, &ceo, &id, &domain).await;
    (id, ceo)
}

/// Publishes a TXT record at the tests' DNS server (scripts/dns/start.sh): a file of its zone
/// folder, named after the record.
pub fn publish(name: &str, value: &str) {
    let zone = std::env::var("DNS_ZONE_DIR").expect("DNS_ZONE_DIR: start the tests' DNS server (source scripts/dns/start.sh)");
    std::fs::write(std::path::Path::new(&zone).join(name), format!("{value}\n")).unwrap();
}

/// Proves an enterprise's claimed domain as its CEO would: its TXT record published, then checked.
async fn prove(app: &TestApp, token: &str, enterprise: &str, domain: &str) {
    let (_, claims) = app.get(token, &format!("/api/v1/enterprises/{enterprise}/sso/domains")).await;
    let claim = claims.as_array().unwrap().iter().find(|d| d["domain"] == domain).unwrap_or_else(|| panic!("{domain} unclaimed: {claims}")).clone();
    publish(claim["txtName"].as_str().unwrap(), claim["txtValue"].as_str().unwrap());
    let (status, proven) = app.post(token, &format!("/api/v1/enterprises/{enterprise}/sso/domains/{domain}/verify"), json!({})).await;
    assert_eq!((status, proven["status"].as_str()), (200, Some("verified")), "{proven}");
}

/// The first leg: the authorization URL and its state.
async fn start(app: &TestApp, email: &str) -> (String, String) {
    let (status, started) = app.post("", "/api/v1/auth/sso/start", json!({ "email": email })).await;
    assert_eq!(status, 200, "{started}");
    (started["authorizationUrl"].as_str().unwrap().to_owned(), started["state"].as_str().unwrap().to_owned())
}

async fn finish(app: &TestApp, code: &str, state: &str) -> (u16, Value) {
    app.post("", "/api/v1/auth/sso/finish", json!({ "code": code, "state": state })).await
}

/// A whole sign-in as `email` (typed on our page and at the provider): the finish's answer.
async fn sign_in(app: &TestApp, email: &str) -> (u16, Value) {
    sign_in_with(app, email, &[]).await
}

/// As `sign_in`, the provider told to answer otherwise (`Browser::sign_in_with`).
async fn sign_in_with(app: &TestApp, email: &str, extra: &[(&str, &str)]) -> (u16, Value) {
    let (url, state) = start(app, email).await;
    let back = Browser::new().sign_in_with(&url, email, extra).await;
    assert_eq!(query(&back, "state"), state);
    finish(app, &query(&back, "code"), &state).await
}

#[tokio::test]
async fn a_ceo_sets_up_sso_and_a_new_person_of_the_domain_signs_in_through_the_provider_made_just_in_time() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = app.enterprise(&admin, "Sso One").await;
    let (status, none) = app.get(&ceo, &format!("/api/v1/enterprises/{id}/sso")).await;
    assert_eq!(status, 200);
    assert_eq!(none["configured"], false);
    assert_eq!(none["redirectUri"], "http://localhost:8080/sign-in/sso");
    let sales = app.department(&ceo, &id, "finance").await;
    let body = json!({
        "issuer": issuer(), "clientId": "platform", "clientSecret": "platform-secret", "domains": ["SSO-One.example", "@sso-one.example"],
        "provisioning": "just_in_time", "defaultRole": "DepartmentHead", "defaultDepartmentId": sales,
    });
    let (status, saved) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), body).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["configured"], true);
    assert_eq!(saved["issuer"], issuer());
    assert_eq!(saved["domains"], json!(["sso-one.example"]));
    assert_eq!(saved["clientSecretSet"], true);
    assert!(!saved.to_string().contains("platform-secret"), "the secret never comes back: {saved}");
    // Claimed, not yet proven: nobody is routed to the provider.
    let (_, found) = app.post("", "/api/v1/auth/sso/discover", json!({ "email": "ada@sso-one.example" })).await;
    assert_eq!(found, json!({ "sso": false, "required": false }));
    prove(&app, &ceo, &id, "sso-one.example").await;

    // The sign-in page's question, by domain only.
    let (_, found) = app.post("", "/api/v1/auth/sso/discover", json!({ "email": "Ada.Lovelace@SSO-one.example" })).await;
    assert_eq!(found, json!({ "sso": true, "required": false }));
    let (_, other) = app.post("", "/api/v1/auth/sso/discover", json!({ "email": "ada@elsewhere.example" })).await;
    assert_eq!(other, json!({ "sso": false, "required": false }));

    let (url, state) = start(&app, "ada.lovelace@sso-one.example").await;
    let authorize = Url::parse(&url).unwrap();
    assert!(url.starts_with(&format!("{}/auth?", issuer())), "{url}");
    assert_eq!(query(&authorize, "code_challenge_method"), "S256");
    assert_eq!(query(&authorize, "client_id"), "platform");
    assert_eq!(query(&authorize, "login_hint"), "ada.lovelace@sso-one.example");
    assert_eq!(query(&authorize, "state"), state);
    assert!(query(&authorize, "nonce").len() >= 16);
    let back = Browser::new().sign_in(&url, "ada.lovelace@sso-one.example").await;
    let code = query(&back, "code");
    let (status, signed_in) = finish(&app, &code, &state).await;
    assert_eq!(status, 200, "{signed_in}");
    let token = signed_in["token"].as_str().unwrap();
    assert_eq!(signed_in["user"]["email"], "ada.lovelace@sso-one.example");
    assert_eq!(signed_in["user"]["fullName"], "Ada Lovelace");
    assert_eq!(signed_in["user"]["role"], "DepartmentHead");
    assert_eq!(signed_in["user"]["departmentId"], sales.as_str());
    assert_eq!(own_method(&app, token).await, "sso");
    assert_eq!(app.me(token).await.status(), 200);

    // The code and its state worked once.
    let (status, replay) = finish(&app, &code, &state).await;
    assert_eq!((status, replay["code"].as_str(), replay["reason"].as_str()), (401, Some("sso_failed"), Some("state_invalid")), "{replay}");

    // The next sign-in finds the same person.
    let (status, again) = sign_in(&app, "ada.lovelace@sso-one.example").await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["user"]["id"], signed_in["user"]["id"]);
    let (_, people) = app.get(&ceo, "/api/v1/users?q=ada.lovelace").await;
    assert_eq!(people["total"], 1, "{people}");

    // Audited: the settings (never the secret), and the person made by the provider.
    let (_, audit) = app.get(&ceo, "/api/v1/audit-events?action=enterprise.sso_updated").await;
    let entry = &audit["items"][0];
    assert_eq!(entry["details"]["clientSecret"], "changed", "{entry}");
    assert!(!audit.to_string().contains("platform-secret"));
    let (_, made) = app.get(&ceo, "/api/v1/audit-events?action=user.created").await;
    let made =
        made["items"].as_array().unwrap().iter().find(|e| e["targetId"] == signed_in["user"]["id"]).unwrap_or_else(|| panic!("{made}")).clone();
    assert_eq!(made["details"]["provisionedBy"], "sso", "{made}");
}

#[tokio::test]
async fn the_provider_s_answer_is_checked_a_wrong_nonce_an_expired_code_and_an_address_of_another_enterprise_are_refused() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    with_sso(&app, &admin, "Sso Two", json!({})).await;

    // The authorization request's nonce changed on its way: the ID token carries the other one.
    let (url, state) = start(&app, "grace@sso-two.example").await;
    let mut tampered = Url::parse(&url).unwrap();
    let pairs: Vec<(String, String)> =
        tampered.query_pairs().map(|(k, v)| (k.to_string(), if k == "nonce" { "someone-else-s-nonce".to_owned() } else { v.into_owned() })).collect();
    tampered.query_pairs_mut().clear().extend_pairs(pairs);
    let back = Browser::new().sign_in(tampered.as_str(), "grace@sso-two.example").await;
    let (status, refused) = finish(&app, &query(&back, "code"), &state).await;
    assert_eq!((status, refused["reason"].as_str()), (401, Some("nonce_mismatch")), "{refused}");

    // A state this server never issued.
    let (status, refused) = finish(&app, "some-code", "a-state-nobody-issued").await;
    assert_eq!((status, refused["reason"].as_str()), (401, Some("state_invalid")), "{refused}");

    // The provider names an address outside the enterprise's domains.
    let (url, state) = start(&app, "grace@sso-two.example").await;
    let back = Browser::new().sign_in(&url, "grace@elsewhere.example").await;
    let (status, refused) = finish(&app, &query(&back, "code"), &state).await;
    assert_eq!((status, refused["reason"].as_str()), (401, Some("email_not_allowed")), "{refused}");

    // An address of the domain whose account belongs to another enterprise (the API refuses to
    // make one now; an account older than the setting, written here directly, stands for it).
    let (other, _) = app.enterprise(&admin, "Sso Other").await;
    sqlx::query("insert into users (id, enterprise_id, role, full_name, email, status) values (gen_random_uuid(), $1, 'DepartmentUser', 'Moved', 'moved@sso-two.example', 'active')")
        .bind(uuid::Uuid::parse_str(&other).unwrap())
        .execute(&app.db)
        .await
        .unwrap();
    let (status, refused) = sign_in(&app, "moved@sso-two.example").await;
    assert_eq!((status, refused["reason"].as_str()), (401, Some("email_not_allowed")), "{refused}");

    // A code the provider lets live 1 s, presented after 2.5 s.
    let (id, ceo) = app.enterprise(&admin, "Sso Slow").await;
    let body = json!({ "issuer": issuer(), "clientId": "platform-expiring", "clientSecret": "expiring-secret", "domains": ["sso-slow.example"], "provisioning": "just_in_time" });
    assert_eq!(app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), body).await.0, 200);
    prove(&app, &ceo, &id, "sso-slow.example").await;
    let (url, state) = start(&app, "late@sso-slow.example").await;
    let back = Browser::new().sign_in(&url, "late@sso-slow.example").await;
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let (status, refused) = finish(&app, &query(&back, "code"), &state).await;
    assert_eq!((status, refused["reason"].as_str()), (401, Some("code_rejected")), "{refused}");
    assert_eq!(refused["message"], "Your identity provider did not confirm this sign-in. Please sign in again.");
}

#[tokio::test]
async fn invitation_only_lets_in_invited_people_and_refuses_strangers() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = with_sso(&app, &admin, "Sso Three", json!({ "provisioning": "invitation_only" })).await;
    let (status, stranger) = sign_in(&app, "stranger@sso-three.example").await;
    assert_eq!((status, stranger["reason"].as_str()), (403, Some("not_invited")), "{stranger}");
    let (_, people) = app.get(&ceo, "/api/v1/users?q=stranger").await;
    assert_eq!(people["total"], 0, "no account was made");
    let (_, audit) = app.get(&ceo, "/api/v1/audit-events?action=auth.sign_in_refused").await;
    assert_eq!(audit["items"][0]["details"]["email"], "stranger@sso-three.example", "in the enterprise's log: {audit}");
    assert_eq!(audit["items"][0]["details"]["reason"], "not_invited");

    let (status, invited) = app
        .post(
            &ceo,
            "/api/v1/users",
            json!({ "fullName": "Ivy Invited", "email": "ivy@sso-three.example", "role": "DepartmentUser", "enterpriseId": id }),
        )
        .await;
    assert_eq!(status, 201, "{invited}");
    assert_eq!(invited["invitation"]["status"], "pending");
    let (status, signed_in) = sign_in(&app, "ivy@sso-three.example").await;
    assert_eq!(status, 200, "{signed_in}");
    assert_eq!(signed_in["user"]["id"], invited["id"]);
    let (_, after) = app.get(&ceo, &format!("/api/v1/users/{}", invited["id"].as_str().unwrap())).await;
    assert_eq!(after["invitation"], Value::Null, "signing in accepted the invitation: {after}");
}

#[tokio::test]
async fn required_sso_refuses_passwords_except_the_break_glass_ceo_s_with_a_second_factor() {
    let (db, _dropped) = test_database().await;
    // E-mail (the invitation) at the default public address, which the provider sends back to.
    let app = TestApp::spawn_with(db, |c| {
        c.mail.smtp_url = Some(Mailbox::smtp_url());
        c.mail.retry_scale = 0.001;
        c.events.outbox_poll = std::time::Duration::from_millis(100);
    })
    .await;
    let admin = app.admin_token().await;
    let (id, ceo) = with_sso(&app, &admin, "Sso Four", json!({})).await;
    app.staff(&ceo, &id, "sam@sso-four.example", "DepartmentUser", None).await;
    assert_eq!(app.login("sam@sso-four.example", "staff-password").await.status(), 200, "not required yet");
    let (_, me) = app.get(&ceo, "/api/v1/auth/me").await;
    let ceo_id = me["id"].as_str().unwrap().to_owned();

    let body = json!({ "issuer": issuer(), "clientId": "platform", "domains": ["sso-four.example"], "provisioning": "just_in_time", "required": true, "breakGlassUserId": ceo_id });
    let (status, saved) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), body.clone()).await;
    assert_eq!(status, 200, "{saved}");
    assert_eq!(saved["clientSecretSet"], true, "the stored secret is kept");
    assert_eq!(saved["breakGlassReady"], false);
    let (_, found) = app.post("", "/api/v1/auth/sso/discover", json!({ "email": "sam@sso-four.example" })).await;
    assert_eq!(found, json!({ "sso": true, "required": true }));

    let (status, refused) = crate::helpers::parts(app.login("sam@sso-four.example", "staff-password").await).await;
    assert_eq!((status, refused["code"].as_str()), (403, Some("sso_required")), "{refused}");
    assert_eq!(refused["message"], "Your organisation signs in with single sign-on");
    let (status, wrong) = crate::helpers::parts(app.login("sam@sso-four.example", "not-the-password").await).await;
    assert_eq!((status, wrong["code"].as_str()), (401, Some("invalid_credentials")), "a wrong password says nothing more");
    // The break-glass CEO without a second factor is refused too.
    let (status, refused) = crate::helpers::parts(app.login("ceo@sso-four.example", "ceo-password").await).await;
    assert_eq!((status, refused["code"].as_str()), (403, Some("sso_required")), "{refused}");
    // With one, the password leads to the second step.
    enrol(&app, &ceo).await;
    let (_, saved) = app.get(&ceo, &format!("/api/v1/enterprises/{id}/sso")).await;
    assert_eq!(saved["breakGlassReady"], true);
    let (status, step) = crate::helpers::parts(app.login("ceo@sso-four.example", "ceo-password").await).await;
    assert_eq!((status, &step["mfaRequired"]), (200, &json!(true)), "{step}");
    // The provider still signs Sam in.
    let (status, signed_in) = sign_in(&app, "sam@sso-four.example").await;
    assert_eq!(status, 200, "{signed_in}");

    // An invited person of the domain cannot choose a password: the provider signs them in.
    let (status, invited) = app
        .post(&ceo, "/api/v1/users", json!({ "fullName": "Ned New", "email": "ned@sso-four.example", "role": "DepartmentUser", "enterpriseId": id }))
        .await;
    assert_eq!(status, 201, "{invited}");
    let mail = Mailbox::new().wait_for("ned@sso-four.example", 1).await;
    let link = link_token(mail[0]["text"].as_str().unwrap(), "accept-invitation");
    let (status, refused) = app.post("", "/api/v1/auth/invitations/accept", json!({ "token": link, "password": "a-long-password-1" })).await;
    assert_eq!((status, refused["code"].as_str()), (403, Some("sso_required")), "{refused}");

    // Without single sign-on, passwords work again.
    assert_eq!(app.delete(&ceo, &format!("/api/v1/enterprises/{id}/sso")).await.0, 204);
    assert_eq!(app.login("sam@sso-four.example", "staff-password").await.status(), 200);
    assert_eq!(app.delete(&ceo, &format!("/api/v1/enterprises/{id}/sso")).await.0, 404, "nothing left to remove");
}

#[tokio::test]
async fn settings_are_checked_before_they_are_saved() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = app.enterprise(&admin, "Sso Five").await;
    let path = format!("/api/v1/enterprises/{id}/sso");
    let good = json!({ "issuer": issuer(), "clientId": "platform", "clientSecret": "platform-secret", "domains": ["sso-five.example"], "provisioning": "just_in_time" });
    let with = |change: Value| {
        let mut body = good.clone();
        body.as_object_mut().unwrap().extend(change.as_object().unwrap().clone());
        body
    };
    for (change, field, issue) in [
        (json!({ "issuer": "http://127.0.0.1:9" }), "issuer", "invalid"),
        (json!({ "issuer": "not a url" }), "issuer", "invalid"),
        (json!({ "clientSecret": null }), "clientSecret", "required"),
        (json!({ "clientId": " " }), "clientId", "required"),
        (json!({ "domains": [] }), "domains", "required"),
        (json!({ "domains": ["not a domain"] }), "domains", "invalid"),
        (json!({ "defaultRole": "EnterpriseCeo" }), "defaultRole", "invalid"),
        (json!({ "defaultDepartmentId": uuid::Uuid::now_v7() }), "defaultDepartmentId", "invalid"),
    ] {
        let (status, refused) = app.put(&ceo, &path, with(change.clone())).await;
        assert_eq!((status, refused["fields"][field].as_str()), (400, Some(issue)), "{change}: {refused}");
    }
    // An issuer refused says why as a reason a screen can say in its own language.
    for (issuer, reason) in [("http://127.0.0.1:9", "no_provider"), ("not a url", "invalid_url")] {
        let (status, refused) = app.put(&ceo, &path, with(json!({ "issuer": issuer }))).await;
        assert_eq!((status, refused["reason"].as_str()), (400, Some(reason)), "{issuer}: {refused}");
    }
    let staff = app.staff(&ceo, &id, "staff@sso-five.example", "DepartmentUser", None).await;
    let (status, refused) = app.put(&ceo, &path, with(json!({ "breakGlassUserId": staff }))).await;
    assert_eq!((status, refused["fields"]["breakGlassUserId"].as_str()), (400, Some("invalid")), "{refused}");
    assert_eq!(app.get(&ceo, &path).await.1["configured"], false, "nothing was saved");

    assert_eq!(app.put(&ceo, &path, good.clone()).await.0, 200);
    prove(&app, &ceo, &id, "sso-five.example").await;
    let (other, other_ceo) = app.enterprise(&admin, "Sso Six").await;
    let (status, refused) =
        app.put(&other_ceo, &format!("/api/v1/enterprises/{other}/sso"), with(json!({ "domains": ["sso-six.example", "sso-five.example"] }))).await;
    assert_eq!((status, refused["reason"].as_str()), (409, Some("sso_domain_taken")), "{refused}");
    // A domain at which another enterprise's people have addresses is not this one's to claim.
    app.staff(&other_ceo, &other, "pat@partner.example", "DepartmentUser", None).await;
    let (status, refused) = app.put(&ceo, &path, with(json!({ "domains": ["sso-five.example", "Partner.example"] }))).await;
    assert_eq!((status, refused["reason"].as_str()), (409, Some("sso_domain_in_use")), "{refused}");
    assert_eq!(app.get(&ceo, &path).await.1["domains"], json!(["sso-five.example"]), "nothing changed");
    // Nor may another enterprise take people at a domain this one's provider signs in.
    let (status, refused) = app
        .post(&other_ceo, "/api/v1/users", json!({ "fullName": "Sly", "email": "sly@sso-five.example", "password": "staff-password", "role": "DepartmentUser", "enterpriseId": other }))
        .await;
    assert_eq!((status, refused["fields"]["email"].as_str()), (400, Some("invalid")), "{refused}");
    // The CEO of one enterprise never sees another's.
    assert_eq!(app.get(&other_ceo, &path).await.0, 404);
    // The admin sees and removes any.
    assert_eq!(app.get(&admin, &path).await.1["domains"], json!(["sso-five.example"]));
    assert_eq!(app.delete(&admin, &path).await.0, 204);
    let (_, audit) = app.get(&admin, "/api/v1/audit-events?action=enterprise.sso_removed").await;
    assert_eq!(audit["items"].as_array().unwrap().len(), 1, "{audit}");
}

#[tokio::test]
async fn the_sign_in_calls_refuse_bad_input_field_by_field() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    with_sso(&app, &admin, "Sso Seven", json!({})).await;
    // Discovery says no for anything that is not an address of a domain with single sign-on.
    for email in ["not an address", "", "someone@elsewhere.example"] {
        let (status, found) = app.post("", "/api/v1/auth/sso/discover", json!({ "email": email })).await;
        assert_eq!((status, found), (200, json!({ "sso": false, "required": false })), "{email}");
    }
    for (body, field, issue) in [
        (json!({ "email": "not an address" }), "email", "invalid_email"),
        (json!({ "email": "" }), "email", "required"),
        (json!({ "email": "someone@elsewhere.example" }), "email", "invalid"),
        (json!({}), "email", "required"),
    ] {
        let (status, refused) = app.post("", "/api/v1/auth/sso/start", body.clone()).await;
        assert_eq!((status, refused["fields"][field].as_str()), (400, Some(issue)), "{body}: {refused}");
    }
    for (body, field) in [
        (json!({ "state": "s" }), "code"),
        (json!({ "code": "c" }), "state"),
        (json!({ "code": "c".repeat(5000), "state": "s" }), "code"),
        (json!({ "code": "c", "state": "s".repeat(600) }), "state"),
    ] {
        let (status, refused) = app.post("", "/api/v1/auth/sso/finish", body.clone()).await;
        assert_eq!((status, refused["code"].as_str()), (400, Some("validation_failed")), "{refused}");
        assert!(refused["fields"][field].is_string(), "{field}: {refused}");
    }
}

/// A sign-in by passkey alone (the browser asks for options, the authenticator answers).
async fn passkey_sign_in(app: &TestApp, key: &mut crate::passkeys::Device) -> (u16, Value) {
    let post = |path: &str, body: Value| app.http.post(app.url(path)).json(&body).send();
    let (status, options) = crate::helpers::parts(post("/api/v1/auth/webauthn/login/options", json!({})).await.unwrap()).await;
    assert_eq!(status, 200, "{options}");
    let answer = key.assert(&options["publicKey"], &app.config.mail.public_url);
    crate::helpers::parts(post("/api/v1/auth/webauthn/login", json!({ "credential": answer })).await.unwrap()).await
}

/// Issue 41, finding 5: a passkey signed in a person whose enterprise requires single sign-on,
/// because that sign-in never asked the policy the password asks. Every proof now passes one
/// gate: the passkey is refused as the password is, except the break-glass CEO's.
#[tokio::test]
async fn a_passkey_does_not_bypass_required_single_sign_on() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = with_sso(&app, &admin, "Sso Passkey", json!({})).await;
    app.staff(&ceo, &id, "pat@sso-passkey.example", "DepartmentUser", None).await;
    let pat = app.token("pat@sso-passkey.example", "staff-password").await;
    let (mut pats_key, _) = crate::passkeys::register(&app, &pat, "Laptop").await;
    let (mut ceos_key, _) = crate::passkeys::register(&app, &ceo, "Phone").await;
    let (status, signed_in) = passkey_sign_in(&app, &mut pats_key).await;
    assert_eq!(status, 200, "not required yet: {signed_in}");

    let (_, me) = app.get(&ceo, "/api/v1/auth/me").await;
    let body = json!({ "issuer": issuer(), "clientId": "platform", "domains": ["sso-passkey.example"], "provisioning": "just_in_time", "required": true, "breakGlassUserId": me["id"] });
    let (status, saved) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), body).await;
    assert_eq!(status, 200, "{saved}");

    let (status, refused) = passkey_sign_in(&app, &mut pats_key).await;
    assert_eq!((status, refused["code"].as_str()), (403, Some("sso_required")), "{refused}");
    let (_, audit) = app.get(&ceo, "/api/v1/audit-events?action=auth.sign_in_refused").await;
    assert_eq!(audit["items"][0]["changes"]["reason"], "sso_required", "{audit}");
    // The break-glass CEO's passkey (a possession and a verified person) still opens.
    let (status, signed_in) = passkey_sign_in(&app, &mut ceos_key).await;
    assert_eq!(status, 200, "{signed_in}");
}

/// Issue 41, finding 3: a CEO claimed another company's domain (and gmail.com) and captured its
/// sign-ins. A domain now routes nobody until its TXT record is found (or the platform admin
/// approves it); public mail domains are never claimable; a proven domain is one enterprise's,
/// and nobody is onboarded at it elsewhere.
#[tokio::test]
async fn a_domain_routes_no_one_until_it_is_proven_and_then_belongs_to_one_enterprise() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let suffix = &uuid::Uuid::now_v7().simple().to_string()[20..];
    let company_c = format!("companyc-{suffix}.test");
    let (a, ceo_a) = app.enterprise(&admin, "Proof A").await;
    let settings = |domains: Value, required: bool| json!({ "issuer": issuer(), "clientId": "platform", "clientSecret": "platform-secret", "domains": domains, "provisioning": "just_in_time", "required": required });

    // Public mail domains: never.
    let (status, refused) = app.put(&ceo_a, &format!("/api/v1/enterprises/{a}/sso"), settings(json!(["gmail.com"]), true)).await;
    assert_eq!((status, refused["code"].as_str()), (400, Some("public_mail_domain")), "{refused}");
    // Another company's domain may be claimed, but it routes nobody while unproven.
    let (status, saved) = app.put(&ceo_a, &format!("/api/v1/enterprises/{a}/sso"), settings(json!([company_c]), true)).await;
    assert_eq!(status, 200, "{saved}");
    let domains = format!("/api/v1/enterprises/{a}/sso/domains");
    let (status, listed) = app.get(&ceo_a, &domains).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(listed[0]["domain"], company_c.as_str());
    assert_eq!(listed[0]["status"], "pending");
    assert_eq!(listed[0]["txtName"], format!("_enterprise-platform-challenge.{company_c}"));
    assert!(listed[0]["txtValue"].as_str().unwrap().starts_with("enterprise-platform-verification="), "{listed}");
    let (status, refused) = app.post(&ceo_a, &domains, json!({ "domain": "Outlook.com" })).await;
    assert_eq!((status, refused["code"].as_str()), (400, Some("public_mail_domain")), "{refused}");

    // The admin onboards Company C: its CEO's sign-in is not sent to A's provider.
    let carol = format!("carol@{company_c}");
    let (status, c) = app
        .post(&admin, "/api/v1/enterprises", json!({ "name": "Company C", "ceoFullName": "Carol", "ceoEmail": carol, "ceoPassword": "ceo-password" }))
        .await;
    assert_eq!(status, 201, "{c}");
    let c_id = c["id"].as_str().unwrap().to_owned();
    let (_, found) = app.post("", "/api/v1/auth/sso/discover", json!({ "email": carol })).await;
    assert_eq!(found, json!({ "sso": false, "required": false }), "an unproven claim routes nobody");
    assert_eq!(app.login(&carol, "ceo-password").await.status(), 200, "nor refuses anyone's password");

    // A's proof cannot be made up: the record is not there, then not right.
    let verify = |enterprise: &str, domain: &str| format!("/api/v1/enterprises/{enterprise}/sso/domains/{domain}/verify");
    let (status, refused) = app.post(&ceo_a, &verify(&a, &company_c), json!({})).await;
    assert_eq!((status, refused["code"].as_str()), (400, Some("domain_not_verified")), "{refused}");
    publish(&format!("_enterprise-platform-challenge.{company_c}"), "enterprise-platform-verification=guessed");
    let (status, _) = app.post(&ceo_a, &verify(&a, &company_c), json!({})).await;
    assert_eq!(status, 400);
    // The CEO may not approve their own claim; the approval is the platform admin's.
    let (status, _) = app.post(&ceo_a, &format!("{}?approve=true", verify(&a, &company_c)), json!({})).await;
    assert_eq!(status, 403);

    // Company C, which holds the domain, proves it by DNS: from now on it is C's alone.
    let ceo_c = app.token(&carol, "ceo-password").await;
    let (status, saved) = app.put(&ceo_c, &format!("/api/v1/enterprises/{c_id}/sso"), settings(json!([company_c]), false)).await;
    assert_eq!(status, 200, "{saved}");
    prove(&app, &ceo_c, &c_id, &company_c).await;
    let (_, found) = app.post("", "/api/v1/auth/sso/discover", json!({ "email": carol })).await;
    assert_eq!(found, json!({ "sso": true, "required": false }));
    let (_, listed) = app.get(&ceo_c, &format!("/api/v1/enterprises/{c_id}/sso/domains")).await;
    assert_eq!((listed[0]["status"].as_str(), listed[0]["verifiedBy"].as_str()), (Some("verified"), Some("dns")), "{listed}");
    // A's pending claim can never be proven now, nor claimed again.
    let (status, taken) = app.post(&admin, &format!("{}?approve=true", verify(&a, &company_c)), json!({})).await;
    assert_eq!((status, taken["reason"].as_str()), (409, Some("sso_domain_taken")), "{taken}");
    let (status, taken) = app.post(&ceo_a, &domains, json!({ "domain": format!("{company_c}") })).await;
    assert_eq!((status, taken["reason"].as_str()), (409, Some("sso_domain_taken")), "{taken}");
    // Nobody is onboarded at C's domain elsewhere: not A's staff, not a new enterprise's CEO.
    let (status, refused) = app
        .post(
            &ceo_a,
            "/api/v1/users",
            json!({ "fullName": "Spy", "email": format!("spy@{company_c}"), "password": "staff-password", "role": "DepartmentUser" }),
        )
        .await;
    assert_eq!((status, refused["fields"]["email"].as_str()), (400, Some("invalid")), "{refused}");
    let (status, refused) = app
        .post(
            &admin,
            "/api/v1/enterprises",
            json!({ "name": "Company D", "ceoFullName": "Dan", "ceoEmail": format!("dan@{company_c}"), "ceoPassword": "ceo-password" }),
        )
        .await;
    assert_eq!((status, refused["fields"]["ceoEmail"].as_str()), (400, Some("invalid")), "{refused}");

    // The platform admin may approve a domain that cannot publish a record; removing it stops the routing.
    let other = format!("a-{suffix}.test");
    let (status, claimed) = app.post(&ceo_a, &domains, json!({ "domain": other })).await;
    assert_eq!((status, claimed["status"].as_str()), (201, Some("pending")), "{claimed}");
    let (status, approved) = app.post(&admin, &format!("{}?approve=true", verify(&a, &other)), json!({})).await;
    assert_eq!((status, approved["status"].as_str(), approved["verifiedBy"].as_str()), (200, Some("verified"), Some("admin")), "{approved}");
    let (_, found) = app.post("", "/api/v1/auth/sso/discover", json!({ "email": format!("x@{other}") })).await;
    assert_eq!(found, json!({ "sso": true, "required": true }));
    assert_eq!(app.delete(&ceo_a, &format!("{domains}/{other}")).await.0, 204);
    assert_eq!(app.delete(&ceo_a, &format!("{domains}/{other}")).await.0, 404);
    let (_, found) = app.post("", "/api/v1/auth/sso/discover", json!({ "email": format!("x@{other}") })).await;
    assert_eq!(found, json!({ "sso": false, "required": false }));
}

/// The domain operations refuse bad input field by field and name nothing of other tenants.
#[tokio::test]
async fn the_domain_operations_refuse_bad_input_and_unknown_ids() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = with_sso(&app, &admin, "Sso Bad Input", json!({})).await;
    let (_, other_ceo) = app.enterprise(&admin, "Sso Other Tenant").await;
    let domains = format!("/api/v1/enterprises/{id}/sso/domains");
    for bad in ["", "not a domain", "-lead.example", "no-dot", &format!("{}.example", "a".repeat(64))] {
        let (status, refused) = app.post(&ceo, &domains, json!({ "domain": bad })).await;
        assert_eq!((status, refused["code"].as_str()), (400, Some("validation_failed")), "{bad:?}: {refused}");
    }
    let (status, _) = app.post(&ceo, &domains, json!({ "domain": 5 })).await;
    assert_eq!(status, 400, "a number is not a domain");
    let (status, _) = app.post(&ceo, &domains, json!({})).await;
    assert_eq!(status, 400, "the domain is required");
    let (status, _) = app.post(&ceo, "/api/v1/enterprises/not-a-uuid/sso/domains", json!({ "domain": "x.example" })).await;
    assert_eq!(status, 400);
    // Unknown claims and enterprises are 404; another tenant's are 404 too.
    assert_eq!(app.post(&ceo, &format!("{domains}/unclaimed.example/verify"), json!({})).await.0, 404);
    assert_eq!(app.delete(&ceo, &format!("{domains}/unclaimed.example")).await.0, 404);
    let (status, _) = app.get(&ceo, &format!("/api/v1/enterprises/{}/sso/domains", uuid::Uuid::now_v7())).await;
    assert_eq!(status, 404);
    assert_eq!(app.get(&other_ceo, &domains).await.0, 404);
    assert_eq!(app.post(&other_ceo, &domains, json!({ "domain": "x.example" })).await.0, 404);
    assert_eq!(app.post(&other_ceo, &format!("{domains}/sso-bad-input.example/verify"), json!({})).await.0, 404);
    assert_eq!(app.delete(&other_ceo, &format!("{domains}/sso-bad-input.example")).await.0, 404);
    // `approve` must be a boolean.
    assert_eq!(app.post(&admin, &format!("{domains}/sso-bad-input.example/verify?approve=maybe"), json!({})).await.0, 400);
    // An enterprise without single sign-on has no domains to claim.
    let (plain, plain_ceo) = app.enterprise(&admin, "Sso None").await;
    assert_eq!(app.post(&plain_ceo, &format!("/api/v1/enterprises/{plain}/sso/domains"), json!({ "domain": "none.example" })).await.0, 404);
}

#[tokio::test]
async fn a_person_is_bound_to_one_subject_at_the_provider_and_an_unverified_address_is_refused_unless_the_enterprise_says_so() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = with_sso(&app, &admin, "Sso Bind", json!({})).await;
    let fail = |answer: &Value| (answer["code"].as_str().map(str::to_owned), answer["reason"].as_str().map(str::to_owned));
    let sso_failed = |reason: &str| (Some("sso_failed".to_owned()), Some(reason.to_owned()));

    // The first sign-in binds the person to the provider's subject.
    let (status, first) = sign_in(&app, "bea@sso-bind.example").await;
    assert_eq!(status, 200, "{first}");
    // Another subject for the same address (a second account at the provider, or a provider
    // that reassigned the address) is someone else: refused, and the binding is kept.
    let (status, other) = sign_in_with(&app, "bea@sso-bind.example", &[("subject", "somebody-else")]).await;
    assert_eq!((status, fail(&other)), (403, sso_failed("identity_mismatch")), "{other}");
    let (status, again) = sign_in(&app, "bea@sso-bind.example").await;
    assert_eq!(status, 200, "{again}");
    assert_eq!(again["user"]["id"], first["user"]["id"]);
    let (_, refusals) = app.get(&ceo, "/api/v1/audit-events?action=auth.sign_in_refused").await;
    assert!(refusals["items"].as_array().unwrap().iter().any(|e| e["details"]["reason"] == "identity_mismatch"), "{refusals}");

    // The provider must say the address is verified: false, or the claim left out, is refused.
    let (status, unverified) = sign_in_with(&app, "cal@sso-bind.example", &[("email_verified", "false")]).await;
    assert_eq!((status, fail(&unverified)), (401, sso_failed("email_unverified")), "{unverified}");
    let (status, omitted) = sign_in_with(&app, "cal@sso-bind.example", &[("email_verified", "omit")]).await;
    assert_eq!((status, fail(&omitted)), (401, sso_failed("email_unverified")), "{omitted}");
    let (_, people) = app.get(&ceo, "/api/v1/users?q=cal@").await;
    assert_eq!(people["total"], 0, "nobody was made: {people}");

    // An enterprise whose provider leaves the claim out says so; an explicit false stays refused.
    let (_, current) = app.get(&ceo, &format!("/api/v1/enterprises/{id}/sso")).await;
    assert_eq!(current["acceptUnverifiedEmail"], false, "{current}");
    let body = json!({
        "issuer": issuer(), "clientId": "platform", "domains": current["domains"], "provisioning": "just_in_time",
        "acceptUnverifiedEmail": true,
    });
    let (status, saved) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), body).await;
    assert_eq!((status, &saved["acceptUnverifiedEmail"]), (200, &json!(true)), "{saved}");
    let (status, omitted) = sign_in_with(&app, "cal@sso-bind.example", &[("email_verified", "omit")]).await;
    assert_eq!(status, 200, "{omitted}");
    let (status, unverified) = sign_in_with(&app, "dee@sso-bind.example", &[("email_verified", "false")]).await;
    assert_eq!((status, fail(&unverified)), (401, sso_failed("email_unverified")), "{unverified}");
}

/// A sign-in's second step, answered with an authenticator's code.
async fn verify_code(app: &TestApp, challenge: &str, code: &str) -> (u16, Value) {
    crate::helpers::parts(
        app.http.post(app.url("/api/v1/auth/login/verify")).json(&json!({ "challenge": challenge, "code": code })).send().await.unwrap(),
    )
    .await
}

#[tokio::test]
async fn a_provider_that_asserts_no_second_factor_leads_to_ours_for_a_person_who_has_one_or_where_the_enterprise_requires_it() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = with_sso(&app, &admin, "Sso Mfa", json!({})).await;
    let multi_factor = "http://schemas.openid.net/pape/policies/2007/06/multi-factor";

    // A person with an authenticator of ours is asked for it when the provider says nothing of
    // a second factor, even though the enterprise does not require one.
    let (status, first) = sign_in(&app, "eve@sso-mfa.example").await;
    assert_eq!(status, 200, "{first}");
    let (secret, _) = enrol(&app, first["token"].as_str().unwrap()).await;
    let (status, step) = sign_in(&app, "eve@sso-mfa.example").await;
    assert_eq!((status, &step["mfaRequired"], &step["enrollmentRequired"]), (200, &json!(true), &json!(false)), "{step}");
    assert_eq!(step["methods"], json!(["totp", "recovery_code"]), "{step}");
    assert!(step.get("token").is_none(), "no session before the second step: {step}");
    let (status, signed_in) = verify_code(&app, step["challenge"].as_str().unwrap(), &code_at(&secret, 30)).await;
    assert_eq!(status, 200, "{signed_in}");
    assert_eq!(own_method(&app, signed_in["token"].as_str().unwrap()).await, "sso_totp");
    // The provider's own word for a second factor is enough: amr with a password and a one-time
    // code, or the multi-factor acr.
    let (status, direct) = sign_in_with(&app, "eve@sso-mfa.example", &[("amr", "pwd,otp")]).await;
    assert_eq!(status, 200, "{direct}");
    assert_eq!(own_method(&app, direct["token"].as_str().unwrap()).await, "sso");
    let (status, one_factor) = sign_in_with(&app, "eve@sso-mfa.example", &[("amr", "pwd")]).await;
    assert_eq!((status, &one_factor["mfaRequired"]), (200, &json!(true)), "a password alone is one factor: {one_factor}");

    // Someone without one signs in on the provider's word alone, until the enterprise requires a
    // second factor: then the provider is asked for one (acr_values), and without its word the
    // person sets up an authenticator of ours before any session.
    let (status, plain) = sign_in(&app, "fay@sso-mfa.example").await;
    assert_eq!(status, 200, "{plain}");
    let (_, current) = app.get(&ceo, &format!("/api/v1/enterprises/{id}/sso")).await;
    assert_eq!(current["requireMfa"], false, "{current}");
    let body =
        json!({ "issuer": issuer(), "clientId": "platform", "domains": current["domains"], "provisioning": "just_in_time", "requireMfa": true });
    let (status, saved) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), body).await;
    assert_eq!((status, &saved["requireMfa"]), (200, &json!(true)), "{saved}");
    let (url, _) = start(&app, "fay@sso-mfa.example").await;
    assert_eq!(query(&Url::parse(&url).unwrap(), "acr_values"), multi_factor);
    let (status, enrol_step) = sign_in(&app, "fay@sso-mfa.example").await;
    assert_eq!((status, &enrol_step["mfaRequired"], &enrol_step["enrollmentRequired"]), (200, &json!(true), &json!(true)), "{enrol_step}");
    let challenge = enrol_step["challenge"].as_str().unwrap();
    let (status, setup) = app.post("", "/api/v1/auth/login/totp", json!({ "challenge": challenge })).await;
    assert_eq!(status, 200, "{setup}");
    let (status, enrolled) = verify_code(&app, challenge, &code_at(setup["secret"].as_str().unwrap(), 0)).await;
    assert_eq!(status, 200, "{enrolled}");
    assert_eq!(enrolled["recoveryCodes"].as_array().map(Vec::len), Some(10), "{enrolled}");
    assert_eq!(own_method(&app, enrolled["token"].as_str().unwrap()).await, "sso_totp");
    let (status, asserted) = sign_in_with(&app, "gus@sso-mfa.example", &[("acr", multi_factor)]).await;
    assert_eq!(status, 200, "{asserted}");
    assert!(asserted["token"].is_string(), "the provider's multi-factor acr is enough: {asserted}");
}

/// An OpenID provider behind an enterprise's own certificate authority: the tests' provider
/// (scripts/oidc/provider.mjs) served over HTTPS with a certificate for `localhost` signed by an
/// authority made here (rcgen), which no built-in root knows. Stopped when dropped.
struct PrivateProvider {
    child: std::process::Child,
    issuer: String,
    authority: reqwest::Certificate,
    authority_file: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl PrivateProvider {
    fn start() -> Self {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
        let authority_key = KeyPair::generate().unwrap();
        let mut authority = CertificateParams::new(Vec::<String>::new()).unwrap();
        authority.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        authority.distinguished_name.push(DnType::CommonName, "Private Enterprise Root CA");
        let authority_pem = authority.self_signed(&authority_key).unwrap().pem();
        let leaf_key = KeyPair::generate().unwrap();
        let leaf =
            CertificateParams::new(vec!["localhost".to_owned()]).unwrap().signed_by(&leaf_key, &Issuer::new(authority, authority_key)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let (cert, key, authority_file) =
            (file("provider.pem", &leaf.pem()), file("provider-key.pem", &leaf_key.serialize_pem()), file("authority.pem", &authority_pem));
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/oidc/provider.mjs");
        let child = std::process::Command::new("node")
            .arg(script)
            .env("OIDC_PORT", port.to_string())
            .env("OIDC_TLS_CERT", &cert)
            .env("OIDC_TLS_KEY", &key)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("node runs the test provider");
        let authority = reqwest::Certificate::from_pem(authority_pem.as_bytes()).unwrap();
        Self { child, issuer: format!("https://localhost:{port}"), authority, authority_file, _dir: dir }
    }

    /// Waits until its discovery document answers over HTTPS (to a client that trusts its
    /// authority).
    async fn ready(&self) {
        let client = Client::builder().add_root_certificate(self.authority.clone()).build().unwrap();
        let url = format!("{}/.well-known/openid-configuration", self.issuer);
        for _ in 0..100 {
            if client.get(&url).send().await.is_ok_and(|r| r.status() == 200) {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("the HTTPS provider did not answer at {url}");
    }
}

impl Drop for PrivateProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn a_provider_behind_an_enterprise_s_own_authority_is_refused_until_the_operator_trusts_it_then_signs_people_in() {
    let provider = PrivateProvider::start();
    provider.ready().await;
    let settings = |domain: &str| json!({ "issuer": provider.issuer, "clientId": "platform", "clientSecret": "platform-secret", "domains": [domain], "provisioning": "just_in_time" });

    // A server that knows only the built-in roots refuses the issuer, saying why.
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = app.enterprise(&admin, "Private Root").await;
    let (status, refused) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), settings("private-root.example")).await;
    assert_eq!(
        (status, refused["reason"].as_str(), refused["fields"]["issuer"].as_str()),
        (400, Some("untrusted_certificate"), Some("invalid")),
        "{refused}"
    );
    assert!(refused["message"].as_str().is_some_and(|m| m.contains("TRUSTED_CA_CERTS")), "the message says what to do: {refused}");

    // Its operator adds the authority (TRUSTED_CA_CERTS, read as the server reads it): the same
    // settings are saved, and a person signs in through the provider over HTTPS.
    let roots = backend::config::trusted_roots(provider.authority_file.to_str()).unwrap();
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |config| config.trusted_roots = roots).await;
    let admin = app.admin_token().await;
    let (id, ceo) = app.enterprise(&admin, "Private Root").await;
    let (status, saved) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), settings("private-root.example")).await;
    assert_eq!((status, &saved["issuer"]), (200, &json!(provider.issuer)), "{saved}");
    prove(&app, &ceo, &id, "private-root.example").await;
    let (url, state) = start(&app, "ivy@private-root.example").await;
    assert!(url.starts_with(&provider.issuer), "{url}");
    let back = Browser::trusting(Some(&provider.authority)).sign_in(&url, "ivy@private-root.example").await;
    let (status, session) = finish(&app, &query(&back, "code"), &state).await;
    assert_eq!((status, &session["user"]["email"]), (200, &json!("ivy@private-root.example")), "{session}");
}

#[test]
fn trusted_authorities_are_read_from_a_file_or_a_directory_and_a_path_without_one_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let pem = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap().self_signed(&key).unwrap().pem();
    std::fs::write(dir.path().join("one.pem"), &pem).unwrap();
    std::fs::write(dir.path().join("two.crt"), format!("{pem}{pem}")).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a certificate").unwrap();
    let file = dir.path().join("one.pem");
    assert_eq!(backend::config::trusted_roots(file.to_str()).unwrap().len(), 1);
    assert_eq!(backend::config::trusted_roots(dir.path().to_str()).unwrap().len(), 3, "every .pem and .crt of the directory");
    assert!(backend::config::trusted_roots(None).unwrap().is_empty());
    let empty = tempfile::tempdir().unwrap();
    let refusal = backend::config::trusted_roots(empty.path().to_str()).unwrap_err().to_string();
    assert!(refusal.contains("holds no PEM certificate"), "{refusal}");
    let refusal = backend::config::trusted_roots(Some("/nowhere/ca.pem")).unwrap_err().to_string();
    assert!(refusal.contains("cannot read"), "{refusal}");
}

/// A client registered at the test provider (RFC 7591) whose back-channel logout address is the
/// enterprise's here, as an enterprise's IT department registers the platform at its provider.
async fn register_client(app: &TestApp, enterprise: &str) -> (String, String) {
    let body = json!({
        "redirect_uris": ["http://localhost:8080/sign-in/sso"],
        "backchannel_logout_uri": app.url(&format!("/api/v1/auth/sso/{enterprise}/backchannel-logout")),
        "token_endpoint_auth_method": "client_secret_basic", "response_types": ["code"], "grant_types": ["authorization_code"],
    });
    let registered: Value = Client::new().post(format!("{}/reg", issuer())).json(&body).send().await.unwrap().json().await.unwrap();
    (registered["client_id"].as_str().unwrap().to_owned(), registered["client_secret"].as_str().unwrap().to_owned())
}

impl Browser {
    /// Signs out at the provider (RP-initiated logout's end_session_endpoint, and its
    /// confirmation form), as the person would in another tab: the provider then posts a logout
    /// token to every client of that session.
    async fn sign_out_at_provider(&self, client_id: &str) {
        let page = self.0.get(format!("{}/session/end?client_id={client_id}", issuer())).send().await.unwrap();
        assert_eq!(page.status(), 200);
        let page = page.text().await.unwrap();
        let xsrf =
            page.split("name=\"xsrf\" value=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or_else(|| panic!("no xsrf field: {page}"));
        let confirmed = self.0.post(format!("{}/session/end/confirm", issuer())).form(&[("xsrf", xsrf), ("logout", "yes")]).send().await.unwrap();
        assert!(confirmed.status().is_redirection(), "the provider signed the person out: {}", confirmed.status());
    }
}

#[tokio::test]
async fn the_provider_signs_a_person_out_and_their_single_sign_on_sessions_end_on_every_instance() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db.clone()).await;
    let other = TestApp::spawn_like(&app, db).await;
    let admin = app.admin_token().await;
    let (id, ceo) = app.enterprise(&admin, "Logout One").await;
    let (client_id, client_secret) = register_client(&app, &id).await;
    let body = json!({
        "issuer": issuer(), "clientId": client_id, "clientSecret": client_secret,
        "domains": ["logout-one.example"], "provisioning": "just_in_time",
    });
    let (status, saved) = app.put(&ceo, &format!("/api/v1/enterprises/{id}/sso"), body).await;
    assert_eq!(status, 200, "{saved}");
    prove(&app, &ceo, &id, "logout-one.example").await;

    // Two people sign in through the provider, each in their own browser.
    let mut sessions = Vec::new();
    for email in ["ivy@logout-one.example", "jon@logout-one.example"] {
        let browser = Browser::new();
        let (url, state) = start(&app, email).await;
        let back = browser.sign_in(&url, email).await;
        let (status, session) = finish(&app, &query(&back, "code"), &state).await;
        assert_eq!(status, 200, "{session}");
        let token = session["token"].as_str().unwrap().to_owned();
        assert_eq!((app.me(&token).await.status().as_u16(), other.me(&token).await.status().as_u16()), (200, 200));
        sessions.push((browser, token));
    }

    // Ivy signs out at the provider: its logout token ends her session here, on both instances;
    // Jon's goes on.
    sessions[0].0.sign_out_at_provider(&client_id).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let ended = (app.me(&sessions[0].1).await.status().as_u16(), other.me(&sessions[0].1).await.status().as_u16());
        if ended == (401, 401) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "Ivy's session still answers {ended:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        (app.me(&sessions[1].1).await.status().as_u16(), other.me(&sessions[1].1).await.status().as_u16()),
        (200, 200),
        "Jon is still signed in"
    );
    let (_, listed) = app.get(&ceo, "/api/v1/monitoring/sessions?status=ended").await;
    assert!(listed.to_string().contains("provider_logout"), "the session's end says why: {listed}");
    let (_, audit) = app.get(&ceo, "/api/v1/audit-events?action=session.ended").await;
    assert_eq!(audit["items"][0]["details"]["reason"], "provider_logout", "{audit}");

    // What is not a verified logout token ends nothing.
    let post = |path: String, token: &'static str| app.http.post(app.url(&path)).form(&[("logout_token", token)]).send();
    let refused = post(format!("/api/v1/auth/sso/{id}/backchannel-logout"), "not.a.jwt").await.unwrap();
    let (status, body) = crate::helpers::parts(refused).await;
    assert_eq!((status, &body["fields"]["logout_token"]), (400, &json!("invalid")), "{body}");
    let unknown = post(format!("/api/v1/auth/sso/{}/backchannel-logout", uuid::Uuid::nil()), "not.a.jwt").await.unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(app.me(&sessions[1].1).await.status(), 200);
}
