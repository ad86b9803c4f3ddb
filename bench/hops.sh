#!/usr/bin/env bash
# Thread switches and server CPU per request of one bearer read, under wrk over loopback: the
# cost that moving a request to a blocking thread and back adds (issue 27). Context switches are
# counted over every thread of the server (/proc/PID/task/*/status, voluntary and not), CPU from
# /proc/PID/stat (utime+stime), both over the measured window, divided by the requests wrk
# completed. Switches per request depend on how the code hands work between threads, not on
# optimisation, so they compare across builds (even a debug build against a release one).
#
# Usage: bench/hops.sh BIN [path, default /api/auth/oauth/me] [seconds, default 8]
#   BIN: the docket binary to measure (e.g. target/release/docket). A fresh data dir with one
#   user and one API key (which carries every scope) under $WORK (default /tmp/docket-hops).
#   PATH may also be `refresh` (POST /api/auth/oauth/token, refresh grant, client_secret_post,
#   no rotation) or `introspect` (POST /api/auth/oauth/introspect): a client is made with the
#   CLI and the tokens by the real login, consent and code flow (bench/oauth_setup.py).
#   BOOKINGS=N (default 5) bookings of one attendee are made first through the API, as
#   ../shared/bench/side_by_side.sh does for /listBookings. PERF=FILE also records the server
#   with `perf record -g` over the measured window into FILE (`perf report -i FILE`). wrk's
#   latency distribution (p50 to p99) goes to stderr.
# Needs: wrk, curl, python3. Listens on 127.0.0.1:3217 only; the server is stopped by PID.
set -euo pipefail
BIN=${1:?usage: bench/hops.sh BIN [path] [seconds]}
URLPATH=${2:-/api/auth/oauth/me}
SECONDS_RUN=${3:-8}
WORK=${WORK:-/tmp/docket-hops}
PORT=3217
BASE=http://127.0.0.1:$PORT
for t in wrk curl python3; do command -v $t >/dev/null || { echo "$t is missing" >&2; exit 1; }; done

rm -rf "$WORK"; mkdir -p "$WORK"
D=$WORK/data
echo "bench password 123" | "$BIN" --data-dir "$D" user add bench@example.com --name Bench \
  --password-stdin --json >/dev/null
KEY=$("$BIN" --data-dir "$D" apikey create --user bench@example.com --json |
  python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
"$BIN" serve --data-dir "$D" --listen 127.0.0.1:$PORT --tls off --public-url "$BASE" \
  --rate-limit 0 --log-level warn > "$WORK/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
until curl -s -o /dev/null "$BASE/healthz"; do
  kill -0 $PID 2>/dev/null || { cat "$WORK/server.log"; exit 1; }; sleep 0.05
done
WRK_ARGS=(-H "Authorization: Bearer $KEY" "$BASE$URLPATH")
case $URLPATH in
  refresh | introspect)
    REDIRECT=http://127.0.0.1:9/cb
    CLIENT=$("$BIN" --data-dir "$D" client add --name Bench --redirect-uri $REDIRECT \
      --public-url "$BASE" --json)
    CID=$(echo "$CLIENT" | python3 -c 'import json,sys;print(json.load(sys.stdin)["client_id"])')
    CSEC=$(echo "$CLIENT" | python3 -c 'import json,sys;print(json.load(sys.stdin)["client_secret"])')
    FLOW=$(python3 "$(dirname "$0")/oauth_setup.py" "$BASE" bench@example.com "bench password 123" \
      "$CID" "$CSEC" "$REDIRECT")
    AT=$(echo "$FLOW" | sed -n 's/^ACCESS_TOKEN=//p'); RT=$(echo "$FLOW" | sed -n 's/^REFRESH_TOKEN=//p')
    if [ "$URLPATH" = refresh ]; then
      P=/api/auth/oauth/token; BODY="grant_type=refresh_token&refresh_token=$RT&client_id=$CID&client_secret=$CSEC"
    else
      P=/api/auth/oauth/introspect; BODY="token=$AT&client_id=$CID&client_secret=$CSEC"
    fi
    printf 'wrk.method = "POST"\nwrk.body = "%s"\nwrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n' \
      "$BODY" > "$WORK/post.lua"
    WRK_ARGS=(-s "$WORK/post.lua" "$BASE$P")
    status=$(curl -s -o /dev/null -w '%{http_code}' -d "$BODY" "$BASE$P") ;;
  *)
    status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEY" "$BASE$URLPATH") ;;
esac
[ "$status" = 200 ] || { echo "$URLPATH answered $status" >&2; exit 1; }
for i in $(seq 1 "${BOOKINGS:-5}"); do
  day=$(printf '%02d' $(( (i - 1) % 28 + 1 )))
  curl -sf -o /dev/null -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
    -d "{\"title\":\"Meeting $i\",\"startTime\":\"2026-12-${day}T10:00:00Z\",\"endTime\":\"2026-12-${day}T11:00:00Z\",\"attendees\":[{\"name\":\"A\",\"email\":\"a@example.com\",\"timeZone\":\"UTC\"}]}" \
    "$BASE/api/v1/bookings" || { echo "making booking $i failed" >&2; exit 1; }
done

switches() { # every thread's voluntary + involuntary context switches
  local total=0 f v
  for f in /proc/$PID/task/*/status; do
    v=$(awk '/ctxt_switches/{s+=$2} END{print s+0}' "$f" 2>/dev/null || echo 0)
    total=$((total + v))
  done
  echo $total
}
ticks() { awk '{print $14 + $15}' /proc/$PID/stat; }

wrk -t2 -c64 -d2s "${WRK_ARGS[@]}" >/dev/null   # warm-up
if [ -n "${PERF:-}" ]; then
  perf record -q ${PERF_CALL_GRAPH:--g} -p "$PID" -o "$PERF" -- sleep "$SECONDS_RUN" 2>/dev/null &
  PERF_PID=$!
fi
c0=$(switches); t0=$(ticks)
OUT=$(wrk -t2 -c64 -d"${SECONDS_RUN}s" --latency "${WRK_ARGS[@]}")
c1=$(switches); t1=$(ticks)
[ -z "${PERF:-}" ] || wait "$PERF_PID"
REQS=$(echo "$OUT" | awk '/requests in/{print $1}')
RPS=$(echo "$OUT" | awk '/Requests\/sec/{print $2}')
if echo "$OUT" | grep -q "Non-2xx"; then echo "some answers were not 2xx:" >&2; echo "$OUT" >&2; exit 1; fi
P99=$(echo "$OUT" | awk '$1 == "99%" {print $2}')
echo "$OUT" | grep -A4 "Latency Distribution" >&2
python3 - "$REQS" "$((c1 - c0))" "$((t1 - t0))" "$(getconf CLK_TCK)" "$RPS" "$URLPATH" "$BIN" "$P99" <<'PY'
import sys
reqs, switches, ticks, hz, rps, path, binary, p99 = sys.argv[1:]
reqs, switches, ticks, hz = int(reqs), int(switches), int(ticks), int(hz)
print(f"{binary} {path}: {reqs} requests ({rps}/s, p99 {p99}), "
      f"{switches / reqs:.2f} context switches/request, "
      f"{ticks * 1000.0 / hz / reqs:.4f} ms server CPU/request")
PY
