//! Every object of another team or another user is a 404 on the owner's pages too, walked with
//! the page routes the source declares (`warp::path!` under `src/http/pages/`) as the list: two
//! teams (the first with an admin, a manager and a member) and a personal user, each signed in,
//! open and post every page that names an object (documents, their downloads and page images,
//! templates, the editor, webhooks and their deliveries, API tokens, members, invitations) with
//! the objects of the workspaces they are not in, under their own workspace's path, the other
//! team's `/t/{slug}` and the personal `/`, and must get 404; every page of a team under its
//! `/t/{slug}` is 404 for those not in it. A route the walk cannot fill fails the test, so a new
//! page cannot slip past; the same GETs by whoever does reach the object are 200, so the walk
//! cannot pass by refusing everything; the forms' posts (with a valid CSRF token) change
//! nothing. A team's document its admins alone see is 404 for its managers and members. The
//! pages without an object (dashboards, lists, settings) show no link to another workspace's
//! objects and no address of its people, and do show their own.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::api::{Api, fixture, two_recipients};
use crate::support::login::{Browser, PASSWORD, add_account, browser};
use crate::support::webhook::Receiver;
use crate::support::{TestApp, docket_json};
use crate::teams_walk::{Objects, objects};

/// Page routes that name no object of a workspace, with why: a signing link's or an e-mail's
/// token is its own credential, the account pages act on the signed-in user's own account (a
/// grant's revoke form carries a token bound to the grant, shown only on its user's page;
/// another account's passkey is a 404, `recipient_auth::passkey`), and `/teams` lists and
/// makes the user's own teams.
const NOT_OWNERS: &[(&str, &str)] = &[
    ("/auth/forgot", "asks for a reset mail"),
    ("/auth/forgot/sent", "says a reset mail went"),
    ("/auth/reset/{}", "the mail's token is the credential"),
    ("/auth/login", "signs in"),
    ("/auth/logout", "signs out"),
    ("/auth/login/verify", "the second step of signing in"),
    (
        "/auth/login/passkey/options",
        "the second step of signing in",
    ),
    ("/auth/login/passkey", "the second step of signing in"),
    (
        "/auth/signup/{}",
        "the invitation's token is the credential",
    ),
    ("/sign/{}/account", "the signing link is the credential"),
    ("/sign/{}/pages/{}", "the signing link is the credential"),
    ("/sign/{}", "the signing link is the credential"),
    ("/sign/{}/download", "the signing link is the credential"),
    (
        "/sign/{}/fields/{}/signature.png",
        "the signing link is the credential",
    ),
    ("/d/{}", "a template's direct link is public"),
    ("/embed/sign/{}", "the signing link is the credential"),
    ("/embed/direct/{}", "a template's direct link is public"),
    (
        "/invitations/{}",
        "the invitation's token is the credential",
    ),
    ("/account", "the user's own account"),
    (
        "/account/apps/{}/revoke",
        "a token bound to the user's grant",
    ),
    ("/account/confirm", "the user's own account"),
    ("/account/confirm/passkey/options", "the user's own account"),
    ("/account/confirm/passkey", "the user's own account"),
    ("/account/name", "the user's own account"),
    ("/account/password", "the user's own account"),
    ("/account/email", "the user's own account"),
    ("/account/language", "the user's own account"),
    ("/account/deadline", "the user's own account"),
    ("/account/email/{}", "the mail's token is the credential"),
    ("/account/email-changed", "says the address changed"),
    ("/account/totp", "the user's own account"),
    ("/account/totp/recovery-codes", "the user's own account"),
    ("/account/totp/start", "the user's own account"),
    ("/account/totp/confirm", "the user's own account"),
    ("/account/totp/disable", "the user's own account"),
    ("/account/passkeys/options", "the user's own account"),
    ("/account/passkeys", "the user's own account"),
    (
        "/account/passkeys/{}/rename",
        "the user's own passkeys (another's: 404)",
    ),
    (
        "/account/passkeys/{}/delete",
        "the user's own passkeys (another's: 404)",
    ),
    ("/teams", "the user's own teams"),
    (
        "/verify",
        "the public check of a sealed PDF names no object",
    ),
];

/// Pages that read nothing of the workspace their path names, with why: they answer any slug
/// alike (a team that does not exist too), and where they lead is walked.
const READ_NOTHING: &[(&str, &str)] = &[(
    "/settings",
    "sends a team's settings to their members tab, a user's to their tokens",
)];

