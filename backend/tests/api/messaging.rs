//! The messenger's server: realms and membership, key epochs, messages, read marks, archive,
//! bounds, and delivery to sockets on another instance. The server only ever sees bytes; these
//! tests send random ones where browsers send ciphertext (the cryptography is tested in the
//! frontend's own tests and end to end).

use backend::domain::Role;
use base64::{Engine, engine::general_purpose::STANDARD as B64};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::database::test_database;
use crate::{
    helpers::TestApp,
    monitoring::{next_of_type, socket},
};

fn random(n: usize) -> Vec<u8> {
    (0..n).map(|_| rand::random::<u8>()).collect()
}

fn point() -> String {
    let mut p = random(65);
    p[0] = 4;
    B64.encode(p)
}

pub fn keys_body() -> Value {
    json!({ "agreementKey": point(), "signingKey": point() })
}

pub fn backup_body() -> Value {
    json!({ "salt": B64.encode(random(16)), "iterations": 600_000, "iv": B64.encode(random(12)), "ciphertext": B64.encode(random(200)) })
}

pub fn message_body(conversation: &str, epoch: i32) -> Value {
    json!({
        "id": Uuid::new_v4(), "conversationId": conversation, "epoch": epoch, "senderKeyVersion": 1,
        "iv": B64.encode(random(12)), "ciphertext": B64.encode(random(48)), "signature": B64.encode(random(64)),
    })
}

