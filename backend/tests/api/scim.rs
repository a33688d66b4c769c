//! Provisioning (SCIM 2.0) with an enterprise's service credential: driven by a real SCIM client
//! library (`tests/tools/scim_client.py`, scim2-client, which validates the answers against
//! RFC 7643's models), and with the PATCH bodies Okta's and Entra ID's provisioning send, as their
//! documentation shows them.

use serde_json::{Value, json};

use crate::database::test_database;
use crate::helpers::{TestApp, parts, python};

const PATCH_OP: &str = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/// An enterprise, its CEO's session and a service credential with `scopes`.
async fn provisioned(app: &TestApp, admin: &str, name: &str, scopes: &[&str]) -> (String, String, String) {
    let (id, ceo) = app.enterprise(admin, name).await;
    let (status, made) = app.post(&ceo, &format!("/api/v1/enterprises/{id}/service-tokens"), json!({ "name": "Okta", "scopes": scopes })).await;
    assert_eq!(status, 201, "{made}");
    (id, ceo, made["token"].as_str().unwrap().to_owned())
}

/// A SCIM call: (status, content type, body).
async fn scim(app: &TestApp, token: Option<&str>, method: reqwest::Method, path: &str, body: Option<Value>) -> (u16, String, Value) {
    let mut req = app.http.request(method, app.url(&format!("/api/v1/scim/v2{path}"))).header("accept", "application/scim+json");
    if let Some(token) = token {
        req = req.bearer_auth(token);
    }
    if let Some(body) = body {
        req = req.header("content-type", "application/scim+json").body(body.to_string());
    }
    let resp = req.send().await.unwrap();
    let content_type = resp.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let (status, body) = parts(resp).await;
    (status, content_type, body)
}

#[tokio::test]
async fn a_scim_client_library_provisions_finds_replaces_deactivates_and_deletes_a_person() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo, token) = provisioned(&app, &admin, "Scim One", &["scim:write"]).await;
    // Asynchronously: the server answering it runs on this test's runtime.
    let out = tokio::process::Command::new(python())
        .args([concat!(env!("CARGO_MANIFEST_DIR"), "/tests/tools/scim_client.py"), &app.url("/api/v1/scim/v2"), &token, "scim-one.example"])
        .output()
        .await
        .expect("the test tools' Python (scripts/mail/start.sh) runs");
    assert!(out.status.success(), "scim2-client: {}", String::from_utf8_lossy(&out.stderr));
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = seen["created"]["id"].as_str().unwrap();
    assert_eq!(seen["patchSupported"], true);
    assert_eq!(
        seen["created"],
        json!({ "id": id, "userName": "pat@scim-one.example", "displayName": "Pat Doe", "externalId": "idp-pat", "active": true })
    );
    assert_eq!(seen["fetchedUserName"], "pat@scim-one.example");
    assert_eq!(seen["byUserName"], json!([id]));
    assert_eq!(seen["byExternalId"], json!([id]));
    assert_eq!(seen["nobody"], 0);
    assert_eq!(seen["replacedDisplayName"], "Pat Smith");
    assert_eq!(seen["patchedActive"], false);
    assert_eq!(seen["afterDelete"]["status"], 404, "{seen}");
    // What the CEO's audit log says happened, through the service credential.
    let (_, audit) = app.get(&ceo, &format!("/api/v1/audit-events?target={id}")).await;
    let mut actions: Vec<&str> = audit["items"].as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    actions.sort_unstable();
    assert_eq!(actions, ["user.created", "user.deactivated", "user.deleted", "user.updated", "user.updated"], "{audit}");
}

