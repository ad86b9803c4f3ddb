//! One typed client for the tests: a credential on the API (`Api`), a recipient on a signing
//! link (`Signer`), users and API keys made with the CLI, the database for tests that look at
//! rows, and the fixtures and request bodies the tests share.

use std::fmt;
use std::ops::Deref;
use std::path::Path;
use std::time::{Duration, Instant};

use reqwest::{Method, Response};
use serde_json::{Value, json};

use crate::support::{TestApp, docket_json};

/// A small PNG drawn signature, as the signing page sends it.
pub const PNG_SIGNATURE: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACgAAAAMCAYAAAAQw/9NAAAAMklEQVR4nGMQEJb6z4AGBpMYBhhMjsMQGzQOGXXciHEcNjCYHDe0QnPQOGTUcSMtkwAAwO52gdvTiIsAAAAASUVORK5CYII=";

/// The bytes of `tests/fixtures/pdf/<name>`.
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/pdf/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A document for a SIGNER and a CC, SEQUENTIAL, with an external id and meta.
pub fn two_recipients() -> Value {
    json!({
        "title": "NDA",
        "externalId": "ext-1",
        "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER", "signingOrder": 0},
            {"name": "Cid", "email": "cid@example.com", "role": "CC", "signingOrder": 1}
        ],
        "meta": {"subject": "Please sign", "timezone": "Europe/Paris", "dateFormat": "yyyy-MM-dd", "signingOrder": "SEQUENTIAL"}
    })
}

/// A webhook's body: `url`, subscribed to `events`.
pub fn webhook(url: &str, events: &[&str]) -> Value {
    json!({"url": url, "events": events})
}

/// The keys of a JSON object, sorted.
pub fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect();
    k.sort();
    k
}

/// `k`, sorted (to compare with [`keys`]).
pub fn sorted<'a>(k: &[&'a str]) -> Vec<&'a str> {
    let mut v = k.to_vec();
    v.sort();
    v
}

/// The paths an error answer's `details` name, in order.
pub fn detail_paths(err: &Value) -> Vec<&str> {
    err["details"]
        .as_array()
        .map(|a| a.iter().filter_map(|d| d["path"].as_str()).collect())
        .unwrap_or_default()
}

/// `docket user add EMAIL ARGS...` on the data dir `data`.
pub fn add_user(data: &Path, email: &str, args: &[&str]) {
    let mut all = vec!["user", "add", email];
    all.extend_from_slice(args);
    docket_json(data, &all, None);
}

/// `docket apikey create --user EMAIL` on the data dir `data`: what it printed (`id`, `key`).
pub fn create_api_key(data: &Path, email: &str) -> Value {
    docket_json(data, &["apikey", "create", "--user", email], None)
}

impl TestApp {
    /// A user named "Owner" of `tier` with an API key, made with the CLI; the key's client.
    pub fn user_with_key(&self, email: &str, tier: &str) -> Api {
        let d = self.data_dir();
        add_user(&d, email, &["--name", "Owner", "--tier", tier]);
        self.api(create_api_key(&d, email)["key"].as_str().unwrap())
    }

    /// A new API key of the account `email` (`docket apikey create`), for its personal
    /// documents or, with `team`, for those of the team of that slug.
    pub fn key_for(&self, email: &str, team: Option<&str>) -> Api {
        let mut args = vec!["apikey", "create", "--user", email];
        args.extend(team.map(|t| ["--team", t]).into_iter().flatten());
        let made = crate::support::docket_json(&self.data_dir(), &args, None);
        self.api(made["key"].as_str().unwrap())
    }

    /// A client sending `credential` as the whole `Authorization` value (an API key as it is,
    /// or `Bearer <token>`).
    pub fn api(&self, credential: &str) -> Api {
        Api::new(self.client.clone(), &self.base, credential)
    }

