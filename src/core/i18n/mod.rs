//! The languages recipients read Docket in (a document's `meta.language`): the signing pages,
//! the direct-link page and every e-mail a recipient gets. The words live in Fluent files a
//! translator edits, `locales/<code>/*.ftl`, embedded in the binary; `Tr` formats them for one
//! language. English is the reference: every other language has exactly its messages, with the
//! same variables (`tests` below), and a message missing at run time falls back to English.
//! The owner's pages are English.

mod bundles;
mod dates;

use serde::{Deserialize, Serialize};

pub use dates::localize_names;

/// A language recipients may be addressed in.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    De,
    Fr,
    Es,
    It,
    Nl,
    Pl,
    Pt,
}

impl Lang {
    pub const ALL: [Lang; 8] = [
        Lang::En,
        Lang::De,
        Lang::Fr,
        Lang::Es,
        Lang::It,
        Lang::Nl,
        Lang::Pl,
        Lang::Pt,
    ];

    /// The language's ISO 639-1 code, as the API and the database write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::Es => "es",
            Lang::It => "it",
            Lang::Nl => "nl",
            Lang::Pl => "pl",
            Lang::Pt => "pt",
        }
    }

    /// The exact code (`as_str`).
    pub fn parse(s: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// A language as people and clients write it: any case, and a region or script after the
    /// language itself ("pt-BR", "de_CH") names the language.
    pub fn lenient(s: &str) -> Option<Lang> {
        let primary = s.trim().split(['-', '_']).next().unwrap_or_default();
        Lang::parse(&primary.to_ascii_lowercase())
    }

    /// The language's name in itself, as a choice of it is shown.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::De => "Deutsch",
            Lang::Fr => "Français",
            Lang::Es => "Español",
            Lang::It => "Italiano",
            Lang::Nl => "Nederlands",
            Lang::Pl => "Polski",
            Lang::Pt => "Português",
        }
    }

    /// The words of this language.
    pub fn tr(self) -> Tr {
        Tr(self)
    }

    /// What a choice of language offers: every language, by its code and own name.
    pub fn choices() -> Vec<(&'static str, &'static str)> {
        Lang::ALL
            .iter()
            .map(|l| (l.as_str(), l.native_name()))
            .collect()
    }

    /// The sentence a refused language value gets.
    pub fn expected() -> String {
        let codes: Vec<&str> = Lang::ALL.iter().map(|l| l.as_str()).collect();
        format!("must be one of {}", codes.join(", "))
    }
}

crate::sql_text_enum!(Lang);

/// One language's messages. Templates call `t` with a message's id, and `t1`/`t2`/`t3` with
/// its variables as name-value pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tr(Lang);

impl Tr {
    pub fn lang(&self) -> Lang {
        self.0
    }

    /// The code for `<html lang>`.
    pub fn code(&self) -> &'static str {
        self.0.as_str()
    }

    pub fn t(&self, id: &str) -> String {
        self.with(id, &[])
    }

    pub fn t1(&self, id: &str, k: &str, v: impl AsRef<str>) -> String {
        self.with(id, &[(k, v.as_ref())])
    }

    pub fn t2(
        &self,
        id: &str,
        k1: &str,
        v1: impl AsRef<str>,
        k2: &str,
        v2: impl AsRef<str>,
    ) -> String {
        self.with(id, &[(k1, v1.as_ref()), (k2, v2.as_ref())])
    }

    #[allow(clippy::too_many_arguments)]
    pub fn t3(
        &self,
        id: &str,
        k1: &str,
        v1: impl AsRef<str>,
        k2: &str,
        v2: impl AsRef<str>,
        k3: &str,
        v3: impl AsRef<str>,
    ) -> String {
        self.with(
            id,
            &[(k1, v1.as_ref()), (k2, v2.as_ref()), (k3, v3.as_ref())],
        )
    }

    /// Message `id` with its variables; a message this language lacks is English's, and one
    /// English lacks too is its id (the tests make both impossible for the ids in use).
    pub fn with(&self, id: &str, args: &[(&str, &str)]) -> String {
        bundles::format(self.0, id, args)
            .or_else(|| bundles::format(Lang::En, id, args))
            .unwrap_or_else(|| {
                tracing::warn!(id, "a message missing from the translations");
                id.to_string()
            })
    }

    /// Every message of the signing page's scripts (`signing-script.ftl`), each with its
    /// variables left as `{name}` for the script to fill in, as one JSON object.
    pub fn script_messages(&self) -> String {
        let map = bundles::script_messages(self.0);
        serde_json::to_string(&map).expect("strings serialize")
    }
}

#[cfg(test)]
mod tests;
