//! `GET /templates`: the owner's templates, newest first, in pages; `GET /templates/{id}`: one
//! template's details page (its id and its recipients' ids for API users, its pages, and
//! Use, Edit, Duplicate and Delete, and its direct link; `?saved=document` after "Save as
//! template" on a document's page says where it came from). Both read through `templates::manage`
//! as the user's browser; another user's template is the 404 page. Duplicate, Delete and the
//! direct link's changes are the API's own calls, made by `assets/js/template.js`.

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::folders::{Bar, Pick};
use super::nav::{Nav, Section};
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::{RecipientId, TemplateId};
use crate::core::timefmt::{human, iso8601};
use crate::http::reply::{self, page};
use crate::http::server::state::AppState;
use crate::http::session::{SignedIn, signed_in};
use crate::signing::documents::InFolder;
use crate::signing::documents::model::Recipient;
use crate::signing::documents::recipients::Role;
use crate::signing::folders::{self, Kind};
use crate::signing::templates::{direct, manage, model, placeholder_number};

/// Templates on one page of the list.
const PER_PAGE: i64 = 20;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let list = place()
        .and(warp::path!("templates"))
        .and(warp::get())
        .and(crate::http::body::query::<PageQuery>())
        .and(signed_in(&state, "/templates"))
        .and(crate::http::with_state(state.clone()))
        .then(list)
        .map(reply::answer);
    let details = place()
        .and(warp::path!("templates" / TemplateId))
        .and(warp::get())
        .and(crate::http::body::query::<DetailsQuery>())
        .and(signed_in(&state, "/templates"))
        .and(crate::http::with_state(state))
        .then(details)
        .map(reply::answer);
    list.or(details).unify().boxed()
}

/// `?page=`: which page of the list (the first when absent or not a number).
#[derive(serde::Deserialize)]
struct PageQuery {
    page: Option<String>,
    /// The folder shown (`signing::folders`); absent: the root.
    folder: Option<String>,
}

/// `?saved=document`: the template was just made from a document (`as_template`).
#[derive(serde::Deserialize)]
struct DetailsQuery {
    saved: Option<String>,
}

/// A template recipient as the pages show it: a placeholder is its name, or "Recipient 2",
/// without an address.
pub struct Person {
    pub id: RecipientId,
    pub label: String,
    /// Empty for a placeholder.
    pub email: String,
    pub role: &'static str,
    /// How many fields are theirs.
    pub fields: usize,
}

impl Person {
    pub fn of(r: &Recipient, t: &model::Template) -> Person {
        let number = placeholder_number(&r.email);
        let label = match (r.name.is_empty(), number) {
            (false, _) => r.name.clone(),
            (true, Some(n)) => format!("Recipient {n}"),
            (true, None) => r.email.clone(),
        };
        Person {
            id: r.id,
            label,
            email: if number.is_some() {
                String::new()
            } else {
                r.email.clone()
            },
            role: super::document::role_name(r.role),
            fields: t.fields.iter().filter(|f| f.recipient_id == r.id).count(),
        }
    }

    /// The template's recipients in signing order (then as added).
    pub fn all(t: &model::Template) -> Vec<Person> {
        let mut rs: Vec<&Recipient> = t.recipients.iter().collect();
        rs.sort_by_key(|r| (r.signing_order.unwrap_or(i64::MAX), r.id));
        rs.into_iter().map(|r| Person::of(r, t)).collect()
    }
}

#[derive(Template)]
#[template(path = "app/templates.html")]
struct TemplatesPage {
    nav: Nav,
    rows: Vec<Row>,
    page: i64,
    pages: i64,
    previous: Option<String>,
    next: Option<String>,
    /// The folders: the path to the one shown, its sub-folders, their forms.
    folders: Bar,
}

/// One template of the list.
struct Row {
    id: TemplateId,
    title: String,
    people: Vec<Person>,
    changed: String,
    changed_iso: String,
}

