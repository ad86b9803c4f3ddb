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

# $1 random bytes, in hex.
hex() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# What `start` prints, for eval: the server on port $1 with access key $2 and secret $3, its
# directory $4 ($REGION and $BUCKET are the calling script's).
print_env() {
    cat << EOF2
export AWS_ENDPOINT_URL=http://127.0.0.1:$1
export AWS_REGION=$REGION
export AWS_ACCESS_KEY_ID=$2
export AWS_SECRET_ACCESS_KEY=$3
export DOCKET_S3_BUCKET=$BUCKET
export DOCKET_TEST_BLOB_URL=s3://$BUCKET
export DOCKET_S3_DIR=$4
EOF2
}

# `stop`: ends the server that `start` left in directory $1 (default $DOCKET_S3_DIR), which must
# hold file $2 (the mark of the calling script's own start), and its pid in file $3 there;
# then deletes the directory.
stop_in() {
    local dir=${1:-${DOCKET_S3_DIR:-}}
    [[ -n $dir ]] || die "stop: give the directory start printed (DOCKET_S3_DIR)"
    [[ -f $dir/$2 ]] || die "stop: $dir is not a directory made by $(basename "$SELF") start"
    end_server "$dir/$3"
    rm -rf "$dir"
    say "stopped the server in $dir"
}
