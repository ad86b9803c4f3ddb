//! SQL for the `bookings` table. Every read and write is scoped to the owning user, so another
//! user's booking is simply not found.

use crate::core::ids::UserId;
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension, core::db::Row};

use super::{Answers, Attendee, Booking, EventType, Json, NewBooking, Organizer, Status};
use crate::core::error::AppError;

const SELECT: &str = "SELECT b.id, b.uid, b.title, b.description, b.start_time, b.end_time,
        b.status, b.location, b.attendees, b.cancellation_reason, b.created_at,
        u.username, u.name, u.email, u.time_zone, b.event_type, b.responses
   FROM bookings b JOIN users u ON u.id = b.user_id";

fn from_row(r: &Row<'_>) -> crate::core::db::Result<Booking> {
    let status: Status = r.get(6)?;
    let attendees: String = r.get(8)?;
    let attendees: Vec<Attendee> = crate::core::db::stored_json(8, &attendees)?;
    let (title, description): (String, Option<String>) = (r.get(2)?, r.get(3)?);
    let (start_time, end_time, location): (i64, i64, Option<String>) =
        (r.get(4)?, r.get(5)?, r.get(7)?);
    // A booking made before event types were stored shows the one derived from it.
    let event_type = match r.get::<_, Option<String>>(15)? {
        Some(json) => crate::core::db::stored_json(15, &json)?,
        None => EventType::derived(
            &title,
            description.as_deref(),
            start_time,
            end_time,
            status == Status::Pending,
        ),
    };
    let responses: String = r.get(16)?;
    let responses = crate::core::db::stored_json(16, &responses)?;
    let answers = Answers::of(
        &attendees,
        location.as_deref(),
        description.as_deref(),
        &responses,
    );
    Ok(Booking {
        id: r.get(0)?,
        uid: r.get(1)?,
        title,
        description,
        start_time,
        end_time,
        status,
        location,
        attendees,
        cancellation_reason: r.get(9)?,
        created_at: r.get(10)?,
        user: Organizer {
            username: r.get(11)?,
            name: r.get(12)?,
            email: r.get(13)?,
            time_zone: r.get(14)?,
            locale: "en",
        },
        event_type,
        answers,
    })
}

/// Stores a validated booking for `user_id` and returns it as clients see it.
pub fn insert(
    tx: &Conn,
    user_id: UserId,
    uid: &str,
    new: &NewBooking,
    now: i64,
) -> Result<Booking, AppError> {
    let attendees = serde_json::to_string(&new.attendees).map_err(AppError::internal)?;
    let event_type = serde_json::to_string(&new.event_type).map_err(AppError::internal)?;
    let responses = serde_json::to_string(&new.responses).map_err(AppError::internal)?;
    let inserted_id = tx.insert(
        "INSERT INTO bookings (uid, user_id, title, description, start_time, end_time, status,
                               location, attendees, created_at, updated_at, event_type, responses)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11, ?12)",
        params![
            uid,
            user_id,
            new.title,
            new.description,
            new.start_time,
            new.end_time,
            new.status.as_str(),
            new.location,
            attendees,
            now,
            event_type,
            responses
        ],
    )?;
    let booking = get(tx, user_id, inserted_id)?
        .ok_or_else(|| AppError::internal("inserted booking vanished"))?;
    store_rendered(tx, &booking)?;
    Ok(booking)
}

/// The booking as clients see it without its `user` (the organizer, whose name or address may
/// change): what `Booking` serialises to, kept in `bookings.rendered` by every write of the
/// row, so that listings copy it instead of rebuilding it (issue 27: `/listBookings` spent
/// most of its time parsing the stored JSON columns and building the answers again).
fn render(b: &Booking) -> Result<String, AppError> {
    let mut value = serde_json::to_value(b).map_err(AppError::internal)?;
    if let Some(object) = value.as_object_mut() {
        object.remove("user");
    }
    serde_json::to_string(&value).map_err(AppError::internal)
}

fn store_rendered(tx: &Conn, b: &Booking) -> Result<(), AppError> {
    tx.execute(
        "UPDATE bookings SET rendered = ?2 WHERE id = ?1",
        params![b.id, render(b)?],
    )?;
    Ok(())
}

