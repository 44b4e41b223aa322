"""Reads of the league log: the entries of pending facts, stored hashes, proofs, tiles, checkpoints.

Entry shapes (canonical JSON, `games.chain.canonical_json`, UTF-8; times as
`games.chain.canonical_time` spells them, "YYYY-MM-DDTHH:MM:SS.ffffffZ"); every entry has `"v": 1` and its `type`:
- `match`: `match`, `game`, `origin` (played or practice), `rated`, `players` (per seat: `user:<id>`,
  `bot:<name>` or `guest:<name@server>`), `ranks` (the ranks the match counts at,
  `games.selectors.result_ranks`), `outcome` (the engine's), `final_hash` (its chain's head),
  `events` (its last seq), `seed` (revealed) and `seed_sha256` (published at its start), `finished_at`,
  `chain_version` (what its events' hashes cover: `games.chain.CHAIN_COVERS`).
- `tournament_event`: `tournament`, `seq`, `event` (its type), `data`, `actor`, `created`.
- `series_decision`: `series`, `seq`, `event` (its type: SeriesCreated, SeriesRulesSet, SeriesEventAdded,
  SeriesEventTierChanged, SeriesEventRemoved), `data`, `actor`, `created`.
- `rating_entry`: `id`, `game`, `pool`, `epoch`, `position`, `match`, `competitor`, `seat`, `rank`,
  `mu_before`, `sigma_before`, `mu_after`, `sigma_after`, `revision`, `reversal`.
- `part`: a fact whose entry is over a tile bundle's 65,535 bytes (a large round's pairing) is
  logged as consecutive parts, `of` (its type), `source` (its row), `part` (0, 1, ...), `parts` and
  `text`: the parts' texts, joined in order, are the fact's entry as above.
"""
from __future__ import annotations

import functools
import json
import operator
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.db.models import Q
from django.utils.translation import gettext as _

from games.chain import canonical_json, canonical_time
from games.models import Match, Seat
from games.selectors import result_ranks
from leaguelog import merkle, tiles
from leaguelog.checkpoint import Checkpoint, open_checkpoint
from leaguelog.mirror import CHECKPOINT, LogMirror, MirrorError
from leaguelog.models import Kind, LogCheckpoint, LogEntry, LogHash, LogPending
from leaguelog.notes import NoteError, parse_verifier_key, verifier_key_for
from ratings.models import RatingEntry
from server.errors import ApplicationError
from tournaments.models import Round, SeriesDecision, TournamentEvent
from tournaments.selectors import PLAYED_RESULTS, result_held

T = TypeVar("T")


def entry_bytes(entry: dict[str, Any]) -> bytes:
    """The bytes a leaf hash covers: the entry's canonical JSON in UTF-8."""
    return canonical_json(entry).encode("utf-8")


# A part's text is at most this many characters (4 bytes each at most, then doubled at worst by
# escaping), so that every part's entry stays within a bundle's 65,535 bytes.
_PART_CHARACTERS = 7_500


def entry_parts(entry: dict[str, Any], source_id: int) -> list[bytes]:
    """A fact's entries: one, or parts when its entry is too long for a tile's entry bundle."""
    whole = entry_bytes(entry)
    if len(whole) <= tiles.MAX_ENTRY_SIZE:
        return [whole]
    text = canonical_json(entry)
    texts = [text[start:start + _PART_CHARACTERS] for start in range(0, len(text), _PART_CHARACTERS)]
    return [
        entry_bytes({"v": 1, "type": "part", "of": entry["type"], "source": source_id, "part": number,
                     "parts": len(texts), "text": part})
        for number, part in enumerate(texts)
    ]


def pending_entries(pending: list[LogPending]) -> list[tuple[LogPending, list[bytes] | None]]:
    """Each pending fact with its entries' bytes (`entry_parts`), or None while it must wait (a
    duplicate round's pairing, whose deals stay secret until the round is complete); facts
    already logged (a match unsealed twice over, say) are left out, and so is a private casual
    match: the log is public and a private table is known only to its own people (issue #39).
    It is unrated, so no rating entry names it, and no tournament plays one."""
    by_kind: dict[str, list[int]] = {}
    for fact in pending:
        by_kind.setdefault(fact.kind, []).append(fact.source_id)
    private = set(
        Match.objects.filter(pk__in=by_kind.get(Kind.MATCH, []), private=True, rated=False).values_list("pk", flat=True)
    )
    if private:
        by_kind[Kind.MATCH] = [match_id for match_id in by_kind[Kind.MATCH] if match_id not in private]
    logged = set(
        LogEntry.objects.filter(
            kind__in=list(by_kind), source_id__in=[s for ids in by_kind.values() for s in ids], part=0
        ).values_list("kind", "source_id")
    )
    builders: dict[str, Callable[[list[int]], dict[int, dict[str, Any] | None]]] = {
        Kind.MATCH: _match_entries,
        Kind.TOURNAMENT_EVENT: _tournament_event_entries,
        Kind.RATING_ENTRY: _rating_entries,
        Kind.SERIES_DECISION: _series_decision_entries,
    }
    entries = {kind: builders[kind](ids) for kind, ids in by_kind.items()}
    result = []
    for fact in pending:
        if (fact.kind, fact.source_id) in logged or (fact.kind == Kind.MATCH and fact.source_id in private):
            continue
        logged.add((fact.kind, fact.source_id))  # queued twice: logged once
        entry = entries[fact.kind].get(fact.source_id)
        result.append((fact, None if entry is None else entry_parts(entry, fact.source_id)))
    return result


