# SPDX-License-Identifier: MIT
"""Diptych apps in Python, over the C library libdiptych-client (ctypes, no build step).

    import diptych
    c = diptych.Connection("myapp")
    for e in c:
        if isinstance(e, diptych.Configure):
            c.ack(e.serial)
            b = c.buffer(e.pixel_width, e.pixel_height)
            b.fill(0, 0, b.width, b.height, 0x2F6FB5)   # or numpy.asarray(b.pixels)[...] = ...
            c.commit(b)

Events are dataclasses (`Configure`, `Touch`, `FrameDone`, ...; see `EVENTS`); their enumerated
fields are the protocol's enumerations (`TouchPhase.DOWN`, `KeyState.PRESSED`, `SizeClass.REGULAR`,
... from `diptych.protocol`, generated from the protocol's description; they compare equal to
their numbers). A buffer's
`pixels` is a writable memoryview of 32-bit words 0xXXRRGGBB, shape (height, stride // 4), over
the shared memory itself (index it as `pixels[y, x]`; a memoryview has no `pixels[y][x]`): numpy
draws into it without a copy (`numpy.asarray(b.pixels)`). Pillow cannot draw into shared memory
(its `frombuffer` images are read-only), so draw into an `Image` of the buffer's size and put it
there in one copy: `b.put_image(im)`. Draw only into a buffer that is not `busy`. A buffer the
library let go (its size no longer among the six kept, or the connection closed) refuses use:
its `pixels` raise ValueError, its calls DiptychError (a numpy array made from it must not
outlive it). A `Sync` is answered for the app at its next
`next_event`. Failures raise `DiptychError` with the library's message. One connection per thread.
The library is found as libdiptych-client.so.1 (or $DIPTYCH_CLIENT_LIBRARY).
"""

import ctypes
import errno
import ctypes.util
import os
import weakref
from dataclasses import dataclass, make_dataclass

from .protocol import *  # noqa: F401,F403 (the protocol's version, opcodes and enumerations, generated)
from .protocol import EVENT_NAMES, FIELD_ENUMS
from . import font as _font  # the bitmap font's table (generated)


class Rect(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int32), ("y", ctypes.c_int32), ("width", ctypes.c_int32), ("height", ctypes.c_int32)]

    def __repr__(self):
        return f"Rect({self.x}, {self.y}, {self.width}, {self.height})"


def _s(*fields):
    return type("S", (ctypes.Structure,), {"_fields_": list(fields)})


_i, _u, _d, _u64 = ctypes.c_int, ctypes.c_uint32, ctypes.c_double, ctypes.c_uint64
_Configure = _s(("serial", _u), ("role", _i), ("frame", Rect), ("pixel_width", _i), ("pixel_height", _i),
                ("horizontal_size_class", _i), ("vertical_size_class", _i), ("orientation", _i), ("arrangement", _i),
                ("scale", _d), ("safe_top", _d), ("safe_left", _d), ("safe_bottom", _d), ("safe_right", _d))
_SizeClassChanged = _s(("horizontal", _i), ("vertical", _i), ("previous_horizontal", _i), ("previous_vertical", _i))
_SnapshotRequest = _s(("serial", _u), ("frame", Rect), ("pixel_width", _i), ("pixel_height", _i), ("horizontal_size_class", _i))
# dc_event is the C library's ABI (soname .1): these mirror it member for member. The serial of
# version 9 is at the end of touch, pen and pointer and in the key's padding before its time.
_Touch = _s(("id", ctypes.c_int32), ("phase", _i), ("x", _d), ("y", _d), ("time", _d), ("serial", _u))
_Pen = _s(("phase", _i), ("x", _d), ("y", _d), ("pressure", _d), ("tilt_x", _d), ("tilt_y", _d), ("time", _d), ("tool", _i), ("buttons", _u),
          ("serial", _u))
