//! The PAdES signature: an incremental update that adds an invisible signature field on the
//! first page, whose CMS (CAdES detached, SHA-256, RSA) covers every byte of the file except
//! the signature value itself.

use der::{Decode, Encode};
use lopdf::{Document, IncrementalDocument, Object, ObjectId, StringFormat, dictionary};
use sha2::{Digest, Sha256};

use super::check::DOCUMENT_KEY;
use super::font::lopdf_error;
use super::signer::SealSigner;
use crate::core::ids::DocumentId;
use crate::signing::pdf::PdfError;

/// Room for the CMS: about 1.9 KB with two RSA-2048 certificates; a timestamp token would fit.
const SIGNATURE_BYTES: usize = 16 * 1024;
const BYTE_RANGE_PLACEHOLDER: &str = "[0 1000000000 1000000000 1000000000]";

/// Appends the signature to `pdf` (a file lopdf wrote, with a regular cross-reference table).
/// The signature dictionary names `document` just before `/ByteRange`, inside the signed
/// bytes, where the public check (`check.rs`) finds it.
pub(super) fn sign(
    pdf: Vec<u8>,
    signer: &SealSigner,
    when: &str,
    document: DocumentId,
) -> Result<Vec<u8>, PdfError> {
    let prev_len = pdf.len();
    let mut inc: IncrementalDocument = pdf.as_slice().try_into().map_err(lopdf_error)?;
    let prev = inc.get_prev_documents();
    let catalog_id = prev
        .trailer
        .get(b"Root")
        .and_then(Object::as_reference)
        .map_err(lopdf_error)?;
    let first_page = *prev.get_pages().get(&1).ok_or(PdfError::NoPages)?;
    let acro_form_ref = prev
        .get_dictionary(catalog_id)
        .and_then(|c| c.get(b"AcroForm"))
        .and_then(Object::as_reference)
        .ok();
    let annots_ref = prev
        .get_dictionary(first_page)
        .and_then(|p| p.get(b"Annots"))
        .and_then(Object::as_reference)
        .ok();

    let new = &mut inc.new_document;
    let sig = new.add_object(dictionary! {
        "Type" => "Sig",
        "Filter" => "Adobe.PPKLite",
        "SubFilter" => "ETSI.CAdES.detached",
        "M" => Object::string_literal(when),
        "Name" => Object::string_literal("Docket document seal"),
        "Reason" => Object::string_literal("Sealed after all recipients signed"),
        DOCUMENT_KEY => document.get(),
        "ByteRange" => vec![0.into(), 1_000_000_000.into(), 1_000_000_000.into(), 1_000_000_000.into()],
        "Contents" => Object::String(vec![0; SIGNATURE_BYTES], StringFormat::Hexadecimal),
    });
    let widget = new.add_object(dictionary! {
        "Type" => "Annot",
        "Subtype" => "Widget",
        "FT" => "Sig",
        "T" => Object::string_literal("DocketSeal"),
        "V" => sig,
        "F" => 132,
        "Rect" => vec![0.into(), 0.into(), 0.into(), 0.into()],
        "P" => first_page,
    });

    // The first page lists the widget among its annotations.
    inc.opt_clone_object_to_new_document(first_page)
        .map_err(lopdf_error)?;
    match annots_ref {
        Some(id) => {
            inc.opt_clone_object_to_new_document(id)
                .map_err(lopdf_error)?;
            push(&mut inc.new_document, id, None, widget)?;
        }
        None => push(&mut inc.new_document, first_page, Some(b"Annots"), widget)?,
    }
    // The AcroForm lists the field and says the file is signed.
    let form_id = match acro_form_ref {
        Some(id) => {
            inc.opt_clone_object_to_new_document(id)
                .map_err(lopdf_error)?;
            id
        }
        None => {
            inc.opt_clone_object_to_new_document(catalog_id)
                .map_err(lopdf_error)?;
            catalog_id
        }
    };
    add_field(
        &mut inc.new_document,
        form_id,
        acro_form_ref.is_none(),
        widget,
    )?;

    let mut out = Vec::with_capacity(prev_len + SIGNATURE_BYTES * 2 + 4096);
    inc.save_to(&mut out)?;
    patch(&mut out, prev_len, signer)?;
    Ok(out)
}

/// Appends `item` to the array at `key` of dictionary `id` (or to the array object `id`).
fn push(
    doc: &mut Document,
    id: ObjectId,
    key: Option<&[u8]>,
    item: ObjectId,
) -> Result<(), PdfError> {
    let object = doc.get_object_mut(id).map_err(lopdf_error)?;
    let array = match (key, object) {
        (None, Object::Array(items)) => items,
        (Some(key), Object::Dictionary(dict)) => {
            if !matches!(dict.get(key), Ok(Object::Array(_))) {
                dict.set(key.to_vec(), Vec::<Object>::new());
            }
            dict.get_mut(key)
                .and_then(Object::as_array_mut)
                .map_err(lopdf_error)?
        }
        _ => return Err(PdfError::Seal("unexpected annotation list".into())),
    };
    array.push(Object::Reference(item));
    Ok(())
}

