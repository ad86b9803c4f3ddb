#!/usr/bin/env python3
"""Starts a docket binary the way a bare machine or systemd would and checks it serves.

usage: smoke-serve.py BINARY WORKDIR

Runs BINARY from an empty directory with an empty environment (no PATH, no cargo, no HOME):
`--help`, then `serve --tls off --listen 127.0.0.1:0` twice, once plain and once with
NOTIFY_SOCKET and WATCHDOG_USEC as systemd sets them for a Type=notify unit. Each run must answer
/healthz, and exit 0 soon after SIGTERM; under "systemd" it must send READY=1 (after the banner),
WATCHDOG=1 pings, and STOPPING=1 on SIGTERM. Everything is loopback and bounded in time.
"""
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request


def fail(msg, proc=None):
    print(f"smoke-serve: FAIL: {msg}", file=sys.stderr)
    if proc is not None:
        proc.kill()
        out, err = proc.communicate(timeout=10)
        print(f"--- stdout\n{out}\n--- stderr\n{err}", file=sys.stderr)
    sys.exit(1)


def read_banner(proc, deadline):
    """Reads stdout until the 'listening' line; returns the address."""
    buf = ""
    fd = proc.stdout.fileno()
    while time.time() < deadline:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            chunk = os.read(fd, 4096).decode()
            if not chunk:
                break
            buf += chunk
            m = re.search(r"listening\s+http://(127\.0\.0\.1:\d+)", buf)
            if m:
                return m.group(1), buf
        if proc.poll() is not None:
            break
    fail(f"no banner with the listen address; stdout so far: {buf!r}", proc)


def healthz(addr, proc):
    try:
        with urllib.request.urlopen(f"http://{addr}/healthz", timeout=5) as r:
            body = json.loads(r.read())
            if r.status != 200 or body.get("status") != "ok":
                fail(f"/healthz answered {r.status} {body}", proc)
            return body
    except OSError as e:
        fail(f"/healthz: {e}", proc)


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        fail("still running 20 s after SIGTERM", proc)
    if proc.returncode != 0:
        fail(f"exit status {proc.returncode} after SIGTERM", proc)


def main():
    binary, work = sys.argv[1], sys.argv[2]
    empty = os.path.join(work, "empty")
    os.makedirs(empty, exist_ok=True)
    exe = os.path.join(empty, "docket")
    shutil.copy2(binary, exe)
    env = {}  # like env -i: no PATH, no HOME, no cargo

    out = subprocess.run([exe, "--help"], cwd=empty, env=env, capture_output=True, text=True, timeout=30)
    if out.returncode != 0 or "serve" not in out.stdout:
        fail(f"--help: {out.returncode} {out.stdout!r} {out.stderr!r}")
    print("smoke-serve: --help ok")

    serve = [exe, "serve", "--tls", "off", "--listen", "127.0.0.1:0"]

    # 1. Plain.
    proc = subprocess.Popen(serve + ["--data-dir", os.path.join(work, "data1")], cwd=empty, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    addr, _ = read_banner(proc, time.time() + 60)
    body = healthz(addr, proc)
    stop(proc)
    print(f"smoke-serve: serve on {addr} answered /healthz {body}; exited 0 on SIGTERM")

    # 2. As systemd runs a Type=notify unit with WatchdogSec=.
    sock_path = os.path.join(work, "notify.sock")
    rx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    rx.bind(sock_path)
    rx.settimeout(30)
    env2 = dict(env, NOTIFY_SOCKET=sock_path, WATCHDOG_USEC="400000")
    proc = subprocess.Popen(serve + ["--data-dir", os.path.join(work, "data2")], cwd=empty, env=env2,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = rx.recv(4096).decode()
    except socket.timeout:
        fail("no READY=1 within 30 s", proc)
    if not first.startswith("READY=1"):
        fail(f"first notification was {first!r}, not READY=1", proc)
    # The banner was printed (and flushed) before READY=1.
    addr, _ = read_banner(proc, time.time() + 2)
    healthz(addr, proc)
    pings = 0
    deadline = time.time() + 10
    while pings < 2 and time.time() < deadline:
        m = rx.recv(4096).decode()
        if m == "WATCHDOG=1":
            pings += 1
        else:
            fail(f"unexpected notification {m!r}", proc)
    if pings < 2:
        fail("fewer than 2 WATCHDOG=1 pings in 10 s at WATCHDOG_USEC=400000", proc)
    proc.send_signal(signal.SIGTERM)
    got_stopping = False
    deadline = time.time() + 20
    while time.time() < deadline:
        m = rx.recv(4096).decode()
        if m.startswith("STOPPING=1"):
            got_stopping = True
            break
        if m != "WATCHDOG=1":
            fail(f"unexpected notification {m!r}", proc)
    if not got_stopping:
        fail("no STOPPING=1 after SIGTERM", proc)
    stop(proc)
    print(f"smoke-serve: under NOTIFY_SOCKET: {first.splitlines()[0]} ({first.splitlines()[1]}), "
          f"{pings} WATCHDOG=1, STOPPING=1, exit 0")


if __name__ == "__main__":
    main()