/// A team's pages that the personal workspace does not have (404 at `/...`).
const TEAMS_ONLY: &[&str] = &["/settings/members", "/settings/general", "/settings/delete"];

/// Forms that name their object in a field rather than in the path.
const NAMED_BY_FORM: &[&str] = &["/settings/members/invitations/revoke"];

/// One `warp::path!` of a page, as declared.
#[derive(Debug)]
struct Route {
    file: String,
    /// The macro's segments: `"documents"` (a literal, quoted), `DocumentId`, `String`...
    segments: Vec<String>,
    method: Option<Method>,
    /// Whether the file's routes start with `workspace::place()` (`/...` and `/t/{slug}/...`).
    placed: bool,
}

impl Route {
    /// The path's shape: literals as they are, `{}` for a typed segment.
    fn shape(&self) -> String {
        self.segments
            .iter()
            .map(|s| match s.strip_prefix('"') {
                Some(lit) => format!("/{}", lit.trim_end_matches('"')),
                None => "/{}".to_string(),
            })
            .collect()
    }

    fn at(&self) -> String {
        let m = self.method.as_ref().map_or("?", Method::as_str);
        format!("{m} {} ({})", self.shape(), self.file)
    }

    /// A team's dashboard, `/t/{slug}` (the place of the other pages, written out).
    fn dashboard(&self) -> bool {
        self.shape() == "/t/{}"
    }

    /// Whether the route names an object (in its path or its form), not only the workspace.
    fn names_object(&self) -> bool {
        let shape = self.shape();
        (shape.contains("{}") && !self.dashboard()) || NAMED_BY_FORM.contains(&shape.as_str())
    }
}

/// Every `warp::path!` under `src/http/pages/` outside unit tests, with the method its filter
/// chain asks for next (`warp::get()`, `warp::post()`...).
fn declared() -> Vec<Route> {
    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/http/pages");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut routes = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let source = text.split("#[cfg(test)]").next().unwrap();
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        let mut rest = source;
        while let Some(at) = rest.find("warp::path!(") {
            rest = &rest[at + "warp::path!(".len()..];
            let end = rest.find(')').expect("a closed macro");
            let segments: Vec<String> = rest[..end]
                .split('/')
                .map(|s| s.trim().to_string())
                .collect();
            rest = &rest[end..];
            if segments.last().is_some_and(|s| s == "..") {
                continue; // `workspace::place()` itself
            }
            let method = [
                ("warp::get()", Method::GET),
                ("warp::post()", Method::POST),
                ("warp::put()", Method::PUT),
                ("warp::patch()", Method::PATCH),
                ("warp::delete()", Method::DELETE),
            ]
            .into_iter()
            .filter_map(|(call, m)| rest.find(call).map(|i| (i, m)))
            .min_by_key(|(i, _)| *i)
            .map(|(_, m)| m);
            routes.push(Route {
                file: name.clone(),
                segments,
                method,
                placed: source.contains("place()"),
            });
        }
    }
    routes
}

/// One workspace with its objects.
struct Space {
    name: &'static str,
    /// The team's slug; `None` for the personal workspace.
    slug: Option<&'static str>,
    objects: Objects,
    /// The API key its owner made the objects with, and the key's id (an API token).
    key: Api,
    token: i64,
    /// A member who is not its admin (teams only), by user id and address.
    member: Option<i64>,
    member_email: Option<&'static str>,
    /// An address with a pending invitation (teams only).
    invited: Option<&'static str>,
    /// A document only its admins see (team A only).
    admins_only: Option<i64>,
    /// A bulk send of its template, done.
    bulk_send: i64,
    /// A document folder of its (`signing::folders`), made on its dashboard by its owner.
    folder: String,
    /// A link attachment of its document, added by its owner's form.
    attachment: String,
}

/// A signed-in user.
struct Caller {
    name: &'static str,
    email: &'static str,
    browser: Browser,
    /// Its team's slug, if any.
    team: Option<&'static str>,
    /// The workspace (index in `spaces`) whose objects it reaches, if any.
    home: Option<usize>,
    admin: bool,
}

/// The ids a page path can name, of one workspace.
struct Ids {
    document: i64,
    template: i64,
    webhook: i64,
    delivery: i64,
    token: i64,
    bulk_send: i64,
    folder: String,
    attachment: String,
    member: Option<i64>,
    slug: Option<&'static str>,
}

