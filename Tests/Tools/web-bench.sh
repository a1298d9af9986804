#!/usr/bin/env bash
# Web apps' costs (release build; real WPE WebKit with Mesa's software rasteriser): launch to the
# first frame on screen, a CSS animation's frames/s and CPU in a regular and a compact pane, an
# idle page's CPU, memory per web pane (PSS of the client and its WebKit processes), the copy
# into the compositor's buffer against a web frame's time, and the compositor's own frame time
# with a web pane animating against a native app animating. SECONDS_EACH per live measurement.
#
#   bash Tests/Tools/web-bench.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${SECONDS_EACH:-5}
for p in diptych diptych-demo; do swift build -c release --product "$p" >/dev/null; done
make --no-print-directory web CONFIG=release >/dev/null
R=$(swift build -c release --show-bin-path)
[ -x "$R/diptych-web" ] || { echo "diptych-web is not built (WPE WebKit missing)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT

echo "== launch to first frame (render, warm: median of 5)"
for i in 1 2 3 4 5; do
  DIPTYCH_LOG_LEVEL=debug "$R/diptych" render --device ipad --arrangement split-2/3 --primary web:Assets/web/markets.html \
    --secondary 'pattern:#993366' --out "$tmp/r.png" 2>&1 | grep -o 'apps.ms=[0-9.]*' | cut -d= -f2
done | sort -n | sed -n 3p | awk '{ printf "web app launched, loaded and on screen: %s ms\n", $1 }'

# The processes of a web client: the client and its children (WPEWebProcess, WPENetworkProcess).
tree() { echo "$1"; cat "/proc/$1/task/$1/children" 2>/dev/null | tr ' ' '\n' | grep . || true; }
ticks() { local t=0; for p in "$@"; do t=$((t + $(awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo $t; }
pss() { local k=0; for p in "$@"; do k=$((k + $(awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null || echo 0))); done; echo $((k / 1024)); }

# live ROLE APP: runs the compositor with APP as ROLE beside a pattern, measures SECONDS_EACH s.
live() {
  local role=$1 app=$2 label=$3
  local out="$tmp/$label"
  mkdir -p "$out"
  local other='pattern:#993366'
  local args=(--primary "$app" --secondary "$other")
  [ "$role" = secondary ] && args=(--primary "$other" --secondary "$app")
  DIPTYCH_WEB_LOG_FRAMES=1 DIPTYCH_SOCKET="$out/sock" "$R/diptych" run --backend headless --device ipad --arrangement split-2/3 \
    "${args[@]}" --out "$out" 2>/dev/null &
  local comp=$!
  sleep 3
  local client
  client=$(cat "/proc/$comp/task/$comp/children" | tr ' ' '\n' | while read -r c; do
    [ -n "$c" ] && grep -q diptych-web "/proc/$c/comm" 2>/dev/null && echo "$c"; done | head -1) || true
  local log="$out/events-$role.jsonl"
  local f0 t0 c0
  f0=$(grep -c webFrame "$log" 2>/dev/null) || f0=0
  if [ -n "$client" ]; then mapfile -t procs < <(tree "$client"); else procs=(); fi
  t0=$(ticks "${procs[@]}"); c0=$(ticks "$comp")
  sleep "$SECONDS_EACH"
  local f1 t1 c1 mem
  f1=$(grep -c webFrame "$log" 2>/dev/null) || f1=0
  t1=$(ticks "${procs[@]}"); c1=$(ticks "$comp")
  mem=$(pss "${procs[@]}")
  kill -TERM "$comp"; wait "$comp" 2>/dev/null || true
  awk -v f=$((f1 - f0)) -v t=$((t1 - t0)) -v c=$((c1 - c0)) -v s="$SECONDS_EACH" -v m="$mem" -v l="$label" \
    'BEGIN { printf "%-28s %6.1f frames/s  web CPU %5.0f%%  compositor CPU %4.0f%%  web PSS %4d MiB\n", l, f / s, t / s, c / s, m }'
  # The copy into the compositor's buffer against the time between frames (medians).
  grep webFrame "$log" | tail -n +5 | sed 's/.*"copyMs":\([0-9.]*\),"at":\([0-9.]*\).*/\1 \2/' > "$out/copies"  || true
  if [ "$(wc -l < "$out/copies")" -ge 3 ]; then
    local copy gap
    copy=$(cut -d' ' -f1 "$out/copies" | sort -g | awk '{ v[NR] = $1 } END { print v[int(NR/2)+1] }')
    gap=$(cut -d' ' -f2 "$out/copies" | awk 'NR > 1 { print $1 - p } { p = $1 }' | sort -g | awk '{ v[NR] = $1 } END { print v[int(NR/2)+1] }')
    awk -v c="$copy" -v g="$gap" 'BEGIN { printf "%-28s copy p50 %.2f ms, frame interval p50 %.1f ms: the copy is %.1f %% of a frame\n", "", c, g, 100 * c / g }'
  fi
  cp "$out/frames.json" "$tmp/$label.frames.json" 2>/dev/null || true
}

echo "== live (ipad, split-2/3, ${SECONDS_EACH} s each)"
live primary web:Assets/web/spinner.html "animation, regular pane"
live secondary web:Assets/web/spinner.html "animation, compact pane"
live primary web:Assets/web/markets.html "idle page"
live primary "pattern:#2288CC --animate" "native app animating"

# The compositor's own frame time (frames.json, total_ms p50) with each in the regular pane.
p50() { tr '{' '\n' < "$1" | grep -o '"total_ms":[0-9.e-]*' | cut -d: -f2 | sort -g | awk '{ v[NR] = $1 } END { print v[int(NR/2)+1] }'; }
w=$(p50 "$tmp/animation, regular pane.frames.json"); n=$(p50 "$tmp/native app animating.frames.json")
awk -v w="$w" -v n="$n" 'BEGIN { printf "compositor frame total p50: web animating %.3f ms, native animating %.3f ms: %.2f x\n", w, n, w / n }'
