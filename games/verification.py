"""Checks a stored match end to end: sequence, hash chain, seed, and every move under the rules.

Pure over a list of event rows, so the store, `verify_events` and import all use it.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeGuard

from games.chain import CHAIN_COVERS, GENESIS_HASH, canonical_json, canonical_time, event_hash, seed_sha256
from games.engines import ENGINES, IllegalMove
from games.shuffle import deck_seed, shuffle_problem

ENGINE_KIND, TABLE_KIND = "engine", "table"
# The table facts of a cooperative game's concession (`games.services.concessions`): a seat
# proposes, others agree, anyone playing withdraws it. The one that completes the agreement
# is followed by the engine's `concede` events, which the replay checks as it checks a move's.
CONCESSION_PROPOSED, CONCESSION_AGREED, CONCESSION_WITHDRAWN = "ConcessionProposed", "ConcessionAgreed", "ConcessionWithdrawn"
CONCESSION_CAUSES = (CONCESSION_PROPOSED, CONCESSION_AGREED)
FORMAT = "cardleague.match"  # the export file (games.exchange)
# 2: the header names the chain version its events are hashed under (`chain_header`). A file of
# format 1 (written before there were versions) has none: its events are chain version 1.
FORMAT_VERSION = 2
_FORMAT_VERSIONS = (1, 2)
_EVENT_KEYS = {"seq", "kind", "type", "actor", "data", "hash"}
# What a hostile file could hold that a store cannot (the columns' lengths, PostgreSQL's jsonb
# and UTF-8) or a replay should not meet; refused on the line rather than failing on write.
_TYPE_MAX, _ACTOR_MAX, _DATA_DEPTH_MAX = 40, 64, 32
_SEED_RANGE = range(-(2**63), 2**63)  # the seed column is a bigint


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    kind: str
    type: str
    actor: str
    data: dict
    created: str  # as `games.chain.canonical_time` spells it
    hash: str


@dataclass
class Report:
    events: int = 0
    problems: list[str] = field(default_factory=list)
    outcome: dict | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def first_line(self) -> int:
        """The export file's line of the first problem: event seq n is on line n + 1; what is not
        about one event (the final hash, the outcome) is a claim of the header, line 1."""
        first = self.problems[0]
        return int(first[4 : first.index(":")]) + 1 if first.startswith("seq ") else 1


def verify_stream(game: str, events: list[StoredEvent], *, chain_version: int, head_hash: str | None = None) -> Report:
    """Every problem found in one match's stream, hashed under `chain_version`; none means it verifies."""
    report = Report(events=len(events))
    if chain_version not in CHAIN_COVERS:
        report.problems.append(f"unknown chain version {chain_version!r}")
        return report
    _check_chain(events, chain_version, head_hash, report)
    if report.ok and events:
        _check_rules(game, events, report)
    return report


def _check_chain(events: list[StoredEvent], chain_version: int, head_hash: str | None, report: Report) -> None:
    previous = GENESIS_HASH
    for expected_seq, event in enumerate(events, start=1):
        if event.seq != expected_seq:
            report.problems.append(f"seq {expected_seq}: found seq {event.seq} instead (a gap or a duplicate)")
            return
        computed = event_hash(
            previous, version=chain_version, seq=event.seq, kind=event.kind, type=event.type, actor=event.actor,
            data=event.data, created=event.created,
        )
        if computed != event.hash:
            report.problems.append(f"seq {event.seq}: hash does not match its content and the previous hash")
            return
        previous = computed
    if head_hash is not None and previous != head_hash:
        report.problems.append("the match's head hash is not the hash of its last event")


