#!/usr/bin/env bash
# The 20 MiB upload alone, for comparing builds quickly (issue 27): N uploads (after one
# warm-up) of the same PDF with `curl -T` to fresh documents' upload URLs, each after a `sync`,
# timed by curl's own clock (connect to the last byte of the answer) as
# ../shared/bench/pdf_side_by_side.sh times them, without its dd runs. Prints each time in ms
# and then `median MS (MIN-MAX)`. Run two builds alternately, a few rounds each: the spread
# between runs on a 2-core virtual machine is wider than most single changes.
#
# Usage: bench/upload_probe.sh BIN [N, default 10] [size in MiB, default 20]
#   BIN: the docket binary. A fresh data dir with one user and one API key under $WORK
#   (default /tmp/docket-upload-probe); the PDF is made by bench/make_pdf.py. PERF=FILE also
#   records the server with `perf record -g` over the last upload into FILE.
# Needs: curl, python3. Listens on 127.0.0.1:3218 only; the server is stopped by PID.
set -euo pipefail
BIN=$1
N=${2:-10}
MB=${3:-20}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-/tmp/docket-upload-probe}
PORT=3218
BASE=http://127.0.0.1:$PORT
rm -rf "$WORK"
mkdir -p "$WORK"
python3 "$HERE/make_pdf.py" "$WORK/upload.pdf" "$MB" >/dev/null
DATA=$WORK/data
"$BIN" --data-dir "$DATA" user add probe@example.com --name Probe --json >/dev/null
KEY=$("$BIN" --data-dir "$DATA" apikey create --user probe@example.com --json |
  python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
"$BIN" serve --data-dir "$DATA" --listen "127.0.0.1:$PORT" --tls off --public-url "$BASE" \
  --rate-limit 0 > "$WORK/server.out" 2> "$WORK/server.log" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
until [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/healthz")" = 200 ]; do
  kill -0 "$SERVER" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.05
done
times=()
for i in $(seq 0 "$N"); do
  url=$(curl -s -X POST -H "authorization: $KEY" -H 'content-type: application/json' \
    -d '{"title":"probe","recipients":[],"meta":{"distributionMethod":"NONE"}}' \
    "$BASE/api/v1/documents" | python3 -c 'import json,sys;print(json.load(sys.stdin)["uploadUrl"])')
  sync
  perf_pid=
  if [ -n "${PERF:-}" ] && [ "$i" = "$N" ]; then
    perf record -g -p "$SERVER" -o "$PERF" 2>/dev/null &
    perf_pid=$!
    sleep 0.5
  fi
  out=$(curl -s -T "$WORK/upload.pdf" -H 'content-type: application/pdf' \
    -w '\n%{http_code} %{time_total}' "$url")
  if [ -n "$perf_pid" ]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
  read -r code secs <<< "$(tail -n 1 <<< "$out")"
  [ "$code" = 200 ] || { echo "upload $i answered $code: $out" >&2; exit 1; }
  [ "$i" = 0 ] && continue
  ms=$(python3 -c "print(f'{$secs * 1000:.1f}')")
  times+=("$ms")
  echo "$ms"
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "median %.1f (%.1f-%.1f)\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[1], a[NR]}'
