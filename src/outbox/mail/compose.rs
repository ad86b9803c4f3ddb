//! The messages Docket sends: a struct per message holding what it says, and two askama
//! templates per message for its body, `pages/mail/<name>.html` and `<name>.txt`. The HTML part
//! escapes every value (`.html` templates escape by default, with the pages' escaper); the plain
//! text part (`.txt`) writes them as they are. The subject is a header, composed here.

use askama::Template;

use crate::core::i18n::{Lang, Tr};
use crate::core::ids::DocumentId;

/// A composed message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composed {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// `$message`'s `compose`: its subject (`$message::subject`) on one line, and its two templates
/// rendered with the message as `m`, the greeting of `$message::greeted` as `hello`, and the
/// words of its language as `tr`: the message's `lang` field with `lang` after the templates
/// (mail to recipients, in the document's language), English without.
macro_rules! templates {
    ($message:ident, $html:tt, $text:tt) => {
        $crate::outbox::mail::compose::templates!(@ $message, $html, $text, |_m| {
            $crate::core::i18n::Lang::En
        });
    };
    ($message:ident, $html:tt, $text:tt, lang) => {
        $crate::outbox::mail::compose::templates!(@ $message, $html, $text, |m| m.lang);
    };
    (@ $message:ident, $html:tt, $text:tt, $lang:expr) => {
        impl $message<'_> {
            pub fn compose(&self) -> $crate::outbox::mail::compose::Composed {
                #[derive(askama::Template)]
                #[template(path = $html)]
                struct Html<'a> {
                    m: &'a $message<'a>,
                    hello: &'a str,
                    // English-only parts may not need it.
                    #[allow(dead_code)]
                    tr: $crate::core::i18n::Tr,
                }
                #[derive(askama::Template)]
                #[template(path = $text)]
                struct Text<'a> {
                    m: &'a $message<'a>,
                    hello: &'a str,
                    // English-only parts may not need it.
                    #[allow(dead_code)]
                    tr: $crate::core::i18n::Tr,
                }
                use $crate::outbox::mail::compose::{greeting, one_line, part};
                let lang: fn(&$message<'_>) -> $crate::core::i18n::Lang = $lang;
                let tr = lang(self).tr();
                let hello = greeting(tr, self.greeted());
                $crate::outbox::mail::compose::Composed {
                    subject: one_line(&self.subject()),
                    text: part(&Text {
                        m: self,
                        hello: &hello,
                        tr,
                    }),
                    html: part(&Html {
                        m: self,
                        hello: &hello,
                        tr,
                    }),
                }
            }
        }
    };
}
pub(super) use templates;

/// A rendered template as a part of the message: its last line ends (the template files'
/// last line break is not part of them).
pub(super) fn part(template: &impl Template) -> String {
    let mut out = template
        .render()
        .expect("a mail template writes only text into a String");
    out.push('\n');
    out
}

/// The lines of text someone typed as the HTML part shows them, one `<br>` apart
/// (`pages/mail/parts.html`, `paragraph`): a line break is `\n` or `\r\n`.
pub(super) fn lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len() - 1;
    for line in &mut lines[..last] {
        *line = line.strip_suffix('\r').unwrap_or(line);
    }
    lines
}

/// Subjects are one line: line breaks from user input would otherwise be header injection
/// (lettre encodes them, but a broken subject is still wrong).
pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first line of every message, to `name` ("" greets nobody by name), in `tr`'s words.
pub(super) fn greeting(tr: Tr, name: &str) -> String {
    let name = name.trim();
    if name.is_empty() {
        tr.t("mail-hello")
    } else {
        tr.t1("mail-hello-name", "name", name)
    }
}

/// `text` with the signing service's placeholders for one recipient: `{signer.name}`,
/// `{signer.email}` and `{document.name}`. Other braces stay as they are. The result is plain
/// text (the HTML part escapes it).
pub fn placeholders(text: &str, name: &str, email: &str, title: &str) -> String {
    let known = [
        ("{signer.name}", name),
        ("{signer.email}", email),
        ("{document.name}", title),
    ];
    // One pass, so that a value holding a placeholder is not expanded again.
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match known.iter().find(|(key, _)| rest.starts_with(key)) {
            Some((key, value)) => {
                out.push_str(value);
                rest = &rest[key.len()..];
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text that says nothing once trimmed is left out.
fn given(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty())
}

/// What a signing request asks of its recipient, by the recipient's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Sign,
    Approve,
    View,
    Prepare,
}

/// A request to act on a document, in the document's language.
#[derive(Debug, Clone)]
pub struct SigningRequest<'a> {
    pub title: &'a str,
    pub sender_name: &'a str,
    pub recipient_name: &'a str,
    /// What the recipient is asked to do, in a sentence and on the button.
    pub action: Action,
    /// `meta.subject` and `meta.message`, when the sender gave them.
    pub subject: Option<&'a str>,
    pub message: Option<&'a str>,
    /// The recipient's signing link (a credential: never logged).
    pub link: &'a str,
    /// When the recipient must have finished (`meta.envelopeExpirationPeriod`), as they read
    /// dates; `None`: no deadline.
    pub deadline: Option<&'a str>,
    pub lang: Lang,
}

