# SPDX-License-Identifier: MIT
"""Probes the web client's loopback media listener (files.c) as another local process would, and
prints what it found as one JSON object (WebHardeningTests reads it).

    python3 media-listener-probe.py PORT SECRET DIR PID

DIR is the served page's folder: clip.ogv (a clip), `a%20b.ogv` (a file whose name holds a
percent sign), page.html and pipe.ogv (a FIFO); PID the web client's. Each check stands alone:

  body*     requests with a body (or a method other than GET/HEAD): closed at once, unanswered,
            however much is sent, and the client's memory does not grow with it
  host*     the secret path asked for under another Host (DNS rebinding) or none: unanswered
  get, head, range*, multi, unsatisfiable, suffix: what comes back for ranges (status, length)
  html      a file that is not a video, sound or captions file, asked for with the secret
  percent   `a%2520b.ogv` (the file `a%20b.ogv`): decoded once
  fifo      a FIFO asked for: never opened for reading (a writer waiting on it stays waiting)
  cap, idle many idle connections: those past the cap closed at once, the rest within seconds;
            a request afterwards is answered
"""

import json
import os
import socket
import sys
import threading
import time

PORT, SECRET, DIR, PID = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
HOST = "127.0.0.1:%d" % PORT
SIZE = os.path.getsize(os.path.join(DIR, "clip.ogv"))
results = {"size": SIZE}


def rss_kib():
    with open("/proc/%d/status" % PID) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def connect():
    s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    s.settimeout(5)
    return s


def answer(s, deadline=5.0):
    """What the server sent before closing or going quiet: "closed" (nothing, closed),
    "silent" (nothing within the deadline), or the bytes as text."""
    s.settimeout(deadline)
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        if not data:
            return "silent"
    except (ConnectionResetError, BrokenPipeError):
        pass
    return data.decode("latin-1") if data else "closed"


def brief(text):
    return text if text in ("closed", "silent") else "answered " + text.split("\r\n")[0]


def request(path, headers=None, method="GET", body=b""):
    """(status, headers dict, body) of one request, Connection: close; None when unanswered."""
    s = connect()
    lines = ["%s %s HTTP/1.1" % (method, path)]
    given = {"Host": HOST, "Connection": "close"}
    given.update(headers or {})
    lines += ["%s: %s" % (k, v) for k, v in given.items() if v is not None]
    s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
    text = answer(s)
    s.close()
    if text in ("closed", "silent"):
        return None
    head, _, rest = text.partition("\r\n\r\n")
    first, *fields = head.split("\r\n")
    got = {}
    for f in fields:
        k, _, v = f.partition(":")
        got[k.strip().lower()] = v.strip()
    return int(first.split()[1]), got, rest


def summary(r):
    if r is None:
        return "unanswered"
    status, headers, body = r
    return {"status": status, "length": headers.get("content-length"), "range": headers.get("content-range"),
            "type": headers.get("content-type"), "got": len(body.encode("latin-1"))}


def flood(head, seconds=2.0):
    """Sends `head` then as many body bytes as the server takes in `seconds`: how many it took,
    what it answered, and how much the client's memory grew (KiB)."""
    before = rss_kib()
    s = connect()
    s.sendall(head.encode("latin-1"))
    sent, block, end = 0, b"x" * (1 << 20), time.monotonic() + seconds
    s.settimeout(0.5)
    try:
        while time.monotonic() < end:
            sent += s.send(block)
    except (socket.timeout, BrokenPipeError, ConnectionResetError, OSError):
        pass
    text = answer(s, 2.0)
    s.close()
    time.sleep(0.3)
    return {"sent": sent, "answer": text if text in ("closed", "silent") else "answered", "grew": rss_kib() - before}


clip = "/%s%s/clip.ogv" % (SECRET, DIR)

