//! `GET /` signed in, and `GET /t/{slug}` for a team: the dashboard (`pages/app/dashboard.html`). The tabs, the search and the
//! pages are plain links and a GET form (`?tab=&q=&page=`), so it all works without script;
//! what it lists is `signing::documents::listing::dashboard`, called as the user's browser.

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::timefmt::{human, iso8601};
use crate::http::pages::app::folders::Bar;
use crate::http::pages::app::nav::{Nav, Section};
use crate::http::pages::app::workspace::Place;
use crate::http::reply::{self, page};
use crate::http::server::state::AppState;
use crate::http::session::{SignedIn, optional, urlencode};
use crate::signing::documents::listing::{self, Ask, Dashboard, Entry, Tab};
use crate::signing::documents::model::Recipient;
use crate::signing::documents::recipients::{ReadStatus, Role, SigningStatus};
use crate::signing::documents::{InFolder, Status};
use crate::signing::folders::{self, Kind};
use crate::signing::workflow;

/// The dashboard's query: the tab, the search and the page, as typed (what each means is
/// read here: an unknown tab is the default one, a page that is no number the first).
#[derive(serde::Deserialize)]
pub struct DashboardQuery {
    tab: Option<String>,
    q: Option<String>,
    page: Option<String>,
    /// The folder shown (`signing::folders`); absent: the root.
    folder: Option<String>,
}

/// The dashboard of the signed-in `user` in `at` for the query `q`. A search the use case
/// refuses is shown next to the search box, over the tab without it.
pub async fn show(
    state: AppState,
    at: Place,
    (session, user): SignedIn,
    q: DashboardQuery,
) -> Result<Response, AppError> {
    let folder = q.folder.filter(|f| !f.is_empty());
    let ask = Ask {
        tab: q.tab.as_deref().and_then(Tab::parse),
        search: q.q,
        page: q.page.and_then(|p| p.parse().ok()).unwrap_or(1),
        folder: match &folder {
            Some(id) => InFolder::Folder(id.clone()),
            None => InFolder::Root,
        },
    };
    let (ctx, who) = (state.ctx(), at.principal(&user));
    let nav = Nav::of(&state, &session, &user, Section::Documents, &at).await?;
    let (level, all) = folders::browse(&ctx, &who, Kind::Document, folder.clone()).await?;
    let bar = Bar::of(&nav, Kind::Document, level, &all);
    let typed = ask.search.clone().unwrap_or_default();
    let answer = match listing::dashboard(&ctx, &who, ask.clone()).await {
        Err(e) if e.status() == warp::http::StatusCode::BAD_REQUEST => {
            let without = Ask {
                search: None,
                ..ask
            };
            listing::dashboard(&ctx, &who, without)
                .await
                .map(|d| (d, Some(e.public_message())))
        }
        other => other.map(|d| (d, None)),
    };
    let (d, search_error) = answer?;
    Ok(page(Ok(DashboardPage::of(
        nav,
        d,
        typed,
        search_error,
        bar,
    ))))
}

/// `GET /t/{slug}`: a team's dashboard (the personal one is `GET /`, `pages::home`).
pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path!("t" / String)
        .and(warp::get())
        .and(crate::http::body::query::<DashboardQuery>())
        .and(optional(&state))
        .and(crate::http::with_state(state))
        .then(team)
        .map(reply::answer)
        .boxed()
}

async fn team(
    slug: String,
    q: DashboardQuery,
    who: Option<SignedIn>,
    state: AppState,
) -> Result<Response, AppError> {
    if crate::teams::slug::problem(&slug).is_some() {
        return Err(AppError::not_found("team"));
    }
    let Some(signed) = who else {
        return Ok(super::document::sign_in_first(&format!("/t/{slug}")));
    };
    show(state, Place::Team(slug), signed, q).await
}

