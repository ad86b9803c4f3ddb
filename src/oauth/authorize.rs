//! The authorization request (`/auth/oauth2/authorize`): validating its parameters in the order
//! RFC 6749 4.1.2.1 demands, and building the redirects back to the app (with `iss`, RFC 9207).

use url::Url;

use super::clients::Client;
use super::prompt::{self, Interaction, Prompt};
use crate::{identity::scope, identity::scope::Scope};

/// The parameters as sent (query string of the GET, form of the POST), each as the text sent;
/// what they mean is `check`'s to say.
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Params {
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub response_type: Option<String>,
    pub state: Option<String>,
    pub scope: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    /// OpenID Connect: echoed in the ID token.
    pub nonce: Option<String>,
    /// OpenID Connect: `none`, `login`, `consent`, `select_account` (`prompt::Prompt`).
    pub prompt: Option<String>,
    /// OpenID Connect: the longest time since the user signed in, in seconds.
    pub max_age: Option<String>,
    /// OpenID Connect: the address to fill in on the login form.
    pub login_hint: Option<String>,
    /// Docket's own, added on the way to a login it asked for (`Interaction::login_since`),
    /// signed (`login_mark`); as sent, not trusted.
    pub login_since: Option<String>,
}

/// The query parameter that carries `Interaction::login_since`.
pub const LOGIN_SINCE: &str = "login_since";

impl Params {
    /// The parameters as query pairs, to carry through login and into the consent form.
    pub fn pairs(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        for (k, v) in [
            ("client_id", &self.client_id),
            ("redirect_uri", &self.redirect_uri),
            ("response_type", &self.response_type),
            ("state", &self.state),
            ("scope", &self.scope),
            ("code_challenge", &self.code_challenge),
            ("code_challenge_method", &self.code_challenge_method),
            ("nonce", &self.nonce),
            ("prompt", &self.prompt),
            ("max_age", &self.max_age),
            ("login_hint", &self.login_hint),
            (LOGIN_SINCE, &self.login_since),
        ] {
            if let Some(v) = v {
                out.push((k, v.as_str()));
            }
        }
        out
    }
}

/// A request that passed every check.
#[derive(Debug, Clone)]
pub struct Valid {
    pub client: Client,
    pub redirect_uri: String,
    /// Whether the request named the redirect URI (else the client's only one is used, and the
    /// token request need not repeat it).
    pub redirect_uri_sent: bool,
    /// `None`: the request sent none (allowed with PKCE).
    pub state: Option<String>,
    pub scopes: Vec<Scope>,
    /// `scopes` in the names the app used (`scope::Spelled`), echoed in token answers.
    pub scope_text: String,
    pub code_challenge: Option<String>,
    pub nonce: Option<String>,
    /// `prompt`, `max_age` and docket's own `login_since`.
    pub interaction: Interaction,
    /// The address to fill in on the login form, if the app sent a plausible one.
    pub login_hint: Option<String>,
}

impl Valid {
    /// The redirect that tells the app `error` (e.g. `login_required` for `prompt=none`).
    pub fn refuse(&self, error: &'static str, description: &str) -> Invalid {
        Invalid::Redirect {
            redirect_uri: self.redirect_uri.clone(),
            error,
            description: description.to_string(),
            state: self.state.clone(),
        }
    }
}

/// Why a request failed, and how the user must hear of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// Unknown client or unregistered redirect URI: show a page, never redirect.
    Page(String),
    /// Tell the app, at its redirect URI.
    Redirect {
        redirect_uri: String,
        error: &'static str,
        description: String,
        state: Option<String>,
    },
}

