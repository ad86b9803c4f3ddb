//! The scheduling service's API v1 as its clients call it with an API key (`?apiKey=`): n8n's
//! node tests a credential with `GET /v1/memberships` and its trigger subscribes with
//! `/v1/hooks` (or `/webhooks`). Hooks made here are ordinary endpoints marked `App::Cal`
//! (same queue, retries, address checks and cap); their booking deliveries take that
//! service's shape (`bookings::cal_hook`). Memberships are docket's teams; bookings and the
//! account are read by the code the rest of the API uses.

use super::webhooks::{self as manage, Made};
use crate::bookings::Booking;
use crate::core::context::Context;
use crate::core::crypto::SecretBox;
use crate::core::error::{AppError, FieldError};
use crate::identity::accounts::access::Source;
use crate::identity::principal::Principal;
use crate::identity::users::User;
use crate::outbox::webhooks::store::{App, Webhook};
use crate::outbox::webhooks::{Event, check_url, generate_secret};
use crate::teams::model::Membership;

/// A hook as a client asks for it, each member as sent (`None`: absent or null).
#[derive(Debug, Default, Clone)]
pub struct NewHook {
    pub subscriber_url: Option<String>,
    pub event_triggers: Option<Vec<String>>,
    pub active: Option<bool>,
    pub payload_template: Option<String>,
    /// The other service's event types; docket's bookings have none to name.
    pub event_type_id: Option<serde_json::Value>,
    pub secret: Option<String>,
    /// Another user's id: only that service's system administrators may give one.
    pub user_id: Option<serde_json::Value>,
}

/// Makes `who`'s hook `new`: booking events only (the ones docket sends), switched off when
/// `active` is false, signed with the client's `secret` (or a generated one, never shown).
pub async fn subscribe(
    ctx: &Context,
    secrets: &SecretBox,
    who: &Principal,
    new: NewHook,
    (max, from): (u32, Source),
) -> Result<Webhook, AppError> {
    if new.user_id.is_some() {
        return Err(AppError::Forbidden("ADMIN required for userId".into()));
    }
    let mut problems = Vec::new();
    let mut fail = |path: &str, message: String| problems.push(FieldError::new(path, message));
    let url = match new.subscriber_url.as_deref().map(check_url) {
        Some(Ok(u)) => Some(u),
        Some(Err(m)) => {
            fail("subscriberUrl", m.to_string());
            None
        }
        None => {
            fail("subscriberUrl", "required".into());
            None
        }
    };
    let events = events(new.event_triggers.as_deref()).map_err(|m| fail("eventTriggers", m));
    if new.event_type_id.is_some() {
        fail(
            "eventTypeId",
            "docket's bookings have no event types to choose from; leave it out".into(),
        );
    }
    if let Some(Err(m)) = new
        .payload_template
        .as_deref()
        .map(crate::bookings::cal_hook::check_template)
    {
        fail("payloadTemplate", m);
    }
    let secret = match new.secret {
        Some(s) if (1..=256).contains(&s.chars().count()) && s.trim() == s => s,
        Some(_) => {
            fail(
                "secret",
                "1 to 256 characters without leading or trailing spaces".into(),
            );
            String::new()
        }
        None => generate_secret(),
    };
    let (Some(url), Ok(events), true) = (url, events, problems.is_empty()) else {
        return Err(AppError::validation(problems));
    };
    who.require(manage::scope_for(Event::BookingCreated))?;
    let made = Made {
        app: App::Cal,
        enabled: new.active.unwrap_or(true),
        payload_template: new.payload_template,
    };
    manage::insert(
        ctx,
        secrets,
        who,
        (&url, events, &secret),
        made,
        (max, from),
    )
    .await
}

