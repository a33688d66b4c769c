use std::{net::SocketAddr, path::PathBuf, time::Duration};

use backend::{
    auth::password,
    config::{Config, IdleTimeouts, Intervals, LoginLimits},
    domain::{Email, Password, Role},
    state::AppState,
    store,
    tenancy::{self, SchemaName},
};
use reqwest::{Client, Response};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

/// The server's ERROR events, as the end-to-end run fails on them in its logs: each test runs on
/// its own thread (a current-thread runtime, with the servers it spawns), and a `TestApp` dropped
/// fails the test when its servers logged an error. No test makes the server log one on purpose
/// today; one that must would filter its text out in `unexpected`, beside its reason.
mod logged_errors {
    use std::cell::RefCell;

    use tracing::{Event, Level, Subscriber, field::Field};
    use tracing_subscriber::{Layer, layer::Context};

    thread_local! {
        static SEEN: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    }

    pub struct Errors;

    struct Line<'a>(&'a mut String);

    impl tracing::field::Visit for Line<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            use std::fmt::Write;
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    impl<S: Subscriber> Layer<S> for Errors {
        fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
            if *event.metadata().level() == Level::ERROR {
                let mut line = event.metadata().target().to_owned();
                event.record(&mut Line(&mut line));
                SEEN.with(|seen| seen.borrow_mut().push(line));
            }
        }
    }

    /// The errors logged on this thread since the last call.
    pub fn unexpected() -> Vec<String> {
        SEEN.with(|seen| std::mem::take(&mut *seen.borrow_mut()))
    }
}

pub const ADMIN_EMAIL: &str = "admin@example.com";
pub const ADMIN_PASSWORD: &str = "admin-password-1";

impl Drop for TestApp {
    fn drop(&mut self) {
        let unexpected = logged_errors::unexpected();
        if !unexpected.is_empty() && !std::thread::panicking() {
            panic!("the server logged {} error(s):\n{}", unexpected.len(), unexpected.join("\n"));
        }
    }
}

pub struct TestApp {
    pub base: String,
    pub http: Client,
    pub db: PgPool,
    pub config: Config,
    /// The instance's hub: whether it trusts the sessions it knows live (`listening`).
    pub realtime: backend::realtime::Hub,
}

static TEST_KEYS: std::sync::LazyLock<backend::sealed::KeyRing> = std::sync::LazyLock::new(backend::sealed::KeyRing::random);

