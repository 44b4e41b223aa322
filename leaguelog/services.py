"""Writes of the league log: the integrator, which appends pending facts and signs a checkpoint,
keeps the mirror (`leaguelog.mirror`) and brings a restored database back up to it."""
from __future__ import annotations

import json
import logging

from django.conf import settings
from django.db import connection, models, transaction
from django.utils.translation import gettext as _

from games.models import Match
from leaguelog import merkle, selectors, tiles
from leaguelog.checkpoint import Checkpoint
from leaguelog.cosignature import verify_cosignature_line
from leaguelog.mirror import CHECKPOINT, CHECKPOINT_NEXT, LogMirror, MirrorError
from leaguelog.models import Kind, LogCheckpoint, LogCosignature, LogEntry, LogHash, LogHead, LogPending
from leaguelog.notes import NoteError, parse_note, parse_signature_line, parse_signer_key, parse_verifier_key, sign_note
from ratings.models import RatingEntry
from server.errors import ApplicationError, bad_request, english_or, forbidden, not_found
from tournaments.models import Series, SeriesDecision, Tournament, TournamentEvent

log = logging.getLogger(__name__)

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
        head, _created = LogHead.objects.select_for_update().get_or_create(pk=1)
        mirror = selectors.log_mirror()
        if mirror is not None:
            _caught_up_with_mirror(head, mirror)
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
        old_size = head.size
        new_hashes = _hashes_appended(head.size, [bytes(entry.body) for entry in entries])
        LogEntry.objects.bulk_create(entries)
        LogHash.objects.bulk_create(
            LogHash(level=level, index=index, hash=value) for (level, index), value in new_hashes.items()
        )
        head.size += len(entries)
        head.save(update_fields=["size"])
        root = selectors.read_once(lambda read: merkle.tree_hash(head.size, read), known=new_hashes)
        checkpoint = LogCheckpoint.objects.create(size=head.size, root_hash=root, note=checkpoint_note(head.size, root))
        if mirror is not None:
            # Before the commit: once the checkpoint can be served, the mirror holds it and its tiles.
            try:
                _mirror_written(mirror, old_size, head.size)
                mirror.replace_note(CHECKPOINT_NEXT, checkpoint.note)
            except MirrorError as error:  # a full disk, a tile of another history: nothing commits
                raise _refused(selectors.mirror_disagrees(str(error))) from error
            transaction.on_commit(lambda: _mark_raised(mirror, checkpoint.note))
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
    mirror = selectors.log_mirror()
    if created and mirror is not None:
        # The mark keeps the witnesses' word with it: a restore cannot lose what they cosigned.
        transaction.on_commit(lambda: _mark_raised(mirror, selectors.checkpoint_served(checkpoint)))
    return created


# --- the mirror and recovery: the log never publishes less than it published before -------------


def log_recover() -> int:
    """Brings the database's log up to the mirror's mark (after a restore) and the mirror up to the
    database; returns the entries recovered. ApplicationError `log_behind_mirror` or
    `log_mirror_disagrees` when it cannot: then nothing is integrated or published."""
    mirror = selectors.log_mirror()
    if mirror is None:
        return 0
    with transaction.atomic():
        head, _created = LogHead.objects.select_for_update().get_or_create(pk=1)
        before = head.size
        _caught_up_with_mirror(head, mirror)
        return head.size - before


def _caught_up_with_mirror(head: LogHead, mirror: LogMirror) -> None:
    """Under the head's lock: the database's log extends the mirror's mark (recovering the entries
    it lost from the mirror's tiles), and the mark is the database's newest checkpoint."""
    try:
        marks = [marked for name in (CHECKPOINT, CHECKPOINT_NEXT) if (marked := selectors.mirror_mark(mirror, name))]
        # The larger of the two: a batch's `checkpoint.next` may have been served (its commit
        # went through) though the process died before making it the mark.
        target = max(marks, key=lambda marked: marked[0].size, default=None)
        if target is not None:
            mark, note = target
            if mark.size > head.size:
                _recovered(head, mirror, mark, note)
            elif not LogCheckpoint.objects.filter(size=mark.size, root_hash=mark.root_hash).exists():
                raise selectors.mirror_disagrees(
                    f"the mirror's checkpoint of {mark.size} entries is not one this database's log signed"
                )
        latest = selectors.checkpoint_latest()
        if latest is not None:
            published = selectors.mirror_mark(mirror)
            _mirror_written(mirror, 0 if published is None else published[0].size, latest.size)
            _mark_raised(mirror, selectors.checkpoint_served(latest))
        mirror.remove(CHECKPOINT_NEXT)
    except MirrorError as error:
        raise _refused(selectors.mirror_disagrees(str(error))) from error
    except ApplicationError as refusal:
        raise _refused(refusal) from None


