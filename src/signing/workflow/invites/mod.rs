//! Accounts created from a signing link: a recipient whose document asks for a Docket account
//! and who has none gets a one-time link by e-mail. Following it, they choose a name and a
//! password; the account's e-mail is the invited address, so the link proves they receive mail
//! there. The links' SQL is in `store`.

pub mod store;

use crate::core::db::Conn;
use crate::core::ids::RecipientId;

use crate::core::context::Context;
use crate::core::crypto::SecretToken;
use crate::core::db::Db;
use crate::core::error::AppError;
use crate::identity::users::checks::PasswordChecks;

/// How long a link works.
pub const TTL: i64 = 60 * 60;
/// Links mailed to one address in an hour, at most.
pub const PER_HOUR: i64 = 3;

/// An invitation being redeemed.
#[derive(Debug, Clone)]
pub struct Invite {
    pub id: i64,
    pub email: String,
    pub recipient_id: Option<RecipientId>,
}

/// A new link for `email` (from recipient `recipient`'s signing page). 409 when the address
/// has an account already, 429 past `PER_HOUR` links an hour.
pub fn create(
    tx: &Conn,
    email: &str,
    recipient: RecipientId,
    now: i64,
) -> Result<SecretToken, AppError> {
    // Counted, then inserted: links for one address take turns so the hourly cap holds.
    tx.serialize_on(&format!("invites:{email}"))?;
    if crate::identity::users::store::find_by_email(tx, email)?.is_some() {
        return Err(AppError::Conflict(format!(
            "{email} has a Docket account already: sign in instead"
        )));
    }
    let (recent, oldest) = store::created_since(tx, email, now - 3600)?;
    if recent >= PER_HOUR {
        return Err(AppError::TooManyRequests {
            retry_after: (oldest.unwrap_or(now) + 3600 - now).max(1) as u64,
            limit: 0,
        });
    }
    let token = SecretToken::generate("", 43);
    store::insert(tx, email, &token.hash(), Some(recipient), now, now + TTL)?;
    Ok(token)
}

/// The unused, unexpired invitation behind `token`.
pub fn find(conn: &Conn, token: &str, now: i64) -> Result<Option<Invite>, AppError> {
    store::find_live(conn, &SecretToken::presented(token).hash(), now)
}

/// The invitation behind `code`, while it can still be used.
pub async fn live(ctx: &Context, code: String) -> Result<Option<Invite>, AppError> {
    ctx.db
        .read(move |c| find(c, &code, crate::core::db::now()))
        .await
}

/// Uses the invitation behind `token` up, once: `None` when it was used, expired or unknown.
/// Every other link for the same address stops working too.
pub fn redeem(tx: &Conn, token: &str, now: i64) -> Result<Option<Invite>, AppError> {
    let invite = store::use_up(tx, &SecretToken::presented(token).hash(), now)?;
    if let Some(i) = &invite {
        store::use_up_all_for(tx, &i.email, now)?;
    }
    Ok(invite)
}

/// Redeems invitation `code` into a new standard-tier account named `name` with the password
/// hash `phc`, signed in with `session`, in one transaction. Returns where to go next: the
/// document's link when it is still this address's, else the account page; `None` when the
/// invitation was used, expired or unknown.
pub async fn create_account(
    db: &Db,
    code: String,
    name: String,
    phc: String,
    session: SecretToken,
) -> Result<Option<String>, AppError> {
    let now = crate::core::db::now;
    db.write(move |tx| {
        let Some(invite) = redeem(tx, &code, now())? else {
            return Ok(None);
        };
        let email = crate::identity::users::Email::parse(&invite.email)?;
        let user = crate::identity::users::store::insert(
            tx,
            &crate::identity::users::store::NewUser {
                email: &email,
                name: &name,
                username: None,
                tier: crate::identity::users::Tier::Standard,
                password_hash: &phc,
            },
            now(),
        )?;
        crate::identity::sessions::store::create(tx, user.id, &session, now())?;
        let back = match invite.recipient_id {
            Some(r) => {
                crate::signing::documents::store::recipients::token_for(tx, r, &invite.email)?
            }
            None => None,
        };
        Ok(Some(back.map_or_else(
            || "/account".to_string(),
            |t| format!("/sign/{t}"),
        )))
    })
    .await
}

