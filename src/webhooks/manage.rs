//! The webhook use cases of the API: register (the secret sealed at rest, shown once), list,
//! delete and read an endpoint's deliveries. One made with an OAuth access token belongs to that
//! app's grant, and the app sees only its own (`store::Visible`).

use serde_json::Value;

use super::secret::SecretBox;
use super::store::{self, Delivery, Visible, Webhook};
use crate::db::{Db, now};
use crate::error::AppError;
use crate::oauth::principal::Principal;

/// Deliveries listed per endpoint, newest first.
const DELIVERIES_SHOWN: i64 = 100;

/// The webhooks `who` may see and manage.
fn visible(who: &Principal) -> Visible {
    Visible {
        user: who.user_id,
        grant: who.grant(),
    }
}

/// A new endpoint and its signing secret (the only time the secret is shown).
pub async fn create(
    db: &Db,
    secrets: &SecretBox,
    who: &Principal,
    body: &Value,
    max: u32,
) -> Result<(Webhook, String), AppError> {
    let new = super::parse_create(body)?;
    let sealed = secrets.seal(&new.secret)?;
    let (url, events, owner) = (new.url.clone(), new.events.clone(), visible(who));
    let hook = db
        .write(move |tx| store::insert(tx, owner, &url, &events, &sealed, max, now()))
        .await?;
    Ok((hook, new.secret))
}

pub async fn list(db: &Db, who: &Principal) -> Result<Vec<Webhook>, AppError> {
    let who = visible(who);
    db.read(move |c| store::list(c, who)).await
}

/// Deletes the endpoint; its pending deliveries go with it.
pub async fn delete(db: &Db, who: &Principal, id: i64) -> Result<(), AppError> {
    let who = visible(who);
    db.write(move |tx| store::delete(tx, who, id)).await
}

/// The endpoint's latest deliveries, newest first.
pub async fn deliveries(db: &Db, who: &Principal, id: i64) -> Result<Vec<Delivery>, AppError> {
    let who = visible(who);
    db.read(move |c| {
        store::owned(c, who, id)?;
        store::deliveries(c, id, DELIVERIES_SHOWN)
    })
    .await
}
