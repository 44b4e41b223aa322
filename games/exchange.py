"""Matches as JSON Lines files: a header, then one event per line, exactly as stored.

Export gives anyone a file they can check without this server (`python -m games.verify_file`);
import checks the file end to end (hash chain, shuffle, every move) before it stores anything,
and refuses it with the line and the reason otherwise.

The chain proves the moves follow the rules, not who made them: anyone can write a valid file
naming anyone. So an imported match's people are never local accounts: each sits as a guest
`name@server` (the server the file says it comes from, `import` if it says none), and the
match is never rated. A file's local people are written by username with the exporting
server's name (`EXPORT_SERVER_NAME`) as `source`; guests keep their `name@server`.

The header's `chain` names the chain version the match's events are hashed under and the fields
it covers; an imported match keeps the version its file states (a file of format 1 has none:
version 1), so its events verify here as they did where they were played.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.conf import settings
from django.db import transaction
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.names import host_problem, username_problem
from games.bots import BOTS
from games.chain import canonical_json, canonical_time
from games.engines import ENGINES
from games.models import Event, Match, Seat
from games.verification import (
    FORMAT,
    FORMAT_VERSION,
    FileRefused,
    chain_header,
    file_chain_version,
    parse_match_file,
    verify_file_contents,
)
from server.errors import ApplicationError, conflict, forbidden

UNNAMED_SOURCE = "import"  # the server of a file's people when the file names none


class ImportRefused(ApplicationError):
    """A file that does not verify; `line` is 1-based (the header is line 1)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__("import_refused", f"line {line}: {reason}", extra={"line": line})
        self.line = line
        self.reason = reason


def match_export_lines(match: Match, user: User | None = None, *, chat: list[str] | None = None) -> Iterator[str]:
    """The file's lines (without newlines). Only finished matches, except for staff.

    `chat` (`export_section_lines(match, "chat")`) follows the events, announced in the header:
    the table's talk, outside the hash chain, which a checker and an import pass over.
    """
    if not match.revealed and not (user is not None and user.is_staff):
        raise forbidden("match_running", _("A match can be exported once it has ended."))
    seats = {s.seat: s for s in match.seat_set.select_related("user")}
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "chain": chain_header(match.chain_version),
        "source": settings.EXPORT_SERVER_NAME or None,
        "game": match.game,
        "engine_version": getattr(ENGINES[match.game], "version", 1),
        "players": [
            {"seat": s, "username": _player_name(seats[s]), "bot": seats[s].bot}
            for s in range(match.players)
        ],
        "rated": match.rated,
        "outcome": match.outcome,
        "events": match.last_seq,
        "final_hash": match.head_hash,
    }
    if chat is not None:
        header["chat"] = len(chat)
    yield canonical_json(header)
    rows = Event.objects.filter(match=match).order_by("seq").values_list(
        "seq", "kind", "type", "actor", "created", "data", "hash"
    )
    for seq, kind, type_, actor, created, data, hash_ in rows.iterator():
        yield canonical_json(
            {
                "seq": seq, "kind": kind, "type": type_, "actor": actor, "created": canonical_time(created), "data": data,
                "hash": hash_,
            }
        )
    yield from chat or ()


def export_section_lines(match: Match, section: str) -> list[str]:
    """The lines of an export's section kept by another app (`chat`), from the function
    MATCH_EXPORT_EXTRAS names for it; it raises what refuses the export of that section."""
    return import_string(settings.MATCH_EXPORT_EXTRAS[section])(match)


def _player_name(seat: Seat) -> str | None:
    """A seat's player as the export names it: the user's username, or the guest's name."""
    return seat.user.username if seat.user else seat.guest or None


def match_import_bytes(content: bytes, *, imported_by: User) -> Match:
    """`match_import` of a file as uploaded or read from disk: UTF-8 text, or refused on line 1."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        raise ImportRefused(1, "the file is not UTF-8 text") from None
    return match_import(text.splitlines(), imported_by=imported_by)


def match_import(lines: Iterable[str], *, imported_by: User) -> Match:
    """Verifies a match file completely, then stores it as a finished, unrated match.

    People sit as guests `name@server`, never as local users (see the module's docstring).
    Refuses a file that fails any check (`ImportRefused`) and one already imported (same final
    hash: 409); nothing is written then.
    """
    try:
        header, events, created = parse_match_file(lines)
    except FileRefused as exc:
        raise ImportRefused(exc.line, exc.reason) from None
    game = header["game"]
    seats = _seats(header)
    started = events[0].data
    if started.get("practice_of") is not None:
        # Its opening is another match's position, which only that match's server can vouch for.
        raise ImportRefused(2, "a practice match is not imported: its position comes from a match of another server")
    report = verify_file_contents(header, events)
    if not report.ok:
        raise ImportRefused(report.first_line(), report.problems[0])
    if events[-1].data.get("type") != "MatchFinished" or report.outcome is None:
        raise ImportRefused(len(events) + 1, "the match did not finish: only finished matches are imported")
    started_seats = started.get("seats")
    if len(seats) != started.get("players") or not isinstance(started_seats, list) or [s.bot for s in seats] != [
        (s.get("bot") or "") if isinstance(s, dict) else None for s in started_seats
    ]:
        raise ImportRefused(1, "the header's players do not match the seats in MatchStarted")
    with transaction.atomic():
        if Match.objects.filter(head_hash=header["final_hash"]).exists():
            raise conflict("already_imported", _("This match is already stored here."))
        match = Match.objects.create(
            game=game, origin=Match.Origin.IMPORTED, status=Match.Status.FINISHED, players=started["players"],
            options={}, rated=False, created_by=imported_by, started_at=created[0], finished_at=created[-1],
            seed=events[-1].data.get("seed"), seed_sha256=started.get("seed_sha256", ""), last_seq=len(events),
            head_hash=header["final_hash"], chain_version=file_chain_version(header), outcome=report.outcome,
        )
        for seat in seats:
            seat.match = match
        Seat.objects.bulk_create(seats)
        Event.objects.bulk_create(
            Event(match=match, seq=e.seq, kind=e.kind, type=e.data["type"], data=e.data, actor=e.actor, created=at, hash=e.hash)
            for e, at in zip(events, created)
        )
    return match


def _seats(header: dict) -> list[Seat]:
    """The header's players as unsaved seats: bots of this server's game, people as guests."""
    source = header.get("source") or UNNAMED_SOURCE
    problem = host_problem(source)
    if problem is not None:
        raise ImportRefused(1, f"source: {problem}")
    bots = BOTS.get(header["game"], {})
    seats = []
    for player in header["players"]:
        if player.get("bot"):
            if player["bot"] not in bots:
                raise ImportRefused(1, f"seat {player['seat']}: {player['bot'][:40]!r} is not a bot of this game here")
            seats.append(Seat(seat=player["seat"], bot=player["bot"]))
        else:
            seats.append(Seat(seat=player["seat"], guest=_guest_name(player["seat"], player["username"], source)))
    return seats


def _guest_name(seat: int, username: str, source: str) -> str:
    """`name@server`: a name already of that form (a guest exported again) keeps its server."""
    name, at, server = username.rpartition("@")
    if not at:
        name, server = username, source
    problem = username_problem(name) or host_problem(server)
    if problem is not None:
        raise ImportRefused(1, f"seat {seat}: {problem}")
    return f"{name}@{server}"
