# SPDX-License-Identifier: MIT
"""The Python module asking for the same menu, alert, dismissal and idle inhibition as c-present.c."""

import diptych

c = diptych.Connection("present")
items = [("Item %03d " % i + "x" * 191, (diptych.MenuItemFlag.SELECTED if i == 7 else 0) | (diptych.MenuItemFlag.HEADER if i % 50 == 0 else 0))
         for i in range(500)]
c.present_menu(3, (10, 20, 300, 44), items, title="Pick")
c.present_alert(4, "Name?", "Type it", [("Cancel", diptych.AlertButtonStyle.CANCEL), "OK"], field=diptych.AlertField.TEXT, placeholder="Name", text="Bo")
c.dismiss_presented(4)
c.idle_inhibit(True)
c.idle_inhibit(False)
try:
    c.present_alert(5, "", "", ["a", "b", "c", "d", "e"])
    raise SystemExit("five buttons were not refused")
except diptych.DiptychError:
    pass
c.flush()
c.close()
