"""Structured logs: one JSON object per line, with the request and match ids of the context."""
from __future__ import annotations

import json
import logging
import re
from contextvars import ContextVar
from datetime import UTC, datetime
from urllib.parse import unquote_plus

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
match_id: ContextVar[int | None] = ContextVar("match_id", default=None)


class ContextFilter(logging.Filter):
    """Puts the current request id and match id on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = getattr(record, "request_id", None) or request_id.get()
        record.match_id = getattr(record, "match_id", None) or match_id.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
            "match_id": getattr(record, "match_id", None),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    """One readable line per record for a console: the request and match ids only where there
    are some (a line outside any request, most of a console, would otherwise end in `None`s)."""

    # uvicorn logs its start-up and socket lines as "uvicorn.error" whatever their level: on a
    # console "INFO uvicorn.error Started server process" reads as a problem.
    SHOWN_NAMES = {"uvicorn.error": "uvicorn"}

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(shown_name)s%(context)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        record.shown_name = self.SHOWN_NAMES.get(record.name, record.name)
        parts = [
            f"{label} {value}"
            for label, value in (("req", getattr(record, "request_id", None)), ("match", getattr(record, "match_id", None)))
            if value is not None
        ]
        record.context = f" [{' '.join(parts)}]" if parts else ""
        return super().format(record)


class RepeatedLineFilter(logging.Filter):
    """Drops the websockets library's "connection open", logged (through uvicorn's logger) right
    after uvicorn's own `"WebSocket /path" [accepted]` line for the same socket."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name == "uvicorn.error" and record.msg == "connection open")


_QUERY_PAIR = re.compile(r"(?<=[?&])([^=&#\s\"]*)=([^&#\s\"]*)")
_SECRET_PARAMETERS = {"token", "ticket"}


def _pair_redacted(pair: re.Match) -> str:
    # Decoded as the server decodes it: `%74oken=` is a token too.
    return f"{pair[1]}=[redacted]" if unquote_plus(pair[1]).lower() in _SECRET_PARAMETERS else pair[0]


# A password reset link's token is in its path (Django's PasswordResetConfirmView); the page
# swaps it for a session's at once, but the first request's access line would still show it.
_RESET_TOKEN = re.compile(r"(/account/reset/[^/\s\"?]+/)(?!set-password\b)[^/\s\"?]+")


def secrets_redacted(text: str) -> str:
    """`text` with the values of `token` and `ticket` in any URL query it holds blanked, and the
    token of a password reset link."""
    if "/account/reset/" in text:
        text = _RESET_TOKEN.sub(r"\1[redacted]", text)
    return _QUERY_PAIR.sub(_pair_redacted, text) if "=" in text else text


class SecretQueryFilter(logging.Filter):
    """Blanks API tokens and socket tickets in logged URLs: uvicorn's access lines (and its
    WebSocket "accepted" lines) print each request's path with its query."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = secrets_redacted(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(secrets_redacted(arg) if isinstance(arg, str) else arg for arg in record.args)
        return True


def uvicorn_logs_redacted() -> None:
    """Puts `SecretQueryFilter` on the loggers uvicorn writes URLs to, however it was started
    (its command line configures its own logging before it loads this application)."""
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(existing, SecretQueryFilter) for existing in logger.filters):
            logger.addFilter(SecretQueryFilter())