impl Ids {
    fn of(s: &Space) -> Ids {
        let o = &s.objects;
        Ids {
            document: o.document,
            template: o.template,
            webhook: o.webhook,
            delivery: o.delivery,
            token: s.token,
            bulk_send: s.bulk_send,
            folder: s.folder.clone(),
            attachment: s.attachment.clone(),
            member: s.member,
            slug: s.slug,
        }
    }

    /// Ids no workspace has (in the team `slug`): what a caller gets for no object at all.
    fn missing(slug: Option<&'static str>) -> Ids {
        let none = 999_999;
        Ids {
            document: none,
            template: none,
            webhook: none,
            delivery: none,
            token: none,
            bulk_send: none,
            folder: "0".repeat(24),
            attachment: format!("att_{}", "0".repeat(24)),
            member: Some(none),
            slug,
        }
    }
}

/// The paths (without the place) that `route` has with the ids `o`: none when there is no
/// object of a kind it names (a personal workspace has no members), an error when the walk
/// does not know a segment.
fn fill(route: &Route, o: &Ids) -> Result<Vec<String>, String> {
    let mut paths = vec![String::new()];
    let mut previous = "";
    for seg in &route.segments {
        let values: Vec<String> = if let Some(lit) = seg.strip_prefix('"') {
            vec![lit.trim_end_matches('"').to_string()]
        } else {
            let one = |v: i64| vec![v.to_string()];
            match (previous, seg.as_str()) {
                ("documents", "DocumentId") => one(o.document),
                ("templates", "TemplateId") => one(o.template),
                ("webhooks", "i64") => one(o.webhook),
                ("deliveries", "i64") => one(o.delivery),
                ("tokens", "i64") => one(o.token),
                ("bulk-sends", "BulkSendId") => one(o.bulk_send),
                ("folders", "String") => vec![o.folder.clone()],
                ("attachments", "AttachmentId") => vec![o.attachment.clone()],
                ("members", "UserId") => o.member.map(one).unwrap_or_default(),
                ("download", "String") => vec!["original.pdf".into(), "audit-log.csv".into()],
                ("pages", "String") => vec!["1.png".into()],
                ("t", "String") => o.slug.map(|t| vec![t.to_string()]).unwrap_or_default(),
                _ => return Err(format!("cannot fill {seg} after {previous:?}")),
            }
        };
        paths = paths
            .iter()
            .flat_map(|p| values.iter().map(move |v| format!("{p}/{v}")))
            .collect();
        previous = seg.trim_matches('"');
    }
    Ok(paths)
}

/// The fields a post of `shape` sends (besides the CSRF token), valid for an object the caller
/// reaches; an error for a form the walk does not know.
fn form(shape: &str, s: &Space, rx: &Receiver) -> Result<Vec<(&'static str, String)>, String> {
    let hook = || {
        vec![
            ("url", rx.url()),
            ("event.DOCUMENT_SIGNED", "on".into()),
            ("enabled", "on".into()),
        ]
    };
    Ok(match shape {
        "/settings/general" => vec![
            ("name", "Taken".into()),
            ("sender_name", "Taken".into()),
            ("signing_order", "PARALLEL".into()),
            ("date_format", "yyyy-MM-dd".into()),
            ("time_zone", "Europe/Paris".into()),
            ("redirect_url", String::new()),
        ],
        "/settings/tokens" => vec![("name", "Taken".into()), ("expiry", "never".into())],
        "/settings/embedding" => vec![("origins", "https://taken.example".into())],
        "/settings/webhooks" | "/settings/webhooks/{}" => hook(),
        "/settings/webhooks/{}/test" => vec![("event", "DOCUMENT_CREATED".into())],
        "/settings/members/invite" => vec![
            ("email", "zed@example.com".into()),
            ("role", "ADMIN".into()),
        ],
        "/settings/members/invitations/revoke" => {
            vec![("email", s.invited.unwrap_or("nobody@example.com").into())]
        }
        "/settings/members/{}/role" => vec![("role", "ADMIN".into())],
        "/templates/{}/use" => vec![("action", "draft".into()), ("title", "Taken".into())],
        // A link a leak would add to (or put in place of) the object's: the snapshots show it.
        "/documents/{}/attachments"
        | "/templates/{}/attachments"
        | "/documents/{}/attachments/{}"
        | "/templates/{}/attachments/{}" => vec![
            ("label", "Taken".into()),
            ("url", "https://taken.example/".into()),
        ],
        // A file the template would send (a leak would make documents: the snapshots show it).
        "/templates/{}/bulk-send" => vec![("csv", bulk_csv()), ("file_name", "taken.csv".into())],
        // Form-encoded, without a file: the template is looked up before the file is read.
        "/templates/{}/bulk-send/preview" => vec![("send_email", "on".into())],
        // Into team A, where most callers are: the object is checked first, whatever the team.
        "/documents/{}/move" | "/templates/{}/move" => vec![("team", "sales".into())],
        // A new folder in the workspace; a folder renamed; an item into the space's folder.
        "/folders" => vec![("name", "Taken".into())],
        "/folders/{}" => vec![("what", "rename".into()), ("name", "Taken".into())],
        "/documents/{}/folder" => vec![("folder", s.folder.clone())],
        "/templates/{}/folder" => vec![("folder", String::new())],
        // The whole team, confirmed as its admin would: a leak would end it (the snapshots
        // after the walk would show it).
        "/settings/delete" => vec![
            ("fate", "delete".into()),
            ("confirm", s.slug.unwrap_or("none").into()),
        ],
        "/settings/tokens/{}/revoke"
        | "/documents/{}/template"
        | "/documents/{}/attachments/{}/delete"
        | "/templates/{}/attachments/{}/delete"
        | "/settings/webhooks/{}/delete"
        | "/settings/webhooks/{}/deliveries/{}/redeliver"
        | "/settings/members/{}/remove"
        | "/folders/{}/delete"
        | "/bulk-sends/{}/cancel" => Vec::new(),
        _ => return Err(format!("no form known for POST {shape}")),
    })
}

