#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What VNC viewers cost the compositor: a full-screen animation (pattern --animate, 60 Hz,
# ipad) with 0, 1 and 2 viewers reading every update (ZRLE), then 2, 1, 0 again: the
# compositor's frame time (ctl stats: p50, p99 over the run) and, per viewer, the updates it
# received, their bytes after the first picture and the time from a frame to its update (p50,
# p95); a static screen with one viewer; a viewer that never reads, then none; an operator
# dragging the divider between notes and markets over VNC (TLS, vnc-input) while a viewer
# watches.
#
#   bash Tests/Tools/vnc-cost.sh [BIN]     # BIN: the folder of diptych (default: the release build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${1:-$ROOT/.build/release}
SECONDS_EACH=${SECONDS_EACH:-10}
run() {  # viewers, app[, stalled: a viewer that asks once and never reads; drag: the divider dragged]
  local n=$1 app=$2 dir
  dir=$(mktemp -d /tmp/diptych-vnc-cost-XXXXXX)
  local vnc=(--vnc-insecure) login=() arrangement=full
  if [ "${3:-}" = drag ]; then
    (cd "$dir" && openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem -days 2 -subj /CN=localhost 2>/dev/null \
      && printf 'op:%s\n' "$(openssl passwd -6 pw)" > users && chmod 600 users)
    vnc=(--vnc-tls-cert "$dir/cert.pem" --vnc-tls-key "$dir/key.pem" --vnc-users "$dir/users" --vnc-input)
    login=(--ca "$dir/cert.pem" --user op --password pw)
    arrangement=split-1/2
  fi
  DIPTYCH_SOCKET=$dir/sock "$BIN/diptych" run --backend headless --device ipad --primary "$app" --secondary markets --arrangement $arrangement --status-bar off \
    --vnc "unix:$dir/vnc" "${vnc[@]}" --ctl-socket "$dir/ctl" > "$dir/log" 2>&1 &
  local pid=$!
  for _ in $(seq 100); do [ -S "$dir/vnc" ] && "$BIN/diptych" ctl --socket "$dir/ctl" status > /dev/null 2>&1 && break; sleep 0.1; done
  sleep 2
  local viewers=()
  for _ in $(seq "$n"); do
    if [ "${3:-}" = stalled ]; then
      python3 "$ROOT/Tests/Tools/vnc-client.py" "$dir/vnc" --hold "$SECONDS_EACH" > /dev/null &
    else
      python3 "$ROOT/Tests/Tools/vnc-client.py" "$dir/vnc" "${login[@]}" --latency --hold "$SECONDS_EACH" > "$dir/viewer-${#viewers[@]}" &
    fi
    viewers+=($!)
  done
  if [ "${3:-}" = drag ]; then
    # The divider of split-1/2 (panel pixel 1024 of 2048), dragged to 1500 and back.
    sleep 1
    python3 "$ROOT/Tests/Tools/vnc-client.py" "$dir/vnc" "${login[@]}" --drag 1024,768,1500,768 --hold $((SECONDS_EACH - 2)) > /dev/null &
  fi
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
        u, s = int(w[w.index("updates") + 1]), float(w[w.index("seconds") + 1])
        sizes = [int(x) for x in w[w.index("sizes") + 1:]] if "sizes" in w else []
        rest = sorted(sizes[1:])
        after = f"first {sizes[0] / 1024:.0f} KiB, then {sum(rest) / max(1, len(rest)) / 1024:.1f} KiB mean, {rest[len(rest) // 2] / 1024 if rest else 0:.1f} KiB median" if sizes else "-"
        late = f"{w[w.index('p50') + 1]}/{w[w.index('p95') + 1]} ms" if "p50" in w else "-"
        got.append(f"{u / s:.1f} updates/s, {after}, frame to update {late}")
what = {"stalled": " stalled", "drag": " (divider dragged)"}.get(how, "")
print(f"| {app} | {n}{what} | {f['p50']:.2f} | {f['p99']:.2f} | {stats['frames']} | {'; '.join(got) or '-'} |")
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
run 1 notes drag
