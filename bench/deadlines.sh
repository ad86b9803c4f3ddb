#!/usr/bin/env bash
# What the scan for passed deadlines and due reminders costs when little is due in a large
# table (issue 56; goal: under 10 ms to find what is due), on SQLite and on a throwaway
# PostgreSQL (tests/pg/postgres.sh, fsync on): see examples/deadline_scan.rs for what it seeds
# and times.
#
# Usage: bench/deadlines.sh [recipients, default 1000000] [due, default 100]
set -euo pipefail
cd "$(dirname "$0")/.."
RECIPIENTS=${1:-1000000}
DUE=${2:-100}
cargo build --release --quiet --example deadline_scan
echo "$(nproc) cores, $(uname -sr)"
target/release/examples/deadline_scan sqlite "$RECIPIENTS" "$DUE"
WORK=$(mktemp -d -p "$PWD/target" bench-deadlines.XXXX)
chmod 755 "$WORK"
trap 'tests/pg/postgres.sh stop "$WORK/pg" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
eval "$(DOCKET_PG_DURABLE=1 tests/pg/postgres.sh start "$WORK/pg")"
psql --quiet --dbname "$DOCKET_TEST_POSTGRES" --command 'CREATE DATABASE deadlines'
echo "$(psql -tA --dbname "$DOCKET_TEST_POSTGRES" -c 'SHOW server_version')"
target/release/examples/deadline_scan "${DOCKET_TEST_POSTGRES%/*}/deadlines?sslmode=disable" \
  "$RECIPIENTS" "$DUE"
