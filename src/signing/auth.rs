//! Recipient authentication: what a recipient must prove
//! besides holding the link, and the checks, run in the transaction of the action they guard.
//!
//! - ACCOUNT access: the recipient must be signed in to the docket account whose e-mail is the
//!   recipient's before the document is shown at all (only its title and sender are).
//! - ACCOUNT action: reading is open; every action (fill, complete, approve, reject) needs that
//!   sign-in.
//! - TWO_FACTOR_AUTH / PASSKEY action: that sign-in for every action, and the finishing actions
//!   (complete, approve, view, reject) carry a proof made for them: a current TOTP code of that
//!   account (never accepted twice), or a WebAuthn assertion by one of its passkeys for a
//!   challenge issued to this recipient.
//!
//! A recipient's own option wins over the document's global one.

use rusqlite::Connection;
use serde_json::{Value, json};

use super::link::Link;
use crate::error::AppError;
use crate::factors::{Purpose, Verifier};

pub use crate::documents::meta::ActionAuth;

/// What one recipient must prove.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Requirement {
    /// ACCOUNT access: signed in before anything is shown.
    pub access_account: bool,
    pub action: Option<ActionAuth>,
}

impl Requirement {
    /// The recipient's options over the document's (stored values; an unknown one is an error,
    /// never read as "none").
    pub fn of(
        global_access: Option<&str>,
        global_action: Option<&str>,
        access: Option<&str>,
        action: Option<&str>,
    ) -> Result<Requirement, AppError> {
        let access = access.or(global_access);
        let access_account = match access {
            None => false,
            Some("ACCOUNT") => true,
            Some(other) => {
                return Err(AppError::internal(format!(
                    "unknown access authentication {other:?} stored"
                )));
            }
        };
        Ok(Requirement {
            access_account,
            action: action
                .or(global_action)
                .map(|a| {
                    ActionAuth::parse(a).ok_or_else(|| {
                        AppError::internal(format!("unknown action authentication {a:?} stored"))
                    })
                })
                .transpose()?,
        })
    }

    /// Whether acting needs the recipient's account.
    pub fn account_to_act(self) -> bool {
        self.access_account || self.action.is_some()
    }

    pub fn is_none(self) -> bool {
        !self.account_to_act()
    }

    pub fn describe(self) -> Value {
        json!({
            "accessAuth": self.access_account.then_some("ACCOUNT"),
            "actionAuth": self.action.map(ActionAuth::as_str),
        })
    }
}

/// The account the browser is signed in to (its session cookie), if any.
#[derive(Debug, Clone)]
pub struct Signer {
    pub user_id: i64,
    pub email: String,
}

/// The session behind `token` (a session cookie's value), read in `conn`.
pub fn signer(
    conn: &Connection,
    token: Option<&str>,
    now: i64,
) -> Result<Option<Signer>, AppError> {
    let Some(token) = token else {
        return Ok(None);
    };
    Ok(
        crate::sessions::store::user_of(conn, token, now)?.map(|u| Signer {
            user_id: u.id,
            email: u.email,
        }),
    )
}

/// The proof a finishing action carries: `{"auth": {"method": "TWO_FACTOR_AUTH", "code":
/// "123456"}}` or `{"auth": {"method": "PASSKEY", "credential": <AuthenticationResponseJSON>}}`.
#[derive(Debug, Clone)]
pub enum Proof {
    Totp(String),
    Passkey(Value),
}

