#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small RFB 3.8 client for the VNC tests: no security, or VeNCrypt X509Plain (TLS, then a
user and password), as a viewer that logs in, optionally clicks and types, and stays a while.
vncdotool speaks no VeNCrypt and gvnccapture sends no input, so this drives what they cannot.

    vnc-client.py ADDRESS [--ca CERT --user U --password P] [--click X,Y] [--key KEYSYM]...
                  [--hold SECONDS] [--reads] [--force-none] [--count] [--cursor] [--latency]
                  [--drag X0,Y0,X1,Y1] [--repeat N]

ADDRESS: HOST:PORT or a Unix socket's path. Exits 0 once logged in and the server's init read
(and the input sent), 1 when the login was refused or the server closed, 2 on bad usage.
--reads: read the updates while holding (else the viewer never reads: a stalled viewer).
--force-none: choose no security even when the server offers only VeNCrypt (an attack).
--count: ask for ZRLE, read every update while holding, and print the updates and bytes received.
--cursor: as --count, and ask for the server's cursor too: each one received is printed as
  `cursor WIDTH HEIGHT HOTSPOT-X HOTSPOT-Y OPAQUE-PIXELS`.
--latency: as --count, and ask for each update's presentation time (neatvnc's pseudo-encoding,
  the frame's monotonic time): prints the median and 95th percentile of the time from a frame to
  the whole update received, and each update's bytes.
--repeat: log in N times in a row, closing each time, and print how many were refused.
--drag: press the left button at (X0, Y0), move to (X1, Y1) and back at 60 steps a second
  for the hold's seconds, then release (an operator dragging the divider).
