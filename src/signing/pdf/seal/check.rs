//! Checking a PDF against this instance's seal (the public check, `GET /verify`): its last
//! signature is found in the raw bytes (no PDF object is built, so a hostile file costs one
//! pass over its bytes), its CMS is read, the RSA signature over its signed attributes is
//! verified with the signer's certificate, that certificate is matched against the seal
//! certificates this instance uses or used, and the signed byte ranges are hashed and compared
//! with the signature's message digest. A plain blocking function; callers run it off the async
//! threads.
//!
//! What "sealed here" rests on: a certificate of this instance. With the local CA (the
//! default), every seal certificate it ever issued counts (renewal issues a new one from the
//! same CA, `SEAL_RENEW_WITHIN_DAYS` before the old one ends), checked by the CA's signature
//! on it; with `--seal-cert`, only that certificate.

use der::{Decode, Encode};
use sha2::{Digest, Sha256};
use x509_cert::Certificate;

use super::signer::{SEAL_COMMON_NAME, SealSigner};

/// `/ByteRange` entries looked at, the last ones in the file: a sealed file has one, and a
/// file with more is judged by its latest.
const MAX_SIGNATURES: usize = 16;
/// The longest signature value read (hex digits between `<` and `>`); Docket's is 32 KiB.
const MAX_CONTENTS_HEX: usize = 1 << 20;
/// Where the `%PDF-` header may start, as readers accept it.
const HEADER_WITHIN: usize = 1024;
/// The key of the signature dictionary that names the sealed document (written just before
/// `/ByteRange`, inside the signed bytes).
pub(super) const DOCUMENT_KEY: &str = "DocketDocument";

/// Which certificates are this instance's seal.
#[derive(Debug, Clone)]
pub struct SealTrust {
    /// The seal certificate in use (DER).
    current: Vec<u8>,
    /// The local CA that issues the seal certificates, when the seal is the local CA's.
    issuer: Option<Certificate>,
}

impl SealTrust {
    /// The trust of `signer`: its certificate, and with `local_ca` its issuer (the local CA,
    /// second in its chain) for the certificates it issued before.
    pub fn of(signer: &SealSigner, local_ca: bool) -> SealTrust {
        SealTrust {
            current: signer.chain[0].to_der().unwrap_or_default(),
            issuer: local_ca.then(|| signer.chain.get(1).cloned()).flatten(),
        }
    }

    /// True when `cert` is this instance's seal certificate, current or earlier.
    fn recognizes(&self, cert: &Certificate) -> bool {
        if cert.to_der().is_ok_and(|der| der == self.current) {
            return true;
        }
        let Some(ca) = &self.issuer else { return false };
        let tbs = &cert.tbs_certificate;
        tbs.issuer == ca.tbs_certificate.subject && is_seal_name(cert) && signed_by(cert, ca)
    }
}

/// What the check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Sealed by this instance and unchanged since.
    Sealed,
    /// Sealed by this instance, then bytes it signed were changed.
    Modified,
    /// Sealed by this instance, then bytes were added after it (an incremental update).
    Appended,
    /// Signed, but not with this instance's seal.
    OtherSigner,
    /// A signature that cannot be read, or that does not verify.
    InvalidSignature,
    /// A PDF without a signature.
    NotSigned,
    /// Not a PDF at all.
    NotPdf,
}

/// The verdict, and for a file this instance sealed whose signed bytes are intact, the
/// document it names and the SHA-256 (hex) of the file as it was sealed (the signed bytes and
/// the signature, without anything appended), to find the stored sealed file by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub verdict: Verdict,
    pub document: Option<i64>,
    pub sealed_sha256: Option<String>,
}

impl Checked {
    fn only(verdict: Verdict) -> Checked {
        Checked {
            verdict,
            document: None,
            sealed_sha256: None,
        }
    }
}

/// Checks `pdf` against `trust`. Never panics on any input.
pub fn check(pdf: &[u8], trust: &SealTrust) -> Checked {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check_unguarded(pdf, trust)))
        .unwrap_or_else(|_| Checked::only(Verdict::InvalidSignature))
}

fn check_unguarded(pdf: &[u8], trust: &SealTrust) -> Checked {
    let head = &pdf[..pdf.len().min(HEADER_WITHIN + 5)];
    if memchr::memmem::find(head, b"%PDF-").is_none() {
        return Checked::only(Verdict::NotPdf);
    }
    let mut found = false;
    let mut other = false;
    // The latest first: a file sealed here and signed again later is judged by the seal.
    for start in memchr::memmem::rfind_iter(pdf, b"/ByteRange").take(MAX_SIGNATURES) {
        found = true;
        let Some(range) = ByteRange::after(pdf, start + "/ByteRange".len()) else {
            continue;
        };
        match one(pdf, &range, trust) {
            Some(Signer::Ours { digest_matches }) => {
                return ours(pdf, start, &range, digest_matches);
            }
            Some(Signer::Other) => other = true,
            None => {}
        }
    }
    Checked::only(match (found, other) {
        (false, _) => Verdict::NotSigned,
        (true, true) => Verdict::OtherSigner,
        (true, false) => Verdict::InvalidSignature,
    })
}

