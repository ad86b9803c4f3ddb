//! `GET /verify` and `POST /verify`: the public check of a sealed PDF as a page, for anyone, no
//! account. The form posts the file as `multipart/form-data` to the page itself, which answers
//! with the verdict (a read-only check: no redirect, and like every page not stored by caches).
//! The check is the API's (`api::seal_check::checked`), with its bounds.

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::timefmt::{human, iso8601};
use crate::http::api::seal_check::{checked, sent};
use crate::http::reply::{self, page_as};
use crate::http::server::state::AppState;
use crate::signing::workflow::seal_check::{SealCheck, VerdictCode};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || crate::http::with_state(state.clone());
    let show = warp::path!("verify")
        .and(warp::get())
        .and(s())
        .map(|state: AppState| page_as(StatusCode::OK, Ok(VerifyPage::empty(&state))));
    let check = warp::path!("verify")
        .and(warp::post())
        .and(s())
        .and(sent())
        .and(warp::body::stream())
        .then(check)
        .map(reply::answer);
    show.or(check).unify().boxed()
}

/// `POST /verify`: the verdict on the posted file, or the form again with why it was refused.
async fn check<S, B>(
    state: AppState,
    declared: crate::http::api::seal_check::Sent,
    body: S,
) -> Result<Response, AppError>
where
    S: futures_util::Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: bytes::Buf + Send + 'static,
{
    match checked(&state, declared, body).await {
        Ok(check) => Ok(page_as(
            StatusCode::OK,
            Ok(VerifyPage {
                result: Some(Shown::of(&check)),
                ..VerifyPage::empty(&state)
            }),
        )),
        // A file refused for what it is: the form again, saying why.
        Err(
            e @ (AppError::Unprocessable { .. }
            | AppError::PayloadTooLarge(_)
            | AppError::UnsupportedMediaType(_)
            | AppError::BadRequest { .. }),
        ) => Ok(page_as(
            e.status(),
            Ok(VerifyPage {
                error: Some(capitalized(&e.public_message())),
                ..VerifyPage::empty(&state)
            }),
        )),
        Err(e) => Err(e),
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect::<String>() + ".",
        None => String::new(),
    }
}

#[derive(Template)]
#[template(path = "verify.html")]
struct VerifyPage {
    result: Option<Shown>,
    error: Option<String>,
    hint: String,
}

impl VerifyPage {
    fn empty(state: &AppState) -> VerifyPage {
        let mb = state.config.max_upload_bytes / (1024 * 1024);
        VerifyPage {
            result: None,
            error: None,
            hint: format!("The file as you received it, at most {mb} MB."),
        }
    }
}

/// A verdict as the page shows it.
struct Shown {
    heading: &'static str,
    tone: &'static str,
    message: String,
    certified: Option<ShownDocument>,
}

struct ShownDocument {
    title: String,
    document_id: i64,
    completed: String,
    completed_iso: String,
    signers: Vec<ShownSigner>,
}

struct ShownSigner {
    name: String,
    email: String,
    role: String,
    /// (ISO 8601, for people)
    signed: Option<(String, String)>,
}

impl Shown {
    fn of(check: &SealCheck) -> Shown {
        let (heading, tone) = match check.code() {
            VerdictCode::Sealed => ("Sealed here, unchanged", "success"),
            VerdictCode::Modified | VerdictCode::Appended => {
                ("Changed since it was sealed", "error")
            }
            VerdictCode::OtherSigner => ("Not sealed here", "error"),
            VerdictCode::InvalidSignature => ("The signature does not hold", "error"),
            VerdictCode::NotSigned => ("Not signed", "info"),
        };
        Shown {
            heading,
            tone,
            message: check.message(),
            certified: check.certified.as_ref().map(|c| ShownDocument {
                title: c.title.clone(),
                document_id: c.document_id.get(),
                completed: human(c.completed_at),
                completed_iso: iso8601(c.completed_at),
                signers: c
                    .recipients
                    .iter()
                    .map(|r| ShownSigner {
                        name: r.name.clone(),
                        email: r.email.clone(),
                        role: role_word(r.role.as_str()),
                        signed: r.signed_at.map(|t| (iso8601(t), human(t))),
                    })
                    .collect(),
            }),
        }
    }
}

/// `SIGNER` as "Signer".
fn role_word(role: &str) -> String {
    let lower = role.to_lowercase();
    capitalized(&lower).trim_end_matches('.').to_string()
}
