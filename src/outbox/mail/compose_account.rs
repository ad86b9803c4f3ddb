//! The messages of accounts people run themselves: the one-time links to choose a new password
//! and to confirm a new e-mail address. (What changed is told by `compose::SecurityNotice`.)

use super::compose::templates;

/// "Forgot password?": the link to choose a new password for the account `email`, working once
/// for `minutes`.
#[derive(Debug, Clone)]
pub struct PasswordReset<'a> {
    pub name: &'a str,
    pub email: &'a str,
    pub link: &'a str,
    pub minutes: i64,
}

templates!(
    PasswordReset,
    "mail/password_reset.html",
    "mail/password_reset.txt"
);

impl PasswordReset<'_> {
    fn subject(&self) -> String {
        "Choose a new Docket password".into()
    }

    fn greeted(&self) -> &str {
        self.name
    }
}

/// The link that makes `new_email` (where this goes) the e-mail of `name`'s account, working
/// once for `minutes`.
#[derive(Debug, Clone)]
pub struct EmailChange<'a> {
    pub name: &'a str,
    pub new_email: &'a str,
    pub link: &'a str,
    pub minutes: i64,
}

templates!(
    EmailChange,
    "mail/email_change.html",
    "mail/email_change.txt"
);

impl EmailChange<'_> {
    fn subject(&self) -> String {
        "Confirm your new Docket e-mail address".into()
    }

    fn greeted(&self) -> &str {
        self.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_say_how_long_they_work_and_escape_names() {
        let m = PasswordReset {
            name: "<Ada>",
            email: "ada@x.org",
            link: "https://d.example/auth/reset/abc",
            minutes: 60,
        }
        .compose();
        assert!(m.text.contains("https://d.example/auth/reset/abc"));
        assert!(m.text.contains("once, for 60 minutes"));
        assert!(m.html.contains("Hello &lt;Ada&gt;,"), "{}", m.html);
        let m = EmailChange {
            name: "Ada",
            new_email: "new@x.org",
            link: "https://d.example/account/email/t",
            minutes: 60,
        }
        .compose();
        assert!(m.subject.contains("new Docket e-mail"));
        assert!(m.text.contains("new@x.org") && m.text.contains("keeps its old address"));
    }
}
