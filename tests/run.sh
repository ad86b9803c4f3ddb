#!/usr/bin/env bash
# Runs every test of Docket. Installs what the tests need when it is missing (Debian's
# chromium, poppler-utils and qpdf; jq, curl and openssl for the guide's commands (tests/docs.rs);
# playwright-core from npm into tests/browser, openid-client into tests/clients; aiosmtpd,
# authlib, requests, requests-oauthlib and schemathesis from PyPI; Debian's postgresql and an
# S3 server for the shared-storage run), then runs the integration suites on SQLite, the unit
# tests and the integration suite again on PostgreSQL and a bucket, and the schemathesis run
# over the OpenAPI document.
#
# The bucket is moto's S3 server from PyPI (tests/s3/moto.sh); DOCKET_S3_SERVER=garage runs
# that part on Garage instead (tests/s3/garage.sh: a real object store, built from crates.io
# once a machine: longer than CI's whole run may take).
#
# Both cargo runs turn on the `outside-tools` feature: the tests that drive those tools, which
# a plain `cargo test` lists as ignored, run here, and a tool missing fails them
# (tests/it/support/tools.rs). Arguments are passed on to both: `tests/run.sh mail` runs the
# tests whose names contain "mail".
set -euo pipefail
cd "$(dirname "$0")/.."

cargo_test=(cargo test --locked --features outside-tools)

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# A step's start: seconds since this script began, and the CPU time the machine has spent since
# (every process, background ones too), so a slow run shows where its time went.
busy() { awk '/^cpu / { print int(($2 + $3 + $4 + $7 + $8 + $9) / 100) }' /proc/stat; }
busy_at_start=$(busy)
step() { echo "== [${SECONDS}s, $(($(busy) - busy_at_start)) CPU-s] $*"; }

# The S3 server, needed only by the shared-storage run below, installs in the background
# meanwhile unless it is already in the tools cache.
s3_server=tests/s3/${DOCKET_S3_SERVER:-moto}.sh
[ -x "$s3_server" ] || { echo "DOCKET_S3_SERVER: no $s3_server" >&2; exit 2; }
"$s3_server" install-early

# What the tests drive from outside, installed in the background while the tests build (into
# a log, shown once it is done): Debian's chromium, poppler-utils, qpdf and strace; npm packages for
# the browser and client tests; Python clients (the signing service's documenso-sdk among them),
# the SMTP server and schemathesis from PyPI.
install_tools() {
  if ! [ -x /usr/bin/chromium ]; then
    echo "== [${SECONDS}s] installing Debian chromium"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  fi
  if ! command -v pdfsig >/dev/null || ! command -v pdftotext >/dev/null || ! command -v qpdf >/dev/null \
    || ! command -v strace >/dev/null; then
    echo "== [${SECONDS}s] installing poppler-utils and qpdf (checks of sealed PDFs), strace (SQLite's syncs)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils qpdf strace >/dev/null
  fi
  if ! command -v jq >/dev/null || ! command -v curl >/dev/null || ! command -v openssl >/dev/null; then
    echo "== [${SECONDS}s] installing jq, curl and openssl (the guide's commands, tests/docs.rs)"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq curl openssl >/dev/null
  fi
  if ! [ -d tests/browser/node_modules/playwright-core ] || ! [ -d tests/browser/node_modules/axe-core ] \
    || ! [ -d tests/browser/node_modules/@documenso/embed-react ] || ! [ -d tests/browser/node_modules/esbuild ]; then
    echo "== [${SECONDS}s] installing playwright-core (no browser download), axe-core, and for the embedding test @documenso/embed-react, react and esbuild"
    (cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)
  fi

  if ! [ -d tests/clients/node_modules/openid-client ] || ! [ -d tests/clients/node_modules/@documenso/sdk-typescript ]; then
    echo "== [${SECONDS}s] installing openid-client and oauth4webapi (the OpenID Connect client libraries the client tests drive) and @documenso/sdk-typescript (the signing service's API v2 client)"
    (cd tests/clients && npm ci --no-audit --no-fund)
  fi
  if ! python3 -c 'import authlib, requests, requests_oauthlib' 2>/dev/null; then
    echo "== [${SECONDS}s] installing authlib, requests and requests-oauthlib (Python clients the tests drive)"
    pip install -q 'authlib>=1.6,<2' 'requests>=2.31,<3' 'requests-oauthlib>=2,<3'
  fi

  if ! python3 -c 'import documenso_sdk' 2>/dev/null; then
    echo "== [${SECONDS}s] installing documenso-sdk (the signing service's API v2 client the v2 tests drive)"
    pip install -q 'documenso-sdk==0.6.0'
  fi
  if ! python3 -c 'import aiosmtpd' 2>/dev/null; then
    echo "== [${SECONDS}s] installing aiosmtpd (the SMTP server the mail tests send to)"
    pip install -q 'aiosmtpd>=1.4,<2'
  fi
  if ! command -v schemathesis >/dev/null; then
    echo "== [${SECONDS}s] installing schemathesis (the property test of the OpenAPI document)"
    pip install -q 'schemathesis>=4,<5'
  fi
}
mkdir -p target
install_tools > target/test-tools.log 2>&1 &
tools=$!

