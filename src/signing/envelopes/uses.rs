//! The v2 use of a template: a document made from it by v1's generate (`templates::manage::
//! generate`, the same checks), then put in a folder (`folders::move_document`) and sent
//! (`workflow::sending::send`) when asked. Three steps, as a v1 client makes them: a document
//! made and then refused a folder or a send stays a draft the caller sees in the answer's
//! error and in its list.

use crate::core::context::Context;
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::identity::principal::Principal;
use crate::signing::documents::audit::Origin;
use crate::signing::folders;
use crate::signing::templates::GenerateCommand;
use crate::signing::templates::manage::generate;
use crate::signing::workflow::sending::{self, SendDocument};

/// What a use asks: the document to make, whether to send it, and its folder.
#[derive(Debug)]
pub struct Use {
    pub generate: GenerateCommand,
    pub distribute: bool,
    pub folder: Option<String>,
}

/// Makes a document from the caller's template `id`; answers its number.
pub async fn use_template(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    command: Use,
    origin: Origin,
) -> Result<DocumentId, AppError> {
    let made = generate(ctx, who, id, command.generate).await?;
    let doc = made.document_id;
    if let Some(folder) = command.folder {
        folders::move_document(ctx, who, doc, Some(folder)).await?;
    }
    if command.distribute {
        sending::send(ctx, who, doc, SendDocument::default(), origin).await?;
    }
    Ok(doc)
}