#[tokio::test]
async fn okta_and_entra_patches_change_and_deactivate_and_a_deactivation_ends_everything() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo, token) = provisioned(&app, &admin, "Scim Two", &["scim:write"]).await;
    let post = reqwest::Method::POST;
    let patch = reqwest::Method::PATCH;
    // Entra ID's create: userName a UPN, the active flag, an externalId (its objectId).
    let entra_user = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
        "externalId": "0a1b2c3d", "userName": "ann@scim-two.example", "active": true, "displayName": "Ann Lee",
        "emails": [{ "primary": true, "type": "work", "value": "ann@scim-two.example" }],
        "name": { "formatted": "Ann Lee", "familyName": "Lee", "givenName": "Ann" },
        "password": "a-long-initial-password-1"
    });
    let (status, content_type, ann) = scim(&app, Some(&token), post.clone(), "/Users", Some(entra_user)).await;
    assert_eq!((status, content_type.as_str()), (201, "application/scim+json"), "{ann}");
    let id = ann["id"].as_str().unwrap().to_owned();
    assert_eq!(ann["meta"]["location"], format!("http://localhost:8080/api/v1/scim/v2/Users/{id}"));
    assert_eq!(ann["meta"]["resourceType"], "User");
    // Ann signs in with the password provisioned, and makes herself a token.
    let session = app.token("ann@scim-two.example", "a-long-initial-password-1").await;
    let (status, personal) = app.post(&session, "/api/v1/api-tokens", json!({ "name": "mine", "scopes": ["reports:read"] })).await;
    assert_eq!(status, 201, "{personal}");
    let personal = personal["token"].as_str().unwrap().to_owned();

    // Entra ID's PATCH (its documented shape): capitalised ops, a name-only change, a new work
    // e-mail through a filter, a new userPrincipalName (the address that signs Ann in).
    let entra_patch = json!({ "schemas": [PATCH_OP], "Operations": [
        { "op": "Replace", "path": "name.givenName", "value": "Anne" },
        { "op": "Replace", "path": "displayName", "value": "Anne Lee" },
        { "op": "Add", "path": "emails[type eq \"work\"].value", "value": "anne@scim-two.example" },
        { "op": "Replace", "path": "userName", "value": "anne@scim-two.example" },
        { "op": "Replace", "path": "externalId", "value": "0a1b2c3e" }
    ]});
    let (status, _, changed) = scim(&app, Some(&token), patch.clone(), &format!("/Users/{id}"), Some(entra_patch)).await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(
        (&changed["displayName"], &changed["userName"], &changed["externalId"], &changed["name"]),
        (
            &json!("Anne Lee"),
            &json!("anne@scim-two.example"),
            &json!("0a1b2c3e"),
            &json!({ "formatted": "Ann Lee", "familyName": "Lee", "givenName": "Anne" })
        )
    );
    assert_eq!(changed["emails"], json!([{ "primary": true, "type": "work", "value": "anne@scim-two.example" }]));
    let (_, _, again) = scim(&app, Some(&token), reqwest::Method::GET, &format!("/Users/{id}"), None).await;
    assert_eq!(again, changed, "what a GET shows is what the PATCH answered");
    let (_, account) = app.get(&ceo, &format!("/api/v1/users/{id}")).await;
    assert_eq!((&account["fullName"], &account["email"]), (&json!("Anne Lee"), &json!("anne@scim-two.example")), "{account}");
    // Entra ID's name-only PATCH, without displayName: the given name changes, and so does the
    // name the app shows when the directory sets no displayName.
    let entra_remove = json!({ "schemas": [PATCH_OP], "Operations": [
        { "op": "Remove", "path": "displayName" },
        { "op": "Remove", "path": "name.formatted" },
        { "op": "Replace", "path": "name.givenName", "value": "Annie" }
    ]});
    let (status, _, renamed) = scim(&app, Some(&token), patch.clone(), &format!("/Users/{id}"), Some(entra_remove)).await;
    assert_eq!(
        (status, renamed.get("displayName"), &renamed["name"]),
        (200, None, &json!({ "familyName": "Lee", "givenName": "Annie" })),
        "{renamed}"
    );
    assert_eq!(app.get(&ceo, &format!("/api/v1/users/{id}")).await.1["fullName"], "Annie Lee");
    // A rename in the app outdates the directory's name: the resource shows the app's.
    let (status, _) = app.put(&ceo, &format!("/api/v1/users/{id}"), json!({ "fullName": "Ann Renamed" })).await;
    assert_eq!(status, 200);
    let (_, _, shown) = scim(&app, Some(&token), reqwest::Method::GET, &format!("/Users/{id}"), None).await;
    assert_eq!((&shown["displayName"], &shown["name"]["formatted"]), (&json!("Ann Renamed"), &json!("Ann Renamed")), "{shown}");
    // A language the platform does not speak is refused, not taken as English.
    let german = json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "replace", "path": "preferredLanguage", "value": "de-DE" }] });
    let (status, _, body) = scim(&app, Some(&token), patch.clone(), &format!("/Users/{id}"), Some(german)).await;
    assert_eq!((status, &body["scimType"]), (400, &json!("invalidValue")), "{body}");
    // Entra ID deactivates with the text "False".
    let entra_off = json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "Replace", "path": "active", "value": "False" }] });
    let (status, _, off) = scim(&app, Some(&token), patch.clone(), &format!("/Users/{id}"), Some(entra_off)).await;
    assert_eq!((status, &off["active"]), (200, &json!(false)), "{off}");
    assert_eq!(app.me(&session).await.status(), 401, "a deactivated person's session ends at once");
    assert_eq!(app.me(&personal).await.status(), 401, "and their tokens");
    // Okta reactivates with a value object and no path.
    let okta_on = json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "replace", "value": { "active": true } }] });
    let (status, _, on) = scim(&app, Some(&token), patch.clone(), &format!("/Users/{id}"), Some(okta_on)).await;
    assert_eq!((status, &on["active"]), (200, &json!(true)), "{on}");
    // Okta's create (no password: the person is invited) and its lookup before it.
    let (status, _, page) =
        scim(&app, Some(&token), reqwest::Method::GET, "/Users?filter=userName%20eq%20%22bo%40scim-two.example%22&startIndex=1&count=100", None)
            .await;
    assert_eq!((status, &page["totalResults"], &page["Resources"]), (200, &json!(0), &json!([])), "{page}");
    let okta_user = json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"], "userName": "bo@scim-two.example",
        "name": { "givenName": "Bo", "familyName": "Chen" }, "emails": [{ "primary": true, "value": "bo@scim-two.example", "type": "work" }],
        "displayName": "Bo Chen", "locale": "fr-FR", "externalId": "00u1", "groups": [], "active": true
    });
    let (status, _, bo) = scim(&app, Some(&token), post, "/Users", Some(okta_user)).await;
    assert_eq!((status, &bo["preferredLanguage"]), (201, &json!("fr")), "{bo}");
    let (_, user) = app.get(&ceo, &format!("/api/v1/users/{}", bo["id"].as_str().unwrap())).await;
    assert_eq!(user["invitation"]["status"], "pending", "invited to choose a password: {user}");
}

