//! Every message rendered with fixed, hostile inputs (markup, `&`, both quotes, line breaks in
//! names, titles and messages): the HTML part escapes all of it, the plain-text part keeps it as
//! typed, and the whole output is the kept copy `golden/bodies.txt` (with `DOCKET_WRITE_MAIL=1`
//! the test writes it instead), so that a change to a template shows as a change to the mail.
//! The kept copy was written by the bodies built with `format!` before the templates, and the
//! templates give it byte for byte.

use super::compose::{
    AccessNotice, AccountInvite, Action, Cancelled, Completed, Composed, DirectLinkSigned,
    EmailedCode,
};
use super::compose::{
    RecipientExpired, Rejected, SealFailed, SecurityNotice, SigningRequest, TestMessage,
};
use super::compose_account::{EmailChange, PasswordReset};
use super::compose_team::{TeamAdded, TeamInvitation, TeamRemoved};
use crate::core::i18n::Lang;
use crate::core::ids::DocumentId;

const NAME: &str = "Ann \"A\" <script>alert('x')</script> & O'Neil\nNext";
const TITLE: &str = "Lease <b>& \"co\"</b>\r\n'x'";
const MESSAGE: &str = "Line one\r\n<script>x</script> & \"q\"\n\nLast\rline";
const LINK: &str = "https://d.example/sign/t?a=1&b=\"x\"<y>";

/// Each message under a name, with hostile and with ordinary inputs.
fn cases() -> Vec<(&'static str, Composed)> {
    let next = vec!["Bo <bo@x.org>".to_string(), "C & D".to_string()];
    let mut all = base_cases(&next);
    all.extend(team_cases());
    all.extend(language_cases());
    all
}

/// The messages recipients get, in a document's language other than English: every word but
/// the sender's own (title, subject, message, names) is the language's.
fn language_cases() -> Vec<(&'static str, Composed)> {
    let sender = "Ann im Auftrag von Acme <b>";
    vec![
        (
            "signing_request_de",
            SigningRequest {
                title: TITLE,
                sender_name: sender,
                recipient_name: NAME,
                action: Action::Sign,
                subject: None,
                message: Some(MESSAGE),
                link: LINK,
                deadline: Some("15. Januar 2027 <17:00> (Europe/Berlin)"),
                lang: Lang::De,
            }
            .compose(),
        ),
        (
            "signing_request_fr_approve_plain",
            SigningRequest {
                title: "NDA",
                sender_name: "Ann",
                recipient_name: "",
                action: Action::Approve,
                subject: None,
                message: None,
                link: "https://d.example/sign/t",
                deadline: None,
                lang: Lang::Fr,
            }
            .compose(),
        ),
        (
            "account_invite_es_plain",
            AccountInvite {
                title: "NDA",
                sender_name: "Ann",
                to: "bo@x.org",
                link: "https://d.example/auth/signup/c",
                minutes: 60,
                lang: Lang::Es,
            }
            .compose(),
        ),
        (
            "emailed_code_de_plain",
            EmailedCode {
                title: "NDA",
                code: "042917",
                minutes: 10,
                lang: Lang::De,
            }
            .compose(),
        ),
        (
            "completed_it",
            Completed {
                title: TITLE,
                recipient_name: NAME,
                lang: Lang::It,
            }
            .compose(),
        ),
        (
            "rejected_nl_plain",
            Rejected {
                title: "NDA",
                recipient_name: "Bo",
                by: "Cy <cy@x.org>",
                reason: "Wrong <date>",
                lang: Lang::Nl,
            }
            .compose(),
        ),
        (
            "cancelled_pl_plain",
            Cancelled {
                title: "NDA",
                recipient_name: "Bo",
                sender_name: "Ann",
                lang: Lang::Pl,
            }
            .compose(),
        ),
        (
            "signing_request_pt_view_plain",
            SigningRequest {
                title: "NDA",
                sender_name: "Ann",
                recipient_name: "Bo",
                action: Action::View,
                subject: None,
                message: None,
                link: "https://d.example/sign/t",
                deadline: None,
                lang: Lang::Pt,
            }
            .compose(),
        ),
    ]
}

