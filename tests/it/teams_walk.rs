//! Every object of another team or another user is a 404 everywhere (`/api/v1`, webhooks,
//! Zapier), walked with the OpenAPI document the server serves as the list of routes: two
//! teams (the first with an admin's, a manager's and a member's token), a personal user (also
//! a member of the first team, calling with a personal token and with an OAuth app's access
//! token) and a second personal user who owns nothing each call every operation that names an
//! object, with the object of each workspace they do not belong to, and must get 404
//! `not_found`. An OAuth app acts for its user's own account only (`oauth::bearer`): the
//! first team's objects are another workspace's for it, although its user is a member. An
//! operation whose id the walk cannot fill fails the test, so a new route cannot slip past
//! (the API v2 names objects in its bodies and queries too: `folderId`, `envelopeId`, an
//! attachment's `id`, filled the same way);
//! the same GETs by a caller who does reach the object are not 404, so the walk cannot pass
//! by refusing everything; list operations hold no other workspace's ids.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::api::{Api, Created, add_user, fixture, two_recipients, webhook};
use crate::support::documented::Documented;
use crate::support::login::{PASSWORD, add_account, sign_in};
use crate::support::oauth;
use crate::support::webhook::Receiver;
use crate::support::{TestApp, docket_json};

/// What a credential acts as: a team token with its maker's role, or a personal one (an API
/// key, or an OAuth app's access token).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Role {
    Admin,
    Manager,
    Member,
    Personal,
}

struct Caller {
    name: &'static str,
    api: Api,
    role: Role,
    /// The workspace (index in `Walk::spaces`) whose objects it reaches, if any.
    home: Option<usize>,
    /// An OAuth app's token: of its user's webhooks (Zapier subscriptions included) it reaches
    /// only those made under its own grant (`webhooks::store`), none of those here.
    app: bool,
}

/// Whether `who` reaches the object of workspace `i` at `path`.
fn reaches(who: &Caller, i: usize, path: &str) -> bool {
    // Webhooks, and Zapier's subscriptions (`subscribe`, `addSubscription`...), which are.
    let hook = path.starts_with("/api/v1/webhooks") || path.contains("ubscri");
    who.home == Some(i) && !(who.app && hook)
}

/// One of each object kind a path can name, owned by one workspace.
pub(crate) struct Objects {
    pub(crate) document: i64,
    pub(crate) doc_recipient: i64,
    pub(crate) doc_field: i64,
    pub(crate) template: i64,
    pub(crate) tpl_recipient: i64,
    pub(crate) tpl_field: i64,
    pub(crate) webhook: i64,
    pub(crate) delivery: i64,
    /// An endpoint made through the signing service's Zapier route.
    pub(crate) zapier: i64,
    /// A booking and a scheduling-service Zapier subscription: personal workspaces only.
    pub(crate) booking: Option<i64>,
    pub(crate) cal_zapier: Option<i64>,
    /// The signed links of its document's file: download (with the file) and upload.
    pub(crate) download: String,
    pub(crate) upload: String,
    /// A bulk send from its template.
    pub(crate) bulk_send: i64,
    /// A folder (API v2) and a link attachment of its document.
    pub(crate) folder: String,
    pub(crate) attachment: String,
}

impl Objects {
    /// Ids no workspace has: what a caller gets for an object that does not exist.
    fn missing() -> Objects {
        let none = 999_999;
        Objects {
            document: none,
            doc_recipient: none,
            doc_field: none,
            template: none,
            tpl_recipient: none,
            tpl_field: none,
            webhook: none,
            delivery: none,
            zapier: none,
            booking: Some(none),
            cal_zapier: Some(none),
            download: String::new(),
            upload: String::new(),
            bulk_send: none,
            folder: "no-such-folder".into(),
            attachment: "att_000000000000000000000000".into(),
        }
    }
}

struct Space {
    name: &'static str,
    objects: Objects,
}

/// `docket apikey create --user EMAIL [--team SLUG]`: the key's client.
fn key(app: &TestApp, email: &str, team: Option<&str>) -> Api {
    let mut args = vec!["apikey", "create", "--user", email];
    if let Some(slug) = team {
        args.extend(["--team", slug]);
    }
    let made = docket_json(&app.data_dir(), &args, None);
    app.api(made["key"].as_str().unwrap())
}

fn field(recipient: i64) -> Value {
    json!({"recipientId": recipient, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10,
        "pageY": 80, "pageWidth": 30, "pageHeight": 8})
}

fn signer() -> Value {
    json!({"name": "Ann", "email": "ann@example.com", "role": "SIGNER", "signingOrder": 0})
}

/// The path (and query) of a whole URL.
fn path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    rest[rest.find('/').unwrap()..].to_string()
}

/// The object's id in a signed link's path (`/api/v1/downloads/{blobId}/...`,
/// `/api/v1/uploads/{dataId}?...`).
fn link_id(link: &str) -> &str {
    let id = link.split('/').nth(4).unwrap();
    id.split('?').next().unwrap()
}

