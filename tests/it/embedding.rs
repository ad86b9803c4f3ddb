//! The embedded signing pages over plain HTTP: `/embed/sign/<token>` and `/embed/direct/<token>`
//! answer `frame-ancestors` with the origins their document's or template's workspace lists in
//! Settings -> Embedding (none: `'none'`) and no `X-Frame-Options`; another workspace's list is
//! not applied; every other page (the same signing link's own page, the settings, an unknown
//! token's 404) stays unframeable. The settings form refuses what is not an origin, saying why
//! next to the box, and is a team admin's only. The embedded direct page's JSON call makes the
//! visitor's document as `/d/<token>` does. A recipient may empty a field they filled before
//! finishing (`DELETE /sign/<token>/fields/<id>`, the embedded page's `field-unsigned`),
//! recorded once per field as FIELD_CLEARED.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::settings_tokens::{page, post_form};
use crate::support::api::{Api, PNG_SIGNATURE, fixture};
use crate::support::login::{Browser, add_account, browser};
use crate::support::{TestApp, docket_json};

/// A sent one-page document of `api`'s workspace with one signer, a signature field and a
/// text field: (document id, the signer's token, signature field, text field).
pub(crate) async fn sent(api: &Api) -> (i64, String, i64, i64) {
    let created = api
        .create_document(json!({"title": "Embedded lease", "recipients": [
            {"name": "Ann Signer", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let id = created.document_id();
    let (s, _) = api.upload(created.upload_url(), fixture("a4-1p.pdf")).await;
    assert_eq!(s, 200);
    let ann = created["recipients"][0]["recipientId"].as_i64().unwrap();
    let field = |kind: &str, y: i64| json!({"recipientId": ann, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 6, "fieldMeta": {"type": kind.to_lowercase()}});
    let ids = api
        .add_fields(id, json!([field("SIGNATURE", 70), field("TEXT", 20)]))
        .await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let token = created["recipients"][0]["token"]
        .as_str()
        .unwrap()
        .to_string();
    (id, token, ids[0], ids[1])
}

/// The headers that decide framing: the CSP's `frame-ancestors` directive and
/// `X-Frame-Options`, with the status.
async fn framing(app: &TestApp, path: &str) -> (u16, String, Option<String>) {
    let resp = app.client.get(app.url(path)).send().await.unwrap();
    let status = resp.status().as_u16();
    let h = resp.headers();
    let csp = h["content-security-policy"].to_str().unwrap().to_string();
    let ancestors = csp
        .split(';')
        .map(str::trim)
        .find(|d| d.starts_with("frame-ancestors"))
        .unwrap_or_else(|| panic!("{path}: no frame-ancestors in {csp}"))
        .to_string();
    assert!(csp.contains("script-src 'self'"), "{path}: {csp}");
    let xfo = h
        .get("x-frame-options")
        .map(|v| v.to_str().unwrap().to_string());
    (status, ancestors, xfo)
}

/// Saves `origins` in the embedding settings at `base` (`""` or `/t/{slug}`): status and page.
async fn save(app: &TestApp, who: &Browser, base: &str, origins: &str) -> (u16, String) {
    let path = format!("{base}/settings/embedding");
    post_form(
        app,
        &path,
        &who.cookie,
        Some(&who.csrf),
        &[("origins", origins)],
    )
    .await
}

const NONE: &str = "frame-ancestors 'none'";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_workspace_lists_the_sites_that_may_frame_its_signing_pages() {
    let app = TestApp::spawn_with(&["--tls", "off"]).await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    docket_json(
        &d,
        &[
            "team",
            "create",
            "Sales",
            "--slug",
            "sales",
            "--admin",
            "ada@example.com",
        ],
        None,
    );
    docket_json(&d, &["team", "add", "sales", "bob@example.com"], None);
    let mine = app.key_for("ada@example.com", None);
    let team = app.key_for("ada@example.com", Some("sales"));
    let (_, personal_token, _, _) = sent(&mine).await;
    let (_, team_token, _, _) = sent(&team).await;
    let personal = format!("/embed/sign/{personal_token}");
    let teams = format!("/embed/sign/{team_token}");

    // Nothing listed: the embedded page answers, and no site may frame it.
    let (s, a, xfo) = framing(&app, &personal).await;
    assert_eq!((s, a.as_str(), xfo), (200, NONE, None));

    // The account lists two origins (as typed: case, a default port, a slash, a repeat).
    let ada = browser(&app, "ada@example.com").await;
    let (s, html) = page(&app, &ada, "/settings/embedding").await;
    assert_eq!(s, 200, "{html}");
    assert!(
        html.contains("No site may show the signing pages yet."),
        "{html}"
    );
    let (s, html) = save(
        &app,
        &ada,
        "",
        "HTTPS://Shop.Example:443/\nhttp://localhost:3000, https://shop.example",
    )
    .await;
    assert_eq!(s, 303, "{html}");
    let (s, html) = page(&app, &ada, "/settings/embedding").await;
    assert_eq!(s, 200);
    assert!(
        html.contains("https://shop.example\nhttp://localhost:3000</textarea>"),
        "{html}"
    );
    let (s, a, xfo) = framing(&app, &personal).await;
    assert_eq!(
        (s, a.as_str(), xfo),
        (
            200,
            "frame-ancestors https://shop.example http://localhost:3000",
            None
        )
    );
    let body = app.get(&personal).await.text().await.unwrap();
    assert!(
        body.contains(r#"data-frame-origins="https://shop.example http://localhost:3000""#),
        "{body}"
    );
    assert!(
        body.contains(r#"id="signing" data-token=""#) && body.contains("data-embed"),
        "{body}"
    );
    assert!(!body.contains("site-header"), "no chrome in a frame");
    // The component's language, when Docket has it; the document's otherwise.
    let de = app
        .get(&format!("{personal}?lang=de"))
        .await
        .text()
        .await
        .unwrap();
    assert!(de.contains(r#"<html lang="de">"#), "{de}");
    let xx = app
        .get(&format!("{personal}?lang=xx"))
        .await
        .text()
        .await
        .unwrap();
    assert!(xx.contains(r#"<html lang="en">"#), "{xx}");

    // The team's document keeps its own (empty) list, then takes the team's.
    assert_eq!(framing(&app, &teams).await.1, NONE);
    let (s, html) = save(&app, &ada, "/t/sales", "https://team.example").await;
    assert_eq!(s, 303, "{html}");
    assert_eq!(
        framing(&app, &teams).await.1,
        "frame-ancestors https://team.example"
    );
    assert_eq!(
        framing(&app, &personal).await.1,
        "frame-ancestors https://shop.example http://localhost:3000"
    );

    // What is not an origin is refused, every one said next to the box; nothing changes.
    let (s, html) = save(
        &app,
        &ada,
        "",
        "http://evil.example\nhttps://shop.example/checkout\n*\nhttps://ok.example",
    )
    .await;
    assert_eq!(s, 400, "{html}");
    for said in [
        "“http://evil.example” uses http: only https is allowed, except for localhost and 127.0.0.1.",
        "“https://shop.example/checkout” has a path, a query or a fragment: give the origin only, scheme://host[:port].",
        "“*” is not an origin: write it as https://example.com.",
    ] {
        assert!(html.contains(said), "{said}\n{html}");
    }
    assert!(html.contains(r#"aria-invalid="true" aria-describedby="origins-error""#));
    assert!(
        html.contains("https://ok.example</textarea>"),
        "the box as typed"
    );
    assert_eq!(
        framing(&app, &personal).await.1,
        "frame-ancestors https://shop.example http://localhost:3000"
    );

    // A team's member who is not an admin neither reads nor changes its list; another
    // user's settings are their own.
    let bob = browser(&app, "bob@example.com").await;
    assert_eq!(page(&app, &bob, "/t/sales/settings/embedding").await.0, 403);
    assert_eq!(
        save(&app, &bob, "/t/sales", "https://bob.example").await.0,
        403
    );
    assert_eq!(
        framing(&app, &teams).await.1,
        "frame-ancestors https://team.example"
    );
    let (s, html) = page(&app, &bob, "/settings/embedding").await;
    assert_eq!(s, 200);
    assert!(
        !html.contains("shop.example") && !html.contains("team.example"),
        "{html}"
    );

    // Emptied: unframeable again.
    assert_eq!(save(&app, &ada, "/t/sales", "").await.0, 303);
    assert_eq!(framing(&app, &teams).await.1, NONE);

    // Every other page stays unframeable: the link's own page, the settings, a 404.
    for path in [
        format!("/sign/{personal_token}"),
        "/auth/login".to_string(),
        "/embed/sign/no-such-token".to_string(),
        "/embed/direct/no-such-token".to_string(),
    ] {
        let (_, a, xfo) = framing(&app, &path).await;
        assert_eq!((a.as_str(), xfo.as_deref()), (NONE, Some("DENY")), "{path}");
    }
    assert_eq!(app.get("/embed/sign/no-such-token").await.status(), 404);
    let resp = app
        .client
        .get(app.url("/settings/embedding"))
        .header("cookie", &ada.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["x-frame-options"], "DENY");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_direct_page_makes_the_visitors_document_as_the_direct_link_does() {
    let app = TestApp::spawn_with(&["--tls", "off"]).await;
    let d = app.data_dir();
    add_account(&d, "olive@example.com", "Olive");
    let api = app.key_for("olive@example.com", None);
    let (id, rids) = crate::direct_links::template(&api, Some("bob@example.com")).await;
    let (s, link) =
        crate::direct_links::set(&api, id, json!({"enabled": true, "recipientId": rids[0]})).await;
    assert_eq!(s, 200, "{link}");
    let token = link["token"].as_str().unwrap();
    let path = format!("/embed/direct/{token}");
    let olive = browser(&app, "olive@example.com").await;
    assert_eq!(save(&app, &olive, "", "https://shop.example").await.0, 303);

    let (s, a, xfo) = framing(&app, &path).await;
    assert_eq!(
        (s, a.as_str(), xfo),
        (200, "frame-ancestors https://shop.example", None)
    );
    let html = app.get(&path).await.text().await.unwrap();
    assert!(html.contains(r#"id="embed-direct""#), "{html}");

    // JSON only; a refusal names the box; then the visitor's document and its signing link.
    let resp = app
        .client
        .post(app.url(&path))
        .form(&[("name", "Vic"), ("email", "vic@example.com")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 415);
    let call = |body: Value| {
        let (app, path) = (&app, &path);
        async move {
            let resp = app
                .client
                .post(app.url(path))
                .json(&body)
                .send()
                .await
                .unwrap();
            (resp.status().as_u16(), resp.json::<Value>().await.unwrap())
        }
    };
    let (s, e) = call(json!({"name": "Vic", "email": "not an address"})).await;
    assert_eq!(s, 400, "{e}");
    assert_eq!(crate::support::api::detail_paths(&e), vec!["email"]);
    let (s, v) = call(json!({"name": "Vic Visitor", "email": "vic@example.com"})).await;
    assert_eq!(s, 200, "{v}");
    let signing = v["token"].as_str().unwrap();
    let vic = app.signer(signing);
    let (s, state) = vic.state().await;
    assert_eq!(s, 200, "{state}");
    assert_eq!(state["recipient"]["email"], "vic@example.com");
    assert!(
        state["recipient"]["id"].is_i64() && state["document"]["id"].is_i64(),
        "{state}"
    );
    let (_, a, _) = framing(&app, &format!("/embed/sign/{signing}")).await;
    assert_eq!(
        a, "frame-ancestors https://shop.example",
        "the template's workspace"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recipient_empties_a_field_before_finishing() {
    let app = TestApp::spawn_with(&["--tls", "off"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, token, signature, text) = sent(&api).await;
    let ann = app.signer(&token);
    let inserted = |state: &Value, f: i64| {
        state["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == f)
            .unwrap()["inserted"]
            .clone()
    };

    // Emptying an empty field changes nothing and records nothing.
    let (s, v) = ann
        .call(M::DELETE, &format!("/fields/{text}"), Some(json!({})))
        .await;
    assert_eq!((s, v), (200, json!({"fieldId": text, "inserted": false})));
    for _ in 0..3 {
        assert_eq!(ann.fill(text, json!({"value": "Flat 2"})).await.0, 200);
        let (s, _) = ann
            .call(M::DELETE, &format!("/fields/{text}"), Some(json!({})))
            .await;
        assert_eq!(s, 200);
    }
    let (_, state) = ann.state().await;
    assert_eq!(inserted(&state, text), json!(false), "{state}");
    let cleared: Vec<Value> = api
        .audit(id)
        .await
        .into_iter()
        .filter(|e| e["type"] == "FIELD_CLEARED")
        .collect();
    assert_eq!(cleared.len(), 1, "one row per field: {cleared:?}");
    assert_eq!(cleared[0]["data"]["fills"], 3);
    assert_eq!(cleared[0]["data"]["fieldId"], text);

    // A field that is not theirs is a 404; once they have signed, nothing can be emptied.
    assert_eq!(
        ann.call(M::DELETE, "/fields/999999", Some(json!({})))
            .await
            .0,
        404
    );
    assert_eq!(
        ann.fill(signature, json!({"signature": PNG_SIGNATURE}))
            .await
            .0,
        200
    );
    let (s, v) = ann.call(M::POST, "/complete", Some(json!({}))).await;
    assert_eq!(s, 200, "{v}");
    let (s, _) = ann
        .call(M::DELETE, &format!("/fields/{signature}"), Some(json!({})))
        .await;
    assert_eq!(s, 409);
    let (_, state) = ann.state().await;
    assert_eq!(inserted(&state, signature), json!(true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_that_asks_for_an_account_offers_its_own_window_in_a_frame() {
    let app = TestApp::spawn_with(&["--tls", "off"]).await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let (_, token, _) = crate::recipient_auth::sent(
        &owner,
        "ann@example.com",
        json!({"globalAccessAuth": "ACCOUNT"}),
        Value::Null,
    )
    .await;
    let path = format!("/embed/sign/{token}");
    let (s, a, xfo) = framing(&app, &path).await;
    assert_eq!((s, a.as_str(), xfo), (200, NONE, None));
    let html = app.get(&path).await.text().await.unwrap();
    assert!(
        html.contains("asks you to sign in to your Docket account for ann@example.com"),
        "{html}"
    );
    assert!(
        html.contains(&format!(
            r#"id="open-own-window" href="/sign/{token}" target="_blank""#
        )),
        "{html}"
    );
    assert!(
        !html.contains(r#"id="signing""#),
        "no fields before the sign-in"
    );
}
