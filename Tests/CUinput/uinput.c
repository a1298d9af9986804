// SPDX-License-Identifier: MIT
// Kernel input devices made with uinput, for the tests and the VM test (see CUinput.h). Test
// tooling: no shipped module links it.
#include "CUinput.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/uinput.h>

static int dp_abs_range(int fd, int code, int min, int max, int res) {
    struct uinput_abs_setup a;
    memset(&a, 0, sizeof a);
    a.code = code;
    a.absinfo.minimum = min;
    a.absinfo.maximum = max;
    a.absinfo.resolution = res;
    if (ioctl(fd, UI_SET_ABSBIT, code) < 0) return -1;
    return ioctl(fd, UI_ABS_SETUP, &a);
}

static int dp_abs(int fd, int code, int max, int res) { return dp_abs_range(fd, code, 0, max, res); }

int dp_uinput_create(int kind, int width, int height, int units_per_mm, char *node, int node_size) {
    int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    ioctl(fd, UI_SET_EVBIT, EV_SYN);
    ioctl(fd, UI_SET_EVBIT, EV_KEY);
    if (kind <= 1) ioctl(fd, UI_SET_PROPBIT, INPUT_PROP_DIRECT);
    if (kind != 2) ioctl(fd, UI_SET_EVBIT, EV_ABS);
    if (kind == 2) {
        /* A keyboard: every key of a PC keyboard. */
        for (int k = 1; k < 256; k++) ioctl(fd, UI_SET_KEYBIT, k);
    } else if (kind == 3) {
        /* A pointer with absolute motion (as QEMU's tablet), its buttons and a wheel. */
        ioctl(fd, UI_SET_KEYBIT, BTN_LEFT);
        ioctl(fd, UI_SET_KEYBIT, BTN_RIGHT);
        ioctl(fd, UI_SET_KEYBIT, BTN_MIDDLE);
        dp_abs(fd, ABS_X, width - 1, units_per_mm);
        dp_abs(fd, ABS_Y, height - 1, units_per_mm);
        ioctl(fd, UI_SET_EVBIT, EV_REL);
        ioctl(fd, UI_SET_RELBIT, REL_WHEEL);
        ioctl(fd, UI_SET_RELBIT, REL_HWHEEL);
    } else if (kind == 0) {
        ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH);
        dp_abs(fd, ABS_X, width - 1, units_per_mm);
        dp_abs(fd, ABS_Y, height - 1, units_per_mm);
        dp_abs(fd, ABS_MT_SLOT, 9, 0);
        dp_abs(fd, ABS_MT_TRACKING_ID, 65535, 0);
        dp_abs(fd, ABS_MT_POSITION_X, width - 1, units_per_mm);
        dp_abs(fd, ABS_MT_POSITION_Y, height - 1, units_per_mm);
    } else {
        ioctl(fd, UI_SET_KEYBIT, BTN_TOOL_PEN);
        ioctl(fd, UI_SET_KEYBIT, BTN_TOUCH);
        ioctl(fd, UI_SET_KEYBIT, BTN_STYLUS);
        dp_abs(fd, ABS_X, width - 1, units_per_mm);
        dp_abs(fd, ABS_Y, height - 1, units_per_mm);
        dp_abs(fd, ABS_PRESSURE, 4095, 0);
        dp_abs_range(fd, ABS_TILT_X, -90, 90, 57);  /* units per radian: degrees */
        dp_abs_range(fd, ABS_TILT_Y, -90, 90, 57);
    }
    struct uinput_setup setup;
    memset(&setup, 0, sizeof setup);
    setup.id.bustype = BUS_VIRTUAL;
    setup.id.vendor = 0x1d1d;
    static const char *names[] = { "Diptych test touchscreen", "Diptych test pen", "Diptych test keyboard", "Diptych test mouse" };
    static const char *udev[] = { "E:ID_INPUT_TOUCHSCREEN=1", "E:ID_INPUT_TABLET=1", "E:ID_INPUT_KEY=1\nE:ID_INPUT_KEYBOARD=1", "E:ID_INPUT_MOUSE=1" };
    setup.id.product = (unsigned short)(kind + 1);
    snprintf(setup.name, sizeof setup.name, "%s", names[kind & 3]);
    if (ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) { close(fd); return -1; }
    char sysname[64] = {0};
    if (ioctl(fd, UI_GET_SYSNAME(sizeof sysname), sysname) < 0) { close(fd); return -1; }
    char dir[256];
    snprintf(dir, sizeof dir, "/sys/devices/virtual/input/%s", sysname);
    // The event node appears shortly after creation.
    for (int tries = 0; tries < 200; tries++) {
        DIR *d = opendir(dir);
        struct dirent *e;
        int minor = -1;
        char event[64] = {0};
        while (d && (e = readdir(d))) {
            if (strncmp(e->d_name, "event", 5) == 0) {
                snprintf(event, sizeof event, "%s", e->d_name);
                char devpath[512];
                snprintf(devpath, sizeof devpath, "%s/%s/dev", dir, e->d_name);
                FILE *f = fopen(devpath, "r");
                int major = 0;
                if (f) { if (fscanf(f, "%d:%d", &major, &minor) != 2) minor = -1; fclose(f); }
            }
        }
        if (d) closedir(d);
        if (minor >= 0) {
            snprintf(node, node_size, "/dev/input/%s", event);
            mkdir("/run/udev", 0755);
            mkdir("/run/udev/data", 0755);
            char db[128];
            snprintf(db, sizeof db, "/run/udev/data/c13:%d", minor);
            FILE *f = fopen(db, "w");
            if (f) {
                fprintf(f, "I:1\nE:ID_INPUT=1\n%s\nE:NAME=\"%s\"\nG:seat\nQ:seat\nV:1\n", udev[kind & 3], setup.name);
                fclose(f);
            }
            struct stat st;
            for (int w = 0; w < 200 && stat(node, &st) != 0; w++) usleep(5000);
            return fd;
        }
        usleep(5000);
    }
    close(fd);
    errno = ENODEV;
    return -1;
}

int dp_uinput_emit(int fd, int type, int code, int value) {
    struct input_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.code = code;
    ev.value = value;
    return write(fd, &ev, sizeof ev) == sizeof ev ? 0 : -1;
}