/// Checks `p` against `client` (None when `client_id` names no client).
pub fn validate(p: &Params, client: Option<Client>) -> Result<Valid, Invalid> {
    let Some(client) = client else {
        return Err(Invalid::Page(match &p.client_id {
            Some(id) if !id.is_empty() => {
                "This app is not registered with Docket (unknown client_id).".into()
            }
            _ => "The request names no app (client_id is missing).".into(),
        }));
    };
    let (redirect_uri, redirect_uri_sent) = redirect_uri(p, &client)?;
    let fail = |error: &'static str, description: &str| Invalid::Redirect {
        redirect_uri: redirect_uri.clone(),
        error,
        description: description.to_string(),
        state: p.state.clone(),
    };
    match p.response_type.as_deref() {
        None | Some("code") => {}
        Some(_) => {
            return Err(fail(
                "unsupported_response_type",
                "only response_type=code is supported",
            ));
        }
    }
    let state = p.state.clone().filter(|s| !s.is_empty());
    let asked = requested_scopes(p, &client).map_err(|d| fail("invalid_scope", &d))?;
    let code_challenge = code_challenge(p).map_err(|d| fail("invalid_request", d))?;
    if client.public && code_challenge.is_none() {
        return Err(fail(
            "invalid_request",
            "public clients must use PKCE (code_challenge)",
        ));
    }
    let nonce = match p.nonce.as_deref() {
        None | Some("") => None,
        Some(n) if n.len() <= 512 => Some(n.to_string()),
        Some(_) => return Err(fail("invalid_request", "nonce is longer than 512 bytes")),
    };
    let interaction = Interaction {
        prompt: Prompt::parse(p.prompt.as_deref()).map_err(|d| fail("invalid_request", &d))?,
        max_age: prompt::max_age(p.max_age.as_deref()).map_err(|d| fail("invalid_request", d))?,
        // Docket's own mark is checked against its key (`login_mark`) by `consent::check`:
        // as sent, it is just text anyone can add to the URL.
        login_since: None,
    };
    if state.is_none() && code_challenge.is_none() && interaction.prompt.none {
        // Without state or PKCE nothing ties the redirect to the browser that started the
        // flow, so the user's click on the consent page is what stands between a request
        // forged by another site and a code: such a request always shows the page.
        return Err(fail(
            "invalid_request",
            "prompt=none needs state or PKCE (code_challenge)",
        ));
    }
    // A hint is only ever a convenience: one no address could be is dropped, not refused.
    let login_hint = p
        .login_hint
        .clone()
        .filter(|h| !h.is_empty() && h.len() <= 254 && !h.chars().any(char::is_control));
    Ok(Valid {
        client,
        redirect_uri,
        redirect_uri_sent,
        state,
        scopes: asked.scopes,
        scope_text: asked.text,
        code_challenge,
        nonce,
        interaction,
        login_hint,
    })
}

/// The redirect URI: the one sent, which must be registered exactly, or, when none was sent,
/// the client's only registered one (RFC 6749 3.1.2.3); `false` when it was not sent.
fn redirect_uri(p: &Params, client: &Client) -> Result<(String, bool), Invalid> {
    match (p.redirect_uri.as_deref(), client.redirect_uris.as_slice()) {
        (Some(uri), registered) if registered.iter().any(|r| r == uri) => {
            Ok((uri.to_string(), true))
        }
        (Some(_), _) => Err(Invalid::Page(format!(
            "The redirect_uri is not registered for {}; ask the app's developer to fix it.",
            client.name
        ))),
        (None, [only]) => Ok((only.clone(), false)),
        (None, _) => Err(Invalid::Page(format!(
            "The request has no redirect_uri, and {} has several registered: it must name one.",
            client.name
        ))),
    }
}

/// The scopes asked for. Without `scope` (or with an empty one) the app gets what it was
/// registered for (`client add --scope`), else the scheduling service's default, READ_BOOKING
/// and READ_PROFILE.
fn requested_scopes(p: &Params, client: &Client) -> Result<scope::Spelled, String> {
    let raw = p.scope.as_deref().unwrap_or("");
    let asked = if raw.split([' ', ',']).all(str::is_empty) {
        let scopes = client
            .allowed_scopes
            .clone()
            .unwrap_or_else(|| vec![Scope::ReadBooking, Scope::ReadProfile]);
        scope::Spelled {
            text: scope::join(&scopes),
            scopes,
        }
    } else {
        scope::parse_spelled(raw).map_err(|e| e.public_message())?
    };
    if let Some(allowed) = &client.allowed_scopes
        && let Some(extra) = asked.scopes.iter().find(|s| !allowed.contains(s))
    {
        return Err(format!("this app may not ask for {}", extra.as_str()));
    }
    Ok(asked)
}

