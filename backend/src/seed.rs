//! `backend seed-demo`: two enterprises with people in their departments, so a fresh platform
//! has something to show, and sessions from around the world for the monitoring map.
//! Idempotent: an enterprise whose CEO exists, or whose name is taken (ignoring case and
//! accents), is left alone, and sessions are added only to a demo enterprise that has none.

use anyhow::Context;
use chrono::{DateTime, Duration, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use crate::{
    auth::password,
    domain::{DepartmentType, Email, Password, ReportStatus, Role, session::Device},
    geoip::Location,
    store::{self, enterprises::NewEnterprise, sessions::NewSession},
    tenancy,
};

pub const DEMO_PASSWORD: &str = "demo-password";

struct DemoEnterprise {
    name: &'static str,
    description: &'static str,
    domain: &'static str,
    ceo: &'static str,
    staff: &'static [(&'static str, &'static str, Role, DepartmentType)],
    /// Someone invited who has not accepted yet: name, address, department.
    invited: Option<(&'static str, &'static str, DepartmentType)>,
}

const DEMO: [DemoEnterprise; 2] = [
    DemoEnterprise {
        name: "Acme Industries",
        description: "Manufacturing and distribution",
        domain: "acme.example",
        invited: Some(("Léa Petit", "lea", DepartmentType::Finance)),
        ceo: "Alice Martin",
        staff: &[
            ("Bruno Petit", "bruno", Role::DepartmentHead, DepartmentType::Finance),
            ("Chloé Durand", "chloe", Role::DepartmentUser, DepartmentType::Finance),
            ("David Leroy", "david", Role::DepartmentHead, DepartmentType::Operations),
            ("Emma Moreau", "emma", Role::DepartmentUser, DepartmentType::SalesMarketing),
        ],
    },
    DemoEnterprise {
        name: "Globex Services",
        description: "Consulting and IT services",
        domain: "globex.example",
        invited: None,
        ceo: "Gabriel Roux",
        staff: &[
            ("Hugo Blanc", "hugo", Role::DepartmentHead, DepartmentType::InformationTechnology),
            ("Inès Garnier", "ines", Role::DepartmentUser, DepartmentType::InformationTechnology),
            ("Jade Faure", "jade", Role::DepartmentHead, DepartmentType::HumanResources),
        ],
    },
];

pub async fn seed_demo(pool: &PgPool, keys: &crate::sealed::KeyRing) -> anyhow::Result<()> {
    crate::sealed::prepare(pool, keys).await?;
    let hash = password::hash(&Password::parse(DEMO_PASSWORD).expect("demo password meets the policy")).await?;
    for demo in &DEMO {
        let ceo_email = Email::parse(&format!("ceo@{}", demo.domain)).expect("valid demo e-mail");
        if store::users::find_by_email(pool, &ceo_email).await?.is_some() {
            println!("{}: already seeded", demo.name);
            continue;
        }
        // Names are unique ignoring case and accents: an enterprise someone else named so (or a
        // demo one whose CEO was deleted) is left alone rather than duplicated.
        if store::enterprises::name_taken(pool, demo.name).await? {
            println!("{}: an enterprise of that name exists, left alone", demo.name);
            continue;
        }
        let id = store::enterprises::create_with_tenant(
            pool,
            NewEnterprise {
                name: demo.name,
                description: demo.description,
                ceo_full_name: demo.ceo,
                ceo_email: &ceo_email,
                ceo_locale: Default::default(),
                inviter: crate::accounts::Inviter { id: None, name: "" },
            },
            std::future::ready(Ok(Some(hash.clone()))),
            &crate::audit::Audit::system().0,
        )
        .await
        .with_context(|| format!("cannot create {}", demo.name))?;
        let enterprise = store::enterprises::find(pool, id).await?.context("enterprise just created")?;
        let mut tx = tenancy::begin(pool, &enterprise.schema()).await?;
        let departments = store::departments::list(&mut tx).await?;
        for (full_name, local, role, kind) in demo.staff {
            let department = departments.iter().find(|d| d.kind == kind.as_str()).context("five departments")?;
            let email = Email::parse(&format!("{local}@{}", demo.domain)).expect("valid demo e-mail");
            let user_id = store::users::insert(
                &mut *tx,
                store::users::NewUser {
                    enterprise_id: Some(id),
                    department_id: Some(department.id),
                    role: *role,
                    full_name,
                    email: &email,
                    password_hash: Some(&hash),
                    locale: Default::default(),
                },
            )
            .await?;
            if *role == Role::DepartmentHead {
                store::departments::update(&mut tx, department.id, None, Some(Some(user_id))).await?;
            }
        }
        // Someone invited who has not accepted yet: the user list shows the invitation, and the
        // mail catcher of `make run` holds its e-mail.
        if let Some((full_name, local, kind)) = demo.invited {
            let department = departments.iter().find(|d| d.kind == kind.as_str()).context("five departments")?;
            let email = Email::parse(&format!("{local}@{}", demo.domain)).expect("valid demo e-mail");
            let new = store::users::NewUser {
                enterprise_id: Some(id),
                department_id: Some(department.id),
                role: Role::DepartmentUser,
                full_name,
                email: &email,
                password_hash: None,
                locale: crate::domain::Lang::Fr,
            };
            let invited = store::users::insert(&mut *tx, new).await?;
            let ceo = store::users::find_by_email(&mut *tx, &ceo_email).await?.context("the CEO just made")?;
            let inviter = crate::accounts::Inviter { id: Some(ceo.id), name: demo.ceo };
            crate::accounts::invite(&mut tx, invited, Some((id, demo.name)), &inviter).await?;
        }
        tx.commit().await?;
        founded_before_its_work(pool, id).await?;
        println!("{}: CEO ceo@{} and {} staff, password {DEMO_PASSWORD}", demo.name, demo.domain, demo.staff.len());
    }
    for (index, demo) in DEMO.iter().enumerate() {
        seed_sessions(pool, demo, index).await?;
        seed_work(pool, demo).await?;
        seed_tokens(pool, demo, keys).await?;
    }
    seed_closing(pool, &hash).await?;
    seed_sso(pool, keys).await?;
    seed_export(pool).await?;
    seed_usage(pool).await?;
    // The demo's sessions were moved into the past, which the activity rollup cannot follow.
    store::sessions::rebuild_activity(pool).await?;
    Ok(())
}

/// An export of the first demo enterprise asked for by its CEO: the server writes it once it runs
/// (its look for waiting exports, within 30 s), so the CEO's home shows an archive to download and
/// the mail catcher its e-mail. Once: a seeded enterprise with any export is left alone.
async fn seed_export(pool: &PgPool) -> anyhow::Result<()> {
    let demo = &DEMO[0];
    let Some(ceo) = store::users::find_by_email(pool, &Email::parse(&format!("ceo@{}", demo.domain)).expect("valid demo e-mail")).await? else {
        return Ok(());
    };
    let Some(enterprise) = ceo.enterprise_id else { return Ok(()) };
    if store::exports::list(pool, enterprise, 1).await?.is_empty() {
        store::exports::create(pool, enterprise, ceo.id, chrono::Utc::now()).await?;
        println!("{}: an export asked for by its CEO (written once the server runs)", demo.name);
    }
    Ok(())
}

/// Four weeks of usage for each demo enterprise (weekdays busier than weekends), and limits for
/// the first, so the usage card has days to chart and "x of y" to show. Once: an enterprise with
/// any counted day is left alone.
async fn seed_usage(pool: &PgPool) -> anyhow::Result<()> {
    let today = chrono::Utc::now().date_naive();
    for (n, demo) in DEMO.iter().enumerate() {
        let Some(ceo) = store::users::find_by_email(pool, &Email::parse(&format!("ceo@{}", demo.domain)).expect("valid demo e-mail")).await? else {
            continue;
        };
        let Some(enterprise) = ceo.enterprise_id else { continue };
        if !store::usage::daily(pool, enterprise, today - chrono::Days::new(400), today).await?.is_empty() {
            continue;
        }
        let scale = 3 - n.min(2) as i64;
        let rows: Vec<_> = (1..=28u64)
            .map(|ago| {
                let day = today - chrono::Days::new(ago);
                let weekday = !matches!(chrono::Datelike::weekday(&day), chrono::Weekday::Sat | chrono::Weekday::Sun);
                let busy = if weekday { 4 } else { 1 } * scale;
                let wobble = (ago as i64 * 7) % 5;
                let counts = store::usage::DailyCounts {
                    api_calls: busy * (60 + wobble * 9),
                    emails: busy + wobble % 3,
                    exports: i64::from(ago % 9 == 0),
                    sign_ins: busy * 3 + wobble,
                };
                (enterprise, day, counts)
            })
            .collect();
        store::usage::add_daily(pool, &rows).await?;
        if n == 0 {
            let limits = store::usage::OwnLimits { people: Some(25), storage_bytes: Some(500_000_000), api_calls_per_minute: Some(600) };
            store::usage::set_limits(pool, enterprise, limits).await?;
        }
        println!("{}: four weeks of usage{}", demo.name, if n == 0 { ", and limits of 25 people, 500 MB and 600 API calls a minute" } else { "" });
    }
    Ok(())
}

/// An enterprise on its way out: deleted by the admin three days ago, suspended, and purged in 18
/// days unless restored (the admin's list and its page show the recovery window).
async fn seed_closing(pool: &PgPool, hash: &str) -> anyhow::Result<()> {
    const NAME: &str = "Initech Legacy";
    let ceo_email = Email::parse("ceo@initech.example").expect("valid demo e-mail");
    if store::enterprises::name_taken(pool, NAME).await? || store::users::find_by_email(pool, &ceo_email).await?.is_some() {
        return Ok(());
    }
    let new = NewEnterprise {
        name: NAME,
        description: "Closed its doors; kept for its recovery window",
        ceo_full_name: "Peter Gibbons",
        ceo_email: &ceo_email,
        ceo_locale: Default::default(),
        inviter: crate::accounts::Inviter { id: None, name: "" },
    };
    let id =
        store::enterprises::create_with_tenant(pool, new, std::future::ready(Ok(Some(hash.to_owned()))), &crate::audit::Audit::system().0).await?;
    founded_before_its_work(pool, id).await?;
    // Times from here: Citus refuses a column minus an interval (a STABLE operator) in an UPDATE.
    let now = chrono::Utc::now();
    sqlx::query("update public.users set last_login_at = $2 where enterprise_id = $1")
        .bind(id)
        .bind(now - chrono::Duration::days(40))
        .execute(pool)
        .await?;
    store::enterprises::schedule_deletion(pool, id, std::time::Duration::from_secs(21 * 86_400), &crate::audit::Audit::system().0).await?;
    sqlx::query("update public.enterprises set deletion_scheduled_at = $2, purge_after = $3 where id = $1")
        .bind(id)
        .bind(now - chrono::Duration::days(3))
        .bind(now + chrono::Duration::days(18))
        .execute(pool)
        .await?;
    println!("{NAME}: deleted, purged in 18 days unless restored");
    Ok(())
}

/// Globex signs in through `DEMO_OIDC_ISSUER` (scripts/run.sh starts the test provider of
/// scripts/oidc, which lets in any address typed): `globex.example` offers single sign-on, and a
/// new address of the domain gets an IT account at its first sign-in. Only when the variable is
/// set and Globex has no single sign-on yet.
async fn seed_sso(pool: &PgPool, keys: &crate::sealed::KeyRing) -> anyhow::Result<()> {
    let Some(issuer) = std::env::var("DEMO_OIDC_ISSUER").ok().filter(|i| !i.is_empty()) else { return Ok(()) };
    let ceo = Email::parse("ceo@globex.example").expect("valid demo e-mail");
    let Some(enterprise_id) = store::users::find_by_email(pool, &ceo).await?.and_then(|c| c.enterprise_id) else { return Ok(()) };
    if store::sso::find(pool, enterprise_id).await?.is_some() {
        return Ok(());
    }
    let mut tx = tenancy::begin(pool, &crate::tenancy::SchemaName::for_enterprise(enterprise_id)).await?;
    let it = store::departments::list(&mut tx).await?.into_iter().find(|d| d.kind == DepartmentType::InformationTechnology.as_str()).map(|d| d.id);
    let change = store::sso::SsoChange {
        issuer: issuer.trim_end_matches('/'),
        client_id: "platform",
        client_secret: Some("platform-secret"),
        domains: &["globex-labs.example".to_owned(), "globex.example".to_owned()],
        required: false,
        provisioning: "just_in_time",
        default_role: Role::DepartmentUser,
        default_department_id: it,
        break_glass_user_id: None,
        accept_unverified_email: false,
        require_mfa: false,
    };
    store::sso::save(&mut tx, keys, enterprise_id, &change).await?.map_err(|domain| anyhow::anyhow!("{domain} has single sign-on elsewhere"))?;
    // globex.example as the platform admin approved it; globex-labs.example still waits for its
    // TXT record, as a domain just claimed does.
    store::sso::prove_domain(&mut *tx, enterprise_id, "globex.example", "admin")
        .await?
        .ok_or_else(|| anyhow::anyhow!("globex.example was not claimed"))?
        .map_err(|domain| anyhow::anyhow!("{domain} is proven elsewhere"))?;
    tx.commit().await?;
    println!("Globex Services: single sign-on through {issuer} for globex.example (globex-labs.example awaits its TXT record)");
    Ok(())
}

/// Six months of reports for every department with staff, in every status, with data tables
/// and review notes, and a budget spreadsheet per department: the dashboards, charts and review
/// queues have a history to show. Only for a demo enterprise without reports yet.
async fn seed_work(pool: &PgPool, demo: &DemoEnterprise) -> anyhow::Result<()> {
    let ceo_email = Email::parse(&format!("ceo@{}", demo.domain)).expect("valid demo e-mail");
    let Some(ceo) = store::users::find_by_email(pool, &ceo_email).await? else { return Ok(()) };
    let Some(enterprise_id) = ceo.enterprise_id else { return Ok(()) };
    let mut tx = tenancy::begin(pool, &crate::tenancy::SchemaName::for_enterprise(enterprise_id)).await?;
    let (seeded,): (bool,) = sqlx::query_as("select exists (select 1 from reports)").fetch_one(&mut *tx).await?;
    if seeded {
        return Ok(());
    }
    let departments = store::departments::list(&mut tx).await?;
    let today = Utc::now().date_naive();
    let mut made = 0;
    for (n, (_, local, _, kind)) in demo.staff.iter().enumerate() {
        // One author per department: the first of its staff in the list.
        if demo.staff[..n].iter().any(|(_, _, _, k)| k == kind) {
            continue;
        }
        let department = departments.iter().find(|d| d.kind == kind.as_str()).context("five departments")?;
        let email = Email::parse(&format!("{local}@{}", demo.domain)).expect("valid demo e-mail");
        let author = store::users::find_by_email(pool, &email).await?.context("demo staff")?;
        for (months_ago, path, notes) in HISTORY {
            let start = first_of_month(today, *months_ago);
            let end = first_of_month(today, months_ago - 1) - Duration::days(1);
            let label = start.format("%B %Y");
            let department_name = crate::export::department_label(*kind, crate::export::Lang::En);
            // The month's report, and (never submitted) the forecast being drafted beside it.
            let title = if path.is_empty() { format!("{department_name} — {label} forecast") } else { format!("{department_name} — {label}") };
            let data = serde_json::json!({
                "columns": ["Week", "Revenue", "Costs"],
                "rows": (1..=4).map(|w| {
                    let base = 100 + (n as i64 * 37 + i64::from(*months_ago) * 13 + w * 7) % 60;
                    serde_json::json!([format!("Week {w}"), base * 10, base * 7 + w * 11])
                }).collect::<Vec<_>>(),
            });
            let content = format!("Activity of {label}: figures by week, with costs against revenue.");
            let id = store::reports::insert(
                &mut tx,
                store::reports::NewReport {
                    enterprise_id,
                    department_id: department.id,
                    title: &title,
                    content: &content,
                    period_start: start,
                    period_end: end,
                    status: ReportStatus::Draft,
                    data: Some(&data),
                    created_by: author.id,
                },
            )
            .await?;
            // Its history happened over the days after the period ended.
            let shift = (today - end).num_days().max(1) - 3;
            // Every time of this report is the transaction's now(): all move to one earlier time,
            // computed first (Citus refuses `column - interval`, a STABLE operator, in writes).
            let at: DateTime<Utc> =
                sqlx::query_scalar("select now() - make_interval(days => $1)").bind(shift.max(0) as i32).fetch_one(&mut *tx).await?;
            // The audit log tells the same story, an hour apart per step, from the office.
            let person = |id: Uuid| store::audit::Actor {
                kind: "user",
                id: Some(id),
                ip: "81.2.69.142".parse().ok(),
                place: Some("London, GB".to_owned()),
                user_agent: Some("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/124.0 Safari/537.36".to_owned()),
            };
            let target = store::audit::Target::new("report", id, &title);
            store::audit::insert_at(
                &mut tx,
                Some(at),
                &person(author.id),
                Some(enterprise_id),
                "report.created",
                Some(target),
                serde_json::json!({}),
            )
            .await?;
            let mut from = ReportStatus::Draft;
            for (step, to) in path.iter().enumerate() {
                let actor = if matches!(to, ReportStatus::Draft | ReportStatus::Submitted) { author.id } else { ceo.id };
                let note = (*to == ReportStatus::Rejected || *to == ReportStatus::Approved).then_some(*notes).filter(|n| !n.is_empty());
                store::reports::transition(&mut tx, enterprise_id, id, actor, from, *to, note).await?;
                let action = match to {
                    ReportStatus::Draft => "report.updated",
                    ReportStatus::Submitted => "report.submitted",
                    ReportStatus::Reviewed => "report.reviewed",
                    ReportStatus::Approved => "report.approved",
                    ReportStatus::Rejected => "report.rejected",
                };
                let changes = serde_json::json!({ "status": [from.as_str(), to.as_str()] });
                let when = (at + Duration::hours(step as i64 + 1)).min(Utc::now());
                store::audit::insert_at(&mut tx, Some(when), &person(actor), Some(enterprise_id), action, Some(target), changes).await?;
                from = *to;
            }
            for sql in [
                "update reports set created_at = $2, updated_at = $2, submitted_at = case when submitted_at is null then null else $2 end, \
                 reviewed_at = case when reviewed_at is null then null else $2 end where id = $1",
                "update report_events set created_at = $2 where report_id = $1",
                "update public.report_transitions set at = $2 where report_id = $1",
            ] {
                sqlx::query(sql).bind(id).bind(at).execute(&mut *tx).await?;
            }
            made += 1;
        }
        let budget = budget_workbook(&department.kind);
        store::spreadsheets::insert(
            &mut tx,
            store::spreadsheets::NewSpreadsheet {
                department_id: department.id,
                name: &format!("Budget {}", today.format("%Y")),
                content: &budget,
                engine_version: crate::spreadsheet::ENGINE_VERSION,
                by: author.id,
            },
        )
        .await?;
    }
    tx.commit().await?;
    println!("{}: {made} reports over six months (every status) and a budget spreadsheet per department", demo.name);
    Ok(())
}

use ReportStatus::{Approved, Draft, Rejected, Reviewed, Submitted};

/// Each month's report: how many months ago its period began, its path from draft, and the
/// CEO's notes when rejecting or approving.
const HISTORY: &[(i32, &[ReportStatus], &str)] = &[
    (6, &[Submitted, Reviewed, Approved], "Clear and complete."),
    (5, &[Submitted, Rejected, Draft, Submitted, Approved], "Thanks for adding the missing week."),
    (4, &[Submitted, Approved], ""),
    (3, &[Submitted, Reviewed, Approved], "Good month."),
    (2, &[Submitted, Reviewed], ""),
    (1, &[Submitted, Rejected], "Please explain the rise in costs in week 3."),
    (0, &[Submitted], ""),
    (0, &[], ""),
];

/// A demo enterprise and its people (those with a password: the invited are new) date from before
/// the oldest work the demo gives them (the reports of `HISTORY`, its sign-ins), not from the
/// seed's run: nobody signed in or wrote before their account existed.
async fn founded_before_its_work(pool: &PgPool, enterprise: Uuid) -> sqlx::Result<()> {
    let oldest = HISTORY.iter().map(|(months_ago, ..)| *months_ago).max().unwrap_or(0);
    let founded = first_of_month(Utc::now().date_naive(), oldest + 1).and_hms_opt(9, 0, 0).expect("9:00 exists").and_utc();
    sqlx::query("update public.enterprises set created_at = $2 where id = $1").bind(enterprise).bind(founded).execute(pool).await?;
    sqlx::query("update public.users set created_at = $2 where enterprise_id = $1 and password_hash is not null")
        .bind(enterprise)
        .bind(founded)
        .execute(pool)
        .await
        .map(drop)
}

fn first_of_month(today: chrono::NaiveDate, months_ago: i32) -> chrono::NaiveDate {
    use chrono::Datelike;
    let months = today.year() * 12 + today.month0() as i32 - months_ago;
    chrono::NaiveDate::from_ymd_opt(months.div_euclid(12), months.rem_euclid(12) as u32 + 1, 1).expect("the first of a month")
}

/// A budget: twelve months of planned and actual spend, with totals, averages and variances.
fn budget_workbook(department: &str) -> Vec<u8> {
    use ironcalc::base::Model;
    let mut model = Model::new_empty("Budget", "en", "UTC", "en").expect("the engine's own locale");
    let header = ["Month", "Planned", "Actual", "Variance"];
    for (c, h) in header.iter().enumerate() {
        model.set_user_input(0, 1, c as i32 + 1, (*h).to_owned()).expect("a cell");
    }
    let seed = department.len() as i32;
    for m in 1..=12 {
        let row = m + 1;
        let month = chrono::NaiveDate::from_ymd_opt(2026, m as u32, 1).expect("a month").format("%b").to_string();
        model.set_user_input(0, row, 1, month).expect("a cell");
        model.set_user_input(0, row, 2, (1000 + seed * 40 + m * 25).to_string()).expect("a cell");
        model.set_user_input(0, row, 3, (950 + seed * 45 + (m * 37) % 120).to_string()).expect("a cell");
        model.set_user_input(0, row, 4, format!("=C{row}-B{row}")).expect("a cell");
    }
    model.set_user_input(0, 14, 1, "Total".into()).expect("a cell");
    for (c, col) in [(2, 'B'), (3, 'C'), (4, 'D')] {
        model.set_user_input(0, 14, c, format!("=SUM({col}2:{col}13)")).expect("a cell");
        model.set_user_input(0, 15, c, format!("=ROUND(AVERAGE({col}2:{col}13), 1)")).expect("a cell");
    }
    model.set_user_input(0, 15, 1, "Average".into()).expect("a cell");
    model.evaluate();
    model.to_bytes()
}

/// Addresses of MaxMind's test database (what `make run` geolocates with), with the places it
/// gives them, so the demo sessions look like sign-ins from there.
const PLACES: [(&str, &str, &str, f64, f64); 7] = [
    ("81.2.69.142", "London", "GB", 51.5142, -0.0931),
    ("2.125.160.216", "Boxford", "GB", 51.75, -1.25),
    ("89.160.20.112", "Linköping", "SE", 58.4167, 15.6167),
    ("216.160.83.56", "Milton", "US", 47.2513, -122.3149),
    ("214.78.0.10", "San Diego", "US", 32.6783, -117.1291),
    ("81.2.69.143", "London", "GB", 51.5142, -0.0931),
    ("175.16.199.10", "Changchun", "CN", 43.88, 125.3228),
];

const USER_AGENTS: [&str; 5] = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
];

