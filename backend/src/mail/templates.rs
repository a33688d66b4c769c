//! The e-mails' templates (minijinja, shipped inside the binary): for each kind and language a
//! plain-text template, whose first line is the subject, and an HTML one (escaped by minijinja).

use std::sync::LazyLock;

use anyhow::Context as _;
use minijinja::Environment;
use serde::Serialize;

use super::{Kind, PRODUCT};
use crate::domain::Lang;

macro_rules! templates {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/templates/email/", $name)))),*]
    };
}

const SOURCES: &[(&str, &str)] = templates![
    "layout.html",
    "button.html",
    "invitation.en.txt",
    "invitation.en.html",
    "invitation.fr.txt",
    "invitation.fr.html",
    "password_reset.en.txt",
    "password_reset.en.html",
    "password_reset.fr.txt",
    "password_reset.fr.html",
    "sign_in_alert.en.txt",
    "sign_in_alert.en.html",
    "sign_in_alert.fr.txt",
    "sign_in_alert.fr.html",
    "activity.en.txt",
    "activity.en.html",
    "activity.fr.txt",
    "activity.fr.html",
    "security_notice.en.txt",
    "security_notice.en.html",
    "security_notice.fr.txt",
    "security_notice.fr.html",
    "enterprise_deletion.en.txt",
    "enterprise_deletion.en.html",
    "enterprise_deletion.fr.txt",
    "enterprise_deletion.fr.html",
    "export_ready.en.txt",
    "export_ready.en.html",
    "export_ready.fr.txt",
    "export_ready.fr.html",
];

static ENVIRONMENT: LazyLock<Environment<'static>> = LazyLock::new(|| {
    let mut env = Environment::new();
    // Printing something the context lacks is a bug, not an empty string; `{% if notes %}` may
    // still ask whether an optional value is there.
    env.set_undefined_behavior(minijinja::UndefinedBehavior::SemiStrict);
    for (name, source) in SOURCES {
        env.add_template(name, source).expect("the e-mail templates parse");
    }
    env
});

