"""Checks a stored match end to end: sequence, hash chain, seed, and every move under the rules.

Pure over a list of event rows, so the store, `verify_events` and import all use it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.chain import GENESIS_HASH, event_hash, seed_sha256
from games.engines import ENGINES, IllegalMove

ENGINE_KIND, TABLE_KIND = "engine", "table"


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    kind: str
    actor: str
    data: dict
    hash: str


@dataclass
class Report:
    events: int = 0
    problems: list[str] = field(default_factory=list)
    outcome: dict | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_stream(game: str, events: list[StoredEvent], *, head_hash: str | None = None) -> Report:
    """Every problem found in one match's stream; an empty list means it verifies."""
    report = Report(events=len(events))
    _check_chain(events, head_hash, report)
    if report.ok and events:
        _check_rules(game, events, report)
    return report


def _check_chain(events: list[StoredEvent], head_hash: str | None, report: Report) -> None:
    previous = GENESIS_HASH
    for expected_seq, event in enumerate(events, start=1):
        if event.seq != expected_seq:
            report.problems.append(f"seq {event.seq}: expected seq {expected_seq} (a gap or a duplicate)")
            return
        computed = event_hash(previous, seq=event.seq, kind=event.kind, actor=event.actor, data=event.data)
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
    opening = [e for e in _leading_engine_events(events[1:])]
    if not opening or opening[0].data.get("type") != "GameStarted":
        report.problems.append("seq 2: no GameStarted after MatchStarted")
        return
    game_started = opening[0].data
    seed = game_started.get("seed")
    if seed_sha256(seed) != started.data.get("seed_sha256"):
        report.problems.append(f"seq {opening[0].seq}: the seed does not match the SHA-256 published at the start")
    try:
        expected_opening = engine.start(game_started["players"], seed, game_started.get("options") or None)
    except (ValueError, KeyError, TypeError) as exc:
        report.problems.append(f"seq {opening[0].seq}: the opening cannot be rebuilt: {exc}")
        return
    if expected_opening != [e.data for e in opening]:
        report.problems.append(f"seq {opening[0].seq}: the opening events (the shuffle or the deal) do not follow from the seed")
        return
    state = engine.replay(expected_opening)
    index = 1 + len(opening)
    while index < len(events):
        event = events[index]
        if event.kind == ENGINE_KIND:
            report.problems.append(f"seq {event.seq}: an engine event that no move caused")
            return
        kind = event.data.get("type")
        if kind == "MovePlayed":
            caused = _leading_engine_events(events[index + 1 :])
            try:
                expected = engine.decide(state, event.data.get("seat"), event.data.get("move"))
            except IllegalMove as exc:
                report.problems.append(f"seq {event.seq}: the move is illegal in its position ({exc.code})")
                return
            if expected != [e.data for e in caused]:
                report.problems.append(f"seq {event.seq}: the stored events are not what the move causes")
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


def _leading_engine_events(events: list[StoredEvent]) -> list[StoredEvent]:
    run = []
    for event in events:
        if event.kind != ENGINE_KIND:
            break
        run.append(event)
    return run


def stored_events(match_id: int) -> list[StoredEvent]:
    """A match's rows as `StoredEvent`s (needs Django)."""
    from games.models import Event

    rows = Event.objects.filter(match_id=match_id).order_by("seq").values_list("seq", "kind", "actor", "data", "hash")
    return [StoredEvent(*row) for row in rows]


def verify_match(match: Any) -> Report:
    report = verify_stream(match.game, stored_events(match.pk), head_hash=match.head_hash)
    if report.ok and match.outcome is not None and report.outcome != match.outcome:
        report.problems.append("the match's stored outcome is not the replayed one")
    return report
