//! The embedded Fluent files, parsed once into a bundle per language, and what they hold.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};
use fluent_syntax::ast;
use include_dir::{Dir, include_dir};

use super::Lang;

pub(super) static LOCALES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/locales");

/// The file whose messages the signing page's scripts get (`Tr::script_messages`).
pub(super) const SCRIPT_FILE: &str = "signing-script.ftl";

/// One language: its bundle, and the signing scripts' messages with their variables.
struct Loaded {
    bundle: FluentBundle<FluentResource>,
    script: Vec<(String, Vec<String>)>,
}

fn all() -> &'static Vec<Loaded> {
    static ALL: OnceLock<Vec<Loaded>> = OnceLock::new();
    ALL.get_or_init(|| Lang::ALL.iter().map(|l| load(*l)).collect())
}

fn loaded(lang: Lang) -> &'static Loaded {
    let at = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
    &all()[at]
}

/// The files of `lang`, by name, in a stable order.
pub(super) fn files(lang: Lang) -> Vec<(&'static str, &'static str)> {
    let mut out: Vec<(&str, &str)> = LOCALES
        .get_dir(lang.as_str())
        .map(|d| {
            d.files()
                .filter_map(|f| {
                    let name = f.path().file_name()?.to_str()?;
                    Some((name, f.contents_utf8()?))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn load(lang: Lang) -> Loaded {
    let id: unic_langid::LanguageIdentifier = lang
        .as_str()
        .parse()
        .expect("the codes are valid language ids");
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // The languages are all written left to right, and the pages escape every value: no
    // isolation marks around the values.
    bundle.set_use_isolating(false);
    let mut script = Vec::new();
    for (name, text) in files(lang) {
        let resource = match FluentResource::try_new(text.to_string()) {
            Ok(r) => r,
            Err((r, errors)) => {
                tracing::error!(
                    lang = lang.as_str(),
                    file = name,
                    ?errors,
                    "a translation file has errors"
                );
                r
            }
        };
        if name == SCRIPT_FILE {
            script = messages(&resource);
        }
        if let Err(errors) = bundle.add_resource(resource) {
            tracing::error!(
                lang = lang.as_str(),
                file = name,
                ?errors,
                "a translation file repeats a message"
            );
        }
    }
    Loaded { bundle, script }
}

/// The messages of `resource`, each with the variables it uses, in file order.
pub(super) fn messages(resource: &FluentResource) -> Vec<(String, Vec<String>)> {
    resource
        .entries()
        .filter_map(|e| match e {
            ast::Entry::Message(m) => {
                let mut vars = Vec::new();
                if let Some(p) = &m.value {
                    variables(p, &mut vars);
                }
                vars.sort();
                vars.dedup();
                Some((m.id.name.to_string(), vars))
            }
            _ => None,
        })
        .collect()
}

fn variables(p: &ast::Pattern<&str>, out: &mut Vec<String>) {
    for e in &p.elements {
        if let ast::PatternElement::Placeable { expression } = e {
            expression_variables(expression, out);
        }
    }
}

fn expression_variables(e: &ast::Expression<&str>, out: &mut Vec<String>) {
    match e {
        ast::Expression::Inline(i) => inline_variables(i, out),
        ast::Expression::Select { selector, variants } => {
            inline_variables(selector, out);
            for v in variants {
                variables(&v.value, out);
            }
        }
    }
}

fn inline_variables(i: &ast::InlineExpression<&str>, out: &mut Vec<String>) {
    match i {
        ast::InlineExpression::VariableReference { id } => out.push(id.name.to_string()),
        ast::InlineExpression::Placeable { expression } => expression_variables(expression, out),
        _ => {}
    }
}

/// Message `id` of `lang` with `args`, when the language has it.
pub(super) fn format(lang: Lang, id: &str, args: &[(&str, &str)]) -> Option<String> {
    let bundle = &loaded(lang).bundle;
    let pattern = bundle.get_message(id)?.value()?;
    let mut fluent_args = FluentArgs::new();
    for (k, v) in args {
        fluent_args.set(*k, *v);
    }
    let mut errors = Vec::new();
    let out = bundle.format_pattern(pattern, Some(&fluent_args), &mut errors);
    if !errors.is_empty() {
        tracing::warn!(
            lang = lang.as_str(),
            id,
            ?errors,
            "a message did not format cleanly"
        );
    }
    Some(out.into_owned())
}

/// The signing scripts' messages (English's list) in `lang`, each variable written `{name}`.
pub(super) fn script_messages(lang: Lang) -> BTreeMap<String, String> {
    loaded(Lang::En)
        .script
        .iter()
        .map(|(id, vars)| {
            let marks: Vec<String> = vars.iter().map(|v| format!("{{{v}}}")).collect();
            let args: Vec<(&str, &str)> = vars
                .iter()
                .zip(&marks)
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            let text = format(lang, id, &args)
                .or_else(|| format(Lang::En, id, &args))
                .unwrap_or_else(|| id.clone());
            (id.clone(), text)
        })
        .collect()
}