def _match_entries(match_ids: list[int]) -> dict[int, dict[str, Any] | None]:
    players: dict[int, dict[int, str]] = {}
    abandoned: dict[int, list[int]] = {}
    for match_id, seat, user_id, bot, guest, left in Seat.objects.filter(match_id__in=match_ids).values_list(
        "match_id", "seat", "user_id", "bot", "guest", "abandoned"
    ):
        players.setdefault(match_id, {})[seat] = (
            f"user:{user_id}" if user_id is not None else f"bot:{bot}" if bot else f"guest:{guest}"
        )
        if left:
            abandoned.setdefault(match_id, []).append(seat)
    entries: dict[int, dict[str, Any] | None] = {}
    for match in Match.objects.filter(pk__in=match_ids):
        seats = players.get(match.pk, {})
        # Logged at its end: a finished match has its outcome and end time.
        assert match.outcome is not None and match.finished_at is not None
        entries[match.pk] = {
            "v": 1, "type": Kind.MATCH.value, "match": match.pk, "game": match.game, "origin": match.origin,
            "rated": match.rated, "players": [seats[seat] for seat in sorted(seats)],
            "ranks": result_ranks(match.outcome["ranks"], abandoned.get(match.pk, ())),
            "outcome": match.outcome, "final_hash": match.head_hash, "events": match.last_seq,
            "seed": match.seed, "seed_sha256": match.seed_sha256, "finished_at": canonical_time(match.finished_at),
            "chain_version": match.chain_version,
        }
    return entries


def _tournament_event_entries(event_ids: list[int]) -> dict[int, dict[str, Any] | None]:
    events = list(TournamentEvent.objects.filter(pk__in=event_ids))
    dealt = [e for e in events if e.type == "RoundPaired" and any(t.get("deal") is not None for t in e.data["tables"])]
    complete = set(
        Round.objects.filter(
            tournament_id__in={e.tournament_id for e in dealt}, completed_at__isnull=False
        ).values_list("tournament_id", "number")
    )
    held = {event.pk for event in events if event.type in PLAYED_RESULTS and result_held(event)}
    return {
        event.pk: None
        if (event in dealt and (event.tournament_id, event.data["round"]) not in complete) or event.pk in held
        else {
            "v": 1, "type": Kind.TOURNAMENT_EVENT.value, "tournament": event.tournament_id, "seq": event.seq,
            "event": event.type, "data": event.data, "actor": event.actor, "created": canonical_time(event.created),
        }
        for event in events
    }


def _series_decision_entries(decision_ids: list[int]) -> dict[int, dict[str, Any] | None]:
    return {
        decision.pk: {
            "v": 1, "type": Kind.SERIES_DECISION.value, "series": decision.series_id, "seq": decision.seq,
            "event": decision.type, "data": decision.data, "actor": decision.actor, "created": canonical_time(decision.created),
        }
        for decision in SeriesDecision.objects.filter(pk__in=decision_ids)
    }


def _rating_entries(entry_ids: list[int]) -> dict[int, dict[str, Any] | None]:
    fields = (
        "id", "ladder__game", "ladder__pool", "epoch", "position", "match_id", "competitor", "seat", "rank",
        "mu_before", "sigma_before", "mu_after", "sigma_after", "revision", "reversal",
    )
    names = ("id", "game", "pool", "epoch", "position", "match", "competitor", "seat", "rank",
             "mu_before", "sigma_before", "mu_after", "sigma_after", "revision", "reversal")
    return {
        row[0]: {"v": 1, "type": Kind.RATING_ENTRY.value, **dict(zip(names, row))}
        for row in RatingEntry.objects.filter(pk__in=entry_ids).values_list(*fields)
    }


def read_once(compute: Callable[[merkle.HashReader], T], known: dict[tuple[int, int], bytes] | None = None) -> T:
    """`compute(read_hash)` with every stored hash it reads fetched in one query: a first pass
    with placeholder hashes lists the addresses (which hashes a proof, root or tile reads depends
    on the sizes alone, never on hash values), the second computes with the real ones."""
    known = dict(known or {})
    wanted: set[tuple[int, int]] = set()

    def listing(level: int, index: int) -> bytes:
        wanted.add((level, index))
        return known.get((level, index), merkle.EMPTY_ROOT)

    compute(listing)
    missing = wanted - known.keys()
    if missing:
        known.update(stored_hashes(missing))
    return compute(lambda level, index: known[(level, index)])