/// Uploads the PDF of what `created` made (of `kind`, "documents" or "templates") and adds a
/// field for its first recipient: its id, the recipient's and the field's.
async fn with_field(owner: &Api, created: &Created, kind: &str) -> (i64, i64, i64) {
    let id = if kind == "documents" {
        created.document_id()
    } else {
        created.template_id()
    };
    let recipient = created.recipient_id(0);
    owner
        .upload_ok(created.upload_url(), fixture("mixed-sizes-3p.pdf"))
        .await;
    let path = format!("/api/v1/{kind}/{id}/fields");
    let (status, added) = owner.post(&path, json!([field(recipient)])).await;
    assert_eq!(status, 200, "{added}");
    (id, recipient, added["fields"][0]["id"].as_i64().unwrap())
}

/// Makes one of each object as `owner` (a team's admin token, or a personal token).
pub(crate) async fn objects(owner: &Api, rx: &Receiver, personal: bool) -> Objects {
    let (status, hook) = owner
        .post(
            "/api/v1/webhooks",
            webhook(&rx.url(), &["DOCUMENT_CREATED"]),
        )
        .await;
    assert_eq!(status, 200, "{hook}");
    let hook = hook["id"].as_i64().unwrap();
    let sub = json!({"webhookUrl": rx.url(), "eventTrigger": "DOCUMENT_SIGNED"});
    let (status, zapier) = owner.post("/api/v1/zapier/subscribe", sub).await;
    assert_eq!(status, 200, "{zapier}");

    let created = owner.create_document(two_recipients()).await;
    let (document, doc_recipient, doc_field) = with_field(owner, &created, "documents").await;
    let (status, download) = owner
        .get(&format!(
            "/api/v1/documents/{document}/download?original=true"
        ))
        .await;
    assert_eq!(status, 200, "{download}");
    // A second document's upload link, still unused.
    let upload = owner.create_document(two_recipients()).await;
    let tpl = owner
        .create_template(json!({"title": "Lease", "recipients": [signer()]}))
        .await;
    let (template, tpl_recipient, tpl_field) = with_field(owner, &tpl, "templates").await;

    let csv = "recipient_1_email\nzed@example.com\n";
    let path = format!("/api/v1/templates/{template}/bulk-send");
    let (status, run) = crate::bulk_send::post_csv(owner, &path, csv).await;
    assert_eq!(status, 201, "{run}");
    let bulk_send = run["id"].as_i64().unwrap();
    let delivery = owner.wait_delivery(hook, |d| d["id"].is_i64()).await["id"]
        .as_i64()
        .unwrap();
    let (status, folder) = owner
        .post("/api/v2/folder/create", json!({"name": "Walked"}))
        .await;
    assert_eq!(status, 200, "{folder}");
    let link = json!({"documentId": document, "data": {"label": "Terms", "data": "https://example.com/t"}});
    let (status, attachment) = owner.post("/api/v2/document/attachment/create", link).await;
    assert_eq!(status, 200, "{attachment}");
    let (booking, cal_zapier) = if personal {
        let booking = json!({"title": "Intro", "startTime": "2026-11-21T09:30:00Z",
            "endTime": "2026-11-21T10:00:00Z",
            "attendees": [{"name": "Grace", "email": "grace@example.com"}]});
        let booking = owner.create_booking(&booking).await["id"].as_i64();
        let sub = json!({"subscriberUrl": rx.url(), "triggerEvent": "BOOKING_CREATED"});
        let (status, sub) = owner
            .post("/api/integrations/zapier/addSubscription", sub)
            .await;
        assert_eq!(status, 200, "{sub}");
        let id = sub["id"].as_str().unwrap().parse().unwrap();
        (booking, Some(id))
    } else {
        (None, None)
    };
    Objects {
        document,
        doc_recipient,
        doc_field,
        template,
        tpl_recipient,
        tpl_field,
        webhook: hook,
        delivery,
        zapier: zapier["id"].as_str().unwrap().parse().unwrap(),
        booking,
        cal_zapier,
        download: path_of(download["downloadUrl"].as_str().unwrap()),
        upload: path_of(upload.upload_url()),
        bulk_send,
        folder: folder["id"].as_str().unwrap().to_string(),
        attachment: attachment["id"].as_str().unwrap().to_string(),
    }
}

/// The two teams, the personal user and the one who owns nothing, with their objects.
struct Walk {
    app: TestApp,
    spaces: Vec<Space>,
    callers: Vec<Caller>,
}

