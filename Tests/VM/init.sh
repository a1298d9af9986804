#!/bin/sh
# Guest /init for the Diptych VM test: real KMS (virtio-gpu) and real libinput on uinput
# devices. Results go to the 9p share mounted at /out; the host reads the screen back.
export PATH=/bin:/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /run /tmp /out /dev/pts
mount -t tmpfs run /run
mount -t tmpfs tmp /tmp
for m in $(cat /modules.order); do insmod /modules/$m.ko || echo "VM: insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /out || { echo "VM: cannot mount the 9p share"; poweroff -f; }
exec > /out/guest.log 2>&1
echo "VM: kernel $(uname -r)"
for i in $(seq 1 100); do [ -e /dev/dri/card0 ] && break; sleep 0.1; done
ls -l /dev/dri /dev/uinput || echo "VM: missing devices"
export HOME=/tmp XDG_RUNTIME_DIR=/tmp/runtime LIBINPUT_QUIRKS_DIR=/usr/share/libinput
# Waits for a condition, not a clock: up to $1 tenths of a second for the command after it to
# succeed (said in the log when it never does; the host's checks then fail on what follows).
until_ok() { n=$1; shift; while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done; echo "VM: waited in vain for: $*"; return 1; }
kms() { /bin/diptych-test-tools kms-state --card /dev/dri/card0 2>&1; }
# The CRTCs differ from those a file recorded (the compositor took them, or gave them up).
crtc_differs() { [ "$(kms)" != "$(cat "$1")" ]; }
connected() { [ "$(cat "$1")" = connected ]; }
disconnected() { ! connected "$1"; }
# The compositor's loop answers its control socket.
serving() { /bin/diptych ctl status --json > /dev/null 2>&1; }
blanked() { /bin/diptych ctl status --json 2>/dev/null | grep -q "\"blanked\":$1"; }
mkdir -p -m 0700 /tmp/runtime
# The test pen reports raw positions: no smoothing, as a scripted replay needs.
mkdir -p /etc/libinput
printf '[Diptych test pen]\nMatchUdevType=tablet\nAttrTabletSmoothing=0\n' > /etc/libinput/local-overrides.quirks
# The second output (virtio-gpu max_outputs=2) is disconnected without a UI: forced on, a real
# hotplug path.
second=/sys/class/drm/card0-Virtual-2/status
echo on > "$second" || echo "VM: cannot force $second on"
until_ok 50 connected "$second"
/bin/diptych-test-tools kms-state --card /dev/dri/card0 > /out/crtc-before.txt
for s in drag palm keys shortcut keys-de; do
  /bin/diptych-test-tools play /vm/$s.json --card /dev/dri/card0 --mode 1024x768 \
      --out /out/$s --input-via-uinput --capture-sync /out/sync/$s --round-trip-timeout-ms 30000 > /out/$s.stdout 2> /out/$s.stderr
  echo $? > /out/$s.rc
done
/bin/diptych-test-tools play /vm/screen2.json --card /dev/dri/card0 --mode 1024x768 \
    --out /out/screen2 --capture-sync /out/sync/screen2 --round-trip-timeout-ms 30000 > /out/screen2.stdout 2> /out/screen2.stderr
echo $? > /out/screen2.rc
# (The apps' round trips are waited for 30 s, not 5: under TCG an app drawing its first frames
# in Inter, its icon and its snapshots can take longer, and one not waited for again draws a
# frame the headless render does not.)
# The production command on the same card: the drag scenario's steps given directly.
/bin/diptych run --backend drm --card /dev/dri/card0 --mode 1024x768 --scenario /vm/drag.json \
    --out /out/drag-run > /out/drag-run.stdout 2> /out/drag-run.stderr
echo $? > /out/drag-run.rc
DIPTYCH_LOG_LEVEL=debug /bin/diptych run --backend drm --card /dev/dri/card0 --mode 1024x768 --device ipad --primary 'pattern:#336699' --status-bar off \
    > /out/sigterm.stdout 2> /out/sigterm.stderr &