/// A bulk send's file for the walk's template (its one recipient has an address), as the
/// preview page passes it on to the send form: base64 without padding.
fn bulk_csv() -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode("recipient_1_email,recipient_1_name\ntaken@example.com,Taken\n")
}

/// A done bulk send of template `template` by `key` (one row, no e-mail).
async fn bulk_send(key: &Api, template: i64) -> i64 {
    let resp = key
        .request(
            Method::POST,
            &format!("/api/v1/templates/{template}/bulk-send?fileName=walk.csv&sendEmail=false"),
        )
        .header("content-type", "text/csv")
        .body("recipient_1_email\nwalk@example.com\n")
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let run: Value = resp.json().await.unwrap();
    assert_eq!(status, 201, "{run}");
    let id = run["id"].as_i64().unwrap();
    let path = format!("/api/v1/bulk-sends/{id}");
    crate::support::wait::eventually(std::time::Duration::from_secs(30), || async {
        let (_, run) = key.get(&path).await;
        (run["status"] == "DONE")
            .then_some(())
            .ok_or(format!("{run}"))
    })
    .await;
    id
}

/// The path of `path` in the workspace `place` (a team's slug, or `None`: personal).
fn placed(place: Option<&str>, path: &str) -> String {
    match place {
        Some(slug) => format!("/t/{slug}{path}"),
        None => path.to_string(),
    }
}

/// A GET as `who`'s browser (from its own pages, as a download is): the status.
async fn get(app: &TestApp, who: &Browser, path: &str) -> u16 {
    shown(app, who, path).await.0
}

/// As [`get`]: the status and the body.
async fn shown(app: &TestApp, who: &Browser, path: &str) -> (u16, String) {
    let resp = app
        .client
        .get(app.url(path))
        .header("cookie", &who.cookie)
        .header("sec-fetch-site", "same-origin")
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap_or_default())
}

/// What of workspace `s` a page may show: the links to its document, template, webhook and API
/// token, and a team's member's and invited address.
fn marks(s: &Space) -> Vec<String> {
    let o = &s.objects;
    let mut out = Vec::new();
    for (kind, id) in [
        ("documents", o.document),
        ("templates", o.template),
        ("webhooks", o.webhook),
        ("tokens", s.token),
    ] {
        out.push(format!("/{kind}/{id}\""));
        out.push(format!("/{kind}/{id}/"));
    }
    out.extend(s.member_email.map(String::from));
    out.extend(s.invited.map(String::from));
    out
}

/// A post of `fields` with the browser's CSRF token: the status.
async fn post(app: &TestApp, who: &Browser, path: &str, fields: &[(&str, String)]) -> u16 {
    let mut all: Vec<(&str, &str)> = vec![("csrf_token", who.csrf.as_str())];
    all.extend(fields.iter().map(|(k, v)| (*k, v.as_str())));
    let resp = app
        .client
        .post(app.url(path))
        .header("cookie", &who.cookie)
        .header("sec-fetch-site", "same-origin")
        .header("origin", app.url(""))
        .form(&all)
        .send()
        .await
        .unwrap();
    resp.status().as_u16()
}