async fn walk() -> Walk {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let d = app.data_dir();
    for email in [
        "ada@example.com",
        "cy@example.com",
        "bob@example.com",
        "dan@example.com",
        "quinn@example.com",
    ] {
        add_user(&d, email, &["--name", "Someone"]);
    }
    // Pat signs in (to consent to an OAuth app), and is a member of team A too.
    add_account(&d, "pat@example.com", "Pat");
    for (name, slug, admin) in [
        ("Sales", "sales", "ada@example.com"),
        ("Other", "other", "dan@example.com"),
    ] {
        let args = ["team", "create", name, "--slug", slug, "--admin", admin];
        docket_json(&d, &args, None);
    }
    for (email, role) in [
        ("cy@example.com", Some("manager")),
        ("bob@example.com", None),
        ("pat@example.com", None),
    ] {
        let mut args = vec!["team", "add", "sales", email];
        args.extend(role.map(|r| ["--role", r]).into_iter().flatten());
        docket_json(&d, &args, None);
    }

    let rx = Receiver::start(&[]).await;
    let caller = |name, email, team, role, home| Caller {
        name,
        api: key(&app, email, team),
        role,
        home,
        app: false,
    };
    let mut callers = vec![
        caller(
            "A admin",
            "ada@example.com",
            Some("sales"),
            Role::Admin,
            Some(0),
        ),
        caller(
            "A manager",
            "cy@example.com",
            Some("sales"),
            Role::Manager,
            Some(0),
        ),
        caller(
            "A member",
            "bob@example.com",
            Some("sales"),
            Role::Member,
            Some(0),
        ),
        caller(
            "B admin",
            "dan@example.com",
            Some("other"),
            Role::Admin,
            Some(1),
        ),
        caller("P", "pat@example.com", None, Role::Personal, Some(2)),
        caller("Q", "quinn@example.com", None, Role::Personal, None),
    ];
    // An OAuth app Pat allowed every scope it may ask for, which then acts for Pat.
    let cookie = sign_in(&app, "pat@example.com", PASSWORD).await.unwrap();
    let client = oauth::client(&app, "Cal");
    let scopes = "READ_BOOKING,WRITE_BOOKING,READ_PROFILE,READ_DOCUMENT,WRITE_DOCUMENT";
    let token = oauth::access_token(&app, &cookie, (&client.0, &client.1), scopes).await;
    callers.push(Caller {
        name: "P's OAuth app",
        api: app.bearer(&token),
        role: Role::Personal,
        home: Some(2),
        app: true,
    });
    let mut spaces = Vec::new();
    for (name, owner, personal) in [("team A", 0, false), ("team B", 3, false), ("P", 4, true)] {
        let objects = objects(&callers[owner].api, &rx, personal).await;
        spaces.push(Space { name, objects });
    }
    Walk {
        app,
        spaces,
        callers,
    }
}

/// How an operation names its object, read from the served document.
#[derive(Debug)]
enum Names {
    /// Parameters in its path, to fill from the object its first segment names (`fill`).
    Path(Vec<String>),
    /// A signed link: its signature, not a caller's credential, decides.
    Signed,
    /// `?id=` or a `webhookId` in the body: a Zapier subscription.
    Subscription,
    /// A member of its JSON body (the API v2's writes: `envelopeId`, `documentId`,
    /// `templateId`), to fill from the object the path's group names (`body_naming`).
    Body(String),
    /// The API v2's query parameters or body members that name objects (`envelopeId`,
    /// `folderId`, an attachment's `id`), to fill from the object the path names
    /// (`fill_fields`); `list` when the operation is a list without them too.
    Fields { names: Vec<String>, list: bool },
    /// Nothing: a list, a creation or the caller's own account.
    Nothing,
}

/// Body properties that name something other than an object of another workspace: the
/// caller's own label, or a child of the object already named in the path.
const NOT_OBJECTS: &[&str] = &["externalId", "recipientId"];

/// Optional query parameters of the API v2 that name an object the walk fills (the others
/// filter a list: an envelope find's `folderId` finds nothing in another's folder).
const OPTIONAL_NAMES: &[(&str, &str)] = &[("/api/v2/folder", "parentId")];

