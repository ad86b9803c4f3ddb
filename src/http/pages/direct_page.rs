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
use crate::http::pages::login::{pre_session_ok, pre_session_token};
use crate::http::reply::{Format, error_response, form_status, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{Form, cookies};
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
        .then(|token, st, c: Option<String>, o| async move {
            let typed = Visitor {
                name: String::new(),
                email: String::new(),
            };
            shown(&st, token, c.as_deref(), o, &typed, &Problems::default()).await
        });
    let start = warp::path!("d" / String)
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::origin())
        .and(crate::http::session::form())
        .then(|token, st, c, o, f| async move { start(st, token, c, o, f).await });
    show.or(start).unify().boxed()
}

/// The page: what the document is, who sent it, what happens next, and the form.
#[derive(Template)]
#[template(path = "direct.html")]
struct DirectPage<'a> {
    token: &'a str,
    invitation: Invitation,
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
}

impl Problems {
    fn any(&self) -> bool {
        !self.name.is_empty() || !self.email.is_empty() || self.form.is_some()
    }

    /// The use case's refusal as the form shows it: a sentence next to the box it is about.
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
}

/// Counts the request against its client address's per-minute budget.
async fn spend(state: &AppState, origin: &Origin) -> Result<(), AppError> {
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
) -> Response {
    if let Err(e) = spend(state, &origin).await {
        return error_response(&e, Format::Html);
    }
    let invitation = match direct::invitation(&state.ctx(), token.clone()).await {
        Ok(i) => i,
        Err(e) => return error_response(&e, Format::Html),
    };
    let (csrf, set_cookie) = pre_session_token(state, "direct", cookie_header);
    let shown = DirectPage {
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
    resp
}

async fn start(
    state: AppState,
    token: String,
    cookie_header: Option<String>,
    origin: Origin,
    form: Form,
) -> Response {
    let get = |k: &str| form.get(k).cloned().unwrap_or_default();
    let typed = Visitor {
        name: get("name"),
        email: get("email"),
    };
    let c = cookie_header.as_deref();
    if !pre_session_ok(&state, "direct", c, &get("csrf_token")) {
        let expired = Problems {
            form: Some("The form expired. Please press the button again.".into()),
            ..Default::default()
        };
        return shown(&state, token, c, origin, &typed, &expired).await;
    }
    if let Err(e) = spend(&state, &origin).await {
        return error_response(&e, Format::Html);
    }
    let (ctx, max_open) = (state.ctx(), state.config.direct_link_max_open);
    match start_document(&ctx, token.clone(), typed.clone(), origin.clone(), max_open).await {
        Ok(signing) => redirect(&format!("/sign/{signing}")),
        Err(e @ AppError::BadRequest { .. }) => {
            shown(&state, token, c, origin, &typed, &Problems::of(&e)).await
        }
        Err(e) => error_response(&e, Format::Html),
    }
}
