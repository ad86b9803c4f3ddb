#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, on loopback only.
#   tests/pg/postgres.sh start DIR   installs Debian's postgresql when missing, creates a cluster
#                                    in DIR (listening on 127.0.0.1 at a free port, its socket
#                                    in DIR too) and prints `export DOCKET_TEST_POSTGRES=...`,
#                                    the URL of a superuser connection to its `postgres` database
#   tests/pg/postgres.sh stop DIR    stops it (DIR is left for the caller to remove)
# The server runs as the `postgres` user when started as root (PostgreSQL refuses root).
set -euo pipefail

cmd=${1:?usage: postgres.sh start|stop DIR}
dir=${2:?usage: postgres.sh start|stop DIR}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

bindir() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$found" ]; then
    echo "== installing Debian's postgresql (the tests' PostgreSQL server)" >&2
    as_root apt-get update -qq >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    # The package starts a cluster of its own; the tests do not use it.
    as_root service postgresql stop >/dev/null 2>&1 || true
    found=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
  echo "$found"
}

run_as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
  start)
    bin=$(bindir)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    run_as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1
    # Sized for tests: many short-lived databases, a few hundred connections, no durability
    # needed (the cluster is thrown away).
    run_as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir \
          -c max_connections=400 -c fsync=off -c synchronous_commit=off \
          -c full_page_writes=off -c shared_buffers=128MB" start >/dev/null
    echo "export DOCKET_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    bin=$(bindir)
    run_as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    ;;
  *)
    echo "usage: postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac
