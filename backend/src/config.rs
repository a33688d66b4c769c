//! Settings come from the environment (12-factor); defaults suit a developer's machine.

use std::{env, fmt, net::SocketAddr, path::PathBuf, str::FromStr, time::Duration};

use anyhow::{Context, bail};
use ipnet::IpNet;

pub use crate::spreadsheet::worker::EngineLimits;

/// Sessions unused for this long end (`end_reason = 'idle'`).
#[derive(Clone, Copy, Debug)]
pub struct IdleTimeouts {
    pub session: Duration,
    pub remembered: Duration,
}

/// How often the background work runs.
#[derive(Clone, Copy, Debug)]
pub struct Intervals {
    /// Batched `last_seen_at` writes (`HEARTBEAT_FLUSH_SECS`).
    pub heartbeat_flush: Duration,
    /// The sweep of expired and idle sessions (`SESSION_SWEEP_SECS`).
    pub sweep: Duration,
    /// An open socket's re-check of its session (30 s), for an end no event announced.
    pub socket_recheck: Duration,
}

#[derive(Clone)]
pub struct Config {
    pub database_url: String,
    pub redis_url: String,
    /// Prefix of every Redis key, so several deployments (or tests) can share one Redis.
    pub redis_prefix: String,
    pub jwt_secret: Vec<u8>,
    /// The data keys that seal secrets at rest (`DATA_ENCRYPTION_KEYS`, `crate::sealed`).
    pub data_keys: crate::sealed::KeyRing,
    pub geoip_database: Option<PathBuf>,
    pub bind_addr: SocketAddr,
    /// Peers whose X-Forwarded-For header is believed.
    pub trusted_proxies: Vec<IpNet>,
    /// The built single-page app, served for every non-API path.
    pub static_dir: Option<PathBuf>,
    pub session_ttl: Duration,
    /// How long a device token (auth/rate_limit.rs) vouches for a browser.
    pub device_token_ttl: Duration,
    pub remember_me_ttl: Duration,
    pub idle_timeouts: IdleTimeouts,
    pub intervals: Intervals,
    pub login_limits: LoginLimits,
    /// Requests per window for each token, session or (unauthenticated) client address.
    pub api_limits: ApiLimits,
    pub max_body_bytes: usize,
    /// Empty tenant schemas kept ready for new enterprises (`TENANT_SPARE_SCHEMAS`; unset: 2 on
    /// Citus, none on one PostgreSQL; `tenancy::spares`).
    pub tenant_spares: Option<usize>,
    /// How long a deleted enterprise stays suspended, restorable, before its purge
    /// (`TENANT_DELETION_GRACE_DAYS`, 30 by default, 0 to 3650; fractions allowed).
    pub tenant_deletion_grace: Duration,
    /// How long an enterprise's export can be downloaded once it is ready
    /// (`TENANT_EXPORT_TTL_HOURS`, 168 by default, 1 to 720).
    pub tenant_export_ttl: Duration,
    /// The limits of an enterprise that has none of its own (`PUT /enterprises/{id}/limits`):
    /// none unless configured.
    pub tenant_limits: TenantLimits,
    /// The body limit of spreadsheet saves and imports (`MAX_SPREADSHEET_BODY_BYTES`): a
    /// workbook's bytes travel as base64.
    pub max_spreadsheet_body_bytes: usize,
    /// The largest enterprise archive `POST /enterprises/imports` takes (`TENANT_IMPORT_MAX_BYTES`).
    pub tenant_import_max_bytes: usize,
    /// The spreadsheet engine's worker: its program, deadline (`SPREADSHEET_TIMEOUT_SECS`) and
    /// memory bound (`SPREADSHEET_MAX_MEMORY_MB`).
    pub spreadsheet_engine: EngineLimits,
    /// The bearer token a Prometheus scraper sends to `/metrics` (`METRICS_TOKEN`); none: no
    /// metrics route.
    pub metrics_token: Option<String>,
    /// An optional tile server for the monitoring map (`MAP_TILE_URL`, `MAP_TILE_ATTRIBUTION`);
    /// without one the map draws country outlines shipped with the app and works offline.
    pub map_tiles: Option<MapTiles>,
    /// Webhooks and the audit log (`webhooks/`, `audit.rs`).
    pub events: EventsConfig,
    /// E-mail (`mail/`).
    pub mail: MailConfig,
    /// The passkeys' relying party (`PASSKEY_RP_ID`): by default the domain of `PUBLIC_URL`
    /// (`localhost` when that is a loopback address); a parent domain lets sibling origins share
    /// passkeys.
    pub passkey_rp_id: Option<String>,
    /// The DNS server that single sign-on domains' proofs are looked up at (`DNS_RESOLVER`, an
    /// `ip:port`); none: the system's resolvers.
    pub dns_resolver: Option<SocketAddr>,
    /// Certificate authorities every outbound client (single sign-on, webhooks) trusts beside
    /// the built-in roots: an enterprise's own, for a provider behind it (`TRUSTED_CA_CERTS`, a
    /// PEM file or a directory of them).
    pub trusted_roots: Vec<reqwest::Certificate>,
}

