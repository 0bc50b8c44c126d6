# SPDX-License-Identifier: MIT
"""A webhook receiver for the notification tests, on loopback.

    notify_receiver.py PORT SECRET_FILE LOG [FAIL_PATH]

Serves 127.0.0.1:PORT (0: any; the port is printed on the first line).
Each POST is checked as a Stripe-style signature, apart from sked's code:
Sked-Signature "t=T,v1=HEX" with HEX the HMAC-SHA256 of "T.BODY" under
the secret (the file's content, its trailing newline dropped), and one
JSON line is appended to LOG: {"path", "delivery", "signed" (true when
the signature holds), "type", "schedule", "id", "status"}. A POST to
FAIL_PATH (default /fail) is answered 500; any other 200.
"""
import hashlib
import hmac
import http.server
import json
import sys

port, secret_file, log = int(sys.argv[1]), sys.argv[2], sys.argv[3]
fail_path = sys.argv[4] if len(sys.argv) > 4 else "/fail"
with open(secret_file, "rb") as f:
    secret = f.read().rstrip(b"\r\n")


def signed(header, body):
    try:
        parts = dict(p.split("=", 1) for p in header.split(","))
        want = hmac.new(secret, parts["t"].encode() + b"." + body,
                        hashlib.sha256).hexdigest()
        return hmac.compare_digest(want, parts["v1"])
    except (KeyError, ValueError):
        return False


class Hook(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        status = 500 if self.path == fail_path else 200
        try:
            event = json.loads(body)
        except ValueError:
            event = {}
        line = {"path": self.path,
                "delivery": self.headers.get("Sked-Delivery"),
                "signed": signed(self.headers.get("Sked-Signature", ""), body),
                "type": event.get("type"), "schedule": event.get("schedule"),
                "id": event.get("id"), "status": status}
        with open(log, "a") as f:
            f.write(json.dumps(line) + "\n")
        self.send_response(status)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Hook)
print(server.server_address[1], flush=True)
server.serve_forever()
