//! Authorization codes: stored as hashes, redeemed once for a pair of tokens (a second
//! redemption revokes what the first issued).
use super::*;

/// What a code is bound to.
pub struct NewCode<'a> {
    pub grant: GrantId,
    pub redirect_uri: &'a str,
    /// The scopes in the names the app asked with (`scope::Spelled::text`).
    pub scopes: &'a str,
    pub code_challenge: Option<&'a str>,
    pub nonce: Option<&'a str>,
    /// The authorization request named `redirect_uri` (the token request must repeat it).
    pub redirect_uri_sent: bool,
    /// When the user last signed in (password, and second factor if any): the ID token's
    /// `auth_time`.
    pub auth_time: Option<i64>,
}

pub fn insert_code(
    tx: &Conn,
    code: &SecretToken,
    new: &NewCode<'_>,
    now: i64,
    ttl: i64,
) -> Result<(), AppError> {
    tx.execute(
        "INSERT INTO oauth_codes (code_hash, grant_id, redirect_uri, scopes, code_challenge, created_at, expires_at, nonce, redirect_uri_sent, auth_time)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            code.hash(),
            new.grant,
            new.redirect_uri,
            new.scopes,
            new.code_challenge,
            now,
            now + ttl,
            new.nonce,
            new.redirect_uri_sent,
            new.auth_time
        ],
    )?;
    Ok(())
}

/// What the token endpoint asks of a code.
pub struct Redemption<'a> {
    pub client: ClientId,
    pub code: &'a str,
    pub redirect_uri: Option<&'a str>,
    pub code_verifier: Option<&'a str>,
}

/// A stored code with its grant, as `redeem_code` checks it.
pub(super) struct StoredCode {
    id: i64,
    grant: GrantId,
    client: ClientId,
    redirect_uri: String,
    scopes: String,
    challenge: Option<String>,
    expires_at: i64,
    used_at: Option<i64>,
    /// The grant is not revoked and its user not disabled.
    live: bool,
    user: UserId,
    nonce: Option<String>,
    redirect_uri_sent: bool,
    auth_time: Option<i64>,
}

pub(super) fn find_code(tx: &Conn, hash: &str) -> Result<Option<StoredCode>, AppError> {
    Ok(tx
        .query_row(
            "SELECT c.id, c.grant_id, g.client_id, c.redirect_uri, c.scopes, c.code_challenge,
                    c.expires_at, c.used_at,
                    (g.revoked_at IS NULL AND u.disabled_at IS NULL), g.user_id, c.nonce,
                    c.redirect_uri_sent, c.auth_time
               FROM oauth_codes c
               JOIN oauth_grants g ON g.id = c.grant_id
               JOIN users u ON u.id = g.user_id
              WHERE c.code_hash = ?1",
            [hash],
            |r| {
                Ok(StoredCode {
                    id: r.get(0)?,
                    grant: r.get(1)?,
                    client: r.get(2)?,
                    redirect_uri: r.get(3)?,
                    scopes: r.get(4)?,
                    challenge: r.get(5)?,
                    expires_at: r.get(6)?,
                    used_at: r.get(7)?,
                    live: r.get(8)?,
                    user: r.get(9)?,
                    nonce: r.get(10)?,
                    redirect_uri_sent: r.get(11)?,
                    auth_time: r.get(12)?,
                })
            },
        )
        .optional()?)
}

/// Redeems a code once. A second use revokes every token issued from it. The outer `Result` is
/// a database failure (roll back); the inner one a protocol answer (commit either way, so that
/// the revocation of a reused code sticks).
pub fn redeem_code(
    tx: &Conn,
    req: &Redemption<'_>,
    life: Lifetimes,
    now: i64,
) -> Result<Result<Issued, OAuthError>, AppError> {
    let hash = SecretToken::presented(req.code).hash();
    let bad = |d: &str| Ok(Err(OAuthError::invalid_grant(d)));
    let Some(code) = find_code(tx, &hash)? else {
        return bad("the authorization code is invalid");
    };
    if code.client != req.client {
        return bad("the authorization code was issued to another client");
    }
    if code.used_at.is_some() {
        revoke_code_tokens(tx, code.id, now)?;
        return bad("the authorization code was already used");
    }
    // Single use, checked in SQL: only one redemption can flip `used_at`.
    let flipped = tx.execute(
        "UPDATE oauth_codes SET used_at = ?2 WHERE id = ?1 AND used_at IS NULL",
        params![code.id, now],
    )?;
    if flipped != 1 {
        return bad("the authorization code was already used");
    }
    if code.expires_at <= now {
        return bad("the authorization code has expired");
    }
    if !code.live {
        return bad("the authorization was revoked or the user is disabled");
    }
    if let Err(e) = check_redemption(&code, req) {
        return Ok(Err(e));
    }
    let scopes = code.scopes.as_str();
    let mut issued = issue(
        tx,
        code.grant,
        Some(code.id),
        scopes,
        Some(scopes),
        life,
        now,
        None,
    )?;
    issued.identity = Some(super::super::Identity {
        user: code.user,
        nonce: code.nonce,
        auth_time: code.auth_time,
    });
    Ok(Ok(issued))
}

/// A reused code: every token issued from it is revoked.
pub(super) fn revoke_code_tokens(tx: &Conn, code_id: i64, now: i64) -> Result<(), AppError> {
    tx.note_revocation();
    let n = tx.execute(
        "UPDATE oauth_tokens SET revoked_at = ?2 WHERE code_id = ?1 AND revoked_at IS NULL",
        params![code_id, now],
    )?;
    tracing::warn!(
        code_id,
        revoked = n,
        "authorization code reused; its tokens are revoked"
    );
    Ok(())
}

/// The request repeats the code's `redirect_uri` (needed when the authorization request named
/// it, RFC 6749 4.1.3) and proves its PKCE challenge, if any.
pub(super) fn check_redemption(code: &StoredCode, req: &Redemption<'_>) -> Result<(), OAuthError> {
    let bad = |d: &str| Err(OAuthError::invalid_grant(d));
    match req.redirect_uri {
        Some(uri) if uri == code.redirect_uri => {}
        Some(_) => return bad("redirect_uri does not match the one used to get the code"),
        None if !code.redirect_uri_sent => {}
        None => return Err(OAuthError::invalid_request("redirect_uri is required")),
    }
    match (code.challenge.as_deref(), req.code_verifier) {
        (Some(ch), Some(v)) => {
            if !super::super::verifier_is_well_formed(v) || !super::super::pkce_matches(v, ch) {
                return bad("code_verifier does not match the code_challenge");
            }
        }
        (Some(_), None) => return bad("code_verifier is required: the code was issued with PKCE"),
        (None, Some(_)) => return bad("code_verifier given, but the code was issued without PKCE"),
        (None, None) => {}
    }
    Ok(())
}