def _check_rules(game: str, events: list[StoredEvent], report: Report) -> None:
    """Replays the match: the opening from the seed, each move's events from `decide`, the outcome."""
    engine = ENGINES.get(game)
    if engine is None:
        report.problems.append(f"unknown game {game!r}")
        return
    started = events[0]
    if started.kind != TABLE_KIND or started.data.get("type") != "MatchStarted":
        report.problems.append("seq 1: the stream does not begin with MatchStarted")
        return
    opening = leading_engine_events(events[1:])
    if not opening or opening[0].data.get("type") != "GameStarted":
        report.problems.append("seq 2: no GameStarted after MatchStarted")
        return
    if started.data.get("practice_of") is not None:
        _check_practice(engine, events, opening, report)
        return
    game_started = opening[0].data
    seed = game_started.get("seed")
    if not _is_seed(seed):
        report.problems.append(f"seq {opening[0].seq}: the seed is not a 64-bit integer")
        return
    committed = seed
    if "shuffle" in started.data:
        found = len(report.problems)
        committed = _check_contributed_shuffle(events, started.data, seed, game_started.get("players"), report)
        if len(report.problems) > found:
            return
    elif seed_sha256(seed) != started.data.get("seed_sha256"):
        report.problems.append(f"seq {opening[0].seq}: the seed does not match the SHA-256 published at the start")
    try:
        expected_opening = engine.start(game_started["players"], seed, game_started.get("options") or None)
    except Exception as exc:  # noqa: BLE001 - bad options or players in a hostile file are a finding
        report.problems.append(f"seq {opening[0].seq}: the opening cannot be rebuilt: {exc!r}")
        return
    if expected_opening != [e.data for e in opening]:
        report.problems.append(f"seq {opening[0].seq}: the opening events (the shuffle or the deal) do not follow from the seed")
        return
    _check_moves(engine, events, 1 + len(opening), engine.replay(expected_opening), committed, report)


