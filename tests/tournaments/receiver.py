"""A tiny HTTP receiver on 127.0.0.1 for webhook tests: records each request, answers the statuses
it is given in turn (then 200). Tests never call the internet.

Webhooks reach it only where a test sets WEBHOOK_ALLOW_PRIVATE_ADDRESSES (and WEBHOOK_ALLOW_HTTP
unless it speaks TLS), as production never does."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import ssl
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    method: str = "POST"

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
def webhook_receiver(
    *statuses: int, location: str = "", name: str = "127.0.0.1", tls: ssl.SSLContext | None = None
):
    """Yields a Receiver listening on a free port of 127.0.0.1 until the block ends.

    `location` goes with every answer (a redirect's target); the URL names the host `name` (a
    test resolves it); with `tls` it speaks https.
    """
    lock = threading.Lock()
    state = Receiver(url="", statuses=list(statuses))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's naming
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                state.requests.append(Received(dict(self.headers.items()), body, self.command))
                status = state.statuses.pop(0) if state.statuses else 200
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST  # noqa: N815 - a client that follows a redirect may come back with a GET

        def log_message(self, *args):  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    scheme = "https" if tls is not None else "http"
    state.url = f"{scheme}://{name}:{server.server_address[1]}/hooks/cardleague"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def tls_for(name: str, folder: Path) -> tuple[ssl.SSLContext, Path]:
    """A server context with a certificate for `name`, and the file of the test CA that signed it
    (cryptography comes with daphne's twisted[tls])."""

    def certificate(subject: str, key, issuer: str, issuer_key, *, ca: bool) -> x509.Certificate:
        now = dt.datetime.now(dt.UTC)
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(hours=1))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if ca:
            builder = builder.add_extension(
                x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
            ).add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        else:
            builder = builder.add_extension(
                x509.SubjectAlternativeName([x509.DNSName(subject)]), critical=False
            ).add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False
            )
        return builder.sign(issuer_key, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = certificate("cardleague test CA", ca_key, "cardleague test CA", ca_key, ca=True)
    leaf = certificate(name, key, "cardleague test CA", ca_key, ca=False)
    ca_file, cert_file, key_file = folder / "ca.pem", folder / "cert.pem", folder / "key.pem"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    return context, ca_file
