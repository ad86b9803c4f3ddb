//! "Forgot password?": the mailed one-time link, its expiry, and the throttle on asking.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn a_forgotten_password_is_reset_once_by_the_mailed_link_and_every_session_ends() {
    let (smtp, app) = with_mail().await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    let laptop = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let phone = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();

    // The same answer, in the same time class, for an address with an account and without.
    let form = LoginForm::open(&app, "/auth/forgot").await;
    let started = Instant::now();
    let (s, known) = forgot(&app, &form, "Ada@Example.com").await;
    let known_took = started.elapsed();
    assert_eq!(s, 200, "{known}");
    let started = Instant::now();
    let (s, unknown) = forgot(&app, &form, "nobody@example.com").await;
    let unknown_took = started.elapsed();
    assert_eq!(s, 200, "{unknown}");
    assert_eq!(
        known.replace("ada@example.com", "ADDRESS"),
        unknown.replace("nobody@example.com", "ADDRESS")
    );
    assert!(
        known.contains("If a Docket account signs in with"),
        "{known}"
    );
    assert!(
        known_took < Duration::from_secs(1) && unknown_took < Duration::from_secs(1),
        "no answer waits for the mail: {known_took:?} {unknown_took:?}"
    );
    // A malformed address is told so (whoever asks).
    let (s, page) = forgot(&app, &form, "not an address").await;
    assert_eq!(s, 422);
    assert!(page.contains("Enter your e-mail address"), "{page}");

    let mail = nth_mail_to(&smtp, "ada@example.com", 1).await;
    assert_eq!(mail["subject"], "Choose a new Docket password");
    let link = link_in(&mail, "/auth/reset/");
    let token = link.trim_start_matches("/auth/reset/").to_string();
    // Only the token's hash is stored.
    let stored: Vec<String> = app
        .db()
        .query_map("SELECT token_hash FROM account_links", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert!(!stored[0].contains(&token));

    // The rules of sign-up: long enough, typed twice the same.
    let (s, _) = reset(&app, &link, "short", "short").await;
    assert_eq!(s, 422);
    let (s, _) = reset(&app, &link, NEW_PASSWORD, "another one entirely").await;
    assert_eq!(s, 422);
    let (s, location) = reset(&app, &link, NEW_PASSWORD, NEW_PASSWORD).await;
    assert_eq!(s, 303);
    assert!(
        location.starts_with("/auth/login?done=reset&email=ada%40example.com"),
        "{location}"
    );
    let (s, _, page) = get(&app, &location, "").await;
    assert_eq!(s, 200);
    assert!(page.contains("Your password was changed"), "{page}");

    // Every session ended; the new password works, the old one does not.
    assert!(!signed_in(&app, &laptop).await);
    assert!(!signed_in(&app, &phone).await);
    assert_eq!(
        sign_in(&app, "ada@example.com", PASSWORD)
            .await
            .unwrap_err(),
        401
    );
    let again = sign_in(&app, "ada@example.com", NEW_PASSWORD)
        .await
        .unwrap();
    assert!(signed_in(&app, &again).await);

    // The link works once.
    let (s, _, page) = get(&app, &link, "").await;
    assert_eq!(s, 410);
    assert!(page.contains("This link has expired"), "{page}");
    assert_eq!(
        reset(&app, &link, "yet another phrase", "yet another phrase")
            .await
            .0,
        410
    );

    // The account is told; nothing went to the address without an account.
    let notice = mail_saying(&smtp, "ada@example.com", "password was reset").await;
    assert_eq!(notice["subject"], "Your Docket sign-in security changed");
    let queued = docket_json(&app.data_dir(), &["mail", "list"], None);
    assert!(
        queued
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["to"] != "nobody@example.com"),
        "{queued}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn an_expired_reset_link_is_refused_and_asking_is_throttled() {
    let (smtp, app) = with_mail().await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    let form = LoginForm::open(&app, "/auth/forgot").await;
    assert_eq!(forgot(&app, &form, "ada@example.com").await.0, 200);
    let link = link_in(
        &nth_mail_to(&smtp, "ada@example.com", 1).await,
        "/auth/reset/",
    );
    // An hour later (the row's expiry moved back rather than waiting): refused, nothing changes.
    app.db_rw()
        .execute(
            "UPDATE account_links SET expires_at = ?1",
            docket::params![docket::core::db::now() - 1],
        )
        .unwrap();
    let (s, _) = reset(&app, &link, NEW_PASSWORD, NEW_PASSWORD).await;
    assert_eq!(s, 410);
    assert!(sign_in(&app, "ada@example.com", PASSWORD).await.is_ok());

    // Three links an hour to one address, whether or not it has an account; then 429.
    for _ in 0..2 {
        assert_eq!(forgot(&app, &form, "ada@example.com").await.0, 200);
    }
    for _ in 0..3 {
        assert_eq!(forgot(&app, &form, "ghost@example.com").await.0, 200);
    }
    let (s, known) = forgot(&app, &form, "ada@example.com").await;
    let (s2, unknown) = forgot(&app, &form, "ghost@example.com").await;
    assert_eq!((s, s2), (429, 429));
    assert!(known.contains("Too many links were asked for"), "{known}");
    assert_eq!(
        known.replace("ada@example.com", "X"),
        unknown.replace("ghost@example.com", "X")
    );
    // Twelve requests an hour from one client address, whatever the addresses.
    for i in 0..6 {
        let (s, _) = forgot(&app, &form, &format!("p{i}@example.com")).await;
        assert_eq!(s, 200, "request {i}");
    }
    let (s, _) = forgot(&app, &form, "p9@example.com").await;
    assert_eq!(s, 429, "the client asked twelve times this hour");
    nth_mail_to(&smtp, "ada@example.com", 3).await;
    assert_eq!(mail_to(&smtp, "ada@example.com").len(), 3);
    app.stop().await;
}
