"""Verifying the league log offline, from its files alone: no database, no Django settings.

`verify_league(fetch, ...)` reads what a server (or a mirror of it) serves through `fetch(path)`,
paths as a mirror lays them out: `checkpoint`, `tile/<L>/<N>`, `tile/entries/<N>`,
`matches/<id>.jsonl` (a match's export), `ratings-params.json`, `series/<id>.json` (a series with
its standings). It stops at the first thing that
does not verify (`Disagreement`, its message naming the entry, match, tournament or ladder):

1. the checkpoint is signed by the pinned log key, and cosigned by a quorum of the given witnesses;
2. every entry bundle of its size hashes to its signed root, and so do the hash tiles served;
   with a previous checkpoint, the log extends it (neither shrank nor forked);
3. every logged match's export verifies (`games.verification`) and agrees with its entry;
4. every tournament's events are numbered 1..n and fold (`tournaments.fold.fold`); the
   standings and champion a TournamentFinished event logs are those of the folded results, and
   each table's result is its logged match's;
5. every series' decisions are numbered 1..n and follow (a tournament added once, at a tier of
   the points table in force, changed or removed only while counted); its standings as the
   server serves them (`series/<id>.json`) are those `tournaments.series` computes from the
   logged rules and tiers and the folded final standings of its finished tournaments. The served
   standings are compared when they are of the logged heads (the series' and each counted
   tournament's seq); a server ahead of its last checkpoint gets a note instead;
6. every rating ledger row follows: its before-values are its competitor's previous after-values
   in the ladder's epoch (or a new competitor's prior), and its after-values are recomputed with
   `ratings.math` from them and the logged match's ranks (or its tournament's logged
   correction), bit for bit, under the TrueSkill parameters the server publishes
   (`GET /api/ratings/params`). Trusting published parameters is sound: they are not a secret
   but a setting, and if the whole ledger recomputes bit for bit under them, then every rating
   follows from the logged results under the settings the server says it uses; a server that
   published other parameters than it rated with would fail the recomputation at the first row.
   A ladder's earlier epochs (made under parameters since changed) are checked for continuity
   only: the parameters they were rated with are not published.
"""
from __future__ import annotations

import base64
import json
from collections import ChainMap
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

from games.verification import FileRefused, parse_match_file, verify_file_contents
from leaguelog import merkle, tiles
from leaguelog.checkpoint import Checkpoint, open_checkpoint
from leaguelog.cosignature import count_cosignatures
from leaguelog.notes import NoteError, VerifierKey
from ratings import math as rmath
from tournaments import fold, series

Fetch = Callable[[str], bytes]
Progress = Callable[[Iterable[Any], int, str], Iterable[Any]]
"""progress(items, total, what): the items, reporting progress as they are consumed."""

_RESULT_CHANGES = ("ResultCorrected", "ForfeitAwarded")  # tournaments.models.RESULT_CHANGES
_BOTS_POOL, _PEOPLE_POOL = "bots", "people"  # ratings.models.Pool
# A duplicate round's pairing is logged once the round is complete (leaguelog.selectors), after
# the events that open its tables: a tournament's log may miss that one event meanwhile.
_WITHHELD_PAIRING_FORMAT = "duplicate"
_OPENING_EVENTS = ("TablesStarted", "RoundStarted")


class Disagreement(Exception):
    """The first thing found that does not verify, named precisely."""


def no_progress(items: Iterable[Any], total: int, what: str) -> Iterable[Any]:
    return items


@dataclass
class Summary:
    """What was checked."""

    size: int = 0
    root_hash: bytes = b""
    entries: int = 0  # facts, a fact in parts counted once
    matches: int = 0
    exports: int = 0  # matches whose export was fetched and replayed
    tournaments: int = 0
    series: int = 0
    ladders: int = 0
    rating_rows: int = 0
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        exports = f" ({self.exports} exports replayed)" if self.exports else " (exports not checked)"
        series = f"{self.series} series, " if self.series else ""  # a league without any says nothing of them
        return (
            f"verify_league: ok: {self.size} entries up to root {base64.b64encode(self.root_hash).decode()}: "
            f"{self.matches} matches{exports}, {self.tournaments} tournaments, {series}"
            f"{self.ladders} ladders ({self.rating_rows} rating rows) checked"
        )


class LoggedRating(NamedTuple):
    """A `rating_entry`, with the index of the entry that logged it."""

    entry: int  # not `index`, which would shadow tuple.index
    position: int
    match: int
    competitor: str
    seat: int | None
    rank: int
    before: rmath.Pair
    after: rmath.Pair
    revision: int
    reversal: bool


