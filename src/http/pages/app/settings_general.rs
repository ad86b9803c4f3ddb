//! `/t/{slug}/settings/general`: a team's name, the sender name its recipients see, and the
//! defaults of the documents and templates made in it (signing order, date format, time zone,
//! redirect URL, recipients' language). Every member reads them; its admins change them with the form, through
//! `signing::documents::team_settings`, the use cases `docket team settings` shares; a refused
//! value is said next to its box. The personal workspace has no such page (404).

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::editor_form::{Choice, date_formats, languages, time_zones};
use super::nav::{Nav, Section};
use super::settings::{Done, Problems, Tab, notice, tabs};
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, signed_in};
use crate::signing::documents::meta::{DEFAULT_DATE_FORMAT, DEFAULT_TIMEZONE, SigningOrder};
use crate::signing::documents::team_settings::{self, Change, TeamSettings};

const BACK: &str = "/teams";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let show = place()
        .and(warp::path!("settings" / "general"))
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, BACK))
        .and(crate::http::body::query::<Done>())
        .then(show)
        .map(reply::answer);
    let save = place()
        .and(warp::path!("settings" / "general"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(save)
        .map(reply::answer);
    show.or(save).unify().boxed()
}

/// The form as typed (a box left out is empty, which clears its value).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Typed {
    #[serde(default)]
    name: String,
    #[serde(default)]
    sender_name: String,
    #[serde(default)]
    signing_order: String,
    #[serde(default)]
    date_format: String,
    #[serde(default)]
    time_zone: String,
    #[serde(default)]
    redirect_url: String,
    #[serde(default)]
    language: String,
    #[serde(default)]
    expiration_period: String,
}

impl Typed {
    /// The form filled with the team's settings.
    fn of(s: &TeamSettings) -> Typed {
        let d = &s.defaults;
        Typed {
            name: s.name.clone(),
            sender_name: s.sender_name.clone().unwrap_or_default(),
            signing_order: d
                .signing_order
                .map(|o| match o {
                    SigningOrder::Parallel => "PARALLEL".to_string(),
                    SigningOrder::Sequential => "SEQUENTIAL".to_string(),
                })
                .unwrap_or_default(),
            date_format: d.date_format.clone().unwrap_or_default(),
            time_zone: d.time_zone.clone().unwrap_or_default(),
            redirect_url: d.redirect_url.clone().unwrap_or_default(),
            language: d
                .language
                .map(|l| l.as_str().to_string())
                .unwrap_or_default(),
            expiration_period: d
                .expiration_period
                .as_ref()
                .map(|p| p.describe())
                .unwrap_or_default(),
        }
    }

    /// Every box as the change it asks for: each given, a blank one back to the default.
    fn change(&self) -> Change {
        Change {
            name: Some(self.name.clone()),
            sender_name: Some(self.sender_name.clone()),
            signing_order: Some(self.signing_order.clone()),
            date_format: Some(self.date_format.clone()),
            time_zone: Some(self.time_zone.clone()),
            redirect_url: Some(self.redirect_url.clone()),
            language: Some(self.language.clone()),
            expiration_period: Some(self.expiration_period.clone()),
        }
    }
}

fn team_of(at: &Place) -> Result<&str, AppError> {
    at.slug().ok_or_else(|| AppError::not_found("page"))
}

/// `GET /t/{slug}/settings/general`.
async fn show(at: Place, state: AppState, who: SignedIn, q: Done) -> Result<Response, AppError> {
    let s = team_settings::read(&state.ctx(), &at.principal(&who.1), team_of(&at)?).await?;
    let view = View {
        typed: Typed::of(&s),
        notice: notice(q.done.as_ref()),
        problems: Problems::default(),
    };
    render(&state, &at, who, StatusCode::OK, view).await
}

/// `POST /t/{slug}/settings/general`: saved (back to the page), or the form with what to
/// change.
async fn save(
    at: Place,
    state: AppState,
    who: SignedIn,
    typed: Typed,
) -> Result<Response, AppError> {
    let slug = team_of(&at)?;
    match team_settings::update(&state.ctx(), &at.principal(&who.1), slug, typed.change()).await {
        Ok(_) => Ok(redirect(&at.link("/settings/general?done=saved"))),
        Err(e) if e.status() == StatusCode::BAD_REQUEST => {
            let view = View {
                problems: Problems::of(&e),
                typed,
                notice: None,
            };
            render(&state, &at, who, e.status(), view).await
        }
        Err(e) => Err(e),
    }
}

/// What a rendering shows: the form's values, the notice of a save, a refusal's problems.
struct View {
    typed: Typed,
    notice: Option<&'static str>,
    problems: Problems,
}

#[derive(Template)]
#[template(path = "app/settings_general.html")]
struct GeneralPage {
    nav: Nav,
    tabs: Vec<Tab>,
    view: View,
    orders: Vec<Choice>,
    date_formats: Vec<Choice>,
    time_zones: Vec<String>,
    languages: Vec<Choice>,
    /// The time zone's hint, with the product's default.
    zone_hint: String,
}

async fn render(
    state: &AppState,
    at: &Place,
    (session, user): SignedIn,
    status: StatusCode,
    view: View,
) -> Result<Response, AppError> {
    let nav = Nav::of(state, &session, &user, Section::Settings, at).await?;
    let order = |value: &str, label: &str| Choice {
        value: value.into(),
        label: label.into(),
        chosen: view.typed.signing_order == value,
    };
    let orders = vec![
        order("", "Docket's default: all at once"),
        order(
            "PARALLEL",
            "All at once: every recipient gets the document when it is sent",
        ),
        order(
            "SEQUENTIAL",
            "One after the other, in the recipients' order",
        ),
    ];
    let mut formats = date_formats(&view.typed.date_format);
    formats.insert(
        0,
        Choice {
            value: String::new(),
            label: format!("Docket's default ({DEFAULT_DATE_FORMAT})"),
            chosen: view.typed.date_format.is_empty(),
        },
    );
    let languages = languages(
        &view.typed.language,
        Some("Each member's own (their account's choice)"),
    );
    let page = GeneralPage {
        languages,
        tabs: tabs(&nav, "General"),
        nav,
        view,
        orders,
        date_formats: formats,
        time_zones: time_zones(),
        zone_hint: format!("An IANA name such as Europe/Paris; empty: {DEFAULT_TIMEZONE}."),
    };
    Ok(page_as(status, Ok(page)))
}