/// The PKCE challenge (RFC 7636 4.3): S256 only, a base64url SHA-256; else why not.
fn code_challenge(p: &Params) -> Result<Option<String>, &'static str> {
    match (
        p.code_challenge.as_deref(),
        p.code_challenge_method.as_deref(),
    ) {
        (None, None) => Ok(None),
        (None, Some(_)) => Err("code_challenge_method without code_challenge"),
        (Some(_), Some(m)) if m != "S256" => Err("only code_challenge_method=S256 is supported"),
        (Some(_), None) => Err("code_challenge_method=S256 is required with code_challenge"),
        (Some(c), Some(_)) => {
            let ok = c.len() == 43
                && c.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            if !ok {
                return Err("code_challenge must be a base64url SHA-256 (43 characters)");
            }
            Ok(Some(c.to_string()))
        }
    }
}

/// `redirect_uri` with `pairs` appended to its query (parameters already there are kept).
pub fn redirect_to(redirect_uri: &str, pairs: &[(&str, &str)]) -> String {
    match Url::parse(redirect_uri) {
        Ok(mut url) => {
            {
                let mut q = url.query_pairs_mut();
                for (k, v) in pairs {
                    q.append_pair(k, v);
                }
            }
            url.to_string()
        }
        Err(_) => redirect_uri.to_string(),
    }
}

