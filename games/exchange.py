"""Matches as JSON Lines files: a header, then one event per line, exactly as stored.

Export gives anyone a file they can check without this server (`python -m games.verify_file`);
import checks the file end to end (hash chain, shuffle, every move) before it stores anything,
and refuses it with the line and the reason otherwise.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.db import transaction

from accounts.models import User
from games.chain import canonical_json
from games.engines import ENGINES
from games.models import Event, Match, Seat
from games.verification import FORMAT, FORMAT_VERSION, FileRefused, parse_match_file, verify_file_contents
from server.errors import ApplicationError, conflict, forbidden


class ImportRefused(ApplicationError):
    """A file that does not verify; `line` is 1-based (the header is line 1)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__("import_refused", f"line {line}: {reason}", status=400, extra={"line": line})
        self.line = line
        self.reason = reason


def match_export_lines(match: Match, user: User | None = None) -> Iterator[str]:
    """The file's lines (without newlines). Only finished matches, except for staff."""
    if not match.revealed and not (user is not None and user.is_staff):
        raise forbidden("match_running", "A match can be exported once it has ended.")
    seats = {s.seat: s for s in match.seat_set.select_related("user")}
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": match.game,
        "engine_version": getattr(ENGINES[match.game], "version", 1),
        "players": [
            {"seat": s, "username": seats[s].user.username if seats[s].user else None, "bot": seats[s].bot}
            for s in range(match.players)
        ],
        "rated": match.rated,
        "outcome": match.outcome,
        "events": match.last_seq,
        "final_hash": match.head_hash,
    }
    yield canonical_json(header)
    rows = Event.objects.filter(match=match).order_by("seq").values_list("seq", "kind", "type", "actor", "created", "data", "hash")
    for seq, kind, type_, actor, created, data, hash_ in rows.iterator():
        yield canonical_json(
            {"seq": seq, "kind": kind, "type": type_, "actor": actor, "created": created.isoformat(), "data": data, "hash": hash_}
        )


def match_import(lines: Iterable[str], *, imported_by: User) -> Match:
    """Verifies a match file completely, then stores it as a finished, unrated match.

    People's seats go to the local users of the same username (created, without a usable
    password, where missing). Refuses a file that fails any check (`ImportRefused`) and one
    already imported (same final hash: 409).
    """
    try:
        header, events, created = parse_match_file(lines)
    except FileRefused as exc:
        raise ImportRefused(exc.line, exc.reason) from None
    game = header["game"]
    report = verify_file_contents(header, events)
    if not report.ok:
        raise ImportRefused(report.first_line(), report.problems[0])
    if events[-1].data.get("type") != "MatchFinished" or report.outcome is None:
        raise ImportRefused(len(events) + 1, "the match did not finish: only finished matches are imported")
    started = events[0].data
    if len(header["players"]) != started.get("players") or [p.get("bot") or "" for p in header["players"]] != [
        s.get("bot") or "" for s in started.get("seats", [])
    ]:
        raise ImportRefused(1, "the header's players do not match the seats in MatchStarted")
    with transaction.atomic():
        if Match.objects.filter(head_hash=header["final_hash"]).exists():
            raise conflict("already_imported", "This match is already stored here.")
        match = Match.objects.create(
            game=game, origin=Match.Origin.IMPORTED, status=Match.Status.FINISHED, players=started["players"],
            options={}, rated=False, created_by=imported_by, started_at=created[0], finished_at=created[-1],
            seed=events[-1].data.get("seed"), seed_sha256=started.get("seed_sha256", ""), last_seq=len(events),
            head_hash=header["final_hash"], outcome=report.outcome,
        )
        Seat.objects.bulk_create([_seat(match, player) for player in header["players"]])
        Event.objects.bulk_create(
            Event(match=match, seq=e.seq, kind=e.kind, type=e.data["type"], data=e.data, actor=e.actor, created=at, hash=e.hash)
            for e, at in zip(events, created)
        )
    return match


def _seat(match: Match, player: dict) -> Seat:
    if player.get("bot"):
        return Seat(match=match, seat=player["seat"], bot=player["bot"])
    user, made = User.objects.get_or_create(username=player["username"], defaults={"is_active": True})
    if made:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return Seat(match=match, seat=player["seat"], user=user)
