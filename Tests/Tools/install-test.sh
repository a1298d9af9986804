#!/usr/bin/env bash
# make deb, which stages `make install DESTDIR=.build-deb/root PREFIX=/usr`; that tree used as
# a device would: the programs need nothing of the Swift toolchain, `diptych render` draws two
# apps from the installed tree, the manual pages and the kiosk unit are there, and the C example
# builds against the installed library. Then the package itself, and what it says of itself
# (SPEC §21): lintian finds no error in it, its manual pages render with their sections,
# systemd accepts its units, and its example scenario taps a field and types.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(mktemp -d /tmp/diptych-install-XXXXXX)
trap 'rm -rf "$ROOT"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }
make --no-print-directory deb OUT="$ROOT/out" > "$ROOT/deb.log" 2>&1 || { tail -30 "$ROOT/deb.log" >&2; fail "make deb (make install into its staging root) failed"; }
INSTALLED="$PWD/.build-deb/root"
for f in usr/bin/diptych usr/bin/diptych-demo usr/bin/diptych-hello usr/lib/libdiptych-client.so.1 usr/include/diptych-client.h usr/include/diptych-protocol.h \
         usr/lib/python3/dist-packages/diptych/__init__.py usr/share/doc/diptych/examples/hello.py usr/lib/pkgconfig/diptych-client.pc usr/share/man/man1/diptych.1.gz \
         usr/share/man/man5/kiosk.conf.5.gz usr/lib/systemd/system/diptych-kiosk.service etc/pam.d/diptych etc/diptych/kiosk.conf; do
  [ -e "$INSTALLED/$f" ] || fail "$f was not installed"
done
for b in diptych diptych-demo diptych-hello; do
  if grep -qi swift <<< "$(ldd "$INSTALLED/usr/bin/$b")"; then fail "$b needs the Swift runtime: $(ldd "$INSTALLED/usr/bin/$b" | grep -i swift | head -3)"; fi
done
grep -q "ExecStart=/usr/bin/diptych " "$INSTALLED/usr/lib/systemd/system/diptych-kiosk.service" || fail "the unit does not run /usr/bin/diptych"
grep -q "render" <<< "$(zcat "$INSTALLED/usr/share/man/man1/diptych.1.gz")" || fail "the manual page does not describe render"
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
for dep in libseat1 libinput10 libdrm2 libpixman-1-0 libxkbcommon0 libneatvnc0 fonts-inter; do
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

# lintian: no error (E:); each warning it gives is one the README's Deploy section lists with
# why it stays.
command -v lintian > /dev/null || fail "lintian is not installed (make deps installs it)"
LINTIAN=$(lintian "$DEB" 2>&1 | grep -v "^running with root privileges") || true
if grep -q "^E: " <<< "$LINTIAN"; then fail "lintian reports errors on the package:
$(grep "^E: " <<< "$LINTIAN")"; fi
README_DEPLOY=$(sed -n '/^## Deploy/,/^## [^D]/p' README.md)
for tag in $(sed -n 's/^W: [^ ]* \([a-z0-9-]*\).*/\1/p' <<< "$LINTIAN" | sort -u); do
  grep -q -- "$tag" <<< "$README_DEPLOY" || fail "lintian warns $tag, which the README's Deploy section does not list: $(grep -- " $tag" <<< "$LINTIAN")"
done
# The documentation: the README, the guides, the example scenario with its pages, the copyright
# file and the changelog.
DOC="$ROOT/deb/usr/share/doc/diptych"
for f in README.md copyright changelog.gz guides/Deploying.md guides/CommandLine.md guides/Scenarios.md guides/WebApps.md guides/WritingAnApp.md \
         guides/Events.md examples/hello.c examples/sign-in.json examples/visitor-sign-in.html examples/visitor-welcome.html; do
  [ -f "$DOC/$f" ] || fail "the package has no /usr/share/doc/diptych/$f"
done
grep -q "^License: Expat" "$DOC/copyright" || fail "the copyright file names no licence"
# The manual pages, as man renders them (no warning from groff), with their sections.
command -v man > /dev/null || fail "man is not installed (make deps installs man-db)"
page() {  # page FILE SECTION...: FILE renders and has each SECTION
  local file=$1 text; shift
  [ -f "$ROOT/deb/usr/share/man/$file.gz" ] || fail "the package has no manual page $file.gz"
  text=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$ROOT/deb/usr/share/man/$file.gz" 2> "$ROOT/man.err") || fail "man -l $file failed: $(cat "$ROOT/man.err")"
  [ -s "$ROOT/man.err" ] && fail "man -l $file warns: $(cat "$ROOT/man.err")"
  for s in "$@"; do grep -q "^$s$" <<< "$text" || fail "the manual page $file has no $s section"; done
  printf '%s\n' "$text" > "$ROOT/$(basename "$file").txt"
}
page man1/diptych.1 NAME SYNOPSIS DESCRIPTION ENVIRONMENT FILES "EXIT STATUS" EXAMPLES "SEE ALSO"
page man5/kiosk.conf.5 NAME SYNOPSIS DESCRIPTION KEYS FILES EXAMPLES "SEE ALSO"
page man1/diptych-hello.1 NAME SYNOPSIS DESCRIPTION EXAMPLES FILES "SEE ALSO"
page man1/diptych-demo.1 NAME SYNOPSIS DESCRIPTION
[ -x "$ROOT/deb/usr/bin/diptych-web" ] && page man1/diptych-web.1 NAME SYNOPSIS DESCRIPTION OPTIONS ENVIRONMENT "EXIT STATUS" FILES EXAMPLES "SEE ALSO"
# Every key the shipped kiosk.conf names (set or commented out) has its entry in kiosk.conf(5).
for key in $(sed -n 's/^[#;]* *\([a-z][a-z-]*\) = .*/\1/p' "$ROOT/deb/etc/diptych/kiosk.conf"); do
  grep -q "^       $key\( \|$\)" "$ROOT/kiosk.conf.5.txt" || fail "kiosk.conf(5) has no entry for the key $key"
