"""A tiny HTTP receiver on 127.0.0.1 for webhook tests: records each request, answers the statuses
it is given in turn (then 200). Tests never call the internet."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict:
        return json.loads(self.body)

    def signed_with(self, secret: str) -> bool:
        expected = "sha256=" + hmac.new(secret.encode(), self.body, hashlib.sha256).hexdigest()
        return hmac.compare_digest(self.headers.get("X-Cardleague-Signature", ""), expected)


@dataclass
class Receiver:
    url: str
    statuses: list[int]
    requests: list[Received] = field(default_factory=list)


@contextmanager
def webhook_receiver(*statuses: int):
    """Yields a Receiver listening on a free port of 127.0.0.1 until the block ends."""
    lock = threading.Lock()
    state = Receiver(url="", statuses=list(statuses))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's naming
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                state.requests.append(Received(dict(self.headers.items()), body))
                status = state.statuses.pop(0) if state.statuses else 200
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/cardleague"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
