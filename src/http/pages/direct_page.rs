//! A template's direct link, `GET/POST /d/{token}`: the public page where a visitor gives a
//! name and an e-mail address, then continues to the signing page of the document made for
//! them (`templates::direct`). A link that does not work is the 404 page. Each client address
//! is counted against the per-minute budget an API key has, on every request of the page, and
//! the use case bounds the documents it may start an hour.

use askama::Template;
use http::{StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::i18n::{Lang, Tr};
use crate::http::pages::login::{pre_session_ok, pre_session_token};
use crate::http::reply::{self, form_status, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::cookies;
use crate::signing::documents::audit::Origin;
use crate::signing::templates::direct::{self, Invitation};
use crate::signing::workflow::direct::{Visitor, start as start_document};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || crate::http::with_state(state.clone());
    let show = warp::path!("d" / String)
        .and(warp::get())
        .and(s())
        .and(cookies())
        .and(crate::http::origin())
        .then(show)
        .map(reply::answer);
    let start = warp::path!("d" / String)
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::origin())
        .and(crate::http::session::form::<VisitorForm>())
        .then(start)
        .map(reply::answer);
    show.or(start).unify().boxed()
}

/// The form as posted: who the visitor says they are, and the form's token.
#[derive(serde::Deserialize)]
struct VisitorForm {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    csrf_token: String,
}

/// `GET /d/{token}`: the empty form.
async fn show(
    token: String,
    state: AppState,
    cookie_header: Option<String>,
    origin: Origin,
) -> Result<Response, AppError> {
    let typed = Visitor {
        name: String::new(),
        email: String::new(),
    };
    let c = cookie_header.as_deref();
    shown(&state, token, c, origin, &typed, &Problems::default()).await
}

/// The page: what the document is, who sent it, what happens next, and the form.
#[derive(Template)]
#[template(path = "direct.html")]
struct DirectPage<'a> {
    tr: Tr,
    token: &'a str,
    invitation: Invitation,
    /// Who the document goes to next, in a sentence of the page's language.
    then: String,
    csrf: String,
    typed: &'a Visitor,
    problems: &'a Problems,
}

/// What the form's last submission got wrong: per box, and for the whole form.
#[derive(Debug, Default)]
struct Problems {
    name: String,
    email: String,
    form: Option<String>,
    /// The form's token expired (said in the page's language).
    expired: bool,
}

impl Problems {
    fn any(&self) -> bool {
        !self.name.is_empty() || !self.email.is_empty() || self.form.is_some() || self.expired
    }

    /// What the form as a whole is told, in the page's language.
    fn form_text(&self, tr: &Tr) -> String {
        match (&self.form, self.expired) {
            (_, true) => tr.t("direct-expired"),
            (Some(f), _) => f.clone(),
            (None, false) => String::new(),
        }
    }

    /// The use case's refusal as the form shows it: a sentence next to the box it is about
    /// (the use case's words; `in_language` words them for the page).
    fn of(e: &AppError) -> Problems {
        let sentence = |s: &str| {
            let mut c = s.chars();
            match c.next() {
                Some(f) => format!("{}{}.", f.to_uppercase(), c.as_str().trim_end_matches('.')),
                None => String::new(),
            }
        };
        let mut p = Problems::default();
        for d in e.details() {
            match d.path.as_str() {
                "name" => p.name = sentence(&d.message),
                "email" => p.email = sentence(&d.message),
                _ => p.form = Some(sentence(&d.message)),
            }
        }
        if !p.any() {
            p.form = Some(sentence(&e.public_message()));
        }
        p
    }

    /// The refusals next to the boxes in the page's language: English keeps the use case's
    /// own words, another language says what each box needs.
    fn in_language(&self, tr: Tr) -> Problems {
        let english = tr.lang() == Lang::En;
        let said = |mine: &str, id: &str| match mine {
            "" => String::new(),
            _ if english => mine.to_string(),
            _ => tr.t(id),
        };
        Problems {
            name: said(&self.name, "direct-bad-name"),
            email: said(&self.email, "direct-bad-email"),
            form: self.form.clone(),
            expired: self.expired,
        }
    }
}

/// "A, B and C" in `tr`'s words ("" for nobody).
fn next_ones(tr: Tr, people: &[String]) -> String {
    match people {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => tr.t2("direct-and", "first", rest.join(", "), "last", last),
    }
}

/// Counts the request against its client address's per-minute budget (the embedded page's
/// too, `embed`).
pub(super) async fn spend(state: &AppState, origin: &Origin) -> Result<(), AppError> {
    let client = crate::core::client_address::client_key(origin.ip.as_deref());
    let key = crate::core::crypto::sha256_hex(format!("direct link {client}"));
    state.limiter.check(&key, crate::core::db::now()).await
}

async fn shown(
    state: &AppState,
    token: String,
    cookie_header: Option<&str>,
    origin: Origin,
    typed: &Visitor,
    problems: &Problems,
) -> Result<Response, AppError> {
    spend(state, &origin).await?;
    let invitation = direct::invitation(&state.ctx(), token.clone()).await?;
    let (csrf, set_cookie) = pre_session_token(state, "direct", cookie_header);
    let tr = invitation.language.tr();
    let problems = &problems.in_language(tr);
    let shown = DirectPage {
        tr,
        then: next_ones(tr, &invitation.then),
        token: &token,
        invitation,
        csrf,
        typed,
        problems,
    };
    let status = form_status(
        problems.any().then_some(""),
        StatusCode::UNPROCESSABLE_ENTITY,
    );
    let mut resp = page_as(status, Ok(shown));
    if let Some(v) = set_cookie {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(resp)
}

/// `POST /d/{token}`: on to the signing page of the document made for the visitor, or the
/// form again with what to change.
async fn start(
    token: String,
    state: AppState,
    cookie_header: Option<String>,
    origin: Origin,
    form: VisitorForm,
) -> Result<Response, AppError> {
    let typed = Visitor {
        name: form.name,
        email: form.email,
    };
    let c = cookie_header.as_deref();
    if !pre_session_ok(&state, "direct", c, &form.csrf_token) {
        let expired = Problems {
            expired: true,
            ..Default::default()
        };
        return shown(&state, token, c, origin, &typed, &expired).await;
    }
    spend(&state, &origin).await?;
    let (ctx, max_open) = (state.ctx(), state.config.direct_link_max_open);
    match start_document(&ctx, token.clone(), typed.clone(), origin.clone(), max_open).await {
        Ok(signing) => Ok(redirect(&format!("/sign/{signing}"))),
        Err(e @ AppError::BadRequest { .. }) => {
            shown(&state, token, c, origin, &typed, &Problems::of(&e)).await
        }
        Err(e) => Err(e),
    }
}