_FrameDone = _s(("time", _u64), ("refresh", _d), ("seq", _u64))
_Error = _s(("code", _i), ("message", ctypes.c_char * 4097))
_Sync = _s(("serial", _u), ("time", _u64))
_Release = _s(("buffer", _u))
_Screen = _s(("screen", _u), ("pixel_width", _i), ("pixel_height", _i))
_Focus = _s(("focused", _i))
_Key = _s(("keycode", _u), ("keysym", _u), ("text", ctypes.c_char * 4097), ("state", _i), ("modifiers", _u), ("serial", _u), ("time", _d))
_Pointer = _s(("phase", _i), ("x", _d), ("y", _d), ("button", _u), ("pressed", _i), ("dx", _d), ("dy", _d), ("source", _i), ("time", _d),
              ("serial", _u))
_Refused = _s(("request", ctypes.c_char * 64), ("reason", ctypes.c_char * 64), ("message", ctypes.c_char * 1025))
_PipAction = _s(("action", _i))
_TextCommit = _s(("text", ctypes.c_char * 4097))
_TextDelete = _s(("before", _u), ("after", _u))
_KeyboardFrame = _s(("frame", Rect), ("screen_frame", Rect), ("duration", _u), ("local", _i))
_MenuChosen = _s(("id", _u), ("index", _u))
_AlertAnswered = _s(("id", _u), ("button", _u), ("text", ctypes.c_char * 4097))
_Dismissed = _s(("id", _u))
_MenuItem = _s(("label", ctypes.c_char_p), ("flags", _u))
_AlertButton = _s(("label", ctypes.c_char_p), ("style", _i))
_TextState = _s(("enabled", _i), ("purpose", _i), ("hints", _u), ("return_key", _i), ("caret_x", _d), ("caret_y", _d),
                ("caret_width", _d), ("caret_height", _d), ("surrounding", ctypes.c_char_p))


class _Union(ctypes.Union):
    _fields_ = [("configure", _Configure), ("size_class_changed", _SizeClassChanged), ("lifecycle", _i),
                ("snapshot_request", _SnapshotRequest), ("touch", _Touch), ("pen", _Pen), ("frame_done", _FrameDone),
                ("error", _Error), ("sync", _Sync), ("release", _Release), ("screen", _Screen), ("keyboard_focus", _Focus),
                ("key", _Key), ("pointer", _Pointer), ("refused", _Refused), ("pip_action", _PipAction),
                ("text_commit", _TextCommit), ("text_delete", _TextDelete), ("keyboard_frame", _KeyboardFrame),
                ("menu_chosen", _MenuChosen), ("alert_answered", _AlertAnswered), ("dismissed", _Dismissed)]


class _Event(ctypes.Structure):
    _anonymous_ = ("u",)
    _fields_ = [("type", _i), ("u", _Union)]


class _Buffer(ctypes.Structure):
    _fields_ = [("id", _u), ("width", _i), ("height", _i), ("stride", _i), ("pixels", ctypes.POINTER(ctypes.c_uint32)), ("busy", _i)]


def _library():
    for name in (os.environ.get("DIPTYCH_CLIENT_LIBRARY"), "libdiptych-client.so.1", ctypes.util.find_library("diptych-client")):
        if name:
            try:
                return ctypes.CDLL(name, use_errno=True)
            except OSError:
                pass
    raise OSError("libdiptych-client.so.1 not found: install it (make install-lib) or set DIPTYCH_CLIENT_LIBRARY")


_lib = None


def _load():
    global _lib
    if _lib is None:
        lib = _library()
        P, B, R = ctypes.c_void_p, ctypes.POINTER(_Buffer), ctypes.POINTER(Rect)
        for name, res, args in [
            ("dc_connect", P, [ctypes.c_char_p, _i, ctypes.c_char_p, ctypes.c_size_t]), ("dc_disconnect", None, [P]),
            ("dc_fd", _i, [P]), ("dc_flush", _i, [P]), ("dc_error", ctypes.c_char_p, [P]), ("dc_next_event", _i, [P, ctypes.POINTER(_Event), _i]),
            ("dc_ack", _i, [P, _u]), ("dc_sync_done", _i, [P, _u]), ("dc_answer_sync", None, [P, _i]),
            ("dc_status_bar_style", _i, [P, _i]), ("dc_text_input", _i, [P, ctypes.POINTER(_TextState)]),
            ("dc_text_input_serial", _i, [P, ctypes.POINTER(_TextState), _u]), ("dc_buffer_get", B, [P, _i, _i]), ("dc_commit", _i, [P, B, R, _i]),
            ("dc_snapshot", _i, [P, B, _u]), ("dc_pip_commit", _i, [P, B, _i, R, R, _i]), ("dc_pip_close", _i, [P]),
            ("dc_screen_commit", _i, [P, _u, B, R, _i]), ("dc_screen_release", _i, [P, _u]),
            ("dc_set_icon", _i, [P, _i, ctypes.c_void_p, _i]),
            ("dc_present_menu", _i, [P, _u, Rect, ctypes.c_char_p, ctypes.POINTER(_MenuItem), _i]),
            ("dc_present_alert", _i, [P, _u, ctypes.c_char_p, ctypes.c_char_p, _i, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_AlertButton), _i]),
            ("dc_dismiss_presented", _i, [P, _u]),
            ("dc_idle_inhibit", _i, [P, _i]),
        ]:
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        _lib = lib
    return _lib


