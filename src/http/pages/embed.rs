//! The signing pages made for a frame, as Documenso's embedding components (`@documenso/embed-*`)
//! ask for them: `GET /embed/sign/<token>` (a recipient's signing link) and
//! `GET /embed/direct/<token>` (a template's direct link, whose form `embed.js` sends as JSON to
//! `POST /embed/direct/<token>`, then goes on to the embedded signing page of the document made).
//!
//! Each is the page of `signing_page` or `direct_page` without the site's header and footer,
//! calling the same use cases (`signing::workflow::link`, `signing::workflow::direct`) and, from
//! its script, the same `/sign/<token>/...` calls. What differs is framing: the answer carries
//! `frame-ancestors` with the origins the document's or template's workspace lists
//! (`signing::workspaces::framing`; none: `'none'`) and no `X-Frame-Options`
//! (`server::middleware::Framed`). An unknown link is the usual 404 page, unframeable.
//!
//! `?lang=` (set by `embed.js` from the component's `language`) chooses the page's language
//! among Docket's; the document's own language is the default.

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::i18n::{Lang, Tr};
use crate::http::auth::{link_session, visit};
use crate::http::reply::{self, json_result, page_as};
use crate::http::server::middleware::Framed;
use crate::http::server::state::AppState;
use crate::signing::documents::Status;
use crate::signing::documents::audit::Origin;
use crate::signing::documents::meta::Attachment;
use crate::signing::documents::recipients::Role;
use crate::signing::templates::direct::{self, Invitation};
use crate::signing::workflow::direct::{Visitor, start as start_document};
use crate::signing::workflow::link;
use crate::signing::workspaces::framing::{self, FrameOrigins};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let sign = warp::path!("embed" / "sign" / String)
        .and(warp::get())
        .and(crate::http::body::query::<Shown>())
        .and(crate::http::origin())
        .and(link_session(&state))
        .and(s())
        .then(sign)
        .map(reply::answer);
    let direct = warp::path!("embed" / "direct" / String)
        .and(warp::get())
        .and(crate::http::body::query::<Shown>())
        .and(crate::http::origin())
        .and(s())
        .then(direct)
        .map(reply::answer);
    let start = warp::path!("embed" / "direct" / String)
        .and(warp::post())
        .and(crate::http::body::json::<VisitorJson>())
        .and(crate::http::origin())
        .and(s())
        .then(start)
        .map(json_result);
    sign.or(direct).unify().or(start).unify().boxed()
}

/// The query of an embedded page: the language `embed.js` asks for.
#[derive(Debug, Default, serde::Deserialize)]
struct Shown {
    lang: Option<String>,
}

impl Shown {
    /// The page's words: the language asked for when Docket has it, else `own`.
    fn tr(&self, own: Lang) -> Tr {
        self.lang
            .as_deref()
            .and_then(Lang::lenient)
            .unwrap_or(own)
            .tr()
    }
}

/// What the frame's layout needs besides the page's own fields.
struct Frame {
    /// The origins that may frame it, separated by spaces (`embed.js` posts only to these).
    frame_origins: String,
    /// Docket's languages, separated by spaces.
    languages: String,
}

impl Frame {
    fn of(origins: &FrameOrigins) -> Frame {
        let all: Vec<&str> = Lang::ALL.iter().map(|l| l.as_str()).collect();
        Frame {
            frame_origins: origins.lines().replace('\n', " "),
            languages: all.join(" "),
        }
    }
}

/// `page` as the frame answers it: framed by `origins` only.
fn framed(mut page: Response, origins: &FrameOrigins) -> Response {
    page.extensions_mut()
        .insert(Framed(origins.frame_ancestors()));
    page
}

#[derive(Template)]
#[template(path = "embed/sign.html")]
struct SignPage<'a> {
    tr: Tr,
    title: &'a str,
    token: &'a str,
    attachments: &'a [Attachment],
    frame_origins: String,
    languages: String,
}

#[derive(Template)]
#[template(path = "embed/notice.html")]
struct NoticePage<'a> {
    tr: Tr,
    title: &'a str,
    text: &'a str,
    /// The signing page on its own, for a document a frame cannot sign.
    own_window: Option<&'a str>,
    frame_origins: String,
    languages: String,
}