/// A group of the caller and `members`; its id.
pub async fn group(app: &TestApp, token: &str, name: &str, members: &[String]) -> String {
    let (status, body) = app.post(token, "/api/v1/messaging/group-chats", json!({ "name": name, "participantIds": members })).await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

/// The next epoch's body: a (random) wrapped key for every member at their newest key version.
pub async fn epoch_body(app: &TestApp, token: &str, conversation: &str, epoch: i32) -> Value {
    let (_, me) = app.get(token, "/api/v1/auth/me").await;
    let (status, c) = app.get(token, &format!("/api/v1/messaging/conversations/{conversation}")).await;
    assert_eq!(status, 200, "{c}");
    let mut keys = Vec::new();
    let mut mine = 0;
    for member in c["members"].as_array().unwrap() {
        let id = member["id"].as_str().unwrap();
        let (status, k) = app.get(token, &format!("/api/v1/messaging/keys/{id}")).await;
        assert_eq!(status, 200, "{k}");
        if id == me["id"].as_str().unwrap() {
            mine = k["keyVersion"].as_i64().unwrap();
        }
        keys.push(json!({ "userId": id, "keyVersion": k["keyVersion"], "wrappedKey": B64.encode(random(113)) }));
    }
    json!({ "epoch": epoch, "creatorKeyVersion": mine, "keys": keys })
}

pub async fn start_epoch(app: &TestApp, token: &str, conversation: &str, epoch: i32) {
    let body = epoch_body(app, token, conversation, epoch).await;
    let (status, c) = app.post(token, &format!("/api/v1/messaging/conversations/{conversation}/epochs"), body).await;
    assert_eq!(status, 200, "{c}");
    assert_eq!((c["epoch"].as_i64(), c["rekeyRequired"].as_bool()), (Some(i64::from(epoch)), Some(false)));
}

/// Sends a message; its id.
pub async fn send(app: &TestApp, token: &str, conversation: &str, epoch: i32) -> String {
    let (status, body) = app.post(token, "/api/v1/messaging/messages", message_body(conversation, epoch)).await;
    assert_eq!(status, 201, "{body}");
    body["id"].as_str().unwrap().to_owned()
}

/// An enterprise's CEO and three department users with keys: (enterprise, ceo, [(id, token)]).
async fn team(app: &TestApp, admin: &str, name: &str) -> (String, String, Vec<(String, String)>) {
    let (enterprise, ceo) = app.enterprise(admin, name).await;
    assert_eq!(app.post(&ceo, "/api/v1/messaging/keys", keys_body()).await.0, 201);
    let mut people = Vec::new();
    for who in ["ann", "ben", "cat"] {
        let email = format!("{who}@{}.example", name.to_lowercase());
        let id = app.staff(&ceo, &enterprise, &email, "DepartmentUser", None).await;
        let token = app.token(&email, "staff-password").await;
        assert_eq!(app.post(&token, "/api/v1/messaging/keys", keys_body()).await.0, 201);
        people.push((id, token));
    }
    (enterprise, ceo, people)
}

fn reason(body: &Value) -> &str {
    body["reason"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_direct_conversation_is_opened_once_with_people_of_the_same_realm_only() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, _, acme) = team(&app, &admin, "Acme").await;
    let (_, _, globex) = team(&app, &admin, "Globex").await;
    let [(ann, ann_token), (ben, ben_token), ..] = &acme[..] else { unreachable!() };

    let (status, first) = app.post(ann_token, "/api/v1/messaging/conversations", json!({ "participantId": ben })).await;
    assert_eq!(status, 201, "{first}");
    assert_eq!(
        (first["kind"].as_str(), first["members"].as_array().unwrap().len(), first["rekeyRequired"].as_bool()),
        (Some("direct"), 2, Some(true))
    );
    let (status, again) = app.post(ann_token, "/api/v1/messaging/conversations", json!({ "participantId": ben })).await;
    assert_eq!((status, &again["id"]), (200, &first["id"]), "the same one again");
    let (status, theirs) = app.post(ben_token, "/api/v1/messaging/conversations", json!({ "participantId": ann })).await;
    assert_eq!((status, &theirs["id"]), (200, &first["id"]), "from either side");

    let (status, _) = app.post(ann_token, "/api/v1/messaging/conversations", json!({ "participantId": globex[0].0 })).await;
    assert_eq!(status, 404, "another enterprise's user does not exist here");
    let (status, body) = app.post(ann_token, "/api/v1/messaging/conversations", json!({ "participantId": ann })).await;
    assert_eq!((status, &body["fields"]["participantId"]), (400, &json!("invalid")));
    let (status, _) = app.get(&globex[0].1, &format!("/api/v1/messaging/conversations/{}", first["id"].as_str().unwrap())).await;
    assert_eq!(status, 404, "another tenant's conversation id");
    let (status, _) = app.get(&globex[0].1, &format!("/api/v1/messaging/keys/{ann}")).await;
    assert_eq!(status, 404, "another tenant's keys");
    let (status, _) = app.get(&acme[2].1, &format!("/api/v1/messaging/conversations/{}", first["id"].as_str().unwrap())).await;
    assert_eq!(status, 404, "a colleague who is not a member");

    // The platform admins are a realm of their own.
    let other_admin = app.create_user(Role::PlatformAdmin, "second@platform.example", "admin-password-2").await;
    let (status, _) = app.post(&admin, "/api/v1/messaging/conversations", json!({ "participantId": ann })).await;
    assert_eq!(status, 404, "an admin cannot message an enterprise's user");
    let (status, c) = app.post(&admin, "/api/v1/messaging/conversations", json!({ "participantId": other_admin })).await;
    assert_eq!(status, 201, "{c}");
    let (_, people) = app.get(&admin, "/api/v1/messaging/users").await;
    let emails: Vec<&str> = people["items"].as_array().unwrap().iter().map(|p| p["email"].as_str().unwrap()).collect();
    assert_eq!(emails, ["second@platform.example"], "admins list admins only, not themselves");
    let (_, people) = app.get(ann_token, "/api/v1/messaging/users?q=BEN").await;
    assert_eq!(
        (people["total"].as_i64(), people["items"][0]["id"].as_str(), people["items"][0]["keyVersion"].as_i64()),
        (Some(1), Some(ben.as_str()), Some(1))
    );
}

#[tokio::test]
async fn messages_go_under_the_current_epoch_which_every_membership_change_renews() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (enterprise, ceo, people) = team(&app, &admin, "Acme").await;
    let [(_, ann_token), (ben, ben_token), (cat, cat_token)] = &people[..] else { unreachable!() };
    let chat = group(&app, ann_token, "Board", &[ben.clone(), cat.clone()]).await;

    let (status, body) = app.post(ann_token, "/api/v1/messaging/messages", message_body(&chat, 0)).await;
    assert_eq!((status, reason(&body)), (409, "rekey_required"), "no key yet");
    let mut partial = epoch_body(&app, ann_token, &chat, 1).await;
    partial["keys"].as_array_mut().unwrap().pop();
    let (status, body) = app.post(ann_token, &format!("/api/v1/messaging/conversations/{chat}/epochs"), partial).await;
    assert_eq!((status, reason(&body)), (409, "stale_epoch"), "a member without a key");
    let skipping = epoch_body(&app, ann_token, &chat, 2).await;
    let (status, body) = app.post(ann_token, &format!("/api/v1/messaging/conversations/{chat}/epochs"), skipping).await;
    assert_eq!((status, reason(&body)), (409, "stale_epoch"), "epochs follow each other");
    start_epoch(&app, ann_token, &chat, 1).await;

    let message = message_body(&chat, 1);
    let (status, sent) = app.post(ann_token, "/api/v1/messaging/messages", message.clone()).await;
    assert_eq!(status, 201, "{sent}");
    let (status, again) = app.post(ann_token, "/api/v1/messaging/messages", message.clone()).await;
    assert_eq!((status, &again["id"]), (200, &sent["id"]), "a retry returns the stored message");
    let mut forged = message_body(&chat, 1);
    forged["id"] = message["id"].clone();
    let (status, body) = app.post(ben_token, "/api/v1/messaging/messages", forged).await;
    assert_eq!((status, reason(&body)), (409, "id_taken"));

    // Cat leaves... no: Ann (the creator) removes Cat. Nothing more under epoch 1.
    let (status, _) = app.delete(ben_token, &format!("/api/v1/messaging/conversations/{chat}/members/{cat}")).await;
    assert_eq!(status, 403, "only the creator removes others");
    let (status, _) = app.delete(ann_token, &format!("/api/v1/messaging/conversations/{chat}/members/{cat}")).await;
    assert_eq!(status, 204);
    let (status, body) = app.post(ben_token, "/api/v1/messaging/messages", message_body(&chat, 1)).await;
    assert_eq!((status, reason(&body)), (409, "rekey_required"), "the removed member holds epoch 1's key");
    for path in [format!("/conversations/{chat}"), format!("/conversations/{chat}/messages"), format!("/conversations/{chat}/keys")] {
        assert_eq!(app.get(cat_token, &format!("/api/v1/messaging{path}")).await.0, 404, "{path}");
    }
    start_epoch(&app, ben_token, &chat, 2).await;
    send(&app, ben_token, &chat, 2).await;
    let (_, keys) = app.get(ann_token, &format!("/api/v1/messaging/conversations/{chat}/keys")).await;
    assert_eq!(keys.as_array().unwrap().iter().map(|k| k["epoch"].as_i64().unwrap()).collect::<Vec<_>>(), [1, 2]);
    let (_, stored) = sqlx::query_as::<_, (i64, i64)>(sqlx::AssertSqlSafe(format!(
        "select count(*), count(*) filter (where user_id = '{cat}') from t_{}.conversation_keys where epoch = 2",
        Uuid::parse_str(&enterprise).unwrap().simple()
    )))
    .fetch_one(&app.db)
    .await
    .unwrap();
    assert_eq!(stored, 0, "epoch 2 was never wrapped for the removed member");

    // A newcomer gets keys from the next epoch on, never the earlier ones.
    let (_, me) = app.get(&ceo, "/api/v1/auth/me").await;
    let (status, c) = app.post(ann_token, &format!("/api/v1/messaging/conversations/{chat}/members"), json!({ "userIds": [me["id"]] })).await;
    assert_eq!((status, c["rekeyRequired"].as_bool()), (200, Some(true)), "{c}");
    start_epoch(&app, ann_token, &chat, 3).await;
    let (_, keys) = app.get(&ceo, &format!("/api/v1/messaging/conversations/{chat}/keys")).await;
    assert_eq!(keys.as_array().unwrap().iter().map(|k| k["epoch"].as_i64().unwrap()).collect::<Vec<_>>(), [3]);

    // The timeline says who came and went; a newcomer sees it from their joining on, and only
    // the messages of epochs they hold a key for (not even who spoke when before).
    let kinds = |page: &Value| page["items"].as_array().unwrap().iter().map(|m| m["kind"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    let (_, page) = app.get(ann_token, &format!("/api/v1/messaging/conversations/{chat}/messages")).await;
    assert_eq!(kinds(&page), ["message", "member_removed", "message", "member_added"]);
    let (_, page) = app.get(&ceo, &format!("/api/v1/messaging/conversations/{chat}/messages")).await;
    assert_eq!(kinds(&page), ["member_added"], "{page}");
    let (_, ann_page) = app.get(ann_token, &format!("/api/v1/messaging/conversations/{chat}/messages")).await;
    let first_message = ann_page["items"][0]["id"].as_str().unwrap();
    let (status, _) = app.get(&ceo, &format!("/api/v1/messaging/conversations/{chat}/messages?before={first_message}")).await;
    assert_eq!(status, 404, "an earlier message is not even there for the newcomer");
    send(&app, &ceo, &chat, 3).await;
    let (_, page) = app.get(&ceo, &format!("/api/v1/messaging/conversations/{chat}/messages")).await;
    assert_eq!(kinds(&page), ["member_added", "message"]);
    // Anyone may leave; a direct conversation has no members to change.
    assert_eq!(app.delete(ben_token, &format!("/api/v1/messaging/conversations/{chat}/members/{ben}")).await.0, 204);
    let (_, direct) = app.post(ann_token, "/api/v1/messaging/conversations", json!({ "participantId": ben })).await;
    let (status, body) = app.delete(ann_token, &format!("/api/v1/messaging/conversations/{}/members/{ben}", direct["id"].as_str().unwrap())).await;
    assert_eq!((status, reason(&body)), (409, "direct_conversation"));
}

/// A member who sets up the messenger in a new browser (new keys) gets the next epoch wrapped for
/// those keys before anyone's next message, so that browser can read what is sent from then on.
#[tokio::test]
async fn new_keys_of_a_member_need_a_new_epoch_before_the_next_message() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, _, people) = team(&app, &admin, "Acme").await;
    let [(_, ann), (ben, ben_token), _] = &people[..] else { unreachable!() };
    let (_, direct) = app.post(ann, "/api/v1/messaging/conversations", json!({ "participantId": ben })).await;
    let direct = direct["id"].as_str().unwrap().to_owned();
    start_epoch(&app, ann, &direct, 1).await;
    send(&app, ann, &direct, 1).await;

    // Ben opens a new browser: keys version 2.
    let (status, keys) = app.post(ben_token, "/api/v1/messaging/keys", keys_body()).await;
    assert_eq!((status, keys["keyVersion"].as_i64()), (201, Some(2)), "{keys}");
    for token in [ann, ben_token] {
        let (_, c) = app.get(token, &format!("/api/v1/messaging/conversations/{direct}")).await;
        assert_eq!(c["rekeyRequired"], true, "{c}");
    }
    let (status, body) = app.post(ann, "/api/v1/messaging/messages", message_body(&direct, 1)).await;
    assert_eq!((status, reason(&body)), (409, "rekey_required"), "epoch 1 was wrapped for Ben's old keys");
    start_epoch(&app, ann, &direct, 2).await;
    let (_, keys) = app.get(ben_token, &format!("/api/v1/messaging/conversations/{direct}/keys")).await;
    let newest = keys.as_array().unwrap().last().unwrap();
    assert_eq!((newest["epoch"].as_i64(), newest["keyVersion"].as_i64()), (Some(2), Some(2)));
    send(&app, ann, &direct, 2).await;
}

