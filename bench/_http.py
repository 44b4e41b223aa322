"""A lean HTTP/1.1 keep-alive client for load: one connection, one request at a time.

The benchmarks share two cores with the server, so the load generator must cost little:
httpx spent about a millisecond of CPU per request here, this client a tenth of that.
It speaks only what the benchmarks send (JSON bodies, Content-Length responses).
"""
from __future__ import annotations

import asyncio
import json


class Connection:
    def __init__(self, host: str, port: int, headers: dict[str, str] | None = None) -> None:
        self.host, self.port = host, port
        self.headers = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> Connection:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def __aexit__(self, *exc) -> None:
        self.writer.close()

    async def request(self, method: str, path: str, body: object | None = None) -> tuple[int, object]:
        """Sends one request and reads its whole response; returns (status, parsed JSON body)."""
        payload = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n{self.headers}"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        )
        self.writer.write(head.encode() + payload)
        status_line = await self.reader.readline()
        status = int(status_line.split(b" ", 2)[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        data = await self.reader.readexactly(length) if length else b""
        return status, (json.loads(data) if data else None)
