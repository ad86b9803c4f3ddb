#!/usr/bin/env bash
# The signing service's API v2 reads against v1's for the same document (issue 57: "a v2 get or
# list of one envelope costs no more than the v1 call"), on the release binary, a fresh data dir,
# over loopback. One document with two recipients and ten fields, made through v1; then, each for
# the same time with wrk: v1 get, v2 envelope get, v2 legacy document get, v1 list of one, v2 find
# of one. Prints requests/s and p99 of each and the v2/v1 ratios.
# Usage: bench/api_v2.sh [seconds per run, default 10] [connections, default 16]
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNS=${2:-16}
for t in wrk curl python3; do command -v $t >/dev/null || { echo "$t is missing" >&2; exit 1; }; done

cargo build --release --quiet
BIN=target/release/docket
DATA=$(mktemp -d -p "$PWD/target" bench-v2.XXXX)
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT

$BIN --data-dir "$DATA" user add bench@example.com --name Bench --json >/dev/null
KEY=$($BIN --data-dir "$DATA" apikey create --user bench@example.com --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
$BIN --data-dir "$DATA" serve --tls off --listen 127.0.0.1:0 --rate-limit 0 > "$DATA/banner" 2> "$DATA/log" &
SERVER=$!
for _ in $(seq 1 100); do grep -q listening "$DATA/banner" 2>/dev/null && break; sleep 0.1; done
BASE=$(grep listening "$DATA/banner" | awk '{print $2}')

call() { curl -sf -H "authorization: $KEY" -H 'content-type: application/json' "$@"; }
CREATED=$(call -d '{"title":"Bench NDA","recipients":[{"name":"Ann","email":"ann@example.com","role":"SIGNER"},{"name":"Cid","email":"cid@example.com","role":"CC"}]}' "$BASE/api/v1/documents")
ID=$(echo "$CREATED" | python3 -c 'import json,sys;print(json.load(sys.stdin)["documentId"])')
URL=$(echo "$CREATED" | python3 -c 'import json,sys;print(json.load(sys.stdin)["uploadUrl"])')
ANN=$(echo "$CREATED" | python3 -c 'import json,sys;print(json.load(sys.stdin)["recipients"][0]["recipientId"])')
curl -sf -o /dev/null -T tests/fixtures/pdf/a4-1p.pdf -H 'content-type: application/pdf' "$URL"
FIELDS=$(python3 -c "import json;print(json.dumps([{'recipientId':$ANN,'type':t,'pageNumber':1,'pageX':10,'pageY':5+8*i,'pageWidth':20,'pageHeight':5} for i,t in enumerate(['SIGNATURE','NAME','EMAIL','DATE','TEXT','INITIALS','SIGNATURE','NAME','EMAIL','DATE'])]))")
call -o /dev/null -d "$FIELDS" "$BASE/api/v1/documents/$ID/fields"
ENV=$(call "$BASE/api/v2/document/$ID" | python3 -c 'import json,sys;print(json.load(sys.stdin)["envelopeId"])')

LUA="$DATA/auth.lua"
printf 'wrk.headers["authorization"] = "%s"\n' "$KEY" > "$LUA"
echo "docket $($BIN version --json | python3 -c 'import json,sys;v=json.load(sys.stdin);print(v["version"], v["commit"])')  $(nproc) cores, wrk -t2 -c$CONNS -d${DURATION}s"
declare -A RPS
run() {
  local name=$1 path=$2
  curl -sf -o /dev/null -H "authorization: $KEY" "$BASE$path" || { echo "$name: $path failed" >&2; exit 1; }
  local out; out=$(wrk -t2 -c"$CONNS" -d"${DURATION}s" --latency -s "$LUA" "$BASE$path")
  RPS[$name]=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  printf '%-28s %10s req/s  p99 %s  non-2xx %s\n' "$name" "${RPS[$name]}" \
    "$(echo "$out" | awk '$1 == "99%" {print $2}')" "$(echo "$out" | awk '/Non-2xx/ {print $4}' | grep . || echo 0)"
}
run "v1 get document" "/api/v1/documents/$ID"
run "v2 get envelope" "/api/v2/envelope/$ENV"
run "v2 get document (legacy)" "/api/v2/document/$ID"
run "v1 list, one per page" "/api/v1/documents?perPage=1"
run "v2 find, one per page" "/api/v2/envelope?perPage=1&type=DOCUMENT"
python3 - "${RPS[v1 get document]}" "${RPS[v2 get envelope]}" "${RPS[v2 get document (legacy)]}" \
  "${RPS[v1 list, one per page]}" "${RPS[v2 find, one per page]}" <<'PY'
import sys
v1, env, legacy, v1list, find = map(float, sys.argv[1:])
print(f"v2 envelope get / v1 get = {env / v1:.2f}; v2 legacy get / v1 get = {legacy / v1:.2f}; "
      f"v2 find / v1 list = {find / v1list:.2f} (throughput ratios; 1.00 or more: v2 costs no more)")
PY
