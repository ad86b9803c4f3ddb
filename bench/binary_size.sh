#!/usr/bin/env bash
# The shipped binary's size against issue 27's bound: the static musl build, fat LTO in one
# codegen unit, as the Debian package ships it, at most 30,000,000 bytes.
#
#   bench/binary_size.sh            builds it (packaging/build-static.sh, DOCKET_STATIC_BUILD=shipped:
#                                   about 26 CPU-minutes on the 2-core machine) and checks it
#   bench/binary_size.sh BINARY     checks a binary built so already
#
# CI's packaging check builds the same code unoptimised (DOCKET_STATIC_BUILD=check), whose size
# says nothing of this one's; record each figure in docs/develop/performance-history.md, "Binary
# size". Exits 1 when the binary is over the bound or not statically linked. packaging/check.sh
# runs it on the musl build it makes, unless that build is CI's.
set -euo pipefail
cd "$(dirname "$0")/.."
BOUND=30000000

if [ $# -ge 1 ]; then
  bin=$1
else
  bin=$(DOCKET_STATIC_BUILD=shipped DOCKET_STATIC=musl packaging/build-static.sh | tail -n 1)
fi
desc=$(file -L "$bin")
size=$(stat -L -c %s "$bin")
echo "$bin: $size bytes (bound $BOUND); $("$bin" --version 2>/dev/null | head -n 1)"
echo "$desc"
case $desc in
  *"statically linked"* | *"static-pie linked"*) ;;
  *) echo "not a static binary" >&2; exit 1 ;;
esac
if [ "$size" -gt "$BOUND" ]; then
  echo "over the bound by $((size - BOUND)) bytes: see docs/develop/performance-history.md, \"Binary size\"" >&2
  exit 1
fi
echo "under the bound by $((BOUND - size)) bytes"