/// New key versions are bounded: each one makes every conversation of their owner start a new
/// epoch, so an endless stream of them would keep the other members' epochs failing.
#[tokio::test]
async fn key_versions_are_bounded_per_day() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, _, people) = team(&app, &admin, "Acme").await;
    let ann = &people[0].1;
    // One version came with the team; nine more make ten today.
    for version in 2..=10 {
        let (status, body) = app.post(ann, "/api/v1/messaging/keys", keys_body()).await;
        assert_eq!((status, body["keyVersion"].as_i64()), (201, Some(version)), "{body}");
    }
    let (status, body) = app.post(ann, "/api/v1/messaging/keys", keys_body()).await;
    assert_eq!((status, reason(&body)), (409, "too_many_keys"), "{body}");
    let (_, newest) = app.get(ann, &format!("/api/v1/messaging/keys/{}", people[0].0)).await;
    assert_eq!(newest["keyVersion"], 10, "nothing was registered");
}

#[tokio::test]
async fn a_member_without_keys_cannot_be_given_an_epoch() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (enterprise, ceo, people) = team(&app, &admin, "Acme").await;
    let newcomer = app.staff(&ceo, &enterprise, "new@acme.example", "DepartmentUser", None).await;
    let (_, listed) = app.get(&people[0].1, "/api/v1/messaging/users?q=new@").await;
    assert_eq!(listed["items"][0]["keyVersion"], Value::Null, "the picker can say they have not set up the messenger");
    let (_, c) = app.post(&people[0].1, "/api/v1/messaging/conversations", json!({ "participantId": newcomer })).await;
    let id = c["id"].as_str().unwrap();
    let body =
        json!({ "epoch": 1, "creatorKeyVersion": 1, "keys": [{ "userId": people[0].0, "keyVersion": 1, "wrappedKey": B64.encode(random(113)) }] });
    let (status, body) = app.post(&people[0].1, &format!("/api/v1/messaging/conversations/{id}/epochs"), body).await;
    assert_eq!((status, reason(&body)), (409, "no_keys"));
}