class DiptychError(Exception):
    """A call the library refused, or the connection ended; the message says why."""


def _camel(name):
    first, *rest = name.split("_")
    return first + "".join(w.title() for w in rest)


def _fields(s, event):
    out = {}
    for name, _ in s._fields_:
        v = getattr(s, name)
        v = v.decode("utf-8", "replace") if isinstance(v, bytes) else (Rect(v.x, v.y, v.width, v.height) if isinstance(v, Rect) else v)
        kind = FIELD_ENUMS.get(f"{event}.{_camel(name)}") or FIELD_ENUMS.get(_camel(name))
        if kind is not None and isinstance(v, int):
            try:
                v = kind(v)
            except ValueError:
                pass
        out[name] = v
    return out


def _dc(name, s):
    """A frozen dataclass of the struct's members, in the wire's order (a serial last)."""
    names = [n for n, _ in s._fields_]
    if "serial" in names and name in ("Touch", "Pen", "Key", "Pointer"):
        names = [n for n in names if n != "serial"] + ["serial"]
    return make_dataclass(name, names, frozen=True)


Configure = _dc("Configure", _Configure)
SizeClassChanged = _dc("SizeClassChanged", _SizeClassChanged)
SnapshotRequest = _dc("SnapshotRequest", _SnapshotRequest)
Touch, Pen, FrameDone = _dc("Touch", _Touch), _dc("Pen", _Pen), _dc("FrameDone", _FrameDone)
ProtocolError, Sync, Release = _dc("ProtocolError", _Error), _dc("Sync", _Sync), _dc("Release", _Release)
ScreenConnected, ScreenDisconnected = _dc("ScreenConnected", _Screen), _dc("ScreenDisconnected", _Screen)
KeyboardFocus, Key, Pointer = _dc("KeyboardFocus", _Focus), _dc("Key", _Key), _dc("Pointer", _Pointer)
Refused, PipAction = _dc("Refused", _Refused), _dc("PipAction", _PipAction)
TextCommit, TextDelete = _dc("TextCommit", _TextCommit), _dc("TextDelete", _TextDelete)
KeyboardFrame = _dc("KeyboardFrame", _KeyboardFrame)
MenuChosen, AlertAnswered, Dismissed = _dc("MenuChosen", _MenuChosen), _dc("AlertAnswered", _AlertAnswered), _dc("Dismissed", _Dismissed)


@dataclass(frozen=True)
class TextInputDismissed:
    """The user pressed the on-screen keyboard's dismiss key: blur the field (version 9)."""


@dataclass(frozen=True)
class Lifecycle:
    event: str  # willResignActive, didBecomeActive, didEnterBackground, willEnterForeground


