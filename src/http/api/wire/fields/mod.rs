//! What clients send to place and change fields, as types: a field (`field`), a batch of them
//! or a change of one (`batch`), and a field's settings (`meta`, checked by `meta_check` and, for choices, `meta_choices`). Each
//! becomes the domain's `NewField`, `FieldMeta` or a command of `documents::drafts`, by the
//! rules of `documents::fields` and `documents::field_meta_rules`.

pub mod batch;
pub mod field;
pub mod meta;
pub mod meta_check;
mod meta_choices;

#[cfg(test)]
mod tests;