#[tokio::test]
async fn unread_counts_read_marks_and_archives_are_the_server_s() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, _, people) = team(&app, &admin, "Acme").await;
    let [(_, ann), (ben_id, ben), _] = &people[..] else { unreachable!() };
    let (_, c) = app.post(ann, "/api/v1/messaging/conversations", json!({ "participantId": ben_id })).await;
    let chat = c["id"].as_str().unwrap().to_owned();
    start_epoch(&app, ann, &chat, 1).await;
    for _ in 0..3 {
        send(&app, ann, &chat, 1).await;
    }
    let (_, page) = app.get(ben, &format!("/api/v1/messaging/conversations/{chat}/messages")).await;
    let sent: Vec<String> = page["items"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap().to_owned()).collect();

    let unread = |token: &str| {
        let token = token.to_owned();
        let app = &app;
        async move { app.get(&token, "/api/v1/messaging/unread").await.1["unread"].as_i64().unwrap() }
    };
    assert_eq!((unread(ben).await, unread(ann).await), (3, 0), "one's own messages are read");
    let (_, list) = app.get(ben, "/api/v1/messaging/conversations").await;
    assert_eq!(list["items"][0]["unreadCount"], 3);
    assert_eq!(app.post(ben, &format!("/api/v1/messaging/messages/{}/read", sent[1]), json!(null)).await.0, 204);
    assert_eq!(unread(ben).await, 1);
    assert_eq!(app.post(ben, &format!("/api/v1/messaging/messages/{}/read", sent[0]), json!(null)).await.0, 204);
    assert_eq!(unread(ben).await, 1, "a read mark never moves back");
    let (_, seen) = app.get(ann, &format!("/api/v1/messaging/conversations/{chat}")).await;
    let marks = seen["readMarks"].as_array().unwrap();
    assert!(marks.iter().any(|m| m["userId"] == json!(ben_id) && m["messageId"] == json!(sent[1])), "{seen}");

    let (status, archived) = app.post(ben, &format!("/api/v1/messaging/conversations/{chat}/archive"), json!(null)).await;
    assert_eq!((status, archived["archived"].as_bool()), (200, Some(true)));
    assert_eq!(unread(ben).await, 0, "archived conversations leave the badge");
    assert_eq!(app.get(ben, "/api/v1/messaging/conversations").await.1["total"], 0);
    assert_eq!(app.get(ben, "/api/v1/messaging/conversations?archived=true").await.1["total"], 1);
    assert_eq!(app.get(ann, "/api/v1/messaging/conversations").await.1["total"], 1, "archiving is for oneself");
    let (status, back) = app.post(ben, &format!("/api/v1/messaging/conversations/{chat}/unarchive"), json!(null)).await;
    assert_eq!((status, back["archived"].as_bool(), back["unreadCount"].as_i64()), (200, Some(false), Some(1)));

    // A new message brings an archived conversation back, unread.
    assert_eq!(app.post(ben, &format!("/api/v1/messaging/conversations/{chat}/archive"), json!(null)).await.0, 200);
    send(&app, ann, &chat, 1).await;
    let (_, list) = app.get(ben, "/api/v1/messaging/conversations").await;
    assert_eq!(
        (list["total"].as_i64(), list["items"][0]["archived"].as_bool(), list["items"][0]["unreadCount"].as_i64()),
        (Some(1), Some(false), Some(2))
    );
    assert_eq!(unread(ben).await, 2);
}