/// The verdict on a signature of this instance at `start` over `range`.
fn ours(pdf: &[u8], start: usize, range: &ByteRange, digest_matches: bool) -> Checked {
    if !digest_matches {
        return Checked::only(Verdict::Modified);
    }
    let verdict = match range.end() == pdf.len() {
        true => Verdict::Sealed,
        false => Verdict::Appended,
    };
    // The file as sealed: the signed bytes with the signature written as Docket writes it
    // (a changed padding of the signature value changes nothing the seal covers).
    let mut hasher = Sha256::new();
    hasher.update(&pdf[..range.hole_start]);
    hasher.update(range.canonical_hole.as_bytes());
    hasher.update(&pdf[range.hole_end..range.end()]);
    Checked {
        verdict,
        document: document_before(pdf, start),
        sealed_sha256: Some(hex::encode(hasher.finalize())),
    }
}

/// The document number written as `/DocketDocument <n>` just before `/ByteRange` at `start`.
fn document_before(pdf: &[u8], start: usize) -> Option<i64> {
    let before = &pdf[start.saturating_sub(64)..start];
    let text = std::str::from_utf8(before).ok()?;
    let key = format!("/{DOCUMENT_KEY}");
    let at = text.rfind(&key)?;
    let n = text[at + key.len()..].trim();
    n.parse::<i64>().ok().filter(|n| *n > 0)
}

/// The two signed ranges of a signature: `[0, hole_start)` and `[hole_end, end)`, and the
/// signature value in between (a hex string with its delimiters).
#[derive(Debug)]
struct ByteRange {
    hole_start: usize,
    hole_end: usize,
    second_len: usize,
    /// The CMS (DER) the hole holds.
    cms: Vec<u8>,
    /// The hole as Docket writes it: `<`, the CMS in upper-case hex, `0` padding, `>`.
    canonical_hole: String,
}

impl ByteRange {
    fn end(&self) -> usize {
        self.hole_end + self.second_len
    }

    /// The `[0 a b c]` after `/ByteRange` at `from`, when it describes a hole in `pdf` that
    /// holds a hex string.
    fn after(pdf: &[u8], from: usize) -> Option<ByteRange> {
        let tail = &pdf[from..pdf.len().min(from + 128)];
        let text = String::from_utf8_lossy(tail);
        let inner = text.trim_start().strip_prefix('[')?;
        let inner = &inner[..inner.find(']')?];
        let numbers: Vec<usize> = inner
            .split_ascii_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        let [0, first_len, hole_end, second_len] = numbers[..] else {
            return None;
        };
        let hole_start = first_len;
        if hole_end <= hole_start.saturating_add(1) || hole_end.checked_add(second_len)? > pdf.len()
        {
            return None;
        }
        let hole = &pdf[hole_start..hole_end];
        let hex = hole.strip_prefix(b"<")?.strip_suffix(b">")?;
        if hex.len() > MAX_CONTENTS_HEX || hex.len() % 2 != 0 {
            return None;
        }
        let bytes = hex::decode(hex).ok()?;
        let cms = bytes[..der_length(&bytes)?].to_vec();
        let written = hex::encode_upper(&cms);
        let canonical_hole = format!("<{written:0<width$}>", width = hex.len());
        Some(ByteRange {
            hole_start,
            hole_end,
            second_len,
            cms,
            canonical_hole,
        })
    }
}

/// The length of the DER value (a SEQUENCE) at the start of `bytes`, header included, when it
/// fits: the padding after it is not part of the CMS.
fn der_length(bytes: &[u8]) -> Option<usize> {
    let (&tag, rest) = bytes.split_first()?;
    let (&first, rest) = rest.split_first()?;
    if tag != 0x30 {
        return None;
    }
    let (len, header) = match first {
        n if n < 0x80 => (n as usize, 2),
        n => {
            let count = (n & 0x7f) as usize;
            if count == 0 || count > 4 || rest.len() < count {
                return None;
            }
            let len = rest[..count]
                .iter()
                .fold(0usize, |acc, b| (acc << 8) | *b as usize);
            (len, 2 + count)
        }
    };
    let total = header.checked_add(len)?;
    (total <= bytes.len()).then_some(total)
}

/// Who made a signature that could be read.
enum Signer {
    /// This instance's seal, whose signature over its attributes verifies; whether the signed
    /// bytes still hash to its message digest.
    Ours { digest_matches: bool },
    /// Someone else.
    Other,
}

