//! Passkeys (WebAuthn) through `webauthn_rp`, a pure-Rust relying party: registration with a
//! resident key and user verification, and assertions against the account's own credentials
//! (never a discoverable login: a passkey here is always the second proof for a known account).
//!
//! The relying party is the app URL's host; the only origin accepted is the app URL's origin.
//! Ceremony state is encoded to bytes (stored in `webauthn_ceremonies` until used once) and
//! credentials as webauthn_rp's binary encodings (`passkeys`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use url::Url;
use webauthn_rp::bin::{Decode, Encode};
use webauthn_rp::request::auth::{
    AllowedCredentials, AuthenticationVerificationOptions,
    NonDiscoverableAuthenticationServerState, NonDiscoverableCredentialRequestOptions,
};
use webauthn_rp::request::register::{
    CredProtect, PublicKeyCredentialCreationOptions, PublicKeyCredentialUserEntity,
    RegistrationServerState, RegistrationVerificationOptions, UserHandle64,
};
use webauthn_rp::request::{
    AsciiDomain, Credentials, ExtensionInfo, PublicKeyCredentialDescriptor, RpId, TimedCeremony,
    UserVerificationRequirement,
};
use webauthn_rp::response::register::{DynamicState, StaticState};
use webauthn_rp::response::{AuthTransports, CredentialId};
use webauthn_rp::{AuthenticatedCredential, NonDiscoverableAuthentication64, Registration};

use crate::core::error::AppError;

/// Bytes of a WebAuthn user handle.
pub use crate::identity::users::PASSKEY_HANDLE_LEN as HANDLE_LEN;

/// A ceremony begun: what the browser gets, and what the server keeps until the answer.
pub struct Ceremony {
    /// The challenge, as the key the answer is matched by.
    pub challenge: String,
    pub state: Vec<u8>,
    pub expires_at: i64,
    /// `PublicKeyCredentialCreationOptionsJSON` or `PublicKeyCredentialRequestOptionsJSON`.
    pub options: Value,
}

/// A credential that registration verified.
pub struct NewCredential {
    pub credential_id: Vec<u8>,
    /// The transports the authenticator named (a bit set), for later requests.
    pub transports: u8,
    pub static_state: Vec<u8>,
    pub dynamic_state: Vec<u8>,
}

/// A stored credential, as `passkeys` holds it.
pub struct StoredCredential {
    pub credential_id: Vec<u8>,
    pub static_state: Vec<u8>,
    pub dynamic_state: Vec<u8>,
}

fn refused(why: impl std::fmt::Display) -> AppError {
    AppError::BadRequest {
        code: "passkey_refused",
        message: format!("the passkey answer was refused: {why}"),
        details: Vec::new(),
    }
}

fn challenge_key(c: webauthn_rp::response::SentChallenge) -> String {
    format!("{:032x}", c.0)
}

fn unix(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs() as i64
}

fn handle(bytes: &[u8]) -> Result<UserHandle64, AppError> {
    let raw: [u8; HANDLE_LEN] = bytes
        .try_into()
        .map_err(|_| AppError::internal("a stored passkey user handle has the wrong length"))?;
    Ok(UserHandle64::decode(raw).unwrap_or_else(|e| match e {}))
}

/// The answer to an assertion, parsed.
pub struct Assertion(NonDiscoverableAuthentication64);

impl Assertion {
    /// Parses `AuthenticationResponseJSON` (what `PublicKeyCredential.toJSON()` gives).
    pub fn parse(json: &[u8]) -> Result<Assertion, AppError> {
        NonDiscoverableAuthentication64::from_json_relaxed(json)
            .map(Assertion)
            .map_err(refused)
    }

    pub fn challenge(&self) -> Result<String, AppError> {
        self.0
            .challenge_relaxed()
            .map(challenge_key)
            .map_err(refused)
    }

    pub fn credential_id(&self) -> Vec<u8> {
        self.0.raw_id().as_ref().to_vec()
    }
}

/// The answer to a registration, parsed.
pub struct Attestation(Registration);

impl Attestation {
    /// Parses `RegistrationResponseJSON`.
    pub fn parse(json: &[u8]) -> Result<Attestation, AppError> {
        Registration::from_json_relaxed(json)
            .map(Attestation)
            .map_err(refused)
    }

    pub fn challenge(&self) -> Result<String, AppError> {
        self.0
            .challenge_relaxed()
            .map(challenge_key)
            .map_err(refused)
    }
}

