//! Form filling at send: list the fields, then fill each with a value of every kind.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Value, json};

/// The code under test catches panics of the PDF libraries and answers an error; libFuzzer's
/// hook would abort on those too. A panic that escapes still aborts (libfuzzer-sys catches it).
fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

fuzz_target!(init: quiet_panics(), |data: &[u8]| {
    let Ok(names) = docket::signing::pdf::forms::field_names(data) else {
        return;
    };
    let kinds = [json!("Zoë"), json!(true), json!(false), json!(42)];
    let values: Map<String, Value> = names
        .into_iter()
        .take(64)
        .zip(kinds.iter().cycle())
        .map(|(name, value)| (name, value.clone()))
        .collect();
    let _ = docket::signing::pdf::forms::fill(data, &values);
    let _ = docket::signing::pdf::forms::fill(data, &Map::new());
});