pid=$!
until_ok 300 crtc_differs /out/crtc-before.txt
until_ok 100 serving
/bin/diptych-test-tools kms-state --card /dev/dri/card0 > /out/crtc-during.txt 2>&1
# Hotplug: force the connector off and on again (a real kernel hotplug uevent each time).
status=$(ls -d /sys/class/drm/card0-*/status | head -1)
echo "VM: hotplug through $status"
echo off > "$status"; sleep 2
cat "$status"
echo on > "$status"; sleep 3
/bin/diptych-test-tools kms-state --card /dev/dri/card0 > /out/crtc-replugged.txt 2>&1
# The second screen's connector off and on again.
echo off > "$second"; sleep 2
echo on > "$second"; sleep 3
/bin/diptych-test-tools kms-state --card /dev/dri/card0 > /out/crtc-replugged2.txt 2>&1
# Screen power on the real driver: a ctl screenshot (composited again in memory) against the
# readback; blank (KMS ACTIVE off: QEMU shows its "display output is not active" picture);
# wake (the frame again).
power() { echo 0 > /out/sync/power/$1.png.ready; while [ ! -e /out/sync/power/$1.png.done ]; do sleep 0.2; done; }
sleep 2
/bin/diptych ctl screenshot /out/ctl-shot.png > /out/ctl.stdout 2>&1; echo $? > /out/ctl-shot.rc
power shown
/bin/diptych ctl blank >> /out/ctl.stdout 2>&1
until_ok 50 blanked true
/bin/diptych ctl status --json > /out/ctl-blank-status.json 2>&1
power blank
/bin/diptych ctl wake >> /out/ctl.stdout 2>&1; sleep 2
power woke
kill -TERM $pid
wait $pid
echo $? > /out/sigterm.rc
/bin/diptych-test-tools kms-state --card /dev/dri/card0 > /out/crtc-after.txt
# Pen-to-screen latency on real page flips: frames composed at the repaint deadline, shown at the
# flip they aimed at, with the window and as soon as ready in the same run.
/bin/diptych profile --workload latency --card /dev/dri/card0 --mode 1024x768 --frames 60 --pen-hz 60 --json \
    > /out/latency.json 2> /out/latency.stderr
echo $? > /out/latency.rc

# The kiosk session: seatd for the seat, the compositor as uid 1000 with no access to the
# device nodes of its own, a VT switch away and back, an app killed and relaunched.
echo off > "$second"
until_ok 50 disconnected "$second"
ls -l /dev/dri/card0 > /out/kiosk-devices.txt
seatd -g video > /out/seatd.log 2>&1 &
seatd_pid=$!
for i in $(seq 1 50); do [ -S /run/seatd.sock ] && break; sleep 0.1; done
mkdir -p -m 0700 /tmp/kiosk /tmp/kiosk-run && chown 1000:1000 /tmp/kiosk /tmp/kiosk-run
mkdir -p /out/kiosk && chmod 0777 /out/kiosk /out/sync/kiosk
# A touchscreen made by root (0600 root): the kiosk reads it only through the seat; it is
# tapped on the secondary's pane once the compositor runs.
/bin/diptych-test-tools uinput-tap --node-file /tmp/touch-node --delay-ms 3500 --at 900,300 &
for i in $(seq 1 50); do [ -s /tmp/touch-node ] && break; sleep 0.1; done
ls -l "$(cat /tmp/touch-node)" > /out/kiosk-input-device.txt
cat > /tmp/kiosk.sh <<KIOSK
#!/bin/sh
echo kiosk-uid \$(id -u) > /out/kiosk/id.txt
cd /tmp/kiosk
export XDG_RUNTIME_DIR=/tmp/kiosk-run LIBSEAT_BACKEND=seatd DIPTYCH_LOG_LEVEL=info
exec /bin/diptych run --backend drm --card /dev/dri/card0 --mode 1024x768 --device ipad --status-bar off \\
  --input $(cat /tmp/touch-node) --primary "pattern:#336699 --animate" --secondary "pattern:#993366" --out /out/kiosk
