//! The template API's editing routes (what the web application's editor calls for a template):
//! `PATCH /api/v1/templates/{id}`, `PATCH` and `DELETE` of its recipients and fields, and
//! `POST /api/v1/templates/{id}/duplicate`; replies over `templates::edit`. The bodies are the
//! documents' own shapes (`UpdateDocumentRequest`, `RecipientInput`, `FieldPatch`). And the
//! template's direct link, `GET` and `PUT /api/v1/templates/{id}/direct-link`
//! (`templates::direct`).

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::ids::{FieldId, RecipientId, TemplateId};
use crate::http::api::wire::templates::DirectLinkRequest;
use crate::http::auth::caller;
use crate::http::reply::write_result;
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::documents::field_request::FieldPatch;
use crate::signing::documents::request::RecipientInput;
use crate::signing::documents::settings::UpdateDocumentRequest;
use crate::signing::templates::answers::{TemplateFieldRemoved, TemplateRecipientRemoved};
use crate::signing::templates::direct;
use crate::signing::templates::edit;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let write = Scope::WriteDocument;
    let update = warp::path!("api" / "v1" / "templates" / TemplateId)
        .and(warp::patch())
        .and(caller(&state, write))
        .and(crate::http::body::object::<UpdateDocumentRequest>())
        .then(
            |id, who: Principal, st: AppState, b: UpdateDocumentRequest| async move {
                write_result(&who, edit::update(&st.ctx(), &who, id, b.command()).await)
            },
        );
    let duplicate = warp::path!("api" / "v1" / "templates" / TemplateId / "duplicate")
        .and(warp::post())
        .and(caller(&state, write))
        .then(|id, who: Principal, st: AppState| async move {
            write_result(&who, edit::duplicate(&st.ctx(), &who, id).await)
        });
    let recipient =
        warp::path!("api" / "v1" / "templates" / TemplateId / "recipients" / RecipientId);
    let patch_recipient = recipient
        .and(warp::patch())
        .and(caller(&state, write))
        .and(crate::http::body::object::<RecipientInput>())
        .then(
            |id, rid, who: Principal, st: AppState, b: RecipientInput| async move {
                let r = edit::patch_recipient(&st.ctx(), &who, (id, rid), b.patch()).await;
                write_result(&who, r)
            },
        );
    let delete_recipient = recipient
        .and(warp::delete())
        .and(caller(&state, write))
        .then(|id, rid, who: Principal, st: AppState| async move {
            let r = edit::delete_recipient(&st.ctx(), &who, (id, rid)).await;
            let removed = |recipient| TemplateRecipientRemoved {
                recipient,
                deleted: true,
            };
            write_result(&who, r.map(removed))
        });
    let field = warp::path!("api" / "v1" / "templates" / TemplateId / "fields" / FieldId);
    let patch_field = field
        .and(warp::patch())
        .and(caller(&state, write))
        .and(crate::http::body::object::<FieldPatch>())
        .then(
            |id, fid, who: Principal, st: AppState, b: FieldPatch| async move {
                write_result(
                    &who,
                    edit::patch_field(&st.ctx(), &who, (id, fid), b.command()).await,
                )
            },
        );
    let delete_field = field.and(warp::delete()).and(caller(&state, write)).then(
        |id, fid, who: Principal, st: AppState| async move {
            let r = edit::delete_field(&st.ctx(), &who, (id, fid)).await;
            let removed = |field| TemplateFieldRemoved {
                field,
                deleted: true,
            };
            write_result(&who, r.map(removed))
        },
    );
    let direct_link = warp::path!("api" / "v1" / "templates" / TemplateId / "direct-link");
    let get_direct = direct_link
        .and(warp::get())
        .and(caller(&state, Scope::ReadDocument))
        .then(|id, who: Principal, st: AppState| async move {
            write_result(&who, direct::get(&st.ctx(), &who, id).await)
        });
    let set_direct = direct_link
        .and(warp::put())
        .and(caller(&state, write))
        .and(crate::http::body::object::<DirectLinkRequest>())
        .then(
            |id, who: Principal, st: AppState, b: DirectLinkRequest| async move {
                let set = async { direct::set(&st.ctx(), &who, id, b.validate()?).await };
                write_result(&who, set.await)
            },
        );
    update
        .or(get_direct)
        .unify()
        .or(set_direct)
        .unify()
        .or(duplicate)
        .unify()
        .or(patch_recipient)
        .unify()
        .or(delete_recipient)
        .unify()
        .or(patch_field)
        .unify()
        .or(delete_field)
        .unify()
        .boxed()
}
