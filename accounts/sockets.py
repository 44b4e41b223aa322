"""What every socket of a signed-in person shares: it lives no longer than what let it in."""
from __future__ import annotations

import asyncio
import logging

from channels.db import database_sync_to_async
from django.conf import settings

from accounts.services import socket_credential_valid

log = logging.getLogger(__name__)


async def credential_ended(scope: dict, user_id: int) -> None:
    """Returns once the socket's API token is revoked or expires, or its session logs out,
    looked at every `SOCKET_CREDENTIAL_CHECK_SECONDS`."""
    session = scope.get("session")
    credential = {
        "user_id": user_id, "token_sha256": scope.get("token_sha256"),
        "session_key": session.session_key if session is not None else None,
    }
    check = database_sync_to_async(socket_credential_valid, thread_sensitive=False)
    while True:
        await asyncio.sleep(settings.SOCKET_CREDENTIAL_CHECK_SECONDS)
        try:
            if not await check(**credential):
                return
        except Exception:  # noqa: BLE001 - the database away for a while: check again later
            log.warning("could not check the credential of a socket of user %s", user_id, exc_info=True)
