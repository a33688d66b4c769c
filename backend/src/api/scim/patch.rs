//! RFC 7644 section 3.5.2's PATCH, applied to a resource as JSON: `add`, `replace` and `remove`,
//! with a `path` or without one (a value object, whose keys may themselves be paths, as Entra ID
//! sends `name.givenName`), a path naming a sub-attribute (`name.givenName`) or elements of a
//! multi-valued attribute by a filter (`emails[type eq "work"].value`). Paths and filters are
//! parsed by the `scim_v2` crate; attribute names are matched without regard to case and must be
//! the resource's declared ones (`user::attribute`). What the patched resource then says is
//! checked as a whole body is (`user::wanted`).

use scim_v2::{
    filter::{AttrExp, AttrPath, CompValue, CompareOp, PatchPath, ValFilter},
    models::others::{OperationTarget, PatchOp, PatchOperation},
};
use serde_json::{Map, Value, json};

use super::{USER, bad, user};
use crate::error::AppError;

/// The most operations one PATCH may carry.
pub const MAX_OPERATIONS: usize = 100;

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Add,
    Replace,
}

/// Applies a PATCH's operations, in order, to the resource.
pub fn apply(resource: &mut Map<String, Value>, patch: PatchOp) -> Result<(), AppError> {
    if patch.operations.len() > MAX_OPERATIONS {
        return Err(bad("invalidValue", "A PATCH carries at most 100 operations"));
    }
    for operation in patch.operations {
        match operation {
            PatchOperation::Add(target) => set(resource, Op::Add, target)?,
            PatchOperation::Replace(target) => set(resource, Op::Replace, target)?,
            PatchOperation::Remove { path, .. } => remove(resource, &path)?,
        }
    }
    Ok(())
}

fn set(resource: &mut Map<String, Value>, op: Op, target: OperationTarget) -> Result<(), AppError> {
    match target {
        OperationTarget::WithPath { path, value } => at_path(resource, op, &path, value),
        OperationTarget::WithoutPath { value } => {
            for (key, value) in value {
                // A key of the value object is an attribute, or a path (`name.givenName`, or
                // with the schema's URN before it).
                let path: PatchPath = key.parse().map_err(|_| bad("invalidPath", &format!("{key} is not an attribute of this resource")))?;
                at_path(resource, op, &path, value)?;
            }
            Ok(())
        }
    }
}

/// The declared attribute an attribute path names (`invalidPath` otherwise), and its
/// sub-attribute if it names one. A read-only attribute is `mutability`.
fn declared(path: &AttrPath) -> Result<(&'static user::Attribute, Option<&'static user::Attribute>), AppError> {
    if path.uri.as_deref().is_some_and(|uri| !uri.eq_ignore_ascii_case(USER)) {
        return Err(bad("invalidPath", &format!("{} is not a schema of this resource", path.uri.as_deref().unwrap_or_default())));
    }
    if ["id", "meta", "schemas", "groups"].iter().any(|k| k.eq_ignore_ascii_case(&path.name)) {
        return Err(bad("mutability", &format!("{} is read-only", path.name)));
    }
    let attribute = user::attribute(&path.name).ok_or_else(|| bad("invalidPath", &format!("{} is not an attribute of this resource", path.name)))?;
    let sub = path.sub_attr.as_deref().map(|sub| sub_attribute(attribute, sub)).transpose()?;
    Ok((attribute, sub))
}

