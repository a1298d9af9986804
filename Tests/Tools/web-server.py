# SPDX-License-Identifier: MIT
"""A small web server for the web client's tests: `basic` serves a page behind HTTP Basic
authentication (user ann, password pw: its title says who signed in), and at /flood, without
it, a page that opens three alerts and then fetches the signed-in page (its title says how that
fetch ended); `tls` serves a page over HTTPS with the certificate and key given; `media` serves
at any path a page that plays the URL in its query (in a muted <video>) and, 3 s later, posts
to its parent the src the video then has (a served page framing it learns what another site's
frame could see). Prints its port on the first line, then serves until killed.

    python3 web-server.py basic
    python3 web-server.py tls CERT KEY
    python3 web-server.py media
"""

import base64
import http.server
import ssl
import sys

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


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
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
server.serve_forever()