fn add_field(
    doc: &mut Document,
    id: ObjectId,
    in_catalog: bool,
    field: ObjectId,
) -> Result<(), PdfError> {
    let dict = doc.get_dictionary_mut(id).map_err(lopdf_error)?;
    let form = if in_catalog {
        if !matches!(dict.get(b"AcroForm"), Ok(Object::Dictionary(_))) {
            dict.set("AcroForm", lopdf::Dictionary::new());
        }
        dict.get_mut(b"AcroForm")
            .and_then(Object::as_dict_mut)
            .map_err(lopdf_error)?
    } else {
        dict
    };
    form.set("SigFlags", 3);
    if !matches!(form.get(b"Fields"), Ok(Object::Array(_))) {
        // A /Fields reference would need one more clone; the full rewrite before signing
        // leaves fields inline or absent in files without other form fields.
        if let Ok(Object::Reference(_)) = form.get(b"Fields") {
            return Err(PdfError::Seal(
                "the form's field list is an indirect object".into(),
            ));
        }
        form.set("Fields", Vec::<Object>::new());
    }
    form.get_mut(b"Fields")
        .and_then(Object::as_array_mut)
        .map_err(lopdf_error)?
        .push(Object::Reference(field));
    Ok(())
}

/// Fills in /ByteRange and /Contents in the appended part of `out`.
fn patch(out: &mut [u8], prev_len: usize, signer: &SealSigner) -> Result<(), PdfError> {
    let missing = || PdfError::Seal("the signature placeholder was not written".into());
    let tail = &out[prev_len..];
    let hole = format!("<{}>", "0".repeat(SIGNATURE_BYTES * 2));
    let a = prev_len + find(tail, hole.as_bytes()).ok_or_else(missing)?;
    let b = a + hole.len();
    let range_at = prev_len + find(tail, BYTE_RANGE_PLACEHOLDER.as_bytes()).ok_or_else(missing)?;
    let len = out.len();
    let range = format!("[0 {a} {b} {}]", len - b);
    let padded = format!("{range:<width$}", width = BYTE_RANGE_PLACEHOLDER.len());
    out[range_at..range_at + padded.len()].copy_from_slice(padded.as_bytes());

    let mut hasher = Sha256::new();
    hasher.update(&out[..a]);
    hasher.update(&out[b..]);
    let digest = hasher.finalize();
    let cms = cms_signature(&digest, signer)?;
    let hex = hex::encode_upper(&cms);
    if hex.len() > SIGNATURE_BYTES * 2 {
        return Err(PdfError::Seal(
            "the signature is larger than its placeholder".into(),
        ));
    }
    out[a + 1..a + 1 + hex.len()].copy_from_slice(hex.as_bytes());
    Ok(())
}

/// CMS SignedData, detached, over a SHA-256 `digest`: content type, message digest, signing
/// time and the ESS signing-certificate-v2 attribute (CAdES), and the certificate chain.
fn cms_signature(digest: &[u8], signer: &SealSigner) -> Result<Vec<u8>, PdfError> {
    use cms::builder::{SignedDataBuilder, SignerInfoBuilder, create_signing_time_attribute};
    use cms::cert::{CertificateChoices, IssuerAndSerialNumber};
    use cms::signed_data::{EncapsulatedContentInfo, SignerIdentifier};
    use const_oid::db::{rfc5911, rfc5912};
    use x509_cert::spki::AlgorithmIdentifierOwned;

    let fail = |e: &dyn std::fmt::Display| PdfError::Seal(format!("signing failed: {e}"));
    let cert = &signer.chain[0];
    let eci = EncapsulatedContentInfo {
        econtent_type: rfc5911::ID_DATA,
        econtent: None,
    };
    let sid = SignerIdentifier::IssuerAndSerialNumber(IssuerAndSerialNumber {
        issuer: cert.tbs_certificate.issuer.clone(),
        serial_number: cert.tbs_certificate.serial_number.clone(),
    });
    let sha256 = AlgorithmIdentifierOwned {
        oid: rfc5912::ID_SHA_256,
        parameters: None,
    };
    let key = rsa::pkcs1v15::SigningKey::<Sha256>::new(signer.key.clone());
    let mut info = SignerInfoBuilder::new(&key, sid, sha256.clone(), &eci, Some(digest))
        .map_err(|e| fail(&e))?;
    info.add_signed_attribute(create_signing_time_attribute().map_err(|e| fail(&e))?)
        .map_err(|e| fail(&e))?;
    info.add_signed_attribute(signing_certificate_v2(cert).map_err(|e| fail(&e))?)
        .map_err(|e| fail(&e))?;
    let mut builder = SignedDataBuilder::new(&eci);
    builder.add_digest_algorithm(sha256).map_err(|e| fail(&e))?;
    for c in &signer.chain {
        builder
            .add_certificate(CertificateChoices::Certificate(c.clone()))
            .map_err(|e| fail(&e))?;
    }
    builder
        .add_signer_info::<_, rsa::pkcs1v15::Signature>(info)
        .map_err(|e| fail(&e))?
        .build()
        .map_err(|e| fail(&e))?
        .to_der()
        .map_err(|e| fail(&e))
}

/// ESS signing-certificate-v2 (RFC 5035) naming the seal certificate by its SHA-256 hash, as
/// CAdES requires: `SEQUENCE { SEQUENCE { SEQUENCE { OCTET STRING hash } } }`, algorithm
/// omitted because SHA-256 is the default.
fn signing_certificate_v2(
    cert: &x509_cert::Certificate,
) -> der::Result<x509_cert::attr::Attribute> {
    const ID_AA_SIGNING_CERTIFICATE_V2: const_oid::ObjectIdentifier =
        const_oid::ObjectIdentifier::new_unwrap("1.2.840.113549.1.9.16.2.47");
    let hash = Sha256::digest(cert.to_der()?);
    let mut value = vec![0x30, 0x26, 0x30, 0x24, 0x30, 0x22, 0x04, 0x20];
    value.extend_from_slice(&hash);
    let any = der::Any::from_der(&value)?;
    Ok(x509_cert::attr::Attribute {
        oid: ID_AA_SIGNING_CERTIFICATE_V2,
        values: der::asn1::SetOfVec::try_from(vec![any])?,
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