/// The signup form, checked: the name to give the account and its new password.
pub struct Signup {
    name: String,
    password: String,
}

impl Signup {
    /// `name` (trimmed) and `password`, typed twice; otherwise the sentence the form shows.
    pub fn check(name: &str, password: &str, again: &str) -> Result<Signup, String> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
            return Err("Give your name (at most 100 characters).".into());
        }
        if let Err(e) = crate::identity::users::password::check_policy(password) {
            return Err(format!("Password: {}", e.public_message()));
        }
        if password != again {
            return Err("The two passwords differ.".into());
        }
        Ok(Signup {
            name: name.to_string(),
            password: password.to_string(),
        })
    }

    /// The name and the password, for another use case that makes an account by the same
    /// rules (a team's invitation).
    pub fn into_parts(self) -> (String, String) {
        (self.name, self.password)
    }
}

/// A new account, signed in.
#[derive(Debug)]
pub struct SignedUp {
    /// Where to go next: the document's link, or the account page.
    pub next: String,
    pub session: SecretToken,
}

/// Creates the account of invitation `code` from `form` (its password hashed within the bound
/// on password checks) and signs it in; `None` when the invitation was used, expired or unknown.
pub async fn sign_up(
    ctx: &Context,
    passwords: &PasswordChecks,
    code: String,
    form: Signup,
) -> Result<Option<SignedUp>, AppError> {
    let phc = passwords.hash(form.password).await?;
    let session = crate::identity::sessions::new_token();
    let next = create_account(&ctx.db, code, form.name, phc, session.clone()).await?;
    Ok(next.map(|next| SignedUp { next, session }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_needs_a_name_a_good_password_and_the_same_one_twice() {
        let long = "x".repeat(101);
        assert!(Signup::check(" ", "long enough pw", "long enough pw").is_err());
        assert!(Signup::check(&long, "long enough pw", "long enough pw").is_err());
        let short = Signup::check("Ada", "short", "short").err().unwrap();
        assert!(short.starts_with("Password: "), "{short}");
        let differ = Signup::check("Ada", "long enough pw", "long enough pX");
        assert_eq!(differ.err().as_deref(), Some("The two passwords differ."));
        let ok = Signup::check("  Ada  ", "long enough pw", "long enough pw").unwrap();
        assert_eq!(ok.name, "Ada");
    }

    #[tokio::test]
    async fn an_invitation_makes_one_signed_in_account() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let ctx = Context::for_tests(db.clone(), tmp.path());
        let token = SecretToken::generate("", 43);
        let hash = token.hash();
        // Without a recipient: the invitation leads to the account page.
        db.write(move |c| store::insert(c, "r@x.org", &hash, None, 0, 9_999_999_999))
            .await
            .unwrap();
        let code = token.expose().to_string();
        assert_eq!(
            live(&ctx, code.clone()).await.unwrap().map(|i| i.email),
            Some("r@x.org".to_string())
        );
        let checks = PasswordChecks::new(1);
        let form = || Signup::check("Rae", "long enough pw", "long enough pw").unwrap();
        let done = sign_up(&ctx, &checks, code.clone(), form())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(done.next, "/account");
        let user =
            crate::identity::sessions::login::signed_in(&db, done.session.expose().to_string())
                .await
                .unwrap()
                .unwrap();
        assert_eq!(
            (user.email.as_str(), user.name.as_str()),
            ("r@x.org", "Rae")
        );
        assert!(live(&ctx, code.clone()).await.unwrap().is_none());
        assert!(
            sign_up(&ctx, &checks, code, form())
                .await
                .unwrap()
                .is_none()
        );
    }
}
