//! The booking use cases: create, list, read and cancel for the
//! caller, plus the integrations' legacy listing, which checks the credential and reads in one
//! trip to the database. The caller has authenticated `who` (with its scope) where it says so.
//! Creating and cancelling queue the BOOKING_CREATED and BOOKING_CANCELLED webhooks in their
//! transaction, and wake the worker after it.

use super::webhook::enqueue as enqueue_booking;
use super::{Booking, Json, NewBooking, PageRequest, store};
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::identity::scope::Scope;
use crate::outbox::webhooks::Event;
use crate::{identity::principal::Credentials, identity::principal::Principal};

/// `GET /listBookings?limit=`: the caller's newest bookings; authenticates `creds` itself.
pub async fn list_legacy(
    ctx: &Context,
    caches: &crate::oauth::verified::Caches,
    creds: Credentials,
    limit: Option<String>,
) -> Result<Json, AppError> {
    crate::oauth::bearer::read_as(&ctx.db, caches, creds, move |c, who| {
        who.require(Scope::ReadBooking)?;
        let limit = super::parse_limit(limit.as_deref())?;
        store::list_json(c, who.personal("bookings")?, None, limit, 0)
    })
    .await
}

/// A new booking for `who`.
pub async fn create(ctx: &Context, who: &Principal, new: NewBooking) -> Result<Booking, AppError> {
    ctx.admit_new_work()?;
    let (user, uid) = (who.personal("bookings")?, super::new_uid());
    let booking = ctx
        .db
        .write(move |tx| {
            let t = now();
            let booking = store::insert(tx, user, &uid, &new, t)?;
            enqueue_booking(tx, user, Event::BookingCreated, &booking, t)?;
            Ok(booking)
        })
        .await?;
    ctx.workers.notices();
    Ok(booking)
}

/// `who`'s newest `limit` bookings by id (integrations' sample data).
pub async fn newest(ctx: &Context, who: &Principal, limit: u32) -> Result<Vec<Booking>, AppError> {
    let user = who.personal("bookings")?;
    ctx.db.read(move |c| store::newest(c, user, limit)).await
}

/// A page of `who`'s bookings (serialised) and the number of pages.
pub async fn list(
    ctx: &Context,
    who: &Principal,
    page: PageRequest,
) -> Result<(Json, i64), AppError> {
    let user = who.personal("bookings")?;
    let (bookings, total) = ctx
        .db
        .read(move |c| store::page(c, user, page.status, page.per_page, page.offset()))
        .await?;
    Ok((bookings, page.total_pages(total)))
}

/// `who`'s booking `id`: another user's is a 404, like a missing one.
pub async fn get(ctx: &Context, who: &Principal, id: i64) -> Result<Booking, AppError> {
    let user = who.personal("bookings")?;
    ctx.db
        .read(move |c| store::get(c, user, id))
        .await?
        .ok_or_else(|| AppError::not_found("booking"))
}

/// Cancels `who`'s booking `id` with an optional reason: 409 unless ACCEPTED or PENDING.
pub async fn cancel(
    ctx: &Context,
    who: &Principal,
    id: i64,
    reason: Option<&str>,
) -> Result<Booking, AppError> {
    let reason = super::validate_reason(reason)?;
    let user = who.personal("bookings")?;
    let booking = ctx
        .db
        .write(move |tx| {
            let t = now();
            let booking = store::cancel(tx, user, id, reason.as_deref(), t)?;
            enqueue_booking(tx, user, Event::BookingCancelled, &booking, t)?;
            Ok(booking)
        })
        .await?;
    ctx.workers.notices();
    Ok(booking)
}