#[tokio::test]
async fn the_timeline_pages_back_from_any_message() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, _, people) = team(&app, &admin, "Acme").await;
    let (_, c) = app.post(&people[0].1, "/api/v1/messaging/conversations", json!({ "participantId": people[1].0 })).await;
    let chat = c["id"].as_str().unwrap().to_owned();
    start_epoch(&app, &people[0].1, &chat, 1).await;
    for _ in 0..7 {
        send(&app, &people[0].1, &chat, 1).await;
    }
    let (_, newest) = app.get(&people[1].1, &format!("/api/v1/messaging/conversations/{chat}/messages?limit=5")).await;
    assert_eq!((newest["items"].as_array().unwrap().len(), newest["hasMore"].as_bool()), (5, Some(true)));
    let times: Vec<&str> = newest["items"].as_array().unwrap().iter().map(|m| m["createdAt"].as_str().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "oldest first within a page: {times:?}");
    let oldest = newest["items"][0]["id"].as_str().unwrap();
    let (_, older) = app.get(&people[1].1, &format!("/api/v1/messaging/conversations/{chat}/messages?limit=5&before={oldest}")).await;
    assert_eq!((older["items"].as_array().unwrap().len(), older["hasMore"].as_bool()), (2, Some(false)));
    let (status, _) = app.get(&people[1].1, &format!("/api/v1/messaging/conversations/{chat}/messages?before={}", Uuid::new_v4())).await;
    assert_eq!(status, 404, "an unknown cursor");
}

