//! What may act for an account besides its browser sessions: API tokens, the owner's webhooks
//! (whose payloads carry signing links) and connected apps (OAuth grants). The notice mailed
//! when one is added (what, when, from where, and what to do if it was not the owner), and
//! what a new password revokes when the person asks (`Revoked`, by the step `RevokeAll` that
//! `integrations::access` provides, where all three are known).

use std::net::IpAddr;

use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::ids::UserId;
use crate::outbox::mail::{Kind, NewMail, compose};

/// Where a change came from, as the notice tells it: the client's address (behind a trusted
/// proxy, the address it forwarded) and its `User-Agent`.
#[derive(Debug, Clone, Default)]
pub struct Source {
    pub address: Option<IpAddr>,
    pub agent: Option<String>,
}

/// The longest `User-Agent` a notice quotes.
const AGENT_CHARS: usize = 200;

impl Source {
    /// "203.0.113.7 (Mozilla/5.0 ...)", or what of it is known.
    pub fn describe(&self) -> String {
        let agent = self.agent.as_deref().map(|a| {
            // A header is the client's text: one line, bounded.
            let clean: String = a
                .chars()
                .filter(|c| !c.is_control())
                .take(AGENT_CHARS)
                .collect();
            clean.trim().to_string()
        });
        let agent = agent.filter(|a| !a.is_empty());
        match (self.address, agent) {
            (Some(ip), Some(a)) => format!("{ip} ({a})"),
            (Some(ip), None) => ip.to_string(),
            (None, Some(a)) => format!("an unknown address ({a})"),
            (None, None) => "an unknown address".to_string(),
        }
    }
}

/// Queues the notice that `what` was added to the account `user` at `now` from `from`, in the
/// caller's transaction (the caller wakes the mail worker after the commit); `undo` says where
/// to remove it.
pub fn notify_added(
    tx: &Conn,
    user: UserId,
    (what, undo): (&str, &str),
    from: &Source,
    now: i64,
) -> Result<(), AppError> {
    let Some(u) = crate::identity::users::store::get(tx, user)? else {
        return Ok(());
    };
    let when = crate::core::timefmt::human(now);
    let content = compose::AccessNotice {
        name: &u.name,
        email: &u.email,
        what,
        when: &when,
        from: &from.describe(),
        undo,
    }
    .compose();
    let mail = NewMail::new(Kind::SecurityNotice, &u.email, content);
    crate::outbox::mail::store::enqueue(tx, &mail, now).map(drop)
}

/// What a new password revoked, when the person asked it to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Revoked {
    /// API tokens revoked.
    pub tokens: usize,
    /// The owner's webhooks switched off (their queued deliveries failed).
    pub webhooks: usize,
    /// Connected apps whose grant was revoked, with their tokens and their own webhooks.
    pub apps: usize,
}

impl Revoked {
    /// "2 API tokens were revoked, 1 webhook was switched off and no connected app was
    /// disconnected."
    pub fn sentence(&self) -> String {
        let clause = self.clause();
        let mut chars = clause.chars();
        match chars.next() {
            Some(c) => format!("{}{}.", c.to_uppercase(), chars.as_str()),
            None => clause,
        }
    }

    /// The sentence as a clause: no capital, no full stop.
    pub fn clause(&self) -> String {
        let count = |n: usize, one: &str, many: &str, verb_one: &str, verb_many: &str| match n {
            0 => format!("no {one} {verb_one}"),
            1 => format!("1 {one} {verb_one}"),
            n => format!("{n} {many} {verb_many}"),
        };
        format!(
            "{}, {} and {}",
            count(
                self.tokens,
                "API token",
                "API tokens",
                "was revoked",
                "were revoked"
            ),
            count(
                self.webhooks,
                "webhook",
                "webhooks",
                "was switched off",
                "were switched off"
            ),
            count(
                self.apps,
                "connected app",
                "connected apps",
                "was disconnected",
                "were disconnected"
            ),
        )
    }

    /// How the notice mail tells it: "The password was changed, and everything else that
    /// acted for the account was revoked (2 API tokens, 1 webhook, no connected app)".
    pub fn added_to(&self, what: &str) -> String {
        let n = |n: usize, one: &str, many: &str| match n {
            0 => format!("no {one}"),
            1 => format!("1 {one}"),
            n => format!("{n} {many}"),
        };
        format!(
            "{what}, and everything else that acted for the account was revoked ({}, {}, {})",
            n(self.tokens, "API token", "API tokens"),
            n(
                self.webhooks,
                "webhook switched off",
                "webhooks switched off"
            ),
            n(self.apps, "connected app", "connected apps"),
        )
    }

    /// `tokens.webhooks.apps`, for the query of the page that reports it.
    pub fn to_query(self) -> String {
        format!("{}.{}.{}", self.tokens, self.webhooks, self.apps)
    }

    /// The counts of `to_query`'s form; `None` for anything else.
    pub fn from_query(q: &str) -> Option<Revoked> {
        let mut parts = q.split('.').map(|p| p.parse::<usize>().ok());
        let (Some(Some(tokens)), Some(Some(webhooks)), Some(Some(apps)), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return None;
        };
        Some(Revoked {
            tokens,
            webhooks,
            apps,
        })
    }
}

/// The step that revokes everything that acts for account `user` at `now`, run inside the
/// transaction that sets its new password.
pub type RevokeAll = fn(&Conn, UserId, i64) -> Result<Revoked, AppError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_a_sentence_and_round_trip_through_a_query() {
        let r = Revoked {
            tokens: 2,
            webhooks: 1,
            apps: 0,
        };
        assert_eq!(
            r.sentence(),
            "2 API tokens were revoked, 1 webhook was switched off and no connected app was disconnected."
        );
        assert!(
            Revoked::default()
                .sentence()
                .starts_with("No API token was revoked")
        );
        assert_eq!(Revoked::from_query(&r.to_query()), Some(r));
        for bad in ["", "1.2", "1.2.3.4", "a.b.c", "-1.0.0"] {
            assert_eq!(Revoked::from_query(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_source_is_one_bounded_line() {
        let s = Source {
            address: Some("203.0.113.7".parse().unwrap()),
            agent: Some(format!("Bot\n{}", "x".repeat(500))),
        };
        let d = s.describe();
        assert!(
            d.starts_with("203.0.113.7 (Botxxx") && !d.contains('\n'),
            "{d}"
        );
        assert!(d.chars().count() < 230);
        assert_eq!(Source::default().describe(), "an unknown address");
    }
}
