//! Upload inspection: any bytes give an answer, never a crash, within the memory budget.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The code under test catches panics of the PDF libraries and answers an error; libFuzzer's
/// hook would abort on those too. A panic that escapes still aborts (libfuzzer-sys catches it).
fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

fuzz_target!(init: quiet_panics(), |data: &[u8]| {
    let _ = docket::signing::pdf::inspect_bytes(data);
});
