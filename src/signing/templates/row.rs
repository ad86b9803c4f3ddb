//! A document made from a template by one row of values (a bulk send's CSV row): each template
//! recipient's name and address by position, values for the fields by their label, and
//! optionally the document's title and external id. A value left empty keeps the template's.
//! Problems are named by the column they came from (`recipient_2_email`, a field's label), so
//! a preview can say which cell is wrong; the checks are the ones a `generate-document`
//! request meets (addresses, distinct recipients, each field's value, the account's tier).

use std::collections::HashMap;

use crate::core::error::AppError;
use crate::core::lenient::Given;
use crate::identity::users::{Email, Tier};
use crate::signing::documents::CreateDocument;
use crate::signing::documents::check::Check;
use crate::signing::documents::meta::Chosen;
use crate::signing::documents::model::Field;

use super::prefill::{self, PrefillValue, prefill_kind};
use super::{Base, Generate, is_placeholder};

/// Longest name a row may give a recipient (as `generate-document` allows).
pub const MAX_NAME: usize = 200;

/// One row's values, as read from its cells (trimmed; empty cells are `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// The document's title; the template's when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    /// Each template recipient's name and address, in the template's order.
    pub recipients: Vec<Party>,
    /// Field values by the field's label, in the file's column order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<(String, String)>,
}

/// A template recipient's name and address as a row gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Party {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// The column of the `n`-th (from 1) template recipient's name and address.
pub fn name_column(n: usize) -> String {
    format!("recipient_{n}_name")
}

pub fn email_column(n: usize) -> String {
    format!("recipient_{n}_email")
}

/// The template's fields a row may fill, by label: those of a kind that takes a prefill and
/// with a label, the first spelling of each label (compared without case) in field order.
pub fn fillable_labels(fields: &[Field]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in fields {
        if prefill_kind(f.kind).is_none() {
            continue;
        }
        if let Some(label) = label_of(f)
            && !out.iter().any(|l| same_label(l, label))
        {
            out.push(label.to_string());
        }
    }
    out
}

fn label_of(f: &Field) -> Option<&str> {
    f.meta
        .as_ref()
        .and_then(|m| m.basic().label.as_deref())
        .map(str::trim)
        .filter(|l| !l.is_empty())
}

/// Labels are matched without case and around spaces.
pub fn same_label(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}

impl Generate {
    /// The template `base` with `row` laid over it, for an account of `tier`; every problem
    /// named by its column.
    pub fn for_row(base: &Base, tier: Tier, row: &Row) -> Result<Generate, AppError> {
        let mut c = Check::new();
        let title = match &row.title {
            Some(t) if t.chars().count() > 255 => {
                c.fail("title", "at most 255 characters");
                None
            }
            t => t.clone(),
        };
        if row
            .external_id
            .as_ref()
            .is_some_and(|e| e.chars().count() > 255)
        {
            c.fail("external_id", "at most 255 characters");
        }
        let recipients = recipients(&mut c, base, row);
        let mut prefill = HashMap::new();
        for (label, value) in &row.values {
            for f in base
                .fields
                .iter()
                .filter(|f| prefill_kind(f.kind).is_some())
            {
                if label_of(f).is_some_and(|l| same_label(l, label)) {
                    let value = cell_value(f, value);
                    let none = Given::Absent;
                    let before = c.error_count();
                    match prefill::one(&mut c, label, f, &none, &none, Some(value), &base.meta) {
                        Some(p) => {
                            prefill.insert(f.id, p);
                        }
                        // Named by the column alone (the check says `<label>.value`).
                        None if c.error_count() > before => {
                            if let Some(e) = c.last_mut() {
                                e.path = label.clone();
                            }
                        }
                        None => {}
                    }
                }
            }
        }
        let g = c.finish(Generate {
            document: CreateDocument {
                title: title.unwrap_or_else(|| base.title.clone()),
                external_id: row.external_id.clone(),
                recipients: Vec::new(),
                meta: base.meta.clone(),
                chosen: Chosen::ALL,
                auth_options: base.auth_options.clone(),
                form_values: None,
                visibility: None,
            },
            recipients,
            prefill,
        })?;
        g.within_tier(tier)
    }
}

/// The template's recipients with the row's names and addresses; an address must be valid,
/// real (the template's placeholder needs replacing) and not another recipient's.
fn recipients(
    c: &mut Check,
    base: &Base,
    row: &Row,
) -> Vec<(
    crate::core::ids::RecipientId,
    crate::signing::documents::recipients::NewRecipient,
)> {
    let mut out = base.recipients.clone();
    for (i, (_, r)) in out.iter_mut().enumerate() {
        let n = i + 1;
        let party = row.recipients.get(i).cloned().unwrap_or_default();
        if let Some(name) = party.name {
            if name.chars().count() > MAX_NAME {
                c.fail(name_column(n), format!("at most {MAX_NAME} characters"));
            } else {
                r.name = name;
            }
        }
        match party.email {
            Some(e) => match Email::check(&e) {
                Ok(e) => r.email = e.as_str().to_string(),
                Err(why) => {
                    c.fail(
                        email_column(n),
                        format!("{e:?} is not a valid e-mail address ({why})"),
                    );
                    continue;
                }
            },
            None if is_placeholder(&r.email) => {
                c.fail(
                    email_column(n),
                    "required: the template has no address for this recipient",
                );
                continue;
            }
            None => {}
        }
    }
    for (i, (_, r)) in out.iter().enumerate() {
        if is_placeholder(&r.email) {
            continue;
        }
        if let Some(j) = out[..i].iter().position(|(_, o)| o.email == r.email) {
            c.fail(
                email_column(i + 1),
                format!("{} is also recipient {}'s address", r.email, j + 1),
            );
        }
    }
    out
}

