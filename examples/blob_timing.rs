//! Times the blob store with one blob of the given size: commit (put), read, and the first
//! `local_path` (with S3: fetch to this node's cache), then delete. For
//! docs/develop/decisions/0037-cost-measured.md.
//!
//! `cargo run --release --example blob_timing -- <blob url> <MiB> [RUNS]`, e.g. after
//! `eval "$(tests/s3/garage.sh start)"`: `... -- "$DOCKET_TEST_BLOB_URL" 20 5`, or `file`.
//! Works in a temp dir; prints one line per run.

use std::process::ExitCode;
use std::time::Instant;

use docket::{core::blob::BlobStore, core::blob::BlobUrl};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(url), Some(mib)) = (
        args.first().and_then(|u| BlobUrl::parse(u).ok()),
        args.get(1).and_then(|m| m.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: blob_timing <file | s3://bucket[/prefix]> <MiB> [RUNS]");
        return ExitCode::from(2);
    };
    let runs = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(3);
    let url = match url {
        BlobUrl::S3 { bucket, prefix } => BlobUrl::S3 {
            bucket,
            prefix: format!("{prefix}/timing")
                .trim_start_matches('/')
                .to_string(),
        },
        file => file,
    };
    let tmp = std::env::temp_dir().join(format!(
        "docket-blob-timing-{}",
        docket::core::crypto::random_base62(8)
    ));
    let store = match BlobStore::open_url(&url, &tmp.join("blobs"), &tmp.join("cache")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let data: Vec<u8> = (0..mib << 20).map(|i| (i * 7 + i / 4096) as u8).collect();
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1000.0;
    for run in 1..=runs {
        let t = Instant::now();
        let blob = store.put(&data).expect("put");
        let put = ms(t);
        let t = Instant::now();
        let back = store.read(&blob.id).expect("read");
        let get = ms(t);
        assert!(back == data);
        let t = Instant::now();
        store.local_path(&blob.id).expect("local copy");
        let local = ms(t);
        store.delete(&blob.id).expect("delete");
        println!(
            "run {run}: {mib} MiB to {}: put {put:.0} ms, read {get:.0} ms, local copy {local:.0} ms",
            store.describe()
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
    ExitCode::SUCCESS
}