/// `docket apikey create --user EMAIL [--team SLUG]`: the key's client and id.
fn key(app: &TestApp, email: &str, team: Option<&str>) -> (Api, i64) {
    let mut args = vec!["apikey", "create", "--user", email];
    args.extend(team.map(|t| ["--team", t]).into_iter().flatten());
    let made = docket_json(&app.data_dir(), &args, None);
    (
        app.api(made["key"].as_str().unwrap()),
        made["id"].as_i64().unwrap(),
    )
}

/// What a workspace is, read back by its owner, to compare after the walk: its document and
/// template, its webhook, its lists' totals, and a team's members, invitations and settings.
async fn snapshot(app: &TestApp, s: &Space) -> Value {
    let o = &s.objects;
    let mut shot = json!({});
    for path in [
        format!("/api/v1/documents/{}", o.document),
        format!("/api/v1/templates/{}", o.template),
        format!("/api/v1/webhooks/{}", o.webhook),
        "/api/v1/documents".to_string(),
        "/api/v1/templates".to_string(),
        "/api/v1/webhooks".to_string(),
    ] {
        let (status, got) = s.key.get(&path).await;
        assert_eq!(status, 200, "{} GET {path}: {got}", s.name);
        shot[path] = got;
    }
    if let Some(slug) = s.slug {
        for what in ["members", "invitations", "settings"] {
            shot[what] = docket_json(&app.data_dir(), &["team", what, slug], None);
        }
    }
    shot
}

struct Walk {
    app: TestApp,
    rx: Receiver,
    spaces: Vec<Space>,
    callers: Vec<Caller>,
}

