//! OpenID Connect's say in the user interaction of an authorization request (Core 1.0 3.1.2.1):
//! `prompt` and `max_age` read and checked, and what they make of the browser's session: sign
//! in (again), show the consent page, answer without a page, or refuse (`login_required`,
//! `consent_required`).

/// The `prompt` values asked for (space-separated in the request).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Prompt {
    /// No page at all: answer at once or refuse.
    pub none: bool,
    /// Sign in again, even with a session. `select_account` asks for the same here: docket
    /// keeps one account per browser, and signing in again is how another one is chosen.
    pub login: bool,
    /// Show the consent page (docket always does, unless `none`).
    pub consent: bool,
}

impl Prompt {
    /// Parses `prompt`: unknown values, or `none` with another, are refused (the why).
    pub fn parse(raw: Option<&str>) -> Result<Prompt, String> {
        let mut p = Prompt::default();
        let mut count = 0;
        for value in raw.unwrap_or("").split(' ').filter(|v| !v.is_empty()) {
            count += 1;
            match value {
                "none" => p.none = true,
                "login" | "select_account" => p.login = true,
                "consent" => p.consent = true,
                other => return Err(format!("prompt value {other:?} is not supported")),
            }
        }
        if p.none && count > 1 {
            return Err("prompt=none cannot be combined with other values".into());
        }
        Ok(p)
    }
}

/// The longest `max_age` taken (100 years); larger values are refused, not wrapped.
const MAX_AGE_LIMIT: i64 = 100 * 365 * 86_400;

/// Parses `max_age`: seconds, a non-negative integer.
pub fn max_age(raw: Option<&str>) -> Result<Option<i64>, &'static str> {
    match raw {
        None | Some("") => Ok(None),
        Some(s) if s.bytes().all(|b| b.is_ascii_digit()) => match s.parse::<i64>() {
            Ok(n) if n <= MAX_AGE_LIMIT => Ok(Some(n)),
            _ => Err("max_age is too large"),
        },
        Some(_) => Err("max_age must be a number of seconds"),
    }
}

/// What the request says about signing in, as validated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Interaction {
    pub prompt: Prompt,
    pub max_age: Option<i64>,
    /// Set by docket on the way to the login it asked for (`prompt=login`, `max_age`): a
    /// session that signed in at or after this time has done that login. Taken only from a
    /// mark docket signed for the same request (`login_mark`), never from the URL as sent.
    pub login_since: Option<i64>,
}

/// What the authorization endpoint does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Send the user to sign in (again), and back to this request after, with `login_since`
    /// set to `since` (now).
    Login { since: i64 },
    /// Show the consent page.
    Consent,
    /// Issue the code without a page (`prompt=none`, everything already allowed).
    Silent,
    /// Redirect to the app with this error (`prompt=none` and a page would be needed).
    Refuse(&'static str),
}

impl Interaction {
    /// Whether the request asks for a recent login (`prompt=login`, `max_age`): then the way
    /// back from the login page carries `login_since`.
    pub fn wants_recent_login(&self) -> bool {
        self.prompt.login || self.max_age.is_some()
    }

    /// Whether a browser signed in at `session` may allow or deny on the consent page now.
    pub fn may_decide(&self, session: Option<i64>, now: i64) -> bool {
        session.is_some_and(|at| !self.needs_login(at, now))
    }

    /// Whether a session that signed in at `authenticated_at` must sign in again at `now`.
    pub fn needs_login(&self, authenticated_at: i64, now: i64) -> bool {
        if self.login_since.is_some_and(|t| authenticated_at >= t) {
            return false;
        }
        self.prompt.login || self.max_age.is_some_and(|m| now - authenticated_at > m)
    }

    /// The next step for a browser signed in at `session` (`None`: not signed in), where
    /// `granted` says whether the user already allowed every scope asked.
    pub fn step(&self, session: Option<i64>, granted: bool, now: i64) -> Step {
        match (self.prompt.none, self.may_decide(session, now)) {
            (true, false) => Step::Refuse("login_required"),
            (true, true) if !granted => Step::Refuse("consent_required"),
            (true, true) => Step::Silent,
            (false, false) => Step::Login { since: now },
            (false, true) => Step::Consent,
        }
    }
}

/// The `error_description` of a refusal of `prompt=none`.
pub fn describe(error: &str) -> &'static str {
    match error {
        "login_required" => "the user must sign in, and prompt=none forbids asking",
        "consent_required" => {
            "the user has not allowed this app every scope asked, and prompt=none forbids asking"
        }
        _ => "prompt=none forbids the page this request needs",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_values_are_known_and_none_stands_alone() {
        assert_eq!(Prompt::parse(None).unwrap(), Prompt::default());
        let p = Prompt::parse(Some("login consent")).unwrap();
        assert!(p.login && p.consent && !p.none);
        assert!(Prompt::parse(Some("select_account")).unwrap().login);
        assert!(Prompt::parse(Some("none")).unwrap().none);
        assert!(Prompt::parse(Some("none login")).is_err());
        assert!(Prompt::parse(Some("none none")).is_err());
        assert!(Prompt::parse(Some("bogus")).is_err());
    }

    #[test]
    fn max_age_is_whole_seconds() {
        assert_eq!(max_age(None), Ok(None));
        assert_eq!(max_age(Some("0")), Ok(Some(0)));
        assert_eq!(max_age(Some("3600")), Ok(Some(3600)));
        for bad in ["-1", "1.5", " 3", "1e3", "99999999999999999999999"] {
            assert!(max_age(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn sessions_older_than_max_age_or_asked_to_sign_in_again_do() {
        let plain = Interaction::default();
        assert_eq!(plain.step(None, false, 100), Step::Login { since: 100 });
        assert_eq!(plain.step(Some(0), false, 100), Step::Consent);
        let aged = Interaction {
            max_age: Some(60),
            ..plain
        };
        assert_eq!(aged.step(Some(40), false, 100), Step::Consent);
        assert_eq!(aged.step(Some(39), false, 100), Step::Login { since: 100 });
        let login = Interaction {
            prompt: Prompt::parse(Some("login")).unwrap(),
            ..plain
        };
        assert_eq!(
            login.step(Some(100), false, 100),
            Step::Login { since: 100 }
        );
        // Back from the login docket asked for: that login counts, even for max_age=0.
        for asked in [
            login,
            Interaction {
                max_age: Some(0),
                ..plain
            },
        ] {
            let back = Interaction {
                login_since: Some(90),
                ..asked
            };
            assert_eq!(back.step(Some(95), false, 100), Step::Consent);
            assert_eq!(back.step(Some(80), false, 100), Step::Login { since: 100 });
        }
    }

    #[test]
    fn prompt_none_answers_without_a_page_or_refuses() {
        let none = Interaction {
            prompt: Prompt::parse(Some("none")).unwrap(),
            ..Interaction::default()
        };
        assert_eq!(none.step(None, true, 100), Step::Refuse("login_required"));
        assert_eq!(
            none.step(Some(0), false, 100),
            Step::Refuse("consent_required")
        );
        assert_eq!(none.step(Some(0), true, 100), Step::Silent);
        let aged = Interaction {
            max_age: Some(10),
            ..none
        };
        assert_eq!(
            aged.step(Some(0), true, 100),
            Step::Refuse("login_required")
        );
    }
}
