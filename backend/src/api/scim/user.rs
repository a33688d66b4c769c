//! The User resource (RFC 7643 section 4.1) as this server keeps it: one table of attributes
//! (`ATTRIBUTES`) serves the published schema, the names a PATCH may target and the checks on
//! what a directory sends.
//!
//! The account holds `userName` (the e-mail address that signs the person in), `active`,
//! `externalId`, the password and the platform's name and language. What the platform keeps no
//! column for (`displayName`, `name` and its parts, `emails`, `preferredLanguage`) is kept as the
//! directory last set it (`users.scim_attributes`), beside the platform's name and language at
//! that moment: a rename or a language change in the app outdates it, and the resource shows the
//! app's values again. A person the directory never touched is shown from their account.

use serde_json::{Map, Value, json};

use super::{PREFIX, USER, bad};
use crate::{
    domain::{Email, Lang, UserStatus, text},
    error::AppError,
    state::AppState,
    store::users::UserRecord,
};

/// One attribute of the schema (RFC 7643 section 7).
pub struct Attribute {
    pub name: &'static str,
    pub kind: &'static str,
    pub multi_valued: bool,
    pub required: bool,
    pub mutability: &'static str,
    pub returned: &'static str,
    pub uniqueness: &'static str,
    pub case_exact: bool,
    pub canonical: &'static [&'static str],
    pub description: &'static str,
    pub sub_attributes: &'static [Attribute],
}

/// A read-write, single-valued text attribute: the common case, which others adjust.
pub const fn string(name: &'static str, description: &'static str) -> Attribute {
    Attribute {
        name,
        kind: "string",
        multi_valued: false,
        required: false,
        mutability: "readWrite",
        returned: "default",
        uniqueness: "none",
        case_exact: false,
        canonical: &[],
        description,
        sub_attributes: &[],
    }
}

/// The User's attributes, beside the common ones (`id`, `externalId`, `meta`).
pub const ATTRIBUTES: &[Attribute] = &[
    Attribute {
        required: true,
        uniqueness: "server",
        ..string("userName", "The person's e-mail address, which signs them in (this server requires an e-mail address)")
    },
    Attribute {
        kind: "complex",
        sub_attributes: &[
            string("formatted", "The full name"),
            string("familyName", "The family name"),
            string("givenName", "The given name"),
            string("middleName", "The middle name"),
            string("honorificPrefix", "A title before the name"),
            string("honorificSuffix", "A suffix after the name"),
        ],
        ..string("name", "The person's name, in its parts")
    },
    string("displayName", "The name the app shows (else name.formatted, else the given and family names)"),
    Attribute {
        kind: "complex",
        multi_valued: true,
        sub_attributes: &[
            string("value", "An e-mail address"),
            Attribute { canonical: &["work", "home", "other"], ..string("type", "What the address is for") },
            Attribute { kind: "boolean", ..string("primary", "The preferred address (at most one)") },
        ],
        ..string("emails", "The person's addresses, as the directory keeps them (userName is the one that signs them in)")
    },
    Attribute {
        kind: "boolean",
        required: true,
        ..string("active", "False: deactivated, their sessions and tokens ended at once (absent on creation: true)")
    },
    Attribute { canonical: &["en", "fr"], ..string("preferredLanguage", "en or fr, optionally with a region (fr-CA): their e-mails and the app") },
    Attribute { mutability: "writeOnly", returned: "never", ..string("password", "Without one, the person is invited by e-mail to choose one") },
];

/// The declared attribute named `name` (without regard to case), with `externalId`.
pub fn attribute(name: &str) -> Option<&'static Attribute> {
    const EXTERNAL_ID: Attribute = Attribute { case_exact: true, ..string("externalId", "The id the directory knows the person by") };
    ATTRIBUTES.iter().chain([&EXTERNAL_ID]).find(|a| a.name.eq_ignore_ascii_case(name))
}

/// The attributes kept as the directory set them.
const KEPT: [&str; 4] = ["displayName", "name", "emails", "preferredLanguage"];
/// The longest list of e-mails kept, and the longest `type`.
const MAX_EMAILS: usize = 10;
const MAX_TYPE: usize = 40;

