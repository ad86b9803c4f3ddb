//! The messages Docket sends, as plain functions: subject, plain text and HTML. Everything a
//! user typed (titles, names, messages, reasons) is escaped before it enters the HTML part.

/// A composed message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Composed {
    pub subject: String,
    pub text: String,
    pub html: String,
}

// `s` safe inside HTML text and attribute values (pages escape through their templates, with
// the same escaper).
use crate::core::html::escape as escape_html;
use crate::core::ids::DocumentId;

/// Escaped text with its line breaks kept.
fn paragraph(s: &str) -> String {
    escape_html(s).replace("\r\n", "\n").replace('\n', "<br>\n")
}

/// Subjects are one line: line breaks from user input would otherwise be header injection
/// (lettre encodes them, but a broken subject is still wrong).
pub(super) fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The HTML frame around a message: `lead`, `body` and `after` are HTML already.
pub(super) fn page(lead: &str, body: &str, button: Option<(&str, &str)>, after: &str) -> String {
    let button = button
        .map(|(label, href)| {
            format!(
                "<p style=\"margin:24px 0\"><a href=\"{}\" style=\"background:#1f4fd1;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none;display:inline-block\">{}</a></p>\n",
                escape_html(href),
                escape_html(label)
            )
        })
        .unwrap_or_default();
    format!(
        "<!doctype html>\n<html><body style=\"font-family:system-ui,sans-serif;color:#1d1d1f;max-width:560px;margin:0 auto;padding:24px\">\n<p>{lead}</p>\n{body}{button}{after}<p style=\"color:#666;font-size:13px\">Sent by Docket.</p>\n</body></html>\n"
    )
}

/// `text` with the signing service's placeholders for one recipient: `{signer.name}`,
/// `{signer.email}` and `{document.name}`. Other braces stay as they are. The result is plain
/// text (the composers escape it for the HTML part).
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

/// A request to act on a document.
#[derive(Debug, Clone)]
pub struct SigningRequest<'a> {
    pub title: &'a str,
    pub sender_name: &'a str,
    pub recipient_name: &'a str,
    /// What the recipient is asked to do, in a sentence and on the button: `("sign", "Sign
    /// the document")`.
    pub action: (&'a str, &'a str),
    /// `meta.subject` and `meta.message`, when the sender gave them.
    pub subject: Option<&'a str>,
    pub message: Option<&'a str>,
    /// The recipient's signing link (a credential: never logged).
    pub link: &'a str,
}

pub(super) fn greeting(name: &str) -> String {
    let name = name.trim();
    if name.is_empty() {
        "Hello,".into()
    } else {
        format!("Hello {name},")
    }
}

pub fn signing_request(r: &SigningRequest<'_>) -> Composed {
    let (verb, button) = r.action;
    let subject = match r.subject.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => one_line(s),
        None => one_line(&format!(
            "{} invited you to {verb} \"{}\"",
            r.sender_name, r.title
        )),
    };
    let invitation = format!(
        "{} has invited you to {verb} the document \"{}\".",
        r.sender_name, r.title
    );
    let message = r.message.map(str::trim).filter(|m| !m.is_empty());
    let mut text = format!("{}\n\n{invitation}\n\n", greeting(r.recipient_name));
    if let Some(m) = message {
        text.push_str(&format!("Message from {}:\n{m}\n\n", r.sender_name));
    }
    text.push_str(&format!(
        "{button}: {}\n\nThis link is personal: do not forward it.\n",
        r.link
    ));
    let mut body = format!("<p>{}</p>\n", escape_html(&invitation));
    if let Some(m) = message {
        body.push_str(&format!(
            "<blockquote style=\"border-left:3px solid #ccc;margin:0;padding-left:12px\">{}</blockquote>\n",
            paragraph(m)
        ));
    }
    let footer = format!(
        "<p style=\"font-size:13px;color:#666\">Or open this link: <a href=\"{0}\">{0}</a><br>This link is personal: do not forward it.</p>\n",
        escape_html(r.link)
    );
    let html = page(
        &escape_html(&greeting(r.recipient_name)),
        &body,
        Some((button, r.link)),
        &footer,
    );
    Composed {
        subject,
        text,
        html,
    }
}

/// A link to create a Docket account for `to`, asked for from the signing page of `title`
/// (whose document wants its recipient signed in).
pub fn account_invite(
    title: &str,
    sender_name: &str,
    to: &str,
    link: &str,
    minutes: i64,
) -> Composed {
    let line = format!(
        "{sender_name} sent you \"{title}\" and asks you to sign in to a Docket account before you act on it. \
         Follow this link to create your account for {to}: you choose a password there, then go on to the document."
    );
    let after = format!(
        "The link works once, for {minutes} minutes. If you did not ask for it, ignore this message."
    );
    Composed {
        subject: one_line(&format!("Create your Docket account to open \"{title}\"")),
        text: format!("Hello,\n\n{line}\n\n{link}\n\n{after}\n"),
        html: page(
            "Hello,",
            &format!("<p>{}</p>\n", escape_html(&line)),
            Some(("Create your account", link)),
            &format!("<p style=\"color:#666\">{}</p>\n", escape_html(&after)),
        ),
    }
}

