#!/bin/bash
# SPDX-License-Identifier: MIT
# The cost of the web view's resize when the on-screen keyboard shows and hides: a form of 300
# fields (WebKit lays all of it out again at each resize), its first field tapped, then the
# keyboard set down; the web client says (DIPTYCH_WEB_DEBUG) how long after each resize the first
# frame at the new size came. Run N times (default 5); prints each resize's time and the medians.
#
#   bash Tests/Tools/resize-cost.sh [RUNS]      # after swift build and make web
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-$(swift build --show-bin-path)}
runs=${1:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
{
  echo '<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>long form</title>'
  echo '<style>body{margin:0;font:20px sans-serif}label{display:block;margin:12px 16px 4px}input{display:block;width:90%;height:40px;margin:0 16px;font:20px sans-serif}</style><form>'
  for i in $(seq 1 300); do echo "<label for=f$i>Field $i</label><input id=f$i name=f$i>"; done
  echo '<button>Send</button></form>'
} > "$dir/long-form.html"
cat > "$dir/s.json" <<JSON
{"device":"ipad","primary":"web:$dir/long-form.html","arrangement":"full",
 "steps":[{"at":0,"wait":true},{"at":100,"touch":{"id":1,"phase":"down","x":1024,"y":150}},{"at":140,"touch":{"id":1,"phase":"up","x":1024,"y":150}},
          {"at":800,"wait":true},{"at":900,"press":"dismiss"},{"at":900,"wait":true},{"at":1600,"wait":true}]}
JSON
shows=() hides=()
for r in $(seq 1 "$runs"); do
  mapfile -t t < <(DIPTYCH_WEB_DEBUG=1 "$B/diptych" run --backend headless --scenario "$dir/s.json" --out "$dir/out" 2>&1 |
    sed -n 's/.*the first frame of [0-9]*x\([0-9]*\), \([0-9.]*\) ms after its resize.*/\1 \2/p')
  for line in "${t[@]}"; do
    set -- $line
    if [ "$1" -lt 1400 ]; then shows+=("$2"); echo "run $r: keyboard shows: $2 ms"; else hides+=("$2"); echo "run $r: keyboard hides: $2 ms"; fi
  done
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "none"}'; }
echo "median: shows $(median "${shows[@]}") ms, hides $(median "${hides[@]}") ms (${#shows[@]} and ${#hides[@]} resizes)"
