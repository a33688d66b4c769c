//! What the server tells a SCIM client about itself (RFC 7644 section 4, RFC 7643 sections 5-7):
//! its configuration, its resource types and the schemas of everything it serves, the User's and
//! the three that describe discovery itself.

use serde_json::{Value, json};

use super::{MAX_COUNT, PREFIX, USER, user};
use crate::state::AppState;

const SCHEMA: &str = "urn:ietf:params:scim:schemas:core:2.0:Schema";
const RESOURCE_TYPE: &str = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const SERVICE_PROVIDER_CONFIG: &str = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";

fn location(state: &AppState, path: &str) -> String {
    format!("{}{PREFIX}{path}", state.config.mail.public_url)
}

pub fn service_provider_config(state: &AppState) -> Value {
    json!({
        "schemas": [SERVICE_PROVIDER_CONFIG],
        "documentationUri": format!("{}/api/docs", state.config.mail.public_url),
        "patch": { "supported": true },
        "bulk": { "supported": false, "maxOperations": 0, "maxPayloadSize": 0 },
        "filter": { "supported": true, "maxResults": MAX_COUNT },
        "changePassword": { "supported": true },
        "sort": { "supported": false },
        "etag": { "supported": false },
        "authenticationSchemes": [{
            "type": "oauthbearertoken",
            "name": "Service credential",
            "description": "A service credential (eps_…) with the scim:write scope, made by the enterprise's CEO",
            "primary": true,
        }],
        "meta": { "resourceType": "ServiceProviderConfig", "location": location(state, "/ServiceProviderConfig") },
    })
}

/// The resource types, by id.
pub fn resource_types(state: &AppState) -> Vec<Value> {
    vec![json!({
        "schemas": [RESOURCE_TYPE],
        "id": "User",
        "name": "User",
        "endpoint": "/Users",
        "description": "A department member of the enterprise",
        "schema": USER,
        "meta": { "resourceType": "ResourceType", "location": location(state, "/ResourceTypes/User") },
    })]
}

/// A read-only attribute of discovery's schemas.
const fn read_only(name: &'static str, kind: &'static str, required: bool, description: &'static str) -> user::Attribute {
    user::Attribute { kind, required, mutability: "readOnly", ..user::string(name, description) }
}

const fn complex(name: &'static str, required: bool, description: &'static str, sub_attributes: &'static [user::Attribute]) -> user::Attribute {
    user::Attribute { sub_attributes, ..read_only(name, "complex", required, description) }
}

/// Every schema served, by id.
pub fn schemas(state: &AppState) -> Vec<Value> {
    let schema = |id: &str, name: &str, description: &str, attributes: Vec<user::Attribute>| {
        json!({
            "schemas": [SCHEMA], "id": id, "name": name, "description": description,
            "attributes": attributes.iter().map(user::describe).collect::<Vec<_>>(),
            "meta": { "resourceType": "Schema", "location": location(state, &format!("/Schemas/{id}")) },
        })
    };
    const SUPPORTED: &[user::Attribute] = &[read_only("supported", "boolean", true, "Whether the operation is supported")];
    const BULK: &[user::Attribute] = &[
        read_only("supported", "boolean", true, "Whether bulk operations are supported"),
        read_only("maxOperations", "integer", true, "The most operations in one bulk request"),
        read_only("maxPayloadSize", "integer", true, "The largest bulk payload, in bytes"),
    ];
    const FILTER: &[user::Attribute] = &[
        read_only("supported", "boolean", true, "Whether filters are supported"),
        read_only("maxResults", "integer", true, "The most resources one answer holds"),
    ];
    const SCHEMES: &[user::Attribute] = &[
        read_only("type", "string", true, "The scheme's type (oauthbearertoken)"),
        read_only("name", "string", true, "The scheme's name"),
        read_only("description", "string", true, "What the scheme is"),
        read_only("specUri", "reference", false, "The scheme's specification"),
        read_only("documentationUri", "reference", false, "The scheme's documentation"),
        read_only("primary", "boolean", false, "The preferred scheme"),
    ];
    const EXTENSIONS: &[user::Attribute] = &[
        read_only("schema", "reference", true, "The extension's schema URI"),
        read_only("required", "boolean", true, "Whether a resource must carry the extension"),
    ];
    const ATTRIBUTE_PARTS: &[user::Attribute] = &[
        read_only("name", "string", true, "The attribute's name"),
        read_only("type", "string", true, "Its data type"),
        read_only("multiValued", "boolean", true, "Whether it holds several values"),
        read_only("description", "string", false, "What it is"),
        read_only("required", "boolean", false, "Whether it must be given"),
        user::Attribute { multi_valued: true, ..read_only("canonicalValues", "string", false, "Its suggested values") },
        read_only("caseExact", "boolean", false, "Whether its text is compared with case"),
        read_only("mutability", "string", false, "readOnly, readWrite, immutable or writeOnly"),
        read_only("returned", "string", false, "always, never, default or request"),
        read_only("uniqueness", "string", false, "none, server or global"),
        user::Attribute { multi_valued: true, ..read_only("referenceTypes", "string", false, "What a reference may point to") },
        user::Attribute { multi_valued: true, ..read_only("subAttributes", "complex", false, "Its sub-attributes, described as attributes are") },
    ];
    vec![
        user::schema(state),
        schema(
            SERVICE_PROVIDER_CONFIG,
            "Service Provider Configuration",
            "What the service provider supports",
            vec![
                read_only("documentationUri", "reference", false, "The service provider's documentation"),
                complex("patch", true, "PATCH's configuration", SUPPORTED),
                complex("bulk", true, "Bulk operations' configuration", BULK),
                complex("filter", true, "Filters' configuration", FILTER),
                complex("changePassword", true, "Password changes' configuration", SUPPORTED),
                complex("sort", true, "Sorting's configuration", SUPPORTED),
                complex("etag", true, "ETags' configuration", SUPPORTED),
                user::Attribute { multi_valued: true, ..complex("authenticationSchemes", true, "The authentication schemes supported", SCHEMES) },
            ],
        ),
        schema(
            RESOURCE_TYPE,
            "ResourceType",
            "A type of resource the service provider serves",
            vec![
                read_only("id", "string", false, "The resource type's id"),
                read_only("name", "string", true, "Its name"),
                read_only("description", "string", false, "What it is"),
                read_only("endpoint", "reference", true, "Its endpoint, relative to the base URL"),
                read_only("schema", "reference", true, "Its core schema's URI"),
                user::Attribute { multi_valued: true, ..complex("schemaExtensions", false, "Its schema extensions", EXTENSIONS) },
            ],
        ),
        schema(
            SCHEMA,
            "Schema",
            "A schema: the attributes of a resource",
            vec![
                read_only("id", "string", true, "The schema's URI"),
                read_only("name", "string", false, "Its name"),
                read_only("description", "string", false, "What it describes"),
                user::Attribute { multi_valued: true, ..complex("attributes", true, "Its attributes", ATTRIBUTE_PARTS) },
            ],
        ),
    ]
}
