#!/usr/bin/env bash
# Benchmark of the shared-storage setup on this one machine: the OAuth provider's hot endpoints
# and the document API, first on the embedded defaults (SQLite and files, one node), then on a
# throwaway PostgreSQL (Debian's, tests/pg/postgres.sh) with a Garage bucket
# (tests/s3/garage.sh) with one node, then with two nodes on the same database and bucket.
# With two nodes, two wrk processes run at once, one a node with half the connections each;
# their requests/s are added up and the worse p99 is shown.
#
# Usage: [BIN=path] [PG_VIA=socket|tcp] bench/cluster.sh [seconds per endpoint, default 10]
#        [connections, default 64]
#   PG_VIA: how the nodes reach PostgreSQL: its Unix socket (default; they run beside it) or
#   TCP over loopback.
# Needs: wrk, curl, python3, Debian's postgresql; Garage is built once by tests/s3/garage.sh.
# Bounded: each wrk run lasts the given seconds; everything started here is stopped at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNS=${2:-64}
for t in wrk curl python3; do command -v $t >/dev/null || { echo "$t is missing" >&2; exit 1; }; done

# BIN= names a binary already built (e.g. one with its symbols kept); otherwise a release build.
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet
  BIN=$PWD/target/release/docket
fi
WORK=$(mktemp -d -p "$PWD/target" bench-cluster.XXXX)
chmod 755 "$WORK"
NODES=()
stop_nodes() {
  for pid in "${NODES[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  NODES=()
}
cleanup() {
  stop_nodes
  tests/pg/postgres.sh stop "$WORK/pg" >/dev/null 2>&1 || true
  [ -n "${DOCKET_S3_DIR:-}" ] && tests/s3/garage.sh stop "$DOCKET_S3_DIR" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap cleanup EXIT

PASSWORD="bench password 123"
REDIRECT=http://127.0.0.1:9/cb
PDF="$WORK/1mb.pdf"
python3 bench/make_pdf.py "$PDF" 1

# Starts a node on data dir $1; its base URL goes to the file $1/base.
start_node() {
  mkdir -p "$1"
  $BIN --data-dir "$1" serve --tls off --listen 127.0.0.1:0 --log-level warn --rate-limit 0 \
    > "$1/banner" 2> "$1/log" &
  NODES+=($!)
  for _ in $(seq 1 200); do grep -q listening "$1/banner" 2>/dev/null && break; sleep 0.1; done
  grep listening "$1/banner" | awk '{print $2}' > "$1/base"
}

# Users, keys, client and tokens on the database the environment names; node data dir $1.
setup() {
  local d=$1
  echo "$PASSWORD" | $BIN --data-dir "$d" user add bench@example.com --name Bench --password-stdin --json >/dev/null
  API_KEY=$($BIN --data-dir "$d" apikey create --user bench@example.com --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
  local client
  client=$($BIN --data-dir "$d" client add --name Bench --redirect-uri $REDIRECT --json)
  CLIENT_ID=$(echo "$client" | python3 -c 'import json,sys;print(json.load(sys.stdin)["client_id"])')
  CLIENT_SECRET=$(echo "$client" | python3 -c 'import json,sys;print(json.load(sys.stdin)["client_secret"])')
}

LUA="$WORK/lua"
mkdir -p "$LUA"
lua() { # name method authorization content-type body
  cat > "$LUA/$1.lua" <<LUAEOF
wrk.method = "$2"
wrk.headers["authorization"] = "$3"
wrk.headers["content-type"] = "$4"
wrk.body = '$5'
LUAEOF
}
scripts() {
  local form=application/x-www-form-urlencoded
  lua me GET "Bearer $ACCESS_TOKEN" $form ""
  lua list_key GET "Bearer $API_KEY" $form ""
  local basic
  basic=$(printf '%s:%s' "$CLIENT_ID" "$CLIENT_SECRET" | base64 -w0)
  lua refresh POST "Basic $basic" $form "grant_type=refresh_token&refresh_token=$REFRESH_TOKEN"
  lua introspect POST "Basic $basic" $form "token=$ACCESS_TOKEN"
  lua create POST "Bearer $API_KEY" application/json \
    '{"title":"Bench NDA","recipients":[{"name":"Ann","email":"ann@example.com","role":"SIGNER","signingOrder":0},{"name":"Cid","email":"cid@example.com","role":"CC","signingOrder":1}],"meta":{"subject":"Please sign"}}'
}

# One wrk per node in $BASES, the connections split between them; prints the sum of req/s,
# the worst p99 and the non-2xx count.
run() { # label script path
  local n=${#BASES[@]} i=0 pids=()
  local per=$((CONNS / n)) threads=$((n == 1 ? 2 : 1))
  for base in "${BASES[@]}"; do
    wrk -t$threads -c"$per" -d"${DURATION}s" --latency -s "$LUA/$2.lua" "$base$3" > "$WORK/wrk.$i" &
    pids+=($!)
    i=$((i + 1))
  done
  wait "${pids[@]}"
  python3 - "$1" "$n" "$WORK" <<'PY'
import re, sys
label, n, work = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rps = p99 = 0.0
bad = 0
unit = {"us": 0.001, "ms": 1.0, "s": 1000.0}
for i in range(n):
    out = open(f"{work}/wrk.{i}").read()
    rps += float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    v, u = re.search(r"\s99%\s+([\d.]+)(us|ms|s)", out).groups()
    p99 = max(p99, float(v) * unit[u])
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    bad += int(m.group(1)) if m else 0
print(f"  {label:<30} {rps:9.0f} req/s   p99 {p99:8.2f} ms   non-2xx {bad}")
PY
}

# Mean time of 10 uploads of the 1 MiB PDF through the nodes in turn (curl's clock).
uploads() {
  local times=() i=0
  for _ in $(seq 1 10); do
    local base=${BASES[$((i % ${#BASES[@]}))]}
    i=$((i + 1))
    local url
    url=$(curl -sf -H "authorization: $API_KEY" -H 'content-type: application/json' \
      -d '{"title":"Upload","recipients":[]}' "$base/api/v1/documents" \
      | python3 -c 'import json,sys;print(json.load(sys.stdin)["uploadUrl"])')
    times+=("$(curl -sf -o /dev/null -w '%{time_total}' -T "$PDF" -H 'content-type: application/pdf' "$url")")
  done
  printf '%s\n' "${times[@]}" | python3 -c '
import sys
t = [float(x) for x in sys.stdin]
label = "upload 1 MiB PDF (10, mean)"
print(f"  {label:<30} {sum(t)/len(t)*1000:9.1f} ms      min {min(t)*1000:.1f}  max {max(t)*1000:.1f}")'
}

measure() { # title
  echo "$1"
  run "GET /api/auth/oauth/me" me /api/auth/oauth/me
  run "GET /listBookings (API key)" list_key /listBookings
  run "POST token (refresh grant)" refresh /api/auth/oauth/token
  run "POST introspect" introspect /api/auth/oauth/introspect
  run "POST /api/v1/documents" create /api/v1/documents
  uploads
}

echo "docket $($BIN version --json | python3 -c 'import json,sys;v=json.load(sys.stdin);print(v["version"], v["commit"])')  $(nproc) cores  wrk -c$CONNS -d${DURATION}s per endpoint"

# 1. The embedded defaults.
setup "$WORK/sqlite"
start_node "$WORK/sqlite"
BASES=("$(cat "$WORK/sqlite/base")")
eval "$(python3 bench/oauth_setup.py "${BASES[0]}" bench@example.com "$PASSWORD" "$CLIENT_ID" "$CLIENT_SECRET" $REDIRECT)"
scripts
measure "SQLite + files, 1 node"
stop_nodes

# 2. PostgreSQL and a bucket, one node, then two.
eval "$(DOCKET_PG_DURABLE=1 tests/pg/postgres.sh start "$WORK/pg")"   # fsync and synchronous commit on
eval "$(tests/s3/garage.sh start)"
export AWS_ENDPOINT_URL AWS_REGION AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
psql --quiet --dbname "$DOCKET_TEST_POSTGRES" --command 'CREATE DATABASE bench'
if [ "${PG_VIA:-socket}" = socket ]; then
  port=${DOCKET_TEST_POSTGRES##*:}
  export DOCKET_DATABASE_URL="postgres://postgres@/bench?host=$WORK/pg&port=${port%%/*}"
else
  export DOCKET_DATABASE_URL="${DOCKET_TEST_POSTGRES%/*}/bench"
fi
DOCKET_SECRET_KEY=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
export DOCKET_SECRET_KEY
export DOCKET_BLOB_URL="$DOCKET_TEST_BLOB_URL/bench"
setup "$WORK/a"
start_node "$WORK/a"
BASES=("$(cat "$WORK/a/base")")
eval "$(python3 bench/oauth_setup.py "${BASES[0]}" bench@example.com "$PASSWORD" "$CLIENT_ID" "$CLIENT_SECRET" $REDIRECT)"
scripts
measure "PostgreSQL + Garage, 1 node"
start_node "$WORK/b"
BASES+=("$(cat "$WORK/b/base")")
measure "PostgreSQL + Garage, 2 nodes"
