//! The messages of accounts people run themselves: the one-time links to choose a new password
//! and to confirm a new e-mail address. (What changed is told by `compose::security_notice`.)

use super::compose::{Composed, greeting, one_line, page};
use crate::core::html::escape as escape_html;

/// A one-time link, `minutes` long, as a message to `name`: `line` says why, `button` is the
/// link's label; `ignore` says what not asking for it means.
fn one_time_link(
    subject: &str,
    name: &str,
    line: &str,
    (button, link): (&str, &str),
    minutes: i64,
    ignore: &str,
) -> Composed {
    let after = format!("The link works once, for {minutes} minutes. {ignore}");
    Composed {
        subject: one_line(subject),
        text: format!(
            "{}\n\n{line}\n\n{button}: {link}\n\n{after}\n",
            greeting(name)
        ),
        html: page(
            &escape_html(&greeting(name)),
            &format!("<p>{}</p>\n", escape_html(line)),
            Some((button, link)),
            &format!(
                "<p style=\"font-size:13px;color:#666\">Or open this link: <a href=\"{0}\">{0}</a><br>{1}</p>\n",
                escape_html(link),
                escape_html(&after)
            ),
        ),
    }
}

/// "Forgot password?": the link to choose a new password for the account `email`.
pub fn password_reset(name: &str, email: &str, link: &str, minutes: i64) -> Composed {
    one_time_link(
        "Choose a new Docket password",
        name,
        &format!(
            "Someone asked to reset the password of the Docket account {email}. Follow this link to choose a new one."
        ),
        ("Choose a new password", link),
        minutes,
        "If you did not ask for it, ignore this message: your password stays as it is.",
    )
}

/// The link that makes `new_email` (where this goes) the e-mail of `name`'s account.
pub fn email_change(name: &str, new_email: &str, link: &str, minutes: i64) -> Composed {
    one_time_link(
        "Confirm your new Docket e-mail address",
        name,
        &format!(
            "You asked to use {new_email} for your Docket account. Follow this link to confirm it; until then your account keeps its old address."
        ),
        ("Confirm this address", link),
        minutes,
        "If you did not ask for it, ignore this message: nothing changes.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_say_how_long_they_work_and_escape_names() {
        let m = password_reset("<Ada>", "ada@x.org", "https://d.example/auth/reset/abc", 60);
        assert!(m.text.contains("https://d.example/auth/reset/abc"));
        assert!(m.text.contains("once, for 60 minutes"));
        assert!(m.html.contains("Hello &lt;Ada&gt;,"), "{}", m.html);
        let m = email_change("Ada", "new@x.org", "https://d.example/account/email/t", 60);
        assert!(m.subject.contains("new Docket e-mail"));
        assert!(m.text.contains("new@x.org") && m.text.contains("keeps its old address"));
    }
}