pub fn test_config() -> Config {
    Config {
        database_url: String::new(),
        redis_url: std::env::var("REDIS_URL").unwrap_or_else(|_| backend::config::DEFAULT_REDIS_URL.into()),
        redis_prefix: format!("test:{}:", Uuid::now_v7()),
        jwt_secret: backend::config::random_secret(),
        // One ring for every server of the process: tests that start two servers on a database
        // start them with one key, as a deployment does (tests/api/sealed.rs sets its own).
        data_keys: TEST_KEYS.clone(),
        geoip_database: Some(PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/GeoLite2-City-Test.mmdb"))),
        bind_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
        trusted_proxies: Vec::new(),
        static_dir: None,
        session_ttl: Duration::from_secs(12 * 3600),
        device_token_ttl: Duration::from_secs(365 * 86400),
        remember_me_ttl: Duration::from_secs(30 * 86400),
        idle_timeouts: IdleTimeouts { session: Duration::from_secs(2 * 3600), remembered: Duration::from_secs(14 * 86400) },
        intervals: Intervals {
            heartbeat_flush: Duration::from_millis(200),
            sweep: Duration::from_millis(500),
            socket_recheck: Duration::from_secs(30),
        },
        login_limits: LoginLimits { per_account_and_ip: 5, per_ip: 50, per_account: 20, per_device: 10, window: Duration::from_secs(900) },
        api_limits: backend::config::ApiLimits { requests: 100_000, window: Duration::from_secs(60) },
        max_body_bytes: 64 * 1024,
        // None made: tests count tenant schemas (tests/api/enterprises.rs tests the spares).
        tenant_spares: Some(0),
        tenant_deletion_grace: Duration::from_secs(30 * 86_400),
        tenant_export_ttl: Duration::from_secs(168 * 3600),
        tenant_limits: Default::default(),
        max_spreadsheet_body_bytes: 12 * 1024 * 1024,
        tenant_import_max_bytes: 64 * 1024 * 1024,
        spreadsheet_engine: backend::config::EngineLimits {
            program: PathBuf::from(env!("CARGO_BIN_EXE_backend")),
            deadline: Duration::from_secs(5),
            max_memory_bytes: 512 * 1024 * 1024,
        },
        map_tiles: None,
        // The tests' DNS server (scripts/dns/start.sh), where the tests publish domain proofs.
        dns_resolver: std::env::var("DNS_RESOLVER").ok().map(|a| a.parse().expect("DNS_RESOLVER is ip:port")),
        trusted_roots: Vec::new(),
        metrics_token: None,
        events: backend::config::EventsConfig {
            allow_private_networks: true,
            // Only the tests of deliveries run a dispatcher (`dispatch = true`): a poll in every test
            // server held connections six parallel suites need.
            dispatch: false,
            outbox_poll: Duration::from_millis(250),
            retry_scale: 0.002,
            ..Default::default()
        },
        // No mail server: e-mails wait in the outbox. The tests of e-mail use `TestApp::with_mail`.
        mail: backend::config::MailConfig::default(),
        passkey_rp_id: None,
    }
}

/// The mail catcher the tests send to (MailDev, scripts/mail/start.sh, started by scripts/test.sh):
/// a real SMTP server that keeps what it accepts and lists it as JSON.
pub struct Mailbox {
    base: String,
    http: Client,
}

impl Mailbox {
    pub fn new() -> Self {
        let base = std::env::var("MAIL_CATCHER_URL").expect("MAIL_CATCHER_URL: start the mail catcher first (source scripts/mail/start.sh)");
        Self { base, http: Client::new() }
    }

    pub fn smtp_url() -> String {
        std::env::var("SMTP_URL").expect("SMTP_URL: start the mail catcher first (source scripts/mail/start.sh)")
    }

    /// What the catcher holds for `to`, newest first: `{ id, subject, to, from, text, html }`, `to`
    /// and `from` as their headers read (MailDev's `GET /email?to.address=`).
    pub async fn received(&self, to: &str) -> Vec<Value> {
        let url = format!("{}/email", self.base);
        let found = self.http.get(url).query(&[("to.address", to)]).send().await.unwrap().json::<Vec<Value>>().await.unwrap();
        found
            .iter()
            .rev()
            .map(|m| {
                serde_json::json!({
                    "id": m["id"], "subject": m["subject"], "to": m["headers"]["to"], "from": m["headers"]["from"],
                    "text": m["text"], "html": m["html"],
                })
            })
            .collect()
    }

    /// A message's source as the server sent it (MailDev's `GET /email/:id/source`).
    pub async fn source(&self, message: &Value) -> String {
        let url = format!("{}/email/{}/source", self.base, message["id"].as_str().unwrap());
        self.http.get(url).send().await.unwrap().error_for_status().unwrap().text().await.unwrap()
    }

    /// Waits (15 s at most) until `to` has received `count` messages; returns them, newest first.
    pub async fn wait_for(&self, to: &str, count: usize) -> Vec<Value> {
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        loop {
            let got = self.received(to).await;
            if got.len() >= count || std::time::Instant::now() > deadline {
                assert_eq!(got.len(), count, "messages to {to}: {got:#?}");
                return got;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// A real mail server that refuses every recipient for good (scripts/mail/refusing.py, aiosmtpd,
/// run by `python()`): what a bounce meets. It stops when dropped.
pub struct RefusingMailServer {
    child: std::process::Child,
    pub smtp_url: String,
}

impl RefusingMailServer {
    pub fn start() -> Self {
        use std::io::BufRead;
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/mail/refusing.py");
        let mut child = std::process::Command::new(python())
            .arg(script)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("the test tools' Python runs scripts/mail/refusing.py");
        // It prints its port once it answers (aiosmtpd's start checks that itself).
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().strip_prefix("port ").unwrap_or_else(|| panic!("refusing.py said {line:?}"));
        Self { smtp_url: format!("smtp://127.0.0.1:{port}"), child }
    }
}

impl Drop for RefusingMailServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `token` of the first link to `page` in an e-mail's text.
pub fn link_token(text: &str, page: &str) -> String {
    let marker = format!("/{page}?token=");
    let start = text.find(&marker).unwrap_or_else(|| panic!("no {page} link in: {text}")) + marker.len();
    text[start..].split(|c: char| c.is_whitespace()).next().unwrap().to_owned()
}

/// Waits (15 s at most) until no e-mail waits in the outbox: everything was sent or dropped.
pub async fn outbox_drained(db: &PgPool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let (waiting,): (i64,) = sqlx::query_as("select count(*) from outbox where kind = 'email'").fetch_one(db).await.unwrap();
        if waiting == 0 {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{waiting} e-mails still in the outbox");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

impl TestApp {
    pub async fn spawn(db: PgPool) -> Self {
        Self::spawn_with(db, |_| {}).await
    }

    pub async fn spawn_with(db: PgPool, tweak: impl FnOnce(&mut Config)) -> Self {
        let mut config = test_config();
        tweak(&mut config);
        Self::start(db, config).await
    }

    /// A server that sends e-mail to the test mail catcher, retries at once and gathers
    /// notifications for half a second.
    pub async fn with_mail(db: PgPool) -> Self {
        Self::spawn_with(db, send_mail).await
    }

    /// As `with_mail`, beside `other` (its secret and Redis prefix) on the same database.
    pub async fn with_mail_like(other: &TestApp, db: PgPool) -> Self {
        Self::spawn_like_with(other, db, send_mail).await
    }

    /// Another server with the same configuration (secret, Redis prefix) on another pool.
    pub async fn spawn_like(other: &TestApp, db: PgPool) -> Self {
        Self::start(db, other.config.clone()).await
    }

    /// As `spawn_like`, with a change to the configuration.
    pub async fn spawn_like_with(other: &TestApp, db: PgPool, tweak: impl FnOnce(&mut Config)) -> Self {
        let mut config = other.config.clone();
        tweak(&mut config);
        Self::start(db, config).await
    }

    async fn start(db: PgPool, config: Config) -> Self {
        // Server logs go to the test's captured output, shown when it fails; its ERROR events are
        // also kept for the check as the test ends (`logged_errors`).
        {
            use tracing_subscriber::{EnvFilter, Layer, filter::LevelFilter, layer::SubscriberExt, util::SubscriberInitExt};
            let _ = tracing_subscriber::registry()
                .with(tracing_subscriber::fmt::layer().with_test_writer().with_filter(EnvFilter::new("warn,backend=info")))
                .with(logged_errors::Errors.with_filter(LevelFilter::ERROR))
                .try_init();
        }
        backend::db::prepare(&db).await.expect("the platform realm's schema (and on Citus, the reference tables)");
        let state = AppState::with_pool(config.clone(), db.clone()).expect("state");
        let realtime = state.realtime.clone();
        let (addr, server) = backend::app::listen(state).await.expect("listen");
        tokio::spawn(server);
        Self { base: format!("http://{addr}"), http: Client::new(), db, config, realtime }
    }

    /// Waits until the instance hears the other instances' events, so that it answers the
    /// sessions it knows live from memory.
    pub async fn listening(&self) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while self.realtime.live().ticket().is_none() {
            assert!(std::time::Instant::now() < deadline, "the instance never subscribed to the events");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub async fn create_user(&self, role: Role, email: &str, password: &str) -> Uuid {
        let hash = password::hash(&Password::parse(password).unwrap()).await.unwrap();
        let enterprise_id = if role.is_tenant_role() { Some(self.create_enterprise(true).await) } else { None };
        store::users::insert(
            &self.db,
            store::users::NewUser {
                enterprise_id,
                department_id: None,
                role,
                full_name: "Test Person",
                email: &Email::parse(email).unwrap(),
                password_hash: Some(&hash),
                locale: Default::default(),
            },
        )
        .await
        .unwrap()
    }

    /// An enterprise row and its schema, without departments or CEO: enough for identity tests
    /// (POST /enterprises builds real ones). Named after its id: names are unique.
    pub async fn create_enterprise(&self, active: bool) -> Uuid {
        let id = Uuid::now_v7();
        let schema = SchemaName::for_enterprise(id);
        let mut tx = self.db.begin().await.unwrap();
        sqlx::query("insert into enterprises (id, name, is_active, schema_name) values ($1, $2, $3, $4)")
            .bind(id)
            .bind(format!("Acme {}", id.simple()))
            .bind(active)
            .bind(schema.as_str())
            .execute(&mut *tx)
            .await
            .unwrap();
        tenancy::create_schema(&mut tx, &schema, Some(id)).await.unwrap();
        tx.commit().await.unwrap();
        id
    }

    pub async fn admin(&self) -> Uuid {
        self.create_user(Role::PlatformAdmin, ADMIN_EMAIL, ADMIN_PASSWORD).await
    }

    pub async fn login(&self, email: &str, password: &str) -> Response {
        self.login_from(email, password, None).await
    }

    /// Signs in with an `X-Forwarded-For` header (believed only from a trusted proxy).
    pub async fn login_from(&self, email: &str, password: &str, forwarded_for: Option<&str>) -> Response {
        let mut req = self.http.post(self.url("/api/v1/auth/login")).json(&json!({ "email": email, "password": password }));
        if let Some(xff) = forwarded_for {
            req = req.header("x-forwarded-for", xff);
        }
        req.send().await.unwrap()
    }

    pub async fn token(&self, email: &str, password: &str) -> String {
        let resp = self.login(email, password).await;
        assert_eq!(resp.status(), 200);
        resp.json::<Value>().await.unwrap()["token"].as_str().unwrap().to_owned()
    }

    pub async fn me(&self, token: &str) -> Response {
        self.http.get(self.url("/api/v1/auth/me")).bearer_auth(token).send().await.unwrap()
    }

    pub async fn logout(&self, token: &str) -> Response {
        self.http.post(self.url("/api/v1/auth/logout")).bearer_auth(token).send().await.unwrap()
    }
}

impl TestApp {
    pub async fn get(&self, token: &str, path: &str) -> (u16, Value) {
        parts(self.http.get(self.url(path)).bearer_auth(token).send().await.unwrap()).await
    }

    pub async fn post(&self, token: &str, path: &str, body: Value) -> (u16, Value) {
        parts_or_empty(self.http.post(self.url(path)).bearer_auth(token).json(&body).send().await.unwrap()).await
    }

    pub async fn put(&self, token: &str, path: &str, body: Value) -> (u16, Value) {
        parts_or_empty(self.http.put(self.url(path)).bearer_auth(token).json(&body).send().await.unwrap()).await
    }

    pub async fn delete(&self, token: &str, path: &str) -> (u16, Value) {
        parts_or_empty(self.http.delete(self.url(path)).bearer_auth(token).send().await.unwrap()).await
    }

    pub async fn admin_token(&self) -> String {
        self.admin().await;
        self.token(ADMIN_EMAIL, ADMIN_PASSWORD).await
    }

    /// Creates an enterprise through the API; returns its id and its CEO's token.
    pub async fn enterprise(&self, admin: &str, name: &str) -> (String, String) {
        let ceo_email = format!("ceo@{}.example", name.to_lowercase().replace(' ', "-"));
        let (status, body) = self
            .post(
                admin,
                "/api/v1/enterprises",
                json!({
                    "name": name, "description": "Test", "ceoFullName": format!("{name} CEO"),
                    "ceoEmail": ceo_email, "ceoPassword": "ceo-password"
                }),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        (body["id"].as_str().unwrap().to_owned(), self.token(&ceo_email, "ceo-password").await)
    }

    /// The id of one department of the enterprise, by type.
    pub async fn department(&self, token: &str, enterprise: &str, kind: &str) -> String {
        let (status, body) = self.get(token, &format!("/api/v1/enterprises/{enterprise}/departments")).await;
        assert_eq!(status, 200, "{body}");
        body.as_array().unwrap().iter().find(|d| d["type"] == kind).unwrap()["id"].as_str().unwrap().to_owned()
    }

    /// Creates a tenant user through the API; returns their id.
    pub async fn staff(&self, token: &str, enterprise: &str, email: &str, role: &str, department: Option<&str>) -> String {
        let (status, body) = self
            .post(
                token,
                "/api/v1/users",
                json!({
                    "fullName": "Staff Member", "email": email, "password": "staff-password",
                    "role": role, "enterpriseId": enterprise, "departmentId": department
                }),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }
}

async fn parts_or_empty(resp: Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (status, if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) })
}

/// Status and JSON body of a response.
pub async fn parts(resp: Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"));
    (status, body)
}

/// The test tools' Python (`TEST_PYTHON`: the venv scripts/mail/start.sh makes, with pyotp,
/// fido2 and scim2-client), which computes what a person's authenticator or an identity
/// provider would send, outside the server.
pub fn python() -> String {
    std::env::var("TEST_PYTHON").unwrap_or_else(|_| format!("{}/.cache/enterprise-platform/mail-venv/bin/python", std::env::var("HOME").unwrap()))
}

/// A TCP proxy to Redis that hands every byte Redis sends on `delay` late (and in order): an
/// instance behind it hears the other instances' events late, as a loaded or distant one would.
/// Returns the Redis URL to give that instance.
pub async fn slow_redis(redis_url: &str, delay: Duration) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let upstream = redis_url.trim_start_matches("redis://").trim_end_matches('/').to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = tokio::net::TcpStream::connect(&upstream).await else { continue };
            let (mut client_read, mut client_write) = client.into_split();
            let (mut server_read, mut server_write) = server.into_split();
            tokio::spawn(async move { tokio::io::copy(&mut client_read, &mut server_write).await });
            let (chunks, mut delayed) = tokio::sync::mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
            tokio::spawn(async move {
                let mut buf = vec![0; 64 * 1024];
                while let Ok(n @ 1..) = server_read.read(&mut buf).await {
                    if chunks.send((tokio::time::Instant::now() + delay, buf[..n].to_vec())).is_err() {
                        break;
                    }
                }
            });
            tokio::spawn(async move {
                while let Some((at, bytes)) = delayed.recv().await {
                    tokio::time::sleep_until(at).await;
                    if client_write.write_all(&bytes).await.is_err() {
                        break;
                    }
                }
            });
        }
    });
    format!("redis://{addr}")
}

/// What `TestApp::with_mail` changes: mail to the test catcher, retries at once, notifications
/// gathered for half a second.
pub fn send_mail(c: &mut Config) {
    c.mail.smtp_url = Some(Mailbox::smtp_url());
    c.mail.public_url = "http://app.test".into();
    c.mail.retry_scale = 0.001;
    c.mail.digest_window = Duration::from_millis(500);
    c.events.outbox_poll = Duration::from_millis(100);
}

/// A mail domain no other test uses (the mail catcher is shared), starting with `tag`.
pub fn mail_domain(tag: &str) -> String {
    format!("{tag}{}.test", &Uuid::now_v7().simple().to_string()[20..])
}
