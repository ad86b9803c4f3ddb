//! `/settings/tokens`: the signed-in owner's API tokens (`/t/{slug}/settings/tokens`: a team's,
//! for its admins, made by one of them and acting for the team with their role). The list (name, prefix, created, last
//! used, expiry), a form that creates one (a name and an expiry: never, 7, 30 or 90 days, or a
//! date) that goes back to the list, which shows the new token once (`http::shown_once`: a
//! reload neither shows it again nor makes another), and a revocation per token. Making one asks
//! for a session that confirmed who it is within the last few minutes (`/account/confirm`,
//! then back to the form as typed) and mails the account a notice. Both forms call
//! `identity::apikeys::manage`, the use cases of the admin CLI's `docket apikey`: the same
//! checks, hashing and prefix; a token acts as its owner with every scope, as the CLI's keys.

use serde::de::IgnoredAny;

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::settings::{Problems, Tab, notice, tabs};
use super::workspace::{Place, place};
use crate::core::db::now;
use crate::core::error::{AppError, FieldError};
use crate::core::timefmt::{human, iso8601};
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, cookies, form_csrf, signed_in, with_query};
use crate::http::shown_once;
use crate::identity::accounts::access::Source;
use crate::identity::apikeys::ApiKey;
use crate::identity::apikeys::manage::{Expiry, NewKey};
use crate::teams::tokens as manage;

