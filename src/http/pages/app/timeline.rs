//! The document page's timeline: the audit log's events as plain sentences ("Ann opened the
//! document"), newest first, each with its time for people and for machines.

use std::collections::HashMap;

use crate::core::ids::RecipientId;
use crate::signing::documents::RecipientView;
use crate::signing::documents::audit::{AuditEvent, Happened};

/// One line of the timeline.
#[derive(Debug, Clone)]
pub struct Moment {
    /// ISO 8601, for `<time datetime>`.
    pub at: String,
    /// `21 Nov 2026, 09:30 UTC`.
    pub when: String,
    pub text: String,
}

/// A moment shown on a page: `<time datetime="{iso}">{when}</time>`, which the page's script
/// (`assets/js/local-time.js`) turns into the reader's own time.
#[derive(Debug, Clone)]
pub struct Stamp {
    pub iso: String,
    /// `21 Nov 2026, 09:30 UTC`.
    pub when: String,
}

impl Stamp {
    /// The moment `ts` (Unix seconds) for a page.
    pub fn at(ts: i64) -> Stamp {
        Stamp {
            iso: crate::core::timefmt::iso8601(ts),
            when: crate::core::timefmt::human(ts),
        }
    }
}

/// The moment `iso` (ISO 8601 UTC) for a page.
pub fn stamp(iso: &str) -> Stamp {
    Stamp {
        iso: iso.to_string(),
        when: human(iso),
    }
}

/// `iso` (ISO 8601 UTC) as people read it; the text itself if it is not a time.
pub fn human(iso: &str) -> String {
    time::OffsetDateTime::parse(iso, &time::format_description::well_known::Rfc3339)
        .map(|t| crate::core::timefmt::human(t.unix_timestamp()))
        .unwrap_or_else(|_| iso.to_string())
}

/// How the timeline names who acted: recipients by name, the owner as "You".
struct Names<'a> {
    owner: &'a str,
    recipients: HashMap<RecipientId, &'a RecipientView>,
}

impl Names<'_> {
    fn recipient(&self, id: Option<RecipientId>) -> Option<String> {
        id.and_then(|id| self.recipients.get(&id))
            .map(|r| display(&r.name, &r.email))
    }

    fn actor(&self, e: &AuditEvent) -> String {
        if let Some(name) = self.recipient(e.recipient_id) {
            return name;
        }
        match e.actor.as_str() {
            a if a.eq_ignore_ascii_case(self.owner) => "You".into(),
            "system" => "Docket".into(),
            "upload URL" => "An upload URL".into(),
            a => a.to_string(),
        }
    }
}

/// A recipient's name, or their address when they have none.
pub fn display(name: &str, email: &str) -> String {
    if name.trim().is_empty() {
        email.to_string()
    } else {
        name.to_string()
    }
}

/// `events` (oldest first, as stored) as sentences, newest first.
pub fn of(events: &[AuditEvent], owner: &str, recipients: &[RecipientView]) -> Vec<Moment> {
    let names = Names {
        owner,
        recipients: recipients.iter().map(|r| (r.id, r)).collect(),
    };
    events
        .iter()
        .rev()
        .map(|e| Moment {
            at: e.created_at.clone(),
            when: human(&e.created_at),
            text: sentence(e, &names),
        })
        .collect()
}

/// `s`, unless it is empty.
fn text(s: &str) -> Option<&str> {
    Some(s).filter(|s| !s.is_empty())
}