/// The dashboard page.
#[derive(Template)]
#[template(path = "app/dashboard.html")]
struct DashboardPage {
    nav: Nav,
    tab: Tab,
    tabs: Vec<TabLink>,
    /// What the search box holds (as typed), the search applied, and its refusal if any.
    typed: String,
    search: Option<String>,
    search_error: Option<String>,
    /// Nothing at all yet: the invitation to upload instead of the lists.
    new: bool,
    /// How many the tab holds (with the search), in words: "3 documents".
    found: String,
    rows: Vec<Row>,
    page: i64,
    pages: i64,
    previous: Option<String>,
    next: Option<String>,
    /// The tab's link without the search.
    clear: String,
    /// The folders: the path to the one shown, its sub-folders, their forms.
    folders: Bar,
    /// The folder shown, for the search form (empty at the root).
    folder: String,
}

/// A tab: its link, name, count and whether it is the one shown.
struct TabLink {
    href: String,
    label: &'static str,
    count: i64,
    current: bool,
}

/// A document's row.
struct Row {
    title: String,
    href: String,
    /// The status as a badge: its words and tone (`ok`, `warn`, `bad` or none).
    status: &'static str,
    tone: &'static str,
    /// Under the title: who sent it (Inbox) or how far signing has come (pending).
    note: Option<String>,
    recipients: Vec<Mark>,
    changed: String,
    changed_iso: String,
    action: Action,
}

/// What a row's button does: its words and its link.
struct Action {
    label: &'static str,
    href: String,
    primary: bool,
}

/// A recipient and their status, as an icon (`kind`, a class) and words.
struct Mark {
    name: String,
    email: String,
    /// "copy" for a CC, who only receives the result.
    role: Option<&'static str>,
    kind: &'static str,
    words: &'static str,
}

impl DashboardPage {
    fn of(
        nav: Nav,
        d: Dashboard,
        typed: String,
        search_error: Option<String>,
        folders: Bar,
    ) -> DashboardPage {
        let (home, base) = (nav.link("/"), nav.base());
        let folder = folders
            .current
            .as_ref()
            .map(|c| c.id.clone())
            .unwrap_or_default();
        let link = |tab: Tab, search: Option<&str>, page: i64| {
            let mut href = format!("{home}?tab={}", tab.as_str());
            if !folder.is_empty() {
                href.push_str(&format!("&folder={}", urlencode(&folder)));
            }
            if let Some(s) = search {
                href.push_str(&format!("&q={}", urlencode(s)));
            }
            if page > 1 {
                href.push_str(&format!("&page={page}"));
            }
            href
        };
        let search = d.search.as_deref();
        let tabs = Tab::EVERY
            .into_iter()
            .map(|t| TabLink {
                href: link(t, search, 1),
                label: t.label(),
                count: d.counts.of(t),
                current: t == d.tab,
            })
            .collect();
        DashboardPage {
            nav,
            tab: d.tab,
            tabs,
            typed,
            new: d.is_new() && folders.current.is_none() && folders.children.is_empty(),
            found: match d.total {
                1 => "1 document".into(),
                n => format!("{n} documents"),
            },
            rows: d.entries.iter().map(|e| Row::of(e, &base)).collect(),
            page: d.page,
            pages: d.pages,
            previous: (d.page > 1).then(|| link(d.tab, search, d.page - 1)),
            next: (d.page < d.pages).then(|| link(d.tab, search, d.page + 1)),
            clear: link(d.tab, None, 1),
            search: d.search.clone(),
            search_error,
            folders,
            folder,
        }
    }
}

