//! Recipient authentication: what a recipient must prove
//! besides holding the link, and the checks, run in the transaction of the action they guard.
//!
//! - ACCOUNT access: the recipient must be signed in to the docket account whose e-mail is the
//!   recipient's before the document is shown at all (only its title and sender are).
//! - ACCOUNT action: reading is open; every action (fill, complete, approve, reject) needs that
//!   sign-in.
//! - TWO_FACTOR_AUTH / PASSKEY / PASSWORD action: that sign-in for every action, and the
//!   finishing actions (complete, approve, view, reject) carry a proof made for them: a current
//!   TOTP code of that account (never accepted twice) or the code e-mailed to the recipient for
//!   it (`link::email_code`, once, ten minutes), a WebAuthn assertion by one of its
//!   passkeys for a challenge issued to this recipient, or that account's password typed again
//!   (checked before the action's transaction, under the login throttle: `link::complete`).
//!
//! Rejecting is not signing: it needs the sign-in the requirement asks for to act, but no code,
//! passkey or password (`Finishing::Reject`); a proof given anyway is checked and recorded. A
//! recipient who cannot give the proof (no passkey yet) can so still say no.
//!
//! Several action methods (the signing service's lists) mean any one of them will do; ACCOUNT
//! among them means the sign-in alone. A recipient's own option wins over the document's
//! global one; a recipient's EXPLICIT_NONE waives the document's action authentication.

use crate::core::db::Conn;
use crate::core::ids::UserId;
use serde_json::Value;

use super::link::Link;
use crate::core::error::AppError;
use crate::identity::factors::CodeFrom;
use crate::{identity::factors::Attempt, identity::factors::Purpose, identity::factors::Verifier};

use crate::signing::documents::audit_data::ProofUsed;
pub use crate::signing::documents::auth_options::ActionAuth;
use crate::signing::documents::auth_options::EXPLICIT_NONE;

/// A set of action methods, any one of which will do (empty: none asked for).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Actions(u8);

impl Actions {
    fn bit(a: ActionAuth) -> u8 {
        1 << (a as u8)
    }

    pub fn of(list: &[ActionAuth]) -> Actions {
        Actions(list.iter().fold(0, |acc, a| acc | Self::bit(*a)))
    }

    pub fn contains(self, a: ActionAuth) -> bool {
        self.0 & Self::bit(a) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = ActionAuth> {
        ActionAuth::ALL
            .into_iter()
            .filter(move |a| self.contains(*a))
    }

    /// The method the signing page asks for: none when the sign-in suffices (ACCOUNT is among
    /// them), else the first the account can give (`enrolled`, when known): a passkey, a
    /// TOTP code, then the password, which every account has.
    pub fn preferred(
        self,
        enrolled: Option<crate::identity::factors::store::Enrolled>,
    ) -> Option<ActionAuth> {
        if self.is_empty() || self.contains(ActionAuth::Account) {
            return self.iter().next();
        }
        let can = |a: ActionAuth| match (a, enrolled) {
            (ActionAuth::Passkey, Some(e)) => e.passkeys > 0,
            (ActionAuth::TwoFactor, Some(e)) => e.totp,
            _ => true,
        };
        [
            ActionAuth::Passkey,
            ActionAuth::TwoFactor,
            ActionAuth::Password,
        ]
        .into_iter()
        .find(|a| self.contains(*a) && can(*a))
        .or_else(|| self.iter().next())
    }
}

/// The finishing actions, which differ in the proof they ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finishing {
    /// Complete: sign, approve or mark viewed.
    Agree,
    /// Reject: the sign-in alone (when one is asked for to act); a proof is optional.
    Reject,
}

/// What one recipient must prove.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Requirement {
    /// ACCOUNT access: signed in before anything is shown.
    pub access_account: bool,
    /// Action authentication: any one of these.
    pub actions: Actions,
}