KIOSK
chmod 755 /tmp/kiosk.sh
su -s /bin/sh kiosk -c /tmp/kiosk.sh > /out/kiosk.stdout 2> /out/kiosk.stderr &
kpid=$!
sleep 5
/bin/diptych-test-tools kms-state --card /dev/dri/card0 > /out/kiosk-crtc-during.txt 2>&1
capture() { echo 0 > /out/sync/kiosk/$1.png.ready; while [ ! -e /out/sync/kiosk/$1.png.done ]; do sleep 0.2; done; }
# (grep -c prints 0 itself when nothing matches; only a missing log gives nothing.)
flips() { n=$(grep -c '"event":"frameDone"' /out/kiosk/events-primary.jsonl 2>/dev/null); echo "${n:-0}"; }
more_flips() { [ "$(flips)" -gt "$1" ]; }
chvt 2
until_ok 100 crtc_differs /out/kiosk-crtc-during.txt
/bin/diptych-test-tools kms-state --card /dev/dri/card0 > /out/kiosk-crtc-away.txt 2>&1
a=$(flips); sleep 2; b=$(flips); echo $((b - a)) > /out/kiosk-flips-away.txt
chvt 1
until_ok 100 crtc_differs /out/kiosk-crtc-away.txt
b=$(flips); until_ok 100 more_flips "$b"
a=$(flips); sleep 1; b=$(flips); echo $((b - a)) > /out/kiosk-flips-back.txt
/bin/diptych-test-tools kms-state --card /dev/dri/card0 > /out/kiosk-crtc-back.txt 2>&1
capture back
grep -c '"event":"configure"' /out/kiosk/events-primary.jsonl > /out/kiosk-primary-configures-before.txt
for d in /proc/[0-9]*; do grep -q 993366 $d/cmdline 2>/dev/null && grep -q diptych-demo $d/cmdline 2>/dev/null && kill -9 ${d#/proc/}; done
# The relaunched secondary has drawn and been shown (a frameDone the killed one never had).
shown2() { n=$(grep -c '"event":"frameDone"' /out/kiosk/events-secondary.jsonl 2>/dev/null); echo "${n:-0}"; }
more_shown2() { [ "$(shown2)" -gt "$1" ]; }
s=$(shown2); until_ok 150 more_shown2 "$s"
grep -c '"event":"configure"' /out/kiosk/events-primary.jsonl > /out/kiosk-primary-configures-after.txt
capture relaunched
kill -TERM $kpid
wait $kpid
echo $? > /out/kiosk.rc
kill $seatd_pid
# Memory limits held by the kernel: cgroup v2 with a subtree delegated to the kiosk user (as the
# unit's Delegate=yes gives the service's), the compositor started in it as uid 1000; the
# primary takes 128 MiB past a 64 MB limit once drawn, and the kernel kills it in its cgroup.
# The CPU: the unit's CPUSchedulingPolicy=rr (chrt) and LimitNICE=+5, the cpu controller
# delegated too: the loop realtime, each app's cgroup weighed.
mkdir -p /out/cgroup && chmod 0777 /out/cgroup
mount -t cgroup2 none /sys/fs/cgroup || echo "VM: cannot mount cgroup2"
echo "+memory +cpu" > /sys/fs/cgroup/cgroup.subtree_control || echo "VM: no memory or cpu controller"
mkdir /sys/fs/cgroup/kiosk
chown 1000:1000 /sys/fs/cgroup/kiosk /sys/fs/cgroup/kiosk/cgroup.procs /sys/fs/cgroup/kiosk/cgroup.subtree_control /sys/fs/cgroup/kiosk/cgroup.threads
mkdir -p -m 0700 /tmp/cg-run && chown 1000:1000 /tmp/cg-run
sh -c 'echo $$ > /sys/fs/cgroup/kiosk/cgroup.procs; ulimit -e 15; exec chrt -r 10 su -s /bin/sh kiosk -c "XDG_RUNTIME_DIR=/tmp/cg-run DIPTYCH_LOG_LEVEL=info exec /bin/diptych run --backend headless --device ipad --memory-limit 64 --relaunch always --ctl-socket /tmp/cg-run/ctl --primary \"pattern:#336699 --hold-mb 128\" --secondary pattern:#993366"' \
    > /out/cgroup.stdout 2> /out/cgroup.stderr &
cgpid=$!
cg_serving() { /bin/diptych ctl --socket /tmp/cg-run/ctl status --json > /out/cgroup/status.json 2>/dev/null; }
oom_counted() { cg_serving && grep -q '"oom_kills":[1-9]' /out/cgroup/status.json; }
until_ok 300 oom_counted
cp /out/cgroup/status.json /out/cgroup/status-after-oom.json
/bin/diptych ctl --socket /tmp/cg-run/ctl stats --prometheus > /out/cgroup/stats.prom 2>&1
# (The killed primary is relaunched after its back-off, in a cgroup made anew: waited for.)
primary_back() { ls -d /sys/fs/cgroup/kiosk/app-primary-* > /dev/null 2>&1; }
until_ok 100 primary_back
ls /sys/fs/cgroup/kiosk > /out/cgroup/children.txt
cat /sys/fs/cgroup/kiosk/app-primary-*/memory.max > /out/cgroup/memory-max.txt 2>&1
cat /sys/fs/cgroup/kiosk/compositor/cpu.weight /sys/fs/cgroup/kiosk/app-secondary-*/cpu.weight > /out/cgroup/cpu-weight.txt 2>&1
cat /proc/$cgpid/cgroup > /out/cgroup/shell-cgroup.txt 2>&1
kill -TERM $cgpid
wait $cgpid
echo $? > /out/cgroup.rc
ls /sys/fs/cgroup/kiosk > /out/cgroup/children-after.txt
echo done > /out/done
sync
poweroff -f
