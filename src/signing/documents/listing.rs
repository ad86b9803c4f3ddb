//! The owner's dashboard in the web application: the tabs (Inbox, Pending, Completed, Drafts,
//! All) with their counts, and a page of one tab, newest changed first, optionally searched by
//! title or recipient e-mail. The Inbox holds the documents of this instance, whoever sent
//! them, that wait for the signature of the signed-in account (its e-mail as a recipient). The
//! rows come from the one query of the documents' lists (`store::listing`), as the API's do.

use super::Status;
use super::model::{Document, Recipient};
use super::recipients::{Role, SigningStatus};
use super::store::listing::{self, Order, Query, Whose};
use crate::core::context::Context;
use crate::core::error::AppError;
use crate::identity::principal::Principal;
use crate::identity::users::store as users;

/// Rows on one page of the dashboard.
pub const PER_PAGE: i64 = 10;

/// The longest search the lists take, in characters.
pub const MAX_SEARCH: usize = 200;

/// A tab of the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// Waiting for my signature, whoever sent them.
    Inbox,
    /// Mine, sent and waiting for others.
    Pending,
    Completed,
    Drafts,
    /// Mine, every status (rejected and cancelled ones too).
    All,
}

impl Tab {
    pub const EVERY: [Tab; 5] = [
        Tab::Inbox,
        Tab::Pending,
        Tab::Completed,
        Tab::Drafts,
        Tab::All,
    ];

    /// Its name in the URL (`?tab=`).
    pub fn as_str(self) -> &'static str {
        match self {
            Tab::Inbox => "inbox",
            Tab::Pending => "pending",
            Tab::Completed => "completed",
            Tab::Drafts => "drafts",
            Tab::All => "all",
        }
    }

    pub fn parse(s: &str) -> Option<Tab> {
        Tab::EVERY.into_iter().find(|t| t.as_str() == s)
    }

    /// Its name on the page.
    pub fn label(self) -> &'static str {
        match self {
            Tab::Inbox => "Inbox",
            Tab::Pending => "Pending",
            Tab::Completed => "Completed",
            Tab::Drafts => "Drafts",
            Tab::All => "All",
        }
    }

    /// The owner's documents of this tab (`None` for the Inbox, which is not the owner's).
    fn status(self) -> Option<Option<Status>> {
        match self {
            Tab::Inbox => None,
            Tab::Pending => Some(Some(Status::Pending)),
            Tab::Completed => Some(Some(Status::Completed)),
            Tab::Drafts => Some(Some(Status::Draft)),
            Tab::All => Some(None),
        }
    }
}

/// How many documents each tab holds (without a search).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub inbox: i64,
    pub pending: i64,
    pub completed: i64,
    pub drafts: i64,
    pub all: i64,
}

impl Counts {
    pub fn of(&self, tab: Tab) -> i64 {
        match tab {
            Tab::Inbox => self.inbox,
            Tab::Pending => self.pending,
            Tab::Completed => self.completed,
            Tab::Drafts => self.drafts,
            Tab::All => self.all,
        }
    }
}

/// What the dashboard asks for: a tab (`None`: the Inbox when something waits there, else
/// All), a search as typed, and a page from 1.
#[derive(Debug, Clone, Default)]
pub struct Ask {
    pub tab: Option<Tab>,
    pub search: Option<String>,
    pub page: i64,
    /// The folder shown (`InFolder::Root` for the root's documents); the owner's tabs and
    /// their counts hold its documents, the Inbox is nobody's folder.
    pub folder: listing::InFolder,
}

/// A document on the dashboard. In the Inbox, `mine` is the signed-in account's recipient
/// (whose link signs it) and `sender` who sent it; on the owner's tabs both are `None`.
#[derive(Debug, Clone)]
pub struct Entry {
    pub document: Document,
    pub mine: Option<Recipient>,
    pub sender: Option<Sender>,
}

/// Who sent an Inbox document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    pub name: String,
    pub email: String,
}

