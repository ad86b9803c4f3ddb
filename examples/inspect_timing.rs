//! Times the upload check of one PDF, as an upload runs it (`inspect_private` on a private
//! copy) and as other callers do (`inspect_bytes`, every stream's data copied by lopdf):
//! `cargo run --release --example inspect_timing -- FILE [RUNS]`. Prints one line per run.

use std::process::ExitCode;
use std::time::Instant;

use docket::signing::pdf::{inspect_bytes, inspect_private};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(bytes) = args.first().and_then(|path| std::fs::read(path).ok()) else {
        eprintln!("usage: inspect_timing <file.pdf> [RUNS]");
        return ExitCode::from(2);
    };
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(10);
    let mut copy = bytes.clone();
    for _ in 0..runs {
        let start = Instant::now();
        let private = inspect_private(&mut copy);
        let hidden = start.elapsed();
        let start = Instant::now();
        let copied = inspect_bytes(&bytes);
        let whole = start.elapsed();
        let same = format!("{private:?}") == format!("{copied:?}");
        println!(
            "inspect_private {:.2} ms  inspect_bytes {:.2} ms  same verdict: {same}  {}",
            hidden.as_secs_f64() * 1e3,
            whole.as_secs_f64() * 1e3,
            match &private {
                Ok(info) => format!("{} pages", info.pages),
                Err(e) => e.to_string(),
            }
        );
    }
    ExitCode::SUCCESS
}
