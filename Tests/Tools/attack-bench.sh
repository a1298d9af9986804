#!/usr/bin/env bash
# The good app's frame rate while a hostile local app attacks (release build): a headless
# compositor in Split View with an animating primary (a new frame after every frameDone), then
# each attack from Tests/Misbehave as the secondary, SECONDS_EACH seconds each, and the rate in
# the seconds after it stops. Prints one line per attack: frames/s before, during and after.
#
#   bash Tests/Tools/attack-bench.sh     # SECONDS_EACH=4, CONFIG=release by default
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${SECONDS_EACH:-4}
CONFIG=${CONFIG:-release}   # CONFIG=debug: the build the tests run
for p in diptych diptych-demo diptych-misbehave; do swift build -c "$CONFIG" --product "$p" >/dev/null; done
BIN=$(swift build -c "$CONFIG" --show-bin-path)
dir=$(mktemp -d)
export DIPTYCH_SOCKET="$dir/sock" DIPTYCH_SOCKET_FD=
printf '[kiosk]\nrelaunch = never\n' >"$dir/kiosk.conf"  # (SIGUSR1 reads it again)
"$BIN/diptych" run --config "$dir/kiosk.conf" --backend headless --device ipad --arrangement split-2/3 \
    --primary 'pattern:#00AA00 --animate' --out "$dir" --vnc "unix:$dir/vnc" --vnc-insecure 2>"$dir/stderr" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT

frames() { grep -c '"frameDone"' "$dir/events-primary.jsonl" 2>/dev/null || echo 0; }
ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
rate() {  # the good app's frames/s over $1 seconds, and the compositor's CPU use then
    local a b t0 t1
    a=$(frames); t0=$(ticks); sleep "$1"; b=$(frames); t1=$(ticks)
    awk -v a="$a" -v b="$b" -v t="$((t1 - t0))" -v s="$1" 'BEGIN { printf "%.1f %.0f%%", (b - a) / s, t / s }'
}
# The attacker started (its pid in $attacker) is measured, then stopped; one line printed.
measure() {
    sleep 0.5
    read -r during cpu <<<"$(rate "$SECONDS_EACH")"
    kill -0 "$attacker" 2>/dev/null || echo "($1 ended early)" >&2
    kill "$attacker" 2>/dev/null || true
    wait "$attacker" 2>/dev/null || true
    sleep 2
    read -r after _ <<<"$(rate 3)"
    printf '%-14s %8s %8s %8s %12s\n' "$1" "$before" "$during" "$after" "$cpu"
}
for _ in $(seq 100); do [ "$(frames)" -gt 30 ] && break; sleep 0.1; done

printf '%-14s %8s %8s %8s %12s\n' attack before during after 'cpu during'
# (connect-flood+hello: each connection says hello before it closes.)
for attack in damage-flood message-flood sync-flood churn connect-flood connect-flood+hello icon-churn; do
    read -r before _ <<<"$(rate 2)"
    hello=(); [ "$attack" = connect-flood+hello ] && hello=(DIPTYCH_FLOOD_HELLO=1)
    env DIPTYCH_FLOOD_COUNT=100000000 DIPTYCH_CHURN_COUNT=100000000 "${hello[@]}" \
        "$BIN/diptych-misbehave" "${attack%+hello}" 'pattern:#AA0000' 2>/dev/null &
    attacker=$!
    measure "$attack"
done
# Round five: presentations, and what a local process does to the control socket and the loop.
# (Each runs SECONDS_EACH seconds; the shell loops end with their attack.)
# And VNC (a plain view-only server on a Unix socket): four viewers that ask for one update and
# never read again, two that read every update, connections opened and closed as fast as can be.
for attack in presentation-flood long-alert alert-flash ctl-flood screenshots sigusr1 vnc-stalled vnc-watched vnc-connect-flood; do
    read -r before _ <<<"$(rate 2)"
    case $attack in
        ctl-flood)
            S=$SECONDS_EACH P="$dir/sock.ctl" python3 -c 'import os, socket, time
end = time.monotonic() + float(os.environ["S"]) + 1
while time.monotonic() < end:
    s = socket.socket(socket.AF_UNIX)
    try: s.connect(os.environ["P"])
    except OSError: pass
    s.close()' &
            ;;
        screenshots)
            (end=$((SECONDS + SECONDS_EACH + 1)); while [ $SECONDS -lt $end ]; do "$BIN/diptych" ctl --socket "$dir/sock.ctl" screenshot "$dir/shot.png" >/dev/null 2>&1; done) &
            ;;
        sigusr1)
            (end=$((SECONDS + SECONDS_EACH + 1)); while [ $SECONDS -lt $end ]; do kill -USR1 $pid; done) &
            ;;
        vnc-stalled|vnc-watched)
            n=4; how=(); [ $attack = vnc-watched ] && n=2 how=(--count)
            (for _ in $(seq $n); do python3 Tests/Tools/vnc-client.py "$dir/vnc" "${how[@]}" --hold $((SECONDS_EACH + 1)) >/dev/null & done; wait) &
            ;;
        vnc-connect-flood)
            S=$SECONDS_EACH P="$dir/vnc" python3 -c 'import os, socket, time
end = time.monotonic() + float(os.environ["S"]) + 1
while time.monotonic() < end:
    s = socket.socket(socket.AF_UNIX)
    try: s.connect(os.environ["P"]); s.recv(12)
    except OSError: pass
    s.close()' &
            ;;
        *)
            env DIPTYCH_FLOOD_COUNT=100000000 DIPTYCH_FLOOD_AT_ONCE=1 "$BIN/diptych-misbehave" "$attack" 'pattern:#AA0000' 2>/dev/null &
            ;;
    esac
    attacker=$!
    measure "$attack"
done
kill -0 $pid || { echo "the compositor died: $(tail -5 "$dir/stderr")" >&2; exit 1; }