/// One page of one tab of the dashboard.
#[derive(Debug, Clone)]
pub struct Dashboard {
    pub tab: Tab,
    /// The search applied (trimmed), if any.
    pub search: Option<String>,
    pub page: i64,
    pub pages: i64,
    /// How many documents the tab holds with the search (its count without one).
    pub total: i64,
    pub counts: Counts,
    pub entries: Vec<Entry>,
}

impl Dashboard {
    /// Nothing anywhere: no document of the owner's and none waiting (the first visit).
    pub fn is_new(&self) -> bool {
        self.counts.all == 0 && self.counts.inbox == 0
    }
}

/// The search of a list: `None` for none (absent or blank), the trimmed text otherwise; 400
/// when it is longer than `MAX_SEARCH`.
pub fn search_terms(raw: Option<&str>) -> Result<Option<String>, AppError> {
    let Some(term) = raw.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if term.chars().count() > MAX_SEARCH {
        return Err(AppError::bad_request(format!(
            "the search is too long: at most {MAX_SEARCH} characters"
        )));
    }
    Ok(Some(term.to_string()))
}

/// The dashboard of the browser's user `who`: the counts of every tab and page `ask.page` of
/// the asked tab (past the last page, the last one).
pub async fn dashboard(ctx: &Context, who: &Principal, ask: Ask) -> Result<Dashboard, AppError> {
    let (user, caller) = (who.user_id, who.clone());
    let search = search_terms(ask.search.as_deref())?;
    ctx.db
        .read(move |c| {
            let email = users::get(c, user)?
                .map(|u| u.email)
                .ok_or_else(|| AppError::not_found("user"))?;
            let owner = crate::teams::access::owner(c, &caller)?;
            let owned = |status| Whose::Owned {
                owner: owner.clone(),
                status,
                folder: ask.folder.clone(),
            };
            let awaiting = Whose::Awaiting { email };
            let counts = Counts {
                inbox: listing::count(c, &awaiting, None)?,
                pending: listing::count(c, &owned(Some(Status::Pending)), None)?,
                completed: listing::count(c, &owned(Some(Status::Completed)), None)?,
                drafts: listing::count(c, &owned(Some(Status::Draft)), None)?,
                all: listing::count(c, &owned(None), None)?,
            };
            let tab = ask.tab.unwrap_or(if counts.inbox > 0 {
                Tab::Inbox
            } else {
                Tab::All
            });
            let whose = match tab.status() {
                None => awaiting,
                Some(status) => owned(status),
            };
            let total = match &search {
                None => counts.of(tab),
                Some(_) => listing::count(c, &whose, search.as_deref())?,
            };
            let pages = super::total_pages(total, PER_PAGE);
            let page = ask.page.clamp(1, pages.max(1));
            let query = Query {
                whose,
                search: search.clone(),
                order: Order::Changed,
                limit: PER_PAGE,
                offset: (page - 1) * PER_PAGE,
            };
            let (docs, _) = listing::list(c, &query)?;
            let entries = match &query.whose {
                Whose::Awaiting { email } => docs
                    .into_iter()
                    .map(|d| {
                        let sender = users::get(c, d.user_id)?.map(|u| Sender {
                            name: u.name,
                            email: u.email,
                        });
                        let mine = awaiting_recipient(&d, email).cloned();
                        Ok::<_, AppError>(Entry {
                            document: d,
                            mine,
                            sender,
                        })
                    })
                    .collect::<Result<_, _>>()?,
                Whose::Owned { .. } => docs
                    .into_iter()
                    .map(|d| Entry {
                        document: d,
                        mine: None,
                        sender: None,
                    })
                    .collect(),
            };
            Ok(Dashboard {
                tab,
                search,
                page,
                pages,
                total,
                counts,
                entries,
            })
        })
        .await
}

/// The recipient of `doc` with e-mail `email` who still has to act (the Inbox's rule).
fn awaiting_recipient<'a>(doc: &'a Document, email: &str) -> Option<&'a Recipient> {
    doc.recipients.iter().find(|r| {
        r.email == email && r.role != Role::Cc && r.signing_status == SigningStatus::NotSigned
    })
}
