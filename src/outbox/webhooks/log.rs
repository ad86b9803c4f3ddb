//! The delivery log of an endpoint (`webhook_deliveries` as its owner reads it): the latest
//! deliveries with their state, attempts, the receiver's status and answer, and a delivery
//! queued again (`redeliver`). The worker's queue is `store` (`claim`, `record_attempt`).

use serde::Serialize;

use super::Event;
use crate::core::error::AppError;
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};
use crate::{core::timefmt::iso8601, core::timefmt::iso8601_opt};

/// Where a delivery is: still being tried (`PENDING`), answered with a 2xx (`DELIVERED`), or
/// given up on (`FAILED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
}

impl DeliveryStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "PENDING",
            DeliveryStatus::Delivered => "DELIVERED",
            DeliveryStatus::Failed => "FAILED",
        }
    }

    pub fn parse(s: &str) -> Option<DeliveryStatus> {
        use DeliveryStatus::*;
        [Pending, Delivered, Failed]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

crate::sql_text_enum!(DeliveryStatus);

/// What a delivery carries: a real event, or a test (`send_test`) whose payload names nothing
/// real. Stored as `webhook_deliveries.test`; the log shows the second with a badge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Event,
    Test,
}

/// A delivery as the API shows it (not its body).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub id: i64,
    pub webhook_id: i64,
    pub event: Event,
    pub status: DeliveryStatus,
    pub attempts: i64,
    #[schema(required = true, format = DateTime)]
    pub next_attempt_at: Option<String>,
    #[schema(required = true)]
    pub last_status: Option<i64>,
    #[schema(required = true)]
    pub last_error: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(required = true, format = DateTime)]
    pub delivered_at: Option<String>,
    /// The start of the receiver's last answer (at most 512 bytes), when it said anything.
    #[schema(required = true)]
    pub response_excerpt: Option<String>,
    /// `true`: a test event (`POST /api/v1/webhooks/{id}/test`) or a redelivery of one, whose
    /// payload names nothing real; `false`: a real event's.
    pub test: bool,
}

const SELECT: &str = "SELECT id, webhook_id, event, status, attempts, next_attempt_at,
        last_status, last_error, created_at, delivered_at, response_excerpt, test
   FROM webhook_deliveries";

fn delivery(r: &crate::core::db::Row<'_>) -> crate::core::db::Result<Delivery> {
    let status: DeliveryStatus = r.get(3)?;
    let next: i64 = r.get(5)?;
    Ok(Delivery {
        id: r.get(0)?,
        webhook_id: r.get(1)?,
        event: r.get(2)?,
        next_attempt_at: (status == DeliveryStatus::Pending).then(|| iso8601(next)),
        status,
        attempts: r.get(4)?,
        last_status: r.get(6)?,
        last_error: r.get(7)?,
        created_at: iso8601(r.get(8)?),
        delivered_at: iso8601_opt(r.get(9)?),
        response_excerpt: r.get(10)?,
        test: r.get(11)?,
    })
}

/// The newest `limit` deliveries of an endpoint, newest first.
pub fn deliveries(conn: &Conn, webhook: i64, limit: i64) -> Result<Vec<Delivery>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE webhook_id = ?1 ORDER BY id DESC LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![webhook, limit], delivery)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Delivery `id` of endpoint `webhook`, or a 404.
pub fn get(conn: &Conn, webhook: i64, id: i64) -> Result<Delivery, AppError> {
    conn.query_row(
        &format!("{SELECT} WHERE id = ?1 AND webhook_id = ?2"),
        params![id, webhook],
        delivery,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("delivery"))
}

/// Queues delivery `id` of endpoint `webhook` again, as a new delivery with the same event
/// and the same body (signed anew when sent), a test again if it was one; the new delivery's
/// id, or a 404.
pub fn redeliver(tx: &Conn, webhook: i64, id: i64, now: i64) -> Result<i64, AppError> {
    let (event, body, test): (Event, String, bool) = tx
        .query_row(
            "SELECT event, body, test FROM webhook_deliveries WHERE id = ?1 AND webhook_id = ?2",
            params![id, webhook],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?
        .ok_or_else(|| AppError::not_found("delivery"))?;
    let kind = if test { Kind::Test } else { Kind::Event };
    super::store::insert_delivery(tx, webhook, (event, kind), &body, now)
}
