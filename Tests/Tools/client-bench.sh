#!/bin/bash
# SPDX-License-Identifier: MIT
# Whether the examples keep up with frameDone: the C example full screen on the iPad Pro
# (2732x2048) at 120 Hz with its heap allocations counted, and the Python example in a compact
# Split View pane at 60 Hz, each under a pen moving twice a refresh (so every refresh has a new
# dot to show). Built as a developer would: the library installed into a scratch root, the C
# example compiled against it with pkg-config, the Python module installed with pip.
#   bash Tests/Tools/client-bench.sh            (BENCH_SECONDS=5 by default)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${BENCH_SECONDS:-5}
swift build -c release --product diptych >/dev/null
swift build -c release --product diptych-demo >/dev/null
bin=$(swift build -c release --show-bin-path)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

make --no-print-directory install-lib PREFIX=/usr DESTDIR="$scratch/root" >/dev/null
export PKG_CONFIG_PATH="$scratch/root/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$scratch/root" LD_LIBRARY_PATH="$scratch/root/usr/lib"
cc -O2 Assets/examples/hello.c $(pkg-config --cflags --libs diptych-client) -o "$scratch/hello"
cc -shared -fPIC -O2 -o "$scratch/malloc-count.so" Tests/Tools/malloc-count.c
: > "$scratch/allocations"
export PIP_ROOT_USER_ACTION=ignore
python3 -m pip install -q --no-build-isolation --target "$scratch/py" ./Sources/diptych-python 2>/dev/null \
  || python3 -m pip install -q --target "$scratch/py" ./Sources/diptych-python

# The report is the JSON line (the apps log their lifecycle to the same output).
cat > "$scratch/report.py" <<'PY'
import json, sys
line = [l for l in sys.stdin if l.startswith("{")][-1]
r = json.loads(line)
i = r["interval"]
text = "%dx%d at %g Hz: %d new frames of the app in %d refreshes (%.1f %%), between frames p50 %g ms p99 %g ms max %g ms" % (
    r["pane"]["width"], r["pane"]["height"], r["refresh_hz"], r["app_frames"], r["refreshes"], 100 * r["kept_up"],
    i["p50_ms"], i["p99_ms"], i["max_ms"])
if r["allocations_per_frame"] is not None:
    text += ", heap allocations per frame %g" % r["allocations_per_frame"]
print(text)
PY
report() { python3 "$scratch/report.py"; }

echo -n "C example, full screen: "
"$bin/diptych" profile --workload client --refresh 120 --seconds "$seconds" --json --allocation-counter "$scratch/allocations" \
  --app "env LD_PRELOAD=$scratch/malloc-count.so MALLOC_COUNT_FILE=$scratch/allocations $scratch/hello" 2>/dev/null | report
echo -n "Python example, compact: "
"$bin/diptych" profile --workload client --compact --refresh 60 --seconds "$seconds" --json \
  --app "env PYTHONPATH=$scratch/py python3 $PWD/Assets/examples/hello.py" 2>/dev/null | report
