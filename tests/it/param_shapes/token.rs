//! The token endpoint (form and JSON bodies), refresh, revoke and introspect.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_refresh_revoke_and_introspect_read_the_last_value_and_ignore_unknown_names() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let (id, secret) = (id.as_str(), secret.as_str());
    let creds = [("client_id", id), ("client_secret", secret)];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut f: Vec<(&str, &str)> = extra.to_vec();
        f.extend_from_slice(&creds);
        f
    };

    // Token: missing, unknown and repeated parameters.
    let cases: Vec<Case> = vec![
        (with(&[]), 400, "invalid_request"),
        (
            with(&[("grant_type", "authorization_code")]),
            400,
            "invalid_request",
        ),
        (
            with(&[("grant_type", "refresh_token")]),
            400,
            "invalid_request",
        ),
        (
            with(&[("grant_type", "password")]),
            400,
            "unsupported_grant_type",
        ),
        (
            with(&[
                ("grant_type", "authorization_code"),
                ("code", "nope"),
                ("x", "1"),
            ]),
            400,
            "invalid_grant",
        ),
        (
            with(&[
                ("grant_type", "password"),
                ("grant_type", "authorization_code"),
                ("code", "nope"),
            ]),
            400,
            "invalid_grant",
        ),
        (
            with(&[
                ("grant_type", "authorization_code"),
                ("code", "nope"),
                ("grant_type", "password"),
            ]),
            400,
            "unsupported_grant_type",
        ),
        (
            vec![
                ("grant_type", "authorization_code"),
                ("code", "nope"),
                ("client_id", "someone-else"),
                ("client_id", id),
                ("client_secret", secret),
            ],
            400,
            "invalid_grant",
        ),
        (
            vec![
                ("grant_type", "authorization_code"),
                ("code", "nope"),
                ("client_id", id),
                ("client_id", "someone-else"),
                ("client_secret", secret),
            ],
            401,
            "invalid_client",
        ),
        (
            vec![("grant_type", "authorization_code"), ("code", "nope")],
            401,
            "invalid_client",
        ),
        (
            with(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", "nope"),
                ("scope", ""),
            ]),
            400,
            "invalid_scope",
        ),
    ];
    for (pairs, status, error) in cases {
        expect(
            form(&app, TOKEN, &pairs).await,
            status,
            error,
            &format!("{pairs:?}"),
        )
        .await;
    }

    // The same as JSON: the last of a repeated key, numbers and booleans as text, other
    // values as if left out, and a body that is not an object refused.
    let json_cases: Vec<(String, u16, &str)> = vec![
        (
            format!(r#"{{"client_id":"{id}","client_secret":"{secret}"}}"#),
            400,
            "invalid_request",
        ),
        (
            format!(
                r#"{{"grant_type":"password","grant_type":"authorization_code","code":7,"x":[1],"client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "invalid_grant",
        ),
        (
            format!(
                r#"{{"grant_type":"authorization_code","code":["a"],"client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "invalid_request",
        ),
        (
            format!(
                r#"{{"grant_type":"authorization_code","code":null,"client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "invalid_request",
        ),
        (
            format!(
                r#"{{"grant_type":true,"code":"x","client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "unsupported_grant_type",
        ),
        (
            format!(
                r#"{{"grant_type":"refresh_token","refresh_token":1.5e3,"client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "invalid_grant",
        ),
        ("[1]".to_string(), 400, "invalid_request"),
        ("{".to_string(), 400, "invalid_request"),
    ];
    for (body, status, error) in json_cases {
        expect(raw_json(&app, TOKEN, &body).await, status, error, &body).await;
    }

    // A real code, redeemed with an unknown parameter and a repeated one whose last is right.
    let c = code(&app, &cookie, id, "READ_PROFILE", &[]).await;
    let resp = form(
        &app,
        TOKEN,
        &with(&[
            ("grant_type", "authorization_code"),
            ("code", "nope"),
            ("utm", "x"),
            ("redirect_uri", "https://elsewhere.example/cb"),
            ("redirect_uri", REDIRECT),
        ])
        .into_iter()
        .chain([("code", c.as_str())])
        .collect::<Vec<_>>(),
    )
    .await;
    let (access, refresh) = pair(resp).await;

    // Refresh: missing, repeated (the last counts) and unknown.
    expect(
        form(&app, REFRESH, &with(&[])).await,
        400,
        "invalid_request",
        "refresh, none",
    )
    .await;
    let refreshed = form(
        &app,
        REFRESH,
        &[
            ("refresh_token", "nope"),
            ("refresh_token", refresh.as_str()),
            ("grant_type", "authorization_code"),
            ("grant_type", "refresh_token"),
            ("colour", "blue"),
            ("client_id", id),
            ("client_secret", secret),
        ],
    )
    .await;
    assert_eq!(
        refreshed.status(),
        200,
        "{}",
        refreshed.text().await.unwrap()
    );
    let wrong_last = form(
        &app,
        REFRESH,
        &[
            ("refresh_token", refresh.as_str()),
            ("refresh_token", "nope"),
            ("client_id", id),
            ("client_secret", secret),
        ],
    )
    .await;
    expect(wrong_last, 400, "invalid_grant", "refresh, wrong last").await;

    // Introspect: missing, repeated and unknown.
    for path in [INTROSPECT, REVOKE] {
        expect(
            form(&app, path, &with(&[])).await,
            400,
            "invalid_request",
            path,
        )
        .await;
    }
    let asked = form(
        &app,
        INTROSPECT,
        &with(&[("token", "nope"), ("hint", "x")])
            .into_iter()
            .chain([("token", access.as_str())])
            .collect::<Vec<_>>(),
    )
    .await;
    let shown = expect(asked, 200, "", "introspect, right last").await;
    assert_eq!(shown["active"], true, "{shown}");
    let asked = form(
        &app,
        INTROSPECT,
        &[("token", access.as_str()), ("token", "nope")]
            .into_iter()
            .chain(creds)
            .collect::<Vec<_>>(),
    )
    .await;
    let shown = expect(asked, 200, "", "introspect, wrong last").await;
    assert_eq!(shown["active"], false, "{shown}");
    let json = format!(
        r#"{{"token":"nope","token":"{access}","client_id":"{id}","client_secret":"{secret}"}}"#
    );
    let shown = expect(raw_json(&app, INTROSPECT, &json).await, 200, "", "JSON").await;
    assert_eq!(shown["active"], true, "{shown}");

    // Revoke: the last token is the one revoked; an unknown parameter changes nothing.
    let revoked = form(
        &app,
        REVOKE,
        &[("token", "nope"), ("token", access.as_str()), ("why", "x")]
            .into_iter()
            .chain(creds)
            .collect::<Vec<_>>(),
    )
    .await;
    assert_eq!(outcome(revoked).await, (200, String::new()));
    let gone = form(
        &app,
        INTROSPECT,
        &with(&[])
            .into_iter()
            .chain([("token", access.as_str())])
            .collect::<Vec<_>>(),
    )
    .await;
    assert_eq!(expect(gone, 200, "", "revoked").await["active"], false);
    app.stop().await;
}