const BACK: &str = "/settings/tokens";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let show = place()
        .and(warp::path!("settings" / "tokens"))
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, BACK))
        .and(crate::http::body::query::<TokensQuery>())
        .and(cookies())
        .then(show)
        .map(reply::answer);
    let create = place()
        .and(warp::path!("settings" / "tokens"))
        .and(warp::post())
        .and(s())
        .and(crate::http::source())
        .and(form_csrf(&state, APP, BACK))
        .then(create)
        .map(reply::answer);
    let revoke = place()
        .and(warp::path!("settings" / "tokens" / i64 / "revoke"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(revoke)
        .map(reply::answer);
    show.or(create).unify().or(revoke).unify().boxed()
}

/// The page's query: the notice of what was just done, and the form as it was typed (back
/// from confirming who one is; `name` given at all means it was).
#[derive(serde::Deserialize)]
struct TokensQuery {
    done: Option<String>,
    name: Option<String>,
    #[serde(default)]
    expiry: String,
    #[serde(default)]
    date: String,
}

/// `GET /settings/tokens`: the list, and the token just made once (brought back by the
/// browser from the creation's redirect, see `shown_once`).
async fn show(
    at: Place,
    state: AppState,
    who: SignedIn,
    q: TokensQuery,
    cookies: Option<String>,
) -> Result<Response, AppError> {
    let taken = shown_once::take(&state, cookies.as_deref(), &who.0, &at.link(BACK));
    let created = taken.secret.as_deref().and_then(Created::read);
    let done = notice(q.done.as_ref()).map(str::to_string);
    // Back from confirming who one is: the form as it was typed.
    let typed = match q.name {
        Some(name) => Typed {
            name,
            expiry: q.expiry,
            date: q.date,
        },
        None => Typed::default(),
    };
    let view = View {
        notice: done,
        typed,
        created,
        ..View::default()
    };
    Ok(taken.finish(render(&state, &at, who, StatusCode::OK, view).await))
}

/// `POST /settings/tokens/{id}/revoke`.
async fn revoke(
    at: Place,
    id: i64,
    state: AppState,
    (_, user): SignedIn,
    _form: IgnoredAny,
) -> Result<Response, AppError> {
    manage::revoke(&state.ctx(), &at.principal(&user), id, now()).await?;
    Ok(redirect(&at.link(&format!("{BACK}?done=revoked"))))
}

/// `POST /settings/tokens`: back to the page, which shows the new token once (a reload makes
/// no other), or the form with what to change; a session that has not confirmed who it is recently is sent to do so first, and
/// back to the form as it was typed.
async fn create(
    at: Place,
    state: AppState,
    from: Source,
    who: SignedIn,
    typed: Typed,
) -> Result<Response, AppError> {
    let t = now();
    let made = match typed.expiry() {
        Ok(expiry) => match NewKey::check(&typed.name, expiry, t) {
            Ok(new) => {
                let caller = at.principal(&who.1);
                manage::create(&state.ctx(), who.0.clone(), &caller, new, from, t).await
            }
            Err(e) => Err(e),
        },
        Err(e) => Err(e),
    };
    match made {
        Ok(created) => {
            let shown = Created {
                name: created.stored.name.clone(),
                value: created.key.expose().to_string(),
            };
            Ok(shown_once::redirect(
                &state,
                &who.0,
                &at.link(BACK),
                &shown.write(),
            ))
        }
        Err(e) if e.code() == "confirmation_required" => {
            let back = with_query(
                &at.link(BACK),
                &[
                    ("name", Some(&typed.name)),
                    ("expiry", Some(&typed.expiry)),
                    ("date", Some(typed.date.as_str()).filter(|d| !d.is_empty())),
                ],
            );
            Ok(redirect(&with_query(
                "/account/confirm",
                &[("next", Some(&back))],
            )))
        }
        Err(e) if e.status() == StatusCode::BAD_REQUEST => {
            let view = View {
                problems: Problems::of(&e),
                typed,
                ..View::default()
            };
            Ok(render(&state, &at, who, StatusCode::BAD_REQUEST, view).await)
        }
        Err(e) => Err(e),
    }
}

/// What the creation form holds, as typed (a field left out is empty).
#[derive(Debug, Clone, serde::Deserialize)]
struct Typed {
    #[serde(default)]
    name: String,
    /// `never`, `7`, `30`, `90` or `date`.
    #[serde(default)]
    expiry: String,
    /// `YYYY-MM-DD` when `expiry` is `date`.
    #[serde(default)]
    date: String,
}

impl Default for Typed {
    fn default() -> Typed {
        Typed {
            name: String::new(),
            expiry: "90".into(),
            date: String::new(),
        }
    }
}

/// The expiry choices: value and words.
const EXPIRIES: [(&str, &str); 5] = [
    ("7", "In 7 days"),
    ("30", "In 30 days"),
    ("90", "In 90 days"),
    ("date", "On a date I choose"),
    ("never", "Never"),
];

impl Typed {
    /// The expiry chosen: a chosen date ends at the end of that day (UTC). 400 naming `expiry`
    /// for a choice that is none of the form's.
    fn expiry(&self) -> Result<Expiry, AppError> {
        let refused = |m: &str| AppError::validation(vec![FieldError::new("expiry", m)]);
        match self.expiry.as_str() {
            "never" => Ok(Expiry::Never),
            "date" => {
                let format = time::macros::format_description!("[year]-[month]-[day]");
                let day = time::Date::parse(self.date.trim(), &format)
                    .map_err(|_| refused("choose the day the token stops working"))?;
                let end = day.midnight().assume_utc().unix_timestamp() + 86_400;
                // A day already over is refused by the use case, as any expiry in the past.
                Ok(Expiry::At(end))
            }
            days => days
                .parse()
                .map(Expiry::Days)
                .map_err(|_| refused("choose when the token stops working")),
        }
    }
}

/// A token as listed.
struct Row {
    id: i64,
    name: String,
    prefix: String,
    created: String,
    created_iso: String,
    /// When it was last used and when it expires: the words, and the moment for `<time>`.
    last_used: (String, Option<String>),
    expires: (String, Option<String>),
    expired: bool,
}

impl Row {
    fn of(k: &ApiKey, now: i64) -> Row {
        Row {
            id: k.id,
            name: k.name.clone(),
            prefix: format!("{}…", k.prefix),
            created: human(k.created_at),
            created_iso: iso8601(k.created_at),
            last_used: moment(k.last_used_at, "Never used"),
            expires: moment(k.expires_at, "Never"),
            expired: k.state(now) == "expired",
        }
    }
}

/// `at` in words and as ISO 8601, or `none` when there is no moment.
fn moment(at: Option<i64>, none: &str) -> (String, Option<String>) {
    match at {
        Some(t) => (human(t), Some(iso8601(t))),
        None => (none.to_string(), None),
    }
}

/// A token just made, shown once.
struct Created {
    name: String,
    value: String,
}

impl Created {
    /// As it crosses the redirect: the value, a line break, the name.
    fn write(&self) -> String {
        format!("{}\n{}", self.value, self.name)
    }

    fn read(text: &str) -> Option<Created> {
        let (value, name) = text.split_once('\n')?;
        Some(Created {
            name: name.to_string(),
            value: value.to_string(),
        })
    }
}

/// What a rendering of the page shows besides the list.
#[derive(Default)]
struct View {
    created: Option<Created>,
    problems: Problems,
    typed: Typed,
    notice: Option<String>,
}

#[derive(Template)]
#[template(path = "app/settings_tokens.html")]
struct TokensPage {
    nav: Nav,
    tabs: Vec<Tab>,
    rows: Vec<Row>,
    view: View,
    expiries: [(&'static str, &'static str); 5],
    /// The earliest day the date box offers (tomorrow), `YYYY-MM-DD`.
    tomorrow: String,
}

async fn render(
    state: &AppState,
    at: &Place,
    (session, user): SignedIn,
    status: StatusCode,
    view: View,
) -> Response {
    let t = now();
    let nav = match Nav::of(state, &session, &user, Section::Settings, at).await {
        Ok(nav) => nav,
        Err(e) => return page_as::<TokensPage>(e.status(), Err(e)),
    };
    let keys = manage::list(&state.ctx(), &at.principal(&user)).await;
    let result = keys.map(|keys| TokensPage {
        tabs: tabs(&nav, "API tokens"),
        nav,
        rows: keys.iter().rev().map(|k| Row::of(k, t)).collect(),
        view,
        expiries: EXPIRIES,
        tomorrow: iso8601(t + 86_400)[..10].to_string(),
    });
    page_as(status, result)
}
