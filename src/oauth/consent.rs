//! The consent step of an authorization request (`/auth/oauth2/authorize`): the request checked
//! against the client the database knows (`authorize::validate`), whether the user already
//! allowed it (for `prompt=none`), and the user's Allow, which records the grant and issues the
//! code in one transaction.

use crate::core::context::Context;
use crate::core::db::Conn;
use crate::core::ids::UserId;

use super::authorize::{Invalid, Params, Valid, validate};
use super::prompt::Step;
use super::tokens::{new_code, store};
use crate::core::crypto::SecretToken;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::keyring::KeyRing;
use crate::identity::sessions::Session;

/// `params` checked against the client they name; docket's `login_since` mark counts only
/// when `ring` shows docket made it for these parameters (`login_mark`).
pub async fn check(
    ctx: &Context,
    ring: &KeyRing,
    params: &Params,
) -> Result<Result<Valid, Invalid>, AppError> {
    let id = params.client_id.clone().unwrap_or_default();
    let client = ctx
        .db
        .read(move |c| super::clients::store::get(c, &id))
        .await?;
    let mut checked = validate(params, client);
    if let Ok(valid) = &mut checked {
        valid.interaction.login_since = super::login_mark::read(ring, params, now());
    }
    Ok(checked)
}

/// What the authorization endpoint does next, with the session it goes on with. `T` is
/// whatever the caller keeps beside the session (its cookie).
#[derive(Debug)]
pub enum Next<T> {
    /// Redirect to the app with this error (`prompt=none` and a page would be needed).
    Refuse(&'static str),
    /// Sign in (again), and come back marked as signed in since `since`.
    Login { since: i64 },
    /// Issue the code without a page: `prompt=none`, everything asked already allowed.
    Silent(T, Session),
    /// Show the consent page.
    Consent(T, Session),
}

/// What the authorization endpoint does with `valid` for a browser with `session` (OpenID
/// Connect's `prompt` and `max_age`, `prompt::Interaction::step`): the grant is read only for
/// `prompt=none`, which may issue a code without a page when the user already allowed every
/// scope asked.
pub async fn next_step<T>(
    ctx: &Context,
    valid: &Valid,
    session: Option<(T, Session)>,
) -> Result<Next<T>, AppError> {
    let at = session.as_ref().map(|(_, s)| s.authenticated_at);
    let now = now();
    let granted = match &session {
        Some((_, s)) if valid.interaction.prompt.none && valid.interaction.may_decide(at, now) => {
            let (user, client, scopes) = (s.user.id, valid.client.row_id, valid.scopes.clone());
            ctx.db
                .read(move |c| store::grant_covers(c, user, client, &scopes))
                .await?
        }
        _ => false,
    };
    Ok(match (valid.interaction.step(at, granted, now), session) {
        (Step::Refuse(error), _) => Next::Refuse(error),
        (Step::Silent, Some((t, s))) => Next::Silent(t, s),
        (Step::Consent, Some((t, s))) => Next::Consent(t, s),
        (Step::Login { since }, _) => Next::Login { since },
        // `step` asks for a login whenever there is no session.
        (Step::Silent | Step::Consent, None) => Next::Login { since: now },
    })
}

/// The session that may allow or deny `valid` on the consent page now, or, when there is none
/// or it must sign in again first (`max_age` may have run out since the page was shown), the
/// time to mark that login with. `prompt=none` plays no part: it never shows the page.
pub fn decider<T>(valid: &Valid, session: Option<(T, Session)>) -> Result<(T, Session), i64> {
    let now = now();
    match session {
        Some((t, s)) if valid.interaction.may_decide(Some(s.authenticated_at), now) => Ok((t, s)),
        _ => Err(now),
    }
}

/// Who allows: the user, and when they signed in (the code carries it to the ID token).
#[derive(Debug, Clone, Copy)]
pub struct Allower {
    pub user: UserId,
    pub authenticated_at: i64,
}

impl Allower {
    pub fn of(session: &Session) -> Allower {
        Allower {
            user: session.user.id,
            authenticated_at: session.authenticated_at,
        }
    }
}

/// The user allowed the request: their grant to the client is created or widened, and a code
/// good for `code_ttl` seconds is issued on it.
pub async fn allow(
    ctx: &Context,
    who: Allower,
    valid: Valid,
    code_ttl: i64,
) -> Result<SecretToken, AppError> {
    let code = new_code();
    let c = code.clone();
    ctx.db
        .write(move |tx| record(tx, who, &valid, &c, code_ttl, now()))
        .await?;
    Ok(code)
}

/// `prompt=none`: a code for what the user already allowed, checked again in the transaction
/// that issues it (a grant revoked since `next_step` read it is not brought back); `None` when
/// the live grant no longer holds every scope asked.
pub async fn allow_silently(
    ctx: &Context,
    who: Allower,
    valid: Valid,
    code_ttl: i64,
) -> Result<Option<SecretToken>, AppError> {
    let code = new_code();
    let c = code.clone();
    let issued = ctx
        .db
        .write(move |tx| record_granted(tx, who, &valid, &c, code_ttl, now()))
        .await?;
    Ok(issued.then_some(code))
}

/// The writes of `allow_silently`: `false`, and nothing written, unless the live grant holds
/// every scope asked.
fn record_granted(
    tx: &Conn,
    who: Allower,
    v: &Valid,
    code: &SecretToken,
    ttl: i64,
    now: i64,
) -> Result<bool, AppError> {
    if !store::grant_covers(tx, who.user, v.client.row_id, &v.scopes)? {
        return Ok(false);
    }
    record(tx, who, v, code, ttl, now)?;
    Ok(true)
}

/// The writes of `allow`, inside the caller's transaction.
fn record(
    tx: &Conn,
    who: Allower,
    v: &Valid,
    code: &SecretToken,
    ttl: i64,
    now: i64,
) -> Result<(), AppError> {
    let grant = store::upsert_grant(tx, who.user, v.client.row_id, &v.scopes, now)?;
    store::insert_code(
        tx,
        code,
        &store::NewCode {
            grant,
            redirect_uri: &v.redirect_uri,
            scopes: &v.scope_text,
            code_challenge: v.code_challenge.as_deref(),
            nonce: v.nonce.as_deref(),
            redirect_uri_sent: v.redirect_uri_sent,
            auth_time: Some(who.authenticated_at),
        },
        now,
        ttl,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::scope::Scope;
    use crate::oauth::clients::Registration;
    use crate::oauth::tokens::Lifetimes;

    #[test]
    fn allowing_again_widens_the_one_grant_and_each_code_redeems() {
        let c = crate::core::db::memory();
        c.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);",
        )
        .unwrap();
        let uri = "https://app.example/cb".to_string();
        let reg = Registration::validate("App", std::slice::from_ref(&uri), None, None, false, &[])
            .unwrap();
        let (client, _) = crate::oauth::clients::store::insert(&c, &reg, 0).unwrap();
        let valid = |scopes: Vec<Scope>| Valid {
            client: client.clone(),
            redirect_uri: uri.clone(),
            redirect_uri_sent: true,
            state: Some("s".into()),
            scope_text: crate::identity::scope::join(&scopes),
            scopes,
            code_challenge: None,
            nonce: None,
            interaction: Default::default(),
            login_hint: None,
        };
        let (first, second) = (new_code(), new_code());
        let ada = Allower {
            user: UserId::new(1),
            authenticated_at: 0,
        };
        assert!(
            !store::grant_covers(&c, UserId::new(1), client.row_id, &[Scope::ReadBooking]).unwrap()
        );
        let silent = new_code();
        let asked = valid(vec![Scope::ReadBooking]);
        assert!(!record_granted(&c, ada, &asked, &silent, 600, 1).unwrap());
        assert!(
            store::live_grants(&c, UserId::new(1)).unwrap().is_empty(),
            "no grant made silently"
        );
        record(&c, ada, &valid(vec![Scope::ReadBooking]), &first, 600, 1).unwrap();
        assert!(record_granted(&c, ada, &asked, &silent, 600, 1).unwrap());
        assert!(
            store::grant_covers(&c, UserId::new(1), client.row_id, &[Scope::ReadBooking]).unwrap()
        );
        record(&c, ada, &valid(vec![Scope::ReadProfile]), &second, 600, 2).unwrap();
        let both = [Scope::ReadProfile, Scope::ReadBooking];
        assert!(store::grant_covers(&c, UserId::new(1), client.row_id, &both).unwrap());
        assert!(!store::grant_covers(&c, UserId::new(1), client.row_id, &[Scope::OpenId]).unwrap());
        let grants = store::live_grants(&c, UserId::new(1)).unwrap();
        assert_eq!(grants.len(), 1);
        assert_eq!(
            grants[0].scopes,
            vec![Scope::ReadBooking, Scope::ReadProfile]
        );
        for (code, scope) in [(&first, Scope::ReadBooking), (&second, Scope::ReadProfile)] {
            let redemption = store::Redemption {
                client: client.row_id,
                code: code.expose(),
                redirect_uri: Some(&uri),
                code_verifier: None,
            };
            let issued = store::redeem_code(&c, &redemption, Lifetimes::default(), 3)
                .unwrap()
                .unwrap();
            assert_eq!(issued.scopes, vec![scope], "a code carries what was asked");
            assert_eq!(issued.identity.unwrap().auth_time, Some(0));
        }
    }
}