templates!(
    SigningRequest,
    "mail/signing_request.html",
    "mail/signing_request.txt",
    lang
);

impl SigningRequest<'_> {
    fn subject(&self) -> String {
        let id = match self.action {
            Action::Sign => "mail-request-subject-sign",
            Action::Approve => "mail-request-subject-approve",
            Action::View => "mail-request-subject-view",
            Action::Prepare => "mail-request-subject-prepare",
        };
        match given(self.subject) {
            Some(s) => s.to_string(),
            None => self
                .lang
                .tr()
                .t2(id, "sender", self.sender_name, "title", self.title),
        }
    }

    fn greeted(&self) -> &str {
        self.recipient_name
    }

    /// The sender's message, when there is one.
    fn message(&self) -> Option<&str> {
        given(self.message)
    }

    /// The request's sentence ("Ann has invited you to sign the document …").
    fn asks(&self) -> String {
        let id = match self.action {
            Action::Sign => "mail-request-sign",
            Action::Approve => "mail-request-approve",
            Action::View => "mail-request-view",
            Action::Prepare => "mail-request-prepare",
        };
        let tr = self.lang.tr();
        tr.t2(id, "sender", self.sender_name, "title", self.title)
    }

    /// The button's words.
    fn button(&self) -> String {
        self.lang.tr().t(match self.action {
            Action::Sign => "mail-request-button-sign",
            Action::Approve => "mail-request-button-approve",
            Action::View => "mail-request-button-view",
            Action::Prepare => "mail-request-button-prepare",
        })
    }
}

/// A link to create a Docket account for `to`, asked for from the signing page of `title`
/// (whose document wants its recipient signed in); it works once, for `minutes`.
#[derive(Debug, Clone)]
pub struct AccountInvite<'a> {
    pub title: &'a str,
    pub sender_name: &'a str,
    pub to: &'a str,
    pub link: &'a str,
    pub minutes: i64,
    /// The document's language.
    pub lang: Lang,
}

templates!(
    AccountInvite,
    "mail/account_invite.html",
    "mail/account_invite.txt",
    lang
);

impl AccountInvite<'_> {
    fn subject(&self) -> String {
        self.lang
            .tr()
            .t1("mail-invite-subject", "title", self.title)
    }

    fn greeted(&self) -> &str {
        ""
    }
}

/// A six-digit `code` to finish on the signing page of `title`, asked for there by its
/// recipient (TWO_FACTOR_AUTH by e-mail); it works once, for `minutes`.
#[derive(Debug, Clone)]
pub struct EmailedCode<'a> {
    pub title: &'a str,
    pub code: &'a str,
    pub minutes: i64,
    /// The document's language.
    pub lang: Lang,
}

templates!(
    EmailedCode,
    "mail/emailed_code.html",
    "mail/emailed_code.txt",
    lang
);

impl EmailedCode<'_> {
    fn subject(&self) -> String {
        self.lang.tr().t1("mail-code-subject", "title", self.title)
    }

    fn greeted(&self) -> &str {
        ""
    }
}

/// How `email`'s account signs in changed (`what`, e.g. "A passkey named \"Laptop\" was
/// added"), so that its owner notices a change they did not make.
#[derive(Debug, Clone)]
pub struct SecurityNotice<'a> {
    pub name: &'a str,
    pub email: &'a str,
    pub what: &'a str,
}

templates!(
    SecurityNotice,
    "mail/security_notice.html",
    "mail/security_notice.txt"
);

impl SecurityNotice<'_> {
    fn subject(&self) -> String {
        "Your Docket sign-in security changed".into()
    }

    fn greeted(&self) -> &str {
        self.name
    }
}

/// Something new may now act for `email`'s account or read its documents (`what`, e.g. "An
/// API token named \"CI\" that never expires was created"), at `when` from `from` (the
/// client's address and browser): what to do if it was not them (`undo`, where to remove it),
/// and the password change that revokes all of it at once.
#[derive(Debug, Clone)]
pub struct AccessNotice<'a> {
    pub name: &'a str,
    pub email: &'a str,
    pub what: &'a str,
    pub when: &'a str,
    pub from: &'a str,
    pub undo: &'a str,
}

