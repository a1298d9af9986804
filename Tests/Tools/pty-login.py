#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs COMMAND on a pseudo-terminal and answers its `Username:` and `Password:` prompts
(gvnccapture reads the password with echo off, which needs a terminal):

    pty-login.py USER PASSWORD COMMAND [ARG...]

Exits with the command's status; its output is copied to standard output.
"""

import os
import pty
import select
import sys
import termios
import time

user, password, command = sys.argv[1], sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(command[0], command)
seen, asked = b"", set()
deadline = time.time() + 45
while time.time() < deadline:
    ready, _, _ = select.select([fd], [], [], 0.5)
    if not ready:
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            break
        continue
    try:
        data = os.read(fd, 1024)
    except OSError:
        break
    if not data:
        break
    seen += data
    for prompt, answer in ((b"Username:", user), (b"Password:", password)):
        if prompt in seen and prompt not in asked:
            # The password is read with echo off, set with TCSAFLUSH, which throws away what
            # was typed before: it is typed once echo is off (on a loaded machine the prompt
            # can come well before that).
            while prompt == b"Password:" and termios.tcgetattr(fd)[3] & termios.ECHO and time.time() < deadline:
                time.sleep(0.01)
            os.write(fd, (answer + "\n").encode())
            asked.add(prompt)
_, status = os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors="replace"))
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 99)
