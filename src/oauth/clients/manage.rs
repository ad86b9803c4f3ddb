//! The administrator's use cases on OAuth clients (`docket client ...`): register, list, show,
//! issue a new secret, remove; each with the endpoint URLs an app is given. Each is one
//! transaction on the calling thread (`Db::write_blocking`, `Db::read_blocking`), since the
//! admin commands run without an async runtime.

use crate::core::db::Conn;
use serde::Serialize;

use super::{Client, Registration, store};
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::{core::db::Db, core::db::now};

/// Where the app is reached when neither the caller nor a past start of the server said.
pub const DEFAULT_BASE_URL: &str = "https://localhost:8443";

/// The endpoint URLs of this installation, as an app needs them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Endpoints {
    pub authorization_url: String,
    pub token_url: String,
    pub refresh_token_url: String,
}

impl Endpoints {
    /// The endpoints under `base_url` (no trailing slash).
    pub fn at(base_url: &str) -> Self {
        Endpoints {
            authorization_url: format!("{base_url}/auth/oauth2/authorize"),
            token_url: format!("{base_url}/api/auth/oauth/token"),
            refresh_token_url: format!("{base_url}/api/auth/oauth/refreshToken"),
        }
    }
}

/// The endpoints under `base_url` when given, else under the URL the server last ran with,
/// else under `DEFAULT_BASE_URL`.
fn endpoints(conn: &Conn, base_url: Option<&str>) -> Result<Endpoints, AppError> {
    let base = match base_url {
        Some(b) => b.to_string(),
        None => crate::core::settings::get(conn, crate::core::settings::PUBLIC_URL)?
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string()),
    };
    Ok(Endpoints::at(&base))
}

/// A client just registered, with its secret (`None` for a public client), which exists
/// nowhere else: only its hash is stored.
#[derive(Debug)]
pub struct Registered {
    pub client: Client,
    pub secret: Option<SecretToken>,
    pub endpoints: Endpoints,
}

/// Registers the client `reg`; `base_url` as for `list`.
pub fn register(
    db: &Db,
    reg: Registration,
    base_url: Option<String>,
) -> Result<Registered, AppError> {
    db.write_blocking(move |tx| {
        let endpoints = endpoints(tx, base_url.as_deref())?;
        let (client, secret) = store::insert(tx, &reg, now())?;
        Ok(Registered {
            client,
            secret,
            endpoints,
        })
    })
}

/// Every client, oldest first, and the endpoints under `base_url` (when `None`, under the URL
/// the server last ran with).
pub fn list(db: &Db, base_url: Option<&str>) -> Result<(Vec<Client>, Endpoints), AppError> {
    db.read_blocking(|c| Ok((store::list(c)?, endpoints(c, base_url)?)))
}

/// The client `client_id` (404 when unknown) and the endpoints, as for `list`.
pub fn show(
    db: &Db,
    client_id: &str,
    base_url: Option<&str>,
) -> Result<(Client, Endpoints), AppError> {
    db.read_blocking(|c| Ok((store::require(c, client_id)?, endpoints(c, base_url)?)))
}

/// A new secret for the confidential client `client_id`; the old one stops working at once.
/// 409 for a public client.
pub fn rotate_secret(db: &Db, client_id: &str) -> Result<SecretToken, AppError> {
    let client_id = client_id.to_string();
    db.write_blocking(move |tx| store::rotate_secret(tx, &client_id, now()))
}

/// Removes the client `client_id` with its grants and tokens; returns what it was.
pub fn remove(db: &Db, client_id: &str) -> Result<Client, AppError> {
    let client_id = client_id.to_string();
    db.write_blocking(move |tx| store::remove(tx, &client_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registration(public: bool) -> Registration {
        Registration::validate(
            "Cal",
            &["https://cal.example/cb".into()],
            None,
            None,
            public,
            &[],
        )
        .unwrap()
    }

    /// Every text value of the client's row as stored, whatever its columns.
    fn stored_texts(db: &Db, client_id: &str) -> Vec<String> {
        let client_id = client_id.to_string();
        db.read_blocking(move |c| {
            let mut stmt = c.prepare("SELECT * FROM oauth_clients WHERE client_id = ?1")?;
            let texts = stmt.query_row([client_id], |row| {
                let mut texts = Vec::new();
                for i in 0..row.len() {
                    if let crate::core::db::Value::Text(t) = row.get(i)? {
                        texts.push(t);
                    }
                }
                Ok(texts)
            })?;
            Ok(texts)
        })
        .unwrap()
    }

    #[test]
    fn registration_stores_only_a_hash_of_the_secret() {
        let db = Db::memory();
        let done = register(&db, registration(false), None).unwrap();
        let secret = done.secret.expect("a confidential client has a secret");
        let id = &done.client.client_id;
        let texts = stored_texts(&db, id);
        assert!(
            texts.iter().all(|t| !t.contains(secret.expose())),
            "the secret itself is stored nowhere: {texts:?}"
        );
        assert!(texts.contains(&secret.hash()), "its hash is: {texts:?}");
        let stored = show(&db, id, None).unwrap().0;
        assert_eq!(stored.secret_hash, Some(secret.hash()));
        assert!(stored.secret_matches(secret.expose()));
        assert_eq!(done.endpoints, Endpoints::at(DEFAULT_BASE_URL));

        let public = register(&db, registration(true), None).unwrap();
        assert!(public.secret.is_none());
        assert_eq!(
            show(&db, &public.client.client_id, None)
                .unwrap()
                .0
                .secret_hash,
            None
        );
        let refused = rotate_secret(&db, &public.client.client_id).unwrap_err();
        assert_eq!(refused.code(), "conflict");
    }

    #[test]
    fn a_new_secret_replaces_the_old_and_removal_is_final() {
        let db = Db::memory();
        let done = register(&db, registration(false), None).unwrap();
        let id = done.client.client_id.clone();
        let old = done.secret.unwrap();
        let new = rotate_secret(&db, &id).unwrap();
        let stored = show(&db, &id, None).unwrap().0;
        assert!(stored.secret_matches(new.expose()));
        assert!(!stored.secret_matches(old.expose()));

        assert_eq!(remove(&db, &id).unwrap().name, "Cal");
        assert!(list(&db, None).unwrap().0.is_empty());
        assert_eq!(remove(&db, &id).unwrap_err().code(), "not_found");
    }

    #[test]
    fn endpoints_follow_the_given_url_then_the_servers_last() {
        let db = Db::memory();
        let given = list(&db, Some("https://sign.example")).unwrap().1;
        assert_eq!(given.token_url, "https://sign.example/api/auth/oauth/token");
        db.write_blocking(|tx| {
            crate::core::settings::set(
                tx,
                crate::core::settings::PUBLIC_URL,
                "https://docs.example",
                0,
            )
        })
        .unwrap();
        let stored = list(&db, None).unwrap().1;
        assert_eq!(stored, Endpoints::at("https://docs.example"));
    }
}
