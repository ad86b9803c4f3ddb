//! Invitations to a team through the real server and the real CLI: `docket team invite`
//! prints the link and the mail brings it; the invited account joins on the link's page
//! (once: the link is dead afterwards), another account is refused and told which address the
//! invitation is for, an expired, revoked or replaced link is the same 410, one address gets
//! three invitations an hour at most, someone without an account makes one on the way
//! although Docket has no open sign-up, and a member an administrator adds or removes is told
//! by mail.

use serde_json::Value;

use crate::accounts::{get, link_in, nth_mail_to, post, with_mail};
use crate::support::TestApp;
use crate::support::cli::{docket, docket_json};
use crate::support::login::{
    PASSWORD, add_account, answer_of, hidden_inputs, set_cookie_pairs, sign_in,
};
use crate::support::mailbox::MailBox;
use crate::support::wait::wait_for;

/// What a dead link's page says.
const GONE: &str = "This invitation is no longer valid";

fn team(app: &TestApp) {
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    docket_json(
        &app.data_dir(),
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
}

/// `docket team invite sales EMAIL --role ROLE --json`.
fn invite(app: &TestApp, email: &str, role: &str) -> Value {
    docket_json(
        &app.data_dir(),
        &["team", "invite", "sales", email, "--role", role],
        None,
    )
}

/// The path of an invitation's link (`http://host/invitations/TOKEN`).
fn path_of(invited: &Value) -> String {
    let link = invited["link"].as_str().unwrap();
    let at = link.find("/invitations/").expect("an invitation link");
    link[at..].to_string()
}

fn roles(app: &TestApp) -> Vec<(String, String)> {
    let list = docket_json(&app.data_dir(), &["team", "members", "sales"], None);
    list.as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let field = |k: &str| m[k].as_str().unwrap().to_string();
            (field("email"), field("role"))
        })
        .collect()
}

fn pending(app: &TestApp) -> Vec<String> {
    let list = docket_json(&app.data_dir(), &["team", "invitations", "sales"], None);
    list.as_array()
        .unwrap()
        .iter()
        .map(|i| i["email"].as_str().unwrap().to_string())
        .collect()
}

/// Waits (30 s at most) for the message to `to` with `subject` (the mail box's order is not
/// the order of arrival); returns it.
async fn mail_titled(smtp: &MailBox, to: &str, subject: &str) -> Value {
    let out = tempfile::tempdir().unwrap();
    wait_for(std::time::Duration::from_secs(30), || {
        smtp.decoded(out.path())
            .into_iter()
            .find(|m| m["to"].as_str().unwrap_or_default().contains(to) && m["subject"] == subject)
            .ok_or_else(|| format!("no message to {to} titled {subject:?}"))
    })
    .await
}