/// The messages recipients get of a team's document: the sender is the member on behalf of
/// the team, as `signing::documents::team_settings::sender_shown` words it (its tests pin the
/// wording), a hostile team name escaped like any other.
fn team_cases() -> Vec<(&'static str, Composed)> {
    let hostile = "Ann on behalf of Sales <b>& \"Co\"</b>";
    let plain = "Ann on behalf of Acme Sales";
    vec![
        (
            "signing_request_team",
            SigningRequest {
                title: TITLE,
                sender_name: hostile,
                recipient_name: NAME,
                action: Action::Sign,
                subject: None,
                message: Some(MESSAGE),
                link: LINK,
                deadline: None,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "signing_request_team_plain",
            SigningRequest {
                title: "NDA",
                sender_name: plain,
                recipient_name: "Bo",
                action: Action::Approve,
                subject: None,
                message: None,
                link: "https://d.example/sign/t",
                deadline: None,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "account_invite_team_plain",
            AccountInvite {
                title: "NDA",
                sender_name: plain,
                to: "bo@x.org",
                link: "https://d.example/auth/signup/c",
                minutes: 60,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "cancelled_team",
            Cancelled {
                title: TITLE,
                recipient_name: NAME,
                sender_name: hostile,
                lang: Lang::En,
            }
            .compose(),
        ),
    ]
}

fn base_cases(next: &[String]) -> Vec<(&'static str, Composed)> {
    vec![
        (
            "signing_request",
            SigningRequest {
                title: TITLE,
                sender_name: NAME,
                recipient_name: NAME,
                action: Action::Sign,
                subject: None,
                message: Some(MESSAGE),
                link: LINK,
                deadline: None,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "signing_request_plain",
            SigningRequest {
                title: "NDA",
                sender_name: "Ann",
                recipient_name: "  ",
                action: Action::View,
                subject: Some(" Please\r\n<look> "),
                message: Some("  "),
                link: "https://d.example/sign/t",
                deadline: None,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "account_invite",
            AccountInvite {
                title: TITLE,
                sender_name: NAME,
                to: "a<b>@x.org",
                link: LINK,
                minutes: 60,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "emailed_code",
            EmailedCode {
                title: TITLE,
                code: "042917",
                minutes: 10,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "security_notice",
            SecurityNotice {
                name: NAME,
                email: "a<b>@x.org",
                what: "A passkey named \"<Laptop>\" was added",
            }
            .compose(),
        ),
        (
            "access_notice",
            AccessNotice {
                name: NAME,
                email: "a<b>@x.org",
                what: "An API token named \"<CI>\" & more was created",
                when: "1 Jan 2030 <b>",
                from: "10.0.0.1 \"Firefox\"\n<i>",
                undo: "remove it under <Account>",
            }
            .compose(),
        ),
        (
            "completed",
            Completed {
                title: TITLE,
                recipient_name: NAME,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "completed_plain",
            Completed {
                title: "NDA",
                recipient_name: "",
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "rejected",
            Rejected {
                title: TITLE,
                recipient_name: NAME,
                by: NAME,
                reason: MESSAGE,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "rejected_plain",
            Rejected {
                title: "NDA",
                recipient_name: "Bo",
                by: "Ann",
                reason: " \n ",
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "direct_link_signed",
            DirectLinkSigned {
                title: TITLE,
                owner_name: NAME,
                by: NAME,
                next,
                link: LINK,
            }
            .compose(),
        ),
        (
            "direct_link_signed_last",
            DirectLinkSigned {
                title: "NDA",
                owner_name: "Olga",
                by: "Ann <a@x.org>",
                next: &[],
                link: LINK,
            }
            .compose(),
        ),
        (
            "cancelled",
            Cancelled {
                title: TITLE,
                recipient_name: NAME,
                sender_name: NAME,
                lang: Lang::En,
            }
            .compose(),
        ),
        (
            "recipient_expired",
            RecipientExpired {
                title: TITLE,
                owner_name: NAME,
                who: "Ann <a@x.org>",
                ended: "1 Jan <2030>",
                link: LINK,
            }
            .compose(),
        ),
        (
            "seal_failed",
            SealFailed {
                title: TITLE,
                owner_name: NAME,
                document_id: DocumentId::new(42),
                error: MESSAGE,
                next_attempt: "1 Jan <2030>",
            }
            .compose(),
        ),
        (
            "test",
            TestMessage {
                server: "https://d.example/?a=<b>&c=\"d\"",
            }
            .compose(),
        ),
        (
            "password_reset",
            PasswordReset {
                name: NAME,
                email: "a<b>@x.org",
                link: LINK,
                minutes: 60,
            }
            .compose(),
        ),
        (
            "email_change",
            EmailChange {
                name: NAME,
                new_email: "a<b>@x.org",
                link: LINK,
                minutes: 30,
            }
            .compose(),
        ),
        (
            "team_invitation",
            TeamInvitation {
                team: TITLE,
                inviter: NAME,
                role: "a <manager>",
                to: "a<b>@x.org",
                link: LINK,
                expires: "13 Dec <2026>",
            }
            .compose(),
        ),
        (
            "team_added",
            TeamAdded {
                name: NAME,
                team: TITLE,
                role: "a member",
                by: NAME,
                link: LINK,
            }
            .compose(),
        ),
        (
            "team_removed",
            TeamRemoved {
                name: NAME,
                team: TITLE,
                by: NAME,
            }
            .compose(),
        ),
        (
            "team_removed_plain",
            TeamRemoved {
                name: "",
                team: "Sales",
                by: "An administrator",
            }
            .compose(),
        ),
    ]
}

fn render(cases: &[(&str, Composed)]) -> String {
    let mut out = String::new();
    for (name, m) in cases {
        out.push_str(&format!(
            "=== {name}\n--- subject\n{}\n--- text\n{}--- html\n{}",
            m.subject, m.text, m.html
        ));
    }
    // A carriage return is kept visible: the inputs hold no backslash.
    out.replace('\r', "\\r")
}

#[test]
fn bodies_are_the_kept_ones() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/outbox/mail/golden/bodies.txt"
    );
    let now = render(&cases());
    if std::env::var_os("DOCKET_WRITE_MAIL").is_some() {
        std::fs::write(path, &now).unwrap();
    }
    let kept = std::fs::read_to_string(path).unwrap_or_default();
    let (now, kept): (Vec<_>, Vec<_>) = (now.split("=== ").collect(), kept.split("=== ").collect());
    for (n, k) in now.iter().zip(&kept) {
        assert_eq!(n, k, "src/outbox/mail/golden/bodies.txt differs");
    }
    assert_eq!(now.len(), kept.len(), "the number of messages");
}

#[test]
fn html_escapes_what_was_typed_and_text_keeps_it() {
    for (name, m) in cases() {
        for raw in [
            "<script>",
            "<b>",
            "<y>",
            "<i>",
            "<look>",
            "<Laptop>",
            "<CI>",
            "<Account>",
            "<manager>",
            "<2026>",
        ] {
            assert!(!m.html.contains(raw), "{name}: {raw} in the HTML part");
            assert!(
                !m.subject.contains('\n'),
                "{name}: a line break in the subject"
            );
        }
        let hostile = [NAME, TITLE, MESSAGE, LINK]
            .iter()
            .any(|v| m.text.contains(&v.replace("\r\n", "\n")) || m.text.contains(v));
        if !name.ends_with("_plain") && !name.ends_with("_last") && name != "test" {
            assert!(hostile, "{name}: the text part keeps the input as typed");
            assert!(
                m.html.contains("&lt;") && m.html.contains("&amp;") && m.html.contains("&quot;"),
                "{name}: escaped markup"
            );
            // Both quotes, in a value (the escaper's own entities).
            if m.text.contains("Ann \"A\"") {
                assert!(
                    m.html
                        .contains("Ann &quot;A&quot; &lt;script&gt;alert(&#39;x&#39;)")
                );
            }
        }
    }
}
