//! Checks of a sealed PDF with poppler's tools: its one signature is valid and covers the whole
//! file (`pdfsig`), and a signed value sits where the editor placed its field
//! (`pdftotext -bbox`).

use std::path::Path;

use serde_json::Value;

use super::tools;

/// A word's box on its page: (xMin, yMin, xMax, yMax) in points from the top-left corner.
pub type WordBox = (f64, f64, f64, f64);

/// `pdfsig` finds exactly one signature in `pdf`, valid and covering the whole file; answers
/// what it printed.
pub fn assert_one_valid_signature(pdf: &Path) -> String {
    let (ok, sig) = tools::run("pdfsig", &[&pdf.to_string_lossy()]);
    assert!(ok, "{sig}");
    assert!(
        sig.contains("Signature #1") && !sig.contains("Signature #2"),
        "{sig}"
    );
    assert!(sig.contains("Signature is Valid"), "{sig}");
    assert!(sig.contains("Total document signed"), "{sig}");
    sig
}

/// Each word of page `page` of `pdf` with its box.
pub fn word_boxes(pdf: &Path, page: u32) -> Vec<(String, WordBox)> {
    let n = page.to_string();
    let out = tools::command("pdftotext")
        .args(["-bbox", "-f", &n, "-l", &n])
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext runs");
    let html = String::from_utf8_lossy(&out.stdout);
    let attr = |line: &str, key: &str| -> f64 {
        let start = line.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
        line[start..].split('"').next().unwrap().parse().unwrap()
    };
    html.lines()
        .filter(|l| l.contains("<word "))
        .map(|l| {
            let word = l.split('>').nth(1).unwrap_or("");
            let word = word.split('<').next().unwrap_or("");
            let b = (
                attr(l, "xMin"),
                attr(l, "yMin"),
                attr(l, "xMax"),
                attr(l, "yMax"),
            );
            (word.to_string(), b)
        })
        .collect()
}

/// `word` is stamped in the box `placed` (`{x, y, w, h}` in points from the top-left corner,
/// where the editor put the field) within 1 pt: left-aligned text starts `pad` in from the
/// box's left edge and is centred vertically (`signing::pdf::seal::stamp::fit_text`).
pub fn assert_stamped_in(words: &[(String, WordBox)], word: &str, placed: &Value) {
    let num = |k: &str| {
        placed[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{k} of {placed}"))
    };
    let (x, y, h) = (num("x"), num("y"), num("h"));
    let pad = (h * 0.1).min(2.0);
    let (x_min, y_min, _, y_max) = *words
        .iter()
        .find(|(w, _)| w == word)
        .map(|(_, b)| b)
        .unwrap_or_else(|| panic!("{word} in the sealed PDF: {words:?}"));
    assert!(
        (x_min - (x + pad)).abs() <= 1.0,
        "{word} starts at {x_min} pt, placed at {x} (+{pad})"
    );
    let middle = (y_min + y_max) / 2.0;
    assert!(
        (middle - (y + h / 2.0)).abs() <= 1.0,
        "{word} is centred at {middle} pt, placed box centre {}",
        y + h / 2.0
    );
}
