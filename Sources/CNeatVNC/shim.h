// neatvnc (its aml loop) for the VNC server, crypt(3) for its users' passwords, and
// malloc_trim(3) to give its screen-sized buffers back once the last viewer goes.
#include <pixman.h>
#include <neatvnc.h>
#include <aml.h>
#include <crypt.h>
#include <malloc.h>

// DRM_FORMAT_XRGB8888 ('XR24'; pixman's x8r8g8b8 in memory): a function-like macro Swift does
// not import.
static const unsigned int dv_format_xrgb8888 = 0x34325258u;
static const unsigned int dv_format_argb8888 = 0x34325241u;
