#!/usr/bin/env bash
# Start to first 200 and idle RSS of a docket binary (issue 27: kept <= 50 ms and <= 20 MB).
#
#   bench/startup.sh [BINARY] [ROUNDS]     (default target/release/docket, 5 rounds)
#
# Each round copies a data dir prepared by the CLI (one user, one API key, one OAuth client),
# starts `docket serve` on it (plain HTTP on 127.0.0.1) and polls /healthz over a raw socket
# every millisecond: the time from exec to the first 200, as ../shared/bench/first200.py
# measures it. The last server is then left idle for 2 s and its VmRSS read from /proc.
# Prints one line per round and a summary (median start, RSS).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-target/release/docket}")
ROUNDS=${2:-5}
PORT=${PORT:-18431}
WORK=$(mktemp -d /tmp/docket-startup.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

echo "binary $BIN: $(stat -c %s "$BIN") bytes; load $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
DATA=$WORK/data
echo "bench password 123" | "$BIN" --data-dir "$DATA" user add bench@example.com --name Bench \
  --password-stdin --json >/dev/null
"$BIN" --data-dir "$DATA" apikey create --user bench@example.com --json >/dev/null
"$BIN" --data-dir "$DATA" client add --name Bench --redirect-uri http://127.0.0.1:9/cb \
  --public-url "http://127.0.0.1:$PORT" --json >/dev/null

python3 - "$BIN" "$DATA" "$WORK" "$PORT" "$ROUNDS" <<'EOF'
import os, shutil, signal, socket, statistics, subprocess, sys, time
binary, data, work, port, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
request = f"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()

def start(dirname):
    t0 = time.perf_counter_ns()
    proc = subprocess.Popen([binary, "serve", "--data-dir", dirname, "--listen", f"127.0.0.1:{port}",
                             "--tls", "off", "--public-url", f"http://127.0.0.1:{port}",
                             "--rate-limit", "0", "--log-level", "warn"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        if proc.poll() is not None:
            sys.exit(f"server exited with {proc.returncode} before answering")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
                s.sendall(request)
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return proc, (time.perf_counter_ns() - t0) / 1e6
        except OSError:
            pass
        time.sleep(0.001)

def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill(); proc.wait()

times = []
for i in range(rounds):
    copy = os.path.join(work, f"round{i}")
    shutil.copytree(data, copy)
    proc, ms = start(copy)
    times.append(ms)
    print(f"round {i + 1}: first 200 after {ms:.1f} ms")
    if i < rounds - 1:
        stop(proc)
time.sleep(2)
rss = next(int(l.split()[1]) for l in open(f"/proc/{proc.pid}/status") if l.startswith("VmRSS:"))
stop(proc)
print(f"start to first 200: median {statistics.median(times):.1f} ms (min {min(times):.1f}, max {max(times):.1f}); idle RSS {rss} kB ({rss / 1024:.1f} MiB)")
EOF
