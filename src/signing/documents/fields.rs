//! Fields placed on pages: types, and geometry in percent of the page checked against a
//! file's pages.

use crate::core::ids::{FieldId, RecipientId};
use serde::Serialize;

use super::field_meta::FieldMeta;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FieldType {
    Signature,
    FreeSignature,
    Initials,
    Name,
    Email,
    Date,
    Text,
    Number,
    Radio,
    Checkbox,
    Select,
    /// The other signing service's name for SELECT: a field created as DROPDOWN keeps that
    /// name (and `fieldMeta.type: "dropdown"`) in every answer; it behaves as SELECT.
    Dropdown,
}

impl FieldType {
    pub const ALL: [FieldType; 12] = [
        FieldType::Signature,
        FieldType::FreeSignature,
        FieldType::Initials,
        FieldType::Name,
        FieldType::Email,
        FieldType::Date,
        FieldType::Text,
        FieldType::Number,
        FieldType::Radio,
        FieldType::Checkbox,
        FieldType::Select,
        FieldType::Dropdown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::Signature => "SIGNATURE",
            FieldType::FreeSignature => "FREE_SIGNATURE",
            FieldType::Initials => "INITIALS",
            FieldType::Name => "NAME",
            FieldType::Email => "EMAIL",
            FieldType::Date => "DATE",
            FieldType::Text => "TEXT",
            FieldType::Number => "NUMBER",
            FieldType::Radio => "RADIO",
            FieldType::Checkbox => "CHECKBOX",
            FieldType::Select => "SELECT",
            FieldType::Dropdown => "DROPDOWN",
        }
    }

    pub fn parse(s: &str) -> Option<FieldType> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// Why `t` is no field type.
    pub fn unknown(t: &str) -> String {
        let all = FieldType::ALL.map(FieldType::as_str).join(", ");
        format!("unknown type {t:?}; use one of {all}")
    }

    /// The lowercase kind that `fieldMeta.type` must carry.
    pub fn meta_kind(self) -> String {
        self.as_str().to_ascii_lowercase()
    }

    /// Types whose `fieldMeta.type` is required.
    pub fn is_advanced(self) -> bool {
        matches!(
            self,
            FieldType::Text
                | FieldType::Number
                | FieldType::Radio
                | FieldType::Checkbox
                | FieldType::Select
                | FieldType::Dropdown
        )
    }

    /// A list to pick one of (SELECT, or its other name DROPDOWN).
    pub fn is_select(self) -> bool {
        matches!(self, FieldType::Select | FieldType::Dropdown)
    }

    /// A field whose value is picked from its values (RADIO, CHECKBOX, SELECT/DROPDOWN).
    pub fn is_choice(self) -> bool {
        matches!(self, FieldType::Radio | FieldType::Checkbox) || self.is_select()
    }
}

/// A field that passed validation, ready to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewField {
    pub recipient_id: RecipientId,
    pub kind: FieldType,
    pub page_number: i64,
    pub page_x: f64,
    pub page_y: f64,
    pub page_width: f64,
    pub page_height: f64,
    pub field_meta: Option<FieldMeta>,
}

/// Where a stored field sits: what the checks against the file (at upload, at send) read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub id: FieldId,
    pub page: i64,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// Slack for sums of percentages (as in `box_problems`).
const EDGE: f64 = 1e-9;

/// Most fields one request may add.
pub const MAX_BATCH: usize = 500;

/// A field's box is given in percentages of its page: each of x, y, width and height.
pub const PAGE_PERCENT: std::ops::RangeInclusive<f64> = 0.0..=100.0;
/// Why a coordinate outside `PAGE_PERCENT` is refused.
pub const PAGE_PERCENT_RULE: &str = "a percentage of the page, from 0 to 100";

/// The pages a field may be placed on: from 1 to the file's last page when it is known.
pub fn pages_allowed(pages: Option<i64>) -> std::ops::RangeInclusive<i64> {
    1..=pages.unwrap_or(100_000)
}

/// Why a page number past the file's `last` page is refused.
pub fn beyond_last_page(last: i64) -> String {
    format!("must be from 1 to {last}, the PDF's last page")
}

/// What is wrong with the box `[x, y, width, height]` (each within `PAGE_PERCENT`): the member
/// to blame and why, for a box without area or that passes its page's edge.
pub fn box_problems([x, y, w, h]: [f64; 4]) -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    if w <= 0.0 || h <= 0.0 {
        out.push(("pageWidth", "width and height must be greater than 0"));
    }
    if x + w > 100.0 + EDGE {
        out.push(("pageWidth", "pageX + pageWidth must not pass 100"));
    }
    if y + h > 100.0 + EDGE {
        out.push(("pageHeight", "pageY + pageHeight must not pass 100"));
    }
    out
}

