//! The authorization endpoint: its query and the consent form.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorize_reads_the_last_value_and_ignores_unknown_names() {
    let app = TestApp::spawn().await;
    let (id, _) = setup(&app, &[]);
    let id = id.as_str();
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let base = [
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("state", "s1"),
        ("scope", "READ_PROFILE"),
    ];
    let with = |extra: &[(&'static str, &str)]| {
        let mut p: Vec<(&str, &str)> = base.to_vec();
        p.extend_from_slice(extra);
        authorize_url(&app, &p)
    };

    // The page: the last client_id counts, an unknown parameter is ignored.
    let page = get(
        &app,
        &with(&[("client_id", "nobody"), ("client_id", id), ("x", "1")]),
        Some(&cookie),
    )
    .await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    let carried = hidden_inputs(&html);
    assert!(!carried.iter().any(|(k, _)| k == "x"), "{carried:?}");
    assert_eq!(carried.iter().filter(|(k, _)| k == "client_id").count(), 1);
    let page = get(
        &app,
        &with(&[("client_id", id), ("client_id", "nobody")]),
        Some(&cookie),
    )
    .await;
    assert_eq!(page.status(), 400);
    assert!(location(&page).is_empty());
    // Missing client_id: the error page; a wrong last response_type: the error redirect.
    let page = get(&app, &with(&[]), Some(&cookie)).await;
    assert_eq!(page.status(), 400);
    assert!(location(&page).is_empty());
    let refused = get(
        &app,
        &with(&[("client_id", id), ("response_type", "token")]),
        Some(&cookie),
    )
    .await;
    assert_eq!(refused.status(), 303);
    let to = location(&refused);
    assert!(to.starts_with(REDIRECT), "{to}");
    assert_eq!(
        param(&to, "error").as_deref(),
        Some("unsupported_response_type"),
        "{to}"
    );
    assert_eq!(param(&to, "state").as_deref(), Some("s1"), "{to}");
    // Missing scope and response_type: their defaults; a missing state with no PKCE: the
    // consent page (issue 57), but the error redirect for a silent request (`prompt=none`).
    let no_scope = authorize_url(&app, &[("client_id", id), ("state", "s")]);
    let page = get(&app, &no_scope, Some(&cookie)).await;
    assert_eq!(page.status(), 200);
    let mut no_state = vec![
        ("client_id", id),
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("scope", "READ_PROFILE"),
    ];
    let page = get(&app, &authorize_url(&app, &no_state), Some(&cookie)).await;
    assert_eq!(page.status(), 200);
    no_state.push(("prompt", "none"));
    let no_state = authorize_url(&app, &no_state);
    let refused = get(&app, &no_state, Some(&cookie)).await;
    let (status, to) = (refused.status().as_u16(), location(&refused));
    assert_eq!(
        (status, param(&to, "error")),
        (303, Some("invalid_request".into())),
        "{to}"
    );

    // Signed out: to the login form, carrying the request's known parameters once each.
    let login = get(
        &app,
        &with(&[("client_id", "nobody"), ("client_id", id), ("x", "1")]),
        None,
    )
    .await;
    assert_eq!(login.status(), 303);
    let next = param(&location(&login), "next").unwrap();
    assert!(next.starts_with("/auth/oauth2/authorize?"), "{next}");
    assert_eq!(param(&next, "client_id").as_deref(), Some(id), "{next}");
    assert_eq!(next.matches("client_id=").count(), 1, "{next}");
    assert!(param(&next, "x").is_none(), "{next}");

    // The consent form: the last decision and the last csrf_token count, unknown ones are
    // ignored, a missing token is refused with the error page.
    let post = |pairs: Vec<(String, String)>| {
        let app = &app;
        let cookie = cookie.clone();
        async move {
            app.client
                .post(app.url("/auth/oauth2/authorize"))
                .header("cookie", cookie)
                .form(&pairs)
                .send()
                .await
                .unwrap()
        }
    };
    let page_url = with(&[("client_id", id)]);
    let html = get(&app, &page_url, Some(&cookie))
        .await
        .text()
        .await
        .unwrap();
    let fields = hidden_inputs(&html);
    let mut no_token: Vec<(String, String)> = fields
        .iter()
        .filter(|(k, _)| k != "csrf_token")
        .cloned()
        .collect();
    no_token.push(("decision".into(), "allow".into()));
    let refused = post(no_token.clone()).await;
    assert_eq!(refused.status(), 403);
    assert!(location(&refused).is_empty());
    let token = fields
        .iter()
        .find(|(k, _)| k == "csrf_token")
        .unwrap()
        .1
        .clone();
    let mut wrong_last = no_token.clone();
    wrong_last.push(("csrf_token".into(), token.clone()));
    wrong_last.push(("csrf_token".into(), "forged".into()));
    assert_eq!(post(wrong_last).await.status(), 403);
    let mut denied = fields.clone();
    denied.push(("decision".into(), "allow".into()));
    denied.push(("decision".into(), "deny".into()));
    let resp = post(denied).await;
    assert_eq!(resp.status(), 303);
    assert_eq!(
        param(&location(&resp), "error").as_deref(),
        Some("access_denied")
    );
    let mut allowed = no_token;
    allowed.push(("csrf_token".into(), "forged".into()));
    allowed.push(("csrf_token".into(), token));
    allowed.push(("decision".into(), "deny".into()));
    allowed.push(("decision".into(), "allow".into()));
    allowed.push(("extra".into(), "1".into()));
    let resp = post(allowed).await;
    assert_eq!(resp.status(), 303);
    let to = location(&resp);
    assert!(param(&to, "code").is_some(), "{to}");
    assert_eq!(param(&to, "state").as_deref(), Some("s1"), "{to}");
    app.stop().await;
}
