//! OpenID Connect: the RSA key that signs ID tokens (RS256, the algorithm every OpenID client
//! accepts), its public half as a JWK Set, and the ID token itself. The key is made on first use
//! and kept in `<data>/secrets/oidc-signing.pem` (PKCS#8, mode 0600), or with a secret key in the
//! database's shared secrets under that name, so tokens stay verifiable across restarts, backups
//! and nodes; its `kid` is its RFC 7638 thumbprint.

use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use rsa::pkcs1v15::SigningKey;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, LineEnding};
use rsa::signature::{SignatureEncoding, Signer};
use rsa::traits::PublicKeyParts;
use serde_json::{Value, json};

use super::answers::UserInfo;
use sha2::{Digest, Sha256};

use crate::core::error::AppError;
use crate::core::secrets::Source;
use crate::identity::scope::Scope;
use crate::identity::users::User;

/// The key file under `<data>/secrets/`.
pub const KEY_FILE: &str = "oidc-signing.pem";

/// The signing key and what is published of it.
pub struct Key {
    signing: SigningKey<Sha256>,
    kid: String,
    jwk: Value,
}

impl Key {
    fn from_private(private: rsa::RsaPrivateKey) -> Key {
        let public = private.to_public_key();
        let n = B64.encode(public.n().to_bytes_be());
        let e = B64.encode(public.e().to_bytes_be());
        // RFC 7638: the required members, in lexicographic order, no spaces.
        let canonical = format!(r#"{{"e":"{e}","kty":"RSA","n":"{n}"}}"#);
        let kid = B64.encode(Sha256::digest(canonical.as_bytes()));
        Key {
            signing: SigningKey::<Sha256>::new(private),
            jwk: json!({"kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid, "n": n, "e": e}),
            kid,
        }
    }

    /// The key `source` keeps as [`KEY_FILE`], or a new one (2048 bits) stored there.
    fn load_or_create(source: &Source) -> Result<Key, String> {
        let pem = source.get_or_create(KEY_FILE, Key::generate)?;
        Key::parse(&pem)
    }

    /// A new key, as stored: PKCS#8 PEM.
    fn generate() -> Result<Vec<u8>, String> {
        let private = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048)
            .map_err(|e| format!("making the ID token key: {e}"))?;
        let pem = private
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| format!("encoding the ID token key: {e}"))?;
        Ok(pem.as_bytes().to_vec())
    }

    /// A stored key: PKCS#8 PEM of an RSA key.
    fn parse(pem: &[u8]) -> Result<Key, String> {
        std::str::from_utf8(pem)
            .ok()
            .and_then(|pem| rsa::RsaPrivateKey::from_pkcs8_pem(pem).ok())
            .map(Key::from_private)
            .ok_or_else(|| format!("{KEY_FILE}: not a PKCS#8 RSA key"))
    }

    /// A compact JWS (RS256) of `claims`.
    fn sign(&self, claims: &Value) -> String {
        let header = json!({"alg": "RS256", "typ": "JWT", "kid": self.kid});
        let input = format!(
            "{}.{}",
            B64.encode(header.to_string()),
            B64.encode(claims.to_string())
        );
        let signature = self.signing.sign(input.as_bytes());
        format!("{input}.{}", B64.encode(signature.to_bytes()))
    }
}

/// The ID token key, loaded (or made) when first needed: the server starts without the cost of
/// an RSA key until an app asks for `openid`.
pub struct IdTokens {
    source: Source,
    key: Mutex<Option<Arc<Key>>>,
}

impl IdTokens {
    pub fn lazy(source: Source) -> IdTokens {
        IdTokens {
            source,
            key: Mutex::new(None),
        }
    }

    /// The key (blocking: may make one).
    fn key(&self) -> Result<Arc<Key>, AppError> {
        let mut slot = self.key.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = slot.as_ref() {
            return Ok(k.clone());
        }
        let k = Arc::new(Key::load_or_create(&self.source).map_err(AppError::internal)?);
        *slot = Some(k.clone());
        Ok(k)
    }

    /// The JWK Set of the public key (blocking).
    pub fn jwks(&self) -> Result<Value, AppError> {
        Ok(json!({"keys": [self.key()?.jwk.clone()]}))
    }

