#!/usr/bin/env bash
# Checks Docket's packaging end to end (run by .ci/run; needs root or sudo for apt):
#   1. the static binary (packaging/build-static.sh): `file` says static, the musl build (the one
#      the package ships) is at most 30,000,000 bytes (issue 27; docs/develop/performance-history.md, "Binary
#      size"; the glibc fallback's size is only printed: it has no packed relocations, 1.2 MB
#      more; so is a DOCKET_STATIC_BUILD=check build's, CI's), and it runs from an empty
#      directory with an empty environment: --help, serve answering /healthz, the systemd
#      notify protocol, exit 0 on SIGTERM (packaging/smoke-serve.py);
#   2. the Debian package (`cargo deb`): lintian without errors; its files, conffiles and
#      maintainer scripts; every DOCKET_* setting of `docket serve --help` in /etc/default/docket;
#   3. the systemd unit, as packaged, with `systemd-analyze verify` in a scratch root;
#   4. the Homebrew formula's Ruby syntax.
# Installs what it lacks: Debian lintian, systemd (systemd-analyze), ruby, file, musl-tools,
# python3, curl; cargo-deb from crates.io at a pinned version.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CARGO_DEB_VERSION=3.8.0

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
step() { echo "== packaging: $*"; }
die() { echo "packaging check FAILED: $*" >&2; exit 1; }

work=$(mktemp -d /tmp/docket-pkg.XXXXXX)
trap 'rm -rf "$work"' EXIT

install_cargo_deb() {
  if ! cargo deb --version 2>/dev/null | grep -qF "$CARGO_DEB_VERSION"; then
    echo "installing cargo-deb $CARGO_DEB_VERSION"
    # A build tool run once a CI run: optimised at level 1, which builds in less CPU time.
    CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
      CARGO_PROFILE_RELEASE_LTO=false \
      cargo install --locked --quiet cargo-deb --version "$CARGO_DEB_VERSION"
  fi
}
# `packaging/check.sh cargo-deb` installs cargo-deb alone (.ci/run does it in the background
# while the tests run).
if [ "${1:-}" = cargo-deb ]; then
  install_cargo_deb
  exit 0
fi

step "tools"
missing=()
for pair in lintian:lintian systemd-analyze:systemd ruby:ruby file:file musl-gcc:musl-tools \
            python3:python3 dpkg-deb:dpkg; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
install_cargo_deb
cargo deb --version

step "static binary"
static=$(packaging/build-static.sh | tail -n 1)
file -L "$static"
ls -l "$static"
size=$(stat -L -c %s "$static")
build=${DOCKET_STATIC_BUILD:-shipped}
case $build:$static in
  # CI's quick build (packaging/build-static.sh): unoptimised, so its size says nothing of the
  # shipped one's.
  check:*) echo "static binary: $size bytes (DOCKET_STATIC_BUILD=check: the size bound is bench/binary_size.sh's)" ;;
  *:*x86_64-unknown-linux-musl/*) bench/binary_size.sh "$static" ;;
  *) echo "static binary: $size bytes (glibc: no bound)" ;;
esac
timeout 180 python3 packaging/smoke-serve.py "$ROOT/$static" "$work/smoke"

step "Debian package (cargo deb)"
# The package ships the static binary just built: cargo deb builds for the same target with
# the same settings as packaging/build-static.sh, which finds that build fresh.
triple=$(printf '%s\n' "$static" | sed -E 's#^(.*/)?target/([^/]+)/release/docket$#\2#')
eval "$(packaging/build-static.sh env "$triple")"
# CI's quick build (78 MB unoptimised) is compressed quickly: its package is checked, not shipped.
fast=()
[ "$build" = check ] && fast=(--fast)
deb=$(cargo deb --locked "${fast[@]}" --target "$triple" 2>"$work/cargo-deb.log" | tail -n 1) || { cat "$work/cargo-deb.log" >&2; die "cargo deb"; }
[ -f "$deb" ] || die "cargo deb printed no package path ($deb)"
echo "$deb ($(du -h "$deb" | cut -f1))"
dpkg-deb --info "$deb" | sed -n '/Package:/,$p'

step "lintian"
# Errors fail the check; warnings and info are shown.
lintian --fail-on error --info "$deb" \
  | tee "$work/lintian.txt" || die "lintian reports errors"
grep -q '^E:' "$work/lintian.txt" && die "lintian reports errors"
echo "lintian: $(grep -c '^E:' "$work/lintian.txt" || true) errors, $(grep -c '^W:' "$work/lintian.txt" || true) warnings"

step "package contents"
pkg=$work/root
ctl=$work/control
dpkg-deb -x "$deb" "$pkg"
dpkg-deb -e "$deb" "$ctl"
(cd "$pkg" && find . -type f -o -type l | sort)
unit=$pkg/usr/lib/systemd/system/docket.service
[ -f "$unit" ] || unit=$pkg/lib/systemd/system/docket.service
for f in "$pkg/usr/bin/docket" "$unit" "$pkg/etc/default/docket" \
         "$pkg/usr/share/man/man1/docket.1.gz" "$pkg/usr/share/doc/docket/copyright"; do
  [ -f "$f" ] || die "missing in the package: ${f#"$pkg"}"
