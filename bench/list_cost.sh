#!/usr/bin/env bash
# What the newest page of a user's documents costs as their documents grow. For each size
# (default 1000, 10000 and 100000 documents of one user: one made through the API, the rest
# seeded in SQL beside the running server like it, older, two recipients each; a tenth of them
# COMPLETED, a tenth PENDING, the rest DRAFT) on a fresh data dir, wrk reads
# the newest page (GET /api/v1/documents?perPage=10) and the newest COMPLETED page
# (&status=COMPLETED) with CONNS connections for SECS seconds each, every answer checked for 200.
# Prints req/s and p99 for each size and its rate as a share of the first size's.
# --team: the same for a team's list beside the personal one (issue 54). Each size's data dir
# holds, besides the user's personal documents as above, a team of 20 (made with `docket team`:
# an admin, 3 managers, 16 members, the user one of the members) with as many documents of the
# team, one made through the API with the user's team key and the rest seeded in SQL like the
# personal ones (statuses the same), made by the members in turn; 3 in 4 visible to EVERYONE, 1
# in 8 to MANAGER_AND_ABOVE, 1 in 8 to ADMIN. The seed is plain INSERTs, so the triggers keep
# `team_list_counts` as the server's own inserts do. Both pages are read with the user's
# personal key and then with its team key (a MEMBER's: the role that filters hardest), after
# checking that each list's totalPages is what that key sees; prints both figures, and the team
# rate as a share of the personal one (the goal: at least 1 / 1.5 = 0.67).
# Usage: bench/list_cost.sh [sqlite|postgres] [--team] [sizes...]
#        CONNS=16 SECS=10 BIN=path/to/docket bench/list_cost.sh ...
# postgres: a throwaway cluster (Debian's postgresql, tests/pg/postgres.sh), a database per size.
set -euo pipefail
cd "$(dirname "$0")/.."
STORE=${1:-sqlite}
shift || true
TEAM=
if [ "${1:-}" = --team ]; then TEAM=1; shift; fi
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
  DOCKET_SECRET_KEY=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  export DOCKET_SECRET_KEY
fi

# The seed, in the SQL both databases take: N more documents of the one user like the one the
# API made (its meta), older than it, each with two recipients.
seed_sql() {
  cat <<SQL
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $1)
INSERT INTO documents (user_id, title, status, document_data_id, meta, created_at, updated_at)
SELECT (SELECT id FROM users WHERE email = 'lists@example.com'), 'Seeded ' || i,
       CASE i % 10 WHEN 0 THEN 'COMPLETED' WHEN 1 THEN 'PENDING' ELSE 'DRAFT' END,
       'seed-' || i, (SELECT meta FROM documents WHERE team_id IS NULL ORDER BY id LIMIT 1),
       1700000000 + i, 1700000000 + i
  FROM s;
SQL
  recipients_sql seed-
}

# Two recipients for each seeded document whose document_data_id starts with $1.
recipients_sql() {
  cat <<SQL
INSERT INTO recipients (document_id, email, name, role, signing_order, token, created_at)
SELECT id, 'ann@example.com', 'Ann', 'SIGNER', 1, '${1}a-' || id, created_at
  FROM documents WHERE document_data_id LIKE '$1%';
INSERT INTO recipients (document_id, email, name, role, signing_order, token, created_at)
SELECT id, 'cid@example.com', 'Cid', 'CC', 2, '${1}c-' || id, created_at
  FROM documents WHERE document_data_id LIKE '$1%';
SQL
}

# The team's seed: N more documents of the team like the one its API key made, made by its
# members in turn, with the statuses of the personal seed and the visibilities of
# `team_visibility`, each with two recipients.
team_visibility() {
  # (Of i / 2, not i: the statuses go by i % 10, and every status takes every visibility.)
  echo "CASE ($1 / 2) % 8 WHEN 3 THEN 'MANAGER_AND_ABOVE' WHEN 6 THEN 'ADMIN' ELSE 'EVERYONE' END"
}
team_seed_sql() {
  cat <<SQL
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $1),
m(user_id, k) AS (
  SELECT user_id, row_number() OVER (ORDER BY user_id) - 1 FROM team_members
   WHERE team_id = (SELECT id FROM teams WHERE slug = 'bench'))
INSERT INTO documents (user_id, team_id, visibility, title, status, document_data_id, meta,
                       created_at, updated_at)
SELECT m.user_id, (SELECT id FROM teams WHERE slug = 'bench'), $(team_visibility i),
       'Team seeded ' || i,
       CASE i % 10 WHEN 0 THEN 'COMPLETED' WHEN 1 THEN 'PENDING' ELSE 'DRAFT' END,
       'team-seed-' || i, (SELECT meta FROM documents WHERE team_id IS NOT NULL ORDER BY id LIMIT 1),
       1700000000 + i, 1700000000 + i
  FROM s JOIN m ON m.k = s.i % (SELECT count(*) FROM m);
SQL
  recipients_sql team-seed-
}

# The pages of `list` (perPage=1, so its totalPages is its number of documents) key $1 reads.
total_of() {
  curl -sf -H "authorization: Bearer $1" "$base/api/v1/documents?perPage=1$2" |
    python3 -c 'import json,sys;print(json.load(sys.stdin)["totalPages"])'
}

