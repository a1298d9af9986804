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
mkdir -p -m 0700 /tmp/runtime
# The test pen reports raw positions: no smoothing, as a scripted replay needs.
mkdir -p /etc/libinput
printf '[Diptych test pen]\nMatchUdevType=tablet\nAttrTabletSmoothing=0\n' > /etc/libinput/local-overrides.quirks
# The second output (virtio-gpu max_outputs=2) is disconnected without a UI: forced on, a real
# hotplug path.
second=/sys/class/drm/card0-Virtual-2/status
echo on > "$second" || echo "VM: cannot force $second on"
sleep 1
/bin/diptych kms-state --card /dev/dri/card0 > /out/crtc-before.txt
for s in drag palm; do
  /bin/diptych run --backend drm --card /dev/dri/card0 --mode 1024x768 --scenario /vm/$s.json \
      --out /out/$s --input-via-uinput --capture-sync /out/sync/$s > /out/$s.stdout 2> /out/$s.stderr
  echo $? > /out/$s.rc
done
/bin/diptych run --backend drm --card /dev/dri/card0 --mode 1024x768 --scenario /vm/screen2.json \
    --out /out/screen2 --capture-sync /out/sync/screen2 > /out/screen2.stdout 2> /out/screen2.stderr
echo $? > /out/screen2.rc
DIPTYCH_LOG_LEVEL=debug /bin/diptych run --backend drm --card /dev/dri/card0 --mode 1024x768 --device ipad --primary 'pattern:#336699' \
    > /out/sigterm.stdout 2> /out/sigterm.stderr &
pid=$!
sleep 4
/bin/diptych kms-state --card /dev/dri/card0 > /out/crtc-during.txt 2>&1
# Hotplug: force the connector off and on again (a real kernel hotplug uevent each time).
status=$(ls -d /sys/class/drm/card0-*/status | head -1)
echo "VM: hotplug through $status"
echo off > "$status"; sleep 2
cat "$status"
echo on > "$status"; sleep 3
/bin/diptych kms-state --card /dev/dri/card0 > /out/crtc-replugged.txt 2>&1
# The second screen's connector off and on again.
echo off > "$second"; sleep 2
echo on > "$second"; sleep 3
/bin/diptych kms-state --card /dev/dri/card0 > /out/crtc-replugged2.txt 2>&1
kill -TERM $pid
wait $pid
echo $? > /out/sigterm.rc
/bin/diptych kms-state --card /dev/dri/card0 > /out/crtc-after.txt
echo done > /out/done
sync
poweroff -f