def stored_hashes(addresses: Iterable[tuple[int, int]]) -> dict[tuple[int, int], bytes]:
    """The stored hashes at these (level, index) addresses, in one query."""
    by_level: dict[int, list[int]] = {}
    for level, index in addresses:
        by_level.setdefault(level, []).append(index)
    if not by_level:
        return {}
    wanted = functools.reduce(operator.or_, (Q(level=level, index__in=ids) for level, ids in by_level.items()))
    rows = LogHash.objects.filter(wanted).values_list("level", "index", "hash")
    return {(level, index): bytes(value) for level, index, value in rows}


def checkpoint_latest() -> LogCheckpoint | None:
    return LogCheckpoint.objects.order_by("-size").first()


def checkpoint_served(checkpoint: LogCheckpoint) -> str:
    """The checkpoint's note as served: the log's signature, then its witnesses' cosignatures."""
    lines = checkpoint.cosignatures.order_by("witness").values_list("line", flat=True)
    return checkpoint.note + "".join(lines)


def inclusion_proof(index: int, size: int) -> list[bytes]:
    return read_once(lambda read: merkle.inclusion_proof(index, size, read))


def consistency_proof(old_size: int, new_size: int) -> list[bytes]:
    return read_once(lambda read: merkle.consistency_proof(old_size, new_size, read))


def hash_tile(tile: tiles.Tile) -> bytes:
    return read_once(lambda read: tiles.hash_tile_bytes(tile, read))


def entry_bundle(bundle: tiles.EntryBundle) -> bytes:
    start = bundle.index * tiles.TILE_WIDTH
    bodies = LogEntry.objects.filter(index__gte=start, index__lt=start + bundle.width).order_by("index")
    return tiles.entry_bundle_bytes([bytes(body) for body in bodies.values_list("body", flat=True)])


def entry_at(index: int) -> LogEntry | None:
    return LogEntry.objects.filter(index=index).first()


def logged_fact(kind: str, source_id: int) -> dict[str, Any] | None:
    """A fact's entry as logged (its parts joined), or None while it is not in the log."""
    bodies = [
        json.loads(bytes(body))
        for body in LogEntry.objects.filter(kind=kind, source_id=source_id).order_by("part").values_list("body", flat=True)
    ]
    if len(bodies) > 1 or bodies and bodies[0]["type"] == "part":
        return json.loads("".join(part["text"] for part in bodies))
    return bodies[0] if bodies else None


def entry_of(kind: str, source_id: int) -> LogEntry | None:
    return LogEntry.objects.filter(kind=kind, source_id=source_id).first()


# --- the mirror: the high-water mark a database restore cannot roll back (leaguelog.mirror) ---------


def log_mirror() -> LogMirror | None:
    """The mirror LOG_MIRROR_DIR names, or None when the server keeps none."""
    folder = getattr(settings, "LOG_MIRROR_DIR", None)
    return LogMirror(folder) if folder else None


def mirror_mark(mirror: LogMirror, name: str = CHECKPOINT) -> tuple[Checkpoint, str] | None:
    """The checkpoint a mirror file holds and its note, checked under the log's own key; None when
    there is none; ApplicationError `log_mirror_disagrees` when it is not this log's."""
    try:
        note = mirror.note(name)
        if note is None:
            return None
        checkpoint, _opened = open_checkpoint(note, [parse_verifier_key(verifier_key_for(settings.LOG_SIGNING_KEY))])
    except (MirrorError, NoteError) as error:
        raise mirror_disagrees(f"{mirror.root / name}: {error}") from error
    return checkpoint, note


def mirror_disagrees(detail: str) -> ApplicationError:
    return ApplicationError(
        "log_mirror_disagrees",
        _("The league log's mirror holds a checkpoint this database's log does not extend: nothing is "
          "published until an operator looks (README, Backups and restore)."),
        extra={"detail": detail},
    )


def log_behind_mirror(size: int, mark: int, detail: str) -> ApplicationError:
    return ApplicationError(
        "log_behind_mirror",
        _("The league log's database holds %(size)s entries, fewer than the %(mark)s of the checkpoint it "
          "published last (a restore?), and they cannot be recovered: nothing is integrated or published "
          "until they are (README, Backups and restore).") % {"size": size, "mark": mark},
        extra={"size": size, "published": mark, "detail": detail},
    )


def publish_refusal(latest: LogCheckpoint | None) -> ApplicationError | None:
    """Why `latest` must not be served as the log's newest checkpoint, or None: it is smaller than
    the mark (the database was restored from before it and not yet brought back up), or another
    tree of the mark's size."""
    mirror = log_mirror()
    if mirror is None:
        return None
    try:
        marked = mirror_mark(mirror)
    except ApplicationError as refusal:
        return refusal
    if marked is None:
        return None
    mark, _note = marked
    size = 0 if latest is None else latest.size
    if size < mark.size:
        return log_behind_mirror(size, mark.size, f"the mirror's checkpoint is of {mark.size} entries")
    if size == mark.size and latest is not None and bytes(latest.root_hash) != mark.root_hash:
        return mirror_disagrees(f"two different trees of {size} entries")
    return None
