//! Rendering for the signing page: page 0 at 800 px, the pure render function.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// The code under test catches panics of the PDF libraries and answers an error; libFuzzer's
/// hook would abort on those too. A panic that escapes still aborts (libfuzzer-sys catches it).
fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

fuzz_target!(init: quiet_panics(), |data: &[u8]| {
    if let Ok(pdf) = docket::signing::pdf::LoadedPdf::from_bytes(data.to_vec()) {
        let _ = docket::signing::pdf::render_page(&pdf, 0, 800);
    }
});
