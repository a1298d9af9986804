#!/usr/bin/env bash
# The compositor's resident memory on a live `diptych run` (release build, headless, ipad-pro: a
# pattern animating beside notes) at idle, right after transients asked for by `diptych ctl` (a
# turn of the output and back, the orientation and back, Slide Over then a half split, two
# screenshots) and 5 s later. What a transient makes should be given back by then.
#
#   bash Tests/Tools/memory-after-transients.sh [BIN_DIR (default: the release build's)]
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-}
if [ -z "$B" ]; then
  for p in diptych diptych-demo; do swift build -c release --product "$p" >/dev/null; done
  B=$(swift build -c release --show-bin-path)
fi
d=$(mktemp -d)
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$d"' EXIT
DIPTYCH_SOCKET=$d/sock "$B/diptych" run --backend headless --device ipad-pro --primary 'pattern:#336699 --animate' --secondary notes 2>/dev/null &
pid=$!
for _ in $(seq 1 100); do [ -S "$d/sock.ctl" ] && break; sleep 0.1; done
sleep 3
rss() { awk '/VmRSS/ {print $2}' "/proc/$pid/status"; }
ctl() { "$B/diptych" ctl --socket "$d/sock.ctl" "$@" >/dev/null; }
idle=$(rss)
ctl rotate 270; sleep 1; ctl rotate 0; sleep 1
ctl orientation portrait; sleep 1; ctl orientation landscape; sleep 1
ctl arrangement slide-over; sleep 1; ctl arrangement split-1/2; sleep 1
ctl screenshot "$d/a.png"; sleep 0.6; ctl screenshot "$d/b.png"
after=$(rss)
sleep 5
later=$(rss)
echo "idle $idle kB, right after $after kB, 5 s after $later kB ($((later - idle)) kB kept)"
