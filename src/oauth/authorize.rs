//! The authorization request (`/auth/oauth2/authorize`): validating its parameters in the order
//! RFC 6749 4.1.2.1 demands, and building the redirects back to the app (with `iss`, RFC 9207).

use std::collections::HashMap;

use url::Url;

use super::clients::Client;
use super::scope::{self, Scope};

/// The parameters as sent (query string of the GET, form of the POST).
#[derive(Debug, Clone, Default)]
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
}

impl Params {
    pub fn from_map(m: &HashMap<String, String>) -> Params {
        let get = |k: &str| m.get(k).cloned();
        Params {
            client_id: get("client_id"),
            redirect_uri: get("redirect_uri"),
            response_type: get("response_type"),
            state: get("state"),
            scope: get("scope"),
            code_challenge: get("code_challenge"),
            code_challenge_method: get("code_challenge_method"),
            nonce: get("nonce"),
        }
    }

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
    pub state: String,
    pub scopes: Vec<Scope>,
    pub code_challenge: Option<String>,
    pub nonce: Option<String>,
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
    let Some(redirect_uri) = p.redirect_uri.clone() else {
        return Err(Invalid::Page("The request has no redirect_uri.".into()));
    };
    if !client.redirect_uris.contains(&redirect_uri) {
        return Err(Invalid::Page(format!(
            "The redirect_uri is not registered for {}; ask the app's developer to fix it.",
            client.name
        )));
    }
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
    let state = match p.state.as_deref() {
        Some(s) if !s.is_empty() => s.to_string(),
        _ => return Err(fail("invalid_request", "state is required")),
    };
    let scopes = scope::parse_list(p.scope.as_deref().unwrap_or(""))
        .map_err(|e| fail("invalid_scope", &e.public_message()))?;
    if let Some(allowed) = &client.allowed_scopes
        && let Some(extra) = scopes.iter().find(|s| !allowed.contains(s))
    {
        return Err(fail(
            "invalid_scope",
            &format!("this app may not ask for {}", extra.as_str()),
        ));
    }
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
    Ok(Valid {
        client,
        redirect_uri,
        state,
        scopes,
        code_challenge,
        nonce,
    })
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

    fn client(public: bool) -> Client {
        Client {
            row_id: 1,
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
        assert_eq!(code(&p, false), "invalid_request");
        let mut p = params();
        p.scope = Some("WRITE_DOCUMENT".into());
        assert_eq!(code(&p, false), "invalid_scope");
        let mut p = params();
        p.scope = None;
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