/// Where e-mail goes (`SMTP_URL`, `MAIL_FROM`, `PUBLIC_URL`, `MAIL_RETRY_SCALE`,
/// `MAIL_DIGEST_SECS`).
#[derive(Clone, Debug)]
pub struct MailConfig {
    /// The mail server, as lettre reads it: `smtp://host:25` (plain), `smtp://host:587?tls=required`
    /// (STARTTLS), `smtps://user:password@host:465` (TLS). None: nothing is sent; messages wait in
    /// the outbox until a server is configured.
    pub smtp_url: Option<String>,
    /// The sender, e.g. `Enterprise Platform <no-reply@example.com>`.
    pub from: String,
    /// The app's address as people reach it, for the links in e-mails (no trailing slash).
    pub public_url: String,
    /// Multiplies the retry delays (default 1): tests shrink them to moments.
    pub retry_scale: f64,
    /// How long a notification waits for others to the same person, to go out as one digest.
    pub digest_window: Duration,
}

impl Default for MailConfig {
    fn default() -> Self {
        Self {
            smtp_url: None,
            from: "Enterprise Platform <no-reply@localhost>".into(),
            public_url: "http://localhost:8080".into(),
            retry_scale: 1.0,
            digest_window: Duration::from_secs(60),
        }
    }
}

/// What events out may do (`WEBHOOK_ALLOW_PRIVATE_NETWORKS`, `AUDIT_RETENTION_DAYS`,
/// `OUTBOX_POLL_MS`).
#[derive(Debug, Clone)]
pub struct EventsConfig {
    /// Webhooks may be plain `http` and reach loopback and private addresses: for tests and
    /// development only. Off, every URL must be `https` and resolve to public addresses only.
    pub allow_private_networks: bool,
    /// Audit entries older than this many days are deleted by the retention job (default 400, at
    /// least 30: the database keeps 30 days whatever it is asked).
    pub audit_retention_days: u32,
    /// How often each instance looks for new events and due deliveries when it has none.
    pub outbox_poll: Duration,
    /// Whether this instance runs the dispatcher and the daily retention (`WEBHOOK_DISPATCHER`,
    /// default on). Off, the instance only serves requests; at least one instance must run it.
    pub dispatch: bool,
    /// Multiplies the webhook retry delays and the failing time after which a webhook is turned
    /// off (`WEBHOOK_RETRY_SCALE`, default 1): tests shrink a day of retries to seconds.
    pub retry_scale: f64,
}

impl Default for EventsConfig {
    fn default() -> Self {
        Self { allow_private_networks: false, audit_retention_days: 400, outbox_poll: Duration::from_millis(200), dispatch: true, retry_scale: 1.0 }
    }
}

/// A raster tile server: its URL template (`https://tile.example/{z}/{x}/{y}.png`), the credit
/// its licence asks for, and its origin, which the Content-Security-Policy lets images come from.
#[derive(Clone, Debug, PartialEq)]
pub struct MapTiles {
    pub url: String,
    pub attribution: Option<String>,
    pub origin: String,
}

impl MapTiles {
    pub fn parse(url: &str, attribution: Option<String>) -> anyhow::Result<Self> {
        let parsed = url::Url::parse(url).context("MAP_TILE_URL is not a URL")?;
        if !matches!(parsed.scheme(), "https" | "http") || parsed.host_str().is_none() {
            bail!("MAP_TILE_URL must be an http(s) URL");
        }
        if !["{z}", "{x}", "{y}"].iter().all(|p| url.contains(p)) {
            bail!("MAP_TILE_URL must hold {{z}}, {{x}} and {{y}}");
        }
        // The origin goes into a header: url's serialisation is ASCII (punycode, no spaces or ';').
        let origin = parsed.origin().ascii_serialization();
        Ok(Self { url: url.to_owned(), attribution, origin })
    }
}

