#!/usr/bin/env bash
# make deb, which stages `make install DESTDIR=.build-deb/root PREFIX=/usr`; that tree used as
# a device would: the programs need nothing of the Swift toolchain, `diptych render` draws two
# apps from the installed tree, the manual pages and the kiosk unit are there, and the C example
# builds against the installed library. Then the package itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(mktemp -d /tmp/diptych-install-XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }
make --no-print-directory deb OUT="$ROOT/out" > "$ROOT/deb.log" 2>&1 || { tail -30 "$ROOT/deb.log" >&2; fail "make deb (make install into its staging root) failed"; }
INSTALLED="$PWD/.build-deb/root"
for f in usr/bin/diptych usr/bin/diptych-demo usr/bin/diptych-hello usr/lib/libdiptych-client.so.1 usr/include/diptych-client.h usr/include/diptych-protocol.h \
         usr/lib/python3/dist-packages/diptych/__init__.py usr/share/doc/diptych/examples/hello.py usr/lib/pkgconfig/diptych-client.pc usr/share/man/man1/diptych.1 usr/lib/systemd/system/diptych-kiosk.service etc/pam.d/diptych etc/diptych/kiosk.conf; do
  [ -e "$INSTALLED/$f" ] || fail "$f was not installed"
done
for b in diptych diptych-demo diptych-hello; do
  if grep -qi swift <<< "$(ldd "$INSTALLED/usr/bin/$b")"; then fail "$b needs the Swift runtime: $(ldd "$INSTALLED/usr/bin/$b" | grep -i swift | head -3)"; fi
done
grep -q "ExecStart=/usr/bin/diptych " "$INSTALLED/usr/lib/systemd/system/diptych-kiosk.service" || fail "the unit does not run /usr/bin/diptych"
grep -q "render" "$INSTALLED/usr/share/man/man1/diptych.1" || fail "the manual page does not describe render"
grep -q -- "--config /etc/diptych/kiosk.conf" "$INSTALLED/usr/lib/systemd/system/diptych-kiosk.service" || fail "the unit does not run the shipped configuration"
# From the installed tree only (the demo apps are found beside diptych).
(cd "$ROOT" && env -u LD_LIBRARY_PATH "$INSTALLED/usr/bin/diptych" render --device ipad --arrangement split-2/3 \
   --primary notes --secondary 'pattern:#993366' --out "$ROOT/render.png" > /dev/null) || fail "the installed diptych render failed"
[ -s "$ROOT/render.png" ] || fail "render wrote no PNG"
cc -std=c99 -Wall -Werror "$INSTALLED/usr/share/doc/diptych/examples/hello.c" \
  $(PKG_CONFIG_PATH="$INSTALLED/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$INSTALLED" pkg-config --cflags --libs diptych-client) -o "$ROOT/hello" \
  || fail "the C example does not build against the installed library"
# The Debian package: its dependencies declared and satisfiable here, its files run from where
# it unpacks.
DEB=$(ls "$ROOT"/out/diptych_*.deb)
for dep in libseat1 libinput10 libdrm2 libpixman-1-0 libxkbcommon0 fonts-inter; do
  grep -q "$dep" <<< "$(dpkg-deb -f "$DEB" Depends)" || fail "the package does not depend on $dep"
done
if grep -qi swift <<< "$(dpkg-deb -f "$DEB" Depends)"; then fail "the package depends on the Swift runtime"; fi
grep -q "^/etc/diptych/kiosk.conf$" <<< "$(dpkg-deb -I "$DEB" conffiles)" || fail "the kiosk configuration is not a conffile"
grep -q "systemctl stop diptych-kiosk.service" <<< "$(dpkg-deb -I "$DEB" prerm)" || fail "removing the package does not stop the kiosk"
grep -q "disable diptych-kiosk.service" <<< "$(dpkg-deb -I "$DEB" prerm)" || fail "removing the package does not disable the kiosk"
ls "$ROOT"/out/diptych-debug_*.tar.xz > /dev/null || fail "the debug symbols were not kept apart"
dpkg --dry-run -i "$DEB" > "$ROOT/dry.log" 2>&1 || { cat "$ROOT/dry.log" >&2; fail "dpkg would not install the package"; }
mkdir "$ROOT/deb" && dpkg-deb -x "$DEB" "$ROOT/deb"
for b in diptych diptych-demo; do
  if readelf -S "$ROOT/deb/usr/bin/$b" | grep -q '\.symtab'; then fail "$b in the package is not stripped"; fi
done
(cd "$ROOT" && "$ROOT/deb/usr/bin/diptych" render --device ipad-mini --arrangement slide-over --primary notes --secondary markets \
   --out "$ROOT/deb-render.png" > /dev/null) || fail "diptych render from the unpacked package failed"
# (Outputs are read whole before grep: with pipefail, `grep -q` quitting early could fail the
# writer with SIGPIPE.)
LOADS=$(LD_LIBRARY_PATH="$ROOT/deb/usr/lib" ldd "$ROOT/hello")
grep -q "$ROOT/deb/usr/lib/libdiptych-client.so.1" <<< "$LOADS" || fail "the C example does not load the packaged library: $LOADS"
(cd "$ROOT" && LD_LIBRARY_PATH="$ROOT/deb/usr/lib" "$ROOT/deb/usr/bin/diptych" render --device ipad --arrangement split-2/3 \
   --primary "$ROOT/hello" --secondary 'pattern:#993366' --out "$ROOT/deb-hello.png" > /dev/null) || fail "the C example did not run from the package"
(cd "$ROOT" && PYTHONPATH="$ROOT/deb/usr/lib/python3/dist-packages" LD_LIBRARY_PATH="$ROOT/deb/usr/lib" "$ROOT/deb/usr/bin/diptych" render \
   --device ipad --arrangement split-2/3 --primary "python3 $ROOT/deb/usr/share/doc/diptych/examples/hello.py" --secondary notes \
   --out "$ROOT/deb-hello-py.png" > /dev/null) || fail "the Python example did not run with the packaged module"
echo "install-test: make install works (programs without the Swift runtime, render, manual pages, unit, C library, Python module) and make deb (dependencies declared, unpacked it renders)"