def _is_seed(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value in _SEED_RANGE


def _check_contributed_shuffle(events: list[StoredEvent], started: dict, deck: int, players: Any, report: Report) -> Any:
    """A contributed shuffle (`games.shuffle`): its record is well formed and, once MatchFinished
    reveals the server's seed, that seed is the one committed to and the deck's seed follows from
    it and the contributions. Returns the server's seed (None while the match runs)."""
    problem = shuffle_problem(started["shuffle"], players if isinstance(players, int) else 0)
    if problem:
        report.problems.append(f"seq 1: {problem}")
        return None
    finished = events[-1].data if events[-1].kind == TABLE_KIND and events[-1].data.get("type") == "MatchFinished" else None
    if finished is None:
        return None  # the server's seed stays hidden until the end: nothing more to check yet
    revealed = finished.get("seed")
    if not _is_seed(revealed) or seed_sha256(revealed) != started.get("seed_sha256"):
        report.problems.append(f"seq {events[-1].seq}: the revealed seed does not match the SHA-256 published at the start")
    elif deck_seed(revealed, started["shuffle"]["contributions"]) != deck:
        report.problems.append("seq 2: the deck's seed does not follow from the server's seed and the contributions")
    return revealed


def _check_practice(engine, events: list[StoredEvent], prefix: list[StoredEvent], report: Report) -> None:
    """A practice match starts from another match's position: its copied prefix must replay.

    Whether the prefix equals the source match's events is checked where the source is at
    hand (`verify_match`); the moves played from the position are checked as usual.
    """
    try:
        state = engine.replay([e.data for e in prefix])
    except Exception as exc:  # noqa: BLE001 - any failure of a hostile prefix is a finding
        report.problems.append(f"seq {prefix[0].seq}: the copied position does not replay: {exc!r}")
        return
    _check_moves(engine, events, 1 + len(prefix), state, prefix[0].data.get("seed"), report)


def _check_moves(engine, events: list[StoredEvent], index: int, state: Any, seed: Any, report: Report) -> None:
    """From `index` on: each MovePlayed (or completed concession) causes exactly the engine events
    after it; the outcome holds."""
    while index < len(events):
        event = events[index]
        if event.kind == ENGINE_KIND:
            report.problems.append(f"seq {event.seq}: an engine event that no move caused")
            return
        kind = event.data.get("type")
        if kind == "MovePlayed":
            caused = leading_engine_events(events[index + 1 :])
            try:
                expected = engine.decide(state, event.data.get("seat"), event.data.get("move"))
            except IllegalMove as exc:
                report.problems.append(f"seq {event.seq}: the move is illegal in its position ({exc.code})")
                return
            except Exception as exc:  # noqa: BLE001 - a hostile file must give a finding, not a crash
                report.problems.append(f"seq {event.seq}: the move cannot be decided: {exc!r}")
                return
            if expected != [e.data for e in caused]:
                report.problems.append(f"seq {event.seq}: the stored events are not what the move causes")
                return
            for produced in expected:
                state = engine.evolve(state, produced)
            index += 1 + len(caused)
        elif kind in CONCESSION_CAUSES and (caused := leading_engine_events(events[index + 1 :])):
            # The agreement that completed the team's concession: the engine's end follows it.
            try:
                expected = engine.concede(state)
            except IllegalMove as exc:
                report.problems.append(f"seq {event.seq}: the team cannot concede in its position ({exc.code})")
                return
            if expected != [e.data for e in caused]:
                report.problems.append(f"seq {event.seq}: the stored events are not what the team's concession causes")
                return
            for produced in expected:
                state = engine.evolve(state, produced)
            index += 1 + len(caused)
        elif kind == "MatchFinished":
            if event.data.get("outcome") != engine.outcome(state):
                report.problems.append(f"seq {event.seq}: the recorded outcome is not the replayed one")
                return
            if event.data.get("seed") != seed:
                report.problems.append(f"seq {event.seq}: the revealed seed is not the seed the match used")
            index += 1
        else:
            index += 1
    report.outcome = engine.outcome(state)


def leading_engine_events(events: list[StoredEvent]) -> list[StoredEvent]:
    run = []
    for event in events:
        if event.kind != ENGINE_KIND:
            break
        run.append(event)
    return run


def verify_file_contents(header: dict, events: list[StoredEvent]) -> Report:
    """An export file's events verified, and the header's claims held against them."""
    report = verify_stream(
        header["game"], events, chain_version=file_chain_version(header), head_hash=header["final_hash"]
    )
    if report.ok and header.get("outcome") is not None and header["outcome"] != report.outcome:
        report.problems.insert(0, "the header's outcome is not the replayed one")
    return report


def chain_header(chain_version: int) -> dict:
    """The export header's `chain`: the version the events are hashed under and the fields it covers."""
    return {"version": chain_version, "covers": list(CHAIN_COVERS[chain_version])}


def file_chain_version(header: dict) -> int:
    """The chain version of a file's events, from a header `parse_match_file` accepted."""
    return header["chain"]["version"] if header["format_version"] >= 2 else 1


class FileRefused(Exception):
    """An export file that cannot be read; `line` is 1-based (the header is line 1)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


def parse_match_file(lines: Iterable[str]) -> tuple[dict, list[StoredEvent], list[datetime]]:
    """The header, the events and their times from an export file's lines; `FileRefused` if malformed."""
    iterator = iter(lines)
    header = _json_object(next(iterator, ""), 1)
    format_version = header.get("format_version")
    if header.get("format") != FORMAT or type(format_version) is not int or format_version not in _FORMAT_VERSIONS:
        raise FileRefused(1, f"not a {FORMAT} file of version {' or '.join(map(str, _FORMAT_VERSIONS))}")
    if format_version >= 2 and not _is_chain_header(header.get("chain")):
        raise FileRefused(1, "chain must be one of " + ", ".join(canonical_json(chain_header(v)) for v in CHAIN_COVERS))
    chain_version = file_chain_version(header)
    if not isinstance(header.get("game"), str) or header["game"] not in ENGINES:
        raise FileRefused(1, f"unknown game {str(header.get('game'))[:40]!r}")
    players = header.get("players")
    if not isinstance(players, list) or not all(
        isinstance(p, dict) and type(p.get("seat")) is int and isinstance(p.get("bot") or "", str)
        and (bool(p.get("bot")) or isinstance(p.get("username"), str))
        for p in players
    ) or [p["seat"] for p in players] != list(range(len(players))):
        raise FileRefused(1, "players must list every seat in order with a username or a bot")
    if not isinstance(header.get("final_hash"), str):
        raise FileRefused(1, "final_hash is missing")
    events, created = [], []
    for number, line in enumerate(iterator, start=2):
        if not line.strip():
            continue
        raw = _json_object(line, number)
        if raw.keys() == {"chat"}:
            continue  # the table's chat (games.exchange): outside the hash chain, so neither checked nor imported
        if not _EVENT_KEYS <= raw.keys() or not isinstance(raw["data"], dict) or type(raw["seq"]) is not int:
            raise FileRefused(number, f"an event needs {', '.join(sorted(_EVENT_KEYS))} with data an object")
        if raw["kind"] not in (ENGINE_KIND, TABLE_KIND) or raw["data"].get("type") != raw["type"]:
            raise FileRefused(number, "the event's kind or type is not valid")
        if not isinstance(raw["type"], str) or len(raw["type"]) > _TYPE_MAX:
            raise FileRefused(number, f"the event's type is a string of at most {_TYPE_MAX} characters")
        if not isinstance(raw["actor"], str) or not isinstance(raw["hash"], str) or len(raw["actor"]) > _ACTOR_MAX:
            raise FileRefused(number, f"actor and hash must be strings (an actor of at most {_ACTOR_MAX} characters)")
        problem = _unstorable(raw["data"], 0) or _unstorable(raw["actor"], 0)
        if problem is not None:
            raise FileRefused(number, problem)
        moment = _timestamp(raw.get("created"), number)
        spelled = canonical_time(moment)
        if "created" in CHAIN_COVERS[chain_version] and raw.get("created") != spelled:
            # The hash covers the time as written, so a checker in any language hashes the string it
            # reads: one spelling, not every ISO 8601 form of the same instant.
            raise FileRefused(
                number, "created must be written as the chain hashes it: YYYY-MM-DDTHH:MM:SS.ffffffZ (UTC)"
            )
        events.append(
            StoredEvent(raw["seq"], raw["kind"], raw["type"], raw["actor"], raw["data"], spelled, raw["hash"])
        )
        created.append(moment)
    if not events:
        raise FileRefused(2, "the file has no events")
    if header.get("events") != len(events):
        raise FileRefused(len(events) + 2, f"the header announces {header.get('events')} events, the file has {len(events)}")
    return header, events, created


def _is_chain_header(value: Any) -> bool:
    """A known version with exactly the fields it covers (the list is there for readers, and must be true)."""
    version = value.get("version") if isinstance(value, dict) else None
    return type(version) is int and version in CHAIN_COVERS and value == chain_header(version)


def _json_object(line: str, number: int) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        raise FileRefused(number, "not valid JSON") from None
    if not isinstance(value, dict):
        raise FileRefused(number, "not a JSON object")
    return value


def _timestamp(value: Any, number: int) -> datetime:
    if value is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(value)
        return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    except (TypeError, ValueError, OverflowError):
        raise FileRefused(number, "created is not an ISO 8601 time") from None


def _unstorable(value: Any, depth: int) -> str | None:
    """Why a JSON value cannot be stored as it is (nesting, NUL, lone surrogates), or None."""
    if depth > _DATA_DEPTH_MAX:
        return f"the event's data is nested deeper than {_DATA_DEPTH_MAX} levels"
    if isinstance(value, dict):
        items = [*value.keys(), *value.values()]
    elif isinstance(value, list):
        items = value
    elif isinstance(value, str):
        if "\x00" in value or not value.isascii() and _has_surrogate(value):
            return "the event holds a NUL character or an unpaired surrogate"
        return None
    else:
        return None
    return next((problem for item in items if (problem := _unstorable(item, depth + 1)) is not None), None)


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