# 1. Bodies and methods, without the secret: closed before the body is read.
results["bodyPost"] = flood("POST /x HTTP/1.1\r\nHost: %s\r\nContent-Length: 4000000000\r\n\r\n" % HOST)
results["bodyChunked"] = flood("GET /x HTTP/1.1\r\nHost: %s\r\nTransfer-Encoding: chunked\r\n\r\n40000000\r\n" % HOST)
results["bodyOptions"] = flood("OPTIONS * HTTP/1.1\r\nHost: %s\r\nContent-Length: 4000000000\r\n\r\n" % HOST)
s = connect()
s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 10\r\n\r\n" % (clip, HOST)).encode())
results["bodyShort"] = brief(answer(s, 3.0))  # (a body that never comes: closed, not waited for)
s.close()
results["method"] = summary(request(clip, method="DELETE"))

# 2. The Host header: exactly 127.0.0.1:PORT.
results["hostOther"] = summary(request(clip, {"Host": "attacker.example:%d" % PORT}))
results["hostLocalhost"] = summary(request(clip, {"Host": "localhost:%d" % PORT}))
s = connect()
s.sendall(("GET %s HTTP/1.0\r\n\r\n" % clip).encode())
results["hostNone"] = brief(answer(s, 3.0))
s.close()

# 3. Ranges.
results["get"] = summary(request(clip))
results["head"] = summary(request(clip, method="HEAD"))
results["range"] = summary(request(clip, {"Range": "bytes=0-9"}))
results["suffix"] = summary(request(clip, {"Range": "bytes=-5"}))
results["multi"] = summary(request(clip, {"Range": "bytes=" + ",".join("%d-%d" % (i, i) for i in range(0, 82, 2))}))
results["unsatisfiable"] = summary(request(clip, {"Range": "bytes=%d-" % SIZE}))
results["wrongSecret"] = summary(request("/%s%s/clip.ogv" % ("0" * 32, DIR)))

# 4. Only media and captions; decoded once.
results["html"] = summary(request("/%s%s/page.html" % (SECRET, DIR)))
results["percent"] = summary(request("/%s%s/a%%2520b.ogv" % (SECRET, DIR)))

# 5. A FIFO is never opened for reading: a writer waiting on it keeps waiting.
opened = threading.Event()


def writer():
    fd = os.open(os.path.join(DIR, "pipe.ogv"), os.O_WRONLY)
    opened.set()
    os.close(fd)


threading.Thread(target=writer, daemon=True).start()
time.sleep(0.2)
results["fifo"] = summary(request("/%s%s/pipe.ogv" % (SECRET, DIR)))
results["fifoOpened"] = opened.wait(1.0)
if not opened.is_set():  # (the writer let go)
    os.close(os.open(os.path.join(DIR, "pipe.ogv"), os.O_RDONLY | os.O_NONBLOCK))
    opened.wait(1.0)

# 6. Idle connections: the cap, then the deadline for headers.
opened_at = time.monotonic()
idle = [connect() for _ in range(40)]
time.sleep(1.0)


def closed(s):
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except (ConnectionResetError, OSError):
        return True


results["closedAtOnce"] = sum(1 for s in idle if closed(s))
time.sleep(max(0.0, opened_at + 7.0 - time.monotonic()))
results["closedLater"] = sum(1 for s in idle if closed(s))
for s in idle:
    s.close()
time.sleep(0.3)
# A slow sender (a byte every 0.4 s, never the whole headers) is closed as an idle one is.
slow = connect()
start = time.monotonic()
slow_closed = None
for ch in "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "x" * 100:
    try:
        slow.send(ch.encode())
    except OSError:
        slow_closed = time.monotonic() - start
        break
    if closed(slow):
        slow_closed = time.monotonic() - start
        break
    time.sleep(0.4)
    if time.monotonic() - start > 12:
        break
results["slowClosedAfter"] = None if slow_closed is None else round(slow_closed, 1)
slow.close()
time.sleep(0.3)
results["after"] = summary(request(clip))
# A kept-alive connection left idle after its answer is closed too.
s = connect()
s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (clip, HOST)).encode())
start, got = time.monotonic(), b""
s.settimeout(10)
try:
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
except socket.timeout:
    pass
results["keptAliveClosedAfter"] = round(time.monotonic() - start, 1)
results["keptAliveAnswered"] = got.startswith(b"HTTP/1.1 200")
s.close()

print(json.dumps(results))
