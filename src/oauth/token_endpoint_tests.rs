use super::*;
use crate::core::ids::UserId;
use crate::oauth::clients::Registration;
use crate::{oauth::tokens, oauth::tokens::store::NewCode};

const LIFE: Lifetimes = Lifetimes {
    access: 3600,
    refresh: 86_400,
    code: 600,
};
const REDIRECT: &str = "https://app.example/cb";

fn fields(pairs: &[(&str, &str)]) -> Fields {
    let obj: serde_json::Map<String, serde_json::Value> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
        .collect();
    serde_json::from_value(serde_json::Value::Object(obj)).expect("every parameter is optional")
}

fn request(endpoint: Endpoint, pairs: &[(&str, &str)]) -> Request {
    Request {
        endpoint,
        fields: fields(pairs),
        basic: None,
        bearer: None,
    }
}

/// A user, a confidential client and a code the user allowed it: `(client row, code)`.
fn allowed(c: &Conn) -> (ClientId, String) {
    allowed_at(c, 0)
}

/// `allowed`, the code made at `at`.
fn allowed_at(c: &Conn, at: i64) -> (ClientId, String) {
    c.execute_batch(
        "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
         VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);",
    )
    .unwrap();
    let reg =
        Registration::validate("App", &[REDIRECT.to_string()], None, None, false, &[]).unwrap();
    let (client, _) = crate::oauth::clients::store::insert(c, &reg, 0).unwrap();
    let scopes = [Scope::ReadProfile];
    let grant = store::upsert_grant(c, UserId::new(1), client.row_id, &scopes, at).unwrap();
    let code = tokens::new_code();
    let new = NewCode {
        grant,
        redirect_uri: REDIRECT,
        scopes: &scope::join(&scopes),
        code_challenge: None,
        nonce: None,
        redirect_uri_sent: true,
        auth_time: Some(0),
    };
    store::insert_code(c, &code, &new, at, LIFE.code).unwrap();
    (client.row_id, code.expose().to_string())
}

fn redeem(code: &str) -> Ask {
    Ask::Code {
        code: code.to_string(),
        redirect_uri: Some(REDIRECT.to_string()),
        verifier: None,
    }
}

/// Rotates `client_id`'s secret as the CLI does (a revocation): the new secret.
async fn rotated(db: &Db, client_id: &str) -> String {
    let id = client_id.to_string();
    db.write(move |c| {
        Ok(crate::oauth::clients::store::rotate_secret(c, &id, now())?
            .expose()
            .to_string())
    })
    .await
    .unwrap()
}

fn issued_tokens(outcome: Outcome) -> Tokens {
    match outcome.unwrap() {
        Ok(Answer::Tokens(t)) => t,
        other => panic!("expected tokens, got {other:?}"),
    }
}

fn refused(outcome: Outcome) -> OAuthError {
    match outcome.unwrap() {
        Err(e) => e,
        Ok(other) => panic!("expected a refusal, got {other:?}"),
    }
}

fn is_live(c: &Conn, access: &str) -> bool {
    store::authenticate_access(c, access, 10).unwrap().is_some()
}

#[test]
fn a_reused_code_is_refused_and_revokes_what_it_issued() {
    let c = crate::core::db::memory();
    let (client, code) = allowed(&c);
    let first = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
    let access = first.issued.access.expose().to_string();
    assert!(first.refresh_token().is_some());
    assert!(is_live(&c, &access));
    let again = refused(run(&c, client, redeem(&code), LIFE, 2));
    assert_eq!(again.error, "invalid_grant");
    assert!(!is_live(&c, &access), "the replay revoked the first tokens");
}

