//! The signed copy through a signing link: once the document is COMPLETED, each of its
//! recipients downloads the sealed PDF from their own link (`GET /sign/<token>/download`), the
//! copy they are also e-mailed; the download is in the audit log as theirs.

use super::flow::Origin;
use super::link;
use super::sending::Download;
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::signing::documents::Status;
use crate::signing::documents::audit::{self, Actor, Happened};
use crate::signing::documents::audit_data::Downloaded;

/// The sealed PDF of the link's document, for its recipient; 400 until everyone has signed and
/// it is sealed, a 404 for an unknown link, 401 where the document asks for the recipient's
/// account and this visit is not signed in to it.
pub async fn download(
    ctx: &Context,
    visit: link::Visit,
    origin: Origin,
) -> Result<Download, AppError> {
    ctx.db
        .write(move |tx| {
            let l = link::shown_link(tx, &visit)?;
            link::reader(tx, &l, &visit)?;
            let d = &l.document;
            let blob = match (&d.sealed_blob_id, d.status) {
                (Some(blob), Status::Completed) => blob.clone(),
                _ => {
                    return Err(AppError::wrong_state(
                        "the signed copy exists once everyone has signed",
                    ));
                }
            };
            let actor = Actor {
                label: l.me.email.clone(),
                recipient_id: Some(l.me.id),
                ip: origin.ip,
                user_agent: origin.user_agent,
            };
            let downloaded = Happened::Downloaded(Downloaded { original: false });
            audit::record(tx, d.id, &actor, &downloaded, now())?;
            Ok(Download {
                blob,
                name: crate::signing::documents::file_name(&d.title, true),
            })
        })
        .await
}
