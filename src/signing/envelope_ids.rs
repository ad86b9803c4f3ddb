//! The text ids the signing service's API v2 gives documents and templates ("envelopes") and
//! their files ("envelope items"), read and written from docket's numbers: `envelope_` and 16
//! letters of that service's alphabet, the number (doubled, plus one for a template) written in
//! base 22. Reversible without a table, the same on every node and after a restore, and no
//! more telling than the numbers v1 already shows (every object is checked for its caller).

use crate::core::ids::{DocumentId, TemplateId};

/// The letters the other service's ids are made of (no digits, no look-alikes).
const ALPHABET: &[u8; 22] = b"abcdefhiklmnorstuvwxyz";
/// Letters after the prefix: 22^16 > 2^64, so every number fits.
const LETTERS: usize = 16;

const ENVELOPE: &str = "envelope_";
const ITEM: &str = "envelope_item_";

/// What an envelope id names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Envelope {
    Document(DocumentId),
    Template(TemplateId),
}

impl Envelope {
    /// `envelope_` and 16 letters.
    pub fn id(self) -> String {
        format!("{ENVELOPE}{}", letters(self.number()))
    }

    /// The number the id writes: the document's doubled, the template's doubled plus one.
    fn number(self) -> u64 {
        match self {
            Envelope::Document(d) => (d.get() as u64) << 1,
            Envelope::Template(t) => ((t.get() as u64) << 1) | 1,
        }
    }

    /// The item number of the envelope's one file (the same number as the envelope's, so a
    /// document's and a template's files never share an item id).
    pub fn item_number(self) -> i64 {
        self.number() as i64
    }

    /// What `text` names, if it is an envelope id docket could have given.
    pub fn parse(text: &str) -> Option<Envelope> {
        let rest = text.strip_prefix(ENVELOPE)?;
        if rest.starts_with("item_") {
            return None;
        }
        let n = number(rest)?;
        let id = i64::try_from(n >> 1).ok().filter(|id| *id > 0)?;
        Some(match n & 1 {
            0 => Envelope::Document(DocumentId::new(id)),
            _ => Envelope::Template(TemplateId::new(id)),
        })
    }
}

impl std::str::FromStr for Envelope {
    type Err = String;

    /// For a path segment: an envelope id docket could have given.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Envelope::parse(s).ok_or_else(|| format!("{s:?} is no envelope id"))
    }
}

/// `envelope_item_` and 16 letters for file `n` (docket's number for it).
pub fn item_id(n: i64) -> String {
    format!("{ITEM}{}", letters(n.max(0) as u64))
}

/// The file number an item id names.
pub fn parse_item(text: &str) -> Option<i64> {
    let n = number(text.strip_prefix(ITEM)?)?;
    i64::try_from(n).ok().filter(|n| *n > 0)
}

/// `n` in base 22, 16 letters, most significant first.
fn letters(mut n: u64) -> String {
    let mut out = [ALPHABET[0]; LETTERS];
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(n % 22) as usize];
        n /= 22;
    }
    String::from_utf8(out.to_vec()).unwrap_or_default()
}

/// The number 16 letters write, if they are 16 letters of the alphabet and the number fits.
fn number(text: &str) -> Option<u64> {
    if text.len() != LETTERS {
        return None;
    }
    let mut n: u64 = 0;
    for b in text.bytes() {
        let digit = ALPHABET.iter().position(|a| *a == b)? as u64;
        n = n.checked_mul(22)?.checked_add(digit)?;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_back_as_what_they_name() {
        for n in [1, 2, 7, 22, 4_000_000_000, i64::MAX] {
            for e in [
                Envelope::Document(DocumentId::new(n)),
                Envelope::Template(TemplateId::new(n)),
            ] {
                let id = e.id();
                assert_eq!(id.len(), ENVELOPE.len() + LETTERS, "{id}");
                assert!(id[ENVELOPE.len()..].bytes().all(|b| ALPHABET.contains(&b)));
                assert_eq!(Envelope::parse(&id), Some(e), "{id}");
            }
            assert_eq!(parse_item(&item_id(n)), Some(n));
        }
        assert_ne!(
            Envelope::Document(DocumentId::new(5)).id(),
            Envelope::Template(TemplateId::new(5)).id()
        );
    }

    #[test]
    fn other_text_names_nothing() {
        let good = Envelope::Document(DocumentId::new(5)).id();
        let item = item_id(5);
        for bad in [
            "",
            "envelope_",
            "document_5",
            "5",
            &good[..good.len() - 1],
            &format!("{good}a"),
            &good.replace("envelope_", "Envelope_"),
            &good.to_uppercase(),
            "envelope_0000000000000000",
            "envelope_zzzzzzzzzzzzzzzz",
            "envelope_aaaaaaaaaaaaaaaa",
            item.as_str(),
        ] {
            assert_eq!(Envelope::parse(bad), None, "{bad}");
        }
        assert_eq!(parse_item(&good), None);
        assert_eq!(parse_item("envelope_item_aaaaaaaaaaaaaaaa"), None);
    }
}
