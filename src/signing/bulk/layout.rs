//! What each column of a bulk send's CSV file means for a template, and each row as the
//! values of one document (`templates::row::Row`). The columns, matched without case:
//! `recipient_N_email` and `recipient_N_name` for the template's N-th recipient (Documenso's
//! bulk-send columns, so its files work unchanged), `title` and `external_id` for the document,
//! and a field's label for that field's value. Any other column is ignored, and the preview says
//! so, since it is most often a label spelt differently.

use serde::Serialize;

use crate::core::error::{AppError, FieldError};
use crate::signing::templates::Base;
use crate::signing::templates::is_placeholder;
use crate::signing::templates::row::{
    Party, Row, email_column, fillable_labels, name_column, same_label,
};

use super::sheet::{Line, Sheet, refused};

/// What a column holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    Name(usize),
    Email(usize),
    Title,
    ExternalId,
    /// The value of the fields with this label (as the template spells it).
    Value(String),
    Ignored,
}

/// A column as the preview shows it: its header and what it is taken for.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BulkSendColumn)]
pub struct ColumnView {
    pub header: String,
    /// `recipient name`, `recipient email`, `title`, `externalId`, `field` or `ignored`.
    pub kind: &'static str,
    /// The template recipient (from 1) of a recipient column.
    #[schema(required = true)]
    pub recipient: Option<usize>,
    /// In words: "Recipient 1 (Tenant): e-mail", "Field “Flat”", "Ignored".
    pub meaning: String,
}

/// The columns of a file for one template.
#[derive(Debug, Clone)]
pub struct Layout {
    pub columns: Vec<Column>,
    pub views: Vec<ColumnView>,
}

impl Layout {
    /// What each header cell of `sheet` means for the template `base`; a 400 when a column
    /// names a recipient the template lacks, a header repeats, or a recipient the template has
    /// no address for has no e-mail column.
    pub fn of(header: &[String], base: &Base) -> Result<Layout, AppError> {
        let labels = fillable_labels(&base.fields);
        let count = base.recipients.len();
        let mut columns = Vec::new();
        let mut views = Vec::new();
        let mut problems = Vec::new();
        for (i, h) in header.iter().enumerate() {
            let key = h.trim().to_ascii_lowercase();
            if header[..i]
                .iter()
                .any(|o| o.trim().eq_ignore_ascii_case(h.trim()))
            {
                problems.push(format!("the column {h:?} appears twice"));
            }
            let column = if let Some((n, email)) = recipient_column(&key) {
                if n == 0 || n > count {
                    problems.push(format!(
                        "{h}: the template has {count} recipient{}",
                        if count == 1 { "" } else { "s" }
                    ));
                }
                if email {
                    Column::Email(n)
                } else {
                    Column::Name(n)
                }
            } else if key == "title" {
                Column::Title
            } else if key == "external_id" {
                Column::ExternalId
            } else if let Some(l) = labels.iter().find(|l| same_label(l, h)) {
                Column::Value(l.clone())
            } else {
                Column::Ignored
            };
            views.push(view(h, &column, base));
            columns.push(column);
        }
        for (n, (_, r)) in base.recipients.iter().enumerate().map(|(i, r)| (i + 1, r)) {
            if is_placeholder(&r.email) && !columns.contains(&Column::Email(n)) {
                problems.push(format!(
                    "no {} column, and the template has no address for its recipient {n} ({})",
                    email_column(n),
                    r.name
                ));
            }
        }
        if problems.is_empty() {
            Ok(Layout { columns, views })
        } else {
            Err(AppError::BadRequest {
                code: "invalid_csv",
                message: format!("the CSV file cannot be used: {}", problems.join("; ")),
                details: problems
                    .into_iter()
                    .map(|p| FieldError::new("file", p))
                    .collect(),
            })
        }
    }

    /// One row's values, or why it cannot be read (its cells do not match the header).
    pub fn row(&self, line: &Line, recipients: usize) -> Result<Row, String> {
        if line.cells.len() != self.columns.len() {
            return Err(format!(
                "has {} cells where the header has {}",
                line.cells.len(),
                self.columns.len()
            ));
        }
        let mut row = Row {
            recipients: vec![Party::default(); recipients],
            ..Row::default()
        };
        for (column, cell) in self.columns.iter().zip(&line.cells) {
            if cell.is_empty() {
                continue;
            }
            let given = Some(cell.clone());
            match column {
                Column::Name(n) => row.recipients[n - 1].name = given,
                Column::Email(n) => row.recipients[n - 1].email = given,
                Column::Title => row.title = given,
                Column::ExternalId => row.external_id = given,
                Column::Value(label) => row.values.push((label.clone(), cell.clone())),
                Column::Ignored => {}
            }
        }
        Ok(row)
    }
}

/// `(n, true)` for `recipient_n_email`, `(n, false)` for `recipient_n_name`.
fn recipient_column(key: &str) -> Option<(usize, bool)> {
    let rest = key.strip_prefix("recipient_")?;
    let (n, what) = rest.split_once('_')?;
    let n = n.parse().ok()?;
    match what {
        "email" => Some((n, true)),
        "name" => Some((n, false)),
        _ => None,
    }
}

fn view(header: &str, column: &Column, base: &Base) -> ColumnView {
    let who = |n: usize| {
        base.recipients
            .get(n.wrapping_sub(1))
            .map(|(_, r)| format!("Recipient {n} ({})", r.name))
            .unwrap_or_else(|| format!("Recipient {n}"))
    };
    let (kind, recipient, meaning) = match column {
        Column::Name(n) => ("recipient name", Some(*n), format!("{}: name", who(*n))),
        Column::Email(n) => ("recipient email", Some(*n), format!("{}: e-mail", who(*n))),
        Column::Title => ("title", None, "Document title".to_string()),
        Column::ExternalId => ("externalId", None, "External id".to_string()),
        Column::Value(l) => ("field", None, format!("Field \u{201c}{l}\u{201d}")),
        Column::Ignored => (
            "ignored",
            None,
            "Ignored: no recipient or field label of this template".to_string(),
        ),
    };
    ColumnView {
        header: header.to_string(),
        kind,
        recipient,
        meaning,
    }
}

/// The header of a file for `base`: each recipient's e-mail and name, then one column for each
/// label a row may fill.
pub fn header_for(base: &Base) -> Vec<String> {
    let mut out = Vec::new();
    for n in 1..=base.recipients.len() {
        out.push(email_column(n));
        out.push(name_column(n));
    }
    out.extend(fillable_labels(&base.fields));
    out
}

/// The sheet's rows with the layout's reading of each.
pub fn rows(sheet: &Sheet, layout: &Layout, recipients: usize) -> Vec<(u64, Result<Row, String>)> {
    sheet
        .rows
        .iter()
        .map(|l| (l.line, layout.row(l, recipients)))
        .collect()
}

/// The whole-file refusal for a template without recipients.
pub fn no_recipients() -> AppError {
    refused("the template has no recipients: add them before a bulk send")
}
