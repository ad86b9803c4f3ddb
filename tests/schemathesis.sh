#!/usr/bin/env bash
# Property-based API test: schemathesis (PyPI) generates requests for every operation of
# /api/v1/openapi.json against a running docket and checks that no response is a 5xx and that
# every response matches the schema. Bounded: --max-examples per operation.
#
# Usage: tests/schemathesis.sh [max examples per operation, default 40]
set -euo pipefail
cd "$(dirname "$0")/.."
EXAMPLES=${1:-40}
command -v schemathesis >/dev/null || pip install -q 'schemathesis>=4,<5'

# The binary the integration tests run, built as tests/run.sh's `cargo test` builds it (fresh
# there, so nothing is built). Not `cargo build`: a test build unifies the dev-dependencies'
# features into the dependencies, a plain build does not, so `cargo build` after `cargo test`
# compiled docket and half its dependencies again (7 minutes of a CI run).
cargo test --quiet --locked --features outside-tools --no-run --test it
BIN=target/debug/docket
DATA=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT

$BIN --data-dir "$DATA" user add st@example.com --name "Schema Test" --tier enterprise --json >/dev/null
KEY=$($BIN --data-dir "$DATA" apikey create --user st@example.com --json | python3 -c 'import json,sys;print(json.load(sys.stdin)["key"])')
# Generated webhook URLs must not be delivered to: nothing leaves this machine, no name but
# localhost is looked up (such deliveries fail, refused by the loopback-only policy).
$BIN --data-dir "$DATA" serve --tls off --listen 127.0.0.1:0 --rate-limit 0 --log-level warn \
  --outbound loopback-only > "$DATA/banner" &
SERVER=$!
for _ in $(seq 1 100); do grep -q listening "$DATA/banner" 2>/dev/null && break; sleep 0.1; done
BASE=$(grep listening "$DATA/banner" | awk '{print $2}')

# Some real objects, so that generated ids sometimes hit them.
for i in 1 2 3; do
  curl -sf -o /dev/null -H "authorization: $KEY" -H 'content-type: application/json' \
    -d "{\"title\":\"Doc $i\",\"recipients\":[{\"name\":\"A\",\"email\":\"a$i@example.com\",\"role\":\"SIGNER\"}]}" "$BASE/api/v1/documents"
done

schemathesis run "$BASE/api/v1/openapi.json" \
  --checks not_a_server_error,response_schema_conformance \
  --header "Authorization: Bearer $KEY" \
  --max-examples "$EXAMPLES" \
  --request-timeout 10 \
  --generation-deterministic \
  --no-color