/// A cell as the value of field `f`: a number field's number when it reads as one, a
/// checkbox's checked values separated by `;`, else the text.
fn cell_value(f: &Field, cell: &str) -> PrefillValue {
    use crate::signing::documents::fields::FieldType;
    match f.kind {
        FieldType::Number => match cell.trim().parse::<serde_json::Number>() {
            Ok(n) => PrefillValue::Number(n),
            Err(_) => PrefillValue::Text(cell.to_string()),
        },
        FieldType::Checkbox => PrefillValue::List(
            cell.split(';')
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(|v| Some(v.to_string()))
                .collect(),
        ),
        _ => PrefillValue::Text(cell.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::{FieldId, RecipientId};
    use crate::signing::documents::auth_options::AuthOptions;
    use crate::signing::documents::field_meta::FieldMeta;
    use crate::signing::documents::fields::FieldType;
    use crate::signing::documents::meta::Meta;
    use crate::signing::documents::recipients::{NewRecipient, Role};
    use crate::signing::templates::placeholder_email;

    fn field(id: i64, kind: FieldType, label: Option<&str>) -> Field {
        let mut meta = FieldMeta::empty(kind);
        meta.basic_mut().label = label.map(String::from);
        Field {
            id: FieldId::new(id),
            recipient_id: RecipientId::new(7),
            kind,
            page: 1,
            x: 1.0,
            y: 1.0,
            width: 10.0,
            height: 5.0,
            meta: Some(meta),
            inserted: false,
            custom_text: None,
            drawn: false,
        }
    }

    fn base() -> Base {
        let r = |email: String, name: &str| NewRecipient {
            email,
            name: name.into(),
            role: Role::Signer,
            signing_order: None,
            auth: Default::default(),
        };
        Base {
            title: "Lease".into(),
            meta: Meta::default(),
            auth_options: AuthOptions::default(),
            recipients: vec![
                (RecipientId::new(7), r(placeholder_email(1), "Tenant")),
                (RecipientId::new(8), r("hr@example.com".into(), "Landlord")),
            ],
            fields: vec![
                field(31, FieldType::Text, Some("Flat")),
                field(32, FieldType::Number, Some("Rent")),
                field(33, FieldType::Signature, Some("Sign here")),
                field(34, FieldType::Text, Some("flat")),
                field(35, FieldType::Text, None),
            ],
        }
    }

    fn party(name: &str, email: &str) -> Party {
        let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
        Party {
            name: some(name),
            email: some(email),
        }
    }

    fn problems(row: &Row) -> Vec<(String, String)> {
        match Generate::for_row(&base(), Tier::Standard, row) {
            Ok(_) => vec![],
            Err(e) => e
                .details()
                .iter()
                .map(|d| (d.path.clone(), d.message.clone()))
                .collect(),
        }
    }

    #[test]
    fn the_fillable_labels_are_the_prefillable_fields_with_a_label_once_each() {
        assert_eq!(fillable_labels(&base().fields), ["Flat", "Rent"]);
    }

    #[test]
    fn a_row_names_recipients_by_position_and_fills_fields_by_label() {
        let row = Row {
            title: Some("Lease: Ann".into()),
            external_id: Some("crm-1".into()),
            recipients: vec![party("Ann", "ANN@example.com"), party("", "")],
            values: vec![
                ("FLAT".into(), "Flat 2".into()),
                ("Rent".into(), "950".into()),
            ],
        };
        let g = Generate::for_row(&base(), Tier::Standard, &row).unwrap();
        assert_eq!(g.document.title, "Lease: Ann");
        assert_eq!(g.document.external_id.as_deref(), Some("crm-1"));
        assert_eq!(
            (
                g.recipients[0].1.name.as_str(),
                g.recipients[0].1.email.as_str()
            ),
            ("Ann", "ann@example.com")
        );
        // Left empty: the template's own.
        assert_eq!(g.recipients[1].1.email, "hr@example.com");
        // Both fields labelled "flat" take the value; the number is a number.
        let mut filled: Vec<(i64, Option<String>)> = g
            .prefill
            .iter()
            .map(|(id, p)| (id.get(), p.value.clone()))
            .collect();
        filled.sort();
        assert_eq!(
            filled,
            [
                (31, Some("Flat 2".into())),
                (32, Some("950".into())),
                (34, Some("Flat 2".into()))
            ]
        );
    }

    #[test]
    fn each_bad_cell_is_named_by_its_column() {
        let row = Row {
            recipients: vec![party("Ann", ""), party("", "")],
            ..Row::default()
        };
        assert_eq!(
            problems(&row),
            [(
                "recipient_1_email".into(),
                "required: the template has no address for this recipient".into()
            )]
        );
        let row = Row {
            recipients: vec![party("", "not-an-address"), party("", "hr@example.com")],
            values: vec![("Rent".into(), "a lot".into())],
            ..Row::default()
        };
        let found = problems(&row);
        let columns: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(columns, ["recipient_1_email", "Rent"], "{found:?}");
        let row = Row {
            recipients: vec![party("", "hr@example.com"), party("", "")],
            ..Row::default()
        };
        assert_eq!(
            problems(&row),
            [(
                "recipient_2_email".into(),
                "hr@example.com is also recipient 1's address".into()
            )]
        );
        let row = Row {
            title: Some("x".repeat(256)),
            recipients: vec![party(&"n".repeat(201), "a@example.com")],
            ..Row::default()
        };
        let found = problems(&row);
        let columns: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(columns, ["title", "recipient_1_name"], "{found:?}");
    }
}