templates!(
    AccessNotice,
    "mail/access_notice.html",
    "mail/access_notice.txt"
);

impl AccessNotice<'_> {
    fn subject(&self) -> String {
        "Your Docket account: new access was added".into()
    }

    fn greeted(&self) -> &str {
        self.name
    }
}

/// The document is signed by everyone; the sealed PDF is attached by the caller.
#[derive(Debug, Clone)]
pub struct Completed<'a> {
    pub title: &'a str,
    pub recipient_name: &'a str,
    /// The document's language for a recipient, English for its owner.
    pub lang: Lang,
}

templates!(Completed, "mail/completed.html", "mail/completed.txt", lang);

impl Completed<'_> {
    fn subject(&self) -> String {
        self.lang
            .tr()
            .t1("mail-completed-subject", "title", self.title)
    }

    fn greeted(&self) -> &str {
        self.recipient_name
    }
}

/// Someone (`by`) rejected the document; the others are told who and why (`reason`, which may
/// be empty).
#[derive(Debug, Clone)]
pub struct Rejected<'a> {
    pub title: &'a str,
    pub recipient_name: &'a str,
    pub by: &'a str,
    pub reason: &'a str,
    /// The document's language for a recipient, English for its owner.
    pub lang: Lang,
}

templates!(Rejected, "mail/rejected.html", "mail/rejected.txt", lang);

impl Rejected<'_> {
    fn subject(&self) -> String {
        self.lang
            .tr()
            .t1("mail-rejected-subject", "title", self.title)
    }

    fn greeted(&self) -> &str {
        self.recipient_name
    }

    /// The reason, when one was given.
    fn reason(&self) -> Option<&str> {
        given(Some(self.reason))
    }
}

/// To the owner: `by` (a name and address) came through the direct link of a template and
/// signed `title`, the document it made; `next` says who is asked now (empty: nobody, the
/// document is being sealed). `link` is the document's page.
#[derive(Debug, Clone)]
pub struct DirectLinkSigned<'a> {
    pub title: &'a str,
    pub owner_name: &'a str,
    pub by: &'a str,
    pub next: &'a [String],
    pub link: &'a str,
}

templates!(
    DirectLinkSigned,
    "mail/direct_link_signed.html",
    "mail/direct_link_signed.txt"
);

impl DirectLinkSigned<'_> {
    fn subject(&self) -> String {
        format!("Signed through your direct link: \"{}\"", self.title)
    }

    fn greeted(&self) -> &str {
        self.owner_name
    }
}

/// To the owner, once: a recipient's time to act passed before they finished.
#[derive(Debug, Clone)]
pub struct RecipientExpired<'a> {
    pub title: &'a str,
    pub owner_name: &'a str,
    /// The recipient, as "Name <address>".
    pub who: &'a str,
    /// When their time ended, as people read it.
    pub ended: &'a str,
    /// The document's page, where the owner resends or cancels.
    pub link: &'a str,
}

templates!(
    RecipientExpired,
    "mail/recipient_expired.html",
    "mail/recipient_expired.txt"
);

impl RecipientExpired<'_> {
    fn subject(&self) -> String {
        format!("A recipient's time ran out: \"{}\"", self.title)
    }

    fn greeted(&self) -> &str {
        self.owner_name
    }
}

/// The sender cancelled the document; signing links stop working.
#[derive(Debug, Clone)]
pub struct Cancelled<'a> {
    pub title: &'a str,
    pub recipient_name: &'a str,
    pub sender_name: &'a str,
    /// The document's language.
    pub lang: Lang,
}

templates!(Cancelled, "mail/cancelled.html", "mail/cancelled.txt", lang);

impl Cancelled<'_> {
    fn subject(&self) -> String {
        self.lang
            .tr()
            .t1("mail-cancelled-subject", "title", self.title)
    }

    fn greeted(&self) -> &str {
        self.recipient_name
    }
}

/// Sealing the finished document failed (`error`); Docket retries on its own, next at
/// `next_attempt`. Sent to the owner once.
#[derive(Debug, Clone)]
pub struct SealFailed<'a> {
    pub title: &'a str,
    pub owner_name: &'a str,
    pub document_id: DocumentId,
    pub error: &'a str,
    pub next_attempt: &'a str,
}

templates!(SealFailed, "mail/seal_failed.html", "mail/seal_failed.txt");

impl SealFailed<'_> {
    fn subject(&self) -> String {
        format!("Sealing failed: \"{}\"", self.title)
    }

    fn greeted(&self) -> &str {
        self.owner_name
    }
}

/// `docket mail test`: proves the mail path works end to end, from the appliance at `server`.
#[derive(Debug, Clone)]
pub struct TestMessage<'a> {
    pub server: &'a str,
}

