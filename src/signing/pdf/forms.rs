//! The PDF's own interactive form (AcroForm): the fully qualified names of its fields, and
//! filling them with a document's `formValues` when it is sent.
//!
//! Values are set as each field's `/V` (text as a PDF text string, numbers as text, booleans on
//! check boxes as their "on" appearance state or `/Off`), each widget's `/AS` follows a check
//! box's value, and `/NeedAppearances` asks viewers to draw text values from `/V`.

use lopdf::{Dictionary, Document, Object, ObjectId, StringFormat};
use serde_json::{Map, Value};

use super::PdfError;

/// Bound on the depth of a field's /Kids (real forms nest a few levels).
const MAX_DEPTH: usize = 32;

/// A terminal field: its full name and object id.
fn terminal_fields(doc: &Document) -> Vec<(String, ObjectId)> {
    let Some(fields) = acroform(doc)
        .and_then(|f| f.get(b"Fields").ok())
        .and_then(|o| resolve(doc, o).as_array().ok().cloned())
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for f in fields {
        if let Ok(id) = f.as_reference() {
            walk(doc, id, String::new(), 0, &mut out);
        }
    }
    out
}

fn walk(
    doc: &Document,
    id: ObjectId,
    parent: String,
    depth: usize,
    out: &mut Vec<(String, ObjectId)>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Ok(dict) = doc.get_dictionary(id) else {
        return;
    };
    let part = dict
        .get(b"T")
        .ok()
        .and_then(|t| t.as_str().ok())
        .map(decode_text);
    let name = match (&part, parent.is_empty()) {
        (Some(p), true) => p.clone(),
        (Some(p), false) => format!("{parent}.{p}"),
        (None, _) => parent.clone(),
    };
    let kids: Vec<ObjectId> = dict
        .get(b"Kids")
        .ok()
        .and_then(|k| resolve(doc, k).as_array().ok())
        .map(|a| a.iter().filter_map(|k| k.as_reference().ok()).collect())
        .unwrap_or_default();
    // Kids with names are fields; kids without are this field's widgets.
    let named_kids: Vec<ObjectId> = kids
        .iter()
        .copied()
        .filter(|k| doc.get_dictionary(*k).is_ok_and(|d| d.has(b"T")))
        .collect();
    if named_kids.is_empty() {
        if !name.is_empty() {
            out.push((name, id));
        }
        return;
    }
    for k in named_kids {
        walk(doc, k, name.clone(), depth + 1, out);
    }
}

fn acroform(doc: &Document) -> Option<&Dictionary> {
    let root = doc.trailer.get(b"Root").ok()?;
    let catalog = resolve(doc, root).as_dict().ok()?;
    resolve(doc, catalog.get(b"AcroForm").ok()?).as_dict().ok()
}

fn resolve<'a>(doc: &'a Document, o: &'a Object) -> &'a Object {
    match o {
        Object::Reference(id) => doc.get_object(*id).unwrap_or(o),
        other => other,
    }
}

/// A PDF text string: UTF-16BE with a byte-order mark, else PDFDocEncoding (Latin-1 here).
fn decode_text(bytes: &[u8]) -> String {
    if bytes.starts_with(&[0xFE, 0xFF]) {
        let units: Vec<u16> = bytes[2..]
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    } else {
        bytes.iter().map(|&b| b as char).collect()
    }
}

fn encode_text(s: &str) -> Object {
    if s.is_ascii() {
        return Object::String(s.as_bytes().to_vec(), StringFormat::Literal);
    }
    let mut bytes = vec![0xFE, 0xFF];
    for u in s.encode_utf16() {
        bytes.extend(u.to_be_bytes());
    }
    Object::String(bytes, StringFormat::Hexadecimal)
}

/// The budgeted loader every PDF goes through (see `inspect::load_whole`).
fn load(bytes: &[u8]) -> Result<Document, PdfError> {
    let doc = super::inspect::load_whole(bytes)?;
    if doc.is_encrypted() {
        return Err(PdfError::Encrypted);
    }
    Ok(doc)
}

/// Runs `work` and turns a panic inside the PDF library into `Damaged`.
fn guarded<T, E: From<PdfError>>(work: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|_| {
        tracing::warn!("the PDF library panicked on a form");
        Err(PdfError::Damaged("it is malformed in a way the reader cannot handle".into()).into())
    })
}

/// The fully qualified names of the form's fields (e.g. `applicant.name`), in form order.
/// Never panics.
pub fn field_names(bytes: &[u8]) -> Result<Vec<String>, PdfError> {
    guarded(|| {
        let doc = load(bytes)?;
        Ok(terminal_fields(&doc).into_iter().map(|(n, _)| n).collect())
    })
}