/// The booking events named in `eventTriggers`, each once: at least one, and only those docket
/// sends (a booking here is never rescheduled, and no meeting is known to end).
fn events(given: Option<&[String]>) -> Result<Vec<Event>, String> {
    let names = Event::names_of(true).join(", ");
    let given = given.ok_or("required")?;
    if given.is_empty() {
        return Err(format!("give at least one of {names}"));
    }
    let mut events = Vec::new();
    for name in given {
        match Event::parse(name.trim()).filter(|e| e.is_booking()) {
            Some(e) if !events.contains(&e) => events.push(e),
            Some(_) => {}
            None => return Err(format!("{name}: docket sends {names} only")),
        }
    }
    Ok(events)
}

/// `who`'s hooks made through these routes, oldest first.
pub async fn hooks(ctx: &Context, who: &Principal) -> Result<Vec<Webhook>, AppError> {
    let mut all = manage::list(ctx, who).await?;
    all.retain(|h| h.app == App::Cal);
    Ok(all)
}

/// `who`'s hook `id` made through these routes (404 for any other endpoint).
pub async fn hook(ctx: &Context, who: &Principal, id: i64) -> Result<Webhook, AppError> {
    let hook = manage::get(ctx, who, id).await?;
    match hook.app {
        App::Cal => Ok(hook),
        _ => Err(AppError::not_found("webhook")),
    }
}

/// Deletes `who`'s hook `id` made through these routes (404 for any other endpoint).
pub async fn unsubscribe(ctx: &Context, who: &Principal, id: i64) -> Result<Webhook, AppError> {
    manage::delete(ctx, who, id, Some(App::Cal)).await
}

/// The teams `who` belongs to, with their role.
pub async fn memberships(ctx: &Context, who: &Principal) -> Result<Vec<Membership>, AppError> {
    crate::teams::manage::mine(ctx, who).await
}

/// `who`'s account.
pub async fn me(ctx: &Context, who: &Principal) -> Result<User, AppError> {
    who.require(crate::identity::scope::Scope::ReadProfile)?;
    let id = who.user_id;
    ctx.db
        .read(move |c| crate::oauth::identity::user(c, id))
        .await
}

/// Page `page` (from 1) of `who`'s bookings, `take` to a page, oldest first.
pub async fn bookings(
    ctx: &Context,
    who: &Principal,
    (take, page): (u32, u32),
) -> Result<Vec<Booking>, AppError> {
    who.require(crate::identity::scope::Scope::ReadBooking)?;
    let user = who.personal("bookings")?;
    let offset = i64::from(page.saturating_sub(1)) * i64::from(take);
    ctx.db
        .read(move |c| crate::bookings::store::slice(c, user, take, offset))
        .await
}

/// `take` and `page` of a bookings list: 1..=100 (10 when absent), and from 1.
pub fn paging(take: Option<&str>, page: Option<&str>) -> Result<(u32, u32), AppError> {
    use crate::bookings::bounded;
    let take = bounded("take", take, 10, 1, 100);
    let page = bounded("page", page, 1, 1, 1_000_000);
    match (take, page) {
        (Ok(t), Ok(p)) => Ok((t, p)),
        (t, p) => Err(AppError::validation(
            [t.err(), p.err()].into_iter().flatten().collect(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_booking_events_docket_sends_are_taken() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            events(Some(&names(&[
                "BOOKING_CREATED",
                "BOOKING_CANCELLED",
                "BOOKING_CREATED"
            ]))),
            Ok(vec![Event::BookingCreated, Event::BookingCancelled])
        );
        for bad in [&["BOOKING_RESCHEDULED"][..], &["DOCUMENT_SIGNED"], &[]] {
            assert!(events(Some(&names(bad))).is_err(), "{bad:?}");
        }
        assert!(events(None).is_err());
    }

    #[test]
    fn paging_is_bounded() {
        assert_eq!(paging(None, None).unwrap(), (10, 1));
        assert_eq!(paging(Some("100"), Some("3")).unwrap(), (100, 3));
        assert!(paging(Some("101"), None).is_err());
        assert!(paging(None, Some("0")).is_err());
    }
}