impl Row {
    /// The row of `e`, on a page whose links start with `base`.
    fn of(e: &Entry, base: &str) -> Row {
        let doc = &e.document;
        let (status, tone) = match doc.status {
            Status::Draft => ("Draft", ""),
            Status::Pending => ("Pending", "warn"),
            Status::Completed => ("Completed", "ok"),
            Status::Rejected => ("Rejected", "bad"),
            Status::Cancelled => ("Cancelled", ""),
        };
        let (href, action, note) = match &e.mine {
            Some(me) => {
                let sign = format!("/sign/{}", me.token);
                // In a signing order, the signing page waits for those before me.
                let parties = workflow::parties(&doc.recipients);
                let my_turn =
                    workflow::current_turn(doc.meta.signing_order, &parties).contains(&me.id);
                let action = Action {
                    label: sign_words(me.role),
                    href: sign.clone(),
                    primary: my_turn,
                };
                let mut note = e
                    .sender
                    .as_ref()
                    .map(|s| format!("From {} ({})", s.name, s.email));
                if !my_turn {
                    let wait = "your turn comes after the others before you have signed";
                    note = Some(match note {
                        Some(from) => format!("{from}; {wait}"),
                        None => wait.to_string(),
                    });
                }
                (sign, action, note)
            }
            None => owned(base, doc.id, doc.status, &doc.recipients),
        };
        Row {
            title: doc.title.clone(),
            href,
            status,
            tone,
            note,
            recipients: doc
                .recipients
                .iter()
                .map(|r| Mark::of(r, doc.status))
                .collect(),
            changed: human(doc.updated_at),
            changed_iso: iso8601(doc.updated_at),
            action,
        }
    }
}

/// The link, the action and the note of the owner's own document.
fn owned(
    base: &str,
    id: crate::core::ids::DocumentId,
    status: Status,
    recipients: &[Recipient],
) -> (String, Action, Option<String>) {
    let page = format!("{base}/documents/{id}");
    match status {
        Status::Draft => {
            let edit = format!("{page}/edit");
            let action = Action {
                label: "Edit",
                href: edit.clone(),
                primary: false,
            };
            (edit, action, None)
        }
        Status::Completed => {
            let action = Action {
                label: "Download",
                href: format!("{page}/download/signed.pdf"),
                primary: false,
            };
            (page, action, None)
        }
        Status::Pending => {
            let acting: Vec<&Recipient> =
                recipients.iter().filter(|r| r.role != Role::Cc).collect();
            let done = acting
                .iter()
                .filter(|r| r.signing_status == SigningStatus::Signed)
                .count();
            let now = crate::core::db::now();
            let late = acting.iter().filter(|r| r.expired(now)).count();
            let note = Some(match late {
                0 => format!("{done} of {} signed", acting.len()),
                n => format!("{done} of {} signed, {n} ran out of time", acting.len()),
            });
            let action = Action {
                label: "View",
                href: page.clone(),
                primary: false,
            };
            (page, action, note)
        }
        Status::Rejected | Status::Cancelled => {
            let action = Action {
                label: "View",
                href: page.clone(),
                primary: false,
            };
            (page, action, None)
        }
    }
}

/// What the Inbox's button says for a recipient of `role`.
fn sign_words(role: Role) -> &'static str {
    match role {
        Role::Approver => "Approve",
        Role::Viewer => "Review",
        Role::Assistant => "Fill in",
        Role::Signer | Role::Cc => "Sign",
    }
}

impl Mark {
    fn of(r: &Recipient, status: Status) -> Mark {
        let (kind, words) = match (r.signing_status, r.read_status) {
            (SigningStatus::Rejected, _) => ("rejected", "rejected"),
            (SigningStatus::Signed, _) => ("signed", done_words(r.role)),
            _ if status == Status::Draft => ("unsent", "not sent yet"),
            _ if status == Status::Pending && r.expired(crate::core::db::now()) => {
                ("expired", "time ran out")
            }
            (_, ReadStatus::Opened) => ("opened", "opened"),
            (_, ReadStatus::NotOpened) => ("unopened", "not opened"),
        };
        Mark {
            name: r.name.clone(),
            email: r.email.clone(),
            role: (r.role == Role::Cc).then_some("copy"),
            kind,
            words,
        }
    }
}

/// What a recipient of `role` who finished did.
fn done_words(role: Role) -> &'static str {
    match role {
        Role::Approver => "approved",
        Role::Viewer => "viewed",
        Role::Assistant => "filled in",
        Role::Signer | Role::Cc => "signed",
    }
}