#[tokio::test]
async fn sizes_are_bounded_with_clear_errors() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn_with(db, |c| c.max_body_bytes = 1024 * 1024).await;
    let admin = app.admin_token().await;
    let (_, _, people) = team(&app, &admin, "Acme").await;
    let token = &people[0].1;
    let (_, c) = app.post(token, "/api/v1/messaging/conversations", json!({ "participantId": people[1].0 })).await;
    let chat = c["id"].as_str().unwrap().to_owned();
    start_epoch(&app, token, &chat, 1).await;

    let cases = [
        ("ciphertext", B64.encode(random(64 * 1024 + 17))),
        ("ciphertext", B64.encode(random(8))),
        ("iv", B64.encode(random(16))),
        ("signature", B64.encode(random(72))),
        ("signature", "@@not base64@@".to_owned()),
    ];
    for (field, value) in cases {
        let mut body = message_body(&chat, 1);
        body[field] = json!(value);
        let (status, answer) = app.post(token, "/api/v1/messaging/messages", body).await;
        assert_eq!((status, &answer["fields"][field]), (400, &json!("invalid")), "{field}");
    }
    let crowd: Vec<String> = (0..100).map(|_| Uuid::new_v4().to_string()).collect();
    let (status, body) = app.post(token, "/api/v1/messaging/group-chats", json!({ "name": "All", "participantIds": crowd })).await;
    assert_eq!((status, &body["fields"]["participantIds"]), (400, &json!("too_long")));
    let (status, body) = app.post(token, "/api/v1/messaging/group-chats", json!({ "name": "x".repeat(101), "participantIds": [people[1].0] })).await;
    assert_eq!((status, &body["fields"]["name"]), (400, &json!("too_long")));
    let (status, body) = app.post(token, "/api/v1/messaging/group-chats", json!({ "name": "Nobody", "participantIds": [] })).await;
    assert_eq!((status, &body["fields"]["participantIds"]), (400, &json!("required")));
    let mut weak = backup_body();
    weak["iterations"] = json!(100_000);
    let (status, body) = app.put(token, "/api/v1/messaging/backup", weak).await;
    assert_eq!((status, &body["fields"]["iterations"]), (400, &json!("invalid")));
    let (status, body) =
        app.post(token, "/api/v1/messaging/keys", json!({ "agreementKey": B64.encode(random(65)).replace('A', "B"), "signingKey": "AAAA" })).await;
    assert_eq!((status, &body["fields"]["signingKey"]), (400, &json!("invalid")));
    assert_eq!(app.get(token, &format!("/api/v1/messaging/conversations/{chat}/messages?limit=101")).await.0, 400);
    let (status, body) = app.post(token, "/api/v1/messaging/keys", json!({ "agreementKey": point(), "signingKey": point(), "keyVersion": 7 })).await;
    assert_eq!((status, reason(&body)), (409, "stale_key_version"));
    let (status, body) = app.post(token, "/api/v1/messaging/keys", json!({ "agreementKey": point(), "signingKey": point(), "keyVersion": 2 })).await;
    assert_eq!((status, body["keyVersion"].as_i64()), (201, Some(2)));
    // The backup comes back as it was given.
    let backup = backup_body();
    assert_eq!(app.get(token, "/api/v1/messaging/backup").await.0, 404, "none yet");
    assert_eq!(app.put(token, "/api/v1/messaging/backup", backup.clone()).await.0, 200);
    let (_, stored) = app.get(token, "/api/v1/messaging/backup").await;
    assert_eq!((&stored["ciphertext"], &stored["salt"], &stored["iv"]), (&backup["ciphertext"], &backup["salt"], &backup["iv"]));
}

