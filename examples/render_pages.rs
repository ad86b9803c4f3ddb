//! Renders every page of each PDF given to PNG files, as the signing page's cache would: one
//! load and one renderer per document. Used by `bench/render.sh`.
//!
//! `cargo run --release --example render_pages -- <width px> <out dir> <file.pdf>...`
//! writes `<out dir>/<file stem>-<page number>.png` and prints pages and time per file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use docket::signing::pdf::LoadedPdf;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(width), Some(out), files) = (
        args.first().and_then(|w| w.parse::<u32>().ok()),
        args.get(1).map(PathBuf::from),
        args.get(2..).unwrap_or_default(),
    ) else {
        eprintln!("usage: render_pages <width px> <out dir> <file.pdf>...");
        return ExitCode::from(2);
    };
    if files.is_empty() {
        eprintln!("usage: render_pages <width px> <out dir> <file.pdf>...");
        return ExitCode::from(2);
    }
    let mut failed = false;
    for file in files {
        let started = Instant::now();
        match render_file(Path::new(file), width, &out) {
            Ok(pages) => println!(
                "{file}: {pages} pages in {} ms",
                started.elapsed().as_millis()
            ),
            Err(e) => {
                eprintln!("{file}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn render_file(path: &Path, width: u32, out: &Path) -> Result<usize, Box<dyn std::error::Error>> {
    let pdf = LoadedPdf::open(path)?;
    let renderer = pdf.renderer();
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    for index in 0..pdf.page_count() {
        let png = renderer.render(index, width)?;
        std::fs::write(out.join(format!("{stem}-{}.png", index + 1)), png)?;
    }
    Ok(pdf.page_count())
}
