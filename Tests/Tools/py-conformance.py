# SPDX-License-Identifier: MIT
"""The Python module as a minimal app for ConformanceTests: connected through DIPTYCH_SOCKET_FD,
it says hello, acks every configure it is handed, lets the library answer syncs, and prints one
line an event it is handed (an error: its code's name) and, at the end, "end"."""

import diptych

c = diptych.Connection("conformance")
names = {cls: diptych.EVENT_NAMES[t] for t, (cls, _) in diptych.EVENTS.items()}
while True:
    try:
        e = c.next_event()
    except diptych.DiptychError:
        break
    if e is None:
        break
    if isinstance(e, diptych.ProtocolError):
        print("error", diptych.ERROR_NAMES[e.code])
    else:
        print(names[type(e)])
    if isinstance(e, diptych.Configure):
        c.ack(e.serial)
    if isinstance(e, diptych.Refused):
        print("refused", e.request, e.reason)
print("end")
