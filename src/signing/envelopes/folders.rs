//! The API v2's folder operations (`/folder`, `/folder/create`, `/folder/update`,
//! `/folder/delete`): the use cases of `signing::folders`, the ones the web application's
//! folder forms call, answered in the peer's shapes. A folder's answer is `FolderView`, built
//! from the folder's row (the peer's `Folder`: ids, `type`, `visibility`, `pinned`,
//! `parentId`...); a find is a `Page` of them; a delete answers `Success`.

use super::Page;
use super::changes::Success;
use crate::core::context::Context;
use crate::core::error::{AppError, FieldError};
use crate::identity::principal::Principal;
use crate::signing::folders::{self, FolderPatch, FolderQuery, FolderView, NewFolder};

/// A page of the caller's folders (`GET /folder`).
pub async fn find(
    ctx: &Context,
    who: &Principal,
    q: FolderQuery,
) -> Result<Page<FolderView>, AppError> {
    folders::find(ctx, who, q).await
}

/// A new folder of the caller's workspace (`POST /folder/create`).
pub async fn create(
    ctx: &Context,
    who: &Principal,
    new: NewFolder,
) -> Result<FolderView, AppError> {
    folders::create(ctx, who, new).await
}

/// Folder `id` changed (`POST /folder/update`): the folder as it now is. The change is the
/// body's `data`, so a refusal of one of its values names `data.name`, `data.parentId`.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: &str,
    patch: FolderPatch,
) -> Result<FolderView, AppError> {
    folders::update(ctx, who, id, patch).await.map_err(|e| {
        if e.code() != "validation_error" {
            return e;
        }
        let nested = e
            .details()
            .iter()
            .map(|d| FieldError::new(format!("data.{}", d.path), d.message.clone()))
            .collect();
        AppError::validation(nested)
    })
}

/// Folder `id` deleted with the folders under it (`POST /folder/delete`); what they held goes
/// back to the root.
pub async fn delete(ctx: &Context, who: &Principal, id: &str) -> Result<Success, AppError> {
    folders::delete(ctx, who, id).await.map(|_| Success::DONE)
}
