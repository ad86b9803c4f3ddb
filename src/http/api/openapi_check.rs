//! Checks of the OpenAPI document against the code: every API route the server answers is
//! described (found by reading the route modules' path filters), and every example
//! the document gives is valid against its schema.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::http::api::openapi::document;

/// How a route module starts a route's path (written in two pieces, so that this file holds
/// no route of its own for the tests that read the route modules).
const PATH_FILTER: &str = concat!("warp::", "path!(");

/// Methods a route filter names; none means any method.
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// `/a/{}/b` for the macro text `"a" / i64 / "b"`, with whether it ends in `..`.
fn template(segments: &str) -> (String, bool) {
    let mut out = String::new();
    let mut prefix = false;
    for seg in segments.split('/').map(str::trim) {
        if seg == ".." {
            prefix = true;
        } else if let Some(lit) = seg.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
            out.push('/');
            out.push_str(lit);
        } else {
            out.push_str("/{}");
        }
    }
    (out, prefix)
}

/// The methods named in `code` before its handler (`.then(` or `.map(`) or the statement's end.
fn methods_in(code: &str) -> Vec<String> {
    let end = [".then(", ".map(", ";"]
        .iter()
        .filter_map(|m| code.find(m))
        .min()
        .unwrap_or(code.len());
    METHODS
        .iter()
        .filter(|m| code[..end].contains(&format!("warp::{m}()")))
        .map(|m| m.to_string())
        .collect()
}

/// The API routes of one route module: path template to methods.
fn routes_in(code: &str, out: &mut BTreeMap<String, Vec<String>>) {
    for (at, _) in code.match_indices(PATH_FILTER) {
        let rest = &code[at + PATH_FILTER.len()..];
        let Some(close) = rest.find(')') else {
            continue;
        };
        let (path, prefix) = template(&rest[..close]);
        let api = path.starts_with("/api/")
            || path == "/listBookings"
            || path.starts_with("/.well-known/");
        if !api {
            continue;
        }
        if !prefix {
            out.entry(path)
                .or_default()
                .extend(methods_in(&rest[close..]));
            continue;
        }
        // `let name = |name: &str, ..| { <path filter>(prefix / ..).and(warp::path(name)) }`:
        // the routes are that closure's calls with a literal name.
        let before = &code[..at];
        let Some(var) = before
            .rfind("let ")
            .map(|l| &before[l + 4..])
            .and_then(|s| s.split_whitespace().next())
        else {
            continue;
        };
        let call = format!("{var}(\"");
        for (c, _) in code.match_indices(&call) {
            let tail = &code[c + call.len()..];
            let name = &tail[..tail.find('"').unwrap_or(0)];
            out.entry(format!("{path}/{name}"))
                .or_default()
                .extend(methods_in(tail));
        }
    }
}

/// Every API route in `src/http` and its folders.
fn served() -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/http"
    ))];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                routes_in(&std::fs::read_to_string(&path).unwrap(), &mut out);
            }
        }
    }
    out
}

/// The document's paths with `{}` for each parameter, and their methods.
fn described(doc: &Value) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        let mut t = String::new();
        let mut in_param = false;
        for ch in path.chars() {
            match ch {
                '{' => {
                    in_param = true;
                    t.push_str("{}");
                }
                '}' => in_param = false,
                c if !in_param => t.push(c),
                _ => {}
            }
        }
        let methods = item.as_object().unwrap().keys().cloned().collect();
        out.insert(t, methods);
    }
    out
}

#[test]
fn every_api_route_the_server_answers_is_described() {
    let served = served();
    assert!(
        served.contains_key("/api/v1/documents/{}/fields") && served.len() > 40,
        "the route modules were read: {served:?}"
    );
    assert!(
        served.contains_key("/api/v1/zapier/subscribe"),
        "{served:?}"
    );
    let described = described(&document("https://d.example"));
    for (path, methods) in &served {
        let Some(documented) = described.get(path) else {
            panic!("{path} is served but not in the OpenAPI document");
        };
        for m in methods {
            assert!(
                documented.contains(m),
                "{} {path} is served but not in the OpenAPI document",
                m.to_uppercase()
            );
        }
    }
    for path in described.keys() {
        assert!(
            served.contains_key(path),
            "{path} is in the OpenAPI document but no route serves it"
        );
    }
}

/// Each example in `v` (at `at`) with the schema it must follow.
fn examples<'a>(v: &'a Value, at: String, out: &mut Vec<(String, &'a Value, &'a Value)>) {
    match v {
        Value::Object(o) => {
            if let Some(schema) = o.get("schema") {
                // A media type or a parameter: `example`, or `examples` by name.
                if let Some(e) = o.get("example") {
                    out.push((format!("{at}/example"), e, schema));
                }
                if let Some(Value::Object(named)) = o.get("examples") {
                    for (name, e) in named {
                        if let Some(value) = e.get("value") {
                            out.push((format!("{at}/examples/{name}"), value, schema));
                        }
                    }
                }
            } else if o.contains_key("type")
                || o.contains_key("$ref")
                || o.contains_key("oneOf")
                || o.contains_key("allOf")
            {
                // A schema: its own `example` and `examples` (a list in JSON Schema).
                if let Some(e) = o.get("example") {
                    out.push((format!("{at}/example"), e, v));
                }
                if let Some(Value::Array(list)) = o.get("examples") {
                    for (i, e) in list.iter().enumerate() {
                        out.push((format!("{at}/examples/{i}"), e, v));
                    }
                }
            }
            for (k, child) in o {
                if k != "example" && k != "examples" {
                    examples(child, format!("{at}/{k}"), out);
                }
            }
        }
        Value::Array(list) => {
            for (i, child) in list.iter().enumerate() {
                examples(child, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_example_is_valid_against_its_schema() {
    let doc = document("https://d.example");
    let mut found = Vec::new();
    examples(&doc, String::new(), &mut found);
    assert!(
        found
            .iter()
            .any(|(at, _, _)| at.contains("/CreateDocument/")),
        "the typed shapes' examples are in the document: {:?}",
        found.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    for (at, example, schema) in found {
        // The schema inside the document, so that its references resolve.
        let root = json!({"components": doc["components"], "allOf": [schema]});
        let validator = jsonschema::draft202012::new(&root)
            .unwrap_or_else(|e| panic!("{at}: the schema does not compile: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(example)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{at}: {example} is not valid: {errors:?}"
        );
    }
}

#[test]
fn the_enums_come_from_the_rust_enums() {
    let doc = document("https://d.example");
    let schemas = &doc["components"]["schemas"];
    let names = |s: &Value| -> Vec<String> {
        s["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let roles: Vec<&str> = crate::signing::documents::recipients::Role::ALL
        .iter()
        .map(|r| r.as_str())
        .collect();
    assert_eq!(names(&schemas["Role"]), roles);
    assert_eq!(
        names(&schemas["WebhookEvent"]),
        crate::outbox::webhooks::Event::names()
    );
    let statuses: Vec<&str> = crate::signing::documents::Status::ALL
        .iter()
        .map(|s| s.as_str())
        .collect();
    assert_eq!(names(&schemas["DocumentStatus"]), statuses);
}