# Every test binary in one build: the unit tests' (the library built with cfg(test)) beside the
# library, the binary and the integration tests, so that the two builds of the docket crate,
# each mostly on one core, run side by side; and the examples (bench helpers), so that a change
# that breaks them fails here (and, under .ci/run's clippy, is linted).
step "building the tests"
"${cargo_test[@]}" --no-run --lib --bins --test '*' --examples
tools_ok=0
wait "$tools" || tools_ok=$?
cat target/test-tools.log
[ "$tools_ok" = 0 ] || { echo "installing the tests' tools failed" >&2; exit 1; }

# Every test target but the unit tests: those run once, in the step below, where PostgreSQL and
# the bucket are up for the few that need them (the others do not look at either).
step "cargo test --features outside-tools --bins --test '*' (SQLite and files: the appliance's embedded defaults)"
"${cargo_test[@]}" --bins --test '*' "$@"

# The black-box suite again on what several nodes share: a real PostgreSQL (Debian's, a
# throwaway cluster on 127.0.0.1) where every data dir gets a database of its own, beside an
# S3 server for the tests of --blob-url s3://.
step "cargo test --features outside-tools --lib --test it, and schemathesis, on PostgreSQL and a bucket ($s3_server)"
SHARED=$(mktemp -d)
chmod 755 "$SHARED"
stop_shared() {
  tests/pg/postgres.sh stop "$SHARED/pg" || true
  "$s3_server" stop "${DOCKET_S3_DIR:-}" >/dev/null 2>&1 || true
  rm -rf "$SHARED"
}
trap stop_shared EXIT
eval "$(tests/pg/postgres.sh start "$SHARED/pg")"
eval "$("$s3_server" start)"
export DOCKET_TEST_POSTGRES DOCKET_TEST_BLOB_URL AWS_ENDPOINT_URL AWS_REGION AWS_ACCESS_KEY_ID \
  AWS_SECRET_ACCESS_KEY DOCKET_S3_DIR
# With the unit tests: those of the S3 store, and of grants, rate limits and secrets on
# PostgreSQL, need these two; the rest run as they would alone. The tests of pages in Chromium
# (the modules named `*browser`) ran on SQLite above and are skipped here: what they add is the
# pages, whose every database call is a use case the API tests run on PostgreSQL, and they are
# the slowest tests of the suite (CI has 40 minutes).
"${cargo_test[@]}" --lib --test it "$@" -- --skip browser::
# The API's property test against a node on PostgreSQL and the bucket as well.
psql --quiet --dbname "$DOCKET_TEST_POSTGRES" --command 'CREATE DATABASE schemathesis'
DOCKET_DATABASE_URL="${DOCKET_TEST_POSTGRES%/*}/schemathesis" \
  DOCKET_SECRET_KEY=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n') \
  DOCKET_BLOB_URL="$DOCKET_TEST_BLOB_URL/schemathesis" \
  tests/schemathesis.sh 20
stop_shared
trap - EXIT
unset DOCKET_TEST_POSTGRES DOCKET_TEST_BLOB_URL

# 25 examples an operation here (168 s at 40 on the 2-core machine; CI has 40 minutes), on top of
# the 20 on PostgreSQL above.
step "schemathesis against /api/v1/openapi.json (SQLite and files)"
tests/schemathesis.sh 25
step "every test passed"
