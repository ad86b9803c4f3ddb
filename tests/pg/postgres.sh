#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests, on loopback only.
#   tests/pg/postgres.sh start DIR   installs Debian's postgresql when missing, creates a cluster
#                                    in DIR (listening on 127.0.0.1 at a free port, its socket
#                                    in DIR too) and prints `export DOCKET_TEST_POSTGRES=...`,
#                                    the URL of a superuser connection to its `postgres` database,
#                                    and `export DOCKET_TEST_POSTGRES_CA=...`: the cluster speaks
#                                    TLS too (plain stays allowed), with a certificate for the name
#                                    `localhost` (only) from a CA made at start, in that PEM file.
#                                    The role `docket_tls_only`, if a test creates it, may only
#                                    connect over TLS.
#   tests/pg/postgres.sh stop DIR    stops it (DIR is left for the caller to remove)
# DOCKET_PG_DURABLE=1 keeps PostgreSQL's durable defaults (fsync, synchronous commit), for
# benchmarks; without it the cluster trades them for speed.
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
    # TLS: a throwaway CA and a server certificate it issues for `localhost`.
    tls=$dir/tls
    run_as_pg mkdir -p "$tls"
    run_as_pg openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
      -subj "/CN=docket test PostgreSQL CA" -keyout "$tls/ca.key" -out "$tls/ca.pem" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
    run_as_pg openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
      -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
      >"$dir/server.ext"
    run_as_pg openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" \
      -CAcreateserial -days 30 -extfile "$dir/server.ext" -out "$tls/server.pem" 2>/dev/null
    run_as_pg chmod 600 "$tls/server.key" "$tls/ca.key"
    # Before initdb's `trust` lines, which match either way.
    hba=$dir/data/pg_hba.conf
    { echo "hostnossl all docket_tls_only all reject"; cat "$hba"; } >"$dir/pg_hba.new"
    cat "$dir/pg_hba.new" >"$hba" && rm "$dir/pg_hba.new"
    # Sized for tests: many short-lived databases, a few hundred connections, no durability
    # needed (the cluster is thrown away). Benchmarks ask for PostgreSQL's durable defaults
    # with DOCKET_PG_DURABLE=1.
    durability="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    [ "${DOCKET_PG_DURABLE:-0}" = 1 ] && durability=""
    run_as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir \
          -c max_connections=400 $durability -c shared_buffers=128MB \
          -c ssl=on -c ssl_cert_file=$tls/server.pem -c ssl_key_file=$tls/server.key" \
      start >/dev/null
    echo "export DOCKET_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/postgres"
    echo "export DOCKET_TEST_POSTGRES_CA=$tls/ca.pem"
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