LIFECYCLE = ("willResignActive", "didBecomeActive", "didEnterBackground", "willEnterForeground")
# Event type (the wire opcode) -> (class, union member).
EVENTS = {100: (Configure, "configure"), 101: (SizeClassChanged, "size_class_changed"), 102: (Lifecycle, "lifecycle"),
          103: (SnapshotRequest, "snapshot_request"), 104: (Touch, "touch"), 105: (Pen, "pen"), 106: (FrameDone, "frame_done"),
          107: (ProtocolError, "error"), 108: (Sync, "sync"), 109: (Release, "release"), 110: (ScreenConnected, "screen"),
          111: (ScreenDisconnected, "screen"), 112: (KeyboardFocus, "keyboard_focus"), 113: (Key, "key"), 114: (Pointer, "pointer"),
          115: (Refused, "refused"), 116: (PipAction, "pip_action"), 117: (TextCommit, "text_commit"),
          118: (TextDelete, "text_delete"), 119: (KeyboardFrame, "keyboard_frame"),
          120: (MenuChosen, "menu_chosen"), 121: (AlertAnswered, "alert_answered"), 122: (Dismissed, "dismissed"),
          123: (TextInputDismissed, None)}
REGULAR, COMPACT = 1, 0
TOUCH_DOWN, TOUCH_MOTION, TOUCH_UP, TOUCH_CANCEL = 0, 1, 2, 3
PEN_PROXIMITY_IN, PEN_DOWN, PEN_MOTION, PEN_UP, PEN_PROXIMITY_OUT = 0, 1, 2, 3, 4
STATUS_BAR_DARK, STATUS_BAR_LIGHT, STATUS_BAR_HIDDEN = 0, 1, 2