/// A service credential of the enterprise and a personal token of its CEO, one of them used an
/// hour ago: the API tokens and Integrations screens have something to show. Nobody holds their
/// secrets (made and dropped here); revoke them and make your own to try the API.
async fn seed_tokens(pool: &PgPool, demo: &DemoEnterprise, keys: &crate::sealed::KeyRing) -> anyhow::Result<()> {
    let ceo_email = Email::parse(&format!("ceo@{}", demo.domain)).expect("valid demo e-mail");
    let Some(ceo) = store::users::find_by_email(pool, &ceo_email).await? else { return Ok(()) };
    let Some(enterprise_id) = ceo.enterprise_id else { return Ok(()) };
    let (seen,): (bool,) =
        sqlx::query_as("select exists (select 1 from public.api_tokens where enterprise_id = $1)").bind(enterprise_id).fetch_one(pool).await?;
    if seen {
        return Ok(());
    }
    let tokens: [(Option<Uuid>, &str, &[&str]); 2] =
        [(None, "Payroll sync", &["reports:read", "users:read"]), (Some(ceo.id), "Board pack export", &["reports:read", "dashboards:read"])];
    for (user_id, name, scopes) in tokens {
        let (_, prefix, hash) = crate::auth::api_token::generate(user_id.is_none());
        let scopes: Vec<String> = scopes.iter().map(|s| (*s).to_owned()).collect();
        let token = store::api_tokens::NewToken {
            id: Uuid::now_v7(),
            user_id,
            enterprise_id: Some(enterprise_id),
            role: crate::domain::Role::EnterpriseCeo.as_str(),
            created_by: ceo.id,
            name,
            scopes: &scopes,
            prefix: &prefix,
            secret_hash: &hash,
            expires_at: Utc::now() + Duration::days(90),
        };
        let made = store::api_tokens::create(pool, token).await?.context("a demo token")?;
        if user_id.is_none() {
            sqlx::query("update public.api_tokens set last_used_at = now() - interval '1 hour' where id = $1").bind(made.id).execute(pool).await?;
        }
    }
    // A webhook of the enterprise's ERP, which hears approvals, rejections and new people. Its
    // host does not exist, so the first events the demo makes show failed deliveries and retries.
    let events: Vec<String> = ["report.approved", "report.rejected", "user.created"].iter().map(|e| (*e).to_owned()).collect();
    let url = format!("https://erp.{}/hooks/enterprise-platform", demo.domain);
    let secret = crate::webhooks::new_secret();
    let mut tx = pool.begin().await?;
    let hook = store::webhooks::NewWebhook {
        id: Uuid::now_v7(),
        owner: Some(enterprise_id),
        url: &url,
        events: &events,
        description: "ERP: approved reports and new staff",
        secret: &secret,
        created_by: ceo.id,
    };
    store::webhooks::create(&mut tx, keys, hook).await?;
    tx.commit().await?;
    Ok(())
}