/// Booking `id` when it belongs to `user_id`.
pub fn get(conn: &Conn, user_id: UserId, id: i64) -> Result<Option<Booking>, AppError> {
    Ok(conn
        .query_row(
            &format!("{SELECT} WHERE b.id = ?1 AND b.user_id = ?2"),
            params![id, user_id],
            from_row,
        )
        .optional()?)
}

/// A page of `user_id`'s bookings, newest created first, optionally only those with `status`,
/// already serialised: a JSON array of the bookings as clients see them, copied
/// from `bookings.rendered` with the organizer put in front of each (`render`). A row written
/// before `rendered` existed (v23) is rendered here from its columns.
pub fn list_json(
    conn: &Conn,
    user_id: UserId,
    status: Option<Status>,
    limit: u32,
    offset: i64,
) -> Result<Json, AppError> {
    // Every row joins the same user (the organizer): read from the first row only.
    let mut organizer = None;
    let rows = page_rows(conn, user_id, status, limit, offset, |r| {
        if organizer.is_none() {
            organizer = Some(Organizer {
                username: r.get(2)?,
                name: r.get(3)?,
                email: r.get(4)?,
                time_zone: r.get(5)?,
                locale: "en",
            });
        }
        Ok((r.get::<_, Option<String>>(0)?, r.get::<_, i64>(1)?))
    })?;
    let Some(organizer) = organizer else {
        return Ok(Json("[]".to_string()));
    };
    let user = serde_json::to_string(&organizer).map_err(AppError::internal)?;
    let rendered_len: usize = rows
        .iter()
        .map(|r| r.0.as_ref().map_or(0, String::len))
        .sum();
    let mut out = String::with_capacity(rendered_len + rows.len() * (user.len() + 12) + 2);
    out.push('[');
    for (i, (rendered, id)) in rows.into_iter().enumerate() {
        let rendered = match rendered {
            Some(text) => text,
            None => render(
                &get(conn, user_id, id)?
                    .ok_or_else(|| AppError::internal("listed booking vanished"))?,
            )?,
        };
        // `rendered` is an object with at least its `id`: `{"id":...}`.
        let members = rendered
            .strip_prefix('{')
            .ok_or_else(|| AppError::internal("a stored booking is not a JSON object"))?;
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"user\":");
        out.push_str(&user);
        out.push(',');
        out.push_str(members);
    }
    out.push(']');
    Ok(Json(out))
}

