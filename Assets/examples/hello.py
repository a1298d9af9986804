#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# hello.py: the smallest complete Diptych app in Python, the same app as diptych-hello (Swift)
# and hello.c. It fills its pane by size class (blue when regular, orange when compact), keeps
# clear of the status bar, draws a dot under every touch and pen stroke (in each buffer only what
# it lacks), has a text field a tap raises the on-screen keyboard for, answers snapshot requests at
# the size asked, logs its lifecycle, and draws at most one frame per frameDone.
#   pip install ./Sources/diptych-python    (with libdiptych-client installed: make install-lib)
#   diptych run --primary ./Assets/examples/hello.py
import diptych

c = diptych.Connection("hello")
dots, state = [], {"configure": None, "waiting": False, "needed": False}
painted = {}  # what a buffer of the pool shows: its id -> (look, dots, the field's changes)
# The text field: what it holds (printable ASCII, at most 24), whether it takes text, a count of
# its changes, and the touch that went down on it.
field = {"text": "", "editing": False, "changes": 0, "touch": None}


def draw(w, h, scale, size_class, top):
    """The app at w × h pixels, `scale` pixels a point, for a pane of `size_class`: only what the
    buffer lacks (its background once for this look, then the dots added since it was drawn)."""
    b = c.buffer(w, h)
    if b is None:
        return None
    look = (size_class, int(top * scale), scale)
    old_look, shown, drawn_field = painted.get(b.id, (None, 0, -1))
    if old_look != look:
        shown, drawn_field = 0, -1
        b.fill(0, 0, w, h, 0x2F6FB5 if size_class == diptych.REGULAR else 0xE08A1E)
        b.fill(0, int(top * scale), w, int(4 * scale), 0xFFFFFF)  # where the content starts
    r = 6 * scale
    for x, y in dots[shown:]:
        b.fill(int(x * scale - r), int(y * scale - r), int(2 * r), int(2 * r), 0xFFFFFF)
    if drawn_field != field["changes"] or shown != len(dots):  # the field over the dots: white, its text (or a hint), a caret
        text, editing = field["text"], field["editing"]
        fx, fy, fh, px = int(12 * scale), int((top + 16) * scale), int(40 * scale), int(2 * scale)
        tx = fx + int(8 * scale)
        b.fill(fx, fy, w - 2 * fx, fh, 0xFFFFFF)
        drawn = b.draw_text(tx, fy + (fh - 7 * px) // 2, px, text if text or editing else "Tap to type", 0x1C1C1E if text else 0x8E8E93)
        if editing:
            b.fill(tx + (drawn if text else 0) + int(scale), fy + int(8 * scale), int(2 * scale), fh - 2 * int(8 * scale), 0x2F6FB5)
    painted[b.id] = (look, len(dots), field["changes"])
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


def field_changed():
    """The field changed: the compositor is told what it takes (the caret after its text), and it
    is drawn."""
    top = state["configure"].safe_top
    c.text_input(field["editing"], diptych.TextPurpose.TEXT, diptych.TextHint.CAPITALIZE_SENTENCES, diptych.ReturnKey.DONE,
                 (21 + 12 * len(field["text"]), top + 24, 2, 24), field["text"])
    field["changes"] += 1
    present()


def contact(id, down, up, x, y):
    """A finger or the pen: a tap on the field edits it, a tap elsewhere ends that; strokes leave dots."""
    conf = state["configure"]
    if conf is None:
        return
    top = conf.safe_top
    if down and 12 <= x < conf.frame.width - 12 and top + 16 <= y < top + 56:
        field["touch"] = id
        return
    if id == field["touch"]:
        if up:
            field["touch"] = None
            if not field["editing"]:
                field["editing"] = True
                field_changed()
        return
    if not up:
        dots.append((x, y))
        present()
    elif field["editing"]:
        field["editing"] = False
        field_changed()


def type_text(typed):
    """Typed text joins the field (printable ASCII, as much as it holds)."""
    for ch in typed:
        if " " <= ch <= "~" and len(field["text"]) < 24:
            field["text"] += ch
    field_changed()


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
        elif isinstance(e, diptych.Touch) and e.phase == diptych.TOUCH_CANCEL:
            if field["touch"] == e.id:  # a palm: no tap
                field["touch"] = None
        elif isinstance(e, diptych.Touch):
            contact(e.id, e.phase == diptych.TOUCH_DOWN, e.phase == diptych.TOUCH_UP, e.x, e.y)
        elif isinstance(e, diptych.Pen) and e.phase in (diptych.PEN_DOWN, diptych.PEN_MOTION, diptych.PEN_UP):
            contact(-2, e.phase == diptych.PEN_DOWN, e.phase == diptych.PEN_UP, e.x, e.y)
        elif isinstance(e, diptych.TextCommit) and field["editing"]:
            type_text(e.text)
        elif isinstance(e, diptych.Key) and field["editing"] and e.state != diptych.KeyState.RELEASED:
            # The on-screen keyboard's return and delete come as keys, as a hardware keyboard's do.
            if e.keysym == 0xFF08:
                if field["text"]:
                    field["text"] = field["text"][:-1]
                    field_changed()
            elif e.keysym == 0xFF0D:
                field["editing"] = False
                field_changed()
            elif e.text:
                type_text(e.text)
        elif isinstance(e, (diptych.KeyboardFocus, diptych.TextInputDismissed)) and not getattr(e, "focused", False) and field["editing"]:
            # (Losing the keyboard, or its ↓: the field is left.)
            field["editing"] = False
            field_changed()
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