/// API requests allowed per window (`API_RATE_LIMIT`, `API_RATE_LIMIT_WINDOW_SECS`) for each
/// token, session or unauthenticated client address (api/rate_limit.rs).
#[derive(Debug, Clone, Copy)]
pub struct ApiLimits {
    /// Requests allowed per window; 0 turns the limit off.
    pub requests: u32,
    pub window: Duration,
}

/// Sign-in attempts allowed per window (auth/rate_limit.rs): from browsers without a device token
/// for the account, per (account, client IP), per client IP and per account; from a browser with
/// one, per device.
#[derive(Clone, Copy, Debug)]
pub struct LoginLimits {
    pub per_account_and_ip: u32,
    pub per_ip: u32,
    pub per_account: u32,
    pub per_device: u32,
    pub window: Duration,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("bind_addr", &self.bind_addr)
            .field("redis_prefix", &self.redis_prefix)
            .field("geoip_database", &self.geoip_database)
            .field("trusted_proxies", &self.trusted_proxies)
            .field("static_dir", &self.static_dir)
            .field("login_limits", &self.login_limits)
            .field("map_tiles", &self.map_tiles)
            .finish_non_exhaustive()
    }
}

pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/enterprise_platform";
pub const DEFAULT_REDIS_URL: &str = "redis://127.0.0.1:6379";
const MIN_SECRET_BYTES: usize = 32;