fn names(doc: &Value, path: &str, op: &Value) -> Result<Names, String> {
    let params: Vec<&Value> = op["parameters"].as_array().into_iter().flatten().collect();
    let in_path: Vec<String> = params
        .iter()
        .filter(|p| p["in"] == "path")
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect();
    if path.starts_with("/api/v1/downloads/") || path.starts_with("/api/v1/uploads/") {
        return Ok(Names::Signed);
    }
    if !in_path.is_empty() {
        return Ok(Names::Path(in_path));
    }
    let by_query = params
        .iter()
        .any(|p| p["in"] == "query" && p["name"] == "id");
    let mut schema = &op["requestBody"]["content"]["application/json"]["schema"];
    if let Some(r) = schema["$ref"].as_str() {
        schema = &doc["components"]["schemas"][r.rsplit('/').next().unwrap()];
    }
    let by_body: Vec<&String> = schema["properties"]
        .as_object()
        .into_iter()
        .flat_map(|p| p.keys())
        .filter(|k| (*k == "id" || k.ends_with("Id")) && !NOT_OBJECTS.contains(&k.as_str()))
        .collect();
    let group_key = match template_group(path) {
        "envelope" => "envelopeId",
        "document" => "documentId",
        "template" => "templateId",
        _ => "",
    };
    // A write of a whole envelope (`/api/v2/envelope/update`); a write of what an envelope
    // holds (`/api/v2/envelope/attachment/create`) needs more in its body: `Fields`.
    let whole = path
        .strip_prefix("/api/v2/")
        .is_some_and(|r| r.split('/').count() == 2);
    if whole && !by_query && by_body.iter().any(|k| *k == group_key) {
        return Ok(Names::Body(group_key.to_string()));
    }
    if path.starts_with("/api/v2/") {
        // Query parameters that name an object: the required ones, and `OPTIONAL_NAMES`.
        let names_object = |p: &Value| {
            let name = p["name"].as_str().unwrap_or_default();
            p["in"] == "query"
                && name.ends_with("Id")
                && (p["required"] == true || OPTIONAL_NAMES.contains(&(path, name)))
        };
        let in_query: Vec<&Value> = params.iter().copied().filter(|p| names_object(p)).collect();
        let list = in_query.iter().all(|p| p["required"] != true);
        let names: Vec<String> = in_query
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .chain(by_body.iter().map(|k| k.to_string()))
            .collect();
        return Ok(match names.is_empty() {
            true => Names::Nothing,
            false => Names::Fields { names, list },
        });
    }
    match (by_query, by_body.as_slice()) {
        (false, []) => Ok(Names::Nothing),
        _ if path.contains("zapier") && (by_body.is_empty() || by_body == ["webhookId"]) => {
            Ok(Names::Subscription)
        }
        _ => Err(format!("names an object by {by_body:?} or ?id=")),
    }
}

/// `template` with its parameters filled from `o`: `None` when the workspace has no object of
/// that kind (a team has no bookings), an error when the walk does not know the parameter.
fn fill(template: &str, params: &[String], o: &Objects) -> Result<Option<String>, String> {
    let kind = template
        .strip_prefix("/api/v1/")
        .or_else(|| template.strip_prefix("/api/v2/"))
        .and_then(|r| r.split('/').next())
        .unwrap_or_default();
    let mut path = template.to_string();
    for p in params {
        let n = |v: i64| Some(v.to_string());
        let value = match (kind, p.as_str()) {
            ("documents", "id") => n(o.document),
            ("documents", "recipientId") => n(o.doc_recipient),
            ("documents", "fieldId") => n(o.doc_field),
            ("templates", "id") => n(o.template),
            ("templates", "recipientId") => n(o.tpl_recipient),
            ("templates", "fieldId") => n(o.tpl_field),
            ("webhooks", "id") => n(o.webhook),
            ("webhooks", "deliveryId") => n(o.delivery),
            ("bookings", "id") => o.booking.and_then(n),
            ("bulk-sends", "id") => n(o.bulk_send),
            // The API v2: numbers as v1's, and the document's envelope id.
            ("document", "documentId") => n(o.document),
            ("template", "templateId") => n(o.template),
            ("envelope", "envelopeId") => Some(
                docket::signing::envelope_ids::Envelope::Document(
                    docket::core::ids::DocumentId::new(o.document),
                )
                .id(),
            ),
            _ => return Err(format!("cannot fill {{{p}}} of {kind:?}")),
        };
        let Some(value) = value else {
            return Ok(None);
        };
        path = path.replace(&format!("{{{p}}}"), &value);
    }
    Ok(Some(path))
}

/// The group of an API v2 path (`envelope`, `document`, `template`, ...), or "".
fn template_group(path: &str) -> &str {
    path.strip_prefix("/api/v2/")
        .and_then(|r| r.split('/').next())
        .unwrap_or_default()
}

/// The body of an API v2 write naming `o`'s object of the path's group by `key`, with what
/// else the operation needs to reach its check.
fn body_naming(template: &str, key: &str, o: &Objects) -> Value {
    let id = match key {
        "envelopeId" => json!(
            docket::signing::envelope_ids::Envelope::Document(docket::core::ids::DocumentId::new(
                o.document
            ))
            .id()
        ),
        "documentId" => json!(o.document),
        _ => json!(o.template),
    };
    let mut b = json!({ key: id });
    if template.ends_with("/redistribute") {
        b["recipients"] = json!([o.doc_recipient]);
    }
    b
}

