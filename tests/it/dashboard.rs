//! The dashboard at `/` over HTTP with a signed-in cookie: the tabs and their counts, the rows
//! of each tab with the action that fits, the search, the Inbox of documents another user sent
//! to me; another user's own documents never show. Signed out, `/` is the start page.

use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, Created, create_api_key, fixture};
use crate::support::login::add_account;
use crate::support::login::browser;

/// Ada's and Bob's documents, made through the API (see [`seed`]).
pub(crate) struct Seeded {
    pub ada: Api,
    /// The signing token of Ada as the recipient of Bob's "Offer letter".
    pub inbox_token: String,
    /// Ada's document ids by title.
    pub ids: Value,
}

/// A document of `api` titled `title` for `recipients` (name, e-mail, role), with its file and
/// a signature field per signer, sent without e-mail.
pub(crate) async fn sent(api: &Api, title: &str, recipients: &[(&str, &str, &str)]) -> Created {
    let created = drafted(api, title, recipients).await;
    let id = created.document_id();
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    for (i, (_, _, role)) in recipients.iter().enumerate() {
        if *role == "SIGNER" {
            let field = json!([{"recipientId": created.recipient_id(i), "type": "SIGNATURE",
                "pageNumber": 1, "pageX": 10, "pageY": 10 + 10 * i, "pageWidth": 30, "pageHeight": 5}]);
            api.add_fields(id, field).await;
        }
    }
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    created
}

/// A draft of `api` titled `title` for `recipients` (name, e-mail, role).
pub(crate) async fn drafted(api: &Api, title: &str, recipients: &[(&str, &str, &str)]) -> Created {
    let recipients: Vec<Value> = recipients
        .iter()
        .map(|(name, email, role)| json!({"name": name, "email": email, "role": role}))
        .collect();
    api.create_document(json!({"title": title, "recipients": recipients}))
        .await
}

