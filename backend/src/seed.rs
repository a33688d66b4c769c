//! `backend seed-demo`: two enterprises with people in their departments, so a fresh platform
//! has something to show. Idempotent: an enterprise whose CEO exists is left alone.

use anyhow::Context;
use sqlx::PgPool;

use crate::{
    auth::password,
    domain::{DepartmentType, Email, Password, Role},
    store::{self, enterprises::NewEnterprise},
    tenancy,
};

pub const DEMO_PASSWORD: &str = "demo-password";

struct DemoEnterprise {
    name: &'static str,
    description: &'static str,
    domain: &'static str,
    ceo: &'static str,
    staff: &'static [(&'static str, &'static str, Role, DepartmentType)],
}

const DEMO: [DemoEnterprise; 2] = [
    DemoEnterprise {
        name: "Acme Industries",
        description: "Manufacturing and distribution",
        domain: "acme.example",
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
        ceo: "Gabriel Roux",
        staff: &[
            ("Hugo Blanc", "hugo", Role::DepartmentHead, DepartmentType::InformationTechnology),
            ("Inès Garnier", "ines", Role::DepartmentUser, DepartmentType::InformationTechnology),
            ("Jade Faure", "jade", Role::DepartmentHead, DepartmentType::HumanResources),
        ],
    },
];

pub async fn seed_demo(pool: &PgPool) -> anyhow::Result<()> {
    let hash = password::hash(&Password::parse(DEMO_PASSWORD).expect("demo password meets the policy")).await?;
    for demo in &DEMO {
        let ceo_email = Email::parse(&format!("ceo@{}", demo.domain)).expect("valid demo e-mail");
        if store::users::find_by_email(pool, &ceo_email).await?.is_some() {
            println!("{}: already seeded", demo.name);
            continue;
        }
        let id = store::enterprises::create_with_tenant(
            pool,
            NewEnterprise { name: demo.name, description: demo.description, ceo_full_name: demo.ceo, ceo_email: &ceo_email },
            std::future::ready(Ok(hash.clone())),
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
                    password_hash: &hash,
                },
            )
            .await?;
            if *role == Role::DepartmentHead {
                store::departments::update(&mut tx, department.id, None, Some(Some(user_id))).await?;
            }
        }
        tx.commit().await?;
        println!("{}: CEO ceo@{} and {} staff, password {DEMO_PASSWORD}", demo.name, demo.domain, demo.staff.len());
    }
    Ok(())
}
