#!/usr/bin/env bash
# The kiosk's endurance (release build; real WPE WebKit): a live headless kiosk with a web page
# (Assets/web/markets.html, live ticking prices) as the primary and the native notes app as the
# secondary, driven for DURATION seconds by a loop of what an operator and its users do to it:
# a turn about every 3 s changing the arrangement (Split View ⅔ ↔ ½, Slide Over in and out, full
# screen: the same settles a divider drag or a Slide Over swipe ends in), the secondary restarted
# every 20 turns (about a minute) and the primary every 60, the screen blanked and woken every 10,
# and ctl status, stats and a screenshot every other turn. Every fourth turn it samples the compositor's resident memory, open
# descriptors and threads, and each pane's process-tree PSS (ctl status); at the end it prints
# the first sample, the one after the two minutes' warm-up, the last, and the slope per hour of
# each after the warm-up (least squares), and the relaunches.
#
#   bash Tests/Tools/soak.sh [DURATION_SECONDS (default 600)] [OUT_DIR (default out/soak)]
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${1:-600}
OUT=${2:-out/soak}
for p in diptych diptych-demo; do swift build -c release --product "$p" >/dev/null; done
make --no-print-directory web CONFIG=release >/dev/null
R=$(swift build -c release --show-bin-path)
[ -x "$R/diptych-web" ] || { echo "diptych-web is not built (WPE WebKit missing)" >&2; exit 1; }
rm -rf "$OUT" && mkdir -p "$OUT"
run=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$run"' EXIT
XDG_RUNTIME_DIR=$run "$R/diptych" run --backend headless --device ipad --refresh 60 --relaunch always \
  --primary web:Assets/web/markets.html --secondary notes > "$OUT/run.log" 2>&1 &
PID=$!
CTL="$run/diptych-0.ctl"
ctl() { "$R/diptych" ctl --socket "$CTL" "$@"; }
for _ in $(seq 1 200); do [ -S "$CTL" ] && break; sleep 0.1; done
sleep 5
sample() {
  local t=$1 status rss fds threads
  status=$(ctl status --json)
  rss=$(awk '/^VmRSS/ { print $2 * 1024 }' "/proc/$PID/status")
  threads=$(awk '/^Threads/ { print $2 }' "/proc/$PID/status")
  fds=$(ls "/proc/$PID/fd" | wc -l)
  python3 -c 'import json, sys
s = json.loads(sys.argv[1]); p = {x["role"]: x for x in s["panes"]}
print(json.dumps({"t": float(sys.argv[2]), "rss": int(sys.argv[3]), "fds": int(sys.argv[4]), "threads": int(sys.argv[5]),
                  "web_pss": p["primary"]["memory_bytes"], "native_pss": p["secondary"]["memory_bytes"],
                  "relaunches": s["relaunches"], "blanked": s["blanked"]}))' "$status" "$t" "$rss" "$fds" "$threads" >> "$OUT/samples.jsonl"
}
arrangements=(split-1/2 slide-over full split-2/3)
start=$(date +%s)
i=0
while :; do
  now=$(( $(date +%s) - start ))
  [ "$now" -ge "$DURATION" ] && break
  ctl arrangement "${arrangements[$((i % 4))]}" > /dev/null || true
  [ $((i % 20)) = 19 ] && ctl restart secondary > /dev/null
  [ $((i % 60)) = 59 ] && ctl restart primary > /dev/null
  [ $((i % 10)) = 4 ] && { ctl blank > /dev/null; sleep 1; ctl wake > /dev/null; }
  if [ $((i % 2)) = 0 ]; then ctl status > /dev/null; ctl stats --prometheus > /dev/null; ctl screenshot "$OUT/last.png" > /dev/null; fi
  [ $((i % 4)) = 0 ] && sample "$now"
  i=$((i + 1))
  sleep 2.5
done
sample "$(( $(date +%s) - start ))"
ctl stats --json > "$OUT/stats.json"
kill -TERM $PID; wait $PID || true
python3 - "$OUT/samples.jsonl" "$DURATION" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
# (The first two minutes are the warm-up: caches, the first screenshot's and cross-fade's
# buffers; the slope is taken after them.)
warm = [r for r in rows if r["t"] >= 120] or rows
def slope(key):
    xs = [r["t"] / 3600 for r in warm if r[key] is not None]; ys = [r[key] for r in warm if r[key] is not None]
    n = len(xs); mx = sum(xs) / n; my = sum(ys) / n
    d = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / d if d else 0.0
first, last = rows[0], rows[-1]
mb = lambda v: "-" if v is None else "%.1f MB" % (v / 1048576)
print(f"soak: {sys.argv[2]} s, {len(rows)} samples, {last['relaunches']} relaunches")
for key, fmt in [("rss", mb), ("fds", str), ("threads", str), ("web_pss", mb), ("native_pss", mb)]:
    s = slope(key)
    per = ("%+.1f MB/h" % (s / 1048576)) if fmt is mb else ("%+.1f/h" % s)
    print(f"  {key:10} start {fmt(first[key]):>10}  after 2 min {fmt(warm[0][key]):>10}  end {fmt(last[key]):>10}  slope after 2 min {per}")
PY