/// What `fill` did: the filled PDF (`None` when no name matched a field, so the file is left
/// as it was), the names it set and those the form has no field for, each in the order given.
#[derive(Debug)]
pub struct Filled {
    pub pdf: Option<Vec<u8>>,
    pub matched: Vec<String>,
    pub unmatched: Vec<String>,
}

/// The PDF with those of `values` set whose names are fields of its form; the other names are
/// reported, not refused (what the caller makes of them is its rule). Never panics.
pub fn fill(bytes: &[u8], values: &Map<String, Value>) -> Result<Filled, PdfError> {
    guarded(|| fill_unguarded(bytes, values))
}

fn fill_unguarded(bytes: &[u8], values: &Map<String, Value>) -> Result<Filled, PdfError> {
    let mut doc = load(bytes)?;
    let fields = terminal_fields(&doc);
    let (matched, unmatched): (Vec<String>, Vec<String>) = values
        .keys()
        .cloned()
        .partition(|k| fields.iter().any(|(n, _)| n == k));
    if matched.is_empty() {
        return Ok(Filled {
            pdf: None,
            matched,
            unmatched,
        });
    }
    for (name, id) in &fields {
        let Some(value) = values.get(name) else {
            continue;
        };
        let widgets = widgets(&doc, *id);
        let on_state = widgets.iter().find_map(|w| on_state(&doc, *w));
        let (v, state) = match (value, on_state) {
            (Value::Bool(b), Some(on)) => {
                let state = if *b { on } else { b"Off".to_vec() };
                (Object::Name(state.clone()), Some(state))
            }
            (Value::Bool(b), None) => (encode_text(if *b { "Yes" } else { "No" }), None),
            (Value::String(s), _) => (encode_text(s), None),
            (other, _) => (encode_text(&other.to_string()), None),
        };
        if let Ok(dict) = doc.get_dictionary_mut(*id) {
            dict.set("V", v);
        }
        if let Some(state) = state {
            for w in widgets {
                if let Ok(d) = doc.get_dictionary_mut(w) {
                    d.set("AS", Object::Name(state.clone()));
                }
            }
        }
    }
    let form_id = doc
        .trailer
        .get(b"Root")
        .ok()
        .and_then(|r| r.as_reference().ok())
        .and_then(|root| doc.get_dictionary(root).ok())
        .and_then(|c| c.get(b"AcroForm").ok())
        .and_then(|f| f.as_reference().ok());
    match form_id {
        Some(id) => {
            if let Ok(form) = doc.get_dictionary_mut(id) {
                form.set("NeedAppearances", true);
            }
        }
        None => {
            let root = doc
                .trailer
                .get(b"Root")
                .and_then(Object::as_reference)
                .map_err(|e| PdfError::Damaged(e.to_string()))?;
            if let Ok(Object::Dictionary(form)) = doc
                .get_dictionary_mut(root)
                .and_then(|c| c.get_mut(b"AcroForm"))
            {
                form.set("NeedAppearances", true);
            }
        }
    }
    let mut out = Vec::new();
    doc.save_to(&mut out)
        .map_err(|e| PdfError::Damaged(e.to_string()))?;
    Ok(Filled {
        pdf: Some(out),
        matched,
        unmatched,
    })
}

/// The widget annotations of field `id`: its kids without names, or the field itself.
fn widgets(doc: &Document, id: ObjectId) -> Vec<ObjectId> {
    let kids: Vec<ObjectId> = doc
        .get_dictionary(id)
        .ok()
        .and_then(|d| d.get(b"Kids").ok())
        .and_then(|k| resolve(doc, k).as_array().ok())
        .map(|a| a.iter().filter_map(|k| k.as_reference().ok()).collect())
        .unwrap_or_default();
    if kids.is_empty() { vec![id] } else { kids }
}

