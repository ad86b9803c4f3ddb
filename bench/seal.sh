#!/usr/bin/env bash
# Benchmark of sealing (src/pdf/seal) on a 100-page document: the first 100 pages of
# tests/fixtures/pdf/letter-120p.pdf (qpdf), a name and a drawn signature stamped on every
# page, three recipients with signatures on the audit pages, one PAdES signature.
#  1. `seal()` alone, in-process: RUNS runs of examples/seal.rs (release build);
#  2. the whole process (load the seal certificate, read, seal, write) under hyperfine.
# Usage: bench/seal.sh [runs, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-10}
for t in hyperfine qpdf pdfsig; do command -v $t >/dev/null || { echo "$t is missing" >&2; exit 1; }; done

cargo build --release --quiet --example seal
BIN=target/release/examples/seal
WORK=$(mktemp -d -p "$PWD/target" bench-seal.XXXX)
trap 'rm -rf "$WORK"' EXIT

qpdf tests/fixtures/pdf/letter-120p.pdf --pages . 1-100 -- "$WORK/in.pdf"
echo "== input: $(stat -c %s "$WORK/in.pdf") bytes, 100 pages; machine: $(nproc) cores"

echo "== seal() in-process, $RUNS runs (the first one creates the seal certificate before timing)"
$BIN "$WORK/in.pdf" "$WORK/out.pdf" "$WORK/tls" "$RUNS"
pdfsig "$WORK/out.pdf" | grep -E "Total document signed|Signature Validation"
qpdf --check "$WORK/out.pdf" | tail -2

echo "== whole process (hyperfine)"
hyperfine --warmup 1 --runs "$RUNS" "$BIN $WORK/in.pdf $WORK/out.pdf $WORK/tls 1"
