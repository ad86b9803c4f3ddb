#!/usr/bin/env bash
# Benchmark of the document API against the release binary on a fresh data dir, over loopback:
#  1. create-document requests/s (wrk, POST /api/v1/documents with two recipients);
#  2. upload rate of a 10 MB PDF to its signed URL (curl's own clock, 10 runs), compared with
#     dd writing the same bytes (fsynced) into the same data dir.
# Usage: bench/documents.sh [seconds for wrk, default 10] [connections, default 64]
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${1:-10}
CONNS=${2:-64}
for t in wrk hyperfine curl python3; do command -v $t >/dev/null || { echo "$t is missing" >&2; exit 1; }; done

cargo build --release --quiet
BIN=target/release/docket
DATA=$(mktemp -d -p "$PWD/target" bench-docs.XXXX)
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT

$BIN --data-dir "$DATA" user add bench@example.com --name Bench --json >/dev/null
KEY=$($BIN --data-dir "$DATA" apikey create --user bench@example.com --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
$BIN --data-dir "$DATA" serve --tls off --listen 127.0.0.1:0 --rate-limit 0 --log-format json --max-upload-mb 50 > "$DATA/banner" 2> "$DATA/log" &
SERVER=$!
for _ in $(seq 1 100); do grep -q listening "$DATA/banner" 2>/dev/null && break; sleep 0.1; done
BASE=$(grep listening "$DATA/banner" | awk '{print $2}')

BODY='{"title":"Bench NDA","recipients":[{"name":"Ann","email":"ann@example.com","role":"SIGNER","signingOrder":0},{"name":"Cid","email":"cid@example.com","role":"CC","signingOrder":1}],"meta":{"subject":"Please sign"}}'
LUA="$DATA/create.lua"
cat > "$LUA" <<LUAEOF
wrk.method = "POST"
wrk.headers["authorization"] = "Bearer $KEY"
wrk.headers["content-type"] = "application/json"
wrk.body = '$BODY'
LUAEOF
echo "docket $($BIN version --json | python3 -c 'import json,sys;v=json.load(sys.stdin);print(v["version"], v["commit"])')  $(nproc) cores"
OUT=$(wrk -t2 -c"$CONNS" -d"${DURATION}s" --latency -s "$LUA" "$BASE/api/v1/documents")
printf 'create document (wrk -t2 -c%s -d%ss): %s req/s, p99 %s, non-2xx %s\n' "$CONNS" "$DURATION" \
  "$(echo "$OUT" | awk '/Requests\/sec/ {print $2}')" "$(echo "$OUT" | awk '$1 == "99%" {print $2}')" \
  "$(echo "$OUT" | awk '/Non-2xx/ {print $4}' | grep . || echo 0)"

PDF="$DATA/10mb.pdf"
python3 bench/make_pdf.py "$PDF" 10
SIZE=$(stat -c %s "$PDF")
URL=$(curl -sf -H "authorization: $KEY" -H 'content-type: application/json' -d '{"title":"Upload","recipients":[]}' "$BASE/api/v1/documents" | python3 -c 'import json,sys;print(json.load(sys.stdin)["uploadUrl"])')
curl -sf -o /dev/null -T "$PDF" -H 'content-type: application/pdf' "$URL"   # warm-up and check
# curl -T streams the file (no read into memory first), as a real client would. The upload's
# time is curl's own clock (time_total: connect to last response byte), 10 runs; hyperfine's
# figure for the same command also counts starting the curl process (about 15 ms here).
for _ in $(seq 1 10); do
  curl -sf -o /dev/null -w '%{time_total}\n' -T "$PDF" -H 'content-type: application/pdf' "$URL"
done > "$DATA/curl-times"
hyperfine --style basic --warmup 1 --runs 10 --export-json "$DATA/up.json" \
  "curl -sf -o /dev/null -T $PDF -H 'content-type: application/pdf' '$URL'" >/dev/null
hyperfine --style basic --warmup 1 --runs 10 --export-json "$DATA/dd.json" \
  "dd if=$PDF of=$DATA/dd-copy bs=1M conv=fsync status=none" >/dev/null
python3 - "$DATA/up.json" "$DATA/dd.json" "$SIZE" "$DATA/log" "$DATA/curl-times" <<'PY'
import json, sys
proc = json.load(open(sys.argv[1]))["results"][0]["mean"]
dd = json.load(open(sys.argv[2]))["results"][0]["mean"]
mb = int(sys.argv[3]) / (1024 * 1024)
# The server's own time per upload (request line to response), from its JSON request log.
server = [json.loads(l)["ms"] / 1000 for l in open(sys.argv[4]) if '"method":"PUT"' in l]
server = server[1:11]  # the ten timed by curl's clock, after the warm-up
srv = sum(server) / len(server)
times = [float(t) for t in open(sys.argv[5])]
up = sum(times) / len(times)
print(f"upload {mb:.1f} MiB PDF (mean of {len(times)}): curl's clock {up*1000:.1f} ms = {mb/up:.0f} MiB/s "
      f"(min {min(times)*1000:.1f}, max {max(times)*1000:.1f}); server side {srv*1000:.1f} ms = {mb/srv:.0f} MiB/s; "
      f"curl process under hyperfine {proc*1000:.1f} ms")
print(f"dd (fsync, hyperfine) {dd*1000:.1f} ms = {mb/dd:.0f} MiB/s; upload/dd = {dd/up:.2f} (curl's clock), "
      f"{dd/srv:.2f} (server side), {dd/proc:.2f} (curl process)")
PY