/// How `email`'s account signs in changed (`what`, e.g. "A passkey named \"Laptop\" was
/// added"), so that its owner notices a change they did not make.
pub fn security_notice(name: &str, email: &str, what: &str) -> Composed {
    let line = format!("{what} on your Docket account {email}.");
    let after = "If this was you, there is nothing to do. If it was not, someone may be signed in \
                 to your account: sign in, check \"Sign-in security\" on your account page, and \
                 ask your administrator to reset your second factors if you cannot.";
    Composed {
        subject: one_line("Your Docket sign-in security changed"),
        text: format!("{}\n\n{line}\n\n{after}\n", greeting(name)),
        html: page(
            &escape_html(&greeting(name)),
            &format!("<p>{}</p>\n", escape_html(&line)),
            None,
            &format!("<p style=\"color:#666\">{}</p>\n", escape_html(after)),
        ),
    }
}

/// Something new may now act for `email`'s account or read its documents (`what`, e.g. "An
/// API token named \"CI\" that never expires was created"), at `when` from `from` (the
/// client's address and browser): what to do if it was not them (`undo`, where to remove it),
/// and the password change that revokes all of it at once.
pub fn access_notice(
    name: &str,
    email: &str,
    what: &str,
    when: &str,
    from: &str,
    undo: &str,
) -> Composed {
    let line = format!("{what} on your Docket account {email}.");
    let facts = format!("When: {when}\nFrom: {from}");
    let after = format!(
        "If this was you, there is nothing to do. If it was not, someone is signed in to your \
         account: {undo}, then change your password and tick \"Also revoke every API token, \
         webhook and connected app\" (or reset it with \"Forgot password?\", which offers \
         the same)."
    );
    Composed {
        subject: one_line("Your Docket account: new access was added"),
        text: format!("{}\n\n{line}\n\n{facts}\n\n{after}\n", greeting(name)),
        html: page(
            &escape_html(&greeting(name)),
            &format!(
                "<p>{}</p>\n<p>{}</p>\n",
                escape_html(&line),
                paragraph(&facts)
            ),
            None,
            &format!("<p style=\"color:#666\">{}</p>\n", escape_html(&after)),
        ),
    }
}

/// The document is signed by everyone; the sealed PDF is attached by the caller.
pub fn completed(title: &str, recipient_name: &str) -> Composed {
    let line = format!("Everyone has signed \"{title}\". The signed PDF is attached.");
    Composed {
        subject: one_line(&format!("Completed: \"{title}\"")),
        text: format!("{}\n\n{line}\n", greeting(recipient_name)),
        html: page(
            &escape_html(&greeting(recipient_name)),
            &format!("<p>{}</p>\n", escape_html(&line)),
            None,
            "",
        ),
    }
}

/// Someone rejected the document; the others are told who and why.
pub fn rejected(title: &str, recipient_name: &str, by: &str, reason: &str) -> Composed {
    let line = format!("{by} has rejected the document \"{title}\". It will not be completed.");
    let reason = reason.trim();
    let mut text = format!("{}\n\n{line}\n", greeting(recipient_name));
    let mut body = format!("<p>{}</p>\n", escape_html(&line));
    if !reason.is_empty() {
        text.push_str(&format!("\nReason:\n{reason}\n"));
        body.push_str(&format!(
            "<p>Reason:</p>\n<blockquote style=\"border-left:3px solid #ccc;margin:0;padding-left:12px\">{}</blockquote>\n",
            paragraph(reason)
        ));
    }
    Composed {
        subject: one_line(&format!("Rejected: \"{title}\"")),
        text,
        html: page(&escape_html(&greeting(recipient_name)), &body, None, ""),
    }
}

/// To the owner: `by` (a name and address) came through the direct link of a template and
/// signed `title`, the document it made; `next` says who is asked now (empty: nobody, the
/// document is being sealed). `link` is the document's page.
pub fn direct_link_signed(
    title: &str,
    owner_name: &str,
    by: &str,
    next: &[String],
    link: &str,
) -> Composed {
    let line =
        format!("{by} filled in and signed \"{title}\" through your template's direct link.");
    let after = if next.is_empty() {
        "Nobody else needs to act: the signed PDF follows once it is sealed.".to_string()
    } else {
        format!("It now goes to {}.", next.join(", "))
    };
    Composed {
        subject: one_line(&format!("Signed through your direct link: \"{title}\"")),
        text: format!(
            "{}\n\n{line}\n{after}\n\nOpen the document: {link}\n",
            greeting(owner_name)
        ),
        html: page(
            &escape_html(&greeting(owner_name)),
            &format!(
                "<p>{}<br>\n{}</p>\n",
                escape_html(&line),
                escape_html(&after)
            ),
            Some(("Open the document", link)),
            "",
        ),
    }
}