impl Config {
    /// Reads the environment. Outside development mode (`APP_ENV=development`) a missing or short
    /// `JWT_SECRET` is refused; in development a random one is made, so tokens die with the process.
    pub fn from_env() -> anyhow::Result<Self> {
        let dev_mode = var("APP_ENV").is_some_and(|v| v.eq_ignore_ascii_case("development"));
        let jwt_secret = match var("JWT_SECRET") {
            Some(s) if s.len() >= MIN_SECRET_BYTES && !secret_is_guessable(&s) => s.into_bytes(),
            _ if dev_mode => {
                tracing::warn!("JWT_SECRET missing, short or guessable; using a random one (development mode)");
                random_secret()
            }
            Some(s) if s.len() < MIN_SECRET_BYTES => bail!("JWT_SECRET must be at least {MIN_SECRET_BYTES} bytes"),
            Some(_) => bail!("JWT_SECRET is guessable (repeated, sequential or dictionary text): use random bytes, e.g. `openssl rand -hex 32`"),
            None => bail!("JWT_SECRET is required (at least {MIN_SECRET_BYTES} bytes), or set APP_ENV=development"),
        };

        let data_keys = crate::sealed::KeyRing::from_env(dev_mode)?;

        let mut bind_addr: SocketAddr = parse_var("BIND_ADDR")?.unwrap_or(([0, 0, 0, 0], 8080).into());
        if let Some(port) = parse_var::<u16>("PORT")? {
            bind_addr.set_port(port);
        }

        let trusted_proxies = match var("TRUSTED_PROXIES") {
            None => Vec::new(),
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(parse_cidr)
                .collect::<anyhow::Result<_>>()
                .context("TRUSTED_PROXIES must be a comma-separated list of CIDRs or addresses")?,
        };

        Ok(Self {
            database_url: var("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.into()),
            redis_url: var("REDIS_URL").unwrap_or_else(|| DEFAULT_REDIS_URL.into()),
            redis_prefix: var("REDIS_PREFIX").unwrap_or_else(|| "emp:".into()),
            jwt_secret,
            data_keys,
            geoip_database: var("GEOIP_DATABASE").map(PathBuf::from),
            bind_addr,
            trusted_proxies,
            static_dir: var("STATIC_DIR").map(PathBuf::from),
            session_ttl: Duration::from_secs(parse_var("SESSION_TTL_SECS")?.unwrap_or(12 * 3600)),
            device_token_ttl: Duration::from_secs(parse_var("DEVICE_TOKEN_TTL_SECS")?.unwrap_or(365 * 86400)),
            remember_me_ttl: Duration::from_secs(parse_var("REMEMBER_ME_TTL_SECS")?.unwrap_or(30 * 86400)),
            idle_timeouts: IdleTimeouts {
                session: Duration::from_secs(parse_var("SESSION_IDLE_TIMEOUT_SECS")?.unwrap_or(2 * 3600)),
                remembered: Duration::from_secs(parse_var("REMEMBER_ME_IDLE_TIMEOUT_SECS")?.unwrap_or(14 * 86400)),
            },
            intervals: Intervals {
                heartbeat_flush: Duration::from_secs(parse_var("HEARTBEAT_FLUSH_SECS")?.unwrap_or(5)),
                sweep: Duration::from_secs(parse_var("SESSION_SWEEP_SECS")?.unwrap_or(30)),
                socket_recheck: Duration::from_secs(30),
            },
            login_limits: LoginLimits {
                per_account_and_ip: parse_var("LOGIN_MAX_FAILURES")?.unwrap_or(5),
                per_ip: parse_var("LOGIN_MAX_FAILURES_PER_IP")?.unwrap_or(50),
                per_account: parse_var("LOGIN_MAX_FAILURES_PER_ACCOUNT")?.unwrap_or(20),
                per_device: parse_var("LOGIN_MAX_FAILURES_PER_DEVICE")?.unwrap_or(10),
                window: Duration::from_secs(parse_var("LOGIN_FAILURE_WINDOW_SECS")?.unwrap_or(900)),
            },
            api_limits: ApiLimits {
                requests: parse_var("API_RATE_LIMIT")?.unwrap_or(1200),
                window: Duration::from_secs(parse_var::<u64>("API_RATE_LIMIT_WINDOW_SECS")?.unwrap_or(60).max(1)),
            },
            max_body_bytes: parse_var("MAX_BODY_BYTES")?.unwrap_or(1024 * 1024),
            tenant_spares: parse_var("TENANT_SPARE_SCHEMAS")?,
            tenant_deletion_grace: Duration::from_secs_f64(
                parse_var::<f64>("TENANT_DELETION_GRACE_DAYS")?.filter(|d| d.is_finite()).unwrap_or(30.0).clamp(0.0, 3650.0) * 86_400.0,
            ),
            tenant_export_ttl: Duration::from_secs(parse_var::<u64>("TENANT_EXPORT_TTL_HOURS")?.unwrap_or(168).clamp(1, 720) * 3600),
            tenant_limits: TenantLimits {
                people: parse_var::<u32>("TENANT_LIMIT_PEOPLE")?.filter(|n| *n > 0),
                storage_bytes: parse_var::<u64>("TENANT_LIMIT_STORAGE_BYTES")?.filter(|n| *n > 0),
                api_calls_per_minute: parse_var::<u32>("TENANT_LIMIT_API_CALLS_PER_MINUTE")?.filter(|n| *n > 0),
            },
            max_spreadsheet_body_bytes: parse_var("MAX_SPREADSHEET_BODY_BYTES")?.unwrap_or(12 * 1024 * 1024),
            tenant_import_max_bytes: parse_var("TENANT_IMPORT_MAX_BYTES")?.unwrap_or(1 << 30),
            spreadsheet_engine: EngineLimits {
                program: std::env::current_exe().context("cannot find this program, to run the spreadsheet engine")?,
                deadline: Duration::from_secs_f64(parse_var::<f64>("SPREADSHEET_TIMEOUT_SECS")?.unwrap_or(5.0).clamp(0.1, 3600.0)),
                max_memory_bytes: parse_var::<u64>("SPREADSHEET_MAX_MEMORY_MB")?.unwrap_or(512).max(16) * 1024 * 1024,
            },
            metrics_token: var("METRICS_TOKEN").filter(|t| !t.is_empty()),
            map_tiles: var("MAP_TILE_URL").map(|url| MapTiles::parse(&url, var("MAP_TILE_ATTRIBUTION"))).transpose()?,
            passkey_rp_id: var("PASSKEY_RP_ID").filter(|id| !id.is_empty()),
            dns_resolver: parse_var("DNS_RESOLVER")?,
            trusted_roots: trusted_roots(var("TRUSTED_CA_CERTS").as_deref())?,
            events: EventsConfig {
                allow_private_networks: switch("WEBHOOK_ALLOW_PRIVATE_NETWORKS")?.unwrap_or(false),
                audit_retention_days: parse_var::<u32>("AUDIT_RETENTION_DAYS")?.unwrap_or(400).clamp(30, 36_500),
                outbox_poll: Duration::from_millis(parse_var::<u64>("OUTBOX_POLL_MS")?.unwrap_or(200).clamp(10, 60_000)),
                dispatch: switch("WEBHOOK_DISPATCHER")?.unwrap_or(true),
                retry_scale: parse_var::<f64>("WEBHOOK_RETRY_SCALE")?.unwrap_or(1.0).clamp(0.000_001, 1.0),
            },
            mail: MailConfig {
                smtp_url: var("SMTP_URL"),
                from: var("MAIL_FROM").unwrap_or_else(|| MailConfig::default().from),
                public_url: var("PUBLIC_URL").map_or_else(|| MailConfig::default().public_url, |u| u.trim_end_matches('/').to_owned()),
                retry_scale: parse_var::<f64>("MAIL_RETRY_SCALE")?.unwrap_or(1.0).clamp(0.000_001, 1.0),
                digest_window: Duration::from_secs_f64(parse_var::<f64>("MAIL_DIGEST_SECS")?.unwrap_or(60.0).clamp(0.0, 3600.0)),
            },
        })
    }
}

/// A secret of repeated, sequential or dictionary text (`aaaa…`, `abcd…`, `passwordpassword…`),
/// by the zxcvbn estimator: fewer than 10^12 guesses. Random text of 32 characters or more is
/// far above (a random 32-digit hex string estimates at about 10^19).
fn secret_is_guessable(secret: &str) -> bool {
    zxcvbn::zxcvbn(secret, &[]).guesses_log10() < 12.0
}

pub fn random_secret() -> Vec<u8> {
    use rand::RngCore;
    let mut secret = vec![0u8; 64];
    rand::rng().fill_bytes(&mut secret);
    secret
}

fn var(name: &str) -> Option<String> {
    env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// What an enterprise may use (`usage`); `None` is no limit. The configured ones are the
/// defaults of enterprises without limits of their own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TenantLimits {
    /// People in the enterprise (`TENANT_LIMIT_PEOPLE`): everyone not erased, deactivated or not.
    pub people: Option<u32>,
    /// The size of the enterprise's schema on disk (`TENANT_LIMIT_STORAGE_BYTES`).
    pub storage_bytes: Option<u64>,
    /// API calls per minute by everyone of the enterprise together
    /// (`TENANT_LIMIT_API_CALLS_PER_MINUTE`).
    pub api_calls_per_minute: Option<u32>,
}

fn parse_var<T: FromStr>(name: &str) -> anyhow::Result<Option<T>>
where
    T::Err: fmt::Display,
{
    var(name).map(|v| v.trim().parse::<T>().map_err(|e| anyhow::anyhow!("{name}={v:?} is invalid: {e}"))).transpose()
}

/// A switch: `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off`, in any case.
fn switch(name: &str) -> anyhow::Result<Option<bool>> {
    var(name).map(|v| parse_switch(name, &v)).transpose()
}

fn parse_switch(name: &str, value: &str) -> anyhow::Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(anyhow::anyhow!("{name}={value:?} is invalid: a switch is 1, true, yes, on or 0, false, no, off")),
    }
}