/// This appliance as a WebAuthn relying party.
#[derive(Debug, Clone)]
pub struct RelyingParty {
    rp_id: RpId,
    origin: String,
}

impl RelyingParty {
    /// The relying party for the app URL: its host is the RP ID, its origin the one origin
    /// accepted. `None` when the host is an IP address, which WebAuthn does not allow.
    pub fn for_app(app_url: &Url) -> Option<RelyingParty> {
        let host = match app_url.host()? {
            url::Host::Domain(d) => d.trim_end_matches('.').to_ascii_lowercase(),
            _ => return None,
        };
        let domain = AsciiDomain::try_from(host).ok()?;
        Some(RelyingParty {
            rp_id: RpId::Domain(domain),
            origin: app_url.origin().ascii_serialization(),
        })
    }

    pub fn id(&self) -> &str {
        match &self.rp_id {
            RpId::Domain(d) => d.as_ref(),
            _ => "",
        }
    }

    /// Begins registering a passkey for the account with user handle `user_handle`; `existing`
    /// are its credentials already registered (the authenticator refuses to make a second one).
    pub fn start_registration(
        &self,
        user_handle: &[u8],
        email: &str,
        name: &str,
        existing: &[(Vec<u8>, u8)],
    ) -> Result<Ceremony, AppError> {
        let id = handle(user_handle)?;
        let exclude = existing.iter().filter_map(descriptor).collect();
        let user_name = email
            .try_into()
            .map_err(|e| AppError::bad_request(format!("the e-mail cannot name a passkey: {e}")))?;
        let display = name.trim();
        let display_name = if display.is_empty() {
            None
        } else {
            display.try_into().ok()
        };
        let mut options = PublicKeyCredentialCreationOptions::passkey(
            &self.rp_id,
            PublicKeyCredentialUserEntity {
                name: user_name,
                id: &id,
                display_name,
            },
            exclude,
        );
        // Ask authenticators to require user verification for this credential, but do not make
        // the browser refuse those that cannot say so (older keys): assertions here require
        // user verification anyway.
        options.extensions.cred_protect =
            CredProtect::UserVerificationRequired(ExtensionInfo::AllowDontEnforceValue);
        let (server, client) = options
            .start_ceremony()
            .map_err(|e| AppError::internal(format!("passkey options: {e}")))?;
        begun(&server, &client)
    }

    /// Verifies a registration answer against the ceremony `state` it was begun with.
    pub fn finish_registration(
        &self,
        state: &[u8],
        answer: &Attestation,
    ) -> Result<NewCredential, AppError> {
        let server = RegistrationServerState::<{ HANDLE_LEN }>::decode(state)
            .map_err(|e| AppError::internal(format!("stored passkey ceremony: {e:?}")))?;
        let origins = [self.origin.clone()];
        let options = RegistrationVerificationOptions::<String, String> {
            allowed_origins: &origins,
            error_on_unsolicited_extensions: false,
            ..RegistrationVerificationOptions::default()
        };
        let cred = server
            .verify(&self.rp_id, &answer.0, &options)
            .map_err(refused)?;
        let (id, transports, _user, static_state, dynamic_state, _meta) = cred.into_parts();
        Ok(NewCredential {
            credential_id: id.as_ref().to_vec(),
            transports: transports.encode().unwrap_or_else(|e| match e {}),
            static_state: static_state.encode().unwrap_or_else(|e| match e {}),
            dynamic_state: dynamic_state
                .encode()
                .unwrap_or_else(|e| match e {})
                .to_vec(),
        })
    }

    /// Begins an assertion by one of `credentials` (credential ids), with user verification.
    pub fn start_assertion(&self, credentials: &[(Vec<u8>, u8)]) -> Result<Ceremony, AppError> {
        let mut allowed = AllowedCredentials::with_capacity(credentials.len());
        for d in credentials.iter().filter_map(descriptor) {
            allowed.push(d.into());
        }
        let mut options =
            NonDiscoverableCredentialRequestOptions::second_factor(&self.rp_id, allowed)
                .map_err(|_| AppError::Conflict("this account has no passkey yet".into()))?;
        options.options().user_verification = UserVerificationRequirement::Required;
        let (server, client) = options
            .start_ceremony()
            .map_err(|e| AppError::internal(format!("passkey options: {e}")))?;
        begun(&server, &client)
    }