/// The declared sub-attribute `name` of `attribute` (`invalidPath` otherwise).
fn sub_attribute(attribute: &'static user::Attribute, name: &str) -> Result<&'static user::Attribute, AppError> {
    attribute
        .sub_attributes
        .iter()
        .find(|a| a.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| bad("invalidPath", &format!("{}.{name} is not an attribute of this resource", attribute.name)))
}

/// The key of `object` that names `name` without regard to case (else `name`).
fn key_of(object: &Map<String, Value>, name: &str) -> String {
    object.keys().find(|k| k.eq_ignore_ascii_case(name)).cloned().unwrap_or_else(|| name.to_owned())
}

fn at_path(resource: &mut Map<String, Value>, op: Op, path: &PatchPath, value: Value) -> Result<(), AppError> {
    match path {
        PatchPath::Attr(attr_path) => {
            let (attribute, sub) = declared(attr_path)?;
            let key = key_of(resource, attribute.name);
            match sub {
                // `name.givenName`: the parent is made when it is not there.
                Some(sub) if !attribute.multi_valued => {
                    let parent = resource.entry(key).or_insert_with(|| json!({}));
                    if !parent.is_object() {
                        *parent = json!({});
                    }
                    let parent = parent.as_object_mut().expect("an object");
                    let sub_key = key_of(parent, sub.name);
                    parent.insert(sub_key, value);
                }
                // `emails.type`: every element's.
                Some(sub) => {
                    for element in resource.get_mut(&key).and_then(Value::as_array_mut).into_iter().flatten() {
                        if let Some(element) = element.as_object_mut() {
                            let sub_key = key_of(element, sub.name);
                            element.insert(sub_key, value.clone());
                        }
                    }
                }
                None if attribute.multi_valued => {
                    let values = match value {
                        Value::Array(values) => values,
                        value => vec![value],
                    };
                    match (op, resource.get_mut(&key).and_then(Value::as_array_mut)) {
                        // `add` appends the values that are not already there.
                        (Op::Add, Some(existing)) => {
                            for value in values {
                                if !existing.contains(&value) {
                                    existing.push(value);
                                }
                            }
                        }
                        _ => {
                            resource.insert(key, Value::Array(values));
                        }
                    }
                }
                // A complex attribute: the sub-attributes given replace theirs, the others stay.
                None if attribute.kind == "complex" => match (value, resource.get_mut(&key).and_then(Value::as_object_mut)) {
                    (Value::Object(given), Some(existing)) => {
                        for (sub, v) in given {
                            let sub_key = key_of(existing, &sub);
                            existing.insert(sub_key, v);
                        }
                    }
                    (value, _) => {
                        resource.insert(key, value);
                    }
                },
                None => {
                    resource.insert(key, value);
                }
            }
            Ok(())
        }
        PatchPath::Value(value_path) => {
            let (attribute, _) = declared(&value_path.attr)?;
            if !attribute.multi_valued {
                return Err(bad("invalidPath", &format!("{} has no values to filter", attribute.name)));
            }
            let sub = value_path.sub_attr.as_deref().map(|sub| sub_attribute(attribute, sub)).transpose()?;
            let key = key_of(resource, attribute.name);
            let elements = resource.entry(key).or_insert_with(|| json!([]));
            if !elements.is_array() {
                *elements = json!([]);
            }
            let elements = elements.as_array_mut().expect("an array");
            let mut matched = 0;
            for element in elements.iter_mut() {
                if !matches(&value_path.filter, element)? {
                    continue;
                }
                matched += 1;
                let Some(element) = element.as_object_mut() else { continue };
                match (sub, &value) {
                    (Some(sub), value) => {
                        let sub_key = key_of(element, sub.name);
                        element.insert(sub_key, value.clone());
                    }
                    (None, Value::Object(given)) if op == Op::Add => {
                        for (k, v) in given {
                            let sub_key = key_of(element, k);
                            element.insert(sub_key, v.clone());
                        }
                    }
                    (None, Value::Object(given)) => *element = given.clone(),
                    (None, _) => return Err(bad("invalidValue", &format!("An element of {} is an object", attribute.name))),
                }
            }
            if matched == 0 {
                // No element matched. An `add` makes one from the filter's equalities (Entra ID's
                // `emails[type eq "work"].value` on a person without a work address); a
                // `replace` has no target (RFC 7644 section 3.5.2.3).
                if op == Op::Replace {
                    return Err(bad("noTarget", &format!("No value of {} matches the filter", attribute.name)));
                }
                let mut element =
                    equalities(&value_path.filter).ok_or_else(|| bad("noTarget", &format!("No value of {} matches the filter", attribute.name)))?;
                match (sub, value) {
                    (Some(sub), value) => {
                        element.insert(sub.name.into(), value);
                    }
                    (None, Value::Object(given)) => element.extend(given),
                    (None, _) => return Err(bad("invalidValue", &format!("An element of {} is an object", attribute.name))),
                }
                elements.push(Value::Object(element));
            }
            Ok(())
        }
    }
}

fn remove(resource: &mut Map<String, Value>, path: &PatchPath) -> Result<(), AppError> {
    let attr_path = match path {
        PatchPath::Attr(attr_path) => attr_path,
        PatchPath::Value(value_path) => &value_path.attr,
    };
    let (attribute, sub) = declared(attr_path)?;
    if attribute.required {
        return Err(bad("mutability", &format!("{} is required: it can be replaced, not removed", attribute.name)));
    }
    let key = key_of(resource, attribute.name);
    match path {
        PatchPath::Attr(_) => match sub {
            None => {
                resource.remove(&key);
            }
            Some(sub) => {
                let now_empty = match resource.get_mut(&key) {
                    Some(Value::Object(parent)) => {
                        let sub_key = key_of(parent, sub.name);
                        parent.remove(&sub_key);
                        parent.is_empty()
                    }
                    Some(Value::Array(elements)) => {
                        for element in elements.iter_mut().filter_map(Value::as_object_mut) {
                            let sub_key = key_of(element, sub.name);
                            element.remove(&sub_key);
                        }
                        false
                    }
                    _ => false,
                };
                if now_empty {
                    resource.remove(&key);
                }
            }
        },
        PatchPath::Value(value_path) => {
            let Some(elements) = resource.get_mut(&key).and_then(Value::as_array_mut) else { return Ok(()) };
            let mut kept = Vec::with_capacity(elements.len());
            for mut element in std::mem::take(elements) {
                if !matches(&value_path.filter, &element)? {
                    kept.push(element);
                    continue;
                }
                // The element goes, or only its sub-attribute.
                if let (Some(sub), Some(object)) = (&value_path.sub_attr, element.as_object_mut()) {
                    let sub_key = key_of(object, sub);
                    object.remove(&sub_key);
                    kept.push(element);
                }
            }
            if kept.is_empty() {
                resource.remove(&key);
            } else {
                *resource.get_mut(&key).expect("still there") = Value::Array(kept);
            }
        }
    }
    Ok(())
}

/// The attribute `name` of an element, without regard to case.
fn attribute_of<'a>(element: &'a Value, name: &str) -> Option<&'a Value> {
    element.as_object()?.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v).filter(|v| !v.is_null())
}