impl Proof {
    pub fn from_body(body: &Value) -> Result<Option<Proof>, AppError> {
        let Some(auth) = body.get("auth").filter(|a| !a.is_null()) else {
            return Ok(None);
        };
        let method = auth.get("method").and_then(Value::as_str);
        match method {
            Some("TWO_FACTOR_AUTH") => match auth.get("code").and_then(Value::as_str) {
                Some(code) if code.len() <= 32 => Ok(Some(Proof::Totp(code.to_string()))),
                _ => Err(AppError::bad_request(
                    "auth.code must be the six-digit code",
                )),
            },
            Some("PASSKEY") => match auth.get("credential") {
                Some(c) if c.is_object() => Ok(Some(Proof::Passkey(c.clone()))),
                _ => Err(AppError::bad_request(
                    "auth.credential must be the passkey's answer (PublicKeyCredential.toJSON())",
                )),
            },
            _ => Err(AppError::bad_request(
                "auth.method must be TWO_FACTOR_AUTH or PASSKEY",
            )),
        }
    }
}

/// Who is acting on a link, from where, with which session and proof.
pub struct Acting<'a> {
    pub origin: &'a crate::documents::audit::Origin,
    pub verifier: &'a Verifier,
    pub signer: Option<Signer>,
    pub proof: Option<Proof>,
}

impl Acting<'_> {
    /// The account the requirement asks for, when it asks for one to act (`require_account`).
    pub fn require_account(&self, link: &Link) -> Result<Option<i64>, AppError> {
        require_account(link.requirement()?, link, self.signer.as_ref(), false)
    }

    /// The full check for a finishing action (`prove`).
    pub fn prove(&self, tx: &Connection, link: &Link, now: i64) -> Result<Proved, AppError> {
        prove(
            tx,
            self.verifier,
            link.requirement()?,
            link,
            self.signer.as_ref(),
            self.proof.as_ref(),
            now,
        )
    }

    /// The `auth` member of the audit event for what `proved` shows.
    pub fn audit(&self, proved: &Proved) -> Value {
        proved.audit(self.signer.as_ref().map(|s| s.email.as_str()))
    }
}

/// What a recipient proved, for the audit log and the certificate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Proved {
    /// `None`: the link alone.
    pub method: Option<ActionAuth>,
    pub user_id: Option<i64>,
}

impl Proved {
    /// The `auth` member of an audit event's data.
    pub fn audit(&self, account: Option<&str>) -> Value {
        match self.method {
            None => json!({"method": "LINK"}),
            Some(m) => json!({"method": m.as_str(), "account": account}),
        }
    }
}

/// What a recipient proved, in words, for the audit certificate (from `recipients.auth_method`
/// and the account's e-mail).
pub fn describe_proof(method: Option<ActionAuth>, account: Option<&str>) -> String {
    let who = account.map(|a| format!(" ({a})")).unwrap_or_default();
    match method {
        None => "Signing link only".to_string(),
        Some(ActionAuth::Account) => format!("Signing link and account sign-in{who}"),
        Some(ActionAuth::TwoFactor) => {
            format!("Signing link, account sign-in{who} and an authenticator app code")
        }
        Some(ActionAuth::Passkey) => format!("Signing link, account sign-in{who} and a passkey"),
    }
}

/// 401 `account_required` without a session, `wrong_account` with another account's, when the
/// requirement asks for the recipient's account to act (or, `to_read`, to read). Returns the
/// account's id when one was needed.
pub fn require_account(
    req: Requirement,
    link: &Link,
    signer: Option<&Signer>,
    to_read: bool,
) -> Result<Option<i64>, AppError> {
    let needed = if to_read {
        req.access_account
    } else {
        req.account_to_act()
    };
    if !needed {
        return Ok(None);
    }
    match signer {
        None => Err(AppError::AuthRequired {
            code: "account_required",
            message: format!(
                "this document asks you to sign in to your Docket account for {} first",
                link.me.email
            ),
        }),
        Some(s) if !s.email.eq_ignore_ascii_case(&link.me.email) => Err(AppError::AuthRequired {
            code: "wrong_account",
            message: format!(
                "you are signed in as {}, but this document is for {}: sign out, then sign in as {}",
                s.email, link.me.email, link.me.email
            ),
        }),
        Some(s) => Ok(Some(s.user_id)),
    }
}

