//! Which other sites may frame a workspace's signing pages (`/embed/sign/...`,
//! `/embed/direct/...`): the origins its owner lists (an account for its personal documents, a
//! team's admins for the team's). The rule of an origin (`FrameOrigin::parse`: scheme, host
//! and port only; https, or http for this computer while developing), the list as the
//! `frame-ancestors` directive says it, the settings' use cases, and the list that applies to a
//! signing link or a direct link (the workspace of its document or template). An empty list
//! keeps the pages unframeable, as every other page of Docket is.

use std::fmt;

use crate::core::context::Context;
use crate::core::db::{Conn, OptionalExtension, params};
use crate::core::error::{AppError, FieldError};
use crate::core::ids::{TeamId, UserId};
use crate::identity::principal::Principal;
use crate::teams::access::{self, Access};

/// At most this many origins a workspace.
pub const MAX_ORIGINS: usize = 20;

/// The name of the setting where a refusal points (the form's box).
pub const FIELD: &str = "origins";

/// One origin allowed to frame signing pages: `scheme://host[:port]`, lowercase, the scheme's
/// default port left out. Only `parse` makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameOrigin(String);

/// The hosts where plain http is accepted: this computer, for developing an integration.
const LOOPBACK: &[&str] = &["localhost", "127.0.0.1", "[::1]"];