#[tokio::test]
async fn a_message_sent_through_one_instance_reaches_members_on_another_and_no_one_else() {
    let (db, _dropped) = test_database().await;
    let one = TestApp::spawn(db.clone()).await;
    let two = TestApp::spawn_like(&one, db).await;
    let admin = one.admin_token().await;
    let (_, acme_ceo, acme) = team(&one, &admin, "Acme").await;
    let (_, _, globex) = team(&one, &admin, "Globex").await;
    let [(_, ann), (ben_id, ben), (_, cat)] = &acme[..] else { unreachable!() };
    let mut ben_socket = socket(&two, ben).await;
    let mut cat_socket = socket(&two, cat).await;
    let mut outsider = socket(&two, &globex[1].1).await;
    let mut ceo_socket = socket(&two, &acme_ceo).await;

    let (_, c) = one.post(ann, "/api/v1/messaging/conversations", json!({ "participantId": ben_id })).await;
    let chat = c["id"].as_str().unwrap().to_owned();
    start_epoch(&one, ann, &chat, 1).await;
    let message = send(&one, ann, &chat, 1).await;
    let event = next_of_type(&mut ben_socket, "message.created").await;
    assert_eq!((event["conversationId"].as_str(), event["messageId"].as_str()), (Some(chat.as_str()), Some(message.as_str())));
    assert_eq!(two.post(ben, &format!("/api/v1/messaging/conversations/{chat}/typing"), json!(null)).await.0, 204);
    one.post(ben, &format!("/api/v1/messaging/messages/{message}/read"), json!(null)).await;

    let typing = next_of_type(&mut ben_socket, "message.read").await;
    assert_eq!(typing["userId"].as_str(), Some(ben_id.as_str()), "the reader's other tabs learn it too");

    // Then a conversation of their own tells each bystander something: nothing about Ann and
    // Ben's conversation may have come before it.
    let (cat_id, globex_id) = (&acme[2].0, &globex[0].0);
    one.post(&acme_ceo, "/api/v1/messaging/conversations", json!({ "participantId": cat_id })).await;
    one.post(&globex[1].1, "/api/v1/messaging/conversations", json!({ "participantId": globex_id })).await;
    for (who, ws) in [("cat", &mut cat_socket), ("the CEO", &mut ceo_socket), ("another tenant", &mut outsider)] {
        loop {
            let event = crate::monitoring::next_json(ws).await;
            assert_ne!(event["conversationId"].as_str(), Some(chat.as_str()), "{who} got {event}");
            if event["type"] == "conversation.changed" {
                break;
            }
        }
    }
}

#[tokio::test]
async fn a_deleted_user_leaves_their_conversations_and_their_keys_go() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo, people) = team(&app, &admin, "Acme").await;
    let [(ann_id, ann), (ben_id, _), (cat_id, _)] = &people[..] else { unreachable!() };
    let chat = group(&app, ann, "Trio", &[ben_id.clone(), cat_id.clone()]).await;
    start_epoch(&app, ann, &chat, 1).await;
    send(&app, ann, &chat, 1).await;
    assert_eq!(app.delete(&ceo, &format!("/api/v1/users/{cat_id}")).await.0, 204);
    let (_, c) = app.get(ann, &format!("/api/v1/messaging/conversations/{chat}")).await;
    assert_eq!((c["members"].as_array().unwrap().len(), c["rekeyRequired"].as_bool()), (2, Some(true)), "{c}");
    assert_eq!(app.get(ann, &format!("/api/v1/messaging/keys/{cat_id}")).await.0, 404);
    // The messages of someone deleted stay, by id.
    assert_eq!(app.delete(&ceo, &format!("/api/v1/users/{ann_id}")).await.0, 204);
    let token = app.token("ben@acme.example", "staff-password").await;
    let (_, page) = app.get(&token, &format!("/api/v1/messaging/conversations/{chat}/messages")).await;
    assert_eq!(page["items"][0]["senderId"].as_str(), Some(ann_id.as_str()));
}

