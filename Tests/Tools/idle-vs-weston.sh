#!/usr/bin/env bash
# The compositor's memory at idle beside Weston's, on the same screen: each headless at
# 1920×1080 with pixman and two clients (Diptych: two pattern apps in a split; Weston 10 with its
# kiosk shell: two weston-simple-shm), after 5 s. Figures: each compositor process's PSS (its
# share of the clients' buffers included) and RSS, from /proc/PID/smaps_rollup.
#
#   bash Tests/Tools/idle-vs-weston.sh [BIN_DIR (default: the release build's)]   (needs weston)
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v weston >/dev/null || { echo "weston is not installed (apt-get install weston)" >&2; exit 1; }
B=${1:-}
if [ -z "$B" ]; then
  for p in diptych diptych-demo; do swift build -c release --product "$p" >/dev/null; done
  B=$(swift build -c release --show-bin-path)
fi
d=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$d"' EXIT
figure() { awk '/^Rss:/ {r=$2} /^Pss:/ {p=$2} END {printf "PSS %.1f MB, RSS %.1f MB", p/1024, r/1024}' "/proc/$1/smaps_rollup"; }

DIPTYCH_SOCKET=$d/sock "$B/diptych" run --backend headless --device 1920x1080@1 --status-bar off \
  --primary 'pattern:#336699' --secondary 'pattern:#993366' 2>/dev/null &
dp=$!; pids+=($dp)
sleep 5
echo "diptych: $(figure $dp)"
kill $dp; wait $dp 2>/dev/null || true

mkdir -m 0700 "$d/run"
XDG_RUNTIME_DIR=$d/run weston --backend=headless-backend.so --use-pixman --width=1920 --height=1080 \
  --shell=kiosk-shell.so --socket=w0 --idle-time=0 2>/dev/null &
wp=$!; pids+=($wp)
for _ in $(seq 1 50); do [ -S "$d/run/w0" ] && break; sleep 0.1; done
XDG_RUNTIME_DIR=$d/run WAYLAND_DISPLAY=w0 weston-simple-shm >/dev/null 2>&1 & pids+=($!)
XDG_RUNTIME_DIR=$d/run WAYLAND_DISPLAY=w0 weston-simple-shm >/dev/null 2>&1 & pids+=($!)
sleep 5
echo "weston: $(figure $wp)"
