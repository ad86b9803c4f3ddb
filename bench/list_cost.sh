#!/usr/bin/env bash
# What the newest page of a user's documents costs as their documents grow. For each size
# (default 1000, 10000 and 100000 documents of one user, two recipients each; a tenth of them
# COMPLETED, a tenth PENDING, the rest DRAFT) a fresh data dir is seeded in SQL, then wrk reads
# the newest page (GET /api/v1/documents?perPage=10) and the newest COMPLETED page
# (&status=COMPLETED) with CONNS connections for SECS seconds each, every answer checked for 200.
# Prints req/s and p99 for each size and its rate as a share of the first size's.
# Usage: bench/list_cost.sh [sqlite|postgres] [sizes...]
#        CONNS=16 SECS=10 BIN=path/to/docket bench/list_cost.sh ...
# postgres: a throwaway cluster (Debian's postgresql, tests/pg/postgres.sh), a database per size.
set -euo pipefail
cd "$(dirname "$0")/.."
STORE=${1:-sqlite}
shift || true
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(1000 10000 100000)
CONNS=${CONNS:-16}
SECS=${SECS:-10}
for t in wrk curl python3 sqlite3; do command -v $t >/dev/null || { echo "$t is missing" >&2; exit 1; }; done
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=target/release/docket
fi
WORK=$(mktemp -d -p "$PWD/target" bench-lists.XXXX)
chmod 755 "$WORK"
SERVER=
cleanup() {
  [ -n "$SERVER" ] && { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
  [ "$STORE" = postgres ] && tests/pg/postgres.sh stop "$WORK/pg" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
if [ "$STORE" = postgres ]; then
  eval "$(tests/pg/postgres.sh start "$WORK/pg")"
fi

# The seed, in the SQL both databases take: N documents of the one user, newest last.
seed_sql() {
  cat <<SQL
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $1)
INSERT INTO documents (user_id, title, status, document_data_id, created_at, updated_at)
SELECT (SELECT id FROM users WHERE email = 'lists@example.com'), 'Seeded ' || i,
       CASE i % 10 WHEN 0 THEN 'COMPLETED' WHEN 1 THEN 'PENDING' ELSE 'DRAFT' END,
       'seed-' || i, 1700000000 + i, 1700000000 + i
  FROM s;
INSERT INTO recipients (document_id, email, name, role, signing_order, token, created_at)
SELECT id, 'ann@example.com', 'Ann', 'SIGNER', 1, 'seed-a-' || id, created_at FROM documents;
INSERT INTO recipients (document_id, email, name, role, signing_order, token, created_at)
SELECT id, 'cid@example.com', 'Cid', 'CC', 2, 'seed-c-' || id, created_at FROM documents;
SQL
}

echo "docket $($BIN version --json | python3 -c 'import json,sys;v=json.load(sys.stdin);print(v["version"], v["commit"])'), $STORE, $(nproc) cores; wrk -t2 -c$CONNS -d${SECS}s per figure"
printf '%9s  %-22s %10s %9s %8s\n' documents page req/s p99 "of first"
declare -A FIRST
for n in "${SIZES[@]}"; do
  data="$WORK/data-$n"
  mkdir -p "$data"
  if [ "$STORE" = postgres ]; then
    psql --quiet --dbname "$DOCKET_TEST_POSTGRES" --command "CREATE DATABASE lists_$n"
    export DOCKET_DATABASE_URL="${DOCKET_TEST_POSTGRES%/*}/lists_$n"
  fi
  $BIN --data-dir "$data" user add lists@example.com --name Lists --json >/dev/null
  key=$($BIN --data-dir "$data" apikey create --user lists@example.com --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
  if [ "$STORE" = postgres ]; then
    seed_sql "$n" | psql --quiet --dbname "$DOCKET_DATABASE_URL" >/dev/null
    psql --quiet --dbname "$DOCKET_DATABASE_URL" --command 'ANALYZE' >/dev/null
  else
    { seed_sql "$n"; echo 'ANALYZE;'; } | sqlite3 "$data/docket.db"
  fi
  $BIN --data-dir "$data" serve --tls off --listen 127.0.0.1:0 --log-level warn --rate-limit 0 \
    > "$data/banner" 2> "$data/log" &
  SERVER=$!
  for _ in $(seq 1 200); do grep -q listening "$data/banner" 2>/dev/null && break; sleep 0.1; done
  base=$(grep listening "$data/banner" | awk '{print $2}')
  cat > "$data/read.lua" <<LUAEOF
wrk.headers["authorization"] = "Bearer $key"
bad = 0
response = function(status, headers, body) if status ~= 200 then bad = bad + 1 end end
done = function(summary, latency, requests) io.write(string.format("bad %d\n", bad)) end
LUAEOF
  total=$(curl -sf -H "authorization: Bearer $key" "$base/api/v1/documents?perPage=1" | python3 -c 'import json,sys;print(json.load(sys.stdin)["totalPages"])')
  [ "$total" = "$n" ] || { echo "seeded $n documents but the list counts $total" >&2; exit 1; }
  for page in "perPage=10" "perPage=10&status=COMPLETED"; do
    wrk -t2 -c"$CONNS" -d"${SECS}s" --latency -s "$data/read.lua" "$base/api/v1/documents?$page" > "$data/out"
    grep -q '^bad 0$' "$data/out" || { echo "non-200 answers:" >&2; cat "$data/out" >&2; exit 1; }
    rate=$(awk '/Requests\/sec/ {print $2}' "$data/out")
    p99=$(awk '$1 == "99%" {print $2}' "$data/out")
    FIRST[$page]=${FIRST[$page]:-$rate}
    printf '%9s  %-22s %10s %9s %7.2fx\n' "$n" "$page" "$rate" "$p99" "$(echo "$rate / ${FIRST[$page]}" | bc -l)"
  done
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=
done
