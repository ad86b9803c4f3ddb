#!/usr/bin/env bash
# Benchmark of page rendering: every page of each PDF to PNG files at one pixel width, by
# docket's renderer (examples/render_pages, release build: one load and one renderer per file)
# and by poppler's `pdftoppm -png -scale-to-x <width> -scale-to-y -1`, timed by hyperfine.
# Files: the PDF fixtures with text or scans, plus any PDFs under /usr/share/doc (real manuals).
# Checks that both tools write the same number of pages at the same width before timing.
# Usage: bench/render.sh [width px, default 1200] [hyperfine runs, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
WIDTH=${1:-1200}
RUNS=${2:-5}
for t in hyperfine pdftoppm python3; do
  command -v $t >/dev/null || { echo "$t is missing (apt-get install hyperfine poppler-utils)" >&2; exit 1; }
done

cargo build --release --quiet --example render_pages
BIN=target/release/examples/render_pages
WORK=$(mktemp -d -p "$PWD/target" bench-render.XXXX)
trap 'rm -rf "$WORK"' EXIT

FILES=()
for f in a4-1p rotated-4p mixed-sizes-3p ps2pdf-a5-2p signed-2rev bad-xref-offsets scan-3p letter-120p; do
  FILES+=("tests/fixtures/pdf/$f.pdf")
done
while IFS= read -r f; do FILES+=("$f"); done < <(find /usr/share/doc -name '*.pdf' 2>/dev/null | sort)

# "pages width" of the PNGs in a directory, to check both tools made the same images.
shape() {
  python3 - "$1" <<'PY'
import os, struct, sys
d = sys.argv[1]
widths = set()
names = [n for n in os.listdir(d) if n.endswith(".png")]
for n in names:
    with open(os.path.join(d, n), "rb") as f:
        widths.add(struct.unpack(">I", f.read(24)[16:20])[0])
print(len(names), ",".join(str(w) for w in sorted(widths)))
PY
}

echo "| file | pages | docket ms | pdftoppm ms | docket / pdftoppm |"
echo "|---|---|---|---|---|"
for f in "${FILES[@]}"; do
  name=$(basename "$f" .pdf)
  mkdir -p "$WORK/d" "$WORK/p"
  rm -f "$WORK"/d/* "$WORK"/p/*
  "$BIN" "$WIDTH" "$WORK/d" "$f" >/dev/null
  pdftoppm -png -scale-to-x "$WIDTH" -scale-to-y -1 "$f" "$WORK/p/$name"
  d_shape=$(shape "$WORK/d"); p_shape=$(shape "$WORK/p")
  if [ "$d_shape" != "$p_shape" ]; then
    echo "$name: docket made $d_shape, pdftoppm $p_shape (pages, widths)" >&2
  fi
  hyperfine --style none --warmup 1 --runs "$RUNS" --export-json "$WORK/$name.json" \
    -n docket "$BIN $WIDTH $WORK/d '$f'" \
    -n pdftoppm "pdftoppm -png -scale-to-x $WIDTH -scale-to-y -1 '$f' $WORK/p/$name" >/dev/null
  python3 - "$WORK/$name.json" "$name" "${d_shape%% *}" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
d, p = results["docket"], results["pdftoppm"]
fmt = lambda r: f'{r["mean"] * 1000:.0f} ± {r["stddev"] * 1000:.0f}'
print(f'| {sys.argv[2]} | {sys.argv[3]} | {fmt(d)} | {fmt(p)} | {d["mean"] / p["mean"]:.2f} |')
PY
done