templates!(TestMessage, "mail/test.html", "mail/test.txt");

impl TestMessage<'_> {
    fn subject(&self) -> String {
        "Docket test message".into()
    }

    fn greeted(&self) -> &str {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req<'a>(
        action: Action,
        subject: Option<&'a str>,
        message: Option<&'a str>,
    ) -> SigningRequest<'a> {
        SigningRequest {
            title: "Lease <b>& co</b>",
            sender_name: "Ann \"A\" O'Neil",
            recipient_name: "Bob",
            action,
            subject,
            message,
            link: "https://d.example/sign/tok?a=1&b=2",
            deadline: None,
            lang: Lang::En,
        }
    }

    #[test]
    fn placeholders_name_the_recipient_and_the_document() {
        assert_eq!(
            placeholders(
                "Hi {signer.name} <{signer.email}>, sign {document.name} {other} {signer.name}",
                "Bo",
                "bo@example.com",
                "NDA"
            ),
            "Hi Bo <bo@example.com>, sign NDA {other} Bo"
        );
        // A value that looks like a placeholder is not expanded again.
        assert_eq!(
            placeholders("{signer.name}", "{document.name}", "e", "T"),
            "{document.name}"
        );
    }

    #[test]
    fn typed_lines_split_at_either_line_break() {
        assert_eq!(lines("a\r\nb\nc\r"), ["a", "b", "c\r"]);
        assert_eq!(lines("a\r\r\n"), ["a\r", ""]);
        assert_eq!(lines(""), [""]);
    }

    #[test]
    fn signing_request_defaults_escapes_and_links() {
        let m = req(Action::Sign, None, None).compose();
        assert_eq!(
            m.subject,
            "Ann \"A\" O'Neil invited you to sign \"Lease <b>& co</b>\""
        );
        assert!(m.text.contains("Hello Bob,"));
        assert!(m.text.contains("https://d.example/sign/tok?a=1&b=2"));
        assert!(m.html.contains("Lease &lt;b&gt;&amp; co&lt;/b&gt;"));
        assert!(m.html.contains("Ann &quot;A&quot; O&#39;Neil"));
        assert!(
            m.html
                .contains("href=\"https://d.example/sign/tok?a=1&amp;b=2\"")
        );
        assert!(!m.html.contains("<b>"));
        assert!(m.html.contains("Sign the document"));
    }

    #[test]
    fn signing_request_uses_meta_and_the_action_wording() {
        let m = req(
            Action::Approve,
            Some("  Please\r\nreview  "),
            Some("Line one\n<script>x</script>"),
        )
        .compose();
        assert_eq!(m.subject, "Please review");
        assert!(m.text.contains("invited you to approve"));
        assert!(m.text.contains("Line one\n<script>x</script>"));
        assert!(
            m.html
                .contains("Line one<br>\n&lt;script&gt;x&lt;/script&gt;")
        );
        assert!(m.html.contains("Review and approve"));
        let v = req(Action::View, Some(" "), None).compose();
        assert!(v.subject.contains("invited you to view"));
    }

    #[test]
    fn seal_failed_says_what_went_wrong_and_escapes_it() {
        let m = SealFailed {
            title: "Lease <b>",
            owner_name: "Olga",
            document_id: DocumentId::new(42),
            error: "a field is on page 3 & more",
            next_attempt: "1 Jan 2030, 10:00 UTC",
        }
        .compose();
        assert_eq!(m.subject, "Sealing failed: \"Lease <b>\"");
        assert!(m.text.contains("a field is on page 3 & more"), "{}", m.text);
        assert!(m.text.contains("1 Jan 2030, 10:00 UTC") && m.text.contains("document 42"));
        assert!(m.html.contains("Lease &lt;b&gt;") && m.html.contains("page 3 &amp; more"));
        assert!(!m.html.contains("<b>"));
    }

    #[test]
    fn rejected_names_who_and_why() {
        let m = Rejected {
            title: "T",
            recipient_name: "Ann",
            by: "bob@example.com",
            reason: "Wrong <date>",
            lang: Lang::En,
        }
        .compose();
        assert!(m.text.contains("bob@example.com has rejected"));
        assert!(m.text.contains("Wrong <date>"));
        assert!(m.html.contains("Wrong &lt;date&gt;"));
        let c = Cancelled {
            title: "T",
            recipient_name: "",
            sender_name: "Ann",
            lang: Lang::En,
        }
        .compose();
        assert!(c.text.starts_with("Hello,"));
        let done = Completed {
            title: "T",
            recipient_name: "Bob",
            lang: Lang::En,
        };
        assert!(done.compose().subject.starts_with("Completed"));
    }
}
