# Shared by tests/s3/moto.sh and tests/s3/garage.sh (sourced, not run).

# Ends the server whose pid is in file $1, if it runs: SIGTERM, up to 5 s to exit, then SIGKILL.
end_server() {
    [[ -f $1 ]] || return 0
    local pid
    pid=$(cat "$1")
    if kill "$pid" 2> /dev/null; then
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.1
        done
        kill -9 "$pid" 2> /dev/null || true
    fi
}