fn sentence(e: &AuditEvent, names: &Names<'_>) -> String {
    let who = names.actor(e);
    match &e.data {
        Happened::Created(_) => format!("{who} created the document"),
        Happened::Uploaded(u) => match u.pages {
            1 => format!("{who} uploaded the PDF (1 page)"),
            n => format!("{who} uploaded the PDF ({n} pages)"),
        },
        Happened::Sent(_) => format!("{who} sent the document for signing"),
        Happened::Emailed(m) => {
            let to = names
                .recipient(e.recipient_id)
                .or_else(|| text(&m.to).map(str::to_string))
                .unwrap_or_else(|| "a recipient".into());
            format!("The signing request was e-mailed to {to}")
        }
        Happened::Opened => format!("{who} opened the document"),
        Happened::FieldFilled(f) => match f.count() {
            n if n > 1 => format!("{who} filled in a field ({n} times)"),
            _ => format!("{who} filled in a field"),
        },
        Happened::FieldCleared(f) => match f.count() {
            n if n > 1 => format!("{who} cleared a field ({n} times)"),
            _ => format!("{who} cleared a field"),
        },
        Happened::Signed(_) => format!("{who} signed"),
        Happened::Approved(_) => format!("{who} approved the document"),
        Happened::Viewed(_) => format!("{who} viewed the document"),
        Happened::Assisted(_) => format!("{who} prepared the document for the next recipients"),
        Happened::Rejected(r) => match text(&r.reason) {
            Some(reason) => format!("{who} rejected the document: \u{201c}{reason}\u{201d}"),
            None => format!("{who} rejected the document"),
        },
        Happened::Completed(_) => {
            "Everyone has finished: the document is completed and sealed".into()
        }
        Happened::Downloaded(d) => {
            let what = if d.original {
                "the original PDF"
            } else {
                "the signed PDF"
            };
            format!("{who} downloaded {what}")
        }
        Happened::Cancelled => format!("{who} cancelled the document"),
        Happened::RecipientChanged(c) => {
            let whose = names
                .recipient(Some(c.recipient_id))
                .map_or_else(|| "a recipient's".to_string(), |n| format!("{n}'s"));
            match (text(&c.from), text(&c.to)) {
                (Some(from), Some(to)) => format!(
                    "{who} changed {whose} e-mail address from {from} to {to} (a new signing link; the old one no longer works)"
                ),
                _ => format!("{who} changed {whose} e-mail address"),
            }
        }
        Happened::Moved(m) => match (&m.team, &m.user) {
            (Some(team), _) => format!("{who} moved the document into the team {team}"),
            (None, Some(user)) => format!("{who} moved the document to {user}'s own documents"),
            (None, None) => format!("{who} moved the document to personal documents"),
        },
        Happened::Expired(x) => format!(
            "{}'s time to act ended before they finished; their link no longer acts",
            names
                .recipient(e.recipient_id)
                .unwrap_or_else(|| x.email.clone())
        ),
    }
}

/// The audit trail as CSV (one row per event, oldest first): when, what, who, the recipient,
/// the address and browser, and the event's details as JSON.
pub fn csv(events: &[AuditEvent]) -> String {
    fn cell(s: &str) -> String {
        // A leading formula character is neutralised, so a spreadsheet shows the text.
        let s = if s.starts_with(['=', '+', '-', '@']) {
            format!("'{s}")
        } else {
            s.to_string()
        };
        format!("\"{}\"", s.replace('"', "\"\""))
    }
    let mut out = String::from("time,event,actor,recipient_id,ip_address,user_agent,details\r\n");
    for e in events {
        let row = [
            e.created_at.clone(),
            e.kind.as_str().to_string(),
            e.actor.clone(),
            e.recipient_id.map(|r| r.to_string()).unwrap_or_default(),
            e.ip_address.clone().unwrap_or_default(),
            e.user_agent.clone().unwrap_or_default(),
            e.data.to_json(),
        ];
        let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
        out.push_str(&cells.join(","));
        out.push_str("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signing::documents::audit_data as data;

    fn event(actor: &str, recipient: Option<i64>, data: Happened) -> AuditEvent {
        AuditEvent {
            id: 1,
            kind: data.kind(),
            created_at: "2026-11-21T09:30:00Z".into(),
            actor: actor.into(),
            recipient_id: recipient.map(RecipientId::new),
            ip_address: None,
            user_agent: None,
            data,
        }
    }

    #[test]
    fn events_read_as_sentences_newest_first() {
        let events = vec![
            event(
                "ada@e.com",
                None,
                Happened::Created(data::Created { title: "T".into() }),
            ),
            event(
                "ada@e.com",
                None,
                Happened::Uploaded(data::Uploaded {
                    pages: 3,
                    sha256: "ab".into(),
                    size: 9,
                }),
            ),
            event("bob@e.com", None, Happened::Opened),
            event(
                "bob@e.com",
                None,
                Happened::Rejected(data::Rejected {
                    auth: None,
                    reason: "wrong date".into(),
                }),
            ),
            event(
                "system",
                None,
                Happened::Completed(data::Completed {
                    sha256: "cd".into(),
                }),
            ),
        ];
        let moments = of(&events, "ADA@e.com", &[]);
        let texts: Vec<&str> = moments.iter().map(|m| m.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Everyone has finished: the document is completed and sealed",
                "bob@e.com rejected the document: \u{201c}wrong date\u{201d}",
                "bob@e.com opened the document",
                "You uploaded the PDF (3 pages)",
                "You created the document",
            ]
        );
        assert_eq!(moments[0].when, "21 Nov 2026, 09:30 UTC");
        let csv = csv(&events[3..4]);
        assert_eq!(
            csv,
            "time,event,actor,recipient_id,ip_address,user_agent,details\r\n\
             \"2026-11-21T09:30:00Z\",\"REJECTED\",\"bob@e.com\",\"\",\"\",\"\",\"{\"\"reason\"\":\"\"wrong date\"\"}\"\r\n"
        );
    }
}