/// Yesterday's ended session and one signed in now for everyone of a demo enterprise, from
/// MaxMind test addresses on three continents; one user's new session is flagged (a new
/// country, far too fast).
/// The sessions are not anyone's sign-in: nobody holds their tokens, and the sweep ends them as
/// expired after the idle timeout like any other.
async fn seed_sessions(pool: &PgPool, demo: &DemoEnterprise, index: usize) -> anyhow::Result<()> {
    let ceo_email = Email::parse(&format!("ceo@{}", demo.domain)).expect("valid demo e-mail");
    let Some(ceo) = store::users::find_by_email(pool, &ceo_email).await? else { return Ok(()) };
    let Some(enterprise_id) = ceo.enterprise_id else { return Ok(()) };
    let (seen,): (bool,) =
        sqlx::query_as("select exists (select 1 from public.sessions where enterprise_id = $1)").bind(enterprise_id).fetch_one(pool).await?;
    if seen {
        return Ok(());
    }
    let users: Vec<(Uuid,)> =
        sqlx::query_as("select id from public.users where enterprise_id = $1 and password_hash is not null order by created_at, email")
            .bind(enterprise_id)
            .fetch_all(pool)
            .await?;
    let now = Utc::now();
    for (n, (user_id,)) in users.iter().enumerate() {
        let home = PLACES[(n + index * 3) % 3 + index * 3];
        let flagged = n == 1;
        let away = if flagged { PLACES[6] } else { PLACES[(n + index) % 6] };
        let yesterday = now - Duration::hours(26 + n as i64);
        let previous = insert_session(pool, *user_id, enterprise_id, home, USER_AGENTS[n % 3], &[], "password").await?;
        store::sessions::end(pool, previous, "logout").await?;
        backdate(pool, previous, yesterday, yesterday + Duration::minutes(50), Some(yesterday + Duration::minutes(50))).await?;
        if flagged {
            // Yesterday at home, then (moments later, for the demo) on the other side of the world.
            let recent = insert_session(pool, *user_id, enterprise_id, home, USER_AGENTS[0], &[], "password").await?;
            store::sessions::end(pool, recent, "logout").await?;
            backdate(pool, recent, now - Duration::minutes(90), now - Duration::minutes(60), Some(now - Duration::minutes(60))).await?;
        }
        let flags: &[&str] = if flagged { &["new_country", "impossible_travel"] } else { &[] };
        // Some signed in with an authenticator app's code too (the monitoring shows how).
        let method = if n % 3 == 0 { "password_totp" } else { "password" };
        let place = if n % 2 == 0 { home } else { away };
        let current = insert_session(pool, *user_id, enterprise_id, place, USER_AGENTS[(n + 3) % USER_AGENTS.len()], flags, method).await?;
        let started = now - Duration::minutes(20 + 17 * n as i64);
        backdate(pool, current, started, now - Duration::minutes(n as i64 * 3), None).await?;
        // The map and the people lists say when each signed in last, as a real sign-in would.
        sqlx::query("update public.users set last_login_at = $2 where id = $1").bind(user_id).bind(started).execute(pool).await?;
    }
    println!("{}: {} demo sessions", demo.name, users.len() * 2 + 1);
    Ok(())
}