    /// A client sending `Bearer <token>` (reqwest's `bearer_auth`).
    pub fn bearer(&self, token: &str) -> Api {
        Api {
            bearer: true,
            ..self.api(token)
        }
    }

    /// The recipient holding signing token `token`, without cookies.
    pub fn signer(&self, token: &str) -> Signer {
        Signer {
            client: self.client.clone(),
            base: self.base.clone(),
            token: token.to_string(),
            cookie: None,
        }
    }

    /// The database, to look at rows.
    pub fn db(&self) -> crate::support::TestDb {
        crate::support::TestDb::open(&self.data_dir())
    }

    /// The database, for tests that put rows into states the API cannot reach.
    pub fn db_rw(&self) -> crate::support::TestDb {
        self.db()
    }
}

/// A client of the API with one credential.
#[derive(Clone)]
pub struct Api {
    client: reqwest::Client,
    base: String,
    key: String,
    bearer: bool,
}

impl Api {
    /// A client of the server at `base` (`http://host:port`) with `credential` as the
    /// `Authorization` value.
    pub fn new(client: reqwest::Client, base: &str, credential: &str) -> Api {
        Api {
            client,
            base: base.to_string(),
            key: credential.to_string(),
            bearer: false,
        }
    }

    /// The HTTP client underneath (for requests without the credential).
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    /// The raw key (or credential) this client sends.
    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A request to `path` with the credential, to finish and send.
    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let req = self.client.request(method, self.url(path));
        if self.bearer {
            req.bearer_auth(&self.key)
        } else {
            req.header("authorization", &self.key)
        }
    }

    /// Sends `body` (as JSON, if any) to `path`: the status and the JSON answer (`Null` when
    /// it is not JSON).
    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut req = self.request(method, path);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.call(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(Method::POST, path, Some(body)).await
    }

    pub async fn patch(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(Method::PATCH, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> (u16, Value) {
        self.call(Method::DELETE, path, None).await
    }

    /// The whole answer to a GET of `path`.
    pub async fn get_response(&self, path: &str) -> Response {
        self.request(Method::GET, path).send().await.unwrap()
    }

    /// The whole answer to a POST of `body` to `path`.
    pub async fn post_response(&self, path: &str, body: &Value) -> Response {
        self.request(Method::POST, path)
            .json(body)
            .send()
            .await
            .unwrap()
    }

    /// Creates a document (asserting 200).
    pub async fn create_document(&self, body: Value) -> Created {
        let (status, v) = self.post("/api/v1/documents", body).await;
        assert_eq!(status, 200, "{v}");
        Created(v)
    }

    /// Document `id` (asserting 200).
    pub async fn document(&self, id: i64) -> Value {
        let (s, v) = self.get(&format!("/api/v1/documents/{id}")).await;
        assert_eq!(s, 200, "{v}");
        v
    }

    /// PUTs `pdf` to the signed upload URL `url` (no credential): the status and JSON answer.
    pub async fn upload(&self, url: &str, pdf: Vec<u8>) -> (u16, Value) {
        let resp = self
            .client
            .put(url)
            .header("content-type", "application/pdf")
            .body(pdf)
            .send()
            .await
            .unwrap_or_else(|e| panic!("the server gave no answer (did it die?): {e}"));
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// As [`Api::upload`], asserting a 200 with a JSON answer; the answer.
    pub async fn upload_ok(&self, url: &str, pdf: Vec<u8>) -> Value {
        let resp = self
            .client
            .put(url)
            .header("content-type", "application/pdf")
            .body(pdf)
            .send()
            .await
            .unwrap();
        let status = resp.status();
        let v: Value = resp.json().await.unwrap();
        assert_eq!(status, 200, "{v}");
        v
    }

    /// Adds the fields in `body` (an array) to document `id` (asserting 200); their ids.
    pub async fn add_fields(&self, id: i64, body: Value) -> Vec<i64> {
        self.fields_at(&format!("/api/v1/documents/{id}/fields"), body)
            .await
    }

    /// Adds the fields in `body` (an array) to template `id` (asserting 200); their ids.
    pub async fn add_template_fields(&self, id: i64, body: Value) -> Vec<i64> {
        self.fields_at(&format!("/api/v1/templates/{id}/fields"), body)
            .await
    }

    async fn fields_at(&self, path: &str, body: Value) -> Vec<i64> {
        let (s, v) = self.post(path, body).await;
        assert_eq!(s, 200, "{v}");
        v["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_i64().unwrap())
            .collect()
    }

    /// Sends document `id` without e-mail (`{"sendEmail": false}`).
    pub async fn send(&self, id: i64) -> (u16, Value) {
        self.send_with(id, json!({"sendEmail": false})).await
    }

    /// Sends document `id` with `body`.
    pub async fn send_with(&self, id: i64, body: Value) -> (u16, Value) {
        self.post(&format!("/api/v1/documents/{id}/send"), body)
            .await
    }

    /// Polls until document `id` has `status` (sealing runs in the background); returns it.
    pub async fn wait_status(&self, id: i64, status: &str) -> Value {
        for _ in 0..200 {
            let (_, doc) = self.get(&format!("/api/v1/documents/{id}")).await;
            if doc["status"] == status {
                return doc;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("document {id} never became {status}");
    }

    /// Polls document `id` (asserting 200) until `done` holds (30 s at most); returns it.
    pub async fn wait_document(&self, id: i64, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let doc = self.document(id).await;
            if done(&doc) {
                return doc;
            }
            assert!(Instant::now() < deadline, "never {what}: {doc}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The events of document `id`'s audit log (asserting 200).
    pub async fn audit(&self, id: i64) -> Vec<Value> {
        let (s, log) = self.get(&format!("/api/v1/documents/{id}/audit-log")).await;
        assert_eq!(s, 200);
        log["events"].as_array().unwrap().clone()
    }

    /// The first audit event of `kind` (e.g. "REJECTED") of document `id`, which must exist.
    pub async fn audit_event(&self, id: i64, kind: &str) -> Value {
        let events = self.audit(id).await;
        events
            .iter()
            .find(|e| e["type"] == kind)
            .cloned()
            .unwrap_or_else(|| panic!("no {kind} event in {events:?}"))
    }

    /// The uploaded (original) file of document `id`, as downloaded.
    pub async fn original(&self, id: i64) -> Vec<u8> {
        let (s, v) = self
            .get(&format!("/api/v1/documents/{id}/download?original=true"))
            .await;
        assert_eq!(s, 200, "{v}");
        let resp = self
            .client
            .get(v["downloadUrl"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200);
        resp.bytes().await.unwrap().to_vec()
    }

    /// Creates a template (asserting 200).
    pub async fn create_template(&self, body: Value) -> Created {
        let (s, v) = self.post("/api/v1/templates", body).await;
        assert_eq!(s, 200, "{v}");
        Created(v)
    }

    /// Adds a webhook (asserting 200); the answer (with its `id` and `secret`).
    pub async fn add_webhook(&self, body: Value) -> Value {
        let (status, v) = self.post("/api/v1/webhooks", body).await;
        assert_eq!(status, 200, "{v}");
        v
    }

    /// Waits (30 s at most) until webhook `hook`'s newest delivery satisfies `done`; returns it.
    pub async fn wait_delivery(&self, hook: i64, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let (status, v) = self
                .get(&format!("/api/v1/webhooks/{hook}/deliveries"))
                .await;
            assert_eq!(status, 200, "{v}");
            if let Some(d) = v["deliveries"].get(0)
                && done(d)
            {
                return d.clone();
            }
            assert!(Instant::now() < deadline, "delivery never finished: {v}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Creates a booking (asserting 201); the booking.
    pub async fn create_booking(&self, body: &Value) -> Value {
        let resp = self.post_response("/api/v1/bookings", body).await;
        assert_eq!(resp.status(), 201);
        resp.json().await.unwrap()
    }
}

/// What creating a document or a template answered: the JSON, with its parts by name.
#[derive(Debug, Clone)]
pub struct Created(pub Value);

impl Created {
    pub fn document_id(&self) -> i64 {
        self.0["documentId"].as_i64().unwrap()
    }

    pub fn template_id(&self) -> i64 {
        self.0["templateId"].as_i64().unwrap()
    }

    pub fn upload_url(&self) -> &str {
        self.0["uploadUrl"].as_str().unwrap()
    }

    /// The `recipientId` of recipient `i`.
    pub fn recipient_id(&self, i: usize) -> i64 {
        self.0["recipients"][i]["recipientId"].as_i64().unwrap()
    }

    /// The signing token of recipient `i`.
    pub fn token(&self, i: usize) -> String {
        self.0["recipients"][i]["token"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

impl Deref for Created {
    type Target = Value;

    fn deref(&self) -> &Value {
        &self.0
    }
}

impl fmt::Display for Created {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A recipient on their signing link, `/sign/<token>`, as the signing page calls it: no API
/// credential, the browser's cookies if any.
#[derive(Clone)]
pub struct Signer {
    client: reqwest::Client,
    base: String,
    token: String,
    cookie: Option<String>,
}

impl Signer {
    /// The recipient holding signing token `token` at the server at `base`, without cookies.
    pub fn at(base: &str, token: &str) -> Signer {
        Signer {
            client: reqwest::Client::new(),
            base: base.to_string(),
            token: token.to_string(),
            cookie: None,
        }
    }

    /// `/sign/<token><rest>`.
    pub fn path(&self, rest: &str) -> String {
        format!("/sign/{}{rest}", self.token)
    }

    /// The same link, sending `cookie` (a browser signed in).
    pub fn with_cookie(&self, cookie: &str) -> Signer {
        Signer {
            cookie: Some(cookie.to_string()),
            ..self.clone()
        }
    }

    fn request(&self, method: Method, rest: &str) -> reqwest::RequestBuilder {
        let req = self
            .client
            .request(method, format!("{}{}", self.base, self.path(rest)));
        match &self.cookie {
            Some(c) => req.header("cookie", c),
            None => req,
        }
    }

    /// A call on `/sign/<token><rest>` with `body` (as JSON, if any): the status and the JSON
    /// answer (`Null` when it is not JSON).
    pub async fn call(&self, method: Method, rest: &str, body: Option<Value>) -> (u16, Value) {
        let mut req = self.request(method, rest);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// The signing page itself.
    pub async fn page(&self) -> Response {
        self.request(Method::GET, "").send().await.unwrap()
    }

    /// `GET …/state`.
    pub async fn state(&self) -> (u16, Value) {
        self.call(Method::GET, "/state", None).await
    }

    /// Fills field `field` with `body`.
    pub async fn fill(&self, field: impl fmt::Display, body: Value) -> (u16, Value) {
        self.call(Method::POST, &format!("/fields/{field}"), Some(body))
            .await
    }

    /// Draws [`PNG_SIGNATURE`] into signature field `field`.
    pub async fn sign(&self, field: impl fmt::Display) -> (u16, Value) {
        self.fill(field, json!({"signature": PNG_SIGNATURE})).await
    }

    /// Types `name` into signature field `field`.
    pub async fn sign_typed(&self, field: impl fmt::Display, name: &str) -> (u16, Value) {
        self.fill(field, json!({"typed": name})).await
    }

    /// Finishes (signs, approves or views) with `body`, where a proof of identity goes.
    pub async fn complete(&self, body: Value) -> (u16, Value) {
        self.call(Method::POST, "/complete", Some(body)).await
    }

    /// Rejects, giving `reason`.
    pub async fn reject(&self, reason: &str) -> (u16, Value) {
        self.call(Method::POST, "/reject", Some(json!({"reason": reason})))
            .await
    }
}