done
# Every enumerated option of diptych (argument-parser's values) lists its values in the page.
"$ROOT/deb/usr/bin/diptych" --experimental-dump-help > "$ROOT/help.json" || fail "diptych --experimental-dump-help failed"
zcat "$ROOT/deb/usr/share/man/man1/diptych.1.gz" > "$ROOT/diptych.1"
python3 - "$ROOT/help.json" "$ROOT/diptych.1" <<'PY' || fail "diptych(1) does not list the values of every enumerated option"
import json, re, sys
page = open(sys.argv[2]).read()
missing = []
def walk(command):
    for a in command.get("arguments") or []:
        values = a.get("allValueStrings") or a.get("allValues") or []
        name = a.get("preferredName", {}).get("name")
        if not values or a.get("kind") != "option" or not name:
            continue
        # Each paragraph of the page about this option: from its .It to the next .It or .El.
        for para in re.findall(r"^\.It Fl -" + re.escape(name) + r"(?=\s).*?\n(.*?)(?=^\.(?:It|El)\b)", page, re.S | re.M):
            lost = [v for v in values if not re.search(r"(?<![\w/-])" + re.escape(v) + r"(?![\w/-])", para)]
            if lost: missing.append("--%s (in a paragraph of its): %s" % (name, ", ".join(lost)))
    for sub in command.get("subcommands") or []:
        walk(sub)
walk(json.load(open(sys.argv[1]))["command"])
for m in sorted(set(missing)): print("install-test: diptych(1) does not name " + m, file=sys.stderr)
sys.exit(1 if missing else 0)
PY
# The units, as systemd reads them in the unpacked tree (beside the system's own units, which
# they name: graphical.target, getty@tty7.service): no error, no warning.
command -v systemd-analyze > /dev/null || fail "systemd-analyze is not installed (make deps installs systemd)"
cp -al "$ROOT/deb" "$ROOT/verify"
for d in /lib/systemd/system /usr/lib/systemd/system; do
  if [ -d "$d" ]; then cp -rn "$d/." "$ROOT/verify/usr/lib/systemd/system/" || true; fi   # (the package's own kept)
done
for unit in "$ROOT"/deb/usr/lib/systemd/system/*; do
  VERIFY=$(systemd-analyze verify --root="$ROOT/verify" --man=no "$(basename "$unit")" 2>&1) || fail "systemd-analyze verify $(basename "$unit"): $VERIFY"
  [ -z "$VERIFY" ] || fail "systemd-analyze verify $(basename "$unit") warns: $VERIFY"
done
# The example scenario from the package (its pages where it unpacked): a field tapped, three
# typed with the keyboard's next key, the form sent; the welcome page's title is what was typed.
if [ -x "$ROOT/deb/usr/bin/diptych-web" ]; then
  sed "s|web:/usr/share/doc/diptych/examples/|web:$DOC/examples/|" "$DOC/examples/sign-in.json" > "$ROOT/sign-in.json"
  grep -q "web:$DOC/examples/visitor-sign-in.html" "$ROOT/sign-in.json" || fail "the example scenario does not name its page where the package puts it"
  (cd "$ROOT" && "$ROOT/deb/usr/bin/diptych" run --backend headless --scenario "$ROOT/sign-in.json" --out "$ROOT/sign-in" > "$ROOT/sign-in.log" 2>&1) \
    || { tail -20 "$ROOT/sign-in.log" >&2; fail "the example scenario failed from the package"; }
  grep -q '"title":"name=Ada Lovelace|company=Analytical Engines|email=ada@example.com"' "$ROOT/sign-in/events-primary.jsonl" \
    || fail "the example scenario did not sign in with what it typed: $(grep -o '"pageTitle"[^}]*' "$ROOT/sign-in/events-primary.jsonl" | tail -3)"
fi
echo "install-test: make install works (programs without the Swift runtime, render, manual pages, unit, C library, Python module) and make deb (dependencies declared, unpacked it renders; lintian without errors, man pages with their sections, units verified, the example scenario signs in)"