/// The certificates of `TRUSTED_CA_CERTS`: a PEM file, or every `.pem` and `.crt` file of a
/// directory (parsed by reqwest). A path that cannot be read, or that holds no certificate, stops
/// the server: a provider behind that authority would otherwise fail at the first sign-in.
pub fn trusted_roots(path: Option<&str>) -> anyhow::Result<Vec<reqwest::Certificate>> {
    let Some(path) = path.map(|p| PathBuf::from(p.trim())) else { return Ok(Vec::new()) };
    let files = if path.is_dir() {
        let entries = std::fs::read_dir(&path).with_context(|| format!("TRUSTED_CA_CERTS: cannot read the directory {}", path.display()))?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("pem" | "crt")))
            .collect();
        files.sort();
        files
    } else {
        vec![path.clone()]
    };
    let mut roots = Vec::new();
    for file in &files {
        let pem = std::fs::read(file).with_context(|| format!("TRUSTED_CA_CERTS: cannot read {}", file.display()))?;
        roots.extend(
            reqwest::Certificate::from_pem_bundle(&pem).with_context(|| format!("TRUSTED_CA_CERTS: {} is not PEM certificates", file.display()))?,
        );
    }
    if roots.is_empty() {
        bail!("TRUSTED_CA_CERTS: {} holds no PEM certificate", path.display());
    }
    Ok(roots)
}