#[derive(Template)]
#[template(path = "embed/direct.html")]
struct DirectPage<'a> {
    tr: Tr,
    token: &'a str,
    invitation: Invitation,
    frame_origins: String,
    languages: String,
}

/// `GET /embed/sign/<token>`: the signing page in a frame, or what is left to say about the
/// document (as `signing_page::show` says it).
async fn sign(
    token: String,
    shown: Shown,
    origin: Origin,
    session: Option<String>,
    state: AppState,
) -> Result<Response, AppError> {
    let origins = framing::of_signing_link(&state.ctx(), token.clone()).await?;
    let frame = Frame::of(&origins);
    let opened = link::open(&state.ctx(), visit(token.clone(), session), origin).await?;
    let tr = shown.tr(opened.language);
    let title = opened.title.as_str();
    let notice = |status: StatusCode, text: String, own_window: Option<&str>| {
        let page = NoticePage {
            tr,
            title,
            text: &text,
            own_window,
            frame_origins: frame.frame_origins.clone(),
            languages: frame.languages.clone(),
        };
        page_as(status, Ok(page))
    };
    let here = format!("/sign/{token}");
    let page = match opened.status {
        Status::Cancelled => notice(StatusCode::GONE, tr.t("sign-cancelled"), None),
        Status::Completed if opened.role != Role::Cc => {
            notice(StatusCode::CONFLICT, tr.t("sign-completed"), None)
        }
        Status::Rejected if opened.role != Role::Cc => {
            notice(StatusCode::CONFLICT, tr.t("sign-rejected"), None)
        }
        _ => match (&opened.expired, &opened.gate) {
            (Some(ended), _) => {
                notice(StatusCode::GONE, tr.t1("sign-expired", "date", ended), None)
            }
            (None, Some(gate)) => {
                let text = tr.t1("gate-sign-in", "email", &gate.email);
                notice(StatusCode::OK, text, Some(&here))
            }
            (None, None) => page_as(
                StatusCode::OK,
                Ok(SignPage {
                    tr,
                    title,
                    token: &token,
                    attachments: &opened.attachments,
                    frame_origins: frame.frame_origins.clone(),
                    languages: frame.languages.clone(),
                }),
            ),
        },
    };
    Ok(framed(page, &origins))
}

/// `GET /embed/direct/<token>`: the direct link's page in a frame (404 unless the link works).
async fn direct(
    token: String,
    shown: Shown,
    origin: Origin,
    state: AppState,
) -> Result<Response, AppError> {
    crate::http::pages::direct_page::spend(&state, &origin).await?;
    let origins = framing::of_direct_link(&state.ctx(), token.clone()).await?;
    let invitation = direct::invitation(&state.ctx(), token.clone()).await?;
    let frame = Frame::of(&origins);
    let page = DirectPage {
        tr: shown.tr(invitation.language),
        token: &token,
        invitation,
        frame_origins: frame.frame_origins,
        languages: frame.languages,
    };
    Ok(framed(page_as(StatusCode::OK, Ok(page)), &origins))
}

/// What the embedded direct page sends: who the visitor says they are.
#[derive(Debug, Default, serde::Deserialize)]
struct VisitorJson {
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
}

/// What it is answered: the signing link of the document made for the visitor.
#[derive(Debug, serde::Serialize)]
struct Started {
    token: String,
}

/// `POST /embed/direct/<token>`: the document made for the visitor, by the use case of
/// `POST /d/<token>` and its budget; a 400 names the box to change. JSON only (415 otherwise):
/// no other site can send it from a browser without a CORS preflight, which Docket never
/// grants, so it needs no form token (a frame on another site has no cookies to carry one).
async fn start(
    token: String,
    body: VisitorJson,
    origin: Origin,
    state: AppState,
) -> Result<Started, AppError> {
    crate::http::pages::direct_page::spend(&state, &origin).await?;
    let visitor = Visitor {
        name: body.name,
        email: body.email,
    };
    let (ctx, max_open) = (state.ctx(), state.config.direct_link_max_open);
    let signing = start_document(&ctx, token, visitor, origin, max_open).await?;
    Ok(Started { token: signing })
}