def _refused(refusal: ApplicationError) -> ApplicationError:
    # Loud on purpose: every integration logs it again until an operator acts.
    log.error("league log: %s (%s)", refusal.code, refusal.extra.get("detail", ""), extra={"refusal": refusal.as_dict()})
    return refusal


def _mirror_written(mirror: LogMirror, old_size: int, new_size: int) -> None:
    """Writes the hash tiles, entry bundles and their sources that the tree of `new_size` entries
    has and the tree of `old_size` lacks (full ones are already there; partial ones have paths of
    their own), read from the database inside the caller's transaction."""
    if new_size <= old_size:
        return
    for tile in tiles.hash_tiles_for_size(new_size):
        if (tile.index + 1) * tiles.TILE_WIDTH << (tiles.TILE_HEIGHT * tile.level) > old_size or tile.width < tiles.TILE_WIDTH:
            mirror.write_once(tile.path(), selectors.hash_tile(tile))
    first_bundle = old_size // tiles.TILE_WIDTH
    for bundle in tiles.entry_bundles_for_size(new_size)[first_bundle:]:
        start = bundle.index * tiles.TILE_WIDTH
        rows = list(
            LogEntry.objects.filter(index__gte=start, index__lt=start + bundle.width)
            .order_by("index").values_list("body", "kind", "source_id", "part")
        )
        mirror.write_once(bundle.path(), tiles.entry_bundle_bytes([bytes(row[0]) for row in rows]))
        mirror.write_sources(bundle, [(kind, source_id, part) for _body, kind, source_id, part in rows])


def _mark_raised(mirror: LogMirror, note: str) -> None:
    """Makes `note` the mark unless the mark is already larger: it never moves back."""
    with mirror.locked():
        marked = selectors.mirror_mark(mirror)
        if marked is None or (
            marked[1] != note and Checkpoint.parse(note[: note.rfind("\n\n") + 1]).size >= marked[0].size
        ):
            mirror.replace_note(CHECKPOINT, note)
        if mirror.note(CHECKPOINT_NEXT) == note:
            mirror.remove(CHECKPOINT_NEXT)


