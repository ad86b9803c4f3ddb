//! A team's settings (issue 54): its name, the sender name its recipients see, and the
//! defaults of the documents and templates made in it (signing order, date format, time zone,
//! redirect URL, the recipients' language). Any member reads them; its admins change them, and `docket team settings`
//! does as the system. Each default is checked by the rule a document's own `meta` is checked
//! by (`meta`), so a default is always a value a request could have given: that is why this
//! sits beside `meta` in the signing ring and not in `teams`, which is below it. Membership
//! and role still come from `teams`, read in the transaction that acts on them.

use serde::Serialize;

use crate::core::context::Context;
use crate::core::db::{Conn, Db, OptionalExtension, now};
use crate::core::error::{AppError, FieldError};
use crate::core::ids::TeamId;
use crate::core::owner::Owner;
use crate::identity::principal::Principal;
use crate::params;
use crate::teams::access::Access;
use crate::teams::{manage, model, store as teams};

use crate::core::i18n::Lang;

use super::deadline::Period;
use super::meta::{self, Chosen, MAX_URL, MAX_ZONE_OR_FORMAT, Meta, SigningOrder};

/// Longest sender name, in characters.
pub const SENDER_NAME_MAX: usize = 100;

/// The defaults a team gives the documents and templates made in it; `None`: the product's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Defaults {
    pub signing_order: Option<SigningOrder>,
    pub date_format: Option<String>,
    pub time_zone: Option<String>,
    pub redirect_url: Option<String>,
    /// The language of the recipients' pages and e-mails; `None`: the member's own default.
    pub language: Option<Lang>,
    /// How long each recipient has once sent; `None`: the member's own default.
    pub expiration_period: Option<Period>,
}

impl Defaults {
    /// `meta` with each value its request did not choose taken from these defaults, where the
    /// team has one.
    pub fn fill(&self, meta: &mut Meta, chosen: Chosen) {
        if let Some(order) = self.signing_order.filter(|_| !chosen.signing_order) {
            meta.signing_order = order;
        }
        if let Some(f) = self.date_format.as_ref().filter(|_| !chosen.date_format) {
            meta.date_format = f.clone();
        }
        if let Some(tz) = self.time_zone.as_ref().filter(|_| !chosen.timezone) {
            meta.timezone = tz.clone();
        }
        if let Some(url) = self.redirect_url.as_ref().filter(|_| !chosen.redirect_url) {
            meta.redirect_url = Some(url.clone());
        }
        if let Some(lang) = self.language.filter(|_| !chosen.language) {
            meta.language = lang;
        }
        if let Some(p) = self
            .expiration_period
            .as_ref()
            .filter(|_| !chosen.expiration)
        {
            meta.envelope_expiration_period = Some(p.clone());
        }
    }
}

/// A team's settings, as its members read them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeamSettings {
    pub name: String,
    pub slug: String,
    /// Shown to recipients; `None`: the team's name.
    pub sender_name: Option<String>,
    #[serde(flatten)]
    pub defaults: Defaults,
}

/// What an admin changes: `None` leaves a value as it is; blank text clears an optional one
/// (the product's default again; for the sender name, the team's name). Text as typed: each
/// value is checked by `update`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    pub name: Option<String>,
    pub sender_name: Option<String>,
    pub signing_order: Option<String>,
    pub date_format: Option<String>,
    pub time_zone: Option<String>,
    pub redirect_url: Option<String>,
    pub language: Option<String>,
    /// "14 days", "1 month" (`Period::from_text`); blank: none.
    pub expiration_period: Option<String>,
}

/// A `Change` that passed its rules: `Some(None)` clears.
#[derive(Debug, Clone, Default)]
struct Checked {
    name: Option<String>,
    sender_name: Option<Option<String>>,
    signing_order: Option<Option<SigningOrder>>,
    date_format: Option<Option<String>>,
    time_zone: Option<Option<String>>,
    redirect_url: Option<Option<String>>,
    language: Option<Option<Lang>>,
    expiration_period: Option<Option<Period>>,
}

/// `raw` (when given) trimmed: blank clears (`Some(None)`), anything else passes `rule` or
/// adds its problem at `path`.
fn optional<T>(
    problems: &mut Vec<FieldError>,
    raw: Option<&str>,
    path: &str,
    rule: impl FnOnce(&str) -> Result<T, String>,
) -> Option<Option<T>> {
    let raw = raw?.trim();
    if raw.is_empty() {
        return Some(None);
    }
    match rule(raw) {
        Ok(v) => Some(Some(v)),
        Err(why) => {
            problems.push(FieldError::new(path, why));
            None
        }
    }
}

/// At most `max` characters, as `meta`'s text members.
fn within(raw: &str, max: usize) -> Result<(), String> {
    if raw.chars().count() > max {
        return Err(format!("at most {max} characters"));
    }
    Ok(())
}

/// A sender name: 1 to `SENDER_NAME_MAX` characters once trimmed, no control characters.
fn sender_name(raw: &str) -> Result<String, String> {
    within(raw, SENDER_NAME_MAX)?;
    if raw.chars().any(char::is_control) {
        return Err("a sender name cannot hold control characters".into());
    }
    Ok(raw.to_string())
}

