//! Tenant isolation through PgBouncer in transaction mode with ONE server connection: every
//! transaction of every tenant runs on the same PostgreSQL session, so a search_path that outlived
//! its transaction would show one tenant another's rows, and a request that relied on one set by
//! an earlier transaction would read the wrong tenant.

use std::{
    net::TcpListener,
    process::{Child, Command, Stdio},
    time::Duration,
};

use serde_json::json;
use sqlx::postgres::PgConnectOptions;

use crate::database::test_database;
use crate::helpers::TestApp;

struct PgBouncer {
    child: Child,
    port: u16,
    _dir: std::path::PathBuf,
}

impl Drop for PgBouncer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_pgbouncer(target: &PgConnectOptions) -> PgBouncer {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = std::env::temp_dir().join(format!("pgbouncer-{}", uuid::Uuid::now_v7()));
    std::fs::create_dir_all(&dir).unwrap();
    let user = target.get_username();
    std::fs::write(dir.join("users.txt"), format!("\"{user}\" \"\"\n")).unwrap();
    let ini = format!(
        "[databases]\n* = host={} port={}\n\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\n\
         unix_socket_dir =\nauth_type = trust\nauth_file = {}\npool_mode = transaction\n\
         default_pool_size = 1\nmax_client_conn = 200\nserver_reset_query =\nignore_startup_parameters = extra_float_digits,options\nlogfile = {}\n",
        target.get_host(),
        target.get_port(),
        dir.join("users.txt").display(),
        dir.join("pgbouncer.log").display(),
    );
    std::fs::write(dir.join("pgbouncer.ini"), ini).unwrap();
    // PgBouncer refuses to run as root; it drops to `nobody`, which must read its files.
    Command::new("chmod").args(["-R", "a+rwX"]).arg(&dir).status().unwrap();
    let mut cmd = Command::new("pgbouncer");
    if nix_is_root() {
        cmd.args(["-u", "nobody"]);
    }
    let child = cmd
        .arg(dir.join("pgbouncer.ini"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("pgbouncer is installed (make test installs Debian's package)");
    let log = dir.join("pgbouncer.log");
    // Dropped on every path, which kills and waits for the process.
    let bouncer = PgBouncer { child, port, _dir: dir };
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return bouncer;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("pgbouncer did not start; see {}", log.display());
}

fn nix_is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0\n")).unwrap_or(false)
}

#[tokio::test]
async fn interleaved_tenant_requests_through_one_pooled_connection_never_mix() {
    let (db, _dropped) = test_database().await;
    let setup = TestApp::spawn(db.clone()).await;
    let admin = setup.admin_token().await;
    let (a, ceo_a) = setup.enterprise(&admin, "Alpha").await;
    let (b, ceo_b) = setup.enterprise(&admin, "Beta").await;
    for (ent, ceo, secret) in [(&a, &ceo_a, "alpha-secret"), (&b, &ceo_b, "beta-secret")] {
        let dept = setup.department(ceo, ent, "finance").await;
        let path = format!("/api/v1/enterprises/{ent}/departments/{dept}");
        assert_eq!(setup.put(ceo, &path, json!({ "description": secret })).await.0, 200);
    }

    // The same app, but every query goes through PgBouncer with one server connection.
    let target = db.connect_options();
    let bouncer = start_pgbouncer(&target);
    let through_bouncer = (*target).clone().host("127.0.0.1").port(bouncer.port);
    // One client connection too: PgBouncer 1.18 (Debian 12) cannot share sqlx's named prepared
    // statements between clients in transaction mode (1.21+ can, with max_prepared_statements).
    let app = TestApp::spawn_like(&setup, backend::db::pool_with(through_bouncer, 1)).await;

    let mut tasks = Vec::new();
    for i in 0..40 {
        let (token, ent, mine, theirs) = if i % 2 == 0 {
            (ceo_a.clone(), a.clone(), "alpha-secret", "beta-secret")
        } else {
            (ceo_b.clone(), b.clone(), "beta-secret", "alpha-secret")
        };
        let http = app.http.clone();
        let url = app.url(&format!("/api/v1/enterprises/{ent}/departments"));
        tasks.push(tokio::spawn(async move {
            let body = http.get(url).bearer_auth(token).send().await.unwrap().text().await.unwrap();
            assert!(body.contains(mine), "own rows missing: {body}");
            assert!(!body.contains(theirs), "another tenant's rows leaked: {body}");
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}
