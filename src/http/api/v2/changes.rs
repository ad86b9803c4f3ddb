//! `/api/v2/{envelope,document,template}/{update,delete}` and
//! `/api/v2/{envelope,document}/{distribute,redistribute}`: the changes to a whole envelope over
//! `signing::envelopes::changes`, each group's body naming its own id, each answered in its
//! group's shape (read back after the change).

use serde::Serialize;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::wire_changes::{
    DistributeRequest, DocumentRef, EnvelopeRef, Group, RedistributeRequest, TemplateRef,
    UpdateRequest, envelope,
};
use super::{ok, reader};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::http::auth::caller;
use crate::http::body::object;
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::documents::audit::Origin;
use crate::signing::envelope_ids::Envelope;
use crate::signing::envelopes::changes::{self, Distributed, Success};
use crate::signing::envelopes::envelope::Full;
use crate::signing::envelopes::legacy::{LegacyDocument, LegacyTemplate};
use crate::signing::envelopes::{Reader, reads};

/// An envelope as its group answers it after a change.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Changed {
    Envelope(Box<Full>),
    Document(Box<LegacyDocument>),
    Template(Box<LegacyTemplate>),
}

fn group(g: Group) -> impl Filter<Extract = (Group,), Error = std::convert::Infallible> + Clone {
    warp::any().map(move || g)
}

/// A route's path and method, for the route builders below.
trait At: Filter<Extract = (), Error = warp::Rejection> + Clone + Send + Sync + 'static {}
impl<F: Filter<Extract = (), Error = warp::Rejection> + Clone + Send + Sync + 'static> At for F {}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let write = Scope::WriteDocument;
    let deleting = warp::path!("api" / "v2" / "envelope" / "delete")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<EnvelopeRef>())
        .and(crate::http::origin())
        .then(delete_envelope)
        .map(ok);
    let deleting_document = warp::path!("api" / "v2" / "document" / "delete")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<DocumentRef>())
        .and(crate::http::origin())
        .then(delete_document)
        .map(ok);
    let deleting_template = warp::path!("api" / "v2" / "template" / "delete")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<TemplateRef>())
        .and(crate::http::origin())
        .then(delete_template)
        .map(ok);
    let s = &state;
    updating(
        warp::path!("api" / "v2" / "envelope" / "update").and(warp::post()),
        s,
        Group::Envelope,
    )
    .or(updating(
        warp::path!("api" / "v2" / "document" / "update").and(warp::post()),
        s,
        Group::Document,
    ))
    .unify()
    .or(updating(
        warp::path!("api" / "v2" / "template" / "update").and(warp::post()),
        s,
        Group::Template,
    ))
    .unify()
    .or(deleting)
    .unify()
    .or(deleting_document)
    .unify()
    .or(deleting_template)
    .unify()
    .or(distributing(
        warp::path!("api" / "v2" / "envelope" / "distribute").and(warp::post()),
        s,
        Group::Envelope,
    ))
    .unify()
    .or(distributing(
        warp::path!("api" / "v2" / "document" / "distribute").and(warp::post()),
        s,
        Group::Document,
    ))
    .unify()
    .or(redistributing(
        warp::path!("api" / "v2" / "envelope" / "redistribute").and(warp::post()),
        s,
        Group::Envelope,
    ))
    .unify()
    .or(redistributing(
        warp::path!("api" / "v2" / "document" / "redistribute").and(warp::post()),
        s,
        Group::Document,
    ))
    .unify()
    .boxed()
}

fn updating(at: impl At, state: &AppState, g: Group) -> BoxedFilter<(Response,)> {
    at.and(caller(state, Scope::WriteDocument))
        .and(reader())
        .and(object::<UpdateRequest>())
        .and(group(g))
        .then(update)
        .map(ok)
        .boxed()
}

fn distributing(at: impl At, state: &AppState, g: Group) -> BoxedFilter<(Response,)> {
    at.and(caller(state, Scope::WriteDocument))
        .and(reader())
        .and(object::<DistributeRequest>())
        .and(crate::http::origin())
        .and(group(g))
        .then(distribute)
        .map(ok)
        .boxed()
}

fn redistributing(at: impl At, state: &AppState, g: Group) -> BoxedFilter<(Response,)> {
    at.and(caller(state, Scope::WriteDocument))
        .and(object::<RedistributeRequest>())
        .and(group(g))
        .then(redistribute)
        .map(ok)
        .boxed()
}

/// `envelope` as `group` answers it.
async fn answer(
    state: &AppState,
    who: &Principal,
    r: Reader,
    envelope: Envelope,
    group: Group,
) -> Result<Changed, AppError> {
    let ctx = state.ctx();
    Ok(match (group, envelope) {
        (Group::Document, Envelope::Document(d)) => {
            Changed::Document(Box::new(reads::legacy_document(&ctx, who, d, r).await?))
        }
        (Group::Template, Envelope::Template(t)) => {
            Changed::Template(Box::new(reads::legacy_template(&ctx, who, t, r).await?))
        }
        (_, e) => Changed::Envelope(Box::new(reads::get(&ctx, who, e, r).await?)),
    })
}

async fn update(
    who: Principal,
    state: AppState,
    r: Reader,
    body: UpdateRequest,
    g: Group,
) -> Result<Changed, AppError> {
    let target = body.target(g)?;
    changes::update(&state.ctx(), &who, target, body.update()).await?;
    answer(&state, &who, r, target, g).await
}

async fn delete_envelope(
    who: Principal,
    state: AppState,
    body: EnvelopeRef,
    origin: Origin,
) -> Result<Success, AppError> {
    changes::delete(&state.ctx(), &who, envelope(&body.envelope_id)?, origin).await
}

async fn delete_document(
    who: Principal,
    state: AppState,
    body: DocumentRef,
    origin: Origin,
) -> Result<Success, AppError> {
    let id = Envelope::Document(DocumentId::new(body.document_id.0));
    changes::delete(&state.ctx(), &who, id, origin).await
}

async fn delete_template(
    who: Principal,
    state: AppState,
    body: TemplateRef,
    origin: Origin,
) -> Result<Success, AppError> {
    let id = Envelope::Template(TemplateId::new(body.template_id.0));
    changes::delete(&state.ctx(), &who, id, origin).await
}

/// An envelope's distribute answers the links; the document group the document.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Sent {
    Links(Distributed),
    Document(Box<LegacyDocument>),
}

async fn distribute(
    who: Principal,
    state: AppState,
    r: Reader,
    body: DistributeRequest,
    origin: Origin,
    g: Group,
) -> Result<Sent, AppError> {
    let id = changes::document(body.target(g)?, "distributed")?;
    let ctx = state.ctx();
    let sent = changes::distribute(&ctx, &who, id, body.meta(), origin).await?;
    Ok(match g {
        Group::Document => {
            Sent::Document(Box::new(reads::legacy_document(&ctx, &who, id, r).await?))
        }
        _ => Sent::Links(sent),
    })
}

async fn redistribute(
    who: Principal,
    state: AppState,
    body: RedistributeRequest,
    g: Group,
) -> Result<Success, AppError> {
    let id = changes::document(body.target(g)?, "redistributed")?;
    changes::redistribute(&state.ctx(), &who, id, body.recipients()?).await
}
