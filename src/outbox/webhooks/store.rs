//! SQL for `webhooks` and `webhook_deliveries`.

use crate::core::db::{ToSql, Value, params_from_iter};
use crate::core::ids::{GrantId, TeamId, UserId};
use crate::core::owner::{Owner, Rows};
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};
use serde::Serialize;

use super::Event;
pub use super::log::{Delivery, DeliveryStatus, Kind, deliveries};
use crate::core::error::AppError;
use crate::core::timefmt::iso8601;

/// Through which route an endpoint was made: docket's webhook API, a Zapier REST-hook route
/// (whose deliveries take the shapes Zapier's apps map), or the scheduling service's API v1
/// (`/v1/hooks`: its shape, or the endpoint's payload template). The last is stored as
/// `app = 'API'` with `cal_v1 = 1`, and read back as `CAL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum App {
    Api,
    Zapier,
    Cal,
}

impl App {
    pub const ALL: [App; 3] = [App::Api, App::Zapier, App::Cal];

    pub fn as_str(self) -> &'static str {
        match self {
            App::Api => "API",
            App::Zapier => "ZAPIER",
            App::Cal => "CAL",
        }
    }

    /// The value of the `app` column (whose check knows only the first two).
    fn stored(self) -> App {
        match self {
            App::Cal => App::Api,
            other => other,
        }
    }

    pub fn parse(s: &str) -> Option<App> {
        App::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

crate::sql_text_enum!(App);

/// An endpoint as the API shows it (never its secret).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Webhook {
    pub id: i64,
    pub url: String,
    pub events: Vec<Event>,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// `false`: switched off by its owner; no deliveries are queued for it.
    pub enabled: bool,
    /// The OAuth grant it belongs to (`None`: the owner's, made with an API key).
    #[serde(skip)]
    pub grant: Option<GrantId>,
    #[serde(skip)]
    pub app: App,
    /// The team it belongs to (`None`: personal): it gets the team's document events.
    #[serde(skip)]
    pub team: Option<TeamId>,
    /// The scheduling service's payload template (`App::Cal` only; `None`: its own shape).
    #[serde(skip)]
    pub payload_template: Option<String>,
}

/// What a new endpoint is.
pub struct NewEndpoint<'a> {
    pub url: &'a str,
    pub events: &'a [Event],
    pub sealed_secret: &'a [u8],
    pub app: App,
    /// `false`: made switched off.
    pub enabled: bool,
    pub payload_template: Option<&'a str>,
}

/// Whose webhooks a caller sees: the owner's credential sees all of the workspace's (the
/// user's own, or a team's), an OAuth app only those made under its own grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visible {
    pub owner: Owner,
    /// `Some(grant)`: only the webhooks of that grant.
    pub grant: Option<GrantId>,
}

impl Visible {
    /// The condition on `webhooks w` that keeps what this caller sees, its parameters
    /// appended to `args`.
    fn clause(&self, args: &mut Vec<Value>) -> String {
        let owner = self.owner.clause("w", Rows::WithoutVisibility, args);
        args.push(self.grant.to_sql());
        let n = args.len();
        format!("{owner} AND (w.grant_id = ?{n} OR ?{n} IS NULL)")
    }
}

