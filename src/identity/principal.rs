//! Who a request acts for: a user, through an API key (every scope) or an access token (its
//! scopes). `oauth::bearer` turns a credential into one.

use super::scope::Scope;
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::core::ids::{ClientId, GrantId, TeamId, UserId};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    ApiKey,
    /// The owner's own browser: the web application's calls, with the session cookie and its
    /// CSRF token (every scope, as the owner's API key). It holds the cookie's value where a
    /// change asks whether that session confirmed who it is recently (`sessions::confirm`):
    /// making an API token or a webhook. Without it such a change is refused.
    Session(Option<SecretToken>),
    /// An OAuth access token issued to this client (row id) under this grant (row id).
    AccessToken {
        client: ClientId,
        grant: GrantId,
    },
}

/// The workspace a caller acts in: ids only, never a role. `teams::access` turns it into the
/// rows the caller reaches, reading the membership and role inside the transaction that uses
/// them, so a removal or a demotion holds at the next request on every node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActsFor {
    /// The user's own documents, templates, tokens and webhooks.
    Personal,
    /// A team's, by id: an API key made in the team's settings.
    Team(TeamId),
    /// A team's, by the slug the page's URL names (`/t/{slug}/...`): the web application.
    Slug(String),
}

#[derive(Debug, Clone)]
pub struct Principal {
    pub user_id: UserId,
    pub scopes: Vec<Scope>,
    pub via: Via,
    pub acts_for: ActsFor,
}

impl Principal {
    /// Inside the transaction of a change that gives something a way to act for the account or
    /// read its documents (a new API token, a webhook or its new address): a browser must have
    /// confirmed its session within `confirm::WINDOW`, since a session cookie alone must not be
    /// enough to keep access after the person changes their password. An API key or an access
    /// token passes: it is itself the credential such a change would hand out, and it has no
    /// session to confirm.
    pub fn require_confirmed(&self, tx: &crate::core::db::Conn, now: i64) -> Result<(), AppError> {
        use crate::identity::sessions::confirm;
        match &self.via {
            Via::Session(Some(token)) => confirm::require(tx, token.expose(), now),
            Via::Session(None) => Err(confirm::required()),
            Via::ApiKey | Via::AccessToken { .. } => Ok(()),
        }
    }

    /// The owner `user` in their own browser, signed in (`Via::Session`): every scope.
    pub fn browser(user: UserId) -> Principal {
        Principal {
            user_id: user,
            scopes: Scope::ALL.to_vec(),
            via: Via::Session(None),
            acts_for: ActsFor::Personal,
        }
    }

    /// The same caller acting in `workspace`.
    pub fn acting_for(self, workspace: ActsFor) -> Principal {
        Principal {
            acts_for: workspace,
            ..self
        }
    }

    /// As `browser`, with the session cookie's value `session`, for the changes that ask for
    /// a recently confirmed session.
    pub fn browser_session(user: UserId, session: &str) -> Principal {
        Principal {
            via: Via::Session(Some(SecretToken::presented(session))),
            ..Principal::browser(user)
        }
    }

    /// The user, for what is a person's alone (`what`: their bookings): a 403 for a caller
    /// acting for a team, whose token must not read its maker's own.
    pub fn personal(&self, what: &str) -> Result<UserId, AppError> {
        match self.acts_for {
            ActsFor::Personal => Ok(self.user_id),
            _ => Err(AppError::Forbidden(format!(
                "{what} are personal: use a personal API token"
            ))),
        }
    }

    /// Ok when the credential carries `scope`; else 403 `insufficient_scope`.
    pub fn require(&self, scope: Scope) -> Result<(), AppError> {
        if self.scopes.contains(&scope) {
            Ok(())
        } else {
            Err(AppError::InsufficientScope(scope.as_str()))
        }
    }

    /// The OAuth grant behind the credential; `None` for the user's own API key.
    pub fn grant(&self) -> Option<GrantId> {
        match self.via {
            Via::ApiKey | Via::Session(_) => None,
            Via::AccessToken { grant, .. } => Some(grant),
        }
    }

    /// Whether the caller may see recipients' signing links (`token`, `signingUrl`). A link is
    /// the recipient's credential: the owner's API key and the owner's own browser see it, a
    /// third-party app's access token never does, whatever its scopes.
    pub fn sees_signing_links(&self) -> bool {
        matches!(self.via, Via::ApiKey | Via::Session(_))
    }

    /// Whether the caller may read documents and templates (READ_DOCUMENT; an API key has
    /// every scope). A caller that may only write gets receipts (`documents::receipt`).
    pub fn reads_documents(&self) -> bool {
        self.scopes.contains(&Scope::ReadDocument)
    }
}

/// A credential as presented: the `Authorization` header value, or an `apiKey` query parameter
/// where the endpoint accepts one.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    pub authorization: Option<String>,
    pub query_api_key: Option<String>,
}

impl Credentials {
    /// The secret presented: `Bearer <x>`, a bare `api_...` key, or the query key.
    pub fn secret(&self) -> Option<&str> {
        if let Some(h) = self.authorization.as_deref() {
            let h = h.trim();
            if let Some((scheme, rest)) = h.split_once(' ')
                && scheme.eq_ignore_ascii_case("bearer")
            {
                return Some(rest.trim());
            }
            if h.starts_with(crate::identity::apikeys::PREFIX) {
                return Some(h);
            }
            return None;
        }
        self.query_api_key.as_deref().map(str::trim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(h: Option<&str>, q: Option<&str>) -> Credentials {
        Credentials {
            authorization: h.map(String::from),
            query_api_key: q.map(String::from),
        }
    }

    #[test]
    fn secrets_come_from_bearer_bare_keys_or_the_query() {
        assert_eq!(creds(Some("Bearer abc"), None).secret(), Some("abc"));
        assert_eq!(creds(Some("bearer  abc "), None).secret(), Some("abc"));
        assert_eq!(creds(Some("api_xyz"), None).secret(), Some("api_xyz"));
        assert_eq!(creds(Some("Basic Zm9v"), None).secret(), None);
        assert_eq!(creds(None, Some("api_q")).secret(), Some("api_q"));
        assert_eq!(creds(None, None).secret(), None);
    }

    #[test]
    fn scope_checks() {
        let p = Principal {
            user_id: UserId::new(1),
            scopes: vec![Scope::ReadProfile],
            via: Via::AccessToken {
                client: ClientId::new(1),
                grant: GrantId::new(7),
            },
            acts_for: ActsFor::Personal,
        };
        assert!(p.require(Scope::ReadProfile).is_ok());
        assert_eq!(p.grant(), Some(GrantId::new(7)));
        assert!(!p.sees_signing_links());
        let key = Principal {
            user_id: UserId::new(1),
            scopes: Scope::ALL.to_vec(),
            via: Via::ApiKey,
            acts_for: ActsFor::Personal,
        };
        assert_eq!(key.grant(), None);
        assert!(key.sees_signing_links());
        assert!(matches!(
            p.require(Scope::ReadBooking),
            Err(AppError::InsufficientScope("READ_BOOKING"))
        ));
    }
}
