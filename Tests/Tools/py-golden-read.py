# SPDX-License-Identifier: MIT
"""The Python module (over the C library) as a decoder of the golden events: each file named
is written into a socket pair the module reads as its connection (DIPTYCH_SOCKET_FD), and the
event it makes of it is printed as one JSON line with the wire's field names, for
GoldenMessageTests to compare with the description's example."""

import json
import os
import socket
import sys

import diptych


def camel(name):
    first, *rest = name.split("_")
    return first + "".join(w.title() for w in rest)


def value(v):
    if isinstance(v, diptych.Rect):
        return [v.x, v.y, v.width, v.height]
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, int):
        return int(v)
    return v


if sys.argv[1:] == ["--size"]:
    # The ctypes mirror of dc_event: the same size as the C library's (its ABI).
    import ctypes
    print(ctypes.sizeof(diptych._Event))
    sys.exit(0)
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        data = f.read()
    ours, theirs = socket.socketpair()
    os.environ["DIPTYCH_SOCKET_FD"] = str(ours.detach())
    c = diptych.Connection("golden")
    theirs.sendall(data)
    e = c.next_event()
    kind = diptych.EVENT_NAMES[int.from_bytes(data[6:8], "little")]
    if isinstance(e, diptych.Lifecycle):
        fields = {"event": diptych.LIFECYCLE.index(e.event)}
    else:
        fields = {camel(k): value(v) for k, v in vars(e).items()}
    print(json.dumps({"_name": kind, **fields}, ensure_ascii=False))
    theirs.close()