/// Adds an endpoint, unless the user already has `max` (409).
pub fn insert(
    tx: &Conn,
    owner: &Visible,
    new: &NewEndpoint<'_>,
    max: u32,
    now: i64,
) -> Result<Webhook, AppError> {
    // Counted, then inserted: one workspace's additions take turns so the cap holds across
    // nodes. The cap counts every endpoint of the workspace, an app's too.
    let (lock, whose) = match owner.owner.team() {
        None => (format!("webhooks:{}", owner.owner.user()), "an account"),
        Some(team) => (format!("webhooks:team:{team}"), "a team"),
    };
    tx.serialize_on(&lock)?;
    let mut args = Vec::new();
    let all = owner.owner.clause("w", Rows::WithoutVisibility, &mut args);
    let count: i64 = tx.query_row(
        &format!("SELECT count(*) FROM webhooks w WHERE {all}"),
        params_from_iter(args),
        |r| r.get(0),
    )?;
    if count >= i64::from(max) {
        return Err(AppError::Conflict(format!(
            "{whose} may have at most {max} webhook endpoints; delete one first"
        )));
    }
    let inserted_id = tx.insert(
        "INSERT INTO webhooks (user_id, url, events, secret, created_at, grant_id, app, team_id,
                               cal_v1, payload_template, enabled)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            owner.owner.user(),
            new.url,
            serde_json::to_string(new.events).map_err(AppError::internal)?,
            new.sealed_secret,
            now,
            owner.grant,
            new.app.stored(),
            owner.owner.team(),
            new.app == App::Cal,
            new.payload_template,
            new.enabled,
        ],
    )?;
    Ok(Webhook {
        id: inserted_id,
        url: new.url.to_string(),
        events: new.events.to_vec(),
        created_at: iso8601(now),
        enabled: new.enabled,
        grant: owner.grant,
        app: new.app,
        team: owner.owner.team(),
        payload_template: new.payload_template.map(str::to_string),
    })
}

const COLUMNS: &str = concat!(
    "w.id, w.url, w.events, w.created_at, w.grant_id, ",
    "CASE WHEN w.cal_v1 = 1 THEN 'CAL' ELSE w.app END, w.enabled, w.team_id, w.payload_template"
);

fn webhook(r: &crate::core::db::Row<'_>) -> crate::core::db::Result<Webhook> {
    let events: String = r.get(2)?;
    // Stored names the code does not know are an error, never "subscribed to nothing".
    let events = crate::core::db::stored_json(2, &events)?;
    Ok(Webhook {
        id: r.get(0)?,
        url: r.get(1)?,
        events,
        created_at: iso8601(r.get(3)?),
        grant: r.get(4)?,
        app: r.get(5)?,
        enabled: r.get(6)?,
        team: r.get(7)?,
        payload_template: r.get(8)?,
    })
}

/// The endpoints `who` sees, oldest first.
pub fn list(conn: &Conn, who: &Visible) -> Result<Vec<Webhook>, AppError> {
    let mut args = Vec::new();
    let seen = who.clause(&mut args);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM webhooks w WHERE {seen} ORDER BY w.id"
    ))?;
    let rows = stmt.query_map(params_from_iter(args), webhook)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Endpoint `id` if `who` sees it, or a 404 (also for another user's or another app's).
pub fn owned(conn: &Conn, who: &Visible, id: i64) -> Result<Webhook, AppError> {
    let mut args = vec![id.to_sql()];
    let seen = who.clause(&mut args);
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM webhooks w WHERE w.id = ?1 AND {seen}"),
        params_from_iter(args),
        webhook,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("webhook"))
}

/// Deletes endpoint `id` that `who` sees (and, when `only` is given, made through that route),
/// and its deliveries; the endpoint as it was, or a 404.
pub fn delete(tx: &Conn, who: &Visible, id: i64, only: Option<App>) -> Result<Webhook, AppError> {
    let hook = owned(tx, who, id)?;
    if only.is_some_and(|app| app != hook.app) {
        return Err(AppError::not_found("webhook"));
    }
    tx.execute("DELETE FROM webhooks WHERE id = ?1", [id])?;
    Ok(hook)
}

/// Deletes every endpoint made for `team` (it ends), with their deliveries; how many.
pub fn delete_of_team(tx: &Conn, team: TeamId) -> Result<usize, AppError> {
    Ok(tx.execute("DELETE FROM webhooks WHERE team_id = ?1", [team])?)
}

/// The oldest endpoint `who` sees, if any.
pub fn first(conn: &Conn, who: &Visible) -> Result<Option<Webhook>, AppError> {
    Ok(list(conn, who)?.into_iter().next())
}