/// Sales (team A: Ada admin, Cy manager, Bob member), Other (team B: Dan admin, Eve member)
/// and Pat on their own, each with one object of every kind.
async fn walk() -> Walk {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let d = app.data_dir();
    let mut ids = std::collections::HashMap::new();
    for (email, name) in [
        ("ada@example.com", "Ada"),
        ("cy@example.com", "Cy"),
        ("bob@example.com", "Bob"),
        ("dan@example.com", "Dan"),
        ("eve@example.com", "Eve"),
        ("pat@example.com", "Pat"),
    ] {
        add_account(&d, email, name);
        let shown = docket_json(&d, &["user", "show", email], None);
        ids.insert(email, shown["id"].as_i64().unwrap());
    }
    for (name, slug, admin) in [
        ("Sales", "sales", "ada@example.com"),
        ("Other", "other", "dan@example.com"),
    ] {
        docket_json(
            &d,
            &["team", "create", name, "--slug", slug, "--admin", admin],
            None,
        );
    }
    for (slug, email, role) in [
        ("sales", "cy@example.com", "MANAGER"),
        ("sales", "bob@example.com", "MEMBER"),
        ("other", "eve@example.com", "MEMBER"),
    ] {
        docket_json(&d, &["team", "add", slug, email, "--role", role], None);
    }
    for (slug, email) in [("sales", "sue@example.com"), ("other", "oz@example.com")] {
        docket_json(&d, &["team", "invite", slug, email], None);
    }

    let rx = Receiver::start(&[]).await;
    let mut spaces = Vec::new();
    for (name, slug, owner, member, invited) in [
        (
            "team A",
            Some("sales"),
            "ada@example.com",
            Some("bob@example.com"),
            Some("sue@example.com"),
        ),
        (
            "team B",
            Some("other"),
            "dan@example.com",
            Some("eve@example.com"),
            Some("oz@example.com"),
        ),
        ("P", None, "pat@example.com", None, None),
    ] {
        let (api, token) = key(&app, owner, slug);
        let objects = objects(&api, &rx, slug.is_none()).await;
        let bulk_send = bulk_send(&api, objects.template).await;
        spaces.push(Space {
            name,
            slug,
            objects,
            key: api,
            token,
            member: member.map(|m| ids[m]),
            member_email: member,
            invited,
            admins_only: None,
            bulk_send,
            folder: String::new(),
            attachment: String::new(),
        });
    }
    // Team A's document only its admins see, with its PDF.
    let mut hidden = two_recipients();
    hidden["visibility"] = json!("ADMIN");
    let made = spaces[0].key.create_document(hidden).await;
    spaces[0]
        .key
        .upload_ok(made.upload_url(), fixture("mixed-sizes-3p.pdf"))
        .await;
    spaces[0].admins_only = Some(made.document_id());

    let mut callers = Vec::new();
    for (name, email, team, home, admin) in [
        ("A admin", "ada@example.com", Some("sales"), Some(0), true),
        ("A manager", "cy@example.com", Some("sales"), Some(0), false),
        ("A member", "bob@example.com", Some("sales"), Some(0), false),
        ("B admin", "dan@example.com", Some("other"), Some(1), true),
        ("P", "pat@example.com", None, Some(2), true),
    ] {
        let b = browser(&app, email).await;
        // Recently confirmed, so that no form asks who it is first.
        let proof = ("password", PASSWORD);
        assert_eq!(
            crate::recipient_auth::confirm_with(&app, &b.cookie, proof).await,
            303
        );
        callers.push(Caller {
            name,
            email,
            browser: b,
            team,
            home,
            admin,
        });
    }
    // Each workspace's folder, made on its dashboard by its owner; its id read back there.
    for (i, s) in spaces.iter_mut().enumerate() {
        let owner = callers
            .iter()
            .find(|c| c.home == Some(i) && c.admin)
            .unwrap();
        let base = s.slug.map(|t| format!("/t/{t}")).unwrap_or_default();
        let form = [
            ("name", "Walk"),
            ("csrf_token", owner.browser.csrf.as_str()),
        ];
        let resp = app
            .client
            .post(app.url(&format!("{base}/folders")))
            .header("cookie", &owner.browser.cookie)
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), 303, "{}'s folder", s.name);
        let list = if base.is_empty() {
            "/".to_string()
        } else {
            base
        };
        let html = app
            .client
            .get(app.url(&list))
            .header("cookie", &owner.browser.cookie)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let at = html
            .find("<span class=\"folder-name\">Walk</span>")
            .unwrap();
        let start = html[..at].rfind("folder=").unwrap() + "folder=".len();
        s.folder = html[start..start + 24].to_string();
    }
    // Each document's link attachment, added by its owner's form.
    for (space, owner) in [(0, 0), (1, 3), (2, 4)] {
        let s: &mut Space = &mut spaces[space];
        let path = placed(
            s.slug,
            &format!("/documents/{}/attachments", s.objects.document),
        );
        let b = &callers[owner].browser;
        let form = [
            ("label", "Terms".to_string()),
            ("url", "https://example.com/terms".to_string()),
        ];
        assert_eq!(post(&app, b, &path, &form).await, 303, "{path}");
        let (status, html) = shown(&app, b, &path).await;
        assert_eq!(status, 200, "{path}");
        let mark = r#"<li class="attachment" id="attachment-"#;
        let at = html.find(mark).expect("the attachment listed") + mark.len();
        s.attachment = html[at..at + html[at..].find('"').unwrap()].to_string();
    }
    Walk {
        app,
        rx,
        spaces,
        callers,
    }
}