#[tokio::test]
async fn bad_input_to_every_messaging_call_is_a_400_and_unknown_ids_are_404() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, _, people) = team(&app, &admin, "Acme").await;
    let (token, other) = (&people[0].1, &people[1].0);
    let (_, c) = app.post(token, "/api/v1/messaging/conversations", json!({ "participantId": other })).await;
    let chat = c["id"].as_str().unwrap().to_owned();
    for path in [
        "/api/v1/messaging/users?pageSize=0".to_owned(),
        "/api/v1/messaging/users?page=0".to_owned(),
        format!("/api/v1/messaging/users?q={}", "x".repeat(201)),
        "/api/v1/messaging/conversations?archived=maybe".to_owned(),
        "/api/v1/messaging/conversations?pageSize=101".to_owned(),
        "/api/v1/messaging/conversations/not-a-uuid".to_owned(),
        "/api/v1/messaging/keys/42".to_owned(),
        format!("/api/v1/messaging/keys/{other}?version=0"),
        format!("/api/v1/messaging/conversations/{chat}/messages?limit=0"),
        format!("/api/v1/messaging/conversations/{chat}/messages?before=nope"),
        format!("/api/v1/messaging/conversations/{chat}/keys?x=%00"),
    ] {
        let (status, body) = app.get(token, &path).await;
        assert_eq!(status, 400, "{path}: {body}");
    }
    let bodies: [(&str, String, Value); 8] = [
        ("POST", "/api/v1/messaging/conversations".into(), json!({ "participantId": "x" })),
        ("POST", "/api/v1/messaging/group-chats".into(), json!({ "name": "G" })),
        ("POST", "/api/v1/messaging/keys".into(), json!({ "agreementKey": point() })),
        ("PUT", "/api/v1/messaging/backup".into(), json!({ "salt": "AA==", "iterations": 600000, "iv": "AA==", "ciphertext": "AA==" })),
        ("PUT", format!("/api/v1/messaging/conversations/{chat}"), json!({ "name": "" })),
        ("POST", format!("/api/v1/messaging/conversations/{chat}/members"), json!({ "userIds": [] })),
        ("POST", format!("/api/v1/messaging/conversations/{chat}/epochs"), json!({ "epoch": 1, "creatorKeyVersion": 1, "keys": [] })),
        ("POST", "/api/v1/messaging/messages".into(), json!({ "conversationId": chat })),
    ];
    for (method, path, body) in bodies {
        let (status, answer) = if method == "PUT" { app.put(token, &path, body).await } else { app.post(token, &path, body).await };
        assert_eq!(status, 400, "{method} {path}: {answer}");
    }
    let unknown = Uuid::new_v4();
    for path in [format!("/api/v1/messaging/conversations/{unknown}"), format!("/api/v1/messaging/keys/{unknown}")] {
        assert_eq!(app.get(token, &path).await.0, 404, "{path}");
    }
    for path in [
        format!("/api/v1/messaging/messages/{unknown}/read"),
        format!("/api/v1/messaging/conversations/{unknown}/typing"),
        format!("/api/v1/messaging/conversations/{unknown}/archive"),
    ] {
        assert_eq!(app.post(token, &path, json!(null)).await.0, 404, "{path}");
    }
    assert_eq!(app.delete(token, &format!("/api/v1/messaging/conversations/{chat}/members/not-a-uuid")).await.0, 400);
}

/// A browser opening the messenger first asks what the server holds: nothing yet is an answer,
/// not a 404 (the browser logs every 404 as an error).
#[tokio::test]
async fn the_messenger_setup_says_what_the_server_holds_without_a_404() {
    let (db, _dropped) = test_database().await;
    let app = TestApp::spawn(db).await;
    let admin = app.admin_token().await;
    let (_, ceo) = app.enterprise(&admin, "Setup").await;
    assert_eq!(app.get(&ceo, "/api/v1/messaging/setup").await, (200, json!({ "keys": null, "backup": null })));

    let (_, keys) = app.post(&ceo, "/api/v1/messaging/keys", keys_body()).await;
    let (status, setup) = app.get(&ceo, "/api/v1/messaging/setup").await;
    assert_eq!((status, &setup["keys"], &setup["backup"]), (200, &keys, &Value::Null));
    let backup = backup_body();
    assert_eq!(app.put(&ceo, "/api/v1/messaging/backup", backup.clone()).await.0, 200);
    let (_, setup) = app.get(&ceo, "/api/v1/messaging/setup").await;
    assert_eq!((&setup["backup"]["salt"], &setup["backup"]["ciphertext"]), (&backup["salt"], &backup["ciphertext"]));
}
