//! A software WebAuthn authenticator for the tests: P-256 (ES256) passkeys with "none"
//! attestation, user presence and verification, answering the JSON options docket sends the
//! way a browser's `PublicKeyCredential.toJSON()` would.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{DerSignature, SigningKey};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Minimal canonical CBOR: what attestation objects and COSE keys need.
enum Cbor {
    Int(i64),
    Bytes(Vec<u8>),
    Text(&'static str),
    Map(Vec<(Cbor, Cbor)>),
}

fn head(major: u8, n: u64, out: &mut Vec<u8>) {
    let m = major << 5;
    match n {
        0..=23 => out.push(m | n as u8),
        24..=0xff => out.extend([m | 24, n as u8]),
        0x100..=0xffff => {
            out.push(m | 25);
            out.extend((n as u16).to_be_bytes());
        }
        _ => {
            out.push(m | 26);
            out.extend((n as u32).to_be_bytes());
        }
    }
}

fn encode(c: &Cbor, out: &mut Vec<u8>) {
    match c {
        Cbor::Int(i) if *i >= 0 => head(0, *i as u64, out),
        Cbor::Int(i) => head(1, (-1 - *i) as u64, out),
        Cbor::Bytes(b) => {
            head(2, b.len() as u64, out);
            out.extend(b);
        }
        Cbor::Text(t) => {
            head(3, t.len() as u64, out);
            out.extend(t.as_bytes());
        }
        Cbor::Map(pairs) => {
            head(5, pairs.len() as u64, out);
            for (k, v) in pairs {
                encode(k, out);
                encode(v, out);
            }
        }
    }
}

fn cbor(c: &Cbor) -> Vec<u8> {
    let mut out = Vec::new();
    encode(c, &mut out);
    out
}

/// One passkey held by the authenticator.
pub struct Passkey {
    key: SigningKey,
    pub credential_id: Vec<u8>,
    counter: u32,
}

impl Passkey {
    pub fn new() -> Passkey {
        let key = SigningKey::from_slice(&docket::core::crypto::random_bytes(32))
            .expect("a random scalar");
        let credential_id =
            Sha256::digest(key.verifying_key().to_encoded_point(false).as_bytes())[..16].to_vec();
        Passkey {
            key,
            credential_id,
            counter: 0,
        }
    }

    fn client_data(kind: &str, options: &Value, origin: &str) -> Vec<u8> {
        serde_json::to_vec(&json!({
            "type": kind,
            "challenge": options["challenge"],
            "origin": origin,
            "crossOrigin": false,
        }))
        .unwrap()
    }

    fn rp_hash(options: &Value, rp_id_at: &str) -> Vec<u8> {
        let rp_id = options
            .pointer(rp_id_at)
            .and_then(Value::as_str)
            .expect("the options name the relying party");
        Sha256::digest(rp_id.as_bytes()).to_vec()
    }

    /// The answer to `navigator.credentials.create({publicKey: options})` at `origin`.
    pub fn register(&mut self, options: &Value, origin: &str) -> Value {
        let point = self.key.verifying_key().to_encoded_point(false);
        let cose = cbor(&Cbor::Map(vec![
            (Cbor::Int(1), Cbor::Int(2)),
            (Cbor::Int(3), Cbor::Int(-7)),
            (Cbor::Int(-1), Cbor::Int(1)),
            (Cbor::Int(-2), Cbor::Bytes(point.x().unwrap().to_vec())),
            (Cbor::Int(-3), Cbor::Bytes(point.y().unwrap().to_vec())),
        ]));
        let mut auth_data = Self::rp_hash(options, "/rp/id");
        auth_data.push(0x01 | 0x04 | 0x40); // user present, verified, attested credential
        auth_data.extend(self.counter.to_be_bytes());
        auth_data.extend([0u8; 16]); // AAGUID
        auth_data.extend((self.credential_id.len() as u16).to_be_bytes());
        auth_data.extend(&self.credential_id);
        auth_data.extend(cose);
        let attestation = cbor(&Cbor::Map(vec![
            (Cbor::Text("fmt"), Cbor::Text("none")),
            (Cbor::Text("attStmt"), Cbor::Map(vec![])),
            (Cbor::Text("authData"), Cbor::Bytes(auth_data)),
        ]));
        let client_data = Self::client_data("webauthn.create", options, origin);
        let id = B64.encode(&self.credential_id);
        json!({
            "id": id, "rawId": id, "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": B64.encode(&client_data),
                "attestationObject": B64.encode(&attestation),
                "transports": ["internal"],
            },
        })
    }

    /// The answer to `navigator.credentials.get({publicKey: options})` at `origin`.
    pub fn assert(&mut self, options: &Value, origin: &str) -> Value {
        self.counter += 1;
        let mut auth_data = Self::rp_hash(options, "/rpId");
        auth_data.push(0x01 | 0x04);
        auth_data.extend(self.counter.to_be_bytes());
        let client_data = Self::client_data("webauthn.get", options, origin);
        let mut signed = auth_data.clone();
        signed.extend(Sha256::digest(&client_data));
        let signature: DerSignature = self.key.sign(&signed);
        let id = B64.encode(&self.credential_id);
        json!({
            "id": id, "rawId": id, "type": "public-key",
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
            "response": {
                "clientDataJSON": B64.encode(&client_data),
                "authenticatorData": B64.encode(&auth_data),
                "signature": B64.encode(signature.as_bytes()),
                "userHandle": null,
            },
        })
    }
}
