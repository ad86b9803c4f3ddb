#!/usr/bin/env bash
# Fuzzes the PDF code for a bounded time: each target (all, or those named) runs for
# FUZZ_SECONDS (default 60) under libFuzzer's memory and per-input time limits, seeded with
# tests/fixtures/pdf. Corpora, crashes and logs stay under fuzz/ and are not committed.
#
#   fuzz/run.sh                      # every target, 60 s each
#   FUZZ_SECONDS=600 fuzz/run.sh render
#
# Settings: FUZZ_SECONDS, FUZZ_RSS_MB (default 2048: over it an input is an OOM finding),
# FUZZ_TIMEOUT (seconds one input may take, default 20), FUZZ_SANITIZER (default none: the
# code is safe Rust, and no sanitizer makes the runs several times faster; "address" works).
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz --locked`).
set -euo pipefail
cd "$(dirname "$0")"

seconds=${FUZZ_SECONDS:-60}
rss_mb=${FUZZ_RSS_MB:-2048}
timeout=${FUZZ_TIMEOUT:-20}
sanitizer=${FUZZ_SANITIZER:-none}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(inspect forms render seal)
fi

mkdir -p logs
status=0
for target in "${targets[@]}"; do
    corpus=corpus/$target
    mkdir -p "$corpus" "artifacts/$target"
    # Seeds: the fixtures and the regression inputs found so far.
    cp -n ../tests/fixtures/pdf/*.pdf "$corpus"/ 2>/dev/null || true
    cp -n ../tests/fixtures/pdf/fuzz/*.pdf "$corpus"/ 2>/dev/null || true
    echo "== $target: ${seconds} s"
    if ! cargo +nightly fuzz run --sanitizer "$sanitizer" "$target" "$corpus" -- \
        -max_total_time="$seconds" -rss_limit_mb="$rss_mb" -malloc_limit_mb="$rss_mb" \
        -timeout="$timeout" -max_len=262144 -print_final_stats=1 \
        -artifact_prefix="artifacts/$target/" 2>&1 | tee "logs/$target.log"; then
        echo "== $target: FOUND A PROBLEM (see artifacts/$target/)"
        status=1
    fi
done
exit $status