/// What an owner changes of an endpoint: each `Some` replaces what is stored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    pub url: Option<String>,
    pub events: Option<Vec<Event>>,
    pub enabled: Option<bool>,
}

/// Applies `change` to endpoint `id` that `who` sees (404 otherwise); the endpoint as it is now.
pub fn update(tx: &Conn, who: &Visible, id: i64, change: &Change) -> Result<Webhook, AppError> {
    let mut hook = owned(tx, who, id)?;
    if let Some(url) = &change.url {
        hook.url = url.clone();
    }
    if let Some(events) = &change.events {
        hook.events = events.clone();
    }
    if let Some(enabled) = change.enabled {
        hook.enabled = enabled;
    }
    let events = serde_json::to_string(&hook.events).map_err(AppError::internal)?;
    tx.execute(
        "UPDATE webhooks SET url = ?2, events = ?3, enabled = ?4 WHERE id = ?1",
        params![id, hook.url, events, hook.enabled],
    )?;
    Ok(hook)
}

/// Switches off every personal endpoint of the owner `user` (not those of an app's grant,
/// which go with the grant, nor those the user made for a team, which are the team's) that is on, and fails their queued deliveries with `why`, the note their log
/// shows: nothing more is posted to them until the owner switches them on again. How many.
pub fn switch_off_owned(tx: &Conn, user: UserId, why: &str) -> Result<usize, AppError> {
    tx.execute(
        "UPDATE webhook_deliveries SET status = 'FAILED', last_error = ?2
          WHERE status = 'PENDING'
            AND webhook_id IN (SELECT id FROM webhooks
                                WHERE user_id = ?1 AND grant_id IS NULL AND team_id IS NULL)",
        params![user, why],
    )?;
    Ok(tx.execute(
        "UPDATE webhooks SET enabled = 0
          WHERE user_id = ?1 AND grant_id IS NULL AND team_id IS NULL AND enabled = 1",
        [user],
    )?)
}

/// The live endpoints of the workspace whose row changed (`owner`: a user's own, or a team's)
/// subscribed to `event` while their maker is enabled: the owner's, and those of apps whose
/// grant is live (a revoked grant's are already gone; this is the second lock on that door).
/// A personal event never reaches a team's endpoint, nor a team's event a personal one. A
/// disabled user's endpoints get nothing new: nothing of a disabled account acts.
pub fn subscribed(conn: &Conn, owner: &Owner, event: Event) -> Result<Vec<Webhook>, AppError> {
    let mut args = Vec::new();
    let whose = owner.clause("w", Rows::WithoutVisibility, &mut args);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM webhooks w
           JOIN users u ON u.id = w.user_id
           LEFT JOIN oauth_grants g ON g.id = w.grant_id
          WHERE {whose} AND w.enabled = 1
            AND u.disabled_at IS NULL AND (w.grant_id IS NULL OR g.revoked_at IS NULL)
          ORDER BY w.id"
    ))?;
    let rows = stmt.query_map(params_from_iter(args), webhook)?;
    Ok(rows
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|w| w.events.contains(&event))
        .collect())
}

/// Queues a delivery of `event` (a real one's or a test's, as `kind` says) to endpoint
/// `webhook` with `body`, due at once; its id.
pub fn insert_delivery(
    tx: &Conn,
    webhook: i64,
    (event, kind): (Event, Kind),
    body: &str,
    now: i64,
) -> Result<i64, AppError> {
    let inserted_id = tx.insert(
        "INSERT INTO webhook_deliveries (webhook_id, event, body, next_attempt_at, created_at, test)
         VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
        params![webhook, event, body, now, kind == Kind::Test],
    )?;
    Ok(inserted_id)
}