/// A check box widget's "on" state: the name in its normal appearances that is not `Off`.
fn on_state(doc: &Document, widget: ObjectId) -> Option<Vec<u8>> {
    let d = doc.get_dictionary(widget).ok()?;
    let ap = resolve(doc, d.get(b"AP").ok()?).as_dict().ok()?;
    let normal = resolve(doc, ap.get(b"N").ok()?).as_dict().ok()?;
    normal
        .iter()
        .map(|(k, _)| k.clone())
        .find(|k| k.as_slice() != b"Off")
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::dictionary;

    /// A one-page PDF with a text field `applicant.name` (a parent with a named kid), a text
    /// field `city` and a check box `agree`.
    fn form_pdf() -> Vec<u8> {
        let mut doc = Document::with_version("1.7");
        let pages = doc.new_object_id();
        let on = doc.add_object(lopdf::Stream::new(dictionary! {}, b"".to_vec()));
        let off = doc.add_object(lopdf::Stream::new(dictionary! {}, b"".to_vec()));
        let name = doc.add_object(dictionary! {"T" => Object::string_literal("name"), "FT" => "Tx", "Subtype" => "Widget", "Rect" => vec![0.into(), 0.into(), 10.into(), 10.into()]});
        let applicant = doc.add_object(
            dictionary! {"T" => Object::string_literal("applicant"), "Kids" => vec![name.into()]},
        );
        let city = doc.add_object(dictionary! {"T" => Object::string_literal("city"), "FT" => "Tx", "Subtype" => "Widget", "Rect" => vec![0.into(), 20.into(), 10.into(), 30.into()]});
        let agree = doc.add_object(dictionary! {"T" => Object::string_literal("agree"), "FT" => "Btn", "Subtype" => "Widget", "AS" => "Off",
            "Rect" => vec![0.into(), 40.into(), 10.into(), 50.into()], "AP" => dictionary! {"N" => dictionary! {"Agreed" => on, "Off" => off}}});
        let page = doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages, "MediaBox" => vec![0.into(), 0.into(), 200.into(), 200.into()],
            "Annots" => vec![name.into(), city.into(), agree.into()]});
        doc.objects.insert(
            pages,
            Object::Dictionary(
                dictionary! {"Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1},
            ),
        );
        let form = doc.add_object(
            dictionary! {"Fields" => vec![applicant.into(), city.into(), agree.into()]},
        );
        let catalog =
            doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages, "AcroForm" => form});
        doc.trailer.set("Root", catalog);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    #[test]
    fn names_are_fully_qualified() {
        assert_eq!(
            field_names(&form_pdf()).unwrap(),
            vec!["applicant.name", "city", "agree"]
        );
    }

    #[test]
    fn values_are_set_and_unknown_names_listed() {
        let mut values = Map::new();
        values.insert("applicant.name".into(), Value::String("Zoë".into()));
        values.insert("city".into(), serde_json::json!(75001));
        values.insert("agree".into(), Value::Bool(true));
        let filled = fill(&form_pdf(), &values).unwrap();
        assert!(filled.unmatched.is_empty());
        let doc = Document::load_mem(&filled.pdf.unwrap()).unwrap();
        let fields = terminal_fields(&doc);
        let v = |n: &str| {
            let id = fields.iter().find(|(x, _)| x == n).unwrap().1;
            doc.get_dictionary(id).unwrap().get(b"V").unwrap().clone()
        };
        assert_eq!(decode_text(v("applicant.name").as_str().unwrap()), "Zoë");
        assert_eq!(v("city").as_str().unwrap(), b"75001");
        assert_eq!(v("agree").as_name().unwrap(), b"Agreed");
        let agree = fields.iter().find(|(x, _)| x == "agree").unwrap().1;
        assert_eq!(
            doc.get_dictionary(agree)
                .unwrap()
                .get(b"AS")
                .unwrap()
                .as_name()
                .unwrap(),
            b"Agreed"
        );

        values.insert("nope".into(), Value::Bool(true));
        values.insert("also.nope".into(), Value::Bool(true));
        let filled = fill(&form_pdf(), &values).unwrap();
        let (mut matched, mut unmatched) = (filled.matched, filled.unmatched);
        matched.sort();
        unmatched.sort();
        assert_eq!(matched, vec!["agree", "applicant.name", "city"]);
        assert_eq!(unmatched, vec!["also.nope", "nope"]);
        assert!(filled.pdf.is_some(), "the names that match are still set");
    }

    #[test]
    fn the_budgeted_loader_refuses_what_the_upload_check_refuses() {
        use crate::{
            signing::pdf::budget::hostile::nested, signing::pdf::budget::hostile::pdf_with,
        };
        let deep = pdf_with(&[nested(90)], 1, None);
        let err = field_names(&deep).unwrap_err();
        assert!(
            matches!(
                err,
                PdfError::TooComplex(crate::signing::pdf::Exceeded::Depth)
            ),
            "{err:?}"
        );
        let mut values = Map::new();
        values.insert("x".into(), Value::Bool(true));
        assert!(matches!(fill(&deep, &values), Err(PdfError::TooComplex(_))));
    }

    #[test]
    fn a_pdf_without_a_form_has_no_fields() {
        let plain = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/pdf/a4-1p.pdf"
        ))
        .unwrap();
        assert!(field_names(&plain).unwrap().is_empty());
        let mut values = Map::new();
        values.insert("x".into(), Value::Bool(true));
        let filled = fill(&plain, &values).unwrap();
        assert!(
            filled.pdf.is_none(),
            "nothing matched: the file stays as it was"
        );
        assert_eq!(filled.unmatched, vec!["x"]);
    }
}
