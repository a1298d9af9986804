#!/usr/bin/env bash
# Builds diptych_VERSION_ARCH.deb from a staged `make install DESTDIR=STAGE PREFIX=/usr`: the
# run-time dependencies are the Debian packages that own the libraries the programs load
# (diptych-web's, for web apps, are recommended), plus the font and keymaps it reads. It adds
# what Debian's policy asks of a package and `make install` has no use for: the copyright file,
# the changelog, the library's shlibs and ldconfig trigger. A native package (this project is
# its own upstream): its changelog is changelog.gz. lintian reports no errors on it (its
# warnings, and why each stays: README, Deploy).
# Usage: make-deb.sh STAGE VERSION OUTDIR
set -euo pipefail
STAGE=$1 VERSION=$2 OUT=$3
ARCH=$(dpkg --print-architecture)
REPO=$(cd "$(dirname "$0")/../.." && pwd)
MAINTAINER="The Diptych authors <dev@diptych.invalid>"
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
# The copyright file (machine-readable, DEP-5: LICENSE is the MIT licence Debian calls Expat)
# and the changelog, dated by the last commit (or SOURCE_DATE_EPOCH) so that a rebuild of the
# same commit makes the same files.
DOC="$STAGE/usr/share/doc/diptych"
mkdir -p "$DOC"
{
  printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n'
  printf 'Upstream-Name: Diptych\nSource: https://github.com/diptych/diptych\n\n'
  printf 'Files: *\nCopyright: %s\nLicense: Expat\n' "$(sed -n 's/^Copyright (c) //p' "$REPO/LICENSE")"
  # The licence's text after its copyright line, each line indented, blank ones as " .".
  sed -n '/^Copyright/,$p' "$REPO/LICENSE" | tail -n +2 | sed -e '1{/^$/d}' -e 's/^$/./' -e 's/^/ /'
} > "$DOC/copyright"
EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || date +%s)}
COMMIT=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
cat > "$DOC/changelog" <<CHANGELOG
diptych ($VERSION) unstable; urgency=medium

  * Built by make deb from commit $COMMIT; the changes are the project's history
    (git log) and its README.

 -- $MAINTAINER  $(LC_ALL=C date -u -R -d "@$EPOCH")
CHANGELOG
gzip -9nf "$DOC/changelog"
chmod 0644 "$DOC/copyright" "$DOC/changelog.gz"
mkdir -p "$STAGE/DEBIAN"
cat > "$STAGE/DEBIAN/control" <<CONTROL
Package: diptych
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Section: x11
Priority: optional
Depends: $depends
Recommends: $recommends
Installed-Size: $(du -sk "$STAGE/usr" | cut -f1)
Homepage: https://github.com/diptych/diptych
Description: iPad-style two-app multitasking compositor for Linux kiosks
 Full screen, Slide Over and Split View with a draggable divider for two apps
 on one panel, on DRM/KMS with libinput, pen and touch; web pages as apps in
 WPE WebKit; libdiptych-client for apps in C, the diptych Python module, the
 kiosk systemd unit, its PAM service and configuration, the guides.
CONTROL
# The library: its shlibs (a program linked with it depends on this package) and ldconfig run
# by dpkg's trigger once the package's files are in place.
SONAME=$(basename "$(readlink "$STAGE/usr/lib/libdiptych-client.so")")
echo "libdiptych-client ${SONAME##*.so.} diptych (>= $VERSION)" > "$STAGE/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$STAGE/DEBIAN/triggers"
printf '/etc/pam.d/diptych\n/etc/diptych/kiosk.conf\n' > "$STAGE/DEBIAN/conffiles"
cat > "$STAGE/DEBIAN/postinst" <<'POSTINST'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  command -v systemd-sysusers >/dev/null && systemd-sysusers diptych.conf || true
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