/// Whether an element of a multi-valued attribute matches a value filter (strings compared
/// without regard to case, as every attribute here is `caseExact: false`).
fn matches(filter: &ValFilter, element: &Value) -> Result<bool, AppError> {
    Ok(match filter {
        ValFilter::Not(inner) => !matches(inner, element)?,
        ValFilter::And(a, b) => matches(a, element)? && matches(b, element)?,
        ValFilter::Or(a, b) => matches(a, element)? || matches(b, element)?,
        ValFilter::Attr(AttrExp::Present(path)) => attribute_of(element, &path.name).is_some(),
        ValFilter::Attr(AttrExp::Comparison(path, op, expected)) => {
            let actual = attribute_of(element, &path.name);
            match (expected, actual) {
                (CompValue::Null, actual) => match op {
                    CompareOp::Eq => actual.is_none(),
                    CompareOp::Ne => actual.is_some(),
                    _ => return Err(bad("invalidFilter", "null is compared with eq or ne")),
                },
                (CompValue::True | CompValue::False, actual) => {
                    let expected = matches!(expected, CompValue::True);
                    let actual = actual.and_then(user::boolean);
                    match op {
                        CompareOp::Eq => actual == Some(expected),
                        CompareOp::Ne => actual != Some(expected),
                        _ => return Err(bad("invalidFilter", "A boolean is compared with eq or ne")),
                    }
                }
                (CompValue::Str(expected), Some(Value::String(actual))) => {
                    let (actual, expected) = (actual.to_lowercase(), expected.to_lowercase());
                    match op {
                        CompareOp::Eq => actual == expected,
                        CompareOp::Ne => actual != expected,
                        CompareOp::Co => actual.contains(&expected),
                        CompareOp::Sw => actual.starts_with(&expected),
                        CompareOp::Ew => actual.ends_with(&expected),
                        CompareOp::Gt => actual > expected,
                        CompareOp::Ge => actual >= expected,
                        CompareOp::Lt => actual < expected,
                        CompareOp::Le => actual <= expected,
                    }
                }
                (CompValue::Str(_), None) => matches!(op, CompareOp::Ne),
                _ => false,
            }
        }
    })
}