/// Accounts ada@ and bob@ (password `PASSWORD`) and their documents. Ada's: "Lease agreement"
/// (draft, for ann@), "Mutual NDA" (pending: cy@ has opened it, dee@ gets a copy), "Invoice
/// 2026-11" (completed by eve@), "Supplier contract" (rejected by fay@), and `drafts` more
/// drafts "Draft 1".. ; Bob's: "Offer letter" waiting for Ada's signature (her Inbox) and
/// "Private memo" (a draft for zed@).
pub(crate) async fn seed(app: &TestApp, drafts: usize) -> Seeded {
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada Lovelace");
    add_account(&d, "bob@example.com", "Bob Builder");
    let key = |email: &str| {
        create_api_key(&d, email)["key"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (ada, bob) = (
        app.api(&key("ada@example.com")),
        app.api(&key("bob@example.com")),
    );

    let lease = drafted(
        &ada,
        "Lease agreement",
        &[("Ann", "ann@example.com", "SIGNER")],
    )
    .await;
    for n in 1..=drafts {
        drafted(&ada, &format!("Draft {n}"), &[]).await;
    }
    let nda = sent(
        &ada,
        "Mutual NDA",
        &[
            ("Cy", "cy@example.com", "SIGNER"),
            ("Dee", "dee@example.com", "CC"),
        ],
    )
    .await;
    let opened = app.signer(&nda.token(0)).page().await;
    assert_eq!(opened.status(), 200);
    let invoice = sent(
        &ada,
        "Invoice 2026-11",
        &[("Eve", "eve@example.com", "SIGNER")],
    )
    .await;
    let eve = app.signer(&invoice.token(0));
    let (_, doc) = ada
        .get(&format!("/api/v1/documents/{}", invoice.document_id()))
        .await;
    let (s, v) = eve.sign(&doc["fields"][0]["id"]).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = eve.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    ada.wait_status(invoice.document_id(), "COMPLETED").await;
    let supplier = sent(
        &ada,
        "Supplier contract",
        &[("Fay", "fay@example.com", "SIGNER")],
    )
    .await;
    let (s, v) = app.signer(&supplier.token(0)).reject("Wrong prices").await;
    assert_eq!(s, 200, "{v}");

    let offer = sent(
        &bob,
        "Offer letter",
        &[("Ada", "ada@example.com", "SIGNER")],
    )
    .await;
    drafted(
        &bob,
        "Private memo",
        &[("Zed", "zed@example.com", "SIGNER")],
    )
    .await;
    Seeded {
        ada,
        inbox_token: offer.token(0),
        ids: json!({
            "lease": lease.document_id(),
            "nda": nda.document_id(),
            "invoice": invoice.document_id(),
            "supplier": supplier.document_id(),
        }),
    }
}

/// The dashboard at `path` as the browser with `cookie`: its HTML.
async fn page(app: &TestApp, cookie: &str, path: &str) -> String {
    let resp = app
        .client
        .get(app.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200, "{path}");
    resp.text().await.unwrap()
}

/// The count a tab shows, and whether it is the current one.
fn tab(html: &str, name: &str) -> (i64, bool) {
    let start = html
        .find(&format!("id=\"tab-{name}\""))
        .unwrap_or_else(|| panic!("no tab {name}:\n{html}"));
    let link = &html[start..start + html[start..].find("</a>").unwrap()];
    let count = link
        .split("class=\"count\">")
        .nth(1)
        .unwrap()
        .replace("<span class=\"visually-hidden\">(</span>", "");
    let digits: String = count.chars().take_while(char::is_ascii_digit).collect();
    (
        digits.parse().unwrap(),
        link.contains("aria-current=\"page\""),
    )
}

/// The titles of the rows, in order.
fn titles(html: &str) -> Vec<String> {
    html.split("class=\"doc-title\" href=\"")
        .skip(1)
        .map(|r| {
            r.split('>')
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_shows_my_tabs_counts_rows_and_search_and_never_anothers_documents() {
    let app = TestApp::spawn().await;
    let seeded = seed(&app, 0).await;
    let ids = &seeded.ids;
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;

    // Something waits for Ada: the Inbox comes first, with Bob's document and her link.
    let html = page(&app, &ada.cookie, "/").await;
    assert_eq!(tab(&html, "inbox"), (1, true));
    assert_eq!(tab(&html, "pending"), (1, false));
    assert_eq!(tab(&html, "completed"), (1, false));
    assert_eq!(tab(&html, "drafts"), (1, false));
    assert_eq!(tab(&html, "all"), (4, false));
    assert_eq!(titles(&html), ["Offer letter"]);
    let sign = format!("href=\"/sign/{}\"", seeded.inbox_token);
    assert!(
        html.contains(&sign),
        "the Inbox row signs through Ada's link"
    );
    assert!(html.contains("From Bob Builder (bob@example.com)"));
    assert!(html.contains("href=\"/documents/new\""), "New document");

    // All: Ada's four, newest change first, each with the action that fits.
    let html = page(&app, &ada.cookie, "/?tab=all").await;
    assert_eq!(tab(&html, "all"), (4, true));
    assert_eq!(
        titles(&html),
        [
            "Supplier contract",
            "Invoice 2026-11",
            "Mutual NDA",
            "Lease agreement"
        ]
    );
    let lease = ids["lease"].as_i64().unwrap();
    let (nda, invoice) = (
        ids["nda"].as_i64().unwrap(),
        ids["invoice"].as_i64().unwrap(),
    );
    for expected in [
        format!("href=\"/documents/{lease}/edit\">Edit<"),
        format!("href=\"/documents/{nda}\">View<"),
        format!("href=\"/documents/{invoice}/download/signed.pdf\">Download<"),
        // Each recipient's status, in words for screen readers.
        "Cy</span><span class=\"visually-hidden\">, opened</span>".to_string(),
        "Eve</span><span class=\"visually-hidden\">, signed</span>".to_string(),
        "Fay</span><span class=\"visually-hidden\">, rejected</span>".to_string(),
        "Ann</span><span class=\"visually-hidden\">, not sent yet</span>".to_string(),
        "(copy)".to_string(),
        ">Rejected<".to_string(),
    ] {
        assert!(html.contains(&expected), "{expected} in\n{html}");
    }
    // Bob's documents are never Ada's: not in All, not found by a search.
    for other in ["Private memo", "zed@example.com"] {
        assert!(!html.contains(other), "{other}");
    }
    let html = page(&app, &ada.cookie, "/?tab=all&q=memo").await;
    assert!(titles(&html).is_empty());
    assert!(html.contains("No documents match “memo”"), "{html}");
    assert!(
        html.contains("href=\"/?tab=all\" id=\"clear-search\""),
        "{html}"
    );

    // The other tabs, and a search by title or by a recipient's e-mail, within a tab.
    let rows = |path: &'static str| {
        let (app, cookie) = (&app, ada.cookie.clone());
        async move { titles(&page(app, &cookie, path).await) }
    };
    assert_eq!(rows("/?tab=pending").await, ["Mutual NDA"]);
    assert_eq!(rows("/?tab=completed").await, ["Invoice 2026-11"]);
    assert_eq!(rows("/?tab=drafts").await, ["Lease agreement"]);
    assert_eq!(rows("/?tab=all&q=AGREEMENT").await, ["Lease agreement"]);
    assert_eq!(rows("/?tab=all&q=dee%40example").await, ["Mutual NDA"]);
    assert_eq!(rows("/?tab=all&q=example.com").await.len(), 4);
    assert!(rows("/?tab=drafts&q=dee%40").await.is_empty());
    let html = page(&app, &ada.cookie, "/?tab=all&q=invoice").await;
    assert!(
        html.contains("1 document in All matches “invoice”"),
        "{html}"
    );
    assert_eq!(tab(&html, "all").0, 4, "the tabs count without the search");
    assert!(
        html.contains("href=\"/?tab=pending&amp;q=invoice\""),
        "tabs keep the search"
    );
    // A search too long is refused next to the box; the tab is shown without it.
    let long = "x".repeat(201);
    let html = page(&app, &ada.cookie, &format!("/?tab=all&q={long}")).await;
    assert!(
        html.contains("the search is too long: at most 200 characters"),
        "{html}"
    );
    assert_eq!(titles(&html).len(), 4);
    // An unknown tab or page falls back to what exists.
    let html = page(&app, &ada.cookie, "/?tab=nope&page=99").await;
    assert_eq!(tab(&html, "inbox"), (1, true));

    // Bob sees his own: the offer waits for Ada (pending), his memo is a draft; Ada's never.
    let html = page(&app, &bob.cookie, "/?tab=all").await;
    assert_eq!(titles(&html), ["Private memo", "Offer letter"]);
    assert_eq!(tab(&html, "inbox"), (0, false));
    for other in ["Lease agreement", "Mutual NDA", "Invoice", "Supplier"] {
        assert!(!html.contains(other), "{other}");
    }

    // The API lists the same documents through the same query, searchable with `query`.
    let (s, v) = seeded.ada.get("/api/v1/documents?query=nda").await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["documents"].as_array().unwrap().len(), 1);
    assert_eq!(v["documents"][0]["title"], "Mutual NDA");
    let (s, _) = seeded
        .ada
        .get(&format!("/api/v1/documents?query={long}"))
        .await;
    assert_eq!(s, 400);
    app.stop().await;
}

#[tokio::test]
async fn signed_out_the_start_page_says_what_docket_is_and_offers_to_sign_in() {
    let app = TestApp::spawn().await;
    let resp = app.get("/").await;
    assert_eq!(resp.status(), 200);
    let html = resp.text().await.unwrap();
    assert!(
        html.contains("Documents signed, on your own server"),
        "{html}"
    );
    assert!(html.contains("href=\"/auth/login?next=/\""), "{html}");
    assert!(!html.contains("This Docket appliance is running"));
    assert!(
        !html.contains("csrf-token"),
        "no application chrome signed out"
    );
    app.stop().await;
}

#[tokio::test]
async fn a_new_account_is_invited_to_upload_its_first_pdf() {
    let app = TestApp::spawn().await;
    add_account(&app.data_dir(), "new@example.com", "New");
    let b = browser(&app, "new@example.com").await;
    let html = page(&app, &b.cookie, "/").await;
    assert!(html.contains("id=\"upload-first\""), "{html}");
    assert!(html.contains("Upload a PDF"));
    assert!(
        !html.contains("id=\"tab-inbox\""),
        "no empty tabs on the first visit"
    );
    app.stop().await;
}

#[tokio::test]
async fn an_inbox_document_in_a_signing_order_says_when_my_turn_comes() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let bob = app.api(
        create_api_key(&d, "bob@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let created = bob
        .create_document(
            json!({"title": "Board minutes", "meta": {"signingOrder": "SEQUENTIAL"},
            "recipients": [
                {"name": "Cy", "email": "cy@example.com", "role": "SIGNER", "signingOrder": 1},
                {"name": "Ada", "email": "ada@example.com", "role": "SIGNER", "signingOrder": 2}]}),
        )
        .await;
    let id = created.document_id();
    bob.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    for i in 0..2 {
        let field = json!([{"recipientId": created.recipient_id(i), "type": "SIGNATURE",
            "pageNumber": 1, "pageX": 10, "pageY": 10 + 20 * i, "pageWidth": 30, "pageHeight": 5}]);
        bob.add_fields(id, field).await;
    }
    let (s, v) = bob.send(id).await;
    assert_eq!(s, 200, "{v}");
    let ada = browser(&app, "ada@example.com").await;
    let html = page(&app, &ada.cookie, "/?tab=inbox").await;
    assert_eq!(titles(&html), ["Board minutes"]);
    assert!(
        html.contains("your turn comes after the others before you have signed"),
        "{html}"
    );
    // Once Cy has signed, it is Ada's turn.
    let cy = app.signer(&created.token(0));
    let doc = bob.document(id).await;
    let (s, v) = cy.sign(&doc["fields"][0]["id"]).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = cy.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    let html = page(&app, &ada.cookie, "/?tab=inbox").await;
    assert!(!html.contains("your turn comes after"), "{html}");
    assert!(html.contains("class=\"button small primary\""), "{html}");
    app.stop().await;
}
