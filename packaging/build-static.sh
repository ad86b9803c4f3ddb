#!/usr/bin/env bash
# Builds a statically linked `docket` and prints its path on the last line of stdout.
#
# musl (x86_64-unknown-linux-musl, C code built with Debian's musl-gcc from musl-tools) where
# rustup has or can add that target; otherwise glibc with `-C target-feature=+crt-static`
# (x86_64-unknown-linux-gnu). Either way the bundled SQLite and ring's C/assembly are compiled
# for and linked into the one binary, and `file` says "statically linked" or "static-pie linked".
#
#   DOCKET_STATIC=auto|musl|glibc   which to build (default auto: musl, falling back to glibc)
#   DOCKET_STATIC_BUILD=shipped|check
#                                   how it is optimised: `shipped` (the default) as the package
#                                   ships it, fat LTO in one codegen unit; `check` for CI's
#                                   packaging check, the same target, C compiler and link flags,
#                                   unoptimised (see static_env)
#   extra arguments are passed to `cargo build`
#   packaging/build-static.sh prepare
#                                   only installs what the build needs (musl-gcc, the rustup
#                                   target), so that the build itself can then run in the
#                                   background without apt (.ci/run does so)
#   packaging/build-static.sh env [TARGET]
#                                   prints the environment the build of TARGET (default the
#                                   musl one) uses, as export lines for eval (for cargo deb)
set -euo pipefail
cd "$(dirname "$0")/.."

MUSL=x86_64-unknown-linux-musl
GNU=x86_64-unknown-linux-gnu
mode=${DOCKET_STATIC:-auto}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }
say() { echo "build-static: $*" >&2; }
case ${DOCKET_STATIC_BUILD:-shipped} in
  shipped | check) ;;
  *) say "DOCKET_STATIC_BUILD must be shipped or check"; exit 2 ;;
esac

musl_ready() {
  if ! command -v musl-gcc >/dev/null; then
    say "installing Debian musl-tools (musl-gcc)"
    { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq musl-tools >/dev/null; } || return 1
    command -v musl-gcc >/dev/null || return 1
  fi
  if ! rustup target list --installed 2>/dev/null | grep -qx "$MUSL"; then
    say "adding the rustup target $MUSL"
    timeout 300 rustup target add "$MUSL" >&2 || return 1
  fi
}

# The environment a static build of target $1 needs, as `export` lines (`env` prints them, so
# that `cargo deb` builds with exactly the same settings and finds this build fresh).
static_env() {
  case ${DOCKET_STATIC_BUILD:-shipped} in
    # The shipped binary is optimised across all crates at once, in one codegen unit (fat LTO;
    # the release profile's thin LTO with 4 units builds faster for development): 34,503,624 ->
    # 31,619,976 bytes and an idle server 18.0 -> 14.0 MB, at the same speed (docs/develop/performance-history.md).
    shipped) echo "export CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1" ;;
    # CI's packaging check builds, links, packages and runs the same code for the same target
    # with the same C compiler and link flags, unoptimised, in less CPU time (CI has 40 minutes
    # on two cores). Measured alone on the slower 2-core machine (2026-11-29): 1,008 CPU-seconds
    # and a 78 MB binary, against 1,578 for the shipped build (beside another build); optimising
    # at level 1 without LTO took 1,854, as every crate's code is then generated, where fat LTO
    # generates it once for the whole program. Only the shipped build's size means anything:
    # bench/binary_size.sh measures it against issue 27's bound.
    check) echo "export CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=256" ;;
  esac
  if [ "$1" = "$MUSL" ]; then
    # Rust links musl targets statically by default; C sources (SQLite, ring) go through
    # musl-gcc. Relative relocations are packed (DT_RELR): 58,000 of them took 1.4 MB of the
    # file, all read at every start; Rust's bundled musl (1.2.5) applies packed ones itself.
    echo "export CC_x86_64_unknown_linux_musl=musl-gcc"
    echo "export CARGO_TARGET_X86_64_UNKNOWN_LINUX_MUSL_RUSTFLAGS='-C target-feature=+crt-static -C link-arg=-Wl,-z,pack-relative-relocs'"
  else
    # With an explicit --target these flags reach only the target's code, not build scripts or
    # proc macros, which must stay dynamic.
    echo "export CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS='-C target-feature=+crt-static'"
  fi
}

if [ "${1:-}" = env ]; then
  static_env "${2:-$MUSL}"
  exit 0
fi
if [ "${1:-}" = prepare ]; then
  case $mode in
    glibc) ;;
    *) musl_ready || say "musl unavailable; the build will use glibc +crt-static" ;;
  esac
  exit 0
fi

case $mode in
  auto) if musl_ready; then target=$MUSL; else say "musl unavailable; using glibc +crt-static"; target=$GNU; fi ;;
  musl) musl_ready || { say "musl target unavailable"; exit 1; }; target=$MUSL ;;
  glibc) target=$GNU ;;
  *) say "DOCKET_STATIC must be auto, musl or glibc"; exit 2 ;;
esac

eval "$(static_env "$target")"

say "cargo build --release --target $target"
cargo build --release --locked --target "$target" --bin docket "$@" >&2

bin=target/$target/release/docket
desc=$(file -L "$bin")
say "$desc"
case $desc in
  *"statically linked"* | *"static-pie linked"*) ;;
  *) say "not a static binary"; exit 1 ;;
esac
echo "$bin"