done
[ -x "$pkg/usr/bin/docket" ] || die "/usr/bin/docket is not executable"
# The README's links into the guide resolve in the installed copy.
doc=$pkg/usr/share/doc/docket
for link in $(grep -oE '\]\((docs/[^)#]+)' README.md | sed 's/^](//' | sort -u); do
  [ -f "$doc/$link" ] || die "the README links to $link, which the package does not ship"
done
"$pkg/usr/bin/docket" --version
cmp -s "$unit" packaging/systemd/docket.service || die "the packaged unit differs from packaging/systemd/docket.service"
grep -qx /etc/default/docket "$ctl/conffiles" || die "/etc/default/docket is not a conffile"
# /etc/default/docket may hold the SMTP password: shipped 0640 (root:root in the archive, as
# the docket group does not exist yet), then given to root:docket by the postinst.
default_perm=$(dpkg-deb -c "$deb" | awk '$6 == "./etc/default/docket" { print $1, $2 }')
# (cargo-deb writes numeric owners: 0/0 is root/root)
case "$default_perm" in
  "-rw-r----- root/root" | "-rw-r----- 0/0") ;;
  *) die "/etc/default/docket is shipped as '$default_perm', not -rw-r----- root/root" ;;
esac
grep -q 'chown root:docket /etc/default/docket' "$ctl/postinst" || die "postinst does not give /etc/default/docket to root:docket"
grep -q 'chmod 0640 /etc/default/docket' "$ctl/postinst" || die "postinst does not keep /etc/default/docket 0640"
grep -q '^Depends:.*adduser' "$ctl/control" || die "Depends lacks adduser"
for s in postinst prerm postrm; do
  [ -x "$ctl/$s" ] || die "maintainer script $s missing or not executable"
  sh -n "$ctl/$s" || die "maintainer script $s: syntax"
  grep -q '#DEBHELPER#' "$ctl/$s" && die "maintainer script $s: #DEBHELPER# left unexpanded"
done
grep -q 'adduser .*--system --group --home /var/lib/docket' "$ctl/postinst" || die "postinst does not create the docket user"
grep -q 'deb-systemd-helper' "$ctl/postinst" || die "postinst does not enable the unit"
grep -q 'deb-systemd-invoke' "$ctl/postinst" || die "postinst does not start the unit"
grep -q 'deb-systemd-invoke' "$ctl/prerm" || die "prerm does not stop the unit"
grep -q 'rm -rf /var/lib/docket' "$ctl/postrm" || die "postrm does not delete the data on purge"
# Order: `set -e` first, the user exists before the unit is enabled and started, and each
# generated snippet appears once (a stray token in a comment would duplicate it).
line() { grep -n -m1 -e "$1" "$2" | cut -d: -f1; }
for s in postinst prerm postrm; do
  [ "$(line '^set -e' "$ctl/$s")" -lt "$(line 'Automatically added' "$ctl/$s")" ] \
    || die "$s: a generated snippet runs before set -e"
done
[ "$(line 'adduser --' "$ctl/postinst")" -lt "$(line 'deb-systemd-helper enable' "$ctl/postinst")" ] \
  || die "postinst enables the unit before creating the user"
[ "$(line 'adduser --' "$ctl/postinst")" -lt "$(line 'chown root:docket /etc/default/docket' "$ctl/postinst")" ] \
  || die "postinst gives /etc/default/docket to the docket group before creating it"
[ "$(grep -c 'deb-systemd-invoke \$_dh_action' "$ctl/postinst")" = 1 ] || die "postinst starts the unit more than once"
[ "$(grep -c 'deb-systemd-invoke stop' "$ctl/prerm")" = 1 ] || die "prerm stops the unit more than once"
# Every DOCKET_* variable of `docket serve --help` is in /etc/default/docket, commented out.
vars=$("$pkg/usr/bin/docket" serve --help | grep -o 'env: DOCKET_[A-Z_]*' | cut -d' ' -f2 | sort -u)
[ -n "$vars" ] || die "no DOCKET_* variables in serve --help"
for v in $vars; do
  grep -q "^#$v=" "$pkg/etc/default/docket" || die "/etc/default/docket lacks a commented $v="
done
if grep -v '^#' "$pkg/etc/default/docket" | grep -q '[^[:space:]]'; then
  die "/etc/default/docket sets something; every setting must be commented"
fi
echo "every one of $(echo "$vars" | wc -l) DOCKET_* settings is in /etc/default/docket, commented"

step "systemd-analyze verify (the packaged unit in a scratch root)"
# verify needs ExecStart's /usr/bin/docket to exist and the standard targets: the unpacked
# package gives the first, the host's units the rest, without touching the real /usr.
mkdir -p "$pkg/usr/lib/systemd/system"
cp -an /usr/lib/systemd/system/. "$pkg/usr/lib/systemd/system/"
[ "$unit" = "$pkg/usr/lib/systemd/system/docket.service" ] || cp "$unit" "$pkg/usr/lib/systemd/system/"
out=$(systemd-analyze verify --man=no --root="$pkg" docket.service 2>&1) || { echo "$out"; die "systemd-analyze verify failed"; }
[ -z "$out" ] || { echo "$out"; die "systemd-analyze verify printed warnings"; }
echo "systemd-analyze verify: clean"

step "Homebrew formula"
ruby -c packaging/homebrew/docket.rb

echo "== packaging: all checks passed"
