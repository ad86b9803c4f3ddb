#!/usr/bin/env bash
# Benchmark of the OAuth provider's hot endpoints with wrk over loopback, against the release
# binary on a fresh data dir: /api/auth/oauth/me, /listBookings (Bearer token and API key),
# the refresh grant, and introspection. Prints requests/s and p99 latency per endpoint.
#
# Usage: bench/oauth.sh [seconds per endpoint, default 10] [connections, default 64]
# Needs: wrk (Debian package), python3. Bounded: each run lasts the given seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNS=${2:-64}
THREADS=2
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }

cargo build --release --quiet
BIN=target/release/docket
DATA=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT

PASSWORD="bench password 123"
echo "$PASSWORD" | $BIN --data-dir "$DATA" user add bench@example.com --name Bench --password-stdin --json >/dev/null
API_KEY=$($BIN --data-dir "$DATA" apikey create --user bench@example.com --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
REDIRECT=http://127.0.0.1:9/cb
CLIENT=$($BIN --data-dir "$DATA" client add --name Bench --redirect-uri $REDIRECT --json)
CLIENT_ID=$(echo "$CLIENT" | python3 -c 'import json,sys;print(json.load(sys.stdin)["client_id"])')
CLIENT_SECRET=$(echo "$CLIENT" | python3 -c 'import json,sys;print(json.load(sys.stdin)["client_secret"])')

$BIN --data-dir "$DATA" serve --tls off --listen 127.0.0.1:0 --log-level warn --rate-limit 0 > "$DATA/banner" &
SERVER=$!
for _ in $(seq 1 100); do grep -q listening "$DATA/banner" 2>/dev/null && break; sleep 0.1; done
BASE=$(grep listening "$DATA/banner" | awk '{print $2}')
eval "$(python3 bench/oauth_setup.py "$BASE" bench@example.com "$PASSWORD" "$CLIENT_ID" "$CLIENT_SECRET" $REDIRECT)"

# A few bookings so /listBookings returns real rows.
for i in 1 2 3 4 5; do
  curl -sf -o /dev/null -H "authorization: Bearer $API_KEY" -H 'content-type: application/json' \
    -d "{\"title\":\"Meeting $i\",\"startTime\":\"2026-12-0${i}T10:00:00Z\",\"endTime\":\"2026-12-0${i}T11:00:00Z\",\"attendees\":[{\"name\":\"A\",\"email\":\"a@example.com\",\"timeZone\":\"UTC\"}]}" \
    "$BASE/api/v1/bookings"
done

LUA=$(mktemp -d)
lua() { # name method header body
  cat > "$LUA/$1.lua" <<LUAEOF
wrk.method = "$2"
wrk.headers["authorization"] = "$3"
wrk.headers["content-type"] = "application/x-www-form-urlencoded"
wrk.body = "$4"
LUAEOF
}
lua me GET "Bearer $ACCESS_TOKEN" ""
lua list_bearer GET "Bearer $ACCESS_TOKEN" ""
lua list_key GET "Bearer $API_KEY" ""
BASIC=$(printf '%s:%s' "$CLIENT_ID" "$CLIENT_SECRET" | base64 -w0)
lua refresh POST "Basic $BASIC" "grant_type=refresh_token&refresh_token=$REFRESH_TOKEN"
lua introspect POST "Basic $BASIC" "token=$ACCESS_TOKEN"

run() { # label script path
  local out
  out=$(wrk -t$THREADS -c"$CONNS" -d"${DURATION}s" --latency -s "$LUA/$2.lua" "$BASE$3")
  local rps p99 non2xx
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p99=$(echo "$out" | awk '$1 == "99%" {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $4}')
  printf '%-28s %10s req/s   p99 %8s   non-2xx %s\n' "$1" "$rps" "$p99" "${non2xx:-0}"
}
echo "docket $($BIN version --json | python3 -c 'import json,sys;v=json.load(sys.stdin);print(v["version"], v["commit"])')  $(nproc) cores  wrk -t$THREADS -c$CONNS -d${DURATION}s"
run "GET /api/auth/oauth/me" me /api/auth/oauth/me
run "GET /listBookings (Bearer)" list_bearer /listBookings
run "GET /listBookings (API key)" list_key /listBookings
run "POST token (refresh grant)" refresh /api/auth/oauth/token
run "POST introspect" introspect /api/auth/oauth/introspect
rm -rf "$LUA"