/// The sender cancelled the document; signing links stop working.
pub fn cancelled(title: &str, recipient_name: &str, sender_name: &str) -> Composed {
    let line = format!(
        "{sender_name} has cancelled the document \"{title}\". You no longer need to act on it, and its signing link no longer works."
    );
    Composed {
        subject: one_line(&format!("Cancelled: \"{title}\"")),
        text: format!("{}\n\n{line}\n", greeting(recipient_name)),
        html: page(
            &escape_html(&greeting(recipient_name)),
            &format!("<p>{}</p>\n", escape_html(&line)),
            None,
            "",
        ),
    }
}

/// Sealing the finished document failed; Docket retries on its own. Sent to the owner once.
pub fn seal_failed(
    title: &str,
    owner_name: &str,
    document_id: DocumentId,
    error: &str,
    next_attempt: &str,
) -> Composed {
    let line =
        format!("Everyone has finished \"{title}\", but Docket could not seal the signed PDF.");
    let retry = format!(
        "Docket tries again on its own (next at {next_attempt}, then less and less often) and sends the signed PDF once sealing succeeds; you will not get this message again for this document. If it keeps failing, ask your Docket administrator to look at document {document_id} in the server log."
    );
    let error = error.trim();
    Composed {
        subject: one_line(&format!("Sealing failed: \"{title}\"")),
        text: format!(
            "{}\n\n{line}\n\nWhat went wrong:\n{error}\n\n{retry}\n",
            greeting(owner_name)
        ),
        html: page(
            &escape_html(&greeting(owner_name)),
            &format!(
                "<p>{}</p>\n<p>What went wrong:</p>\n<blockquote style=\"border-left:3px solid #ccc;margin:0;padding-left:12px\">{}</blockquote>\n<p>{}</p>\n",
                escape_html(&line),
                paragraph(error),
                escape_html(&retry)
            ),
            None,
            "",
        ),
    }
}

/// `docket mail test`: proves the mail path works end to end.
pub fn test(server: &str) -> Composed {
    let line = format!("This is a test message from the Docket appliance at {server}.");
    Composed {
        subject: "Docket test message".into(),
        text: format!("Hello,\n\n{line}\nIf you can read it, outgoing mail works.\n"),
        html: page(
            "Hello,",
            &format!(
                "<p>{}<br>If you can read it, outgoing mail works.</p>\n",
                escape_html(&line)
            ),
            None,
            "",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req<'a>(
        action: (&'a str, &'a str),
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
    fn escapes_every_special_character() {
        assert_eq!(
            escape_html(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
    }

    #[test]
    fn signing_request_defaults_escapes_and_links() {
        let m = signing_request(&req(("sign", "Sign the document"), None, None));
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
        let m = signing_request(&req(
            ("approve", "Review and approve"),
            Some("  Please\r\nreview  "),
            Some("Line one\n<script>x</script>"),
        ));
        assert_eq!(m.subject, "Please review");
        assert!(m.text.contains("invited you to approve"));
        assert!(m.text.contains("Line one\n<script>x</script>"));
        assert!(
            m.html
                .contains("Line one<br>\n&lt;script&gt;x&lt;/script&gt;")
        );
        assert!(m.html.contains("Review and approve"));
        let v = signing_request(&req(("view", "View the document"), Some(" "), None));
        assert!(v.subject.contains("invited you to view"));
    }

    #[test]
    fn seal_failed_says_what_went_wrong_and_escapes_it() {
        let m = seal_failed(
            "Lease <b>",
            "Olga",
            DocumentId::new(42),
            "a field is on page 3 & more",
            "1 Jan 2030, 10:00 UTC",
        );
        assert_eq!(m.subject, "Sealing failed: \"Lease <b>\"");
        assert!(m.text.contains("a field is on page 3 & more"), "{}", m.text);
        assert!(m.text.contains("1 Jan 2030, 10:00 UTC") && m.text.contains("document 42"));
        assert!(m.html.contains("Lease &lt;b&gt;") && m.html.contains("page 3 &amp; more"));
        assert!(!m.html.contains("<b>"));
    }

    #[test]
    fn rejected_names_who_and_why() {
        let m = rejected("T", "Ann", "bob@example.com", "Wrong <date>");
        assert!(m.text.contains("bob@example.com has rejected"));
        assert!(m.text.contains("Wrong <date>"));
        assert!(m.html.contains("Wrong &lt;date&gt;"));
        let c = cancelled("T", "", "Ann");
        assert!(c.text.starts_with("Hello,"));
        assert!(completed("T", "Bob").subject.starts_with("Completed"));
    }
}