impl Requirement {
    /// The recipient's options over the document's (stored values; an unknown one is an error,
    /// never read as "none").
    pub fn of(
        global_access: &[String],
        global_action: &[String],
        access: &[String],
        action: &[String],
    ) -> Result<Requirement, AppError> {
        let access = if access.is_empty() {
            global_access
        } else {
            access
        };
        let mut access_account = false;
        let mut access_two_factor = false;
        for a in access {
            match a.as_str() {
                "ACCOUNT" => access_account = true,
                "TWO_FACTOR_AUTH" => access_two_factor = true,
                other => {
                    return Err(AppError::internal(format!(
                        "unknown access authentication {other:?} stored"
                    )));
                }
            }
        }
        let action = if action.is_empty() {
            global_action
        } else {
            action
        };
        let mut methods = Vec::new();
        for a in action.iter().filter(|a| *a != EXPLICIT_NONE) {
            methods.push(ActionAuth::parse(a).ok_or_else(|| {
                AppError::internal(format!("unknown action authentication {a:?} stored"))
            })?);
        }
        // TWO_FACTOR_AUTH access (the signing service's: reading stays open, finishing needs a
        // code) is asked as the account's TOTP code at finishing; that one proof is then the
        // only one that will do, whatever action methods were also named.
        if access_two_factor {
            methods = vec![ActionAuth::TwoFactor];
        }
        Ok(Requirement {
            access_account,
            actions: Actions::of(&methods),
        })
    }

    /// Whether acting needs the recipient's account.
    pub fn account_to_act(self) -> bool {
        self.access_account || !self.actions.is_empty()
    }

    pub fn is_none(self) -> bool {
        !self.account_to_act()
    }

    /// The methods one of which `act` must prove besides the sign-in (empty: the sign-in alone).
    /// The one place that says rejecting asks for no second proof.
    pub fn proof_for(self, act: Finishing) -> Actions {
        match act {
            Finishing::Agree if !self.actions.contains(ActionAuth::Account) => self.actions,
            _ => Actions::default(),
        }
    }

    /// For the signing page (`link_answers::AuthState`).
    pub fn describe(
        self,
        enrolled: Option<crate::identity::factors::store::Enrolled>,
    ) -> Described {
        Described {
            access_auth: self.access_account.then_some("ACCOUNT"),
            action_auth: self.actions.preferred(enrolled),
            action_auth_allowed: self.actions.iter().collect(),
            reject_auth: self.proof_for(Finishing::Reject).preferred(enrolled),
        }
    }
}

/// A requirement as the signing page is told it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Described {
    /// `ACCOUNT` when the recipient signs in before anything is shown.
    pub access_auth: Option<&'static str>,
    /// The one method the page will ask for at finishing (`Actions::preferred`).
    pub action_auth: Option<ActionAuth>,
    /// Every method that will do.
    pub action_auth_allowed: Vec<ActionAuth>,
    /// The method the page asks for before rejecting: none (`proof_for`).
    pub reject_auth: Option<ActionAuth>,
}

/// The account the browser is signed in to (its session cookie), if any.
#[derive(Debug, Clone)]
pub struct Signer {
    pub user_id: UserId,
    pub email: String,
}

/// The session behind `token` (a session cookie's value), read in `conn`.
pub fn signer(conn: &Conn, token: Option<&str>, now: i64) -> Result<Option<Signer>, AppError> {
    let Some(token) = token else {
        return Ok(None);
    };
    Ok(
        crate::identity::sessions::store::user_of(conn, token, now)?.map(|u| Signer {
            user_id: u.id,
            email: u.email,
        }),
    )
}

