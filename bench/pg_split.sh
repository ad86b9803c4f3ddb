#!/usr/bin/env bash
# Where a request's CPU goes on PostgreSQL: docket's process against PostgreSQL's (every
# `postgres` process: the backends, the WAL writer, the checkpointer), per request, under the
# load of bench/hops.sh (wrk -t2 -c64 over loopback) on a throwaway durable cluster
# (tests/pg/postgres.sh, DOCKET_PG_DURABLE=1) beside the server on the same cores. CPU is
# utime+stime from /proc over 6 s inside hops.sh's measured window; requests are its rate times
# those 6 s (so the per-request figures are approximate to the window's alignment).
#
# Usage: [PG_VIA=socket|tcp] bench/pg_split.sh BIN [operation ...]   (operations as
#        bench/hops.sh takes them; default: /api/auth/oauth/me refresh)
#   PG_VIA: how docket reaches PostgreSQL: its Unix socket (default; what a node beside its
#   database uses) or TCP over loopback (what a node on another machine pays, and more).
# Needs: what bench/hops.sh needs, and Debian's postgresql. Listens on loopback only.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:?usage: bench/pg_split.sh BIN [operation ...]}
shift
OPS=("$@")
[ ${#OPS[@]} -gt 0 ] || OPS=(/api/auth/oauth/me refresh)
D=$(mktemp -d)
chmod 755 "$D"
export DOCKET_PG_DURABLE=1
eval "$(tests/pg/postgres.sh start "$D/pg")"
trap 'tests/pg/postgres.sh stop "$D/pg" >/dev/null 2>&1 || true; rm -rf "$D"' EXIT
pg_ticks() {
  local t=0 p
  for p in $(pgrep -x postgres); do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done
  echo "$t"
}
HZ=$(getconf CLK_TCK)
for op in "${OPS[@]}"; do
  db=bench_split_$RANDOM
  psql -q -d "$DOCKET_TEST_POSTGRES" -c "CREATE DATABASE $db"
  if [ "${PG_VIA:-socket}" = socket ]; then
    port=${DOCKET_TEST_POSTGRES##*:}
    export DOCKET_DATABASE_URL="postgres://postgres@/$db?host=$D/pg&port=${port%%/*}"
  else
    export DOCKET_DATABASE_URL="${DOCKET_TEST_POSTGRES%/*}/$db"
  fi
  DOCKET_SECRET_KEY=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  export DOCKET_SECRET_KEY
  WORK=$D/hops bench/hops.sh "$BIN" "$op" 10 > "$D/hops.out" 2>&1 &
  hops=$!
  for _ in $(seq 1 600); do P=$(pgrep -f "$BIN serve" | head -1 || true); [ -n "$P" ] && break; sleep 0.1; done
  # hops.sh runs wrk twice: a 2 s warm-up, then the measured run; sample inside the second.
  for _ in $(seq 1 600); do pgrep -x wrk >/dev/null && break; sleep 0.1; done
  sleep 3
  for _ in $(seq 1 600); do pgrep -x wrk >/dev/null && break; sleep 0.1; done
  sleep 1
  g0=$(pg_ticks); d0=$(awk '{print $14 + $15}' "/proc/$P/stat"); t0=$(date +%s%N)
  sleep 6
  g1=$(pg_ticks); d1=$(awk '{print $14 + $15}' "/proc/$P/stat"); t1=$(date +%s%N)
  wait "$hops"
  rps=$(sed -n 's/.*(\([0-9.]*\)\/s.*/\1/p' "$D/hops.out" | tail -1)
  python3 - "$op" "$rps" $((g1 - g0)) $((d1 - d0)) $((t1 - t0)) "$HZ" <<'PY'
import sys
op, rps, g, d, ns, hz = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
secs = ns / 1e9
reqs = rps * secs
ms = lambda ticks: ticks * 1000.0 / hz / reqs
print(f"{op}: {rps:.0f} req/s; CPU a request: docket {ms(d):.3f} ms, PostgreSQL {ms(g):.3f} ms; "
      f"cores busy: docket {d / hz / secs:.2f}, PostgreSQL {g / hz / secs:.2f}")
PY
  tail -n 1 "$D/hops.out"
done
