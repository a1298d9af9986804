// SPDX-License-Identifier: MIT
// Kernel input devices made with uinput (a touchscreen, a pen, a keyboard, a mouse), for the
// tests that drive real libinput. Test tooling, apart from the shipped shims.
#ifndef CUINPUT_H
#define CUINPUT_H

/// Creates a uinput device: kind 0 a multitouch touchscreen, kind 1 a pen tablet, kind 3 a
/// pointer with absolute motion, buttons and a wheel (as QEMU's tablet), with absolute axes
/// 0..width-1 and 0..height-1 (resolution `units_per_mm`); kind 2 a keyboard. Writes the udev
/// database entry libinput needs (/run/udev/data/c13:MINOR), since no udevd runs in a test VM.
/// Copies the event node's path to `node`. Returns the uinput fd or -1 with errno.
int dp_uinput_create(int kind, int width, int height, int units_per_mm, char *node, int node_size);
/// Writes one input event.
int dp_uinput_emit(int fd, int type, int code, int value);

#endif