/// The person as a SCIM User resource; `kept` is what the directory last set
/// (`users.scim_attributes`).
pub fn resource(state: &AppState, user: &UserRecord, kept: Option<&Value>) -> Value {
    let mut resource = json!({
        "schemas": [USER],
        "id": user.id,
        "userName": user.email,
        "active": user.status() == UserStatus::Active,
        "meta": {
            "resourceType": "User",
            "created": user.created_at,
            "lastModified": user.updated_at,
            "location": format!("{}{PREFIX}/Users/{}", state.config.mail.public_url, user.id),
        },
    });
    let object = resource.as_object_mut().expect("an object");
    if let Some(external_id) = &user.scim_external_id {
        object.insert("externalId".into(), json!(external_id));
    }
    let seen = |key: &str, now: &str| kept.and_then(|k| k["seen"][key].as_str()) == Some(now);
    if seen("fullName", &user.full_name) {
        copy(object, kept, &["displayName", "name"]);
    } else {
        let (given, family) = user.full_name.split_once(' ').unwrap_or((user.full_name.as_str(), ""));
        object.insert("displayName".into(), json!(user.full_name));
        let mut name = json!({ "formatted": user.full_name, "givenName": given });
        if !family.is_empty() {
            name["familyName"] = json!(family);
        }
        object.insert("name".into(), name);
    }
    match kept {
        Some(_) => copy(object, kept, &["emails"]),
        None => {
            object.insert("emails".into(), json!([{ "value": user.email, "type": "work", "primary": true }]));
        }
    }
    if seen("locale", &user.locale) {
        copy(object, kept, &["preferredLanguage"]);
    } else {
        object.insert("preferredLanguage".into(), json!(user.locale));
    }
    resource
}

fn copy(object: &mut Map<String, Value>, kept: Option<&Value>, keys: &[&str]) {
    for key in keys {
        if let Some(value) = kept.and_then(|k| k.get(*key)).filter(|v| !v.is_null()) {
            object.insert((*key).into(), value.clone());
        }
    }
}

/// What a User body asks of the account.
pub struct Wanted {
    pub email: String,
    /// The platform's name for the person, when the body gives one (`displayName`, else
    /// `name.formatted`, else the given and family names).
    pub full_name: Option<String>,
    pub active: bool,
    pub external_id: Option<String>,
    pub password: Option<String>,
    pub locale: Option<Lang>,
    /// The attributes kept as sent (`KEPT`), checked and with their names as declared.
    pub kept: Map<String, Value>,
}

/// A boolean, or the text Entra ID sends for one (`"True"`, `"False"`).
pub fn boolean(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    }
}

/// The value of `key` in an object, without regard to the case of its name; null is absent.
fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v).filter(|v| !v.is_null())
}

/// One line of text of at most 200 characters, else `invalidValue` naming `what`.
fn one_line(value: &Value, what: &str) -> Result<String, AppError> {
    value
        .as_str()
        .and_then(|s| text::line(s, text::MAX_NAME).ok())
        .map(str::to_owned)
        .ok_or_else(|| bad("invalidValue", &format!("{what} must be one line of at most 200 characters, without control characters")))
}

/// The language of a `preferredLanguage` (or Okta's `locale`): `en` or `fr`, with or without a
/// region.
fn language(tag: &str) -> Option<Lang> {
    let primary = tag.split(['-', '_']).next().unwrap_or_default().to_ascii_lowercase();
    let well_formed = tag.len() <= 35 && tag.split(['-', '_']).all(|p| !p.is_empty() && p.len() <= 8 && p.chars().all(|c| c.is_ascii_alphanumeric()));
    match primary.as_str() {
        "en" if well_formed => Some(Lang::En),
        "fr" if well_formed => Some(Lang::Fr),
        _ => None,
    }
}