/// The signer of the signature over `range`; `None` when it cannot be read or claims this
/// instance's certificate without a valid signature.
fn one(pdf: &[u8], range: &ByteRange, trust: &SealTrust) -> Option<Signer> {
    use cms::content_info::ContentInfo;
    use cms::signed_data::{SignedData, SignerIdentifier};
    use const_oid::db::{rfc5911, rfc5912};

    let info = ContentInfo::from_der(&range.cms).ok()?;
    if info.content_type != rfc5911::ID_SIGNED_DATA {
        return None;
    }
    let signed: SignedData = info.content.decode_as().ok()?;
    let signer = signed.signer_infos.0.iter().next()?;
    let SignerIdentifier::IssuerAndSerialNumber(id) = &signer.sid else {
        return Some(Signer::Other);
    };
    let cert = signed
        .certificates
        .as_ref()?
        .0
        .iter()
        .find_map(|c| match c {
            cms::cert::CertificateChoices::Certificate(c)
                if c.tbs_certificate.issuer == id.issuer
                    && c.tbs_certificate.serial_number == id.serial_number =>
            {
                Some(c)
            }
            _ => None,
        })?;
    if !trust.recognizes(cert) {
        return Some(Signer::Other);
    }
    if signer.digest_alg.oid != rfc5912::ID_SHA_256
        || ![
            rfc5912::RSA_ENCRYPTION,
            rfc5912::SHA_256_WITH_RSA_ENCRYPTION,
        ]
        .contains(&signer.signature_algorithm.oid)
    {
        return None;
    }
    let attrs = signer.signed_attrs.as_ref()?;
    let digest = attrs
        .iter()
        .find(|a| a.oid == rfc5911::ID_MESSAGE_DIGEST)?
        .values
        .iter()
        .next()?
        .decode_as::<der::asn1::OctetString>()
        .ok()?;
    let key = rsa_key(cert)?;
    let verified = {
        use rsa::signature::Verifier;
        let signature = rsa::pkcs1v15::Signature::try_from(signer.signature.as_bytes()).ok()?;
        rsa::pkcs1v15::VerifyingKey::<Sha256>::new(key)
            .verify(&attrs.to_der().ok()?, &signature)
            .is_ok()
    };
    if !verified {
        return None;
    }
    let mut hasher = Sha256::new();
    hasher.update(&pdf[..range.hole_start]);
    hasher.update(&pdf[range.hole_end..range.end()]);
    Some(Signer::Ours {
        digest_matches: hasher.finalize().as_slice() == digest.as_bytes(),
    })
}

fn rsa_key(cert: &Certificate) -> Option<rsa::RsaPublicKey> {
    use rsa::pkcs8::DecodePublicKey;
    let spki = cert.tbs_certificate.subject_public_key_info.to_der().ok()?;
    rsa::RsaPublicKey::from_public_key_der(&spki).ok()
}

/// True when `cert`'s subject is the seal's name.
fn is_seal_name(cert: &Certificate) -> bool {
    cert.tbs_certificate.subject.0.iter().any(|rdn| {
        rdn.0.iter().any(|atv| {
            atv.oid == const_oid::db::rfc4519::CN
                && der::asn1::Utf8StringRef::try_from(&atv.value)
                    .is_ok_and(|s| s.as_str() == SEAL_COMMON_NAME)
        })
    })
}

/// True when `ca`'s key made the signature on `cert`, by the algorithms TLS trusts (the local
/// CA's key is ECDSA P-256).
fn signed_by(cert: &Certificate, ca: &Certificate) -> bool {
    let Ok(tbs) = cert.tbs_certificate.to_der() else {
        return false;
    };
    let Some(signature) = cert.signature.as_bytes() else {
        return false;
    };
    let spki = &ca.tbs_certificate.subject_public_key_info;
    let Some(public_key) = spki.subject_public_key.as_bytes() else {
        return false;
    };
    let (Some(sig_alg), Some(key_alg)) = (
        value_of(cert.signature_algorithm.to_der()),
        value_of(spki.algorithm.to_der()),
    ) else {
        return false;
    };
    let provider = rustls::crypto::ring::default_provider();
    provider
        .signature_verification_algorithms
        .all
        .iter()
        .filter(|alg| {
            alg.signature_alg_id().as_ref() == sig_alg.as_slice()
                && alg.public_key_alg_id().as_ref() == key_alg.as_slice()
        })
        .any(|alg| alg.verify_signature(public_key, &tbs, signature).is_ok())
}

/// The contents of a DER SEQUENCE, without its tag and length (how webpki names algorithms).
fn value_of(der: der::Result<Vec<u8>>) -> Option<Vec<u8>> {
    let der = der.ok()?;
    let header = match *der.get(1)? {
        n if n < 0x80 => 2,
        n => 2 + (n & 0x7f) as usize,
    };
    der.get(header..).map(<[u8]>::to_vec)
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