/// A minimal body that would be valid for the operation on an object the caller reaches.
fn body(method: &str, template: &str, o: &Objects) -> Option<Value> {
    let tail = template.rsplit('/').next().unwrap_or_default();
    let kind = template.split('/').nth(3).unwrap_or_default();
    let recipient = if kind == "templates" {
        o.tpl_recipient
    } else {
        o.doc_recipient
    };
    Some(match (method, tail) {
        ("get" | "delete", _) => return None,
        ("post", "duplicate" | "template") => return None,
        ("post", "redeliver") => return None,
        ("post", "recipients") => {
            json!({"name": "Eve", "email": "eve@example.com", "role": "SIGNER"})
        }
        ("patch", "{recipientId}") => json!({"name": "Eve"}),
        ("post", "fields") => json!([field(recipient)]),
        ("patch", "{fieldId}") => json!({"pageX": 12.5}),
        ("post", "send") => json!({"sendEmail": false}),
        ("post", "resend") => json!({"recipients": [recipient]}),
        ("post", "test") => json!({"event": "DOCUMENT_CREATED"}),
        ("post", "cancel") => json!({"reason": "Moved"}),
        ("post", "generate-document") => json!({"title": "Copy",
            "recipients": [{"id": recipient, "name": "Ann", "email": "ann@example.com"}]}),
        ("post", "create-document") => json!({"title": "Copy",
            "recipients": [{"name": "Ann", "email": "ann@example.com"}]}),
        // A bulk send's CSV file (sent as text/csv by `call`).
        ("post", "preview" | "bulk-send") => json!("recipient_1_email\nzed@example.com\n"),
        ("put", "direct-link") => json!({"enabled": true, "recipientId": recipient}),
        // Into a team most callers are in: the object is checked first, whatever the team.
        ("post", "move") => json!({"teamUrl": "sales"}),
        ("patch", "{id}") if kind == "webhooks" => json!({"enabled": false}),
        ("patch", "{id}") => json!({"title": "Renamed"}),
        _ => json!({}),
    })
}

/// What `who` must get for an operation on another workspace's object at `path`: 404
/// `not_found`, except where the caller is refused the whole route whatever the id (bookings
/// and the scheduling service's Zapier sample of them are personal: a team token gets 403; only a
/// team's admins manage its webhooks, Zapier subscriptions included: 403 for its managers and
/// members), which tells nothing of the object.
fn due(who: &Caller, path: &str) -> (u16, &'static str) {
    let personal_only = path.starts_with("/api/v1/bookings")
        || path.starts_with("/listBookings")
        || path.starts_with("/api/integrations/zapier/listBookings");
    let manages_hooks = [
        "/api/v1/webhooks",
        "/api/v1/zapier/",
        "/api/integrations/zapier/",
    ]
    .iter()
    .any(|p| path.starts_with(p));
    let refused = if personal_only {
        who.role != Role::Personal
    } else {
        manages_hooks && matches!(who.role, Role::Manager | Role::Member)
    };
    if refused {
        (403, "forbidden")
    } else {
        (404, "not_found")
    }
}

/// `method path` with `body`: JSON, or a JSON string as a CSV file (`text/csv`).
async fn call(api: &Api, method: &Method, path: &str, body: Option<Value>) -> (u16, Value) {
    match body {
        Some(Value::String(csv)) => crate::bulk_send::post_csv(api, path, &csv).await,
        b => api.call(method.clone(), path, b).await,
    }
}

/// The answer must be `due`; a 403 must be the one a missing id gets too (`missing`).
async fn expect(
    who: &Caller,
    method: &Method,
    path: &str,
    b: Option<Value>,
    (missing, missing_body): (&str, Option<Value>),
) -> Option<String> {
    let (status, got) = call(&who.api, method, path, b.clone()).await;
    let (want, code) = due(who, path);
    let at = format!("{} {method} {path}", who.name);
    // The API v2 writes its codes in the signing service's upper case (`NOT_FOUND`).
    let code = if path.starts_with("/api/v2/") {
        code.to_ascii_uppercase()
    } else {
        code.to_string()
    };
    if (status, got["code"].as_str()) != (want, Some(code.as_str())) {
        return Some(format!("{at}: {status} {got}, want {want} {code}"));
    }
    if want == 403 {
        let (s, g) = call(&who.api, method, missing, missing_body).await;
        if (s, &g) != (status, &got) {
            return Some(format!("{at}: {status} {got}, but {s} {g} for {missing}"));
        }
    }
    None
}