/// The proof a finishing action carries: `{"auth": {"method": "TWO_FACTOR_AUTH", "code":
/// "123456"}}`, `{"auth": {"method": "PASSKEY", "credential": <AuthenticationResponseJSON>}}`
/// or `{"auth": {"method": "PASSWORD", "password": "..."}}`.
#[derive(Clone)]
pub enum Proof {
    /// A six-digit code: from the account's authenticator app, or e-mailed to the recipient.
    Code(String),
    Passkey(Value),
    /// A password as typed, not yet checked (`link` checks it before the action).
    Password(String),
    /// The password of account `.0` was checked and right, under the login throttle. Only
    /// `link` makes it, never a request body.
    PasswordChecked(UserId),
}

impl std::fmt::Debug for Proof {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Proof::Code(_) => f.write_str("Code(***)"),
            Proof::Passkey(_) => f.write_str("Passkey(..)"),
            Proof::Password(_) => f.write_str("Password(***)"),
            Proof::PasswordChecked(u) => write!(f, "PasswordChecked({u})"),
        }
    }
}

/// Who is acting on a link, from where, with which session and proof.
pub struct Acting<'a> {
    pub origin: &'a crate::signing::documents::audit::Origin,
    pub verifier: &'a Verifier,
    pub signer: Option<Signer>,
    pub proof: Option<Proof>,
    /// The signer's second-factor answer, counted before this transaction (`factors::counted`).
    pub attempt: Option<Attempt>,
}

impl Acting<'_> {
    /// The account the requirement asks for, when it asks for one to act (`require_account`).
    pub fn require_account(&self, link: &Link) -> Result<Option<UserId>, AppError> {
        require_account(link.requirement()?, link, self.signer.as_ref(), false)
    }

    /// The full check for a finishing action (`prove`).
    pub fn prove(
        &self,
        tx: &Conn,
        link: &Link,
        act: Finishing,
        now: i64,
    ) -> Result<Proved, AppError> {
        prove(
            tx,
            self.verifier,
            (link.requirement()?, act),
            link,
            self.signer.as_ref(),
            (self.proof.as_ref(), self.attempt.as_ref()),
            now,
        )
    }

    /// The `auth` member of the audit event for what `proved` shows.
    pub fn audit(&self, proved: &Proved) -> ProofUsed {
        proved.audit(self.signer.as_ref().map(|s| s.email.as_str()))
    }
}

/// What a recipient proved, for the audit log and the certificate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Proved {
    /// `None`: the link alone.
    pub method: Option<ActionAuth>,
    pub user_id: Option<UserId>,
    /// TWO_FACTOR_AUTH by a code e-mailed to the recipient rather than an authenticator app's.
    pub emailed: bool,
}

impl Proved {
    /// The `auth` member of an audit event's data.
    pub fn audit(&self, account: Option<&str>) -> ProofUsed {
        match self.method {
            None => ProofUsed::Link,
            Some(method) => ProofUsed::Account {
                method,
                account: account.map(str::to_string),
                emailed: self.emailed,
            },
        }
    }
}