@dataclass
class Facts:
    """The log's facts by kind, each with the index of its (first) entry."""

    matches: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    tournament_events: dict[int, dict[int, tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    series_decisions: dict[int, dict[int, tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    ratings: dict[tuple[str, str, int], list[LoggedRating]] = field(default_factory=dict)
    rating_ids: set[int] = field(default_factory=set)
    count: int = 0


# --- 1. the checkpoint ----------------------------------------------------------------------------


def checkpoint_opened(note: str, log_key: VerifierKey, witnesses: Sequence[VerifierKey], quorum: int) -> Checkpoint:
    """The checkpoint, once the log's key signed it and `quorum` of the witnesses cosigned it."""
    try:
        checkpoint, _ = open_checkpoint(note, [log_key])
    except NoteError as error:
        raise Disagreement(f"the checkpoint is not one the log's key {log_key.name!r} signed: {error}") from error
    if checkpoint.origin != log_key.name:
        raise Disagreement(f"the checkpoint names the log {checkpoint.origin!r}, not {log_key.name!r}")
    try:
        cosigned = count_cosignatures(note, witnesses)
    except NoteError as error:
        raise Disagreement(f"the checkpoint's cosignatures: {error}") from error
    if cosigned < quorum:
        raise Disagreement(f"the checkpoint is cosigned by {cosigned} of the witnesses given, {quorum} required")
    return checkpoint


# --- 2. the tree ------------------------------------------------------------------------------------


@dataclass
class TreeHashes:
    """The log's subtree hashes as recomputed from its entries: each full bundle's root (a
    stored hash of level 8) and the leaf hashes of the bundles a tree's right edge cuts."""

    bundle_roots: list[bytes] = field(default_factory=list)
    edge_leaves: dict[int, list[bytes]] = field(default_factory=dict)

    def root(self, size: int) -> bytes:
        """The root of the tree of the first `size` entries."""
        return merkle.tree_hash(size, self.read_hash)

    def read_hash(self, level: int, index: int) -> bytes:
        if level >= tiles.TILE_HEIGHT:
            span = 1 << (level - tiles.TILE_HEIGHT)
            return merkle.root_from_leaves(self.bundle_roots[index * span:(index + 1) * span])
        # Below a bundle's height the tree's root reads only the bundle its right edge cuts.
        bundle, offset = divmod(index << level, tiles.TILE_WIDTH)
        return merkle.root_from_leaves(self.edge_leaves[bundle][offset:offset + (1 << level)])


def log_entries(
    fetch: Fetch, size: int, hashes: TreeHashes, edge_bundles: set[int], progress: Progress
) -> Iterator[tuple[int, bytes]]:
    """Every entry of the tree of `size` entries, bundle by bundle (one request per 256), with its
    index; fills `hashes` as it goes."""
    bundles = tiles.entry_bundles_for_size(size)
    for bundle in progress(bundles, len(bundles), "entry bundles"):
        entries = tiles.parse_entry_bundle(_fetched(fetch, bundle.path()), bundle.width)
        leaves = [merkle.leaf_hash(entry) for entry in entries]
        if bundle.width == tiles.TILE_WIDTH:
            hashes.bundle_roots.append(merkle.root_from_leaves(leaves))
        if bundle.index in edge_bundles:
            hashes.edge_leaves[bundle.index] = leaves
        first = bundle.index * tiles.TILE_WIDTH
        yield from zip(range(first, first + bundle.width), entries)


def tree_checked(fetch: Fetch, checkpoint: Checkpoint, hashes: TreeHashes) -> None:
    """The entries' root and the hash tiles' root are both the checkpoint's signed root."""
    size, root = checkpoint.size, checkpoint.root_hash
    try:
        tiles_root = merkle.tree_hash(size, tiles.tile_hash_reader(fetch, size))
    except (tiles.TileError, FetchError) as error:
        raise Disagreement(f"the hash tiles of {size} entries: {error}") from error
    if tiles_root != root:
        raise Disagreement(f"the hash tiles served give another root than the checkpoint's, for {size} entries")
    if hashes.root(size) != root:
        raise Disagreement(_changed_entry(fetch, size, hashes))


def _changed_entry(fetch: Fetch, size: int, hashes: TreeHashes) -> str:
    """Which entry is not the one the signed tree holds: bundle roots against the tiles' level-8
    hashes, then that bundle's leaf hashes against its level-0 tile."""
    read_tile_hash = tiles.tile_hash_reader(fetch, size)
    suspects = [index for index, bundle_root in enumerate(hashes.bundle_roots)
                if read_tile_hash(tiles.TILE_HEIGHT, index) != bundle_root]
    bundle = suspects[0] if suspects else size // tiles.TILE_WIDTH
    width = min(tiles.TILE_WIDTH, size - bundle * tiles.TILE_WIDTH)
    signed_leaves = [read_tile_hash(0, bundle * tiles.TILE_WIDTH + offset) for offset in range(width)]
    served = tiles.parse_entry_bundle(_fetched(fetch, tiles.EntryBundle(bundle, width).path()), width)
    for offset, (entry, signed_leaf) in enumerate(zip(served, signed_leaves)):
        if merkle.leaf_hash(entry) != signed_leaf:
            return (f"entry {bundle * tiles.TILE_WIDTH + offset} is not the one the signed tree holds: "
                    f"its bundle {tiles.EntryBundle(bundle, width).path()} was changed")
    return f"the entries do not hash to the checkpoint's root of {size} entries"


def extends_previous(previous: Checkpoint, checkpoint: Checkpoint, hashes: TreeHashes) -> None:
    """The log grew from a checkpoint seen before: neither shrank nor forked."""
    if previous.size > checkpoint.size:
        raise Disagreement(f"the log shrank: {previous.size} entries before, {checkpoint.size} now")
    if previous.size == checkpoint.size and previous.root_hash != checkpoint.root_hash:
        raise Disagreement(f"fork: the log's key signed two different trees of {checkpoint.size} entries")
    if hashes.root(previous.size) != previous.root_hash:
        raise Disagreement(
            f"fork: the first {previous.size} entries are not the tree of the previous checkpoint"
        )


# --- reading the facts ----------------------------------------------------------------------------------


def facts_of(entries: Iterable[tuple[int, bytes]]) -> Facts:
    """The facts of the log's entries, parts joined; Disagreement on an entry that is not one."""
    facts = Facts()
    parts: list[tuple[int, dict[str, Any]]] = []  # the parts of a fact read so far
    for index, body in entries:
        entry = _decoded(index, body)
        if entry.get("type") == "part":
            _part_added(parts, index, entry)
            if len(parts) < entry["parts"]:
                continue
            first = parts[0][0]
            entry = _decoded(first, "".join(part["text"] for _, part in parts).encode("utf-8"))
            if entry.get("type") != parts[0][1]["of"]:
                raise Disagreement(f"entry {first}: its parts join to a {entry.get('type')!r}, not a {parts[0][1]['of']!r}")
            parts.clear()
            index = first
        elif parts:
            raise Disagreement(f"entry {index}: a fact comes between the parts of entry {parts[0][0]}'s")
        _fact_added(facts, index, entry)
    if parts:
        raise Disagreement(f"entry {parts[0][0]}: the log ends before its fact's last part")
    return facts


def _decoded(index: int, body: bytes) -> dict[str, Any]:
    try:
        entry = json.loads(body)
    except (UnicodeDecodeError, ValueError) as error:
        raise Disagreement(f"entry {index} is not JSON: {error}") from error
    if not isinstance(entry, dict) or entry.get("v") != 1:
        raise Disagreement(f"entry {index} is not a version 1 entry")
    return entry


def _part_added(parts: list[tuple[int, dict[str, Any]]], index: int, part: dict[str, Any]) -> None:
    expected = parts[0][1] if parts else part
    if part.get("part") != len(parts) or any(part.get(key) != expected.get(key) for key in ("of", "source", "parts")):
        raise Disagreement(f"entry {index}: part {part.get('part')} is not the next part of a fact")
    parts.append((index, part))


def _fact_added(facts: Facts, index: int, entry: dict[str, Any]) -> None:
    facts.count += 1
    kind = entry.get("type")
    try:
        if kind == "match":
            _once(facts.matches, entry["match"], (index, entry), f"entry {index}: match {entry['match']}")
        elif kind == "tournament_event":
            stream = facts.tournament_events.setdefault(entry["tournament"], {})
            _once(stream, entry["seq"], (index, entry), f"entry {index}: tournament {entry['tournament']} seq {entry['seq']}")
        elif kind == "series_decision":
            stream = facts.series_decisions.setdefault(entry["series"], {})
            _once(stream, entry["seq"], (index, entry), f"entry {index}: series {entry['series']} seq {entry['seq']}")
        elif kind == "rating_entry":
            if entry["id"] in facts.rating_ids:
                raise Disagreement(f"entry {index}: rating entry {entry['id']} is logged twice")
            facts.rating_ids.add(entry["id"])
            facts.ratings.setdefault((entry["game"], entry["pool"], entry["epoch"]), []).append(LoggedRating(
                index, entry["position"], entry["match"], entry["competitor"], entry["seat"], entry["rank"],
                (entry["mu_before"], entry["sigma_before"]), (entry["mu_after"], entry["sigma_after"]),
                entry["revision"], entry["reversal"],
            ))
        else:
            raise Disagreement(f"entry {index} is of an unknown type {kind!r}")
    except KeyError as error:
        raise Disagreement(f"entry {index}: a {kind} entry without its {error}") from error


def _once(facts: dict[int, Any], key: int, fact: Any, what: str) -> None:
    if key in facts:
        raise Disagreement(f"{what} is logged twice (first at entry {facts[key][0]})")
    facts[key] = fact


# --- 3. the matches ---------------------------------------------------------------------------------


def match_checked(match_id: int, index: int, entry: dict[str, Any], export: bytes) -> None:
    """The match's export verifies, and says what its log entry says."""
    where = f"match {match_id} (entry {index})"
    try:
        header, events, _ = parse_match_file(export.decode("utf-8").splitlines())
    except UnicodeDecodeError as error:
        raise Disagreement(f"{where}: its export is not UTF-8") from error
    except FileRefused as error:
        raise Disagreement(f"{where}: its export is refused: {error}") from error
    report = verify_file_contents(header, events)
    if not report.ok:
        raise Disagreement(f"{where}: its export does not verify: line {report.first_line()}: {report.problems[0]}")
    started = events[0].data
    finished = next((e.data for e in reversed(events) if e.data.get("type") == "MatchFinished"), {})
    claims = {
        "game": header["game"], "final_hash": header["final_hash"], "events": events[-1].seq,
        "outcome": report.outcome, "seed": finished.get("seed"), "seed_sha256": started.get("seed_sha256"),
        "rated": header.get("rated"),
    }
    for name, exported in claims.items():
        if entry.get(name) != exported:
            raise Disagreement(f"{where}: the log says {name} {entry.get(name)!r}, its export {exported!r}")
    bots = [f"bot:{p['bot']}" if p.get("bot") else None for p in header["players"]]
    logged = [player if player.startswith(rmath.BOT_PREFIX) else None for player in entry["players"]]
    if bots != logged:
        raise Disagreement(f"{where}: the log seats {entry['players']}, its export {header['players']}")


# --- 4. the tournaments ---------------------------------------------------------------------------------


class ResultChange(NamedTuple):
    """A table's result given by its tournament after its match's own (a correction, a forfeit)."""

    tournament: int
    seq: int
    ranks: list[int] | None
    team_score: float | None
    forfeited_seats: tuple[int, ...]


def tournament_checked(
    tournament: int, stream: Mapping[int, tuple[int, dict[str, Any]]], matches: Mapping[int, tuple[int, dict]],
    changes: dict[int, list[ResultChange]], summary: Summary,
) -> fold.State:
    """The tournament's logged events fold, its final standings follow from them, its results
    are its matches'; adds its corrections of matches' results to `changes`. Returns its state."""
    events = _gapless(tournament, stream, summary)
    state = fold.empty_state()
    folded = 0
    for position, (index, event) in enumerate(events):
        if event["type"] == "TournamentFinished":
            state = _folded(tournament, events[folded:position], state)
            folded = position
            _standings_checked(tournament, event, index, state)
    state = _folded(tournament, events[folded:], state)
    for index, event in events:
        if event["type"] in ("TableResult", *_RESULT_CHANGES):
            _result_checked(tournament, event, index, state, matches, changes)
    return state


def _gapless(tournament: int, stream: Mapping[int, tuple[int, dict[str, Any]]], summary: Summary) -> list:
    """The events as the fold takes them, seq 1, 2, ... each with its entry's index."""
    events: list[tuple[int, dict[str, Any]]] = []
    for expected_seq, seq in enumerate(sorted(stream), start=1):
        index, entry = stream[seq]
        if seq != expected_seq:
            created = events[0][1]["data"] if events and events[0][1]["type"] == "TournamentCreated" else {}
            # Duplicate deals are an option of any format (`options["duplicate"]`), not a format of
            # their own: a Swiss of duplicate rounds was refused mid-round (issue #39).
            duplicate = created.get("format") == _WITHHELD_PAIRING_FORMAT or (created.get("options") or {}).get("duplicate")
            if duplicate and entry["event"] in _OPENING_EVENTS:
                summary.notes.append(
                    f"tournament {tournament}: seq {expected_seq} (a duplicate round's pairing) is not logged yet: "
                    f"checked up to seq {expected_seq - 1}"
                )
                break
            raise Disagreement(f"tournament {tournament}: seq {expected_seq} is missing from the log (seq {seq} follows)")
        if entry["tournament"] != tournament:
            raise Disagreement(f"entry {index}: tournament {tournament} seq {seq} is logged as another tournament's")
        event = {"seq": seq, "type": entry["event"], "data": entry["data"], "created": entry["created"]}
        events.append((index, event))
    return events


def _folded(tournament: int, events: list[tuple[int, dict[str, Any]]], state: fold.State) -> fold.State:
    """The state after these events; Disagreement naming the first that does not apply."""
    try:
        return fold.fold((event for _, event in events), state)
    except _FOLD_ERRORS:
        pass
    # Only now event by event (each fold copies the state), to name the event.
    for index, event in events:
        try:
            state = fold.fold([event], state)
        except _FOLD_ERRORS as error:
            raise Disagreement(
                f"tournament {tournament} seq {event['seq']} (entry {index}, {event['type']}): "
                f"it does not apply to the tournament as folded so far: {error!r}"
            ) from error
    return state


# What the fold raises on an event that does not fit the state (an unknown round, table, entrant...).
_FOLD_ERRORS = (KeyError, ValueError, TypeError, IndexError, AttributeError)


def _standings_checked(tournament: int, event: dict[str, Any], index: int, state: fold.State) -> None:
    """TournamentFinished's standings and champion are those `tournaments.services.rounds._finish` gives."""
    where = f"tournament {tournament} seq {event['seq']} (entry {index}, TournamentFinished)"
    rows = fold.standings(state)
    expected = [{key: row[key] for key in ("entrant", "rank", "place", "points")} for row in rows]
    logged = event["data"].get("standings")
    if logged != expected:
        wrong = next((i for i, (a, b) in enumerate(zip(logged or [], expected)) if a != b), min(len(logged or []), len(expected)))
        raise Disagreement(
            f"{where}: its standings are not the folded results': row {wrong + 1} is "
            f"{(logged or [None] * (wrong + 1))[wrong] if wrong < len(logged or []) else None}, recomputed "
            f"{expected[wrong] if wrong < len(expected) else None}"
        )
    field = fold.entrants(state)
    options = fold.format_options(state)
    placing = fold.bracket_format(state, options)
    champion = None
    if hasattr(placing, "champion") and len(field) >= 2:
        champion = placing.champion(field, options, fold.history(state))
    if champion is None and rows:
        champion = rows[0]["entrant"]
    if event["data"].get("champion") != champion:
        raise Disagreement(f"{where}: its champion is {event['data'].get('champion')}, the folded results' {champion}")


def _result_checked(
    tournament: int, event: dict[str, Any], index: int, state: fold.State,
    matches: Mapping[int, tuple[int, dict]], changes: dict[int, list[ResultChange]],
) -> None:
    data = event["data"]
    where = f"tournament {tournament} seq {event['seq']} (entry {index}, {event['type']})"
    try:
        table = fold.table_of(state, data["round"], data["table"])
    except KeyError as error:
        raise Disagreement(f"{where}: round {data.get('round')} has no table {data.get('table')}") from error
    if event["type"] != "TableResult":
        seats = table["seats"]
        forfeited = set(data.get("forfeited") or ())
        if table["match"] is not None:
            changes.setdefault(table["match"], []).append(ResultChange(
                tournament, event["seq"], data.get("ranks"), data.get("team_score"),
                tuple(seat for seat, entrant in enumerate(seats) if entrant in forfeited),
            ))
        return
    if data["match"] != table["match"]:
        raise Disagreement(f"{where}: the result names match {data['match']}, its table was opened with {table['match']}")
    logged = matches.get(data["match"])
    if logged is None:
        raise Disagreement(f"{where}: its match {data['match']} is not in the log")
    match_entry = logged[1]
    # Seats absent at the deadline are tied last in the table's result, not in the match's ranks.
    if data.get("ranks") is not None and not data.get("forfeited") and data["ranks"] != match_entry["ranks"]:
        raise Disagreement(
            f"{where}: ranks {data['ranks']}, but match {data['match']} (entry {logged[0]}) is logged with {match_entry['ranks']}"
        )
    outcome = match_entry.get("outcome") or {}
    if data.get("team_score") is not None and outcome.get("cooperative") and data["team_score"] != outcome["scores"][0]:
        raise Disagreement(f"{where}: team score {data['team_score']}, but match {data['match']} left {outcome['scores'][0]}")


# --- 5. the series -------------------------------------------------------------------------------------


@dataclass
class LoggedSeries:
    """A series as its logged decisions leave it: its rules and the tier of each tournament it counts."""

    rules: series.SeriesRules
    tiers: dict[int, int] = field(default_factory=dict)


def series_checked(
    series_id: int, stream: Mapping[int, tuple[int, dict[str, Any]]], states: Mapping[int, fold.State],
    tournament_events: Mapping[int, Mapping[int, tuple[int, dict[str, Any]]]], fetch: Fetch, summary: Summary,
    *, lost: bool = False,
) -> None:
    """The series' decisions follow, and the standings the server serves for it are those its
    logged rules and tiers give from its tournaments' folded final standings (unless it is `lost`)."""
    logged = series_folded(series_id, stream)
    if lost:
        summary.notes.append(f"series {series_id}: its standings not compared: the server lost it in a restore")
        return
    served = _served_series(series_id, fetch)
    heads = {event["tournament"]: event.get("tournament_seq") for event in served.get("events", [])}
    behind = [t for t in logged.tiers if t not in states or heads.get(t) != states[t]["last_seq"]]
    if served.get("seq") != max(stream) or set(heads) != set(logged.tiers) or behind:
        summary.notes.append(
            f"series {series_id}: the server's standings are of decisions or results after the log's checkpoint: "
            f"not compared (its decisions were checked)"
        )
        return
    placings = [
        series.event_placings(tournament, tier, cast(list[series.StandingFacts], fold.standings(states[tournament])),
                              _players(tournament_events[tournament], states[tournament]),
                              revision=states[tournament]["last_seq"])
        for tournament, tier in sorted(logged.tiers.items()) if states[tournament]["status"] == "finished"
    ]
    try:
        expected = series.standings_json(series.series_standings(logged.rules, placings))
    except ValueError as error:
        raise Disagreement(f"series {series_id}: its standings cannot be computed from the log: {error}") from error
    keys = ("rank", "player", "total", "played", "counting", "head_to_head", "results")
    shown = [{key: row.get(key) for key in keys} for row in served.get("standings", [])]
    if shown != expected:
        wrong = next((i for i, (a, b) in enumerate(zip(shown, expected)) if a != b), min(len(shown), len(expected)))
        raise Disagreement(
            f"series {series_id}: its standings served are not those of its logged decisions and tournaments: row "
            f"{wrong + 1} is {shown[wrong] if wrong < len(shown) else None}, recomputed "
            f"{expected[wrong] if wrong < len(expected) else None}"
        )


def series_folded(series_id: int, stream: Mapping[int, tuple[int, dict[str, Any]]]) -> LoggedSeries:
    """The series after its decisions, seq 1, 2, ...; Disagreement at the first that does not follow."""
    logged: LoggedSeries | None = None
    for expected_seq, seq in enumerate(sorted(stream), start=1):
        index, entry = stream[seq]
        where = f"series {series_id} seq {seq} (entry {index}, {entry.get('event')})"
        if seq != expected_seq:
            raise Disagreement(f"series {series_id}: seq {expected_seq} is missing from the log (seq {seq} follows)")
        try:
            logged = _decided(logged, entry["event"], entry["data"])
        except (KeyError, TypeError, ValueError) as error:
            raise Disagreement(f"{where}: it does not follow from the series' decisions before it: {error}") from error
    assert logged is not None  # a logged series has a first decision
    return logged


def _decided(logged: LoggedSeries | None, kind: str, data: dict[str, Any]) -> LoggedSeries:
    if logged is None:
        if kind != "SeriesCreated":
            raise ValueError("a series' first decision is SeriesCreated")
        return LoggedSeries(series.rules_from_json(data["rules"]))
    if kind == "SeriesRulesSet":
        rules = series.rules_from_json(data["rules"])
        dropped = set(logged.tiers.values()) - set(rules.points)
        if dropped:
            raise ValueError(f"the new rules drop tiers {sorted(dropped)} still in use")
        logged.rules = rules
    elif kind == "SeriesEventAdded":
        if data["tournament"] in logged.tiers:
            raise ValueError(f"tournament {data['tournament']} is counted already")
        logged.tiers[data["tournament"]] = _tier(logged, data["tier"])
    elif kind == "SeriesEventTierChanged":
        if logged.tiers[data["tournament"]] != data["from"]:
            raise ValueError(f"tournament {data['tournament']} is at tier {logged.tiers[data['tournament']]}")
        logged.tiers[data["tournament"]] = _tier(logged, data["tier"])
    elif kind == "SeriesEventRemoved":
        del logged.tiers[data["tournament"]]
    else:
        raise ValueError(f"no series decision is called {kind!r}")
    return logged


def _tier(logged: LoggedSeries, tier: int) -> int:
    if tier not in logged.rules.points:
        raise ValueError(f"the points table has no tier {tier}")
    return tier


def _players(events: Mapping[int, tuple[int, dict[str, Any]]], state: fold.State) -> dict[int, series.PlayerId]:
    """Each entrant as the series names players: `user:<id>`, or `bot:<name>` by the name its
    registration logged."""
    names = {
        entry["data"]["entrant"]: entry["data"].get("name")
        for _index, entry in events.values() if entry["event"] == "PlayerRegistered" and entry["data"].get("bot")
    }
    return {
        int(key): f"user:{entrant['user']}" if entrant["user"] is not None else f"bot:{names.get(int(key))}"
        for key, entrant in state["entrants"].items()
    }


def _served_series(series_id: int, fetch: Fetch) -> dict[str, Any]:
    path = f"series/{series_id}.json"
    try:
        served = json.loads(_fetched(fetch, path))
    except ValueError as error:
        raise Disagreement(f"{path} is not JSON: {error}") from error
    if not isinstance(served, dict):
        raise Disagreement(f"{path} is not a series")
    return served


# --- 6. the ratings ----------------------------------------------------------------------------------


def params_parsed(published: bytes) -> dict[str, rmath.Params]:
    """The TrueSkill parameters per game as `GET /api/ratings/params` publishes them."""
    try:
        return {game: rmath.Params.from_dict(values) for game, values in json.loads(published).items()}
    except (ValueError, TypeError, AttributeError) as error:
        raise Disagreement(f"the published rating parameters are not read: {error}") from error


def ladder_checked(
    ladder: tuple[str, str, int], rows: list[LoggedRating], params: rmath.Params | None,
    matches: Mapping[int, tuple[int, dict]], changes: Mapping[int, list[ResultChange]],
) -> None:
    """One ladder epoch's ledger, position by position: continuity, and with `params` (None: an
    earlier epoch) each row recomputed bit for bit."""
    game, pool, epoch = ladder
    env = rmath.environment(params) if params is not None else None
    prior = (params.mu, params.sigma) if params is not None else None
    pairs: dict[str, rmath.Pair] = {}  # each competitor's rating as the ledger has it so far
    set_at: dict[str, int] = {}  # the position that set it
    latest: dict[int, list[LoggedRating]] = {}  # match -> the rows of its last revision (not the reversals)
    tables: dict[int, list[rmath.Table]] = {}  # match -> its table at revision 0, 1, ...
    by_position: dict[int, list[LoggedRating]] = {}
    # Within a position a match's reversals come first (`LadderBook.rate`), then its new ratings.
    for row in sorted(rows, key=lambda row: (row.position, not row.reversal, row.entry)):
        by_position.setdefault(row.position, []).append(row)
    for expected_position, position in enumerate(by_position, start=1):
        at = by_position[position]
        where = f"ladder {game}/{pool} epoch {epoch} position {position} (entry {at[0].entry})"
        if position != expected_position:
            raise Disagreement(f"ladder {game}/{pool} epoch {epoch}: position {expected_position} is missing from the log")
        match_id, revision = at[0].match, at[0].revision
        if any((row.match, row.revision) != (match_id, revision) for row in at):
            raise Disagreement(f"{where}: its rows rate more than one match")
        logged = matches.get(match_id)
        if logged is None:
            raise Disagreement(f"{where}: its match {match_id} is not in the log")
        _match_fits_ladder(where, match_id, logged[1], game, pool)
        if revision == 0:
            _ranks_checked(where, match_id, logged, at)
        after_position = _continued(where, at, pairs, set_at, prior)
        if env is not None:
            table = _table_at(where, match_id, logged[1], revision, tables, changes)
            _recomputed(where, env, table, at, latest.get(match_id, []), pairs)
        pairs.update(after_position)
        set_at.update(dict.fromkeys(after_position, position))
        latest[match_id] = [row for row in at if not row.reversal]


def _continued(
    where: str, at: list[LoggedRating], pairs: Mapping[str, rmath.Pair], set_at: Mapping[str, int],
    prior: rmath.Pair | None,
) -> dict[str, rmath.Pair]:
    """Each row's before-values are its competitor's rating so far (the prior for a first
    appearance, when known); the ratings the position leaves."""
    moved: dict[str, rmath.Pair] = {}
    for row in at:
        expected = moved.get(row.competitor) or pairs.get(row.competitor) or prior
        if expected is not None and row.before != expected:
            since = (
                "its reversal's after-values" if row.competitor in moved
                else f"its rating after position {set_at[row.competitor]}" if row.competitor in pairs else "the prior"
            )
            raise Disagreement(f"{where}: {row.competitor}'s rating before, {row.before}, is not {since}, {expected}")
        moved[row.competitor] = row.after
    return moved


def _ranks_checked(where: str, match_id: int, logged: tuple[int, dict[str, Any]], at: list[LoggedRating]) -> None:
    index, entry = logged
    if (entry.get("outcome") or {}).get("cooperative"):
        return  # rated as a team against the game: the rows hold the groups' ranks
    for row in at:
        if row.seat is not None and entry["ranks"][row.seat] != row.rank:
            raise Disagreement(
                f"{where}: {row.competitor} is rated at rank {row.rank}, match {match_id} (entry {index}) "
                f"ranks seat {row.seat} {entry['ranks'][row.seat]}"
            )


def _match_fits_ladder(where: str, match_id: int, entry: dict[str, Any], game: str, pool: str) -> None:
    if entry["game"] != game:
        raise Disagreement(f"{where}: its match {match_id} is a match of {entry['game']}")
    expected_pool = _BOTS_POOL if any(p.startswith(rmath.BOT_PREFIX) for p in entry["players"]) else _PEOPLE_POOL
    if pool != expected_pool or not entry.get("rated"):
        raise Disagreement(f"{where}: its match {match_id} is not a rated match of the {pool} pool")


def _table_at(
    where: str, match_id: int, entry: dict[str, Any], revision: int, tables: dict[int, list[rmath.Table]],
    changes: Mapping[int, list[ResultChange]],
) -> rmath.Table:
    """The match's table at a revision: its logged result, then each logged correction of its
    table that rates differently (as `ratings.selectors.match_revisions`)."""
    revisions = tables.get(match_id)
    if revisions is None:
        outcome = entry.get("outcome") or {}
        table = rmath.Table(
            tuple(entry["players"]), tuple(entry["ranks"]), bool(outcome.get("cooperative")), bool(outcome.get("won"))
        )
        revisions = tables[match_id] = [table]
        for change in changes.get(match_id, ()):
            revised = rmath.revised_table(revisions[-1], change.ranks, change.team_score, change.forfeited_seats)
            if revised is not None and revised != revisions[-1]:
                revisions.append(revised)
    if revision >= len(revisions):
        raise Disagreement(f"{where}: revision {revision} of match {match_id}, but its tournament's log gives "
                           f"{len(revisions) - 1} changed results")
    return revisions[revision]


def _recomputed(
    where: str, env: Any, table: rmath.Table, at: list[LoggedRating], previous: list[LoggedRating],
    pairs: dict[str, rmath.Pair],
) -> None:
    """The position's rows as `ratings.projections.LadderBook.rate` makes them from the ratings
    before it: a revision first takes back the match's last revision, then `table_updates`."""
    reversed_pairs: dict[str, rmath.Pair] = {}
    expected: dict[tuple[bool, str], tuple[int | None, int, rmath.Pair, rmath.Pair]] = {}
    if at[0].revision:
        for row in previous:
            before = pairs[row.competitor]
            reversed_pairs[row.competitor] = after = rmath.reversed_pair(before, row.before, row.after)
            expected[(True, row.competitor)] = (row.seat, row.rank, before, after)
    for competitor, seat, rank, before, after in rmath.table_updates(env, table, ChainMap(reversed_pairs, pairs)):
        expected[(False, competitor)] = (seat, rank, before, after)
    logged = {(row.reversal, row.competitor): row for row in at}
    if logged.keys() != expected.keys():
        missing, extra = sorted(expected.keys() - logged.keys()), sorted(logged.keys() - expected.keys())
        raise Disagreement(f"{where}: the rows logged are not the rows recomputed (missing {missing}, not expected {extra})")
    for key, (seat, rank, before, after) in expected.items():
        row = logged[key]
        what = f"{where}: {key[1]}'s {'reversal ' if key[0] else ''}row (entry {row.entry})"
        if (row.seat, row.rank) != (seat, rank):
            raise Disagreement(f"{what}: seat {row.seat} rank {row.rank}, recomputed seat {seat} rank {rank}")
        if row.before != before:
            raise Disagreement(f"{what}: mu_before, sigma_before {row.before}, recomputed {before}")
        if row.after != after:
            raise Disagreement(f"{what}: mu_after, sigma_after {row.after}, recomputed {after}")


# --- all of it ----------------------------------------------------------------------------------------


class FetchError(Exception):
    """A path that could not be fetched."""


def _fetched(fetch: Fetch, path: str) -> bytes:
    try:
        return fetch(path)
    except FetchError as error:
        raise Disagreement(f"{path}: {error}") from error


def verify_league(
    fetch: Fetch, *, log_key: VerifierKey, witnesses: Sequence[VerifierKey] = (), quorum: int = 0,
    previous_note: str | None = None, check_matches: bool = True, progress: Progress = no_progress,
    matches_lost: Collection[int] = (), series_lost: Collection[int] = (),
) -> Summary:
    """Verifies everything the log served through `fetch` holds (see the module docstring);
    the Summary of what was checked, or Disagreement at the first thing that does not verify.
    `matches_lost`: logged matches whose events the server no longer holds (a restore from before
    they were played), whose exports are not asked for; a note names how many. `series_lost`: logged
    series the server no longer holds (the same), whose standings are not asked for."""
    checkpoint = checkpoint_opened(_fetched(fetch, "checkpoint").decode("utf-8", "replace"), log_key, witnesses, quorum)
    previous = None
    if previous_note is not None:
        previous = checkpoint_opened(previous_note, log_key, [], 0)
    summary = Summary(size=checkpoint.size, root_hash=checkpoint.root_hash)
    hashes = TreeHashes()
    edges = {checkpoint.size // tiles.TILE_WIDTH} | ({previous.size // tiles.TILE_WIDTH} if previous else set())
    try:
        facts = facts_of(log_entries(fetch, checkpoint.size, hashes, edges, progress))
    except tiles.TileError as error:
        raise Disagreement(f"an entry bundle: {error}") from error
    tree_checked(fetch, checkpoint, hashes)
    if previous is not None:
        extends_previous(previous, checkpoint, hashes)
    summary.entries, summary.matches = facts.count, len(facts.matches)
    if check_matches:
        lost = set(matches_lost) & facts.matches.keys()
        if lost:
            summary.notes.append(f"{len(lost)} logged matches' exports not checked: their events were lost in a restore")
        for match_id in progress(sorted(facts.matches.keys() - lost), len(facts.matches) - len(lost), "match exports"):
            index, entry = facts.matches[match_id]
            match_checked(match_id, index, entry, _fetched(fetch, f"matches/{match_id}.jsonl"))
            summary.exports += 1
    changes: dict[int, list[ResultChange]] = {}
    states: dict[int, fold.State] = {}
    for tournament in sorted(facts.tournament_events):
        states[tournament] = tournament_checked(tournament, facts.tournament_events[tournament], facts.matches, changes, summary)
    summary.tournaments = len(facts.tournament_events)
    for series_id in sorted(facts.series_decisions):
        series_checked(series_id, facts.series_decisions[series_id], states, facts.tournament_events, fetch, summary,
                       lost=series_id in series_lost)
    summary.series = len(facts.series_decisions)
    for match_changes in changes.values():
        match_changes.sort()
    _ratings_checked(fetch, facts, changes, summary, progress)
    return summary


def _ratings_checked(
    fetch: Fetch, facts: Facts, changes: dict[int, list[ResultChange]], summary: Summary, progress: Progress
) -> None:
    if not facts.ratings:
        return
    params = params_parsed(_fetched(fetch, "ratings-params.json"))
    latest_epoch: dict[tuple[str, str], int] = {}
    for game, pool, epoch in facts.ratings:
        latest_epoch[(game, pool)] = max(epoch, latest_epoch.get((game, pool), epoch))
    for ladder in progress(sorted(facts.ratings), len(facts.ratings), "ladders"):
        game, pool, epoch = ladder
        if game not in params:
            raise Disagreement(f"ladder {game}/{pool}: the server publishes no rating parameters for {game}")
        current = epoch == latest_epoch[(game, pool)]
        ladder_checked(ladder, facts.ratings[ladder], params[game] if current else None, facts.matches, changes)
        summary.rating_rows += len(facts.ratings[ladder])
    summary.ladders = len(latest_epoch)
    superseded = len(facts.ratings) - len(latest_epoch)
    if superseded:
        summary.notes.append(
            f"{superseded} earlier ladder epochs checked for continuity only (their parameters are not published)"
        )