def _recovered(head: LogHead, mirror: LogMirror, mark: Checkpoint, note: str) -> None:
    """Appends the entries from head.size to the mark's size from the mirror's bundles, once they
    hash, with the database's own first entries, to the mark's signed root; then the mark's
    checkpoint and cosignatures, as the log's own append path would have stored them."""
    old_size = head.size
    rows: list[tuple[bytes, tuple[str, int, int]]] = []
    for bundle in tiles.entry_bundles_for_size(mark.size)[old_size // tiles.TILE_WIDTH:]:
        data = mirror.read(bundle.path())
        if data is None:
            raise selectors.log_behind_mirror(old_size, mark.size, f"the mirror lacks {bundle.path()}")
        try:
            bodies = tiles.parse_entry_bundle(data, bundle.width)
        except tiles.TileError as error:
            raise selectors.log_behind_mirror(old_size, mark.size, f"{bundle.path()}: {error}") from error
        sources = mirror.sources(bundle) or _sources_of(bodies)
        if len(sources) != bundle.width:
            raise selectors.log_behind_mirror(old_size, mark.size, f"{bundle.path()}'s sources do not name one row an entry")
        start = bundle.index * tiles.TILE_WIDTH
        rows.extend((body, source) for offset, (body, source) in enumerate(zip(bodies, sources)) if start + offset >= old_size)
    new_hashes = _hashes_appended(old_size, [body for body, _source in rows])
    root = selectors.read_once(lambda read: merkle.tree_hash(mark.size, read), known=new_hashes)
    if root != mark.root_hash:
        raise selectors.mirror_disagrees(
            f"the database's {old_size} entries and the mirror's next {mark.size - old_size} do not make the "
            f"mirror's signed tree of {mark.size}"
        )
    LogEntry.objects.bulk_create(
        LogEntry(index=old_size + offset, kind=kind, source_id=source_id, part=part, body=body)
        for offset, (body, (kind, source_id, part)) in enumerate(rows)
    )
    LogHash.objects.bulk_create(LogHash(level=level, index=index, hash=value) for (level, index), value in new_hashes.items())
    head.size = mark.size
    head.save(update_fields=["size"])
    body, signatures = parse_note(note)
    origin = parse_signer_key(settings.LOG_SIGNING_KEY).name
    own = [signature for signature in signatures if signature.name == origin]
    checkpoint = LogCheckpoint.objects.create(
        size=mark.size, root_hash=mark.root_hash, note=body + "\n" + "".join(s.line() for s in own)
    )
    witnesses = {(w.name, w.key_id): w for w in (parse_verifier_key(key) for key in settings.LOG_WITNESSES)}
    for signature in signatures:
        witness = witnesses.get((signature.name, signature.key_id))
        if witness is not None and signature.name != origin:
            verify_cosignature_line(signature.line(), body, witness)
            LogCosignature.objects.create(checkpoint=checkpoint, witness=witness.name, line=signature.line())
    _ids_never_given_again([json.loads(body) for body, _source in rows], [source for _body, source in rows])
    log.warning(
        "league log: recovered entries %s to %s from the mirror %s, up to its signed checkpoint",
        old_size, mark.size - 1, mirror.root,
    )


def _sources_of(bodies: list[bytes]) -> list[tuple[str, int, int]]:
    """The rows behind entries read from a copy of the tiles without the server's `sources/` (a
    verifier's or a cache's): named in the entries, but for a tournament event or a series decision,
    which name their stream and seq; one the database lost gets a new id of its table (its own was never logged)."""
    sources = []
    for body in bodies:
        entry = json.loads(body)
        kind = entry["of"] if entry["type"] == "part" else entry["type"]
        if entry["type"] == "part":
            sources.append((kind, entry["source"], entry["part"]))
        elif kind == Kind.TOURNAMENT_EVENT:
            row = TournamentEvent.objects.filter(tournament_id=entry["tournament"], seq=entry["seq"]).first()
            sources.append((kind, row.pk if row is not None else _fresh_id(TournamentEvent._meta.db_table), 0))
        elif kind == Kind.SERIES_DECISION:
            decision = SeriesDecision.objects.filter(series_id=entry["series"], seq=entry["seq"]).first()
            sources.append((kind, decision.pk if decision is not None else _fresh_id(SeriesDecision._meta.db_table), 0))
        else:
            sources.append((kind, entry["match"] if kind == Kind.MATCH else entry["id"], 0))
    return sources


_SOURCE_MODELS: dict[str, type[models.Model]] = {
    Kind.MATCH: Match, Kind.TOURNAMENT_EVENT: TournamentEvent, Kind.RATING_ENTRY: RatingEntry,
    Kind.SERIES_DECISION: SeriesDecision,
}


def _ids_never_given_again(entries: list[dict], sources: list[tuple[str, int, int]]) -> None:
    """Moves the id sequences of matches, tournaments, their events, rating rows, series and their
    decisions past every id the recovered entries name: the rows lost with the restore keep their
    log entries, and a new row given one of their ids would be taken for a fact already logged (and never logged)."""
    highest: dict[type[models.Model], int] = {}

    def named(model: type[models.Model], row_id: int) -> None:
        highest[model] = max(row_id, highest.get(model, 0))

    for entry, (kind, source_id, _part) in zip(entries, sources):
        named(_SOURCE_MODELS[kind], source_id)
        if entry.get("type") == Kind.TOURNAMENT_EVENT:
            named(Tournament, entry["tournament"])
        if entry.get("type") == Kind.RATING_ENTRY:
            named(Match, entry["match"])
        if entry.get("type") == Kind.SERIES_DECISION:
            named(Series, entry["series"])
    for model, row_id in highest.items():
        _sequence_past(model._meta.db_table, row_id)


def _fresh_id(table: str) -> int:
    """An id the table's sequence will never give again."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, 'id'))", [table])
            return cursor.fetchone()[0]
        cursor.execute("SELECT coalesce(max(seq), 0) + 1 FROM sqlite_sequence WHERE name = %s", [table])
        fresh = cursor.fetchone()[0]
    _sequence_past(table, fresh)
    return fresh


def _sequence_past(table: str, row_id: int) -> None:
    """The table's next id is above row_id. With nextval, not setval: the runtime role may use a
    sequence (USAGE) but not set it."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
            (sequence,) = cursor.fetchone()
            cursor.execute(f"SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM {sequence}")
            (given,) = cursor.fetchone()
            if given < row_id:
                cursor.execute("SELECT count(nextval(%s)) FROM generate_series(1, %s)", [sequence, row_id - given])
        else:
            cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s AND seq < %s", [row_id, table, row_id])
            cursor.execute(
                "INSERT INTO sqlite_sequence (name, seq) SELECT %s, %s WHERE NOT EXISTS "
                "(SELECT 1 FROM sqlite_sequence WHERE name = %s)", [table, row_id, table],
            )
