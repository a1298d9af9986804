# SPDX-License-Identifier: MIT
"""An app that asks the compositor to keep the screen awake (argv[1] "on") or not, then waits."""

import sys
import time

import diptych

c = diptych.Connection("inhibit")
c.idle_inhibit(sys.argv[1] == "on")
c.flush()
time.sleep(120)
