#!/usr/bin/env bash
# The PostgreSQL driver measurement behind docs/develop/decisions/0024-why-the-synchronous-postgres-client-in-an-r2d2-p.md: docket's
# synchronous `postgres` client in r2d2 on tokio's blocking threads against tokio-postgres on
# the async threads, same pool size, on a throwaway PostgreSQL (tests/pg/postgres.sh), plain
# TCP on loopback. See examples/pg_driver.rs for the workloads.
#
# Usage: bench/pg_driver.sh [seconds per run, default 10] [tasks, default 64] [pool, default 8]
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-10}
TASKS=${2:-64}
POOL=${3:-8}
cargo build --release --quiet --example pg_driver
WORK=$(mktemp -d -p "$PWD/target" bench-pg.XXXX)
chmod 755 "$WORK"
trap 'tests/pg/postgres.sh stop "$WORK/pg" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
eval "$(DOCKET_PG_DURABLE=1 tests/pg/postgres.sh start "$WORK/pg")"   # fsync and synchronous commit on
psql --quiet --dbname "$DOCKET_TEST_POSTGRES" --command 'CREATE DATABASE driver'
echo "$(nproc) cores, $(psql -tA --dbname "$DOCKET_TEST_POSTGRES" -c 'SHOW server_version')"
target/release/examples/pg_driver "${DOCKET_TEST_POSTGRES%/*}/driver?sslmode=disable" \
  "$SECONDS_EACH" "$TASKS" "$POOL"