    /// The ID token for `user`, issued by `issuer` to the app `client_id` (blocking).
    pub fn issue(&self, about: &IdToken<'_>) -> Result<String, AppError> {
        Ok(self.key()?.sign(&about.claims()))
    }
}

/// What an ID token says: who (`user`), to whom, when, and the claims its scopes allow.
pub struct IdToken<'a> {
    pub issuer: &'a str,
    pub client_id: &'a str,
    pub user: &'a User,
    pub scopes: &'a [Scope],
    pub nonce: Option<&'a str>,
    /// When the user signed in (OpenID Connect Core 1.0 2): sent always, since a client that
    /// asked for `max_age` or requires it must find it.
    pub auth_time: Option<i64>,
    pub now: i64,
    pub lifetime: i64,
}

impl IdToken<'_> {
    fn claims(&self) -> Value {
        let mut claims = json!({
            "iss": self.issuer,
            "sub": super::answers::subject(self.user),
            "aud": self.client_id,
            "iat": self.now,
            "exp": self.now + self.lifetime,
        });
        if let Some(n) = self.nonce {
            claims["nonce"] = json!(n);
        }
        if let Some(t) = self.auth_time {
            claims["auth_time"] = json!(t);
        }
        // The claims userinfo answers (its `sub` is the one above).
        if let Value::Object(info) = json!(UserInfo::of(self.user, self.scopes)) {
            for (k, v) in info {
                claims[k] = v;
            }
        }
        claims
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::UserId;

    fn user() -> User {
        User {
            id: UserId::new(7),
            email: "ada@example.org".into(),
            username: "ada".into(),
            name: "Ada".into(),
            tier: crate::identity::users::Tier::Standard,
            time_zone: "UTC".into(),
            disabled: false,
            created_at: 0,
        }
    }

    #[test]
    fn the_key_is_kept_and_the_token_verifies_with_the_published_jwk() {
        use rsa::pkcs1v15::{Signature, VerifyingKey};
        use rsa::signature::Verifier;
        let dir = tempfile::tempdir().unwrap();
        let files = || {
            Source::Files(crate::core::secrets::Dirs {
                secrets: dir.path().to_path_buf(),
                tls: dir.path().to_path_buf(),
            })
        };
        let tokens = IdTokens::lazy(files());
        let jwks = tokens.jwks().unwrap();
        let again = IdTokens::lazy(files()).jwks().unwrap();
        assert_eq!(jwks, again, "the key file is reused");
        let u = user();
        let t = tokens
            .issue(&IdToken {
                issuer: "https://id.example",
                client_id: "app",
                user: &u,
                scopes: &[Scope::OpenId, Scope::Email],
                nonce: Some("n-0"),
                auth_time: Some(900),
                now: 1000,
                lifetime: 600,
            })
            .unwrap();
        let parts: Vec<&str> = t.split('.').collect();
        assert_eq!(parts.len(), 3);
        let header: Value = serde_json::from_slice(&B64.decode(parts[0]).unwrap()).unwrap();
        assert_eq!(header["alg"], "RS256");
        assert_eq!(header["kid"], jwks["keys"][0]["kid"]);
        let claims: Value = serde_json::from_slice(&B64.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["sub"], "7");
        assert_eq!(claims["aud"], "app");
        assert_eq!(claims["nonce"], "n-0");
        assert_eq!(claims["exp"], 1600);
        assert_eq!(claims["auth_time"], 900);
        assert_eq!(claims["email"], "ada@example.org");
        assert!(claims.get("name").is_none(), "no profile scope, no name");
        // Verify with the public key rebuilt from the JWK alone.
        let jwk = &jwks["keys"][0];
        let n = rsa::BigUint::from_bytes_be(&B64.decode(jwk["n"].as_str().unwrap()).unwrap());
        let e = rsa::BigUint::from_bytes_be(&B64.decode(jwk["e"].as_str().unwrap()).unwrap());
        let public = rsa::RsaPublicKey::new(n, e).unwrap();
        let sig = Signature::try_from(B64.decode(parts[2]).unwrap().as_slice()).unwrap();
        let input = format!("{}.{}", parts[0], parts[1]);
        VerifyingKey::<Sha256>::new(public)
            .verify(input.as_bytes(), &sig)
            .unwrap();
    }
}