/// The checks for a finishing action (complete, approve, view, reject): the account, and the
/// proof the requirement names, used up in `tx`. Call after the action's own preconditions and
/// before it changes anything, in the same transaction.
pub fn prove(
    tx: &Connection,
    verifier: &Verifier,
    req: Requirement,
    link: &Link,
    signer: Option<&Signer>,
    proof: Option<&Proof>,
    now: i64,
) -> Result<Proved, AppError> {
    let Some(user) = require_account(req, link, signer, false)? else {
        return Ok(Proved::default());
    };
    let method = match req.action {
        None | Some(ActionAuth::Account) => ActionAuth::Account,
        Some(ActionAuth::TwoFactor) => {
            match proof {
                Some(Proof::Totp(code)) => verifier.check_totp(tx, user, code, now)?,
                _ => return Err(missing(tx, user, ActionAuth::TwoFactor)?),
            }
            ActionAuth::TwoFactor
        }
        Some(ActionAuth::Passkey) => {
            match proof {
                Some(Proof::Passkey(answer)) => {
                    let bytes = serde_json::to_vec(answer).map_err(AppError::internal)?;
                    verifier.check_assertion(tx, user, Purpose::Sign(link.me.id), &bytes, now)?
                }
                _ => return Err(missing(tx, user, ActionAuth::Passkey)?),
            }
            ActionAuth::Passkey
        }
    };
    Ok(Proved {
        method: Some(method),
        user_id: Some(user),
    })
}

/// The error for a finishing action without its proof: how to give it, or how to enrol first.
fn missing(tx: &Connection, user: i64, needed: ActionAuth) -> Result<AppError, AppError> {
    let enrolled = crate::factors::store::enrolled(tx, user)?;
    Ok(match needed {
        ActionAuth::TwoFactor if !enrolled.totp => AppError::AuthRequired {
            code: "totp_not_enrolled",
            message: "this document asks for a code from an authenticator app: set one up on your account page (/account), then come back".into(),
        },
        ActionAuth::Passkey if enrolled.passkeys == 0 => AppError::AuthRequired {
            code: "passkey_not_enrolled",
            message: "this document asks for a passkey: add one on your account page (/account), then come back".into(),
        },
        ActionAuth::TwoFactor => AppError::AuthRequired {
            code: "second_factor_required",
            message: "enter the current code from your authenticator app to finish".into(),
        },
        _ => AppError::AuthRequired {
            code: "second_factor_required",
            message: "confirm with your passkey to finish".into(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recipients_option_wins_over_the_documents() {
        let r = Requirement::of(
            Some("ACCOUNT"),
            Some("PASSKEY"),
            None,
            Some("TWO_FACTOR_AUTH"),
        )
        .unwrap();
        assert!(r.access_account);
        assert_eq!(r.action, Some(ActionAuth::TwoFactor));
        let none = Requirement::of(None, None, None, None).unwrap();
        assert!(none.is_none());
        let act = Requirement::of(None, Some("ACCOUNT"), None, None).unwrap();
        assert!(!act.access_account && act.account_to_act());
        assert!(Requirement::of(None, Some("SMS"), None, None).is_err());
        assert!(Requirement::of(Some("EVERYONE"), None, None, None).is_err());
    }

    #[test]
    fn proofs_are_read_strictly() {
        assert!(Proof::from_body(&json!({})).unwrap().is_none());
        assert!(matches!(
            Proof::from_body(&json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": "123456"}})).unwrap(),
            Some(Proof::Totp(c)) if c == "123456"
        ));
        assert!(Proof::from_body(&json!({"auth": {"method": "TWO_FACTOR_AUTH"}})).is_err());
        assert!(
            Proof::from_body(&json!({"auth": {"method": "PASSKEY", "credential": "x"}})).is_err()
        );
        assert!(Proof::from_body(&json!({"auth": {"method": "SMS"}})).is_err());
    }
}