/// The rows of a page of `user_id`'s bookings, newest created first, optionally only those
/// with `status`: `rendered`, `id`, then the organizer's `username`, `name`, `email` and
/// `time_zone`, each through `row`.
fn page_rows<T>(
    conn: &Conn,
    user_id: UserId,
    status: Option<Status>,
    limit: u32,
    offset: i64,
    row: impl FnMut(&Row<'_>) -> crate::core::db::Result<T>,
) -> Result<Vec<T>, AppError> {
    const PAGE: &str = "SELECT b.rendered, b.id, u.username, u.name, u.email, u.time_zone
       FROM bookings b JOIN users u ON u.id = b.user_id";
    // Two statements, so that each finds its page in order in an index
    // (`bookings_user_created`, `bookings_user_status`).
    let rows = match status {
        Some(status) => {
            let mut stmt = conn.prepare_cached(&format!(
                "{PAGE} WHERE b.user_id = ?1 AND b.status = ?2
                  ORDER BY b.created_at DESC, b.id DESC LIMIT ?3 OFFSET ?4"
            ))?;
            let rows = stmt.query_map(params![user_id, status.as_str(), limit, offset], row)?;
            rows.collect::<Result<_, _>>()?
        }
        None => {
            let mut stmt = conn.prepare_cached(&format!(
                "{PAGE} WHERE b.user_id = ?1 ORDER BY b.created_at DESC, b.id DESC LIMIT ?2 OFFSET ?3"
            ))?;
            let rows = stmt.query_map(params![user_id, limit, offset], row)?;
            rows.collect::<Result<_, _>>()?
        }
    };
    Ok(rows)
}

/// `user_id`'s newest `limit` bookings by id.
pub fn newest(conn: &Conn, user_id: UserId, limit: u32) -> Result<Vec<Booking>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE b.user_id = ?1 ORDER BY b.id DESC LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![user_id, limit], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// `user_id`'s bookings by id, oldest first: `limit` of them after the first `offset`.
pub fn slice(
    conn: &Conn,
    user_id: UserId,
    limit: u32,
    offset: i64,
) -> Result<Vec<Booking>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE b.user_id = ?1 ORDER BY b.id LIMIT ?2 OFFSET ?3"
    ))?;
    let rows = stmt.query_map(params![user_id, limit, offset], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// How many bookings `list_json` would page through (counted by a trigger:
/// `crate::core::db::counts`).
pub fn count(conn: &Conn, user_id: UserId, status: Option<Status>) -> Result<i64, AppError> {
    use crate::core::db::counts;
    counts::listed(
        conn,
        user_id.get(),
        counts::List::Bookings,
        status.map(Status::as_str),
    )
}

/// Cancels booking `id` of `user_id`. The UPDATE itself checks that the booking is still
/// ACCEPTED or PENDING, so two concurrent cancels cannot both win: the loser gets 409.
pub fn cancel(
    tx: &Conn,
    user_id: UserId,
    id: i64,
    reason: Option<&str>,
    now: i64,
) -> Result<Booking, AppError> {
    let changed = tx.execute(
        "UPDATE bookings SET status = 'CANCELLED', cancellation_reason = ?3, updated_at = ?4
          WHERE id = ?1 AND user_id = ?2 AND status IN ('ACCEPTED', 'PENDING')",
        params![id, user_id, reason, now],
    )?;
    let booking = get(tx, user_id, id)?.ok_or_else(|| AppError::not_found("booking"))?;
    if changed == 0 {
        return Err(AppError::Conflict(format!(
            "booking {id} is {} and cannot be cancelled",
            booking.status.as_str()
        )));
    }
    store_rendered(tx, &booking)?;
    Ok(booking)
}

/// A page of the user's bookings and how many there are in all, read in one transaction so
/// that the two agree.
/// The bookings are serialised ([`list_json`]).
pub fn page(
    conn: &Conn,
    user: UserId,
    status: Option<Status>,
    limit: u32,
    offset: i64,
) -> Result<(Json, i64), AppError> {
    conn.consistent_read(|tx| {
        let total = count(tx, user, status)?;
        Ok((list_json(tx, user, status, limit, offset)?, total))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::db::write_tx;

    /// Runs `f` on a fresh in-memory database with two users.
    fn with_users(f: impl FnOnce(&mut Conn) -> Result<(), AppError>) {
        let mut c = crate::core::db::memory();
        c.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'ada@x.org', 'ada', 'Ada', 'x', 0, 0),
                    (2, 'bob@x.org', 'bob', 'Bob', 'x', 0, 0);",
        )
        .unwrap();
        f(&mut c).unwrap()
    }

    fn new(title: &str, status: Status) -> NewBooking {
        NewBooking {
            title: title.into(),
            description: Some("d".into()),
            start_time: 1000,
            end_time: 2000,
            status,
            location: None,
            attendees: vec![Attendee {
                name: "Grace".into(),
                email: "grace@x.org".into(),
                time_zone: "Europe/Berlin".into(),
            }],
            event_type: crate::bookings::EventType::derived(title, None, 1000, 2000, false),
            responses: serde_json::Map::new(),
        }
    }

    fn add(c: &mut Conn, user: UserId, title: &str, status: Status, now: i64) -> Booking {
        write_tx(c, |tx| {
            insert(tx, user, &super::super::new_uid(), &new(title, status), now)
        })
        .unwrap()
    }

    #[test]
    fn insert_and_get_round_trip_for_the_owner_only() {
        with_users(|c| {
            let b = add(c, UserId::new(1), "One", Status::Accepted, 100);
            assert_eq!(b.title, "One");
            assert_eq!(b.user.username, "ada");
            assert_eq!(b.attendees[0].time_zone, "Europe/Berlin");
            assert_eq!(b.uid.len(), 22);
            assert_eq!(get(c, UserId::new(1), b.id)?, Some(b.clone()));
            assert_eq!(get(c, UserId::new(2), b.id)?, None);
            Ok(())
        });
    }

    #[test]
    fn lists_newest_first_with_paging_and_status() {
        with_users(|c| {
            add(c, UserId::new(1), "old", Status::Accepted, 100);
            add(c, UserId::new(1), "mid", Status::Pending, 200);
            add(c, UserId::new(1), "new-a", Status::Accepted, 300);
            add(c, UserId::new(1), "new-b", Status::Accepted, 300);
            add(c, UserId::new(2), "bob's", Status::Accepted, 400);
            let titles = |list: Json| {
                let list: serde_json::Value = serde_json::from_str(&list.0).unwrap();
                let list = list.as_array().unwrap().iter();
                list.map(|b| b["title"].as_str().unwrap().to_string())
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                titles(list_json(c, UserId::new(1), None, 10, 0)?),
                ["new-b", "new-a", "mid", "old"]
            );
            assert_eq!(
                titles(list_json(c, UserId::new(1), None, 2, 2)?),
                ["mid", "old"]
            );
            assert_eq!(
                titles(list_json(c, UserId::new(1), Some(Status::Pending), 10, 0)?),
                ["mid"]
            );
            assert_eq!(list_json(c, UserId::new(1), None, 10, 9)?.0, "[]");
            assert_eq!(count(c, UserId::new(1), None)?, 4);
            assert_eq!(count(c, UserId::new(1), Some(Status::Accepted))?, 3);
            assert_eq!(count(c, UserId::new(2), Some(Status::Cancelled))?, 0);
            Ok(())
        });
    }

    /// What a listing copies from `rendered` is what the booking serialises to, after each
    /// write of the row, after its organizer changes, and for a row from before `rendered`.
    #[test]
    fn a_listed_booking_is_the_booking_as_it_serialises_now() {
        with_users(|c| {
            let mut one = new("One", Status::Pending);
            one.attendees.push(Attendee {
                name: "Alan".into(),
                email: "alan@x.org".into(),
                time_zone: "UTC".into(),
            });
            one.responses
                .insert("topic".into(), serde_json::json!(["a", 1]));
            let user = UserId::new(1);
            let b = write_tx(c, |tx| {
                insert(tx, user, &super::super::new_uid(), &one, 100)
            })?;
            let same = |c: &mut Conn, why: &str| {
                let listed: serde_json::Value =
                    serde_json::from_str(&list_json(c, user, None, 10, 0).unwrap().0).unwrap();
                let now = serde_json::to_value(get(c, user, b.id).unwrap().unwrap()).unwrap();
                assert_eq!(listed, serde_json::json!([now]), "{why}");
                now
            };
            let first = same(c, "as made");
            assert_eq!(first["responses"]["guests"]["value"][0], "alan@x.org");
            let cancelled = write_tx(c, |tx| cancel(tx, user, b.id, Some("ill"), 200))?;
            assert_eq!(same(c, "cancelled")["status"], "CANCELLED");
            assert_eq!(cancelled.cancellation_reason.as_deref(), Some("ill"));
            c.execute_batch("UPDATE users SET name = 'Ada L.' WHERE id = 1")
                .unwrap();
            assert_eq!(same(c, "organizer renamed")["user"]["name"], "Ada L.");
            c.execute_batch("UPDATE bookings SET rendered = NULL")
                .unwrap();
            assert_eq!(
                same(c, "a row from before v23")["cancellationReason"],
                "ill"
            );
            Ok(())
        });
    }

    #[test]
    fn cancel_checks_owner_and_state() {
        with_users(|c| {
            let b = add(c, UserId::new(1), "One", Status::Pending, 100);
            let other = write_tx(c, |tx| cancel(tx, UserId::new(2), b.id, None, 150)).unwrap_err();
            assert_eq!(other.status(), 404);
            let done = write_tx(c, |tx| cancel(tx, UserId::new(1), b.id, Some("ill"), 200))?;
            assert_eq!(done.status, Status::Cancelled);
            assert_eq!(done.cancellation_reason.as_deref(), Some("ill"));
            let again = write_tx(c, |tx| cancel(tx, UserId::new(1), b.id, None, 300)).unwrap_err();
            assert_eq!(again.status(), 409);
            assert_eq!(
                get(c, UserId::new(1), b.id)?
                    .unwrap()
                    .cancellation_reason
                    .as_deref(),
                Some("ill"),
                "a refused cancel changes nothing"
            );
            Ok(())
        });
    }
}
