# SPDX-License-Identifier: MIT
"""A Python buffer the library let go refuses use instead of touching unmapped memory: buffers of
seven sizes (the library keeps six), then the first one's pixels, fill and commit each raise; the
sixth still works. Prints "ok" or what went wrong. Used by PythonModuleTests."""

import os
import socket

import diptych

ours, theirs = socket.socketpair()
os.environ["DIPTYCH_SOCKET_FD"] = str(ours.detach())
c = diptych.Connection("lifetime")
buffers = [c.buffer(16 + i, 16) for i in range(7)]
first, kept = buffers[0], buffers[-2]
problems = []
try:
    first.pixels[0, 0] = 1
    problems.append("its pixels were written")
except ValueError:
    pass
for what, call in (("fill", lambda: first.fill(0, 0, 4, 4, 0xFF0000)), ("commit", lambda: c.commit(first))):
    try:
        call()
        problems.append(f"{what} was taken")
    except diptych.DiptychError:
        pass
kept.fill(0, 0, 4, 4, 0xFF0000)
if kept.pixels[0, 0] & 0xFFFFFF != 0xFF0000:
    problems.append("a kept buffer was not drawn")
c.close()
try:
    kept.fill(0, 0, 1, 1, 0)
    problems.append("a buffer was drawn after close")
except (diptych.DiptychError, ValueError):
    pass
theirs.close()
print("ok" if not problems else "; ".join(problems))
