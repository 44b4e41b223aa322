"""Writes of the league log: the integrator, which appends pending facts and signs a checkpoint."""
from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from leaguelog import merkle, selectors
from leaguelog.checkpoint import Checkpoint
from leaguelog.cosignature import verify_cosignature_line
from leaguelog.models import LogCheckpoint, LogCosignature, LogEntry, LogHash, LogHead, LogPending
from leaguelog.notes import NoteError, parse_note, parse_signature_line, parse_signer_key, parse_verifier_key, sign_note
from server.errors import bad_request, english_or, forbidden, not_found

INTEGRATE_BATCH = 2_000


def log_integrate(*, batch: int = INTEGRATE_BATCH) -> int:
    """Appends up to `batch` pending facts to the log, in the order they were queued, and signs a
    checkpoint of the new size; the first run signs the empty log's. Returns the entries appended.

    Lock: the log's head row (`select_for_update`) for the whole transaction, so one integrator
    at a time appends and the indexes follow a single order. A fact that must wait (see
    `selectors.pending_entries`) stays queued; those behind it go on.
    """
    with transaction.atomic():
        # The one head row, made by the first integration (or again after a database is emptied).
        head, _ = LogHead.objects.select_for_update().get_or_create(pk=1)
        pending = list(LogPending.objects.order_by("id")[:batch])
        ready = selectors.pending_entries(pending)
        entries = [
            LogEntry(index=head.size + offset, kind=fact.kind, source_id=fact.source_id, part=part, body=body)
            for offset, (fact, part, body) in enumerate(
                (fact, part, body) for fact, parts in ready if parts is not None for part, body in enumerate(parts)
            )
        ]
        waiting = {fact.pk for fact, parts in ready if parts is None}
        LogPending.objects.filter(pk__in=[fact.pk for fact in pending if fact.pk not in waiting]).delete()
        if not entries and LogCheckpoint.objects.exists():
            return 0
        new_hashes = _hashes_appended(head.size, [bytes(entry.body) for entry in entries])
        LogEntry.objects.bulk_create(entries)
        LogHash.objects.bulk_create(
            LogHash(level=level, index=index, hash=value) for (level, index), value in new_hashes.items()
        )
        head.size += len(entries)
        head.save(update_fields=["size"])
        root = selectors.read_once(lambda read: merkle.tree_hash(head.size, read), known=new_hashes)
        LogCheckpoint.objects.create(size=head.size, root_hash=root, note=checkpoint_note(head.size, root))
    return len(entries)


def _hashes_appended(size: int, bodies: list[bytes]) -> dict[tuple[int, int], bytes]:
    """The stored hashes that appending `bodies` to a log of `size` entries adds, by address."""
    added: dict[tuple[int, int], bytes] = {}
    # Appending reads only the stored hashes of the complete subtrees the log holds now (each new
    # right child's left sibling): one query for all of them.
    edge = {
        (level, (size >> level) - 1) for level in range(size.bit_length()) if size >> level & 1
    }
    known = selectors.stored_hashes(edge)
    for offset, body in enumerate(bodies):
        for stored in merkle.stored_hashes_for_leaf(
            size + offset, merkle.leaf_hash(body), lambda level, index: added.get((level, index)) or known[(level, index)]
        ):
            added[(stored.level, stored.index)] = stored.hash
    return added


def checkpoint_note(size: int, root: bytes) -> str:
    """The checkpoint of a tree of `size` entries with this root, signed by the log's key."""
    key = parse_signer_key(settings.LOG_SIGNING_KEY)
    # The origin is the key's name, as C2SP logs name themselves: one name for witnesses to know.
    return sign_note(Checkpoint(origin=key.name, size=size, root_hash=root).body(), [key])


def cosignature_add(*, size: int, line: str) -> bool:
    """Stores a witness's cosignature of the checkpoint of `size` entries, if the witness is one
    of LOG_WITNESSES and the line verifies; returns whether it is new (a repeat changes nothing)."""
    checkpoint = LogCheckpoint.objects.filter(size=size).first()
    if checkpoint is None:
        raise not_found("checkpoint_not_found", _("The log signed no checkpoint of %(size)s entries.") % {"size": size})
    try:
        signature = parse_signature_line(line if line.endswith("\n") else line + "\n")
    except NoteError as error:
        raise bad_request("bad_cosignature", english_or(str(error), _("The cosignature line cannot be read."))) from error
    witnesses = [parse_verifier_key(key) for key in settings.LOG_WITNESSES]
    witness = next((w for w in witnesses if (w.name, w.key_id) == (signature.name, signature.key_id)), None)
    if witness is None:
        raise forbidden("unknown_witness", _("%(name)s is not one of this log's witnesses.") % {"name": repr(signature.name)})
    body, _signatures = parse_note(checkpoint.note)
    try:
        verify_cosignature_line(signature.line(), body, witness)
    except NoteError as error:
        raise bad_request("bad_cosignature", english_or(str(error), _("The cosignature does not verify."))) from error
    _cosignature, created = LogCosignature.objects.get_or_create(
        checkpoint=checkpoint, witness=witness.name, defaults={"line": signature.line()}
    )
    return created