#[tokio::test]
async fn scim_answers_errors_in_its_own_format_and_keeps_to_its_enterprise() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo, token) = provisioned(&app, &admin, "Scim Three", &["scim:write"]).await;
    let (_, _, other) = provisioned(&app, &admin, "Scim Four", &["scim:write"]).await;
    let (_, _, reader) = provisioned(&app, &admin, "Scim Five", &["users:write"]).await;
    let get = reqwest::Method::GET;
    let cy = json!({ "userName": "cy@scim-three.example", "displayName": "Cy" });
    let (status, _, cy) = scim(&app, Some(&token), reqwest::Method::POST, "/Users", Some(cy)).await;
    assert_eq!(status, 201, "{cy}");
    let id = cy["id"].as_str().unwrap();

    let error = |status: &str, scim_type: Option<&str>, body: &Value| {
        assert_eq!(body["schemas"], json!(["urn:ietf:params:scim:api:messages:2.0:Error"]), "{body}");
        assert_eq!(body["status"], status, "{body}");
        assert_eq!(body["scimType"].as_str(), scim_type, "{body}");
        assert!(body["detail"].as_str().is_some_and(|d| !d.is_empty()), "{body}");
    };
    let (status, content_type, body) = scim(&app, None, get.clone(), "/Users", None).await;
    assert_eq!((status, content_type.as_str()), (401, "application/scim+json"));
    error("401", None, &body);
    let (status, _, body) = scim(&app, Some(&token), get.clone(), "/Users?filter=userName%20zz%20%22x%22", None).await;
    assert_eq!(status, 400);
    error("400", Some("invalidFilter"), &body);
    let dup = json!({ "userName": "dup@scim-three.example" });
    let (status, _, body) = scim(&app, Some(&token), reqwest::Method::POST, "/Users", Some(dup.clone())).await;
    assert_eq!(status, 201, "{body}");
    let (status, _, body) = scim(&app, Some(&token), reqwest::Method::POST, "/Users", Some(dup)).await;
    assert_eq!(status, 409);
    error("409", Some("uniqueness"), &body);
    let (status, _, body) = scim(&app, Some(&token), reqwest::Method::POST, "/Users", Some(json!({ "displayName": "No name" }))).await;
    assert_eq!(status, 400);
    error("400", Some("invalidValue"), &body);
    let bad_patch = json!({ "schemas": [PATCH_OP], "Operations": [{ "op": "replace", "path": "roles", "value": "admin" }] });
    let (status, _, body) = scim(&app, Some(&token), reqwest::Method::PATCH, &format!("/Users/{id}"), Some(bad_patch)).await;
    assert_eq!(status, 400);
    error("400", Some("invalidPath"), &body);
    let (status, _, body) = scim(&app, Some(&token), get.clone(), "/Users/not-an-id", None).await;
    assert_eq!(status, 404);
    error("404", None, &body);
    // Another enterprise's credential: Cy does not exist for it.
    assert_eq!(scim(&app, Some(&other), get.clone(), &format!("/Users/{id}"), None).await.0, 404);
    assert_eq!(scim(&app, Some(&other), get.clone(), "/Users", None).await.2["totalResults"], 0);
    // A credential without the scim scope, and the CEO's own account, which SCIM never lists.
    let (status, _, body) = scim(&app, Some(&reader), get.clone(), "/Users", None).await;
    assert_eq!(status, 403);
    error("403", None, &body);
    let ceo_id = app.get(&ceo, "/api/v1/auth/me").await.1["id"].as_str().unwrap().to_owned();
    assert_eq!(scim(&app, Some(&token), get.clone(), &format!("/Users/{ceo_id}"), None).await.0, 404);
    assert_eq!(scim(&app, Some(&token), reqwest::Method::DELETE, &format!("/Users/{ceo_id}"), None).await.0, 404);
    // Refusals from before the handlers are SCIM's too: no media type, a NUL in the query.
    let resp = app.http.put(app.url(&format!("/api/v1/scim/v2/Users/{id}"))).bearer_auth(&token).body("{}").send().await.unwrap();
    let content_type = resp.headers()["content-type"].to_str().unwrap().to_owned();
    let (status, body) = parts(resp).await;
    assert_eq!((status, content_type.as_str()), (415, "application/scim+json"), "{body}");
    error("415", None, &body);
    let (status, content_type, body) = scim(&app, Some(&token), get.clone(), "/Users?filter=a%00b", None).await;
    assert_eq!((status, content_type.as_str()), (400, "application/scim+json"), "{body}");
    error("400", Some("invalidValue"), &body);
    // Pages: startIndex is 1-based.
    let (_, _, page) = scim(&app, Some(&token), get, "/Users?startIndex=2&count=1", None).await;
    assert_eq!((&page["totalResults"], &page["startIndex"], &page["itemsPerPage"]), (&json!(2), &json!(2), &json!(1)), "{page}");
}