    /// Verifies an assertion by `stored` (a credential of the account whose user handle is
    /// `user_handle`) against the ceremony `state`. Returns the credential's new dynamic state
    /// (its signature counter).
    pub fn finish_assertion(
        &self,
        state: &[u8],
        answer: &Assertion,
        user_handle: &[u8],
        stored: &StoredCredential,
    ) -> Result<Vec<u8>, AppError> {
        let server = NonDiscoverableAuthenticationServerState::decode(state)
            .map_err(|e| AppError::internal(format!("stored passkey ceremony: {e:?}")))?;
        let user = handle(user_handle)?;
        let id = CredentialId::<&[u8]>::decode(stored.credential_id.as_slice())
            .map_err(|e| AppError::internal(format!("stored passkey: {e:?}")))?;
        let static_state = StaticState::decode(stored.static_state.as_slice())
            .map_err(|e| AppError::internal(format!("stored passkey: {e:?}")))?;
        let dynamic: [u8; 7] = stored
            .dynamic_state
            .as_slice()
            .try_into()
            .map_err(|_| AppError::internal("stored passkey: bad dynamic state"))?;
        let dynamic_state = DynamicState::decode(dynamic)
            .map_err(|e| AppError::internal(format!("stored passkey: {e:?}")))?;
        let mut cred = AuthenticatedCredential::new(id, &user, static_state, dynamic_state)
            .map_err(|e| AppError::internal(format!("stored passkey: {e}")))?;
        let origins = [self.origin.clone()];
        let options = AuthenticationVerificationOptions::<String, String> {
            allowed_origins: &origins,
            error_on_unsolicited_extensions: false,
            ..AuthenticationVerificationOptions::default()
        };
        server
            .verify(&self.rp_id, &answer.0, &mut cred, &options)
            .map_err(refused)?;
        Ok(cred
            .dynamic_state()
            .encode()
            .unwrap_or_else(|e| match e {})
            .to_vec())
    }
}

/// A stored credential id and transports as a descriptor (none for a damaged row).
fn descriptor((id, transports): &(Vec<u8>, u8)) -> Option<PublicKeyCredentialDescriptor<Vec<u8>>> {
    Some(PublicKeyCredentialDescriptor {
        id: CredentialId::decode(id.clone()).ok()?,
        transports: AuthTransports::decode(*transports).ok()?,
    })
}

/// A ceremony begun: the server's state encoded to keep, the client's options to send.
fn begun<S, C>(server: &S, client: &C) -> Result<Ceremony, AppError>
where
    S: Encode + TimedCeremony,
    for<'a> S::Output<'a>: AsRef<[u8]>,
    S::Err: std::fmt::Debug,
    C: serde::Serialize,
{
    let state = server
        .encode()
        .map(|o| o.as_ref().to_vec())
        .map_err(|e| AppError::internal(format!("passkey ceremony: {e:?}")))?;
    Ok(Ceremony {
        challenge: challenge_key(server.sent_challenge()),
        expires_at: unix(server.expiration()),
        state,
        options: serde_json::to_value(client)
            .map_err(|e| AppError::internal(format!("passkey options: {e}")))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_relying_party_is_the_app_hosts_domain() {
        let rp =
            RelyingParty::for_app(&Url::parse("https://Sign.Example.com:8443/").unwrap()).unwrap();
        assert_eq!(rp.id(), "sign.example.com");
        assert_eq!(rp.origin, "https://sign.example.com:8443");
        let local = RelyingParty::for_app(&Url::parse("http://localhost:3000").unwrap()).unwrap();
        assert_eq!(local.id(), "localhost");
        assert!(RelyingParty::for_app(&Url::parse("https://127.0.0.1:8443").unwrap()).is_none());
        assert!(RelyingParty::for_app(&Url::parse("https://[::1]:8443").unwrap()).is_none());
    }

    #[test]
    fn ceremonies_round_trip_through_their_stored_form() {
        let rp = RelyingParty::for_app(&Url::parse("https://sign.example.com").unwrap()).unwrap();
        let handle = crate::identity::users::new_passkey_handle();
        let c = rp
            .start_registration(&handle, "ada@example.com", "Ada", &[])
            .unwrap();
        assert_eq!(c.challenge.len(), 32);
        assert_eq!(c.options["rp"]["id"], "sign.example.com");
        assert_eq!(
            c.options["authenticatorSelection"]["userVerification"],
            "required"
        );
        assert_eq!(
            c.options["extensions"]["enforceCredentialProtectionPolicy"],
            false
        );
        assert!(c.expires_at > unix(SystemTime::now()));
        RegistrationServerState::<{ HANDLE_LEN }>::decode(c.state.as_slice()).unwrap();
        // No credential: no assertion.
        assert!(rp.start_assertion(&[]).is_err());
    }
}
