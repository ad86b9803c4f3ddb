#!/usr/bin/env bash
# A throwaway S3 server on 127.0.0.1 for the tests of `--blob-url s3://...`: moto's server mode
# (https://github.com/getmoto/moto, from PyPI), which answers the S3 REST API from memory. The
# test suite's shared-storage run (tests/run.sh, CI) uses it; tests/s3/garage.sh runs the same
# suite against Garage, a real distributed object store, which builds from crates.io on a clean
# machine: in a CI run of 2026-11-29 that build ended 41 minutes in, past CI's 40.
#
#   tests/s3/moto.sh install     install moto into the tools cache, unless there
#   tests/s3/moto.sh install-early
#                                the same in the background
#   eval "$(tests/s3/moto.sh start)"
#                                install if needed, start moto, create a bucket; prints `export`
#                                lines for AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID,
#                                AWS_SECRET_ACCESS_KEY, DOCKET_TEST_BLOB_URL (s3://<bucket>),
#                                DOCKET_S3_BUCKET and DOCKET_S3_DIR (what `stop` needs)
#   tests/s3/moto.sh stop [DIR]  stop the server started in DIR (default $DOCKET_S3_DIR) and
#                                remove DIR
#
# The tools cache is ${DOCKET_TOOLS:-$HOME/.cache/docket-tools} (a virtual environment in
# moto-$MOTO_VERSION). moto does not check request signatures: the tests that a wrong key is
# refused use a server of their own (tests/it/blob_store.rs). Logs go to stderr and DIR/moto.log.
set -euo pipefail

MOTO_VERSION=5.2.5
TOOLS=${DOCKET_TOOLS:-$HOME/.cache/docket-tools}
VENV=$TOOLS/moto-$MOTO_VERSION
BUCKET=${DOCKET_S3_BUCKET:-docket-test}
REGION=us-east-1
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
# shellcheck source=tests/s3/lib.sh
. "$(dirname "$SELF")/lib.sh"

say() { echo "moto.sh: $*" >&2; }
die() { say "$*"; exit 1; }

install_moto() {
    if [[ -x $VENV/bin/moto_server ]]; then
        return
    fi
    mkdir -p "$TOOLS"
    # One install at a time: `install-early` may still be running when `start` comes.
    exec 9> "$TOOLS/.moto-install.lock"
    flock 9
    if [[ ! -x $VENV/bin/moto_server ]]; then
        say "installing moto $MOTO_VERSION from PyPI into $VENV"
        rm -rf "$VENV"
        python3 -m venv "$VENV" >&2
        "$VENV/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$MOTO_VERSION" >&2
        [[ -x $VENV/bin/moto_server ]] || die "pip finished but $VENV/bin/moto_server is missing"
    fi
    exec 9>&-
}

install_early() {
    [[ -x $VENV/bin/moto_server ]] && return
    mkdir -p "$TOOLS"
    say "installing moto $MOTO_VERSION in the background (log: $TOOLS/moto-install.log)"
    nohup "$SELF" install > "$TOOLS/moto-install.log" 2>&1 < /dev/null &
}

start() {
    install_moto
    local dir port
    dir=$(mktemp -d "${TMPDIR:-/tmp}/docket-moto.XXXXXX")
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    setsid "$VENV/bin/moto_server" -H 127.0.0.1 -p "$port" > "$dir/moto.log" 2>&1 < /dev/null &
    echo $! > "$dir/moto.pid"
    say "started moto (pid $(cat "$dir/moto.pid")) in $dir, S3 API on 127.0.0.1:$port"

    local up=
    for _ in $(seq 1 150); do
        if curl -sf -o /dev/null -X PUT "http://127.0.0.1:$port/$BUCKET"; then
            up=1
            break
        fi
        kill -0 "$(cat "$dir/moto.pid")" 2> /dev/null || break
        sleep 0.2
    done
    if [[ -z $up ]]; then
        tail -n 20 "$dir/moto.log" >&2 || true
        stop "$dir"
        die "moto did not come up"
    fi

    print_env "$port" "AK$(hex 9)" "$(hex 20)" "$dir"
}

case "${1:-}" in
    install) install_moto; echo "$VENV/bin/moto_server" ;;
    install-early) install_early ;;
    start) start ;;
    stop) stop_in "${2:-}" moto.pid moto.pid ;;
    *) die "usage: $0 install | install-early | start | stop [DIR]" ;;
esac