#[test]
fn a_rotated_refresh_token_presented_again_ends_the_grant() {
    let c = crate::core::db::memory();
    let (client, code) = allowed(&c);
    let first = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
    let old = first.refresh_token().unwrap().to_string();
    let refresh = |token: &str| Ask::Refresh {
        token: token.to_string(),
        scopes: None,
        rotate: true,
    };
    let second = issued_tokens(run(&c, client, refresh(&old), LIFE, 2));
    let new = second.refresh_token().unwrap().to_string();
    assert_ne!(new, old, "rotation issues a new refresh token");
    assert!(second.kept_refresh.is_none());
    let access = second.issued.access.expose().to_string();
    assert!(is_live(&c, &access));
    assert_eq!(
        refused(run(&c, client, refresh(&old), LIFE, 3)).error,
        "invalid_grant"
    );
    assert!(!is_live(&c, &access), "the grant's tokens are revoked");
    assert_eq!(
        refused(run(&c, client, refresh(&new), LIFE, 4)).error,
        "invalid_grant",
        "the new refresh token died with the grant"
    );
}

/// The statements that update `oauth_grants` while `f` runs: every statement is compiled
/// again once the authorizer is set, and the authorizer sees what each one writes.
fn grant_updates(c: &Conn, f: impl FnOnce()) -> usize {
    use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let seen = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let sqlite = c.as_sqlite().unwrap();
    sqlite
        .authorizer(Some(move |ctx: AuthContext<'_>| {
            if let AuthAction::Update {
                table_name: "oauth_grants",
                ..
            } = ctx.action
            {
                counter.fetch_add(1, Ordering::Relaxed);
            }
            Authorization::Allow
        }))
        .unwrap();
    f();
    sqlite
        .authorizer(None::<fn(AuthContext<'_>) -> Authorization>)
        .unwrap();
    seen.load(Ordering::Relaxed)
}

#[test]
fn a_refresh_within_a_minute_of_the_grants_last_use_sends_no_update_of_the_grant() {
    let c = crate::core::db::memory();
    let (client, code) = allowed(&c);
    let first = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
    let refresh = Ask::Refresh {
        token: first.refresh_token().unwrap().to_string(),
        scopes: None,
        rotate: false,
    };
    let last_used = |c: &Conn| -> i64 {
        c.query_row("SELECT last_used_at FROM oauth_grants", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(last_used(&c), 1);
    let within = grant_updates(&c, || {
        issued_tokens(run(&c, client, refresh.clone(), LIFE, 61));
    });
    assert_eq!(within, 0, "used at 1, refreshed at 61: nothing to write");
    assert_eq!(last_used(&c), 1);
    let after = grant_updates(&c, || {
        issued_tokens(run(&c, client, refresh.clone(), LIFE, 62));
    });
    assert_eq!(after, 1, "a minute and more since its last use");
    assert_eq!(last_used(&c), 62);
}

#[test]
fn without_rotation_a_refresh_answers_with_the_presented_refresh_token() {
    let c = crate::core::db::memory();
    let (client, code) = allowed(&c);
    let first = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
    let presented = first.refresh_token().unwrap().to_string();
    let refresh = Ask::Refresh {
        token: presented.clone(),
        scopes: Some(scope::parse_spelled("READ_PROFILE").unwrap()),
        rotate: false,
    };
    let echoed = issued_tokens(run(&c, client, refresh.clone(), LIFE, 2));
    assert_eq!(echoed.refresh_token(), Some(presented.as_str()));
    assert!(echoed.issued.refresh.is_none(), "no new refresh token");
    let again = issued_tokens(run(&c, client, refresh, LIFE, 3));
    assert_eq!(
        again.refresh_token(),
        Some(presented.as_str()),
        "still good"
    );
}

#[test]
fn revocation_and_introspection_see_only_the_callers_tokens() {
    let c = crate::core::db::memory();
    let (client, code) = allowed(&c);
    let t = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
    let access = t.issued.access.expose().to_string();
    let look = |who| match run(&c, who, Ask::Introspect(access.clone()), LIFE, 2) {
        Ok(Ok(Answer::Introspected(i))) => i,
        other => panic!("{other:?}"),
    };
    assert!(
        look(ClientId::new(client.get() + 1)).is_none(),
        "another client learns nothing"
    );
    assert_eq!(look(client).unwrap().kind, store::Kind::Access);
    let revoke = |who| run(&c, who, Ask::Revoke(access.clone()), LIFE, 3).unwrap();
    assert!(matches!(
        revoke(ClientId::new(client.get() + 1)),
        Ok(Answer::Revoked)
    ));
    assert!(is_live(&c, &access), "another client cannot revoke it");
    assert!(matches!(revoke(client), Ok(Answer::Revoked)));
    assert!(look(client).is_none());
}

/// Introspection of a live access token is remembered for a second (`verified::Caches::introspected`):
/// a change this process did not note (another node's, simulated by deleting the row) shows
/// only after that second, while a revocation, a rotated client secret or a wrong secret is
/// refused at once, and another client is never answered from what was shown to this one.
#[tokio::test]
async fn introspection_is_remembered_for_a_second_and_forgotten_at_a_revocation() {
    let db = Db::memory();
    let caches = Caches::new();
    let other =
        Registration::validate("Other", &[REDIRECT.to_string()], None, None, false, &[]).unwrap();
    let (own_client, own_secret, other_client, other_secret, access, refresh) = db
        .write(move |c| {
            let (client, code) = allowed_at(c, now());
            let own = crate::oauth::clients::store::list(c)?[0].clone();
            let t = issued_tokens(run(c, client, redeem(&code), LIFE, now()));
            let (other, other_secret) = crate::oauth::clients::store::insert(c, &other, 0)?;
            // `allowed` made the first client; its secret is set here, so the test knows it.
            let secret = crate::oauth::clients::store::rotate_secret(c, &own.client_id, 0)?;
            Ok((
                own.client_id,
                secret.expose().to_string(),
                other.client_id,
                other_secret.unwrap().expose().to_string(),
                t.issued.access.expose().to_string(),
                t.refresh_token().unwrap().to_string(),
            ))
        })
        .await
        .unwrap();
    let policy = Policy {
        lifetimes: LIFE,
        rotate_refresh_tokens: false,
    };
    let ask = |client: &str, secret: &str, token: &str| {
        let mut req = request(Endpoint::Introspect, &[("token", token)]);
        req.basic = Some((client.to_string(), secret.to_string()));
        introspect(
            &db,
            &caches,
            policy,
            client.to_string(),
            Some(secret.to_string()),
            req,
        )
    };
    let shown = |outcome: Outcome| match outcome.unwrap() {
        Ok(Answer::Introspected(i)) => i,
        other => panic!("{other:?}"),
    };
    assert!(shown(ask(&own_client, &own_secret, &access).await).is_some());
    let forget = |token: String| async {
        db.write(move |c| {
            let hash = crate::core::crypto::SecretToken::presented(&token).hash();
            c.execute("DELETE FROM oauth_tokens WHERE token_hash = ?1", [hash])?;
            Ok(())
        })
        .await
        .unwrap()
    };
    forget(access.clone()).await;
    assert!(
        shown(ask(&own_client, &own_secret, &access).await).is_some(),
        "remembered: the deletion was not noted as a revocation"
    );
    assert_eq!(
        refused(ask(&own_client, "wrong", &access).await).error,
        "invalid_client",
        "the client proves itself at every request"
    );
    assert!(
        shown(ask(&other_client, &other_secret, &access).await).is_none(),
        "another client is answered by the database"
    );
    tokio::time::sleep(super::super::verified::TRUST_FOR).await;
    assert!(
        shown(ask(&own_client, &own_secret, &access).await).is_none(),
        "after its second"
    );

    // A token revoked here, or a secret rotated here, is refused at once.
    async fn refreshed(db: &Db, refresh: &str) -> (ClientId, String) {
        let refresh = refresh.to_string();
        db.write(move |c| {
            let client_row = crate::oauth::clients::store::list(c)?[0].row_id;
            let ask = Ask::Refresh {
                token: refresh,
                scopes: None,
                rotate: false,
            };
            let t = issued_tokens(run(c, client_row, ask, LIFE, now()));
            Ok((client_row, t.issued.access.expose().to_string()))
        })
        .await
        .unwrap()
    }
    let (row, second) = refreshed(&db, &refresh).await;
    assert!(shown(ask(&own_client, &own_secret, &second).await).is_some());
    let revoked = second.clone();
    db.write(move |c| Ok(run(c, row, Ask::Revoke(revoked), LIFE, now())))
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(shown(ask(&own_client, &own_secret, &second).await).is_none());
    let (_, third) = refreshed(&db, &refresh).await;
    assert!(shown(ask(&own_client, &own_secret, &third).await).is_some());
    let new_secret = rotated(&db, &own_client).await;
    assert_eq!(
        refused(ask(&own_client, &own_secret, &third).await).error,
        "invalid_client",
        "the old secret, at once"
    );
    assert!(shown(ask(&own_client, &new_secret, &third).await).is_some());
}

/// A client that proved itself at the token endpoint is remembered for a second
/// (`verified::Caches::clients`): its removal by another node (simulated by deleting the row
/// unnoted) shows only after that second, while a wrong secret is refused at every request
/// and a secret rotated or a client removed here is seen at once.
#[tokio::test]
async fn a_client_is_remembered_for_a_second_and_forgotten_when_its_secret_changes() {
    let db = Db::memory();
    let caches = Caches::new();
    let (client_id, secret) = db
        .write(move |c| {
            allowed_at(c, now());
            let own = crate::oauth::clients::store::list(c)?[0].clone();
            let secret = crate::oauth::clients::store::rotate_secret(c, &own.client_id, 0)?;
            Ok((own.client_id, secret.expose().to_string()))
        })
        .await
        .unwrap();
    let policy = Policy {
        lifetimes: LIFE,
        rotate_refresh_tokens: false,
    };
    let req = request(
        Endpoint::Token,
        &[("grant_type", "refresh_token"), ("refresh_token", "r")],
    );
    let admits = |secret: &str| {
        let (db, caches, id, secret, req) =
            (&db, &caches, client_id.clone(), secret.to_string(), &req);
        async move {
            match admitted(db, caches, id, Some(&secret), req, policy)
                .await
                .unwrap()
            {
                Ok((client, _)) => Ok(client.client_id),
                Err(e) => Err(e.error),
            }
        }
    };
    let removed_unnoted = || {
        let id = client_id.clone();
        db.write(move |c| {
            c.execute("DELETE FROM oauth_clients WHERE client_id = ?1", [id])?;
            Ok(())
        })
    };
    assert_eq!(admits(&secret).await, Ok(client_id.clone()));
    assert_eq!(
        admits("wrong").await,
        Err("invalid_client"),
        "the secret is checked at every request"
    );

    // A secret rotated here: the old one is refused at once.
    let new_secret = rotated(&db, &client_id).await;
    assert_eq!(admits(&secret).await, Err("invalid_client"), "at once");
    assert_eq!(admits(&new_secret).await, Ok(client_id.clone()));

    // Removed without a note (another node): remembered until its second ends.
    removed_unnoted().await.unwrap();
    assert_eq!(
        admits(&new_secret).await,
        Ok(client_id.clone()),
        "remembered: the removal was not noted as a revocation"
    );
    tokio::time::sleep(super::super::verified::TRUST_FOR).await;
    assert_eq!(
        admits(&new_secret).await,
        Err("invalid_client"),
        "after its second"
    );

    // Removed here: refused at once, though it proved itself a moment before.
    let other =
        Registration::validate("Other", &[REDIRECT.to_string()], None, None, false, &[]).unwrap();
    let again = db
        .write(move |c| {
            let (other, secret) = crate::oauth::clients::store::insert(c, &other, 0)?;
            Ok((other.client_id, secret.unwrap().expose().to_string()))
        })
        .await
        .unwrap();
    let ask = |secret: &str| {
        let (db, caches, id, secret, req) =
            (&db, &caches, again.0.clone(), secret.to_string(), &req);
        async move {
            admitted(db, caches, id, Some(&secret), req, policy)
                .await
                .unwrap()
                .is_ok()
        }
    };
    assert!(ask(&again.1).await);
    let id = again.0.clone();
    db.write(move |c| crate::oauth::clients::store::remove(c, &id).map(drop))
        .await
        .unwrap();
    assert!(!ask(&again.1).await, "at once");
}

#[test]
fn one_query_reads_the_client_with_its_uris_and_what_introspection_shows_it() {
    let c = crate::core::db::memory();
    let (client, code) = allowed(&c);
    let access = issued_tokens(run(&c, client, redeem(&code), LIFE, 1))
        .issued
        .access
        .expose()
        .to_string();
    let uris = [
        "https://b.example/2".to_string(),
        "https://a.example/1".into(),
    ];
    let reg = Registration::validate("Other", &uris, None, None, false, &[]).unwrap();
    let (other, _) = crate::oauth::clients::store::insert(&c, &reg, 0).unwrap();
    let unknown = crate::oauth::clients::store::get(&c, "x").unwrap();
    assert!(unknown.is_none(), "no such client");
    let own_id = crate::oauth::clients::store::list(&c).unwrap()[0]
        .client_id
        .clone();
    let (found, shown) = store::client_and_introspection(&c, &own_id, &access, 2)
        .unwrap()
        .unwrap();
    assert_eq!(
        (found.row_id, found.redirect_uris),
        (client, vec![REDIRECT.to_string()])
    );
    let shown = shown.expect("the client's own live token");
    assert_eq!(
        (shown.kind, shown.client_id),
        (store::Kind::Access, own_id.clone())
    );
    assert!(
        store::client_and_introspection(&c, &own_id, &access, LIFE.access + 1)
            .unwrap()
            .unwrap()
            .1
            .is_none(),
        "an expired token shows nothing"
    );
    let (found, shown) = store::client_and_introspection(&c, &other.client_id, &access, 2)
        .unwrap()
        .unwrap();
    assert_eq!(found.redirect_uris, uris, "every URI, in order");
    assert!(shown.is_none(), "another client's token shows nothing");
    assert!(
        store::client_and_introspection(&c, "nobody", &access, 2)
            .unwrap()
            .is_none()
    );
}

#[test]
fn client_credentials_come_one_way_only() {
    let basic = ("id".to_string(), "s".to_string());
    let f = fields(&[("client_secret", "s")]);
    assert_eq!(
        client_credentials(Some(&basic), &f).unwrap_err().error,
        "invalid_request"
    );
    let f = fields(&[("client_id", "other")]);
    assert!(client_credentials(Some(&basic), &f).is_err());
    let f = fields(&[("client_id", "id")]);
    assert_eq!(
        client_credentials(Some(&basic), &f).unwrap(),
        ("id".to_string(), Some("s".to_string()))
    );
    assert_eq!(
        client_credentials(None, &f).unwrap(),
        ("id".to_string(), None)
    );
    assert_eq!(
        client_credentials(None, &fields(&[])).unwrap_err().error,
        "invalid_client"
    );
}

#[test]
fn asks_name_their_grant_and_parameters() {
    let client = |public| Client {
        row_id: ClientId::new(1),
        client_id: "c".into(),
        name: "C".into(),
        redirect_uris: vec![REDIRECT.into()],
        logo_url: None,
        app_url: None,
        public,
        allowed_scopes: None,
        created_at: 0,
        secret_hash: None,
    };
    let policy = Policy {
        lifetimes: LIFE,
        rotate_refresh_tokens: false,
    };
    let code = request(
        Endpoint::Token,
        &[("grant_type", "authorization_code"), ("code", "x")],
    );
    assert!(matches!(
        ask(&code, &client(false), policy),
        Ok(Ask::Code { .. })
    ));
    let mut seed = request(Endpoint::Refresh, &[]);
    seed.bearer = Some("dkr_x".into());
    assert_eq!(
        ask(&seed, &client(true), policy).unwrap(),
        Ask::Refresh {
            token: "dkr_x".into(),
            scopes: None,
            rotate: true,
        },
        "public clients always rotate"
    );
    let wrong = request(Endpoint::Token, &[("grant_type", "password")]);
    assert_eq!(
        ask(&wrong, &client(false), policy).unwrap_err().error,
        "unsupported_grant_type"
    );
    let scope = request(
        Endpoint::Token,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", "r"),
            ("scope", "NOPE"),
        ],
    );
    assert_eq!(
        ask(&scope, &client(false), policy).unwrap_err().error,
        "invalid_scope"
    );
    let revoke = request(Endpoint::Revoke, &[]);
    assert_eq!(
        ask(&revoke, &client(false), policy)
            .unwrap_err()
            .description,
        "token is required"
    );
}