/// The hidden `csrf_token` of a page's forms (the first one).
fn csrf(page: &str) -> String {
    hidden_inputs(page)
        .into_iter()
        .find(|(k, _)| k == "csrf_token")
        .unwrap_or_else(|| panic!("no csrf_token in {page}"))
        .1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn an_invitation_is_mailed_and_joins_the_invited_account_once() {
    let (smtp, app) = with_mail().await;
    team(&app);
    add_account(&app.data_dir(), "bob@example.com", "Bob");
    add_account(&app.data_dir(), "cy@example.com", "Cy");

    let invited = invite(&app, "Bob@Example.com", "manager");
    assert_eq!(
        (&invited["team"], &invited["email"], &invited["role"]),
        (
            &"sales".into(),
            &"bob@example.com".into(),
            &"MANAGER".into()
        )
    );
    assert!(invited["expires_at"].as_str().unwrap().ends_with('Z'));
    let here = path_of(&invited);
    assert_eq!(pending(&app), ["bob@example.com"]);

    // The mail brings the same link, and says who, what and until when.
    let mail = nth_mail_to(&smtp, "bob@example.com", 1).await;
    assert_eq!(
        mail["subject"],
        "An administrator invited you to the team \"Sales\" on Docket"
    );
    assert_eq!(link_in(&mail, "/invitations/"), here);
    let text = mail["text"].as_str().unwrap();
    assert!(
        text.contains("as a manager") && text.contains("until "),
        "{text}"
    );
    assert!(mail["html"].as_str().unwrap().contains(&here));

    // Not signed in: the page offers to sign in, coming back here.
    let resp = app.client.get(app.url(&here)).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().contains_key("content-security-policy"));
    let page = resp.text().await.unwrap();
    assert!(
        page.contains("Join Sales") && page.contains("as a manager"),
        "{page}"
    );
    assert!(
        page.contains("/auth/login?next=%2Finvitations%2F"),
        "a sign-in link back here: {page}"
    );
    assert!(
        !page.contains("name=\"password\""),
        "no new account: {page}"
    );

    // Another account is refused, told which address the invitation is for, and can sign out.
    let cy = sign_in(&app, "cy@example.com", PASSWORD).await.unwrap();
    let (status, _, page) = get(&app, &here, &cy).await;
    assert_eq!(status, 200);
    assert!(
        page.contains(
            "You are signed in as cy@example.com, but this invitation is for bob@example.com"
        ),
        "{page}"
    );
    assert!(page.contains("action=\"/auth/logout\"") && !page.contains("id=\"join\""));
    let token = csrf(&page);
    let (status, _, _) = post(&app, &here, &cy, &[("csrf_token", &token)]).await;
    assert_eq!(status, 403, "no Join form for another account");
    assert_eq!(pending(&app), ["bob@example.com"], "the invitation stays");

    // The invited account joins, and goes to the team.
    let bob = sign_in(&app, "bob@example.com", PASSWORD).await.unwrap();
    let (status, _, page) = get(&app, &here, &bob).await;
    assert_eq!(status, 200);
    assert!(page.contains("id=\"join\""), "{page}");
    let token = csrf(&page);
    let (status, location, _) = post(&app, &here, &bob, &[("csrf_token", &token)]).await;
    assert_eq!((status, location.as_str()), (303, "/t/sales"));
    assert!(roles(&app).contains(&("bob@example.com".into(), "MANAGER".into())));
    assert!(pending(&app).is_empty());

    // Once: the link is dead now, for everyone.
    let (status, _, page) = post(&app, &here, &bob, &[("csrf_token", &token)]).await;
    assert_eq!(status, 410);
    assert!(page.contains(GONE), "{page}");
    assert_eq!(get(&app, &here, &cy).await.0, 410);

    // Removed by an administrator: told by mail. Added by one: told too.
    docket_json(
        &app.data_dir(),
        &["team", "remove", "sales", "bob@example.com"],
        None,
    );
    let removed = mail_titled(
        &smtp,
        "bob@example.com",
        "You were removed from the team \"Sales\"",
    )
    .await;
    assert!(removed["text"].as_str().unwrap().starts_with("Hello Bob,"));
    docket_json(
        &app.data_dir(),
        &["team", "add", "sales", "cy@example.com"],
        None,
    );
    let added = mail_titled(
        &smtp,
        "cy@example.com",
        "You were added to the team \"Sales\"",
    )
    .await;
    let link = link_in(&added, "/t/");
    assert_eq!(link, "/t/sales");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_revoked_or_replaced_invitation_is_no_longer_valid() {
    // No SMTP server: the mail is filed in the outbox; the CLI prints the link.
    let app = TestApp::spawn().await;
    team(&app);
    add_account(&app.data_dir(), "bob@example.com", "Bob");
    let bob = sign_in(&app, "bob@example.com", PASSWORD).await.unwrap();

    // Expired: the stored expiry is written into the past (never slept for).
    let here = path_of(&invite(&app, "bob@example.com", "member"));
    let (status, _, page) = get(&app, &here, &bob).await;
    assert_eq!(status, 200);
    let token = csrf(&page);
    let now = docket::core::db::now();
    app.db_rw()
        .execute(
            "UPDATE team_invitations SET expires_at = ?1 WHERE email = 'bob@example.com'",
            docket::params![now - 1],
        )
        .unwrap();
    for (status, _, page) in [
        get(&app, &here, &bob).await,
        post(&app, &here, &bob, &[("csrf_token", &token)]).await,
    ] {
        assert_eq!(status, 410);
        assert!(page.contains(GONE), "{page}");
    }
    assert_eq!(roles(&app).len(), 1, "nobody joined");
    assert!(pending(&app).is_empty(), "an expired one is not pending");

    // Replaced: a new invitation of the same address kills the old link.
    let first = path_of(&invite(&app, "bob@example.com", "member"));
    let second = path_of(&invite(&app, "bob@example.com", "admin"));
    assert_eq!(get(&app, &first, &bob).await.0, 410);
    let (status, _, page) = get(&app, &second, &bob).await;
    assert_eq!(status, 200);
    assert!(page.contains("as an admin"), "{page}");

    // Revoked: dead at once; revoking again finds nothing.
    let args = ["team", "revoke-invitation", "sales", "bob@example.com"];
    let revoked = docket_json(&app.data_dir(), &args, None);
    assert_eq!(revoked["revoked"], true);
    assert_eq!(get(&app, &second, &bob).await.0, 410);
    let again = docket(&app.data_dir(), &args, None);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&again.stderr)
            .contains("sales has no pending invitation for bob@example.com")
    );

    // Three invitations of one address an hour, revoked ones included: no flood of mail.
    let flood = docket(
        &app.data_dir(),
        &["team", "invite", "sales", "bob@example.com"],
        None,
    );
    assert_eq!(flood.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&flood.stderr).contains("too many requests"));

    // An unknown token answers the same as a dead one.
    let (status, _, page) = get(&app, "/invitations/nosuchtoken", &bob).await;
    assert_eq!(status, 410);
    assert!(page.contains(GONE));

    // A member's address is refused, with a clear message.
    let member = docket(
        &app.data_dir(),
        &["team", "invite", "sales", "ada@example.com"],
        None,
    );
    assert_eq!(member.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&member.stderr)
            .contains("ada@example.com is already a member of sales")
    );
    // An address that is none is a usage error.
    let bad = docket(
        &app.data_dir(),
        &["team", "invite", "sales", "not-an-address"],
        None,
    );
    assert_eq!(bad.status.code(), Some(2));
    // The mail of each invitation was filed, its link with it.
    let filed: Vec<String> = app
        .db()
        .query_map(
            "SELECT body_text FROM mail_queue WHERE kind = 'TEAM_INVITATION' ORDER BY id",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(filed.len(), 3);
    assert!(filed[2].contains(&second), "{}", filed[2]);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn someone_without_an_account_makes_one_on_the_way_though_sign_up_is_closed() {
    let app = TestApp::spawn().await;
    team(&app);
    // Docket has no open sign-up: an account comes from an administrator or an invitation.
    assert_eq!(app.get("/auth/signup/anything").await.status(), 410);

    let here = path_of(&invite(&app, "new@example.com", "member"));
    let resp = app.client.get(app.url(&here)).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let page = resp.text().await.unwrap();
    assert!(
        page.contains("Create your Docket account for new@example.com"),
        "{page}"
    );
    let token = csrf(&page);
    let form = |name: &'static str, pw: &'static str, again: &'static str| {
        vec![
            ("csrf_token", token.clone()),
            ("name", name.to_string()),
            ("password", pw.to_string()),
            ("password2", again.to_string()),
        ]
    };
    let send = |fields: Vec<(&'static str, String)>| {
        let (app, here) = (&app, &here);
        async move {
            let resp = app
                .client
                .post(app.url(here))
                .form(&fields)
                .send()
                .await
                .unwrap();
            let cookies = set_cookie_pairs(&resp).join("; ");
            let (status, location, body) = answer_of(resp).await;
            (status, location, cookies, body)
        }
    };

    // The sign-up form's rules, and its token.
    let (status, _, _, page) = send(form("Nia", "short", "short")).await;
    assert_eq!(status, 400);
    assert!(page.contains("Password: "), "{page}");
    let (status, _, _, page) = send(form("Nia", PASSWORD, "another long password")).await;
    assert_eq!(status, 400);
    assert!(page.contains("The two passwords differ."), "{page}");
    let mut forged = form("Nia", PASSWORD, PASSWORD);
    forged[0].1 = "forged".into();
    assert_eq!(send(forged).await.0, 403);
    assert_eq!(roles(&app).len(), 1);

    // Made, signed in, joined, on to the team.
    let (status, location, cookie, _) = send(form("Nia", PASSWORD, PASSWORD)).await;
    assert_eq!((status, location.as_str()), (303, "/t/sales"));
    assert!(!cookie.is_empty(), "a session");
    let (status, _, page) = get(&app, "/account", &cookie).await;
    assert_eq!(status, 200);
    assert!(page.contains("new@example.com"), "{page}");
    assert!(roles(&app).contains(&("new@example.com".into(), "MEMBER".into())));
    // The account signs in with its password like any other.
    assert!(sign_in(&app, "new@example.com", PASSWORD).await.is_ok());

    // Once.
    let (status, _, _, page) = send(form("Nia", PASSWORD, PASSWORD)).await;
    assert_eq!(status, 410);
    assert!(page.contains(GONE));
    app.stop().await;
}
