#!/usr/bin/env bash
# A throwaway single-node Garage (https://garagehq.deuxfleurs.fr, an S3-compatible object store)
# on 127.0.0.1, for tests and benchmarks of `--blob-url s3://...`: `DOCKET_S3_SERVER=garage
# tests/run.sh` runs the shared-storage suite on it instead of moto (tests/s3/moto.sh), and
# bench/cluster.sh measures on it. Garage is AGPL: it is only run as a separate program, never
# linked into docket.
#
#   tests/s3/garage.sh install   build Garage from crates.io into the tools cache, unless there
#   tests/s3/garage.sh install-early
#                                the same in the background at the lowest CPU priority
#   eval "$(tests/s3/garage.sh start)"
#                                install if needed, start Garage in a new temp dir, create a key
#                                and a bucket; prints `export` lines for AWS_ENDPOINT_URL,
#                                AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
#                                DOCKET_TEST_BLOB_URL (s3://<bucket>), DOCKET_S3_BUCKET and
#                                DOCKET_S3_DIR (what `stop` needs)
#   tests/s3/garage.sh stop [DIR]
#                                stop the Garage started in DIR (default $DOCKET_S3_DIR) and
#                                remove DIR
#
# The tools cache is ${DOCKET_TOOLS:-$HOME/.cache/docket-tools} (binary: bin/garage); it
# survives between runs, so only the first run on a machine builds Garage (several minutes).
# GARAGE=/path/to/garage uses that binary instead. Logs go to stderr and DIR/garage.log.
set -euo pipefail

GARAGE_VERSION=2.5.0
TOOLS=${DOCKET_TOOLS:-$HOME/.cache/docket-tools}
GARAGE=${GARAGE:-$TOOLS/bin/garage}
BUCKET=${DOCKET_S3_BUCKET:-docket-test}
REGION=garage
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
# shellcheck source=tests/s3/lib.sh
. "$(dirname "$SELF")/lib.sh"

say() { echo "garage.sh: $*" >&2; }
die() { say "$*"; exit 1; }

install_garage() {
    if [[ -x $GARAGE ]]; then
        return
    fi
    command -v cargo > /dev/null || die "cargo is needed to build Garage $GARAGE_VERSION"
    # One build at a time: tests/run.sh starts one in the background (`install-early`), and
    # `start` waits here for it rather than building a second copy.
    mkdir -p "$TOOLS"
    exec 9> "$TOOLS/.garage-install.lock"
    flock 9
    if [[ -x $GARAGE ]]; then
        exec 9>&-
        return
    fi
    say "building Garage $GARAGE_VERSION from crates.io into $TOOLS (takes several minutes, once)"
    # Only what a test needs: the LMDB metadata engine, no metrics or K2V. Optimised at level 1,
    # not 3 (less compile time): it serves the tests a few hundred small objects, and every CI
    # run builds it on a clean machine, beside the tests.
    CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
        CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_DEBUG=false \
        cargo install --locked garage --version "$GARAGE_VERSION" \
        --no-default-features --features bundled-libs,lmdb \
        --root "$TOOLS" >&2
    [[ -x $GARAGE ]] || die "cargo install finished but $GARAGE is missing"
    exec 9>&-
}

# Starts building Garage in the background at the lowest CPU priority, unless it is built:
# the build then takes the CPU the tests leave idle (they wait on sockets and timers much of
# the time) instead of running alone later. Its log is $TOOLS/garage-install.log; `start`
# waits for it, and builds in the foreground (showing why) if it failed.
install_early() {
    [[ -x $GARAGE ]] && return
    command -v cargo > /dev/null || return 0
    mkdir -p "$TOOLS"
    say "building Garage $GARAGE_VERSION in the background (log: $TOOLS/garage-install.log)"
    nohup nice -n 19 "$SELF" install > "$TOOLS/garage-install.log" 2>&1 < /dev/null &
}

# Three free TCP ports on 127.0.0.1 (S3 API, RPC, admin).
free_ports() {
    python3 - << 'EOF'
import socket
socks = []
for _ in range(3):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

start() {
    install_garage
    local dir ports s3_port rpc_port admin_port
    dir=$(mktemp -d "${TMPDIR:-/tmp}/docket-garage.XXXXXX")
    read -r s3_port rpc_port admin_port <<< "$(free_ports)"
    cat > "$dir/garage.toml" << EOF
metadata_dir = "$dir/meta"
data_dir = "$dir/data"
db_engine = "lmdb"
replication_factor = 1
rpc_bind_addr = "127.0.0.1:$rpc_port"
rpc_public_addr = "127.0.0.1:$rpc_port"
rpc_secret = "$(hex 32)"

[s3_api]
s3_region = "$REGION"
api_bind_addr = "127.0.0.1:$s3_port"
root_domain = ".s3.garage.localhost"

[admin]
api_bind_addr = "127.0.0.1:$admin_port"
admin_token = "$(hex 16)"
EOF
    chmod 600 "$dir/garage.toml"
    local g=("$GARAGE" -c "$dir/garage.toml")
    RUST_LOG=${RUST_LOG:-garage=warn} setsid "${g[@]}" server > "$dir/garage.log" 2>&1 < /dev/null &
    echo $! > "$dir/garage.pid"
    say "started Garage (pid $(cat "$dir/garage.pid")) in $dir, S3 API on 127.0.0.1:$s3_port"

    local up=
    for _ in $(seq 1 100); do
        if "${g[@]}" status > /dev/null 2>&1; then
            up=1
            break
        fi
        kill -0 "$(cat "$dir/garage.pid")" 2> /dev/null || break
        sleep 0.2
    done
    if [[ -z $up ]]; then
        tail -n 20 "$dir/garage.log" >&2 || true
        stop "$dir"
        die "Garage did not come up"
    fi

    local node
    node=$("${g[@]}" node id -q 2> /dev/null)
    node=${node%%@*}
    "${g[@]}" layout assign -z dc1 -c 1G "$node" > /dev/null
    "${g[@]}" layout apply --version 1 > /dev/null

    local key_id="GK$(hex 12)" secret
    secret=$(hex 32)
    "${g[@]}" key import "$key_id" "$secret" -n docket-test --yes > /dev/null
    "${g[@]}" bucket create "$BUCKET" > /dev/null
    "${g[@]}" bucket allow --read --write --owner --key "$key_id" "$BUCKET" > /dev/null

    # The S3 API answers once the layout is live.
    for _ in $(seq 1 50); do
        if curl -s -o /dev/null "http://127.0.0.1:$s3_port/"; then
            break
        fi
        sleep 0.2
    done

    print_env "$s3_port" "$key_id" "$secret" "$dir"
}

case "${1:-}" in
    install) install_garage; echo "$GARAGE" ;;
    install-early) install_early ;;
    start) start ;;
    stop) stop_in "${2:-}" garage.toml garage.pid ;;
    *) die "usage: $0 install | install-early | start | stop [DIR]" ;;
esac