/// A delivery due for an attempt, with what the attempt needs.
#[derive(Debug, Clone)]
pub struct Due {
    pub id: i64,
    pub event: String,
    pub app: App,
    pub url: String,
    pub sealed_secret: Vec<u8>,
    pub body: String,
    pub attempts: u32,
    pub created_at: i64,
}

/// Claims up to `limit` deliveries for attempts starting at `now`, oldest due first: of each
/// endpoint only its oldest PENDING delivery, and only when it is due. A claim moves that
/// delivery's `next_attempt_at` to `lease_until`, which keeps it (and so its endpoint's later
/// deliveries) from being claimed again while the attempt runs; the attempt's outcome then sets
/// the real next time. When the process dies during an attempt, the lease runs out and the
/// delivery is claimed again: at least once, one attempt at a time per endpoint, in order.
pub fn claim(tx: &Conn, now: i64, lease_until: i64, limit: i64) -> Result<Vec<Due>, AppError> {
    // The PENDING set is small (deliveries end within a day) and `webhook_deliveries_due`
    // finds it, so grouping it per endpoint is cheap however long the history is.
    // Across nodes, the rows picked are locked until the lease is written (`claim_clause`).
    let mut stmt = tx.prepare_cached(&format!(
        "SELECT d.id, d.event, w.url, w.secret, d.body, d.attempts, d.created_at,
                CASE WHEN w.cal_v1 = 1 THEN 'CAL' ELSE w.app END
         FROM (SELECT MIN(id) AS id FROM webhook_deliveries
               WHERE status = 'PENDING' GROUP BY webhook_id) head
         JOIN webhook_deliveries d ON d.id = head.id
         JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.next_attempt_at <= ?1
         ORDER BY d.next_attempt_at, d.id LIMIT ?2{}",
        tx.claim_clause(Some("d"))
    ))?;
    let due = stmt
        .query_map(params![now, limit], |r| {
            Ok(Due {
                id: r.get(0)?,
                event: r.get(1)?,
                url: r.get(2)?,
                sealed_secret: r.get(3)?,
                body: r.get(4)?,
                attempts: r.get(5)?,
                created_at: r.get(6)?,
                app: r.get(7)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    let mut lease = tx.prepare_cached(
        "UPDATE webhook_deliveries SET next_attempt_at = ?2 WHERE id = ?1 AND status = 'PENDING'",
    )?;
    for d in &due {
        lease.execute(params![d.id, lease_until])?;
    }
    Ok(due)
}

/// What one attempt came to: delivered, or not (then retried at `next`, or given up on when
/// `next` is `None`); the receiver's status and the start of its answer, if it answered.
#[derive(Debug, Clone, Default)]
pub struct Attempt {
    pub delivered: bool,
    pub http_status: Option<u16>,
    pub error: Option<String>,
    pub next: Option<i64>,
    pub excerpt: Option<String>,
}

/// The outcome of one attempt: DELIVERED, retried at `next`, or FAILED (`next` is `None`).
pub fn record_attempt(tx: &Conn, id: i64, attempt: &Attempt, now: i64) -> Result<(), AppError> {
    let Attempt {
        delivered,
        http_status,
        error,
        next,
        excerpt,
    } = attempt;
    let delivered = *delivered;
    let status = match (delivered, next) {
        (true, _) => DeliveryStatus::Delivered,
        (false, Some(_)) => DeliveryStatus::Pending,
        (false, None) => DeliveryStatus::Failed,
    };
    tx.execute(
        "UPDATE webhook_deliveries
            SET status = ?2, attempts = attempts + 1, last_status = ?3, last_error = ?4,
                next_attempt_at = COALESCE(?5, next_attempt_at),
                delivered_at = ?6, response_excerpt = ?7
          WHERE id = ?1 AND status = 'PENDING'",
        params![
            id,
            status,
            *http_status,
            error.as_deref(),
            *next,
            delivered.then_some(now),
            excerpt.as_deref()
        ],
    )?;
    Ok(())
}
