//! The translations are complete: every language has English's files and messages with the
//! same variables, every file parses, and every message id the code and pages use exists.

use std::collections::BTreeMap;
use std::path::Path;

use fluent_bundle::FluentResource;

use super::bundles::{SCRIPT_FILE, files, messages};
use super::*;

type Messages = BTreeMap<String, Vec<String>>;

/// `lang`'s files, each parsed (a syntax error fails the test) into its messages.
fn parsed(lang: Lang) -> BTreeMap<String, Messages> {
    files(lang)
        .into_iter()
        .map(|(name, text)| {
            let r = FluentResource::try_new(text.to_string()).unwrap_or_else(|(_, e)| {
                panic!("locales/{}/{name} does not parse: {e:?}", lang.as_str())
            });
            (name.to_string(), messages(&r).into_iter().collect())
        })
        .collect()
}

#[test]
fn every_language_has_every_message_of_english_with_its_variables() {
    let english = parsed(Lang::En);
    assert!(english.contains_key(SCRIPT_FILE), "{english:?}");
    let mut problems = Vec::new();
    for lang in Lang::ALL {
        let theirs = parsed(lang);
        let names = |m: &BTreeMap<String, Messages>| m.keys().cloned().collect::<Vec<_>>();
        if names(&theirs) != names(&english) {
            problems.push(format!(
                "{}: files {:?}, English has {:?}",
                lang.as_str(),
                names(&theirs),
                names(&english)
            ));
            continue;
        }
        for (file, want) in &english {
            let got = &theirs[file];
            for (id, vars) in want {
                match got.get(id) {
                    None => problems.push(format!("{}/{file}: {id} is missing", lang.as_str())),
                    Some(v) if v != vars => problems.push(format!(
                        "{}/{file}: {id} uses {v:?}, English {vars:?}",
                        lang.as_str()
                    )),
                    Some(_) => {}
                }
            }
            for id in got.keys().filter(|id| !want.contains_key(*id)) {
                problems.push(format!("{}/{file}: {id} is not in English", lang.as_str()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The message ids quoted after `marks` in `text` (`tr.t("id"`, `t('id'`); a mark that begins
/// with a name (`t('`) counts only where that name begins (not `get('`, `x.t('`).
fn quoted_ids(text: &str, marks: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let name_char = |c: char| c.is_ascii_alphanumeric() || "_$.".contains(c);
    for mark in marks {
        let mut rest = text;
        while let Some(at) = rest.find(mark) {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + mark.len()..];
            if mark.starts_with(|c: char| c.is_ascii_alphabetic()) && before.is_some_and(name_char)
            {
                continue;
            }
            let id: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            let closed = rest[id.len()..].starts_with(['"', '\'']);
            if !id.is_empty() && closed {
                out.push(id);
            }
        }
    }
    out
}

fn walk(dir: &Path, ext: &[&str], out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, ext, out);
        } else if p
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| ext.contains(&x))
        {
            out.push(p);
        }
    }
}

#[test]
fn every_message_the_code_pages_and_scripts_use_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let english: Messages = parsed(Lang::En).into_values().flatten().collect();
    let mut sources = Vec::new();
    walk(&root.join("src"), &["rs"], &mut sources);
    walk(&root.join("pages"), &["html", "txt"], &mut sources);
    let mut scripts = Vec::new();
    walk(&root.join("assets/js"), &["js"], &mut scripts);
    let mut used = 0;
    let mut missing = Vec::new();
    let mut check = |path: &Path, ids: Vec<String>| {
        for id in ids {
            used += 1;
            if !english.contains_key(&id) {
                missing.push(format!("{}: {id}", path.display()));
            }
        }
    };
    for p in &sources {
        if p.ends_with("i18n/tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(p).unwrap();
        check(
            p,
            quoted_ids(&text, &[".t(\"", ".t1(\"", ".t2(\"", ".t3(\""]),
        );
    }
    let script: Messages = parsed(Lang::En)[SCRIPT_FILE].clone();
    for p in &scripts {
        let text = std::fs::read_to_string(p).unwrap();
        for id in quoted_ids(&text, &["t('"]) {
            used += 1;
            if !script.contains_key(&id) {
                missing.push(format!("{}: {id} (not in {SCRIPT_FILE})", p.display()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "unknown messages:\n{}",
        missing.join("\n")
    );
    assert!(used > 100, "the scan finds the messages in use ({used})");
    for n in 1..=12 {
        assert!(english.contains_key(&format!("date-month-{n}")));
    }
    for n in 1..=7 {
        assert!(english.contains_key(&format!("date-weekday-{n}")));
    }
}

#[test]
fn a_scan_finds_quoted_ids_and_nothing_else() {
    let ids = quoted_ids(
        r#"tr.t("a-b") x.t1("c", "k", v) t('d-1') .t(id) t('e' + x) it('no') x.t('no')"#,
        &[".t(\"", ".t1(\"", "t('"],
    );
    assert_eq!(ids, ["a-b", "c", "d-1", "e"]);
}

#[test]
fn messages_format_with_their_values_and_fall_back_to_english() {
    let de = Lang::De.tr();
    assert_eq!(
        Lang::En.tr().t1("mail-hello-name", "name", "Ann"),
        "Hello Ann,"
    );
    let hello = de.t1("mail-hello-name", "name", "Ann");
    assert!(hello.contains("Ann") && hello != "Hello Ann,", "{hello}");
    assert_eq!(de.t("no-such-message"), "no-such-message");
    assert_eq!(Lang::lenient(" pt-BR "), Some(Lang::Pt));
    assert_eq!(Lang::lenient("DE_ch"), Some(Lang::De));
    assert_eq!(Lang::lenient("xx"), None);
    assert_eq!(Lang::parse("DE"), None, "stored text is exact");
}

#[test]
fn the_scripts_get_their_messages_with_placeholders() {
    let m: BTreeMap<String, String> =
        serde_json::from_str(&Lang::Fr.tr().script_messages()).unwrap();
    let english: BTreeMap<String, String> =
        serde_json::from_str(&Lang::En.tr().script_messages()).unwrap();
    assert_eq!(
        m.keys().collect::<Vec<_>>(),
        english.keys().collect::<Vec<_>>()
    );
    assert_eq!(english["script-page-of"], "Page {n} of {total}");
    assert!(m["script-page-of"].contains("{n}") && m["script-page-of"].contains("{total}"));
    assert_ne!(m["script-next-field"], english["script-next-field"]);
}

#[test]
fn month_and_weekday_names_follow_the_language() {
    assert_eq!(localize_names(Lang::En, "%A, %B %d", 12, 1), "%A, %B %d");
    assert_eq!(
        localize_names(Lang::De, "%A, %B %d", 12, 1),
        "Montag, Dezember %d"
    );
    assert_eq!(localize_names(Lang::Fr, "%d/%m/%Y", 12, 1), "%d/%m/%Y");
}