/// Reads a User body (POST, PUT, or the resource a PATCH produced). Attribute names are matched
/// without regard to case, as RFC 7643 says; attributes this server does not declare are
/// ignored.
pub fn wanted(body: &Value) -> Result<Wanted, AppError> {
    let Some(object) = body.as_object() else { return Err(bad("invalidSyntax", "The body is not a SCIM User")) };
    let email = field(object, "userName")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| bad("invalidValue", "userName is required"))?;
    let email = Email::parse(email).map_err(|_| bad("invalidValue", "userName must be an e-mail address: it signs the person in"))?;
    let mut kept = Map::new();
    if let Some(display_name) = field(object, "displayName") {
        kept.insert("displayName".into(), json!(one_line(display_name, "displayName")?));
    }
    if let Some(name) = field(object, "name") {
        let name = name.as_object().ok_or_else(|| bad("invalidValue", "name must be an object of its parts"))?;
        let parts = attribute("name").map_or(&[][..], |a| a.sub_attributes);
        let mut kept_name = Map::new();
        for part in parts {
            if let Some(value) = field(name, part.name) {
                kept_name.insert(part.name.into(), json!(one_line(value, &format!("name.{}", part.name))?));
            }
        }
        if !kept_name.is_empty() {
            kept.insert("name".into(), Value::Object(kept_name));
        }
    }
    if let Some(emails) = field(object, "emails") {
        let emails = emails.as_array().ok_or_else(|| bad("invalidValue", "emails must be a list"))?;
        if emails.len() > MAX_EMAILS {
            return Err(bad("invalidValue", "emails holds at most 10 addresses"));
        }
        let mut kept_emails = Vec::new();
        for email in emails {
            let email = email.as_object().ok_or_else(|| bad("invalidValue", "Each of emails is an object with a value"))?;
            let value = field(email, "value").and_then(Value::as_str).ok_or_else(|| bad("invalidValue", "Each of emails needs a value"))?;
            let value = Email::parse(value.trim()).map_err(|_| bad("invalidValue", "Each of emails must be an e-mail address"))?;
            let mut kept_email = Map::new();
            kept_email.insert("value".into(), json!(value.as_str()));
            if let Some(kind) = field(email, "type") {
                let kind = kind
                    .as_str()
                    .and_then(|k| text::line(k, MAX_TYPE).ok())
                    .ok_or_else(|| bad("invalidValue", "An e-mail's type is a word (work, home, other)"))?;
                kept_email.insert("type".into(), json!(kind));
            }
            if let Some(primary) = field(email, "primary") {
                kept_email
                    .insert("primary".into(), json!(boolean(primary).ok_or_else(|| bad("invalidValue", "An e-mail's primary is true or false"))?));
            }
            kept_emails.push(Value::Object(kept_email));
        }
        if kept_emails.iter().filter(|e| e["primary"] == json!(true)).count() > 1 {
            return Err(bad("invalidValue", "At most one of emails is primary"));
        }
        if !kept_emails.is_empty() {
            kept.insert("emails".into(), Value::Array(kept_emails));
        }
    }
    let mut locale = None;
    if let Some(tag) = field(object, "preferredLanguage") {
        let tag = tag.as_str().map(str::trim).unwrap_or_default();
        locale = Some(language(tag).ok_or_else(|| bad("invalidValue", "preferredLanguage must be en or fr, optionally with a region (fr-CA)"))?);
        kept.insert("preferredLanguage".into(), json!(tag));
    } else if let Some(lang) = field(object, "locale").and_then(Value::as_str).and_then(language) {
        // Okta sends the language as `locale` (fr-FR): it sets the person's language.
        locale = Some(lang);
        kept.insert("preferredLanguage".into(), json!(lang.as_str()));
    }
    let full_name =
        kept.get("displayName").or(kept.get("name").and_then(|n| n.get("formatted"))).and_then(Value::as_str).map(str::to_owned).or_else(|| {
            let name = kept.get("name")?;
            let parts = [name.get("givenName"), name.get("familyName")].into_iter().flatten().filter_map(Value::as_str).collect::<Vec<_>>();
            (!parts.is_empty()).then(|| parts.join(" ")).and_then(|joined| text::line(&joined, text::MAX_NAME).ok().map(str::to_owned))
        });
    let active = match field(object, "active") {
        None => true,
        Some(value) => boolean(value).ok_or_else(|| bad("invalidValue", "active must be true or false"))?,
    };
    let external_id = match field(object, "externalId") {
        None => None,
        Some(value) => Some(
            value
                .as_str()
                .map(str::trim)
                .filter(|s| !s.is_empty() && s.len() <= 255)
                .ok_or_else(|| bad("invalidValue", "externalId is text of at most 255 characters"))?
                .to_owned(),
        ),
    };
    let password = field(object, "password").and_then(Value::as_str).map(str::to_owned);
    Ok(Wanted { email: email.as_str().to_owned(), full_name, active, external_id, password, locale, kept })
}

/// What is kept for the person after a change: the attributes as sent, and the platform's name
/// and language they were set beside.
pub fn kept_after(wanted: &Wanted, user: &UserRecord) -> Value {
    let mut kept = wanted.kept.clone();
    kept.retain(|k, _| KEPT.contains(&k.as_str()));
    kept.insert("seen".into(), json!({ "fullName": user.full_name, "locale": user.locale }));
    Value::Object(kept)
}

