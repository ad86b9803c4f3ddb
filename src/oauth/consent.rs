//! The consent step of an authorization request (`/auth/oauth2/authorize`): the request checked
//! against the client the database knows (`authorize::validate`), and the user's Allow, which
//! records the grant and issues the code in one transaction.

use rusqlite::Connection;

use super::authorize::{Invalid, Params, Valid, validate};
use super::tokens::{new_code, store};
use crate::crypto::SecretToken;
use crate::db::{Db, now};
use crate::error::AppError;

/// `params` checked against the client they name.
pub async fn check(db: &Db, params: &Params) -> Result<Result<Valid, Invalid>, AppError> {
    let id = params.client_id.clone().unwrap_or_default();
    let client = db.read(move |c| super::clients::store::get(c, &id)).await?;
    Ok(validate(params, client))
}

/// The user allowed the request: their grant to the client is created or widened, and a code
/// good for `code_ttl` seconds is issued on it.
pub async fn allow(
    db: &Db,
    user: i64,
    valid: Valid,
    code_ttl: i64,
) -> Result<SecretToken, AppError> {
    let code = new_code();
    let c = code.clone();
    db.write(move |tx| record(tx, user, &valid, &c, code_ttl, now()))
        .await?;
    Ok(code)
}

/// The writes of `allow`, inside the caller's transaction.
fn record(
    tx: &Connection,
    user: i64,
    v: &Valid,
    code: &SecretToken,
    ttl: i64,
    now: i64,
) -> Result<(), AppError> {
    let grant = store::upsert_grant(tx, user, v.client.row_id, &v.scopes, now)?;
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
        },
        now,
        ttl,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::clients::Registration;
    use crate::oauth::scope::Scope;
    use crate::oauth::tokens::Lifetimes;

    #[test]
    fn allowing_again_widens_the_one_grant_and_each_code_redeems() {
        let c = crate::db::memory();
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
            scope_text: crate::oauth::scope::join(&scopes),
            scopes,
            code_challenge: None,
            nonce: None,
        };
        let (first, second) = (new_code(), new_code());
        record(&c, 1, &valid(vec![Scope::ReadBooking]), &first, 600, 1).unwrap();
        record(&c, 1, &valid(vec![Scope::ReadProfile]), &second, 600, 2).unwrap();
        let grants = store::live_grants(&c, 1).unwrap();
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
        }
    }
}
