#!/usr/bin/env bash
# make install into a scratch root, then use it as a device would: the programs need nothing of
# the Swift toolchain, `diptych render` draws two apps from the installed tree, the manual pages
# and the kiosk unit are there, and the C example builds against the installed library.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(mktemp -d /tmp/diptych-install-XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
make --no-print-directory install DESTDIR="$ROOT" PREFIX=/usr > "$ROOT.log" 2>&1 || { tail -30 "$ROOT.log" >&2; echo "install-test: make install failed" >&2; exit 1; }
fail() { echo "install-test: $*" >&2; exit 1; }
for f in usr/bin/diptych usr/bin/diptych-demo usr/bin/diptych-hello usr/lib/libdiptych-client.so.1 usr/include/diptych-client.h \
         usr/lib/pkgconfig/diptych-client.pc usr/share/man/man1/diptych.1 usr/lib/systemd/system/diptych-kiosk.service etc/pam.d/diptych; do
  [ -e "$ROOT/$f" ] || fail "$f was not installed"
done
for b in diptych diptych-demo diptych-hello; do
  if ldd "$ROOT/usr/bin/$b" | grep -qi swift; then fail "$b needs the Swift runtime: $(ldd "$ROOT/usr/bin/$b" | grep -i swift | head -3)"; fi
done
grep -q "ExecStart=/usr/bin/diptych " "$ROOT/usr/lib/systemd/system/diptych-kiosk.service" || fail "the unit does not run /usr/bin/diptych"
grep -q "render" "$ROOT/usr/share/man/man1/diptych.1" || fail "the manual page does not describe render"
# From the installed tree only (the demo apps are found beside diptych).
(cd "$ROOT" && env -u LD_LIBRARY_PATH "$ROOT/usr/bin/diptych" render --device ipad --arrangement split-2/3 \
   --primary notes --secondary 'pattern:#993366' --out "$ROOT/render.png" > /dev/null) || fail "the installed diptych render failed"
[ -s "$ROOT/render.png" ] || fail "render wrote no PNG"
cc -std=c99 -Wall -Werror "$ROOT/usr/share/doc/diptych/examples/hello.c" \
  $(PKG_CONFIG_PATH="$ROOT/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$ROOT" pkg-config --cflags --libs diptych-client) -o "$ROOT/hello" \
  || fail "the C example does not build against the installed library"
echo "install-test: make install works (programs without the Swift runtime, render, manual pages, unit, C library)"