#[tokio::test]
async fn an_enterprise_that_chose_erasure_has_its_directory_s_deletions_erase_the_person_and_keep_their_work() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (ent, ceo, token) = provisioned(&app, &admin, "Erasing Directory", &["scim:read", "scim:write"]).await;
    let finance = app.department(&ceo, &ent, "finance").await;
    let leaver = app.staff(&ceo, &ent, "leaver@erasing-directory.example", "DepartmentUser", Some(&finance)).await;
    let author = app.token("leaver@erasing-directory.example", "staff-password").await;
    let report = json!({ "title": "Q4", "content": "Figures", "periodStart": "2026-10-01", "periodEnd": "2026-12-31", "status": "submitted" });
    let (status, report) = app.post(&author, &format!("/api/v1/departments/{finance}/reports"), report).await;
    assert_eq!(status, 201, "{report}");
    let settings = format!("/api/v1/enterprises/{ent}/provisioning");

    // By default a deletion deletes, which a person who wrote reports cannot be.
    assert_eq!(app.get(&ceo, &settings).await.1, json!({ "scimDeletion": "delete" }));
    let (status, _, body) = scim(&app, Some(&token), reqwest::Method::DELETE, &format!("/Users/{leaver}"), None).await;
    assert_eq!(status, 409, "{body}");

    // Erasure chosen (by the CEO): the directory's deletion erases them.
    let (status, set) = app.put(&ceo, &settings, json!({ "scimDeletion": "erase" })).await;
    assert_eq!((status, set), (200, json!({ "scimDeletion": "erase" })));
    let resp = app.http.delete(app.url(&format!("/api/v1/scim/v2/Users/{leaver}"))).bearer_auth(&token).send().await.unwrap();
    assert_eq!(resp.status(), 204);
    let (_, person) = app.get(&ceo, &format!("/api/v1/users/{leaver}")).await;
    assert_eq!((&person["fullName"], &person["email"], &person["erased"]), (&json!("Former member #1"), &Value::Null, &json!(true)), "{person}");
    let (status, kept) = app.get(&ceo, &format!("/api/v1/reports/{}", report["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "{kept}");
    assert_eq!(kept["title"], "Q4");
    let (status, _, _) = scim(&app, Some(&token), reqwest::Method::GET, &format!("/Users/{leaver}"), None).await;
    assert_eq!(status, 404, "gone for the directory");
    let (_, audit) = app.get(&ceo, "/api/v1/audit-events?action=user.erased").await;
    assert_eq!(audit["items"].as_array().map(Vec::len), Some(1), "{audit}");
    let (_, audit) = app.get(&ceo, "/api/v1/audit-events?action=enterprise.provisioning_changed").await;
    assert_eq!(audit["items"][0]["changes"]["scimDeletion"], json!(["delete", "erase"]), "{audit}");

    // Bad values, other enterprises, staff.
    assert_eq!(app.put(&ceo, &settings, json!({ "scimDeletion": "shred" })).await.0, 400);
    assert_eq!(app.put(&ceo, &settings, json!({})).await.0, 400);
    let (_, other_ceo) = app.enterprise(&admin, "Other Directory").await;
    assert_eq!(app.get(&other_ceo, &settings).await.0, 404);
    assert_eq!(app.put(&other_ceo, &settings, json!({ "scimDeletion": "delete" })).await.0, 404);
    assert_eq!(app.get(&admin, &settings).await.1, json!({ "scimDeletion": "erase" }));
}