impl Change {
    /// Every value by its rule; a 400 listing every problem (paths as the API names them).
    fn check(&self) -> Result<Checked, AppError> {
        let mut problems: Vec<FieldError> = Vec::new();
        let name = match self.name.as_deref().map(model::parse_name) {
            Some(Err(e)) => {
                problems.extend_from_slice(e.details());
                None
            }
            Some(Ok(name)) => Some(name),
            None => None,
        };
        let p = &mut problems;
        let checked = Checked {
            name,
            sender_name: optional(p, self.sender_name.as_deref(), "senderName", sender_name),
            signing_order: optional(p, self.signing_order.as_deref(), "signingOrder", |s| {
                SigningOrder::parse(s).ok_or_else(|| "must be PARALLEL or SEQUENTIAL".to_string())
            }),
            date_format: optional(p, self.date_format.as_deref(), "dateFormat", |f| {
                within(f, MAX_ZONE_OR_FORMAT)?;
                meta::date_format(f).map(|()| f.to_string())
            }),
            time_zone: optional(p, self.time_zone.as_deref(), "timeZone", |tz| {
                within(tz, MAX_ZONE_OR_FORMAT)?;
                meta::time_zone(tz).map(|()| tz.to_string())
            }),
            redirect_url: optional(p, self.redirect_url.as_deref(), "redirectUrl", |u| {
                within(u, MAX_URL)?;
                meta::redirect_url(u).map_err(String::from)
            }),
            language: optional(p, self.language.as_deref(), "language", |l| {
                Lang::lenient(l).ok_or_else(Lang::expected)
            }),
            expiration_period: match self.expiration_period.as_deref().map(Period::from_text) {
                None => None,
                Some(Ok(period)) => Some(period),
                Some(Err(why)) => {
                    p.push(FieldError::new("expirationPeriod", why));
                    None
                }
            },
        };
        if problems.is_empty() {
            Ok(checked)
        } else {
            Err(AppError::validation(problems))
        }
    }
}

const SETTINGS: &str =
    "name, slug, sender_name, signing_order, date_format, time_zone, redirect_url,
    language, expiration_period";

fn load(c: &Conn, team: TeamId) -> Result<TeamSettings, AppError> {
    c.query_row(
        &format!("SELECT {SETTINGS} FROM teams WHERE id = ?1"),
        [team],
        |r| {
            Ok(TeamSettings {
                name: r.get(0)?,
                slug: r.get(1)?,
                sender_name: r.get(2)?,
                defaults: Defaults {
                    signing_order: r.get(3)?,
                    date_format: r.get(4)?,
                    time_zone: r.get(5)?,
                    redirect_url: r.get(6)?,
                    language: r.get(7)?,
                    expiration_period: Period::stored(r.get::<_, Option<String>>(8)?.as_deref()),
                },
            })
        },
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("team"))
}

/// Inside a transaction: `change` laid over the settings of `team`, written, and read back.
/// Changes of one team take turns (`serialize_on`), so two admins changing different values
/// at once on PostgreSQL both keep theirs.
fn apply(tx: &Conn, team: TeamId, change: &Checked) -> Result<TeamSettings, AppError> {
    tx.serialize_on(&format!("team-settings:{team}"))?;
    let mut s = load(tx, team)?;
    let d = &mut s.defaults;
    if let Some(name) = &change.name {
        s.name = name.clone();
    }
    let over = |now: &mut Option<String>, new: &Option<Option<String>>| {
        if let Some(new) = new {
            *now = new.clone();
        }
    };
    over(&mut s.sender_name, &change.sender_name);
    over(&mut d.date_format, &change.date_format);
    over(&mut d.time_zone, &change.time_zone);
    over(&mut d.redirect_url, &change.redirect_url);
    if let Some(order) = change.signing_order {
        d.signing_order = order;
    }
    if let Some(lang) = change.language {
        d.language = lang;
    }
    if let Some(period) = &change.expiration_period {
        d.expiration_period = period.clone();
    }
    let period = d
        .expiration_period
        .as_ref()
        .map(|p| serde_json::to_string(p).unwrap_or_default());
    tx.execute(
        "UPDATE teams SET name = ?2, sender_name = ?3, signing_order = ?4, date_format = ?5,
                time_zone = ?6, redirect_url = ?7, updated_at = ?8, language = ?9,
                expiration_period = ?10
          WHERE id = ?1",
        params![
            team,
            s.name,
            s.sender_name,
            d.signing_order,
            d.date_format,
            d.time_zone,
            d.redirect_url,
            now(),
            d.language,
            period
        ],
    )?;
    load(tx, team)
}

/// The settings of the team at `slug`, for any of its members (a 404 for anyone else, as for
/// a team that does not exist).
pub async fn read(ctx: &Context, who: &Principal, slug: &str) -> Result<TeamSettings, AppError> {
    let (user, slug) = (who.user_id, slug.to_string());
    ctx.db
        .read(move |c| {
            c.consistent_read(|c| {
                let team = manage::membership(c, user, &slug)?.team;
                load(c, team.id)
            })
        })
        .await
}

