//! The OpenAPI document a test server serves, as a checker of real answers: each answer is
//! validated against the schema the document gives for its path, method and status, and every
//! key it holds must be one the schema names (`Documented::check`).

use reqwest::Method;
use serde_json::{Value, json};

use super::TestApp;
use super::api::Api;

/// The served document, and what it checked.
pub struct Documented {
    pub doc: Value,
    /// `METHOD path status` of each answer checked.
    pub checked: Vec<String>,
}

impl Documented {
    /// The document `app` serves.
    pub async fn served(app: &TestApp) -> Documented {
        let resp = app.get("/api/v1/openapi.json").await;
        assert_eq!(resp.status(), 200);
        let doc: Value = resp.json().await.unwrap();
        Documented {
            doc,
            checked: Vec::new(),
        }
    }

    /// Calls `method path` (a real path, with its query) with `body` as `api`, asserts the
    /// `status`, checks the answer against the document and returns it.
    pub async fn call(
        &mut self,
        api: &Api,
        method: Method,
        path: &str,
        body: Option<Value>,
        status: u16,
    ) -> Value {
        let (s, v) = api.call(method.clone(), path, body).await;
        assert_eq!(s, status, "{method} {path}: {v}");
        self.check(method.as_str(), path, s, &v);
        v
    }

    /// Asserts that `status` is what the document gives for `method path` (a real path, with
    /// its query) and that `body` is valid against its JSON schema, naming every key it holds.
    pub fn check(&mut self, method: &str, path: &str, status: u16, body: &Value) {
        let method = method.to_lowercase();
        let path = self.template_of(path);
        let at = format!("{} {path} {status}", method.to_uppercase());
        let answer = &self.doc["paths"][&path][&method]["responses"][status.to_string()];
        assert!(answer.is_object(), "{at} is not documented: {body}");
        let schema = &answer["content"]["application/json"]["schema"];
        assert!(schema.is_object(), "{at} documents no JSON answer");
        let root = json!({"components": self.doc["components"], "allOf": [schema]});
        let validator = jsonschema::draft202012::new(&root)
            .unwrap_or_else(|e| panic!("{at}: the schema does not compile: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(body)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{at}: {body} is not valid: {errors:?}");
        let mut unnamed = Vec::new();
        self.unnamed_keys(schema, body, String::new(), &mut unnamed);
        assert!(
            unnamed.is_empty(),
            "{at}: the schema does not name {unnamed:?} in {body}"
        );
        self.checked.push(at);
    }

    /// The documented path `path` (with its query, or a whole URL) is an instance of: the one
    /// with the most literal segments of those that match.
    fn template_of(&self, path: &str) -> String {
        let path = match path.split_once("://") {
            Some((_, rest)) => &rest[rest.find('/').unwrap_or(rest.len())..],
            None => path,
        };
        let path = path.split('?').next().unwrap_or_default();
        let segments: Vec<&str> = path.split('/').collect();
        let literal_matches = |template: &str| {
            let parts: Vec<&str> = template.split('/').collect();
            let fits = parts.len() == segments.len()
                && parts
                    .iter()
                    .zip(&segments)
                    .all(|(t, s)| t == s || t.starts_with('{'));
            fits.then(|| parts.iter().filter(|t| !t.starts_with('{')).count())
        };
        let paths = self.doc["paths"].as_object().unwrap();
        paths
            .keys()
            .filter_map(|t| literal_matches(t).map(|n| (n, t)))
            .max()
            .map(|(_, t)| t.clone())
            .unwrap_or_else(|| panic!("{path} is not in the document"))
    }

    /// The schema `s` with its reference followed.
    fn resolve<'a>(&'a self, s: &'a Value) -> &'a Value {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.trim_start_matches("#/components/schemas/");
                self.resolve(&self.doc["components"]["schemas"][name])
            }
            None => s,
        }
    }

    /// The subschemas `s` is made of (itself, its `allOf`, `oneOf` and `anyOf` parts).
    fn parts<'a>(&'a self, s: &'a Value, out: &mut Vec<&'a Value>) {
        let s = self.resolve(s);
        out.push(s);
        for key in ["allOf", "oneOf", "anyOf"] {
            for part in s[key].as_array().into_iter().flatten() {
                self.parts(part, out);
            }
        }
    }

    /// The keys of objects in `v` (at `at`) that `schema` names nowhere: an answer's key the
    /// document forgot. Objects kept open (`additionalProperties`, no `properties`) are skipped.
    fn unnamed_keys(&self, schema: &Value, v: &Value, at: String, out: &mut Vec<String>) {
        let mut parts = Vec::new();
        self.parts(schema, &mut parts);
        match v {
            Value::Object(o) => {
                let open = parts.iter().all(|p| p.get("properties").is_none())
                    || parts.iter().any(|p| p["additionalProperties"].is_object());
                if open {
                    return;
                }
                for (k, child) in o {
                    let named: Vec<&Value> = parts
                        .iter()
                        .filter_map(|p| p["properties"].get(k))
                        .collect();
                    if named.is_empty() {
                        out.push(format!("{at}/{k}"));
                    }
                    for s in named {
                        self.unnamed_keys(s, child, format!("{at}/{k}"), out);
                    }
                }
            }
            Value::Array(items) => {
                for p in &parts {
                    if let Some(s) = p.get("items") {
                        for (i, item) in items.iter().enumerate() {
                            self.unnamed_keys(s, item, format!("{at}/{i}"), out);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}
