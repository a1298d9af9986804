#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# hello.py: the smallest complete Diptych app in Python, the same app as diptych-hello (Swift)
# and hello.c. It fills its pane by size class (blue when regular, orange when compact), keeps
# clear of the status bar, draws a dot under every touch and pen stroke (in each buffer only what
# it lacks), answers snapshot requests at the size asked, logs its lifecycle, and draws at most one
# frame per frameDone.
#   pip install ./Sources/diptych-python    (with libdiptych-client installed: make install-lib)
#   diptych run --primary ./Assets/examples/hello.py
import diptych

c = diptych.Connection("hello")
dots, state = [], {"configure": None, "waiting": False, "needed": False}
painted = {}  # what a buffer of the pool shows: its id -> (look, dots)


def draw(w, h, scale, size_class, top):
    """The app at w × h pixels, `scale` pixels a point, for a pane of `size_class`: only what the
    buffer lacks (its background once for this look, then the dots added since it was drawn)."""
    b = c.buffer(w, h)
    if b is None:
        return None
    look = (size_class, int(top * scale), scale)
    old_look, shown = painted.get(b.id, (None, 0))
    if old_look != look:
        shown = 0
        b.fill(0, 0, w, h, 0x2F6FB5 if size_class == diptych.REGULAR else 0xE08A1E)
        b.fill(0, int(top * scale), w, int(4 * scale), 0xFFFFFF)  # where the content starts
    r = 6 * scale
    for x, y in dots[shown:]:
        b.fill(int(x * scale - r), int(y * scale - r), int(2 * r), int(2 * r), 0xFFFFFF)
    painted[b.id] = (look, len(dots))
    if len(painted) > 16:  # buffers of sizes gone by: forget the oldest
        del painted[next(iter(painted))]
    return b


def present():
    conf = state["configure"]
    if conf is None:
        return
    if state["waiting"]:
        state["needed"] = True
        return
    b = draw(conf.pixel_width, conf.pixel_height, conf.scale, conf.horizontal_size_class, conf.safe_top)
    if b is not None:
        c.commit(b)
        state["waiting"], state["needed"] = True, False


try:
    for e in c:
        if isinstance(e, diptych.Configure):
            state["configure"] = e
            c.ack(e.serial)
            state["waiting"] = False  # a new size: draw it now
            present()
        elif isinstance(e, diptych.SnapshotRequest):  # the pane at another size; the live one stays
            top = max(0, 20 - e.frame.y)
            b = draw(e.pixel_width, e.pixel_height, e.pixel_width / e.frame.width, e.horizontal_size_class, top)
            if b is not None:
                c.snapshot(b, e.serial)
        elif isinstance(e, diptych.Touch) and e.phase in (diptych.TOUCH_DOWN, diptych.TOUCH_MOTION):
            dots.append((e.x, e.y))
            present()
        elif isinstance(e, diptych.Pen) and e.phase in (diptych.PEN_DOWN, diptych.PEN_MOTION):
            dots.append((e.x, e.y))
            present()
        elif isinstance(e, diptych.FrameDone):
            state["waiting"] = False
            if state["needed"]:
                present()
        elif isinstance(e, diptych.Lifecycle):
            print("hello:", e.event, flush=True)
        elif isinstance(e, diptych.ProtocolError):
            print("hello: the compositor refused:", e.message)
            break
except diptych.DiptychError as err:  # a request failed: the compositor went away
    print("hello:", err)