fn pages_word(n: i64) -> String {
    if n == 1 {
        "1 page".into()
    } else {
        format!("{n} pages")
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The fields past a file's last page, by page: "fields 3 and 5 are on page 4; field 7 is on
/// page 6". `None` when every field is on one of the `pages`.
pub fn past_last_page(fields: &[Placement], pages: i64) -> Option<String> {
    let mut by_page: std::collections::BTreeMap<i64, Vec<FieldId>> = Default::default();
    for f in fields.iter().filter(|f| f.page > pages) {
        by_page.entry(f.page).or_default().push(f.id);
    }
    if by_page.is_empty() {
        return None;
    }
    let groups: Vec<String> = by_page
        .into_iter()
        .map(|(page, mut ids)| {
            ids.sort_unstable();
            let names: Vec<String> = ids.iter().map(FieldId::to_string).collect();
            match names.len() {
                1 => format!("field {} is on page {page}", names[0]),
                _ => format!("fields {} are on page {page}", and_list(&names)),
            }
        })
        .collect();
    Some(groups.join("; "))
}

/// Refuses a new file of `pages` pages while fields lie past its last page (409 naming them):
/// replacing the file must not leave fields that no page can show, sign or seal.
pub fn require_on_pages(
    fields: &[Placement],
    pages: i64,
) -> Result<(), crate::core::error::AppError> {
    match past_last_page(fields, pages) {
        None => Ok(()),
        Some(which) => Err(crate::core::error::AppError::Conflict(format!(
            "{which}; the new file has {}: move those fields to an existing page or delete them, then upload again",
            pages_word(pages)
        ))),
    }
}

/// Why field `f` cannot be placed on a file of `pages` pages, or `None` when it can: its page
/// exists and its box lies within it.
pub fn misplaced(f: &Placement, pages: i64) -> Option<String> {
    let id = f.id;
    if f.page < 1 || f.page > pages {
        return Some(format!(
            "field {id} is on page {}, but the file has {}",
            f.page,
            pages_word(pages)
        ));
    }
    if f.x < 0.0 || f.y < 0.0 || f.x > 100.0 || f.y > 100.0 {
        return Some(format!("field {id} starts outside its page"));
    }
    if f.width <= 0.0 || f.height <= 0.0 {
        return Some(format!("field {id} has no width or height"));
    }
    if f.x + f.width > 100.0 + EDGE {
        return Some(format!(
            "field {id} reaches past the right edge of its page"
        ));
    }
    if f.y + f.height > 100.0 + EDGE {
        return Some(format!(
            "field {id} reaches past the bottom edge of its page"
        ));
    }
    None
}

/// Refuses to send while any field is off the file's pages or outside its page (400 naming
/// each): such a field can neither be shown to its signer nor sealed.
pub fn require_placed(
    fields: &[Placement],
    pages: i64,
) -> Result<(), crate::core::error::AppError> {
    let problems: Vec<String> = fields.iter().filter_map(|f| misplaced(f, pages)).collect();
    if problems.is_empty() {
        return Ok(());
    }
    Err(crate::core::error::AppError::wrong_state(format!(
        "every field must lie on one of the file's pages before sending: {}; move or delete them",
        problems.join("; ")
    )))
}

crate::sql_text_enum!(FieldType);

#[cfg(test)]
mod tests {
    use super::*;
    fn at(id: i64, page: i64) -> Placement {
        Placement {
            id: FieldId::new(id),
            page,
            x: 10.0,
            y: 10.0,
            width: 20.0,
            height: 5.0,
        }
    }

    #[test]
    fn fields_past_the_last_page_are_named_by_page() {
        let fields = [at(5, 4), at(1, 1), at(3, 4), at(7, 6), at(2, 2)];
        assert_eq!(past_last_page(&fields, 6), None);
        assert_eq!(
            past_last_page(&fields, 2).unwrap(),
            "fields 3 and 5 are on page 4; field 7 is on page 6"
        );
        let e = require_on_pages(&fields, 1).unwrap_err();
        assert_eq!(e.status(), http::StatusCode::CONFLICT);
        assert!(
            e.to_string().starts_with(
                "field 2 is on page 2; fields 3 and 5 are on page 4; field 7 is on page 6; the new file has 1 page:"
            ),
            "{e}"
        );
        let many = [at(9, 3), at(8, 3), at(4, 3)];
        assert_eq!(
            past_last_page(&many, 2).unwrap(),
            "fields 4, 8 and 9 are on page 3"
        );
    }

    #[test]
    fn misplaced_fields_are_named_with_the_reason() {
        assert_eq!(misplaced(&at(1, 1), 1), None);
        let edge = Placement {
            x: 80.0,
            width: 20.0,
            ..at(1, 1)
        };
        assert_eq!(misplaced(&edge, 1), None);
        assert_eq!(
            misplaced(&at(4, 3), 2).unwrap(),
            "field 4 is on page 3, but the file has 2 pages"
        );
        assert!(misplaced(&at(4, 0), 2).is_some());
        let wide = Placement {
            x: 90.0,
            width: 20.0,
            ..at(6, 1)
        };
        assert!(misplaced(&wide, 1).unwrap().contains("right edge"));
        let low = Placement {
            y: 99.0,
            height: 2.0,
            ..at(6, 1)
        };
        assert!(misplaced(&low, 1).unwrap().contains("bottom edge"));
        let flat = Placement {
            height: 0.0,
            ..at(6, 1)
        };
        assert!(misplaced(&flat, 1).unwrap().contains("no width"));
        let e = require_placed(&[at(1, 1), at(4, 3), wide], 2).unwrap_err();
        assert_eq!(e.status(), http::StatusCode::BAD_REQUEST);
        let msg = e.to_string();
        assert!(
            msg.contains("field 4 is on page 3") && msg.contains("field 6 reaches"),
            "{msg}"
        );
        assert!(!msg.contains("field 1 "), "{msg}");
    }
}