/// Accepts `10.0.0.0/8` or a bare address (`10.0.0.1`, a /32 or /128).
fn parse_cidr(s: &str) -> anyhow::Result<IpNet> {
    s.parse::<IpNet>().or_else(|_| s.parse::<std::net::IpAddr>().map(IpNet::from)).with_context(|| format!("{s:?} is not a CIDR"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_read_the_usual_spellings_and_refuse_others() {
        for (value, expected) in
            [("1", true), ("TRUE", true), ("yes", true), (" On ", true), ("0", false), ("false", false), ("No", false), ("off", false)]
        {
            assert_eq!(parse_switch("A_SWITCH", value).unwrap(), expected, "{value}");
        }
        let refusal = parse_switch("A_SWITCH", "maybe").unwrap_err().to_string();
        assert!(refusal.contains("A_SWITCH=\"maybe\"") && refusal.contains("1, true, yes, on"), "{refusal}");
    }

    /// Every variable the server reads from its environment, and only those, has a row in the
    /// README's configuration table: an operator reads one table.
    #[test]
    fn the_readme_lists_every_variable_the_server_reads() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut read = std::collections::BTreeSet::new();
        let mut pending = vec![root.join("src")];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let text = text.split("#[cfg(test)]").next().unwrap();
                    // Each quoted NAME on a line that reads the environment.
                    for line in text.lines().filter(|l| ["var(", "switch(", "parse_var::<"].iter().any(|call| l.contains(call))) {
                        for quoted in line.split('"').skip(1).step_by(2) {
                            if quoted.len() > 2 && quoted.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_') {
                                read.insert(quoted.to_owned());
                            }
                        }
                    }
                }
            }
        }
        let readme = std::fs::read_to_string(root.join("../README.md")).unwrap();
        let table = readme.split("## Configuration").nth(1).expect("a Configuration section").split("\n## ").next().unwrap();
        let mut listed = std::collections::BTreeSet::new();
        for row in table.lines().filter(|l| l.starts_with("| `")) {
            let first = row.split(" | ").next().unwrap();
            for name in first.split('`').skip(1).step_by(2) {
                listed.insert(name.split('=').next().unwrap().to_owned());
            }
        }
        // Read by the tracing library, not by our code.
        read.insert("RUST_LOG".to_owned());
        let missing: Vec<_> = read.difference(&listed).collect();
        let stale: Vec<_> = listed.difference(&read).collect();
        assert!(missing.is_empty() && stale.is_empty(), "not in the README's table: {missing:?}; in it but read nowhere: {stale:?}");
    }

    #[test]
    fn low_entropy_jwt_secrets_are_refused() {
        for weak in ["a".repeat(32), "ab".repeat(16), "passwordpasswordpasswordpassword".into(), "abcdefghijklmnopqrstuvwxyz012345".into()] {
            assert!(secret_is_guessable(&weak), "{weak}");
        }
        for _ in 0..20 {
            let random: String = random_secret()[..16].iter().map(|b| format!("{b:02x}")).collect();
            assert!(!secret_is_guessable(&random), "{random}");
        }
    }

    #[test]
    fn a_map_tile_url_must_be_an_http_template_and_gives_its_origin() {
        let tiles = MapTiles::parse("https://tile.openstreetmap.org/{z}/{x}/{y}.png", None).unwrap();
        assert_eq!(tiles.origin, "https://tile.openstreetmap.org");
        let tiles = MapTiles::parse("http://b\u{fc}cher.example:81/{z}/{x}/{y}", None).unwrap();
        assert_eq!(tiles.origin, "http://xn--bcher-kva.example:81", "punycode: header-safe");
        for bad in ["tile.example/{z}/{x}/{y}", "ftp://tile.example/{z}/{x}/{y}", "https://tile.example/tiles.png", "data:,{z}{x}{y}"] {
            assert!(MapTiles::parse(bad, None).is_err(), "{bad}");
        }
    }

    #[test]
    fn bare_addresses_are_single_host_networks() {
        assert_eq!(parse_cidr("10.1.2.3").unwrap().to_string(), "10.1.2.3/32");
        assert_eq!(parse_cidr("fd00::/8").unwrap().to_string(), "fd00::/8");
        assert!(parse_cidr("not-an-ip").is_err());
    }
}