impl FrameOrigin {
    /// `text` as an origin, or why it is not one (a sentence naming it).
    pub fn parse(text: &str) -> Result<FrameOrigin, String> {
        let t = text.trim();
        let refuse = |why: &str| Err(format!("“{t}” {why}"));
        let Some((scheme, rest)) = t.split_once("://") else {
            return refuse("is not an origin: write it as https://example.com");
        };
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "https" && scheme != "http" {
            return refuse("does not start with https://");
        }
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        if rest.contains(['/', '?', '#']) {
            return refuse(
                "has a path, a query or a fragment: give the origin only, scheme://host[:port]",
            );
        }
        if rest.contains('@') {
            return refuse("has a user name: give the origin only, scheme://host[:port]");
        }
        if rest.contains('*') {
            return refuse("has a wildcard: list each origin itself");
        }
        let (host, port) = split_port(rest)
            .ok_or_else(|| format!("“{t}” has a port that is not a number from 1 to 65535"))?;
        let host = host.to_ascii_lowercase();
        if !valid_host(&host) {
            return refuse("does not name a host: write it as https://example.com");
        }
        if scheme == "http" && !LOOPBACK.contains(&host.as_str()) {
            return refuse("uses http: only https is allowed, except for localhost and 127.0.0.1");
        }
        let default = if scheme == "https" { 443 } else { 80 };
        Ok(FrameOrigin(match port {
            Some(p) if p != default => format!("{scheme}://{host}:{p}"),
            _ => format!("{scheme}://{host}"),
        }))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for FrameOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `host[:port]` split; `None` for a port that is not one.
fn split_port(rest: &str) -> Option<(&str, Option<u16>)> {
    // A bracketed IPv6 address keeps its colons.
    let colon = match rest.rfind(']') {
        Some(end) => rest[end..].find(':').map(|i| end + i),
        None => rest.rfind(':'),
    };
    let Some(at) = colon else {
        return Some((rest, None));
    };
    let port = &rest[at + 1..];
    if port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match port.parse::<u16>() {
        Ok(0) | Err(_) => None,
        Ok(p) => Some((&rest[..at], Some(p))),
    }
}

/// A DNS name of letters, digits and hyphens (IDNs in their `xn--` form), an IPv4 address, or
/// `[::1]`.
fn valid_host(host: &str) -> bool {
    if host == "[::1]" {
        return true;
    }
    if host.is_empty() || host.len() > 253 {
        return false;
    }
    host.split('.').all(|label| {
        !label.is_empty()
            && label.len() <= 63
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    })
}

/// A workspace's origins, in the order listed, each once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameOrigins(Vec<FrameOrigin>);

impl FrameOrigins {
    /// The origins of `text` (one a line, or separated by spaces or commas): every one that is
    /// not an origin refused in one 400 at `origins`.
    pub fn parse(text: &str) -> Result<FrameOrigins, AppError> {
        let mut out: Vec<FrameOrigin> = Vec::new();
        let mut problems = Vec::new();
        for item in text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
        {
            match FrameOrigin::parse(item) {
                Ok(o) if !out.contains(&o) => out.push(o),
                Ok(_) => {}
                Err(why) => problems.push(FieldError::new(FIELD, why)),
            }
        }
        if problems.is_empty() && out.len() > MAX_ORIGINS {
            problems.push(FieldError::new(
                FIELD,
                format!("list at most {MAX_ORIGINS} origins"),
            ));
        }
        match problems.is_empty() {
            true => Ok(FrameOrigins(out)),
            false => Err(AppError::validation(problems)),
        }
    }

    /// The list as it was stored (checked when it was written; a line that no longer passes
    /// is left out).
    fn stored(text: Option<String>) -> FrameOrigins {
        let origins = text
            .unwrap_or_default()
            .lines()
            .filter_map(|l| FrameOrigin::parse(l).ok())
            .collect();
        FrameOrigins(origins)
    }

    /// The list as stored: one a line, `None` when empty.
    fn to_stored(&self) -> Option<String> {
        (!self.0.is_empty()).then(|| self.lines())
    }

    /// One origin a line, as the settings' box shows them.
    pub fn lines(&self) -> String {
        let all: Vec<&str> = self.0.iter().map(FrameOrigin::as_str).collect();
        all.join("\n")
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &FrameOrigin> {
        self.0.iter()
    }

    /// The `frame-ancestors` directive: these origins, or `'none'`.
    pub fn frame_ancestors(&self) -> String {
        match self.0.is_empty() {
            true => "frame-ancestors 'none'".to_string(),
            false => format!("frame-ancestors {}", self.lines().replace('\n', " ")),
        }
    }
}

/// The workspace a list belongs to.
#[derive(Debug, Clone, Copy)]
enum Workspace {
    Personal(UserId),
    Team(TeamId),
}

impl Workspace {
    fn of_row(user: UserId, team: Option<TeamId>) -> Workspace {
        team.map_or(Workspace::Personal(user), Workspace::Team)
    }
}

fn load(c: &Conn, w: Workspace) -> Result<FrameOrigins, AppError> {
    let text: Option<Option<String>> = match w {
        Workspace::Personal(user) => c
            .query_row(
                "SELECT frame_origins FROM users WHERE id = ?1",
                [user],
                |r| r.get(0),
            )
            .optional()?,
        Workspace::Team(team) => c
            .query_row(
                "SELECT frame_origins FROM teams WHERE id = ?1",
                [team],
                |r| r.get(0),
            )
            .optional()?,
    };
    Ok(FrameOrigins::stored(text.flatten()))
}

fn save(c: &Conn, w: Workspace, origins: &FrameOrigins) -> Result<(), AppError> {
    let text = origins.to_stored();
    match w {
        Workspace::Personal(user) => c.execute(
            "UPDATE users SET frame_origins = ?2 WHERE id = ?1",
            params![user, text],
        )?,
        Workspace::Team(team) => c.execute(
            "UPDATE teams SET frame_origins = ?2 WHERE id = ?1",
            params![team, text],
        )?,
    };
    Ok(())
}

/// The caller's workspace, once it may manage its settings (a team's admins; 403 for its
/// other members, 404 for a team they are not in).
fn managed(c: &Conn, who: &Principal) -> Result<Workspace, AppError> {
    let a = access::resolve(c, who)?;
    a.require_manage("embedding settings")?;
    Ok(match &a {
        Access::Personal(user) => Workspace::Personal(*user),
        Access::Team { team, .. } => Workspace::Team(team.id),
    })
}

/// The origins that may frame the signing pages of the caller's workspace.
pub async fn read(ctx: &Context, who: &Principal) -> Result<FrameOrigins, AppError> {
    let who = who.clone();
    ctx.db
        .read(move |c| {
            let w = managed(c, &who)?;
            load(c, w)
        })
        .await
}

/// Replaces that list with the origins of `text` (one a line; empty: none).
pub async fn update(ctx: &Context, who: &Principal, text: &str) -> Result<FrameOrigins, AppError> {
    let origins = FrameOrigins::parse(text)?;
    let who = who.clone();
    ctx.db
        .write(move |tx| {
            let w = managed(tx, &who)?;
            save(tx, w, &origins)?;
            Ok(origins)
        })
        .await
}

/// The origins that may frame the signing page of link `token`: its document's workspace's
/// (404 for an unknown link, a draft's or a disabled owner's, as the page itself).
pub async fn of_signing_link(ctx: &Context, token: String) -> Result<FrameOrigins, AppError> {
    ctx.db
        .read(move |c| {
            let row: Option<(UserId, Option<TeamId>)> = c
                .query_row(
                    "SELECT d.user_id, d.team_id FROM recipients r
                       JOIN documents d ON d.id = r.document_id
                       JOIN users u ON u.id = d.user_id
                      WHERE r.token = ?1 AND d.status <> 'DRAFT' AND u.disabled_at IS NULL",
                    [&token],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let (user, team) = row.ok_or_else(|| AppError::not_found("signing link"))?;
            load(c, Workspace::of_row(user, team))
        })
        .await
}

/// The origins that may frame the page of direct link `token`: its template's workspace's
/// (404 unless the link works, as the page itself).
pub async fn of_direct_link(ctx: &Context, token: String) -> Result<FrameOrigins, AppError> {
    ctx.db
        .read(move |c| {
            let t = crate::signing::templates::direct::open(c, &token)?;
            load(c, Workspace::of_row(t.user_id, t.team_id))
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        FrameOrigin::parse(s).unwrap().to_string()
    }

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        assert_eq!(ok("https://Example.COM"), "https://example.com");
        assert_eq!(ok("https://example.com/"), "https://example.com");
        assert_eq!(ok("https://example.com:443"), "https://example.com");
        assert_eq!(
            ok("https://app.example.com:8443"),
            "https://app.example.com:8443"
        );
        assert_eq!(ok("http://localhost:3000"), "http://localhost:3000");
        assert_eq!(ok("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(ok("http://[::1]:8080"), "http://[::1]:8080");
        for bad in [
            "example.com",
            "ftp://example.com",
            "http://example.com",
            "https://example.com/path",
            "https://example.com?q=1",
            "https://example.com#x",
            "https://user@example.com",
            "https://*.example.com",
            "https://example.com:0",
            "https://example.com:99999",
            "https://example.com:",
            "https://exa mple.com",
            "https://",
            "https://exa_mple.com",
            "https://-bad.com",
            "javascript://alert(1)",
            "'self'",
            "*",
        ] {
            assert!(FrameOrigin::parse(bad).is_err(), "{bad} was taken");
        }
    }

    #[test]
    fn a_list_is_checked_whole_and_says_frame_ancestors() {
        let list = FrameOrigins::parse("https://a.example\nhttps://b.example, https://a.example/")
            .unwrap();
        assert_eq!(list.lines(), "https://a.example\nhttps://b.example");
        assert_eq!(
            list.frame_ancestors(),
            "frame-ancestors https://a.example https://b.example"
        );
        assert_eq!(
            FrameOrigins::default().frame_ancestors(),
            "frame-ancestors 'none'"
        );
        let e = FrameOrigins::parse("https://a.example http://b.example https://c.example/x")
            .unwrap_err();
        assert_eq!(e.details().len(), 2);
        assert!(e.details()[0].message.contains("only https"), "{e:?}");
        let many: Vec<String> = (0..=MAX_ORIGINS)
            .map(|i| format!("https://s{i}.example"))
            .collect();
        assert!(FrameOrigins::parse(&many.join(" ")).is_err());
        assert_eq!(
            FrameOrigins::stored(Some("https://a.example\nbad".into())).lines(),
            "https://a.example"
        );
    }
}