/// What a recipient proved, in words, for the audit certificate (from `recipients.auth_method`,
/// the account's e-mail, and whether the code was e-mailed: `mailed::proved_by_email`).
pub fn describe_proof(method: Option<ActionAuth>, account: Option<&str>, emailed: bool) -> String {
    let who = account.map(|a| format!(" ({a})")).unwrap_or_default();
    match method {
        None => "Signing link only".to_string(),
        Some(ActionAuth::Account) => format!("Signing link and account sign-in{who}"),
        Some(ActionAuth::TwoFactor) if emailed => {
            format!("Signing link, account sign-in{who} and a one-time code sent by e-mail")
        }
        Some(ActionAuth::TwoFactor) => {
            format!("Signing link, account sign-in{who} and an authenticator app code")
        }
        Some(ActionAuth::Passkey) => format!("Signing link, account sign-in{who} and a passkey"),
        Some(ActionAuth::Password) => {
            format!("Signing link, account sign-in{who} and the account password")
        }
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
) -> Result<Option<UserId>, AppError> {
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
/// proof the requirement names for `act` (`Requirement::proof_for`), used up in `tx`; a proof
/// given where none is needed is still checked (never ignored when wrong) and recorded. Call
/// after the action's own preconditions and before it changes anything, in the same
/// transaction.
pub fn prove(
    tx: &Conn,
    verifier: &Verifier,
    (req, act): (Requirement, Finishing),
    link: &Link,
    signer: Option<&Signer>,
    (proof, attempt): (Option<&Proof>, Option<&Attempt>),
    now: i64,
) -> Result<Proved, AppError> {
    let Some(user) = require_account(req, link, signer, false)? else {
        return Ok(Proved::default());
    };
    // A second factor is checked only under an attempt counted for this very account.
    let attempt = attempt.filter(|a| a.user() == user);
    let allowed = req.actions;
    let mut emailed = false;
    let method = if allowed.is_empty() || allowed.contains(ActionAuth::Account) {
        ActionAuth::Account
    } else {
        match proof {
            Some(Proof::Code(code)) if allowed.contains(ActionAuth::TwoFactor) => {
                let attempt = attempt.ok_or_else(uncounted)?;
                let from = verifier.check_code(tx, attempt, link.me.id, code, now)?;
                emailed = from == CodeFrom::Email;
                ActionAuth::TwoFactor
            }
            Some(Proof::Passkey(answer)) if allowed.contains(ActionAuth::Passkey) => {
                let attempt = attempt.ok_or_else(uncounted)?;
                let bytes = serde_json::to_vec(answer).map_err(AppError::internal)?;
                verifier.check_assertion(tx, attempt, Purpose::Sign(link.me.id), &bytes, now)?;
                ActionAuth::Passkey
            }
            Some(Proof::PasswordChecked(checked))
                if allowed.contains(ActionAuth::Password) && *checked == user =>
            {
                ActionAuth::Password
            }
            None if req.proof_for(act).is_empty() => ActionAuth::Account,
            _ => return Err(missing(tx, user, allowed)?),
        }
    };
    Ok(Proved {
        method: Some(method),
        user_id: Some(user),
        emailed,
    })
}

/// A second factor that came without a counted attempt for the account (the session changed
/// between counting and checking): nothing is checked; try again.
fn uncounted() -> AppError {
    AppError::Conflict("your sign-in changed while checking the code; try again".into())
}

/// The error for a finishing action without a proof it accepts: how to give one, or how to
/// enrol first.
fn missing(tx: &Conn, user: UserId, allowed: Actions) -> Result<AppError, AppError> {
    let enrolled = crate::identity::factors::store::enrolled(tx, user)?;
    Ok(match allowed.preferred(Some(enrolled)) {
        Some(ActionAuth::Password) => AppError::AuthRequired {
            code: "password_required",
            message: "enter your Docket account password to finish".into(),
        },
        Some(ActionAuth::TwoFactor) if !enrolled.totp => AppError::AuthRequired {
            code: "totp_not_enrolled",
            message: "this document asks for a six-digit code: ask for one by e-mail (\"E-mail me a code\"), or set up an authenticator app on your account page (/account)".into(),
        },
        Some(ActionAuth::Passkey) if enrolled.passkeys == 0 => AppError::AuthRequired {
            code: "passkey_not_enrolled",
            message: "this document asks for a passkey: add one on your account page (/account), then come back".into(),
        },
        Some(ActionAuth::TwoFactor) => AppError::AuthRequired {
            code: "second_factor_required",
            message: "enter the current code from your authenticator app, or one e-mailed to you, to finish".into(),
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
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let r = Requirement::of(
            &l(&["ACCOUNT"]),
            &l(&["PASSKEY"]),
            &[],
            &l(&["TWO_FACTOR_AUTH"]),
        )
        .unwrap();
        assert!(r.access_account);
        assert_eq!(r.actions, Actions::of(&[ActionAuth::TwoFactor]));
        let none = Requirement::of(&[], &[], &[], &[]).unwrap();
        assert!(none.is_none());
        let act = Requirement::of(&[], &l(&["ACCOUNT"]), &[], &[]).unwrap();
        assert!(!act.access_account && act.account_to_act());
        let waived = Requirement::of(&[], &l(&["PASSKEY"]), &[], &l(&["EXPLICIT_NONE"])).unwrap();
        assert!(waived.is_none());
        // TWO_FACTOR_AUTH access: reading open, the TOTP code at finishing, even when the
        // action authentication is waived or names another method.
        for action in [l(&[]), l(&["EXPLICIT_NONE"]), l(&["PASSKEY", "ACCOUNT"])] {
            let r = Requirement::of(&l(&["TWO_FACTOR_AUTH"]), &[], &[], &action).unwrap();
            assert!(!r.access_account, "{action:?}");
            assert_eq!(
                r.actions,
                Actions::of(&[ActionAuth::TwoFactor]),
                "{action:?}"
            );
        }
        let r = Requirement::of(&[], &[], &l(&["ACCOUNT", "TWO_FACTOR_AUTH"]), &[]).unwrap();
        assert!(r.access_account);
        assert_eq!(r.actions, Actions::of(&[ActionAuth::TwoFactor]));
        assert!(Requirement::of(&[], &l(&["SMS"]), &[], &[]).is_err());
        assert!(Requirement::of(&l(&["EVERYONE"]), &[], &[], &[]).is_err());
    }

    #[test]
    fn rejecting_asks_for_the_sign_in_but_no_second_proof() {
        let two = Requirement {
            access_account: false,
            actions: Actions::of(&[ActionAuth::TwoFactor, ActionAuth::Passkey]),
        };
        assert!(two.account_to_act());
        assert_eq!(two.proof_for(Finishing::Agree), two.actions);
        assert!(two.proof_for(Finishing::Reject).is_empty());
        let account = Requirement {
            access_account: false,
            actions: Actions::of(&[ActionAuth::Passkey, ActionAuth::Account]),
        };
        assert!(account.proof_for(Finishing::Agree).is_empty());
        let described = two.describe(None);
        assert_eq!(described.reject_auth, None);
        assert_eq!(described.action_auth, Some(ActionAuth::Passkey));
    }

    #[test]
    fn the_certificate_says_whether_the_code_came_by_e_mail() {
        let app = describe_proof(Some(ActionAuth::TwoFactor), Some("ann@x.org"), false);
        assert_eq!(
            app,
            "Signing link, account sign-in (ann@x.org) and an authenticator app code"
        );
        let mailed = describe_proof(Some(ActionAuth::TwoFactor), Some("ann@x.org"), true);
        assert_eq!(
            mailed,
            "Signing link, account sign-in (ann@x.org) and a one-time code sent by e-mail"
        );
        let proved = Proved {
            method: Some(ActionAuth::TwoFactor),
            user_id: None,
            emailed: true,
        };
        assert_eq!(
            proved.audit(Some("ann@x.org")),
            ProofUsed::Account {
                method: ActionAuth::TwoFactor,
                account: Some("ann@x.org".into()),
                emailed: true,
            }
        );
    }

    #[test]
    fn any_of_several_methods_and_the_page_asks_for_one_the_account_can_give() {
        use crate::identity::factors::store::Enrolled;
        let both = Actions::of(&[ActionAuth::Password, ActionAuth::Passkey]);
        let none = Enrolled {
            totp: false,
            passkeys: 0,
        };
        let key = Enrolled {
            totp: false,
            passkeys: 1,
        };
        assert_eq!(both.preferred(Some(none)), Some(ActionAuth::Password));
        assert_eq!(both.preferred(Some(key)), Some(ActionAuth::Passkey));
        let with_account = Actions::of(&[ActionAuth::Passkey, ActionAuth::Account]);
        assert_eq!(with_account.preferred(None), Some(ActionAuth::Account));
        assert_eq!(Actions::default().preferred(None), None);
    }
}