/// The User schema as served (RFC 7643 section 7).
pub fn schema(state: &AppState) -> Value {
    json!({
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
        "id": USER,
        "name": "User",
        "description": "A department member of the enterprise",
        "attributes": ATTRIBUTES.iter().chain(attribute("externalId")).map(describe).collect::<Vec<_>>(),
        "meta": { "resourceType": "Schema", "location": format!("{}{PREFIX}/Schemas/{USER}", state.config.mail.public_url) },
    })
}

/// An attribute's definition, as a schema lists it.
pub fn describe(attribute: &Attribute) -> Value {
    let mut described = json!({
        "name": attribute.name, "type": attribute.kind, "multiValued": attribute.multi_valued, "description": attribute.description,
        "required": attribute.required, "caseExact": attribute.case_exact, "mutability": attribute.mutability,
        "returned": attribute.returned, "uniqueness": attribute.uniqueness,
    });
    if attribute.kind == "reference" {
        // A documentation's address is outside; a schema or an endpoint is a URI.
        described["referenceTypes"] = json!([if attribute.name.ends_with("Uri") { "external" } else { "uri" }]);
    }
    if !attribute.canonical.is_empty() {
        described["canonicalValues"] = json!(attribute.canonical);
    }
    if !attribute.sub_attributes.is_empty() {
        described["subAttributes"] = json!(attribute.sub_attributes.iter().map(describe).collect::<Vec<_>>());
    }
    described
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_is_english_or_french_with_or_without_a_region_and_nothing_else() {
        for (tag, lang) in [("en", Some(Lang::En)), ("fr-CA", Some(Lang::Fr)), ("FR_fr", Some(Lang::Fr)), ("en-US", Some(Lang::En))] {
            assert_eq!(language(tag), lang, "{tag}");
        }
        for refused in ["de", "", "english", "fr-", "3f2a1b9c-4d5e-6f70-8192-a3b4c5d6e7f8", "en-abcdefghi"] {
            assert_eq!(language(refused), None, "{refused}");
        }
    }

    #[test]
    fn a_body_keeps_the_attributes_as_sent_and_names_the_person_from_the_first_name_it_gives() {
        let body = json!({
            "USERNAME": "ann@example.com", "name": { "givenname": "Ann", "familyName": "Lee", "nickName": "ignored" },
            "emails": [{ "value": "a@home.example", "type": "home", "primary": "True" }], "preferredLanguage": "fr-CA",
        });
        let wanted = wanted(&body).unwrap();
        assert_eq!(wanted.email, "ann@example.com");
        assert_eq!(wanted.full_name.as_deref(), Some("Ann Lee"));
        assert_eq!(wanted.locale, Some(Lang::Fr));
        assert_eq!(
            Value::Object(wanted.kept),
            json!({ "name": { "givenName": "Ann", "familyName": "Lee" }, "emails": [{ "value": "a@home.example", "type": "home", "primary": true }], "preferredLanguage": "fr-CA" })
        );
        let named = wanted_name(json!({ "userName": "b@example.com", "displayName": "Bo", "name": { "formatted": "Robert Chen" } }));
        assert_eq!(named.as_deref(), Some("Bo"));
        assert_eq!(
            wanted_name(json!({ "userName": "b@example.com", "name": { "formatted": "Robert Chen", "givenName": "R" } })).as_deref(),
            Some("Robert Chen")
        );
        assert_eq!(wanted_name(json!({ "userName": "b@example.com" })), None);
    }

    fn wanted_name(body: Value) -> Option<String> {
        wanted(&body).unwrap().full_name
    }

    #[test]
    fn a_body_that_breaks_a_declared_rule_is_an_invalid_value() {
        for body in [
            json!({ "userName": "not an address" }),
            json!({ "userName": "a@example.com", "preferredLanguage": "de" }),
            json!({ "userName": "a@example.com", "displayName": "Line\nbreak" }),
            json!({ "userName": "a@example.com", "emails": [{ "value": "x@example.com", "primary": true }, { "value": "y@example.com", "primary": true }] }),
            json!({ "userName": "a@example.com", "emails": [{ "value": "nowhere" }] }),
            json!({ "userName": "a@example.com", "active": "maybe" }),
            json!({ "userName": "a@example.com", "name": "Ann" }),
        ] {
            assert!(wanted(&body).is_err(), "{body}");
        }
    }
}
