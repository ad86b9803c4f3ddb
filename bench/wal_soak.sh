#!/usr/bin/env bash
# Soak of the SQLite database under a steady mix of reads and writes, over loopback, on a fresh
# data dir: wrk reads the newest page of documents (GET /api/v1/documents?perPage=10) with
# READERS connections while a second wrk creates documents (two recipients each) with WRITERS
# connections, for SECONDS. Every 10 s it prints the documents so far, the database's and the
# write-ahead log's sizes; at the end, both wrk's rates and p99.
# Usage: bench/wal_soak.sh [seconds, default 120] [readers, default 16] [writers, default 2]
#        BIN=path/to/docket bench/wal_soak.sh ... (default: a release build of this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TOTAL=${1:-120}
READERS=${2:-16}
WRITERS=${3:-2}
for t in wrk curl python3; do command -v $t >/dev/null || { echo "$t is missing" >&2; exit 1; }; done
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=target/release/docket
fi
DATA=$(mktemp -d -p "$PWD/target" bench-soak.XXXX)
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT

$BIN --data-dir "$DATA" user add soak@example.com --name Soak --json >/dev/null
KEY=$($BIN --data-dir "$DATA" apikey create --user soak@example.com --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
$BIN --data-dir "$DATA" serve --tls off --listen 127.0.0.1:0 --rate-limit 0 > "$DATA/banner" 2> "$DATA/log" &
SERVER=$!
for _ in $(seq 1 100); do grep -q listening "$DATA/banner" 2>/dev/null && break; sleep 0.1; done
BASE=$(grep listening "$DATA/banner" | awk '{print $2}')
DB="$DATA/docket.db"

cat > "$DATA/read.lua" <<LUAEOF
wrk.headers["authorization"] = "Bearer $KEY"
LUAEOF
BODY='{"title":"Soak NDA","recipients":[{"name":"Ann","email":"ann@example.com","role":"SIGNER","signingOrder":0},{"name":"Cid","email":"cid@example.com","role":"CC","signingOrder":1}],"meta":{"subject":"Please sign"}}'
cat > "$DATA/write.lua" <<LUAEOF
wrk.method = "POST"
wrk.headers["authorization"] = "Bearer $KEY"
wrk.headers["content-type"] = "application/json"
wrk.body = '$BODY'
LUAEOF

echo "docket $($BIN version --json | python3 -c 'import json,sys;v=json.load(sys.stdin);print(v["version"], v["commit"])'), $(nproc) cores; ${SECONDS_TOTAL}s, $READERS readers, $WRITERS writers"
wrk -t1 -c"$READERS" -d"${SECONDS_TOTAL}s" --latency -s "$DATA/read.lua" "$BASE/api/v1/documents?perPage=10" > "$DATA/read.out" &
READ=$!
wrk -t1 -c"$WRITERS" -d"${SECONDS_TOTAL}s" --latency -s "$DATA/write.lua" "$BASE/api/v1/documents" > "$DATA/write.out" &
WRITE=$!
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
for t in $(seq 10 10 "$SECONDS_TOTAL"); do
  sleep 10
  docs=$(curl -sf -H "authorization: Bearer $KEY" "$BASE/api/v1/documents?perPage=1" | python3 -c 'import json,sys;print(json.load(sys.stdin)["totalPages"])')
  printf '%4ss  %6s documents  db %6.1f MiB  wal %6.1f MiB\n' "$t" "$docs" \
    "$(echo "$(size "$DB") / 1048576" | bc -l)" "$(echo "$(size "$DB-wal") / 1048576" | bc -l)"
done
wait $READ $WRITE
for side in read write; do
  printf '%-5s %s req/s, p99 %s, non-2xx %s\n' "$side" \
    "$(awk '/Requests\/sec/ {print $2}' "$DATA/$side.out")" "$(awk '$1 == "99%" {print $2}' "$DATA/$side.out")" \
    "$(awk '/Non-2xx/ {print $4}' "$DATA/$side.out" | grep . || echo 0)"
done
