#!/usr/bin/env bash
# PostgreSQL's rate as a share of SQLite's, for the same requests and binary, in interleaved
# rounds (issue 27: reads at 60 % of SQLite's rate). Each round runs every operation on SQLite
# (bench/hops.sh BIN OP 10, embedded defaults) and then on a throwaway durable PostgreSQL
# cluster beside the server (bench/pg_split.sh BIN OP), so slow drifts of this machine hit both
# alike; one run of each on its own moves by a fifth between runs. Prints each pair, then the
# median share per operation.
#
# Usage: [PG_VIA=socket|tcp] bench/pg_share.sh BIN ROUNDS [operation ...]
#        (operations as bench/hops.sh takes them; default /api/auth/oauth/me /listBookings
#        introspect; PG_VIA as bench/pg_split.sh takes it, socket by default)
# Needs: what bench/pg_split.sh needs. Listens on loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?usage: bench/pg_share.sh BIN ROUNDS [operation ...]}
ROUNDS=${2:?usage: bench/pg_share.sh BIN ROUNDS [operation ...]}
shift 2
OPS=("$@")
[ ${#OPS[@]} -gt 0 ] || OPS=(/api/auth/oauth/me /listBookings introspect)
OUT=$(mktemp)
trap 'rm -rf "$OUT" /tmp/docket-share' EXIT
rate() { sed -n 's/.*(\([0-9.]*\)\/s.*/\1/p' | tail -1; }
for round in $(seq 1 "$ROUNDS"); do
  for op in "${OPS[@]}"; do
    sqlite=$(WORK=/tmp/docket-share bench/hops.sh "$BIN" "$op" 10 2>/dev/null | rate)
    split=$(bench/pg_split.sh "$BIN" "$op" 2>/dev/null)
    echo "$split"
    pg=$(echo "$split" | grep -o '^[^:]*: [0-9]* req/s' | awk '{print $2}')
    echo "$op $sqlite $pg" >> "$OUT"
    echo "round $round $op: SQLite $sqlite/s, PostgreSQL $pg/s, share $(python3 -c "print(f'{100*$pg/$sqlite:.0f} %')")"
  done
done
python3 - "$OUT" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
for op in dict.fromkeys(r[0] for r in rows):
    shares = [float(r[2]) / float(r[1]) for r in rows if r[0] == op]
    sq = [float(r[1]) for r in rows if r[0] == op]
    pg = [float(r[2]) for r in rows if r[0] == op]
    print(f"{op}: median SQLite {statistics.median(sq):.0f}/s, PostgreSQL {statistics.median(pg):.0f}/s; "
          f"share median {100 * statistics.median(shares):.0f} % (range {100 * min(shares):.0f}-{100 * max(shares):.0f} %)")
PY