/// A message ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// Renders `kind` in `lang` with `context` (the product's name and language are added).
pub fn render(kind: Kind, lang: Lang, context: impl Serialize) -> anyhow::Result<Rendered> {
    let ctx = minijinja::context! { product => PRODUCT, locale => lang.as_str(), ..minijinja::Value::from(minijinja::value::Serde(&context)) };
    let base = format!("{}.{}", kind.as_str(), lang.as_str());
    let text = ENVIRONMENT.get_template(&format!("{base}.txt"))?.render(&ctx).with_context(|| format!("rendering {base}.txt"))?;
    let (subject, body) = text.split_once('\n').unwrap_or((&text, ""));
    let subject = subject.trim().to_owned();
    let text = body.trim_start_matches('\n').to_owned();
    let ctx = minijinja::context! { subject => subject.clone(), ..ctx };
    let html = ENVIRONMENT.get_template(&format!("{base}.html"))?.render(&ctx).with_context(|| format!("rendering {base}.html"))?;
    Ok(Rendered { subject, text, html })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn every_template_parses() {
        assert!(ENVIRONMENT.templates().count() >= SOURCES.len());
    }

    #[test]
    fn an_invitation_reads_in_each_language_with_its_link_and_escapes_html() {
        let data = json!({ "name": "Zoé <b>", "inviter": "Alice Martin", "enterprise": "Acme & Co", "link": "https://app.example/accept-invitation?token=abc", "expires": "8 March 2026" });
        let en = render(Kind::Invitation, Lang::En, &data).unwrap();
        assert_eq!(en.subject, "Alice Martin invited you to Enterprise Platform");
        assert!(en.text.starts_with("Hello Zoé <b>,\n"), "{}", en.text);
        assert!(en.text.contains("join Acme & Co on Enterprise Platform"), "{}", en.text);
        assert!(en.text.contains("\nhttps://app.example/accept-invitation?token=abc\n"), "{}", en.text);
        assert!(en.html.contains("Hello Zoé &lt;b&gt;,"), "{}", en.html);
        assert!(en.html.contains("<strong>Acme &amp; Co</strong>"), "{}", en.html);
        // In attributes minijinja also escapes `/` (as `&#x2f;`), which browsers read back as `/`.
        assert!(en.html.contains(r#"href="https:&#x2f;&#x2f;app.example&#x2f;accept-invitation?token=abc""#), "{}", en.html);
        let fr = render(Kind::Invitation, Lang::Fr, &data).unwrap();
        assert_eq!(fr.subject, "Alice Martin vous invite sur Enterprise Platform");
        assert!(fr.text.contains("Choisissez votre mot de passe pour vous connecter :"), "{}", fr.text);
        assert!(fr.html.contains(r#"<html lang="fr">"#));
    }

    #[test]
    fn one_activity_is_its_own_subject_and_several_are_a_digest() {
        let one = json!({ "name": "Claire", "items": [{ "kind": "report_rejected", "actor": "Claire Dubois", "title": "Q1", "notes": "Add March", "link": "http://x/r/1" }] });
        let r = render(Kind::Activity, Lang::En, &one).unwrap();
        assert_eq!(r.subject, r#"Claire Dubois rejected your report "Q1""#);
        assert!(r.text.contains("Notes: Add March"), "{}", r.text);
        let items: Vec<_> = (1..=3).map(|i| json!({ "kind": "report_submitted", "actor": "Bruno", "title": format!("R{i}"), "department": "Finance", "link": format!("http://x/r/{i}") })).collect();
        let r = render(Kind::Activity, Lang::Fr, json!({ "name": "Alice", "items": items })).unwrap();
        assert_eq!(r.subject, "3 nouveautés sur Enterprise Platform");
        assert_eq!(r.text.matches("- Bruno a soumis le rapport « R").count(), 3, "{}", r.text);
    }

    #[test]
    fn a_security_notice_says_what_changed_and_who_reset_it_in_each_language() {
        let at =
            |change: &str| json!({ "name": "Ann", "change": change, "actor": "Cleo <b>CEO</b>", "when": "27 November 2026", "link": "http://x/p" });
        let on = render(Kind::SecurityNotice, Lang::En, at("totp_enabled")).unwrap();
        assert_eq!(on.subject, "Two-step sign-in is on for your Enterprise Platform account");
        assert!(on.text.contains("an authenticator app was set up"), "{}", on.text);
        let off = render(Kind::SecurityNotice, Lang::Fr, at("totp_disabled")).unwrap();
        assert_eq!(off.subject, "La connexion en deux étapes a été désactivée sur votre compte Enterprise Platform");
        let reset = render(Kind::SecurityNotice, Lang::En, at("mfa_reset")).unwrap();
        assert_eq!(reset.subject, "Your Enterprise Platform two-step sign-in was reset");
        assert!(reset.text.contains("Cleo <b>CEO</b> reset the two-step sign-in"), "{}", reset.text);
        assert!(reset.html.contains("Cleo &lt;b&gt;CEO&lt;&#x2f;b&gt; reset"), "{}", reset.html);
        let codes = render(Kind::SecurityNotice, Lang::Fr, at("recovery_codes_regenerated")).unwrap();
        assert_eq!(codes.subject, "Nouveaux codes de secours pour votre compte Enterprise Platform");
    }

    #[test]
    fn a_password_reset_notice_lists_the_api_tokens_that_still_act_in_each_language() {
        let tokens = json!([
            { "name": "CI <deploy>", "prefix": "ep_ab12", "made": "1 November 2026", "used": "27 November 2026" },
            { "name": "Backup", "prefix": "ep_cd34", "made": "2 November 2026", "used": null },
        ]);
        let at = |tokens: Value| json!({ "name": "Ann", "change": "password_reset", "when": "28 November 2026", "link": "http://x/p", "tokens": tokens, "tokens_link": "http://x/settings/api-tokens" });
        let en = render(Kind::SecurityNotice, Lang::En, at(tokens.clone())).unwrap();
        assert_eq!(en.subject, "The password of your Enterprise Platform account was reset");
        assert!(en.text.contains("revoke any you do not know (http://x/settings/api-tokens)"), "{}", en.text);
        assert!(en.text.contains("- CI <deploy> (ep_ab12…), made 1 November 2026, last used 27 November 2026"), "{}", en.text);
        assert!(en.text.contains("- Backup (ep_cd34…), made 2 November 2026, never used"), "{}", en.text);
        assert!(en.html.contains("<strong>CI &lt;deploy&gt;</strong> (ep_ab12…)"), "{}", en.html);
        assert!(en.text.contains("someone can read your e-mail"), "{}", en.text);
        let fr = render(Kind::SecurityNotice, Lang::Fr, at(tokens)).unwrap();
        assert_eq!(fr.subject, "Le mot de passe de votre compte Enterprise Platform a été réinitialisé");
        assert!(fr.text.contains("- Backup (ep_cd34…), créé le 2 November 2026, jamais utilisé"), "{}", fr.text);
        let none = render(Kind::SecurityNotice, Lang::En, at(json!([]))).unwrap();
        assert!(none.text.contains("No API token acts for you."), "{}", none.text);
    }

    #[test]
    fn a_security_notice_names_the_passkey_added_or_removed_in_each_language() {
        let at =
            |change: &str| json!({ "name": "Ann", "change": change, "passkey": "Work <laptop>", "when": "27 November 2026", "link": "http://x/p" });
        let added = render(Kind::SecurityNotice, Lang::En, at("passkey_added")).unwrap();
        assert_eq!(added.subject, "A passkey was added to your Enterprise Platform account");
        assert!(added.text.contains("the passkey \"Work <laptop>\" was added"), "{}", added.text);
        assert!(added.html.contains("<strong>Work &lt;laptop&gt;</strong> was added"), "{}", added.html);
        let removed = render(Kind::SecurityNotice, Lang::Fr, at("passkey_removed")).unwrap();
        assert_eq!(removed.subject, "Une clé d'accès a été retirée de votre compte Enterprise Platform");
        assert!(removed.text.contains("la clé d'accès « Work <laptop> » a été retirée"), "{}", removed.text);
    }

    #[test]
    fn an_enterprise_deletion_notice_says_each_step_and_the_purge_date_in_each_language() {
        let at = |step: &str| json!({ "name": "Ann", "step": step, "enterprise": "Acme <Ltd>", "purge_after": "31 December 2026" });
        let scheduled = render(Kind::EnterpriseDeletion, Lang::En, at("scheduled")).unwrap();
        assert_eq!(scheduled.subject, "Acme <Ltd> is scheduled for deletion on Enterprise Platform");
        assert!(scheduled.text.contains("erased for good on 31 December 2026"), "{}", scheduled.text);
        assert!(scheduled.html.contains("<strong>Acme &lt;Ltd&gt;</strong>"), "{}", scheduled.html);
        let restored = render(Kind::EnterpriseDeletion, Lang::Fr, at("restored")).unwrap();
        assert_eq!(restored.subject, "Acme <Ltd> a été restaurée sur Enterprise Platform");
        assert!(restored.text.contains("La suppression de Acme <Ltd> a été annulée"), "{}", restored.text);
        let purged = render(Kind::EnterpriseDeletion, Lang::Fr, at("purged")).unwrap();
        assert_eq!(purged.subject, "Acme <Ltd> a été supprimée de Enterprise Platform");
        assert!(purged.text.contains("ne peut pas être restaurée"), "{}", purged.text);
    }
}
