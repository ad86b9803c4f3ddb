//! `/api/v2/folder...`: find, create, update and delete a workspace's folders, over
//! `signing::envelopes::folders` (the use cases of `signing::folders`).

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::ok;
use super::wire_folders::{CreateFolder, DeleteFolder, FolderFindQuery, UpdateFolder};
use crate::core::error::AppError;
use crate::http::auth::caller;
use crate::http::body::{object, query};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::envelopes::Page;
use crate::signing::envelopes::changes::Success;
use crate::signing::envelopes::folders;
use crate::signing::folders::FolderView;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let (read, write) = (Scope::ReadDocument, Scope::WriteDocument);
    let find = warp::path!("api" / "v2" / "folder")
        .and(warp::get())
        .and(caller(&state, read))
        .and(query::<FolderFindQuery>())
        .then(find)
        .map(ok);
    let create = warp::path!("api" / "v2" / "folder" / "create")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<CreateFolder>())
        .then(create)
        .map(ok);
    let update = warp::path!("api" / "v2" / "folder" / "update")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<UpdateFolder>())
        .then(update)
        .map(ok);
    let delete = warp::path!("api" / "v2" / "folder" / "delete")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<DeleteFolder>())
        .then(delete)
        .map(ok);
    find.or(create)
        .unify()
        .or(update)
        .unify()
        .or(delete)
        .unify()
        .boxed()
}

async fn find(
    who: Principal,
    state: AppState,
    q: FolderFindQuery,
) -> Result<Page<FolderView>, AppError> {
    folders::find(&state.ctx(), &who, q.find()?).await
}

async fn create(who: Principal, state: AppState, b: CreateFolder) -> Result<FolderView, AppError> {
    folders::create(&state.ctx(), &who, b.new_folder()?).await
}

async fn update(who: Principal, state: AppState, b: UpdateFolder) -> Result<FolderView, AppError> {
    let (id, patch) = b.patch()?;
    folders::update(&state.ctx(), &who, &id, patch).await
}

async fn delete(who: Principal, state: AppState, b: DeleteFolder) -> Result<Success, AppError> {
    folders::delete(&state.ctx(), &who, &b.id()?).await
}
