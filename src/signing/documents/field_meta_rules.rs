//! The limits of a field's settings (`fieldMeta`): the ranges and lengths a client's settings
//! must keep, the same as the other signing service's field-meta schema. The words each
//! setting takes are `field_meta`'s (`TextAlign::NAMES`...).

use std::ops::RangeInclusive;

/// `label` and `placeholder`, in characters.
pub const LABEL_MAX: usize = 200;
/// A setting that is a word (`overflow`, `textAlign`, `numberFormat`, `validationRule`...).
pub const WORD_MAX: usize = 32;
/// `fontSize`, in points.
pub const FONT_SIZE: RangeInclusive<f64> = 8.0..=96.0;
/// Why a `fontSize` is refused.
pub const FONT_SIZE_RULE: &str = "from 8 to 96";
/// `lineHeight` of TEXT and NUMBER.
pub const LINE_HEIGHT: RangeInclusive<f64> = 1.0..=10.0;
/// `letterSpacing` of TEXT and NUMBER.
pub const LETTER_SPACING: RangeInclusive<f64> = 0.0..=100.0;
/// TEXT's `characterLimit`: 0 is no limit.
pub const CHARACTER_LIMIT: RangeInclusive<i64> = 0..=10_000;
/// TEXT's `text`, in characters.
pub const TEXT_MAX: usize = 10_000;
/// NUMBER's `value` sent as text is kept as that text up to this length.
pub const NUMBER_TEXT_MAX: usize = 64;
/// The values of a choice field.
pub const MAX_CHOICES: usize = 100;
/// One value of a choice field (and SELECT's `defaultValue`), in characters.
pub const CHOICE_MAX: usize = 500;
/// A RADIO or CHECKBOX value's `id`.
pub const CHOICE_ID: RangeInclusive<i64> = 0..=u32::MAX as i64;
/// CHECKBOX's `validationLength` when no rule is set (kept as sent).
pub const VALIDATION_LENGTH: RangeInclusive<i64> = 0..=100;
/// Why a RADIO field with several values checked is refused.
pub const ONE_RADIO_CHECKED: &str = "a radio field can have at most one value checked";

/// Why a number setting outside `range` is refused.
pub fn from_to(range: &RangeInclusive<f64>) -> String {
    format!("from {} to {}", range.start(), range.end())
}

/// TEXT's `text` longer than its `characterLimit` (0: none): why it is refused.
pub fn over_limit(text: &str, limit: i64) -> Option<String> {
    (limit >= 1 && text.chars().count() as i64 > limit)
        .then(|| format!("longer than characterLimit ({limit})"))
}

/// CHECKBOX's `validationLength` with a rule: from 1 to the number of values.
pub fn validation_lengths(values: usize) -> RangeInclusive<i64> {
    1..=values.max(1) as i64
}

/// A RADIO field has at most one value checked.
pub fn radio_allows(checked: usize) -> bool {
    checked <= 1
}