"""

import argparse
import socket
import ssl
import struct
import sys
import time


def exact(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    return data


def connect(address):
    if address.startswith("/"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(address)
        return s
    host, port = address.rsplit(":", 1)
    return socket.create_connection((host.strip("[]"), int(port)), timeout=20)


def login(args):
    s = connect(args.address)
    s.settimeout(20)
    exact(s, 12)
    s.sendall(b"RFB 003.008\n")
    count = exact(s, 1)[0]
    if count == 0:
        raise ConnectionError("the server refused: " + exact(s, struct.unpack(">I", exact(s, 4))[0]).decode(errors="replace"))
    types = list(exact(s, count))
    if args.force_none:
        # What a hostile local process might try: no security, though it was not offered.
        s.sendall(bytes([1]))
    elif args.user is None:
        if 1 not in types:
            raise ConnectionError(f"no plain security offered: {types}")
        s.sendall(bytes([1]))
    else:
        if 19 not in types:
            raise ConnectionError(f"no VeNCrypt offered: {types}")
        s.sendall(bytes([19]))
        exact(s, 2)
        s.sendall(bytes([0, 2]))
        if exact(s, 1)[0] != 0:
            raise ConnectionError("VeNCrypt 0.2 refused")
        n = exact(s, 1)[0]
        subtypes = struct.unpack(">" + "I" * n, exact(s, 4 * n))
        if 262 not in subtypes:
            raise ConnectionError(f"no X509Plain: {subtypes}")
        s.sendall(struct.pack(">I", 262))
        if exact(s, 1)[0] != 1:
            raise ConnectionError("X509Plain refused")
        context = ssl.create_default_context(cafile=args.ca)
        s = context.wrap_socket(s, server_hostname="localhost")
        user, password = args.user.encode(), args.password.encode()
        s.sendall(struct.pack(">II", len(user), len(password)) + user + password)
    if struct.unpack(">I", exact(s, 4))[0] != 0:
        raise ConnectionError("login refused")
    s.sendall(bytes([1]))  # shared
    width, height = struct.unpack(">HH", exact(s, 4))
    exact(s, 16)
    exact(s, struct.unpack(">I", exact(s, 4))[0])
    return s, width, height


def count_updates(s, width, height, end, cursor=False, latency=False):
    """Reads framebuffer updates (ZRLE) until `end`, asking for the next after each, and prints
    how many came and their bytes (and each cursor, with `cursor`; their latency, with
    `latency`)."""
    ages, sizes = [], []
    updates = total = 0
    s.settimeout(1)
    start = time.time()
    while time.time() < end:
        try:
            kind = exact(s, 1)[0]
        except (socket.timeout, TimeoutError):
            continue
        if kind != 0:
            raise ConnectionError(f"unexpected message {kind}")
        # (The 1 s timeout is for waiting on an update; the rest of one is read patiently.)
        s.settimeout(20)
        size = 4
        pts = None
        rects = struct.unpack(">xH", exact(s, 3))[0]
        for _ in range(rects):
            x, y, w, h, enc = struct.unpack(">HHHHi", exact(s, 12))
            size += 12
            if enc == 16:
                n = struct.unpack(">I", exact(s, 4))[0]
                exact(s, n)
                size += 4 + n
            elif enc == 0:
                exact(s, w * h * 4)
                size += w * h * 4
            elif enc == -239:
                exact(s, w * h * 4)
                mask = exact(s, (w + 7) // 8 * h)
                size += w * h * 4 + len(mask)
                opaque = sum(bin(b).count("1") for b in mask)
                print(f"cursor {w} {h} {x} {y} {opaque}", flush=True)
            elif enc == -1000:
                pts = struct.unpack(">Q", exact(s, 8))[0]
                size += 8
            else:
                raise ConnectionError(f"an encoding not asked for: {enc}")
        if pts is not None:
            ages.append(time.clock_gettime_ns(time.CLOCK_MONOTONIC) / 1000 - pts)
            sizes.append(size)
        updates += 1
        total += size
        s.settimeout(1)
        s.sendall(struct.pack(">BBHHHH", 3, 1, 0, 0, width, height))
    seconds = time.time() - start
    print(f"updates {updates} bytes {total} seconds {seconds:.2f}", flush=True)
    if ages:
        ages.sort()
        print(f"latency p50 {ages[len(ages) // 2] / 1000:.1f} ms p95 {ages[len(ages) * 95 // 100] / 1000:.1f} ms of {len(ages)}", flush=True)
        print("sizes " + " ".join(str(n) for n in sizes), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("address")
    p.add_argument("--ca")
    p.add_argument("--user")
    p.add_argument("--password", default="")
    p.add_argument("--click", action="append", default=[])
    p.add_argument("--key", action="append", default=[])
    p.add_argument("--hold", type=float, default=0)
    p.add_argument("--reads", action="store_true")
    p.add_argument("--force-none", action="store_true")
    p.add_argument("--count", action="store_true")
    p.add_argument("--cursor", action="store_true")
    p.add_argument("--latency", action="store_true")
    p.add_argument("--drag")
    p.add_argument("--repeat", type=int, default=1)
    args = p.parse_args()
    if args.repeat > 1:
        refused = 0
        for _ in range(args.repeat):
            try:
                login(args)[0].close()
            except (ConnectionError, OSError, ssl.SSLError, struct.error):
                refused += 1
        print(f"refused {refused} of {args.repeat}", flush=True)
        return 0
    try:
        s, width, height = login(args)
    except (ConnectionError, OSError, ssl.SSLError, struct.error) as e:
        print(f"vnc-client: {e}", file=sys.stderr)
        return 1
    print(f"logged in: {width}x{height}", flush=True)
    if args.count or args.cursor or args.latency:
        # ZRLE, raw, the cursor and presentation time pseudo-encodings
        encodings = [16, 0] + ([-239] if args.cursor else []) + ([-1000] if args.latency else [])
        s.sendall(struct.pack(">BxH", 2, len(encodings)) + struct.pack(">" + "i" * len(encodings), *encodings))
    # A first update asked for, as viewers do.
    s.sendall(struct.pack(">BBHHHH", 3, 0, 0, 0, width, height))
    for c in args.click:
        x, y = (int(v) for v in c.split(","))
        s.sendall(struct.pack(">BBHH", 5, 0, x, y) + struct.pack(">BBHH", 5, 1, x, y) + struct.pack(">BBHH", 5, 0, x, y))
        time.sleep(0.2)
    for k in args.key:
        sym = int(k, 0)
        s.sendall(struct.pack(">BBHI", 4, 1, 0, sym) + struct.pack(">BBHI", 4, 0, 0, sym))
        time.sleep(0.1)
    end = time.time() + args.hold
    if args.drag:
        x0, y0, x1, y1 = (int(v) for v in args.drag.split(","))
        start, step = time.time(), 0
        s.sendall(struct.pack(">BBHH", 5, 1, x0, y0))
        while time.time() < end:
            # There and back every 2 s.
            t = ((time.time() - start) / 2) % 1
            f = 2 * t if t < 0.5 else 2 - 2 * t
            s.sendall(struct.pack(">BBHH", 5, 1, round(x0 + (x1 - x0) * f), round(y0 + (y1 - y0) * f)))
            step += 1
            time.sleep(max(0, start + step / 60 - time.time()))
        s.sendall(struct.pack(">BBHH", 5, 0, x0, y0))
        end = 0
    if args.count or args.cursor or args.latency:
        count_updates(s, width, height, end, cursor=args.cursor, latency=args.latency)
        end = 0
    while time.time() < end:
        if args.reads:
            s.settimeout(max(0.05, end - time.time()))
            try:
                if not s.recv(1 << 16):
                    break
            except (socket.timeout, TimeoutError):
                pass
            s.sendall(struct.pack(">BBHHHH", 3, 1, 0, 0, width, height))
        else:
            time.sleep(min(0.2, max(0, end - time.time())))
    s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