# wrk on `page` with key $1 for SECS seconds, every answer checked for 200: "req/s p99".
measure() {
  cat > "$data/read.lua" <<LUAEOF
wrk.headers["authorization"] = "Bearer $1"
bad = 0
response = function(status, headers, body) if status ~= 200 then bad = bad + 1 end end
done = function(summary, latency, requests) io.write(string.format("bad %d\n", bad)) end
LUAEOF
  wrk -t2 -c"$CONNS" -d"${SECS}s" --latency -s "$data/read.lua" "$base/api/v1/documents?$2" > "$data/out"
  grep -q '^bad 0$' "$data/out" || { echo "non-200 answers:" >&2; cat "$data/out" >&2; exit 1; }
  echo "$(awk '/Requests\/sec/ {print $2}' "$data/out") $(awk '$1 == "99%" {print $2}' "$data/out")"
}

sql() {
  if [ "$STORE" = postgres ]; then
    psql --quiet --set ON_ERROR_STOP=1 --dbname "$DOCKET_DATABASE_URL" >/dev/null
  else
    { echo '.timeout 5000'; echo '.bail on'; cat; } | sqlite3 "$data/docket.db"
  fi
}

echo "docket $($BIN version --json | python3 -c 'import json,sys;v=json.load(sys.stdin);print(v["version"], v["commit"])'), $STORE, $(nproc) cores; wrk -t2 -c$CONNS -d${SECS}s per figure"
if [ -n "$TEAM" ]; then
  printf '%9s  %-28s %10s %9s %10s %9s %8s\n' documents page personal p99 team p99 team/pers
else
  printf '%9s  %-28s %10s %9s %8s\n' documents page req/s p99 "of first"
fi
declare -A FIRST
for n in "${SIZES[@]}"; do
  data="$WORK/data-$n"
  mkdir -p "$data"
  if [ "$STORE" = postgres ]; then
    psql --quiet --dbname "$DOCKET_TEST_POSTGRES" --command "CREATE DATABASE lists_$n"
    export DOCKET_DATABASE_URL="${DOCKET_TEST_POSTGRES%/*}/lists_$n"
  fi
  cli() { $BIN --data-dir "$data" "$@"; }
  cli user add lists@example.com --name Lists --json >/dev/null
  key=$(cli apikey create --user lists@example.com --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
  if [ -n "$TEAM" ]; then
    cli user add admin@example.com --name Admin --json >/dev/null
    cli team create Bench --slug bench --admin admin@example.com --json >/dev/null
    for i in $(seq 1 18); do
      cli user add "m$i@example.com" --name "Member $i" --json >/dev/null
      cli team add bench "m$i@example.com" --role "$([ "$i" -le 3 ] && echo MANAGER || echo MEMBER)" --json >/dev/null
    done
    cli team add bench lists@example.com --role MEMBER --json >/dev/null
    team_key=$(cli apikey create --user lists@example.com --team bench --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
  fi
  cli serve --tls off --listen 127.0.0.1:0 --log-level warn --rate-limit 0 > "$data/banner" 2> "$data/log" &
  SERVER=$!
  for _ in $(seq 1 200); do grep -q listening "$data/banner" 2>/dev/null && break; sleep 0.1; done
  base=$(grep listening "$data/banner" | awk '{print $2}' || true)
  [ -n "$base" ] || { echo "the server did not start:" >&2; cat "$data/banner" "$data/log" >&2; exit 1; }
  made='{"title":"Made by the API","recipients":[{"name":"Ann","email":"ann@example.com","role":"SIGNER"}]}'
  for k in $key ${TEAM:+$team_key}; do
    curl -sf -H "authorization: Bearer $k" -H 'content-type: application/json' -d "$made" \
      "$base/api/v1/documents" > "$data/made" || { echo "creating a document failed:" >&2; curl -s -H "authorization: Bearer $k" -H "content-type: application/json" -d "{}" "$base/api/v1/documents" >&2; tail -5 "$data/log" >&2; exit 1; }
  done
  { seed_sql $((n - 1)); [ -z "$TEAM" ] || team_seed_sql $((n - 1)); } | sql
  if [ "$STORE" = postgres ]; then echo 'VACUUM ANALYZE;' | sql; else echo 'ANALYZE;' | sql; fi
  total=$(total_of "$key" "")
  [ "$total" = "$n" ] || { echo "seeded $n documents but the list counts $total" >&2; exit 1; }
  if [ -n "$TEAM" ]; then
    # What a MEMBER sees: the one the API made (EVERYONE: the request gives none) and the seeded
    # ones visible to EVERYONE, of every status and COMPLETED.
    counts=$(python3 -c "
n = $n
everyone = [i for i in range(1, n) if (i // 2) % 8 not in (3, 6)]
print(1 + len(everyone), sum(1 for i in everyone if i % 10 == 0))")
    read -r seen completed <<< "$counts"
    for check in "$seen:" "$completed:&status=COMPLETED"; do
      got=$(total_of "$team_key" "${check#*:}")
      [ "$got" = "${check%%:*}" ] || { echo "the team's list ${check#*:} counts $got for a member, who sees ${check%%:*}" >&2; exit 1; }
    done
  fi
  for page in "perPage=10" "perPage=10&status=COMPLETED"; do
    # (Assigned first: a failed measure then stops the script.)
    res=$(measure "$key" "$page"); read -r rate p99 <<< "$res"
    if [ -n "$TEAM" ]; then
      res=$(measure "$team_key" "$page"); read -r team_rate team_p99 <<< "$res"
      printf '%9s  %-28s %10s %9s %10s %9s %8.2f\n' "$n" "$page" "$rate" "$p99" "$team_rate" "$team_p99" \
        "$(echo "$team_rate / $rate" | bc -l)"
    else
      FIRST[$page]=${FIRST[$page]:-$rate}
      printf '%9s  %-28s %10s %9s %7.2fx\n' "$n" "$page" "$rate" "$p99" "$(echo "$rate / ${FIRST[$page]}" | bc -l)"
    fi
  done
  kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=
done
