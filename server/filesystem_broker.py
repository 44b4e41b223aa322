"""kombu's filesystem transport (the embedded default's broker), made safe to poll often.

It creates a message file and writes it afterwards; a worker polling in between reads an
empty file and dies on the JSON. Here a message is written under a name no reader looks at
and renamed into the queue, so it appears whole.
"""
from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


def _put_whole(self, queue, payload, **kwargs):
    """`Channel._put`, writing under a hidden name and renaming it into the queue."""
    name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
    hidden = os.path.join(self.data_folder_out, f".writing-{uuid.uuid4()}")
    with open(hidden, "wb") as message:
        message.write(str_to_bytes(dumps(payload)))
    os.replace(hidden, os.path.join(self.data_folder_out, name))


def install() -> None:
    filesystem.Channel._put = _put_whole