/// The redirect for an error (RFC 6749 4.1.2.1), with `state` and `iss`.
pub fn error_redirect(
    redirect_uri: &str,
    error: &str,
    description: &str,
    state: Option<&str>,
    issuer: &str,
) -> String {
    let mut pairs = vec![("error", error), ("error_description", description)];
    if let Some(s) = state {
        pairs.push(("state", s));
    }
    pairs.push(("iss", issuer));
    redirect_to(redirect_uri, &pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::ClientId;

    fn client(public: bool) -> Client {
        Client {
            row_id: ClientId::new(1),
            client_id: "c1".into(),
            name: "Cal".into(),
            redirect_uris: vec!["https://cal.example/cb?tenant=7".into()],
            logo_url: None,
            app_url: None,
            public,
            allowed_scopes: Some(vec![Scope::ReadBooking, Scope::ReadProfile]),
            created_at: 0,
            secret_hash: None,
        }
    }

    fn params() -> Params {
        Params {
            client_id: Some("c1".into()),
            redirect_uri: Some("https://cal.example/cb?tenant=7".into()),
            state: Some("xyz".into()),
            scope: Some("READ_BOOKING,READ_PROFILE".into()),
            ..Params::default()
        }
    }

    #[test]
    fn a_seed_style_request_is_valid() {
        let v = validate(&params(), Some(client(false))).unwrap();
        assert_eq!(v.scopes, vec![Scope::ReadBooking, Scope::ReadProfile]);
        assert!(v.code_challenge.is_none());
    }

    #[test]
    fn without_redirect_uri_scope_or_state_where_that_is_safe() {
        // No redirect_uri: the client's one registered URI, marked as not sent.
        let mut p = params();
        p.redirect_uri = None;
        let v = validate(&p, Some(client(false))).unwrap();
        assert_eq!(v.redirect_uri, "https://cal.example/cb?tenant=7");
        assert!(!v.redirect_uri_sent);
        // With two registered, the request must name one: an error page, never a redirect.
        let mut two = client(false);
        two.redirect_uris.push("https://cal.example/other".into());
        assert!(matches!(validate(&p, Some(two)), Err(Invalid::Page(_))));
        // No scope, or an empty one: what the client was registered for, else the default.
        for scope in [None, Some(""), Some(" , ")] {
            let mut p = params();
            p.scope = scope.map(String::from);
            let mut open = client(false);
            open.allowed_scopes = None;
            let v = validate(&p, Some(open)).unwrap();
            assert_eq!(v.scopes, vec![Scope::ReadBooking, Scope::ReadProfile]);
            let mut narrow = client(false);
            narrow.allowed_scopes = Some(vec![Scope::ReadProfile]);
            assert_eq!(
                validate(&p, Some(narrow)).unwrap().scopes,
                vec![Scope::ReadProfile]
            );
        }
        // No state: allowed with PKCE, which binds the code to the browser that started.
        let mut p = params();
        p.state = None;
        p.code_challenge = Some("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into());
        p.code_challenge_method = Some("S256".into());
        assert_eq!(validate(&p, Some(client(true))).unwrap().state, None);
        // Nor without it, as the scheduling service's own clients send it (the consent
        // page's click then protects); `state=undefined` is a state like any other.
        let mut p = params();
        p.state = None;
        assert_eq!(validate(&p, Some(client(false))).unwrap().state, None);
        p.state = Some("undefined".into());
        assert_eq!(
            validate(&p, Some(client(false))).unwrap().state.as_deref(),
            Some("undefined")
        );
    }

    #[test]
    fn unknown_clients_and_redirects_never_redirect() {
        assert!(matches!(validate(&params(), None), Err(Invalid::Page(_))));
        let mut p = params();
        p.redirect_uri = Some("https://cal.example/cb".into());
        assert!(matches!(
            validate(&p, Some(client(false))),
            Err(Invalid::Page(_))
        ));
    }

    #[test]
    fn other_errors_redirect_with_their_code() {
        let code = |p: &Params, public: bool| match validate(p, Some(client(public))) {
            Err(Invalid::Redirect { error, .. }) => error,
            other => panic!("{other:?}"),
        };
        let mut p = params();
        p.state = None;
        p.prompt = Some("none".into());
        assert_eq!(code(&p, false), "invalid_request");
        let mut p = params();
        p.scope = Some("WRITE_DOCUMENT".into());
        assert_eq!(code(&p, false), "invalid_scope");
        let mut p = params();
        p.response_type = Some("token".into());
        assert_eq!(code(&p, false), "unsupported_response_type");
        assert_eq!(
            code(&params(), true),
            "invalid_request",
            "public clients need PKCE"
        );
        let mut p = params();
        p.code_challenge = Some("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into());
        p.code_challenge_method = Some("plain".into());
        assert_eq!(code(&p, false), "invalid_request");
        for (prompt, max_age) in [("none login", ""), ("bogus", ""), ("", "-5"), ("", "soon")] {
            let mut p = params();
            p.prompt = Some(prompt.into());
            p.max_age = Some(max_age.into());
            assert_eq!(code(&p, false), "invalid_request", "{prompt:?} {max_age:?}");
        }
    }

    #[test]
    fn openid_interaction_parameters_travel_with_the_request() {
        let mut p = params();
        p.prompt = Some("login consent".into());
        p.max_age = Some("300".into());
        p.login_hint = Some("ada@example.org".into());
        p.login_since = Some("1700000000".into());
        let v = validate(&p, Some(client(false))).unwrap();
        assert!(v.interaction.prompt.login && v.interaction.prompt.consent);
        assert_eq!(v.interaction.max_age, Some(300));
        // Carried along, but never taken as sent: only `login_mark::read` makes it count.
        assert_eq!(v.interaction.login_since, None);
        assert_eq!(v.login_hint.as_deref(), Some("ada@example.org"));
        let carried: Vec<&str> = p.pairs().iter().map(|(k, _)| *k).collect();
        for k in ["prompt", "max_age", "login_hint", LOGIN_SINCE] {
            assert!(carried.contains(&k), "{k}");
        }
        p.login_hint = Some("x".repeat(300));
        assert_eq!(validate(&p, Some(client(false))).unwrap().login_hint, None);
    }

    #[test]
    fn redirects_keep_existing_query_and_encode_values() {
        let url = redirect_to(
            "https://cal.example/cb?tenant=7",
            &[("code", "a b"), ("state", "x&y")],
        );
        assert_eq!(url, "https://cal.example/cb?tenant=7&code=a+b&state=x%26y");
        let e = error_redirect(
            "https://a.example/cb",
            "access_denied",
            "no",
            Some("s"),
            "https://d.example",
        );
        assert!(
            e.contains("error=access_denied")
                && e.contains("state=s")
                && e.contains("iss=https%3A%2F%2Fd.example")
        );
    }
}