async fn insert_session(
    pool: &PgPool,
    user_id: Uuid,
    enterprise_id: Uuid,
    (ip, city, country, latitude, longitude): (&str, &str, &str, f64, f64),
    user_agent: &str,
    flags: &[&'static str],
    method: &'static str,
) -> sqlx::Result<Uuid> {
    let location = Location { city: Some(city.into()), country: Some(country.into()), latitude, longitude };
    let device = Device::from_user_agent(user_agent);
    store::sessions::insert(
        pool,
        NewSession {
            user_id,
            enterprise_id: Some(enterprise_id),
            ip: ip.parse().ok(),
            user_agent: Some(user_agent),
            device: &device,
            location: Some(&location),
            flags,
            remember_me: false,
            method,
            expires_at: Utc::now() + Duration::hours(10),
        },
        &crate::store::audit::Actor {
            kind: "user",
            id: Some(user_id),
            ip: ip.parse().ok(),
            place: Some(format!("{city}, {country}")),
            user_agent: Some(user_agent.to_owned()),
        },
        None,
    )
    .await
}

/// Demo sessions began in the past; real ones only ever move forward.
async fn backdate(
    pool: &PgPool,
    id: Uuid,
    created: chrono::DateTime<Utc>,
    last_seen: chrono::DateTime<Utc>,
    ended: Option<chrono::DateTime<Utc>>,
) -> sqlx::Result<()> {
    sqlx::query("update public.sessions set created_at = $2, last_seen_at = $3, ended_at = coalesce($4, ended_at) where id = $1")
        .bind(id)
        .bind(created)
        .bind(last_seen)
        .bind(ended)
        .execute(pool)
        .await?;
    Ok(())
}