/// The element a filter of equalities describes (`type eq "work"` is `{"type": "work"}`), for an
/// `add` that matched nothing; none for another filter.
fn equalities(filter: &ValFilter) -> Option<Map<String, Value>> {
    match filter {
        ValFilter::Attr(AttrExp::Comparison(path, CompareOp::Eq, value)) => {
            let value = match value {
                CompValue::Str(s) => json!(s),
                CompValue::True => json!(true),
                CompValue::False => json!(false),
                _ => return None,
            };
            Some(Map::from_iter([(path.name.clone(), value)]))
        }
        ValFilter::And(a, b) => {
            let mut element = equalities(a)?;
            element.extend(equalities(b)?);
            Some(element)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patched(resource: Value, operations: Value) -> Result<Value, AppError> {
        let patch: PatchOp =
            serde_json::from_value(json!({ "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": operations })).unwrap();
        let mut resource = resource.as_object().unwrap().clone();
        apply(&mut resource, patch)?;
        Ok(Value::Object(resource))
    }

    fn ann() -> Value {
        json!({
            "userName": "ann@example.com", "displayName": "Ann Lee", "name": { "givenName": "Ann", "familyName": "Lee" },
            "emails": [{ "value": "ann@example.com", "type": "work", "primary": true }, { "value": "ann@home.example", "type": "home" }],
        })
    }

    #[test]
    fn entra_s_name_only_and_filtered_email_patches_change_those_values() {
        let changed = patched(
            ann(),
            json!([
                { "op": "Replace", "path": "name.givenName", "value": "Anne" },
                { "op": "Replace", "path": "emails[type eq \"work\"].value", "value": "anne@example.com" },
                { "op": "Add", "value": { "name.familyName": "Li" } },
            ]),
        )
        .unwrap();
        assert_eq!(changed["name"], json!({ "givenName": "Anne", "familyName": "Li" }));
        assert_eq!(changed["emails"][0]["value"], "anne@example.com");
        assert_eq!(changed["emails"][1]["value"], "ann@home.example", "the other address is untouched");
    }

    #[test]
    fn an_add_through_a_filter_that_matches_nothing_makes_the_element_and_a_replace_has_no_target() {
        let bo = json!({ "userName": "bo@example.com" });
        let added = patched(bo.clone(), json!([{ "op": "add", "path": "emails[type eq \"work\"].value", "value": "bo@example.com" }])).unwrap();
        assert_eq!(added["emails"], json!([{ "type": "work", "value": "bo@example.com" }]));
        let err = patched(bo, json!([{ "op": "replace", "path": "emails[type eq \"work\"].value", "value": "x@example.com" }])).unwrap_err();
        assert_eq!(err.body().fields.unwrap().keys().collect::<Vec<_>>(), ["noTarget"]);
    }

    #[test]
    fn okta_s_replace_without_a_path_merges_a_complex_value_and_replaces_a_list() {
        let changed = patched(
            ann(),
            json!([{ "op": "replace", "value": { "name": { "familyName": "Smith" }, "emails": [{ "value": "a@new.example", "primary": true }], "active": false } }]),
        )
        .unwrap();
        assert_eq!(changed["name"], json!({ "givenName": "Ann", "familyName": "Smith" }));
        assert_eq!(changed["emails"], json!([{ "value": "a@new.example", "primary": true }]));
        assert_eq!(changed["active"], false);
    }

    #[test]
    fn add_appends_to_a_list_and_remove_takes_attributes_parts_and_filtered_elements_away() {
        let added = patched(ann(), json!([{ "op": "add", "path": "emails", "value": [{ "value": "x@example.com", "type": "other" }] }])).unwrap();
        assert_eq!(added["emails"].as_array().unwrap().len(), 3);
        let removed = patched(
            ann(),
            json!([
                { "op": "remove", "path": "emails[type eq \"home\"]" },
                { "op": "remove", "path": "name.givenName" },
                { "op": "remove", "path": "displayName" },
            ]),
        )
        .unwrap();
        assert_eq!(removed["emails"], json!([{ "value": "ann@example.com", "type": "work", "primary": true }]));
        assert_eq!(removed["name"], json!({ "familyName": "Lee" }));
        assert!(removed.get("displayName").is_none());
        let emptied = patched(ann(), json!([{ "op": "remove", "path": "emails" }, { "op": "remove", "path": "name.givenName" }, { "op": "remove", "path": "name.familyName" }])).unwrap();
        assert!(emptied.get("emails").is_none() && emptied.get("name").is_none(), "{emptied}");
    }

    #[test]
    fn a_path_outside_the_schema_is_invalid_and_a_read_only_or_required_one_is_mutability() {
        let scim_type = |operations: Value| patched(ann(), operations).unwrap_err().body().fields.unwrap().keys().next().cloned().unwrap();
        assert_eq!(scim_type(json!([{ "op": "replace", "path": "roles", "value": "admin" }])), "invalidPath");
        assert_eq!(scim_type(json!([{ "op": "replace", "path": "name.nickName", "value": "A" }])), "invalidPath");
        assert_eq!(
            scim_type(json!([{ "op": "replace", "path": "urn:ietf:params:scim:schemas:core:2.0:Group:displayName", "value": "A" }])),
            "invalidPath"
        );
        assert_eq!(scim_type(json!([{ "op": "replace", "path": "id", "value": "x" }])), "mutability");
        assert_eq!(scim_type(json!([{ "op": "remove", "path": "userName" }])), "mutability");
        assert_eq!(scim_type(json!([{ "op": "remove", "path": "active" }])), "mutability");
        let with_urn =
            patched(ann(), json!([{ "op": "replace", "path": "urn:ietf:params:scim:schemas:core:2.0:User:displayName", "value": "A" }])).unwrap();
        assert_eq!(with_urn["displayName"], "A");
    }
}
