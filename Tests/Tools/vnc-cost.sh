#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What VNC viewers cost the compositor: a full-screen animation (pattern --animate, 60 Hz,
# ipad) with 0, 1 and 2 viewers reading every update (ZRLE), then 2, 1, 0 again: the
# compositor's frame time (ctl stats: p50, p99 over the run) and, per viewer, the updates and
# bytes it received; a static screen with one viewer; a viewer that never reads, then none.
#
#   bash Tests/Tools/vnc-cost.sh [BIN]     # BIN: the folder of diptych (default: the release build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/.build/release}
SECONDS_EACH=${SECONDS_EACH:-10}
run() {  # viewers, app[, stalled: a viewer that asks once and never reads]
  local n=$1 app=$2 dir
  dir=$(mktemp -d /tmp/diptych-vnc-cost-XXXXXX)
  DIPTYCH_SOCKET=$dir/sock "$BIN/diptych" run --backend headless --device ipad --primary "$app" --arrangement full --status-bar off \
    --vnc "unix:$dir/vnc" --vnc-insecure --ctl-socket "$dir/ctl" > "$dir/log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do [ -S "$dir/vnc" ] && "$BIN/diptych" ctl --socket "$dir/ctl" status > /dev/null 2>&1 && break; sleep 0.1; done
  sleep 2
  local viewers=()
  for _ in $(seq "$n"); do
    if [ "${3:-}" = stalled ]; then
      python3 "$ROOT/Tests/Tools/vnc-client.py" "$dir/vnc" --hold "$SECONDS_EACH" > /dev/null &
    else
      python3 "$ROOT/Tests/Tools/vnc-client.py" "$dir/vnc" --count --hold "$SECONDS_EACH" > "$dir/viewer-${#viewers[@]}" &
    fi
    viewers+=($!)
  done
  [ "$n" -gt 0 ] && wait "${viewers[@]}" || sleep "$SECONDS_EACH"
  local stats
  stats=$("$BIN/diptych" ctl --socket "$dir/ctl" stats --json)
  kill "$pid"; wait "$pid" 2>/dev/null || true
  python3 - "$n" "$app" "$stats" "$dir" "${3:-}" <<'PY'
import json, sys, glob
n, app, stats, d, how = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
f = stats["frame_ms"]
got = []
for v in sorted(glob.glob(d + "/viewer-*")):
    w = open(v).read().split()
    if "updates" in w:
        u, b, s = int(w[w.index("updates") + 1]), int(w[w.index("bytes") + 1]), float(w[w.index("seconds") + 1])
        got.append(f"{u / s:.1f} updates/s, {b / max(1, u) / 1024:.0f} KiB each")
print(f"| {app} | {n}{' stalled' if how else ''} | {f['p50']:.2f} | {f['p99']:.2f} | {stats['frames']} | {'; '.join(got) or '-'} |")
PY
  rm -rf "$dir"
}
echo "| app | viewers | frame p50 ms | frame p99 ms | frames | each viewer received |"
echo "|---|---|---|---|---|---|"
for n in 0 1 2 2 1 0; do run "$n" "pattern:#336699 --animate"; done
run 1 "pattern:#336699"
# A viewer that asks once and never reads again (RFB is pull-based: it is sent nothing more).
run 1 "pattern:#336699 --animate" stalled
run 0 "pattern:#336699 --animate"
