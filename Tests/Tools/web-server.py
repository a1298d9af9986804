# SPDX-License-Identifier: MIT
"""A small web server for the web client's tests: `basic` serves a page behind HTTP Basic
authentication (user ann, password pw: its title says who signed in), and at /flood, without
it, a page that opens three alerts and then fetches the signed-in page (its title says how that
fetch ended); `tls` serves a page over HTTPS with the certificate and key given; `media` serves
at any path a page that plays the URL in its query (in a muted <video>) and, 3 s later, posts
to its parent the src the video then has (a served page framing it learns what another site's
frame could see); `sign-in` serves an ordinary sign-in form at / (three fields and a button, the
last two and the button low on the page, under an on-screen keyboard), takes its POST at
/sign-in (at most 4 KiB; its body is appended as one line to the file named) and answers with a
303 to /welcome, a page whose top is a green band. Prints its port on the first line, then
serves until killed (or for 5 minutes at most).

    python3 web-server.py basic
    python3 web-server.py tls CERT KEY
    python3 web-server.py media
    python3 web-server.py sign-in RECEIVED
"""

import base64
import http.server
import os
import ssl
import sys
import threading

PAGE = b"<!doctype html><meta charset='utf-8'><title>%s</title><body style='background:#efe'>%s</body>"
FLOOD = (b"<!doctype html><meta charset='utf-8'><title>flood</title><body style='background:#efe'><script>"
         b"for (var i = 1; i <= 3; i++) alert('Alert ' + i);"
         b"fetch('/').then(function (r) { document.title = 'fetched ' + r.status; }, function (e) { document.title = 'failed'; });"
         b"</script></body>")


MEDIA = (b"<!doctype html><meta charset='utf-8'><title>framed</title><body style='background:#fee'>"
         b"<video id='v' muted autoplay></video><script>"
         b"v.src = location.search.slice(1);"
         b"setTimeout(function () { parent.postMessage('framed ' + v.src, '*'); }, 3000);"
         b"</script></body>")


# A page reports where its focus is, its inner height and its scroll position in its title
# (the web client logs each title), as a test reads them.
SIGN_IN = b"""<!doctype html><meta charset='utf-8'><meta name='viewport' content='width=device-width'>
<title>sign in</title>
<style>
  body { margin: 0; font: 20px sans-serif; background: #fff; color: #1c1c1e; }
  header { height: 120px; background: #f2f2f7; }
  h1 { margin: 0; padding: 40px 16px 0; font-size: 30px; }
  label { display: block; margin: 12px 16px 4px; color: #636366; font-size: 17px; }
  input { display: block; box-sizing: border-box; height: 44px; width: calc(100% - 32px); margin: 0 16px;
          font: 20px sans-serif; border: 1px solid #c7c7cc; border-radius: 8px; padding: 0 8px; }
  .gap { height: 200px; }
  button { display: block; height: 56px; width: calc(100% - 32px); margin: 24px 16px 16px; border: 0; border-radius: 12px;
           background: #0a84ff; color: #fff; font: 22px sans-serif; }
</style>
<header><h1>Staff sign-in</h1></header>
<form method='post' action='/sign-in'>
  <label for='name'>Name</label><input id='name' name='name' autocapitalize='words'>
  <div class='gap'></div>
  <label for='email'>Email</label><input id='email' name='email' type='email'>
  <label for='password'>Password</label><input id='password' name='password' type='password'>
  <button>Sign in</button>
</form>
<script>
  function report() {
    var a = document.activeElement;
    document.title = 'focus=' + (a && a.name ? a.name : 'none') + '|inner=' + innerHeight + '|scroll=' + Math.round(scrollY);
  }
  addEventListener('focusin', report);
  addEventListener('focusout', function () { setTimeout(report, 0); });
  addEventListener('resize', report);
  addEventListener('scroll', report);
  report();
</script>"""

WELCOME = (b"<!doctype html><meta charset='utf-8'><meta name='viewport' content='width=device-width'><title>welcome</title>"
           b"<body style='margin:0;font:20px sans-serif'><div style='height:160px;background:#34c759'></div>"
           b"<p style='margin:16px'>Signed in.</p><div style='height:2000px'></div></body>")


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def page(self, body):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0") or "0")
        if sys.argv[1] != "sign-in" or self.path != "/sign-in" or not 0 <= length <= 4096:
            self.send_response(413 if length > 4096 else 404)
            self.end_headers()
            return
        body = self.rfile.read(length)
        with open(sys.argv[2], "ab") as f:
            f.write(body + b"\n")
        self.send_response(303)
        self.send_header("Location", "/welcome")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        if sys.argv[1] == "sign-in":
            self.page(WELCOME if self.path == "/welcome" else SIGN_IN)
            return
        if sys.argv[1] == "media":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(MEDIA)))
            self.end_headers()
            self.wfile.write(MEDIA)
            return
        if sys.argv[1] == "basic" and self.path == "/flood":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(FLOOD)))
            self.end_headers()
            self.wfile.write(FLOOD)
            return
        if sys.argv[1] == "basic":
            given = self.headers.get("Authorization", "")
            if given != "Basic " + base64.b64encode(b"ann:pw").decode():
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="Staff"')
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(PAGE % (b"refused", b"no"))
                return
            body = PAGE % (b"welcome ann", b"hello")
        else:
            body = PAGE % (b"secure page", b"hello")
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
if sys.argv[1] == "tls":
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
# Bounded: a test that forgets it does not leave it running.
threading.Timer(300, lambda: os._exit(0)).start()
server.serve_forever()
