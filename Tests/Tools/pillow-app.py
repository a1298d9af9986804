# SPDX-License-Identifier: MIT
"""A Python app drawing with Pillow (Debian 12's 9.4), as the module's docs say: into an Image of
the buffer's size, put into the buffer in one copy. Its pane is blue with a red square 100 px
from its top-left corner, 200 px a side. Used by PythonModuleTests."""

from PIL import Image, ImageDraw

import diptych

c = diptych.Connection("pillow")
for e in c:
    if isinstance(e, diptych.Configure):
        c.ack(e.serial)
        b = c.buffer(e.pixel_width, e.pixel_height)
        im = Image.new("RGB", (b.width, b.height), (0x20, 0x40, 0xC0))
        ImageDraw.Draw(im).rectangle((100, 100, 299, 299), fill=(0xE0, 0x10, 0x10))
        b.put_image(im)
        c.commit(b)