/// The ids a list answer holds, as text: its items' `id` (a sample delivery's `payload.id`),
/// numbers and the API v2's text ids alike.
fn listed(answer: &Value) -> Vec<String> {
    let items = match answer {
        Value::Array(a) => a.clone(),
        Value::Object(o) => o
            .values()
            .find_map(|v| v.as_array().cloned())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    items
        .iter()
        .filter_map(|i| {
            let id = |v: &Value| {
                v.as_i64()
                    .map(|n| n.to_string())
                    .or(v.as_str().map(str::to_string))
            };
            id(&i["id"]).or_else(|| id(&i["payload"]["id"]))
        })
        .collect()
}

/// The ids of `kind` (the list's subject) a workspace owns, as text.
fn owned(kind: &str, o: &Objects) -> Vec<String> {
    let numbers = |n: &[i64]| n.iter().map(i64::to_string).collect();
    match kind {
        "documents" | "list-documents" | "document" => numbers(&[o.document]),
        "templates" | "template" => numbers(&[o.template]),
        "webhooks" => numbers(&[o.webhook, o.zapier]),
        "bookings" | "listBookings" => numbers(&o.booking.into_iter().collect::<Vec<_>>()),
        "bulk-sends" => numbers(&[o.bulk_send]),
        // The API v2's envelopes (the document's and the template's) and folders.
        "envelope" => vec![envelope_id(o), template_envelope_id(o)],
        "folder" => vec![o.folder.clone()],
        _ => Vec::new(),
    }
}

/// The envelope id of the workspace's document, and of its template.
fn envelope_id(o: &Objects) -> String {
    use docket::core::ids::DocumentId;
    docket::signing::envelope_ids::Envelope::Document(DocumentId::new(o.document)).id()
}

fn template_envelope_id(o: &Objects) -> String {
    use docket::core::ids::TemplateId;
    docket::signing::envelope_ids::Envelope::Template(TemplateId::new(o.template)).id()
}

/// The path (with its query) and the body of API v2 operation `method template` naming `o`'s
/// objects by `names` (query parameters of a GET, body members otherwise), in a body that
/// would be valid for a caller who reaches them.
fn fill_fields(
    method: &str,
    template: &str,
    names: &[String],
    o: &Objects,
) -> Result<(String, Option<Value>), String> {
    let kind = template.split('/').nth(3).unwrap_or_default();
    let attachment = template.contains("/attachment");
    let link = json!({"label": "Walked", "data": "https://example.com/walked"});
    let mut body = match (method, template.rsplit('/').next().unwrap_or_default()) {
        ("get", _) => None,
        ("post", "create") if kind == "folder" => Some(json!({"name": "Walked"})),
        ("post", "update") if kind == "folder" => Some(json!({"data": {"name": "Walked"}})),
        ("post", "create" | "update") if attachment => Some(json!({ "data": link })),
        ("post", "delete") => Some(json!({})),
        _ => return Err(format!("no body known for {method} {template}")),
    };
    let mut query = Vec::new();
    for name in names {
        let value = match (kind, name.as_str()) {
            ("folder", "parentId" | "folderId") => json!(o.folder),
            ("envelope", "envelopeId") => json!(envelope_id(o)),
            ("document", "documentId") => json!(o.document),
            ("envelope" | "document", "id") if attachment => json!(o.attachment),
            _ => return Err(format!("cannot fill {name} of {kind:?}")),
        };
        match &mut body {
            Some(b) => b[name.as_str()] = value,
            None => query.push(format!(
                "{name}={}",
                value.as_str().map_or(value.to_string(), str::to_string)
            )),
        }
    }
    let path = match query.is_empty() {
        true => template.to_string(),
        false => format!("{template}?{}", query.join("&")),
    };
    Ok((path, body))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_object_of_another_workspace_is_a_404_on_every_route_the_openapi_document_lists() {
    let w = walk().await;
    let doc = Documented::served(&w.app).await.doc;
    let mut unknown = Vec::new();
    let mut wrong = Vec::new();
    let mut walked = BTreeMap::new();
    // Every operation that names an object, to be walked at least once.
    let mut naming = Vec::new();
    let mut lists = Vec::new();
    // The signed links walked: (operation, whose signature, whose object).
    let mut tampered = Vec::new();
    for (template, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let Ok(m) = Method::from_bytes(method.to_uppercase().as_bytes()) else {
                continue;
            };
            let at = format!("{} {template}", m);
            let named = match names(&doc, template, op) {
                Ok(n) => n,
                Err(e) => {
                    unknown.push(format!("{at}: {e}"));
                    continue;
                }
            };
            if !matches!(named, Names::Nothing) {
                naming.push(at.clone());
            }
            match named {
                Names::Path(params) => {
                    let missing = match fill(template, &params, &Objects::missing()) {
                        Ok(path) => path.unwrap(),
                        Err(e) => {
                            unknown.push(format!("{at}: {e}"));
                            continue;
                        }
                    };
                    for (i, space) in w.spaces.iter().enumerate() {
                        let Some(path) = fill(template, &params, &space.objects).unwrap() else {
                            continue;
                        };
                        let b = body(method, template, &space.objects);
                        for who in w.callers.iter().filter(|c| !reaches(c, i, template)) {
                            *walked.entry(at.clone()).or_insert(0) += 1;
                            let gone = (missing.as_str(), b.clone());
                            if let Some(e) = expect(who, &m, &path, b.clone(), gone).await {
                                wrong.push(format!("{e} ({}'s object)", space.name));
                            }
                        }
                    }
                }
                Names::Body(key) => {
                    let gone = body_naming(template, &key, &Objects::missing());
                    for (i, space) in w.spaces.iter().enumerate() {
                        let b = body_naming(template, &key, &space.objects);
                        for who in w.callers.iter().filter(|c| !reaches(c, i, template)) {
                            *walked.entry(at.clone()).or_insert(0) += 1;
                            let missing = (template.as_str(), Some(gone.clone()));
                            if let Some(e) =
                                expect(who, &m, template, Some(b.clone()), missing).await
                            {
                                wrong.push(format!("{e} {b} ({}'s object)", space.name));
                            }
                        }
                    }
                }
                Names::Subscription => {
                    for (i, space) in w.spaces.iter().enumerate() {
                        let o = &space.objects;
                        for id in [Some(o.zapier), Some(o.webhook), o.cal_zapier]
                            .into_iter()
                            .flatten()
                        {
                            let by_body = template.ends_with("unsubscribe");
                            let (path, missing, b, b2) = if by_body {
                                let path = template.clone();
                                let b = |id| Some(json!({ "webhookId": id }));
                                (path.clone(), path, b(id), b(999_999))
                            } else {
                                let path = |id| format!("{template}?id={id}");
                                (path(id), path(999_999), None, None)
                            };
                            for who in w.callers.iter().filter(|c| !reaches(c, i, template)) {
                                *walked.entry(at.clone()).or_insert(0) += 1;
                                let (status, got) = who.api.call(m.clone(), &path, b.clone()).await;
                                let (want, code) = due(who, template);
                                if (status, got["code"].as_str()) != (want, Some(code)) {
                                    wrong.push(format!("{} {m} {path} {b:?}: {status} {got}, want {want} {code} ({}'s)", who.name, space.name));
                                    continue;
                                }
                                let (s, g) = who.api.call(m.clone(), &missing, b2.clone()).await;
                                if (s, &g) != (status, &got) {
                                    wrong.push(format!("{} {m} {path}: {status} {got}, but {s} {g} for a missing id", who.name));
                                }
                            }
                        }
                    }
                }
                Names::Signed => {
                    // The link's signature is the credential: another workspace's object id
                    // under one's own signature is refused as a missing one is.
                    for (i, space) in w.spaces.iter().enumerate() {
                        let own = if template.contains("downloads") {
                            &space.objects.download
                        } else {
                            &space.objects.upload
                        };
                        let own_id = link_id(own).to_string();
                        for other in w.spaces.iter().enumerate().filter(|(j, _)| *j != i) {
                            let theirs = if template.contains("downloads") {
                                &other.1.objects.download
                            } else {
                                &other.1.objects.upload
                            };
                            let their_id = link_id(theirs);
                            let swapped = own.replacen(&own_id, their_id, 1);
                            let missing = own.replacen(&own_id, "missing", 1);
                            let send = |p: &str| {
                                let req = w.app.client.request(m.clone(), w.app.url(p));
                                // An empty file: a refusal comes before the body is read,
                                // and a server that answers early and closes would cut a
                                // body still in flight. A link that took the other object
                                // would answer the empty file with 400, not the refusal.
                                let req = if m == Method::PUT {
                                    req.header("content-type", "application/pdf")
                                } else {
                                    req
                                };
                                async move {
                                    let resp = req.send().await.unwrap();
                                    let status = resp.status().as_u16();
                                    (status, resp.text().await.unwrap())
                                }
                            };
                            *walked.entry(at.clone()).or_insert(0) += 1;
                            tampered.push((at.clone(), space.name, other.1.name));
                            let got = send(&swapped).await;
                            let refused = send(&missing).await;
                            if got.0 < 400 || got != refused {
                                wrong.push(format!("{m} {swapped} ({}'s signature on {}'s object): {got:?}, a missing one {refused:?}", space.name, other.1.name));
                            }
                        }
                    }
                }
                Names::Fields { names, list } => {
                    if list && m == Method::GET {
                        lists.push(template.clone());
                    }
                    for (i, space) in w.spaces.iter().enumerate() {
                        let (path, b) = match fill_fields(method, template, &names, &space.objects)
                        {
                            Ok(filled) => filled,
                            Err(e) => {
                                unknown.push(format!("{at}: {e}"));
                                break;
                            }
                        };
                        for who in w.callers.iter().filter(|c| !reaches(c, i, template)) {
                            *walked.entry(at.clone()).or_insert(0) += 1;
                            let same = (path.as_str(), b.clone());
                            if let Some(e) = expect(who, &m, &path, b.clone(), same).await {
                                wrong.push(format!("{e} {b:?} ({}'s object)", space.name));
                            }
                        }
                    }
                }
                Names::Nothing if m == Method::GET => lists.push(template.clone()),
                Names::Nothing => {}
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "operations the walk does not know how to fill: {unknown:#?}"
    );

    // Lists: no other workspace's ids; the caller's own are there.
    let mut listed_ops = 0;
    for template in &lists {
        let kind = template.rsplit('/').next().unwrap();
        if template.contains("/oauth/") || kind == "me" {
            continue; // the caller's own account, no objects
        }
        listed_ops += 1;
        for who in &w.callers {
            let (status, got) = who.api.get(template).await;
            let (want, code) = due(who, template);
            if want == 403 {
                if (status, got["code"].as_str()) != (want, Some(code)) {
                    wrong.push(format!(
                        "{} GET {template}: {status} {got}, want {want}",
                        who.name
                    ));
                }
                continue;
            }
            let ok = if template.contains("zapier") {
                200..=201
            } else {
                200..=200
            };
            if !ok.contains(&status) {
                wrong.push(format!("{} GET {template}: {status} {got}", who.name));
                continue;
            }
            let ids = listed(&got);
            for (i, space) in w.spaces.iter().enumerate() {
                let theirs = owned(kind, &space.objects);
                if reaches(who, i, template) {
                    // The sample of documents shows one document, not the whole list.
                    if kind != "list-documents" && !theirs.iter().all(|id| ids.contains(id)) {
                        wrong.push(format!(
                            "{} GET {template}: {ids:?} lacks its own {theirs:?}",
                            who.name
                        ));
                    }
                } else if theirs.iter().any(|id| ids.contains(id)) {
                    wrong.push(format!(
                        "{} GET {template}: {ids:?} holds {}'s {theirs:?}",
                        who.name, space.name
                    ));
                }
            }
        }
    }

    // Positive controls: each GET that names an object reaches it for its own workspace.
    let mut reached = 0;
    for (template, ops) in doc["paths"].as_object().unwrap() {
        let Some(op) = ops.get("get") else { continue };
        let named = names(&doc, template, op);
        for (i, space) in w.spaces.iter().enumerate() {
            let path = match &named {
                Ok(Names::Path(params)) => fill(template, params, &space.objects).unwrap(),
                Ok(Names::Fields { names, .. }) => Some(
                    fill_fields("get", template, names, &space.objects)
                        .unwrap()
                        .0,
                ),
                _ => None,
            };
            let Some(path) = path else {
                continue;
            };
            for who in w.callers.iter().filter(|c| reaches(c, i, template)) {
                let (status, got) = who.api.get(&path).await;
                // Reached: 200, or 400 `invalid_state` where the object is in a state the
                // operation does not serve (a DRAFT has no signed PDF to download yet).
                let (want, _) = due(who, &path);
                let answered = (status, got["code"].as_str());
                let expected = if want == 403 { 403 } else { 200 };
                if status != expected && answered != (400, Some("invalid_state")) {
                    wrong.push(format!(
                        "{} GET {path} (its own): {status} {got}, want {expected}",
                        who.name
                    ));
                }
                reached += 1;
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong answers: {wrong:#?}",
        wrong.len()
    );
    let at_least = [
        "GET /api/v1/documents/{id}",
        "DELETE /api/v1/templates/{id}/fields/{fieldId}",
        "POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
        "POST /api/v1/bookings/{id}/cancel",
        "DELETE /api/integrations/zapier/deleteSubscription",
        "POST /api/v1/zapier/unsubscribe",
        "GET /api/v1/downloads/{blobId}/{fileName}",
        "GET /api/v2/folder",
        "POST /api/v2/folder/delete",
        "GET /api/v2/envelope/attachment",
        "POST /api/v2/document/attachment/update",
        "PUT /api/v1/uploads/{dataId}",
    ];
    for op in at_least {
        assert!(walked.contains_key(op), "{op} was not walked: {walked:?}");
    }
    // The owner's download link of team A's document, made to name team B's file.
    let download = "GET /api/v1/downloads/{blobId}/{fileName}".to_string();
    assert!(
        tampered.contains(&(download, "team A", "team B")),
        "{tampered:?}"
    );
    let missed: Vec<&String> = naming.iter().filter(|o| !walked.contains_key(*o)).collect();
    assert!(missed.is_empty(), "not walked: {missed:?}");
    assert!(
        listed_ops >= 7 && reached >= 30,
        "{listed_ops} lists, {reached} reached"
    );

    // The app cannot name its user's team by the pages' header either: that is read with the
    // session only.
    let app_caller = w.callers.iter().find(|c| c.app).unwrap();
    for (i, want) in [(0, 404), (2, 200)] {
        let path = format!("/api/v1/documents/{}", w.spaces[i].objects.document);
        let resp = app_caller
            .api
            .request(Method::GET, &path)
            .header("x-docket-workspace", "sales")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), want, "{path} with the header");
    }

    // Nothing was removed or changed by the walk: every object still answers its owner.
    for (i, space) in w.spaces.iter().enumerate() {
        let owner = w.callers.iter().find(|c| c.home == Some(i)).unwrap();
        let doc = owner.api.document(space.objects.document).await;
        assert_eq!(doc["title"], "NDA", "{doc}");
        assert_eq!(doc["recipients"].as_array().map(Vec::len), Some(2), "{doc}");
    }
}