/// The workspaces (`None`: personal) where `who` tries `route` with `s`'s objects: its own
/// ones and the object's; for a route that names only the workspace, the object's team.
fn places(route: &Route, who: &Caller, s: &Space) -> Vec<Option<&'static str>> {
    if !route.placed {
        return vec![None];
    }
    if !route.names_object() {
        return s.slug.map(|t| vec![Some(t)]).unwrap_or_default();
    }
    let mut out = vec![None];
    for p in [who.team, s.slug].into_iter().flatten() {
        if !out.contains(&Some(p)) {
            out.push(Some(p));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_object_of_another_workspace_is_a_404_on_every_owners_page_the_source_declares() {
    let w = walk().await;
    let app = &w.app;
    let routes = declared();
    assert!(routes.len() > 40, "found only {} page routes", routes.len());

    let mut unknown = Vec::new();
    let mut owners = Vec::new();
    let mut excused = BTreeSet::new();
    for route in &routes {
        let shape = route.shape();
        if let Some((s, _)) = NOT_OWNERS.iter().find(|(s, _)| *s == shape) {
            excused.insert(*s);
            continue;
        }
        if route.method.is_none() {
            unknown.push(format!("{}: no method", route.at()));
            continue;
        }
        if !route.placed && !route.dashboard() {
            unknown.push(format!("{}: in no workspace", route.at()));
            continue;
        }
        owners.push(route);
    }
    for (s, why) in NOT_OWNERS {
        assert!(excused.contains(s), "{s} ({why}) names no route");
    }

    let before = {
        let mut shots = Vec::new();
        for s in &w.spaces {
            shots.push(snapshot(app, s).await);
        }
        shots
    };

    let mut wrong = Vec::new();
    let mut walked = BTreeSet::new();
    let mut calls = 0;
    for route in &owners {
        let method = route.method.clone().unwrap();
        for (i, s) in w.spaces.iter().enumerate() {
            let paths = match fill(route, &Ids::of(s)) {
                Ok(p) => p,
                Err(e) => {
                    unknown.push(format!("{}: {e}", route.at()));
                    break;
                }
            };
            let fields = if method == Method::POST {
                match form(&route.shape(), s, &w.rx) {
                    Ok(f) => f,
                    Err(e) => {
                        unknown.push(format!("{}: {e}", route.at()));
                        break;
                    }
                }
            } else {
                Vec::new()
            };
            for (n, path) in paths.iter().enumerate() {
                for who in &w.callers {
                    for place in places(route, who, s) {
                        // Its own workspace, where it is: the positive controls below.
                        let own = who.home == Some(i) && place == s.slug;
                        if own || (route.dashboard() && who.home == Some(i)) {
                            continue;
                        }
                        let at = if route.dashboard() {
                            path.clone()
                        } else {
                            placed(place, path)
                        };
                        let status = if method == Method::GET {
                            get(app, &who.browser, &at).await
                        } else {
                            post(app, &who.browser, &at, &fields).await
                        };
                        calls += 1;
                        walked.insert(route.at());
                        // Refused in its own team whatever the id (a role's refusal), as a
                        // missing object is: that tells nothing of the object.
                        if status == 403 && place.is_some() && place == who.team {
                            let none = &fill(route, &Ids::missing(place)).unwrap()[n];
                            let missing = placed(place, none);
                            let again = if method == Method::GET {
                                get(app, &who.browser, &missing).await
                            } else {
                                post(app, &who.browser, &missing, &fields).await
                            };
                            if again == 403 {
                                continue;
                            }
                        }
                        // A page that reads nothing of the workspace: as for one that does
                        // not exist.
                        if READ_NOTHING.iter().any(|(s, _)| *s == route.shape()) {
                            let nobody = placed(Some("nobody"), path);
                            let missing = get(app, &who.browser, &nobody).await;
                            if status == missing && status != 200 {
                                continue;
                            }
                        }
                        if status != 404 {
                            wrong.push(format!(
                                "{} {method} {at} ({}'s): {status}, want 404",
                                who.name, s.name
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "page routes the walk does not know how to fill: {unknown:#?}"
    );

    // A team's document only its admins see: 404 for its managers and members, on its page,
    // its files and its images; its admin reaches them.
    let hidden = w.spaces[0].admins_only.unwrap();
    for tail in [
        "",
        "/edit",
        "/pages/1.png",
        "/download/original.pdf",
        "/download/audit-log.csv",
    ] {
        let path = format!("/t/sales/documents/{hidden}{tail}");
        for who in w.callers.iter().filter(|c| c.home == Some(0)) {
            let status = get(app, &who.browser, &path).await;
            let want = if who.admin { 200 } else { 404 };
            if status != want {
                wrong.push(format!("{} GET {path}: {status}, want {want}", who.name));
            }
        }
    }

    // Positive controls: every GET reaches the object in its own workspace's path, for its
    // owner; a team's other members reach what is not its admins' alone (its settings but
    // the members page are).
    let mut reached = 0;
    for route in owners.iter().filter(|r| r.method == Some(Method::GET)) {
        let shape = route.shape();
        let admins_only = shape.starts_with("/settings/") && shape != "/settings/members";
        for (i, s) in w.spaces.iter().enumerate() {
            let teams_only = s.slug.is_none() && TEAMS_ONLY.contains(&shape.as_str());
            for path in fill(route, &Ids::of(s)).unwrap() {
                let at = if route.dashboard() {
                    path.clone()
                } else {
                    placed(s.slug, &path)
                };
                for who in w.callers.iter().filter(|c| c.home == Some(i)) {
                    if teams_only || (admins_only && !who.admin) {
                        continue;
                    }
                    let status = get(app, &who.browser, &at).await;
                    // `/settings` opens its first tab.
                    let want = if shape == "/settings" { 303 } else { 200 };
                    if status != want {
                        wrong.push(format!(
                            "{} GET {at} (its own): {status}, want {want}",
                            who.name
                        ));
                    }
                    reached += 1;
                }
            }
        }
    }

    // The lists: a caller's pages, in each workspace it is in, show nothing of another's
    // (nor a team's managers and members its admins' document); each workspace's own pages
    // show its own.
    let lists: Vec<String> = owners
        .iter()
        .filter(|r| r.method == Some(Method::GET) && r.placed && !r.shape().contains("{}"))
        .map(|r| r.shape())
        .chain(["/?tab=all".to_string()])
        .collect();
    let hidden_marks = [
        format!("/documents/{hidden}\""),
        format!("/documents/{hidden}/"),
    ];
    for who in &w.callers {
        for place in [None, who.team] {
            for list in &lists {
                let at = match (place, list.as_str()) {
                    (Some(slug), "/?tab=all") => format!("/t/{slug}?tab=all"),
                    _ => placed(place, list),
                };
                let (status, html) = shown(app, &who.browser, &at).await;
                if status != 200 {
                    continue;
                }
                let mut not_theirs: Vec<String> = w
                    .spaces
                    .iter()
                    .enumerate()
                    .filter(|(i, s)| who.home != Some(*i) || place != s.slug)
                    .flat_map(|(_, s)| marks(s))
                    .filter(|m| m != who.email)
                    .collect();
                if !who.admin {
                    not_theirs.extend(hidden_marks.iter().cloned());
                }
                for mark in not_theirs.iter().filter(|m| html.contains(m.as_str())) {
                    wrong.push(format!("{} GET {at}: shows {mark}", who.name));
                }
            }
        }
    }
    for (i, s) in w.spaces.iter().enumerate() {
        let owner = w
            .callers
            .iter()
            .find(|c| c.home == Some(i) && c.admin)
            .unwrap();
        let o = &s.objects;
        let mut own = vec![
            ("/?tab=all", format!("/documents/{}/", o.document)),
            ("/templates", format!("/templates/{}\"", o.template)),
            ("/settings/webhooks", format!("/webhooks/{}\"", o.webhook)),
            ("/settings/tokens", format!("/tokens/{}/", s.token)),
        ];
        if let (Some(member), Some(invited)) = (s.member_email, s.invited) {
            own.push(("/settings/members", member.to_string()));
            own.push(("/settings/members", invited.to_string()));
        }
        if i == 0 {
            own.push(("/?tab=all", format!("/documents/{hidden}/")));
        }
        for (list, mark) in own {
            let at = match (s.slug, list) {
                (Some(slug), "/?tab=all") => format!("/t/{slug}?tab=all"),
                _ => placed(s.slug, list),
            };
            let (status, html) = shown(app, &owner.browser, &at).await;
            if status != 200 || !html.contains(&mark) {
                wrong.push(format!(
                    "{} GET {at} (its own): {status}, lacks {mark}",
                    owner.name
                ));
            }
        }
    }

    assert!(
        wrong.is_empty(),
        "{} wrong answers: {wrong:#?}",
        wrong.len()
    );
    for must in [
        "GET /documents/{} (app/document.rs)",
        "GET /documents/{}/download/{} (app/document.rs)",
        "GET /documents/{}/pages/{} (app/preview.rs)",
        "GET /templates/{}/pages/{} (app/preview.rs)",
        "GET /templates/{}/edit (app/editor.rs)",
        "POST /templates/{}/use (app/template_use.rs)",
        "POST /settings/webhooks/{} (app/settings_webhook.rs)",
        "POST /settings/webhooks/{}/deliveries/{}/redeliver (app/settings_webhook.rs)",
        "POST /settings/tokens/{}/revoke (app/settings_tokens.rs)",
        "POST /settings/members/{}/remove (app/settings_members.rs)",
        "POST /settings/members/invitations/revoke (app/settings_members.rs)",
        "GET /t/{} (app/dashboard.rs)",
    ] {
        assert!(walked.contains(must), "{must} was not walked: {walked:#?}");
    }
    let missed: Vec<String> = owners
        .iter()
        .map(|r| r.at())
        .filter(|a| !walked.contains(a))
        .collect();
    assert!(missed.is_empty(), "not walked: {missed:#?}");
    assert!(
        calls > 300 && reached >= 40,
        "{calls} calls, {reached} reached"
    );

    // The posts changed nothing: each workspace reads as it did, its owner's key still works.
    for (s, was) in w.spaces.iter().zip(&before) {
        let now = snapshot(app, s).await;
        assert_eq!(&now, was, "{} changed", s.name);
    }
}
