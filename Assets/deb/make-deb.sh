#!/usr/bin/env bash
# Builds diptych_VERSION_ARCH.deb from a staged `make install DESTDIR=STAGE PREFIX=/usr`: the
# run-time dependencies are the Debian packages that own the libraries the programs load
# (diptych-web's, for web apps, are recommended), plus the font and keymaps it reads.
# Usage: make-deb.sh STAGE VERSION OUTDIR
set -euo pipefail
STAGE=$1 VERSION=$2 OUT=$3
ARCH=$(dpkg --print-architecture)
owners() {  # the packages owning the libraries the given programs link directly (their NEEDED)
  for b in "$@"; do
    needed=$(readelf -d "$b" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | paste -sd' ')
    ldd "$b" | awk -v needed=" $needed " 'index(needed, " " $1 " ") && $3 ~ /^\// {print $3}'
  done | sort -u | while read -r lib; do
    dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true
  done | cut -d: -f1 | sort -u
}
core=$(owners "$STAGE"/usr/bin/diptych "$STAGE"/usr/bin/diptych-demo "$STAGE"/usr/bin/diptych-hello)
web=""
[ -x "$STAGE/usr/bin/diptych-web" ] && web=$(comm -23 <(owners "$STAGE/usr/bin/diptych-web") <(echo "$core"))
depends=$( (echo "$core"; echo fonts-inter; echo xkb-data) | grep -v '^$' | sort -u | paste -sd, | sed 's/,/, /g')
recommends=$( (echo "$web"; echo libgl1-mesa-dri; echo python3) | grep -v '^$' | sort -u | paste -sd, | sed 's/,/, /g')
# Stripped programs and library; their debug symbols apart, in OUT/diptych-debug_VERSION_ARCH.tar.xz
# (each program names its .debug file, which gdb finds under /usr/lib/debug).
mkdir -p "$OUT"
DEBUG=$(mktemp -d)
for f in "$STAGE"/usr/bin/* "$STAGE"/usr/lib/libdiptych-client.so.*; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  readelf -h "$f" >/dev/null 2>&1 || continue
  mkdir -p "$DEBUG/usr/lib/debug$(dirname "${f#"$STAGE"}")"
  dbg="$DEBUG/usr/lib/debug${f#"$STAGE"}.debug"
  objcopy --only-keep-debug "$f" "$dbg"
  strip --strip-unneeded "$f"
  objcopy --add-gnu-debuglink="$dbg" "$f"
done
tar -C "$DEBUG" -cJf "$OUT/diptych-debug_${VERSION}_${ARCH}.tar.xz" usr
rm -rf "$DEBUG"
mkdir -p "$STAGE/DEBIAN"
cat > "$STAGE/DEBIAN/control" <<CONTROL
Package: diptych
Version: $VERSION
Architecture: $ARCH
Maintainer: Diptych <diptych@localhost>
Section: x11
Priority: optional
Depends: $depends
Recommends: $recommends
Installed-Size: $(du -sk "$STAGE/usr" | cut -f1)
Homepage: https://github.com/diptych/diptych
Description: iPad-style two-app multitasking compositor for Linux kiosks
 Full screen, Slide Over and Split View with a draggable divider for two apps on
 one panel, on DRM/KMS with libinput, pen and touch; libdiptych-client for apps in
 C, the diptych Python module's library, the kiosk systemd unit and PAM service.
CONTROL
printf '/etc/pam.d/diptych\n/etc/diptych/kiosk.conf\n' > "$STAGE/DEBIAN/conffiles"
cat > "$STAGE/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  command -v systemd-sysusers >/dev/null && systemd-sysusers diptych.conf || true
  command -v ldconfig >/dev/null && ldconfig || true
  [ -d /run/systemd/system ] && systemctl daemon-reload || true
fi
POSTINST
chmod 0755 "$STAGE/DEBIAN/postinst"
# Removed: the kiosk is stopped and its unit disabled (the configuration stays until purged).
cat > "$STAGE/DEBIAN/prerm" <<'PRERM'
#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = deconfigure ]; then
  if [ -d /run/systemd/system ]; then systemctl stop diptych-kiosk.service || true; fi
  if command -v systemctl >/dev/null; then systemctl --no-reload disable diptych-kiosk.service >/dev/null 2>&1 || true; fi
fi
PRERM
chmod 0755 "$STAGE/DEBIAN/prerm"
mkdir -p "$OUT"
dpkg-deb --root-owner-group --build "$STAGE" "$OUT/diptych_${VERSION}_${ARCH}.deb" >/dev/null
echo "$OUT/diptych_${VERSION}_${ARCH}.deb"