/// Changes the settings of the team at `slug` for one of its admins (a 403 for its managers
/// and members, a 404 for anyone else); answers them as they now are.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    slug: &str,
    change: Change,
) -> Result<TeamSettings, AppError> {
    let checked = change.check()?;
    let (user, slug) = (who.user_id, slug.to_string());
    ctx.db
        .write(move |tx| {
            let m = manage::membership(tx, user, &slug)?;
            let id = m.team.id;
            Access::Team {
                user,
                team: m.team,
                role: m.role,
            }
            .require_manage("settings")?;
            apply(tx, id, &checked)
        })
        .await
}

/// `docket team settings SLUG`: the settings of the team at `slug`, read as the system.
pub fn admin_read(db: &Db, slug: &str) -> Result<TeamSettings, AppError> {
    let slug = slug.to_string();
    db.read_blocking(move |c| c.consistent_read(|c| load(c, teams::require_by_slug(c, &slug)?.id)))
}

/// `docket team settings SLUG --...`: `change` by the same rules as `update`, as the system
/// (the admin commands run without an async runtime).
pub fn admin_update(db: &Db, slug: &str, change: Change) -> Result<TeamSettings, AppError> {
    let checked = change.check()?;
    let slug = slug.to_string();
    db.write_blocking(move |tx| {
        let team = teams::require_by_slug(tx, &slug)?;
        apply(tx, team.id, &checked)
    })
}

/// Inside a transaction: `meta` as a new document or template of `owner` takes it, where
/// `chosen` says which values its request chose: in a team, the others are the team's
/// defaults; a personal one's are kept. A language neither chosen nor given by the team is
/// the creating member's own default (the account page), when they chose one.
pub fn with_defaults(
    c: &Conn,
    owner: &Owner,
    meta: &Meta,
    chosen: Chosen,
) -> Result<Meta, AppError> {
    let mut meta = meta.clone();
    let mut language = None;
    let mut period = None;
    if let Some(team) = owner.team() {
        let defaults = load(c, team)?.defaults;
        defaults.fill(&mut meta, chosen);
        language = defaults.language;
        period = defaults.expiration_period;
    }
    // The deadline a team leaves open is the member's own default, as a personal one's.
    if !chosen.expiration
        && period.is_none()
        && let Some(p) = account_period(c, owner.user())?
    {
        meta.envelope_expiration_period = Some(p);
    }
    // The language a team leaves open is the member's own default, as a personal one's.
    if !chosen.language
        && language.is_none()
        && let Some(lang) = crate::identity::users::store::language(c, owner.user())?
    {
        meta.language = lang;
    }
    Ok(meta)
}

/// The deadline account `user` gives its new documents (`None`: none).
pub fn account_period(
    c: &Conn,
    user: crate::core::ids::UserId,
) -> Result<Option<Period>, AppError> {
    let stored = crate::identity::users::store::expiration_period(c, user)?;
    Ok(Period::stored(stored.as_deref()))
}

/// Sets (or, blank, clears) the deadline account `who` gives its new documents, typed as
/// "14 days" (`Period::from_text`); 400 naming `expirationPeriod` otherwise.
pub async fn set_account_period(
    ctx: &Context,
    who: &Principal,
    typed: &str,
) -> Result<Option<Period>, AppError> {
    let period = Period::from_text(typed)
        .map_err(|why| AppError::validation(vec![FieldError::new("expirationPeriod", why)]))?;
    let stored = period
        .as_ref()
        .map(|p| serde_json::to_string(p).unwrap_or_default());
    let user = who.user_id;
    ctx.db
        .write(move |tx| {
            crate::identity::users::store::set_expiration_period(tx, user, stored.as_deref(), now())
        })
        .await?;
    Ok(period)
}

/// The deadline account `who` gives its new documents.
pub async fn read_account_period(
    ctx: &Context,
    who: &Principal,
) -> Result<Option<Period>, AppError> {
    let user = who.user_id;
    ctx.db.read(move |c| account_period(c, user)).await
}

/// What recipients see as the sender of a document (or of a template's direct link) made by
/// `member` (its creator's name) in `team`, in the recipients' language `lang`; a personal
/// one's is its owner's name.
///
/// The other signing service words a team's signing request as "<member> on behalf of
/// <team>" unless the team hides the member's details; Docket does the same, as recipients
/// often know the colleague who sent it rather than the team, and names the team by its
/// sender name when it has one, by its name otherwise.
pub fn sender_shown(
    c: &Conn,
    member: &str,
    team: Option<TeamId>,
    lang: Lang,
) -> Result<String, AppError> {
    let Some(team) = team else {
        return Ok(member.to_string());
    };
    let s = load(c, team)?;
    Ok(on_behalf_of(
        member,
        s.sender_name.as_deref().unwrap_or(&s.name),
        lang,
    ))
}

/// "`member` on behalf of `team`", in `lang`.
pub fn on_behalf_of(member: &str, team: &str, lang: Lang) -> String {
    lang.tr()
        .t2("mail-on-behalf", "member", member, "team", team)
}

#[cfg(test)]
#[path = "team_settings_tests.rs"]
mod tests;
