//! `POST /api/v2/template/use`: a document made from a template over
//! `signing::envelopes::uses`, answered as the legacy document it is.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::wire_use::TemplateUseRequest;
use super::{ok, reader};
use crate::core::error::AppError;
use crate::http::auth::caller;
use crate::http::body::object;
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::documents::audit::Origin;
use crate::signing::envelopes::legacy::LegacyDocument;
use crate::signing::envelopes::{Reader, reads, uses};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path!("api" / "v2" / "template" / "use")
        .and(warp::post())
        .and(caller(&state, Scope::WriteDocument))
        .and(reader())
        .and(object::<TemplateUseRequest>())
        .and(crate::http::origin())
        .then(use_template)
        .map(ok)
        .boxed()
}

async fn use_template(
    who: Principal,
    state: AppState,
    r: Reader,
    body: TemplateUseRequest,
    origin: Origin,
) -> Result<LegacyDocument, AppError> {
    let ctx = state.ctx();
    let template = body.template();
    let doc = uses::use_template(&ctx, &who, template, body.command(), origin).await?;
    reads::legacy_document(&ctx, &who, doc, r).await
}