class Buffer:
    """A shared-memory buffer of the connection's pool: `pixels` (height × stride/4 words)."""

    def __init__(self, raw):
        self._raw = raw
        b = raw.contents
        self.id, self.width, self.height, self.stride = b.id, b.width, b.height, b.stride
        self._address = ctypes.cast(b.pixels, ctypes.c_void_p).value
        self._gone = False  # the connection closed: the library's slot is gone too
        words = (ctypes.c_uint32 * (self.height * self.stride // 4)).from_address(self._address)
        self.pixels = memoryview(words).cast("B").cast("I", (self.height, self.stride // 4))
        self._bytes = memoryview(words).cast("B")

    def _alive(self):
        if self._gone:
            return False
        b = self._raw.contents
        return b.id == self.id and ctypes.cast(b.pixels, ctypes.c_void_p).value == self._address

    def _retire(self):
        """The library let the buffer go (unmapped): its views are released, so a use raises
        instead of touching memory that is gone. (A numpy array made from it must not outlive it.)"""
        for view in (self.pixels, self._bytes):
            try:
                view.release()
            except BufferError:
                pass

    def _check_alive(self):
        if not self._alive():
            self._retire()
            raise DiptychError(f"buffer {self.id} was let go (its size is no longer kept, or the connection closed): ask for another")

    @property
    def busy(self):
        self._check_alive()
        return bool(self._raw.contents.busy)

    def put_image(self, image):
        """Copies a Pillow image of the buffer's size into it (one copy; RGB, or converted)."""
        self._check_alive()
        if tuple(image.size) != (self.width, self.height):
            raise ValueError(f"an image of {image.size[0]}x{image.size[1]} for a buffer of {self.width}x{self.height}")
        if image.mode != "RGB":
            image = image.convert("RGB")
        data = image.tobytes("raw", "BGRX", self.stride)
        self._bytes[: len(data)] = data

    def fill(self, x, y, w, h, color):
        """Fills a rectangle (pixels, cut to the buffer) with 0xRRGGBB."""
        self._check_alive()
        x0, y0, x1, y1 = max(0, x), max(0, y), min(self.width, x + w), min(self.height, y + h)
        if x1 <= x0 or y1 <= y0:
            return
        row = (0xFF000000 | (color & 0xFFFFFF)).to_bytes(4, "little") * (x1 - x0)
        for j in range(y0, y1):
            self._bytes[j * self.stride + 4 * x0: j * self.stride + 4 * x1] = row

    def draw_text(self, x, y, scale, text, color):
        """Draws text in the libraries' small bitmap font: printable ASCII, each character 5 × 7
        font pixels on a 6-pixel advance, each font pixel scale × scale buffer pixels (any other
        character a '?'); (x, y) its top left, color 0xRRGGBB, cut to the buffer. Returns the
        width drawn (text_width). The C and Swift libraries draw the same pixels."""
        if scale < 1:
            return 0
        pen = x
        for ch in text:
            rows = _font.ROWS[ord(ch) - 0x20 if 0x20 <= ord(ch) <= 0x7E else ord("?") - 0x20]
            for r, bits in enumerate(rows):
                for col in range(5):
                    if bits & (0x10 >> col):
                        self.fill(pen + col * scale, y + r * scale, scale, scale, color)
            pen += 6 * scale
        return pen - x


def text_width(text, scale):
    """The width in buffer pixels of text in the bitmap font at scale: 6 × scale a character."""
    return len(text) * 6 * scale if scale >= 1 else 0


def _rects(damage):
    if not damage:
        return None, 0
    arr = (Rect * len(damage))(*[Rect(*r) for r in damage])
    return arr, len(damage)


class Connection:
    """A connection to the compositor, as a launched app makes it; says hello."""

    def __init__(self, name, requires_full_screen=False):
        self._lib = _load()
        err = ctypes.create_string_buffer(512)
        self._c = self._lib.dc_connect(name.encode(), int(requires_full_screen), err, len(err))
        if not self._c:
            raise DiptychError(err.value.decode())
        self._event = _Event()
        self._buffers = weakref.WeakSet()

    def _check(self, r):
        if r != 0:
            raise DiptychError(self._lib.dc_error(self._c).decode())

    def fileno(self):
        """The socket, for select/poll: when readable, call next_event(block=False) until None;
        while flush() returns False, also wait for it to be writable and call flush() then."""
        return self._lib.dc_fd(self._c)

    def flush(self):
        """Writes the requests still queued: True when all are written, False when the socket
        is full (wait until fileno() is writable, then call it again). A blocking next_event
        writes them while it waits. Raises DiptychError when the connection broke."""
        if self._lib.dc_flush(self._c) == 0:
            return True
        if ctypes.get_errno() == errno.EAGAIN:
            return False
        raise DiptychError(self._lib.dc_error(self._c).decode())

    def next_event(self, block=True):
        """The next event; None when none is there without blocking. Raises DiptychError when
        the connection is closed or broken."""
        r = self._lib.dc_next_event(self._c, ctypes.byref(self._event), int(block))
        if r < 0:
            raise DiptychError(self._lib.dc_error(self._c).decode())
        if r == 0:
            return None
        cls, member = EVENTS[self._event.type]
        if cls is Lifecycle:
            return Lifecycle(LIFECYCLE[self._event.lifecycle & 3])
        if member is None:
            return cls()
        return cls(**_fields(getattr(self._event, member), EVENT_NAMES.get(self._event.type, "")))

    def __iter__(self):
        while True:
            try:
                yield self.next_event()
            except DiptychError:
                return

    def ack(self, serial): self._check(self._lib.dc_ack(self._c, serial))
    def status_bar_style(self, style): self._check(self._lib.dc_status_bar_style(self._c, style))

    def text_input(self, enabled, purpose=0, hints=0, return_key=0, caret=(0.0, 0.0, 0.0, 0.0), surrounding="", serial=None):
        """Whether a field of the app takes text now, and how: TextPurpose, TextHint bits
        (HAS_PREVIOUS, HAS_NEXT: the form has a field before or after this one), ReturnKey, the
        caret (x, y, width, height) in the pane's points and up to 256 bytes of the text before
        it, and `serial`: the serial of the input event after which the app focused the field
        (0: none). Without one, the serial of the last tap's end (Touch or Pen up) or key press
        (Key pressed) the library handed the app: right for a field focused while handling that
        event. The on-screen keyboard shows for an enabled field only when the serial names a
        tap the app was sent, or a key the on-screen keyboard sent, with no tap after it; its
        typing arrives as TextCommit and TextDelete events (return and delete as Key events),
        its dismiss key as TextInputDismissed. Only the app with the keyboard focus may enable
        it (else a Refused event, reason "focus"). Raises DiptychError for an unknown purpose,
        hint or return key, a caret not finite or of negative size, or surrounding text over
        256 bytes."""
        x, y, w, h = caret
        state = _TextState(int(bool(enabled)), int(purpose), int(hints), int(return_key), float(x), float(y), float(w), float(h),
                           surrounding.encode("utf-8"))
        if serial is None:
            self._check(self._lib.dc_text_input(self._c, ctypes.byref(state)))
        else:
            if not 0 <= int(serial) <= 0xFFFFFFFF:
                raise DiptychError(f"text_input: serial {serial} is not a u32")
            self._check(self._lib.dc_text_input_serial(self._c, ctypes.byref(state), int(serial)))
    def present_menu(self, id, anchor, items, title=""):
        """Asks the compositor to show a menu anchored at `anchor` (x, y, width, height in the
        pane's points): `items` are labels or (label, MenuItemFlag bits) pairs. Answered by a
        MenuChosen event (the item's index) or Dismissed. One menu or alert at a time (else a
        Refused event, reason "busy"). Raises DiptychError for more than 10,000 items, a label
        over 256 bytes or unknown flags."""
        rows = [(i, 0) if isinstance(i, str) else (i[0], int(i[1])) for i in items]
        array = (_MenuItem * max(len(rows), 1))(*[_MenuItem(label.encode("utf-8"), flags) for label, flags in rows])
        self._check(self._lib.dc_present_menu(self._c, id, Rect(*anchor), title.encode("utf-8"), array, len(rows)))

    def present_alert(self, id, title, message, buttons, field=0, placeholder="", text=""):
        """Asks the compositor to show an alert in the app's pane: `buttons` are labels or
        (label, AlertButtonStyle) pairs (1 to 4); `field` an AlertField (a text field typed on
        the on-screen keyboard). Answered by AlertAnswered (the button's index and the field's
        text) or Dismissed. Raises DiptychError as the C library's dc_present_alert fails."""
        rows = [(b, 0) if isinstance(b, str) else (b[0], int(b[1])) for b in buttons]
        array = (_AlertButton * max(len(rows), 1))(*[_AlertButton(label.encode("utf-8"), style) for label, style in rows])
        self._check(self._lib.dc_present_alert(self._c, id, title.encode("utf-8"), message.encode("utf-8"), int(field),
                                               placeholder.encode("utf-8"), text.encode("utf-8"), array, len(rows)))

    def dismiss_presented(self, id): self._check(self._lib.dc_dismiss_presented(self._c, id))
    def idle_inhibit(self, on=True):
        """Keeps the screen from blanking for idleness while the app is on screen (a video plays)."""
        self._check(self._lib.dc_idle_inhibit(self._c, 1 if on else 0))
    def pip_close(self): self._check(self._lib.dc_pip_close(self._c))
    def screen_release(self, screen=2): self._check(self._lib.dc_screen_release(self._c, screen))

    def buffer(self, width, height):
        """A free buffer of that size, or None while all of that size are busy. Buffers of sizes
        no longer kept are let go here: using one raises DiptychError (its pixels, ValueError)."""
        raw = self._lib.dc_buffer_get(self._c, width, height)
        for b in list(self._buffers):
            if not b._alive():
                b._retire()
        if not raw:
            return None
        b = Buffer(raw)
        self._buffers.add(b)
        return b

    def commit(self, buffer, damage=None):
        buffer._check_alive()
        arr, n = _rects(damage)
        self._check(self._lib.dc_commit(self._c, buffer._raw, arr, n))

    def snapshot(self, buffer, serial):
        buffer._check_alive()
        self._check(self._lib.dc_snapshot(self._c, buffer._raw, serial))

    def pip_commit(self, buffer, playing=True, source=None, damage=None):
        buffer._check_alive()
        arr, n = _rects(damage)
        src = ctypes.byref(Rect(*source)) if source else None
        self._check(self._lib.dc_pip_commit(self._c, buffer._raw, int(playing), src, arr, n))

    def screen_commit(self, buffer, screen=2, damage=None):
        buffer._check_alive()
        arr, n = _rects(damage)
        self._check(self._lib.dc_screen_commit(self._c, screen, buffer._raw, arr, n))

    def set_icon(self, side, pixels, stride):
        """The app's icon: side × side premultiplied ARGB words (bytes-like), rows stride bytes apart."""
        buf = (ctypes.c_char * len(pixels)).from_buffer_copy(pixels)
        self._check(self._lib.dc_set_icon(self._c, side, buf, stride))

    def close(self):
        if self._c:
            self._lib.dc_disconnect(self._c)
            self._c = None
            for b in list(self._buffers):
                b._gone = True
                b._retire()