/// `GET /templates?page=`: a page that is no number is the first.
async fn list(
    at: Place,
    q: PageQuery,
    (session, user): SignedIn,
    state: AppState,
) -> Result<Response, AppError> {
    let who = at.principal(&user);
    let nav = Nav::of(&state, &session, &user, Section::Templates, &at).await?;
    let n: i64 = q.page.and_then(|p| p.parse().ok()).unwrap_or(1);
    let n = n.clamp(1, 1_000_000);
    let folder = q.folder.filter(|f| !f.is_empty());
    let (level, all) = folders::browse(&state.ctx(), &who, Kind::Template, folder.clone()).await?;
    let bar = Bar::of(&nav, Kind::Template, level, &all);
    let place = match &folder {
        Some(id) => InFolder::Folder(id.clone()),
        None => InFolder::Root,
    };
    let (items, pages) = manage::listed(&state.ctx(), &who, place, (n, PER_PAGE)).await?;
    let list = super::folders::list_link(&at, Kind::Template, folder.as_deref());
    let link = |p: i64| {
        if p == 1 {
            list.clone()
        } else if folder.is_some() {
            format!("{list}&page={p}")
        } else {
            format!("{list}?page={p}")
        }
    };
    let rows = items
        .iter()
        .map(|t| Row {
            id: t.id,
            title: t.title.clone(),
            people: Person::all(t),
            changed: human(t.updated_at),
            changed_iso: iso8601(t.updated_at),
        })
        .collect();
    Ok(page(Ok(TemplatesPage {
        nav,
        rows,
        page: n,
        pages,
        previous: (n > 1).then(|| link((n - 1).min(pages.max(1)))),
        next: (n < pages).then(|| link(n + 1)),
        folders: bar,
    })))
}

#[derive(Template)]
#[template(path = "app/template.html")]
struct TemplateDetails {
    nav: Nav,
    id: TemplateId,
    title: String,
    people: Vec<Person>,
    fields: usize,
    /// 1..=pages of its PDF (empty before an upload).
    pages: Vec<usize>,
    changed: String,
    changed_iso: String,
    direct: Direct,
    /// Just saved from a document: the page says so.
    from_document: bool,
    /// The folder it is in, and where it may go.
    folder: Pick,
}

/// The details page's direct-link section (`templates::direct`).
struct Direct {
    /// The link works: on, with its recipient.
    on: bool,
    url: String,
    /// Who a visitor becomes, when on.
    signs_as: String,
    /// The signers a visitor may become (id, label), and the one chosen before.
    signers: Vec<(RecipientId, String)>,
    chosen: Option<RecipientId>,
}

impl Direct {
    fn is_chosen(&self, id: &RecipientId) -> bool {
        self.chosen == Some(*id)
    }

    fn of(t: &model::Template, app_url: &str) -> Direct {
        let state = direct::DirectLinkState::of(t, app_url);
        Direct {
            on: state.enabled,
            url: state.url,
            signs_as: t.direct_recipient().map(direct::label).unwrap_or_default(),
            signers: Person::all(t)
                .into_iter()
                .filter(|p| {
                    t.recipients
                        .iter()
                        .any(|r| r.id == p.id && r.role == Role::Signer)
                })
                .map(|p| (p.id, p.label))
                .collect(),
            chosen: t.direct_link_recipient,
        }
    }
}

impl TemplateDetails {
    /// Where its page images are: `/templates/{id}` in the page's workspace.
    fn pages_base(&self) -> String {
        self.nav.link(&format!("/templates/{}", self.id))
    }
}

async fn details(
    at: Place,
    id: TemplateId,
    q: DetailsQuery,
    (session, user): SignedIn,
    state: AppState,
) -> Result<Response, AppError> {
    let who = at.principal(&user);
    let t = manage::read(&state.ctx(), &who, id).await?;
    let count = t.page_sizes.as_ref().map_or(0, Vec::len);
    let folder = Pick {
        action: at.link(&format!("/templates/{id}/folder")),
        current: t.folder_id.clone(),
        choices: folders::choices(&state.ctx(), &who, Kind::Template).await?,
    };
    Ok(page(Ok(TemplateDetails {
        nav: Nav::of(&state, &session, &user, Section::Templates, &at).await?,
        id,
        title: t.title.clone(),
        people: Person::all(&t),
        fields: t.fields.len(),
        pages: (1..=count).collect(),
        changed: human(t.updated_at),
        changed_iso: iso8601(t.updated_at),
        direct: Direct::of(&t, &state.ctx().app),
        from_document: q.saved.as_deref() == Some("document"),
        folder,
    })))
}
