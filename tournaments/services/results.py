"""Results: a finished match's result for its table, and the organiser's corrections and forfeits."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.models import Match, Seat
from games.selectors import result_ranks
from server.celery import send_on_commit
from server.errors import bad_request, conflict, english_or, not_found
from tournaments import fold
from tournaments.formats import forfeit_result
from tournaments.models import Round, RoundTable, Tournament
from tournaments.selectors import COOPERATIVE_GAMES
from tournaments.services._stream import (
    _append,
    _locked,
    _require_organiser,
    _require_running,
    _schedule,
    _state,
    actor_of,
)
from tournaments.services.rounds import _repair_unstarted, canonical_deck


def _table_result_append(tournament: Tournament, rnd: Round, table: RoundTable, match: Match) -> bool:
    """Appends a finished match's result to its table (once: keyed by the match). Lock held."""
    event = _append(
        tournament,
        "TableResult",
        {"round": rnd.number, "table": table.number, "match": match.pk, **_result_from_match(tournament, table, match)},
        actor="server",
        key=f"match:{match.pk}",
    )
    return event is not None


def _result_from_match(tournament: Tournament, table: RoundTable, match: Match) -> dict[str, Any]:
    """The table's result: the match's ranks as `result_ranks` counts them (seats abandoned on the
    clock after the rest, people absent at the deadline tied last: the absent forfeit); a
    cooperative game's team score."""
    outcome = match.outcome or {}
    absent = set(table.absent)
    absent_seats = {index for index, entrant in enumerate(table.seats) if entrant in absent}
    forfeited = sorted(absent)
    if outcome.get("cooperative"):
        return {"ranks": None, "team_score": outcome["scores"][0], "forfeited": forfeited}
    abandoned = set(Seat.objects.filter(match=match, abandoned=True).values_list("seat", flat=True))
    return {
        "ranks": result_ranks(list(outcome["ranks"]), abandoned, absent_seats),
        "team_score": None,
        "forfeited": forfeited,
    }


def result_correct(
    *,
    tournament_id: int,
    user: User,
    round_number: int,
    table_number: int,
    reason: str,
    ranks: list[int] | None = None,
    team_score: float | None = None,
    forfeited: list[int] | None = None,
) -> dict[str, Any]:
    """The organiser sets a table's result (with a reason). Standings follow; a round paired
    but not started is paired again; a bracket refuses a change that later rounds contradict."""
    if not reason.strip():
        raise bad_request("reason_required", _("A correction needs a reason."))
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, user)
        if tournament.status not in (Tournament.Status.RUNNING, Tournament.Status.FINISHED):
            raise conflict("tournament_not_running", _("The tournament has not started."))
        state = _state(tournament)
        table = _started_table(state, round_number, table_number)
        forfeited = sorted(set(forfeited or []))
        result = _checked_result(tournament, table, ranks, team_score, forfeited)
        data = {"round": round_number, "table": table_number, **result, "reason": reason.strip()}
        _check_consistent(state, "ResultCorrected", data)
        _append(tournament, "ResultCorrected", data, actor=actor_of(user))
        _result_changed(table["match"])
        _repair_unstarted(
            tournament, actor=actor_of(user), reason=f"result of round {round_number} corrected"
        )
        _schedule(tournament.pk, timezone.now())
        return fold.table_of(_state(tournament), round_number, table_number)


def forfeit_award(
    *, tournament_id: int, user: User, round_number: int, table_number: int, forfeited: list[int], reason: str
) -> dict[str, Any]:
    """The organiser awards a table by forfeit: the players named lose it (ranked last); the
    rest share first place. A cooperative table scores the whole deck left."""
    if not reason.strip():
        raise bad_request("reason_required", _("A forfeit needs a reason."))
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, user)
        _require_running(tournament)
        state = _state(tournament)
        table = _started_table(state, round_number, table_number)
        gone = sorted(set(forfeited))
        if not gone or not set(gone) <= set(table["seats"]):
            raise bad_request("bad_forfeit", _("Name one or more players seated at the table."))
        result = _forfeit_of(tournament, round_number, table["seats"], gone)
        data = {"round": round_number, "table": table_number, **result, "reason": reason.strip()}
        _check_consistent(state, "ForfeitAwarded", data)
        _append(tournament, "ForfeitAwarded", data, actor=actor_of(user))
        _result_changed(table["match"])
        _repair_unstarted(tournament, actor=actor_of(user), reason=f"forfeit in round {round_number}")
        _schedule(tournament.pk, timezone.now())
        return fold.table_of(_state(tournament), round_number, table_number)


def _forfeit_of(tournament: Tournament, round_number: int, seats: list[int], gone: list[int]) -> dict[str, Any]:
    """A forfeited table's result: the players named lose it (ranked last), the rest share first
    place; a cooperative table scores the whole deck left."""
    if tournament.game in COOPERATIVE_GAMES:
        return {"ranks": None, "team_score": len(canonical_deck(tournament.game, len(seats))), "forfeited": gone}
    ranks = forfeit_result(round_number, seats, gone).ranks
    return {"ranks": list(ranks or ()), "team_score": None, "forfeited": gone}


def _result_changed(match_id: int | None) -> None:
    """After commit, tells every task in `TABLE_RESULT_CHANGED_TASKS` (ratings) that the result
    of the table playing `match_id` changed (a table without a match changes no rating)."""
    if match_id is None:
        return
    for path in settings.TABLE_RESULT_CHANGED_TASKS:
        send_on_commit(path, match_id)


def _started_table(state: fold.State, round_number: int, table_number: int) -> dict[str, Any]:
    rnd = state["rounds"].get(str(round_number))
    if rnd is None:
        raise not_found("round_not_found", _("There is no round %(round_number)s.") % {"round_number": round_number})
    try:
        table = fold.table_of(state, round_number, table_number)
    except KeyError:
        raise not_found(
            "table_not_found",
            _("Round %(round_number)s has no table %(table_number)s.")
            % {"round_number": round_number, "table_number": table_number},
        ) from None
    if rnd["started_at"] is None:
        raise conflict("round_not_started", _("Round %(round_number)s has not started.") % {"round_number": round_number})
    return table


def _checked_result(
    tournament: Tournament,
    table: dict[str, Any],
    ranks: list[int] | None,
    team_score: float | None,
    forfeited: list[int],
) -> dict[str, Any]:
    if not set(forfeited) <= set(table["seats"]):
        raise bad_request("bad_result", _("Forfeited players must be seated at the table."))
    if tournament.game in COOPERATIVE_GAMES:
        if team_score is None or ranks is not None:
            raise bad_request("bad_result", _("A cooperative table's result is its team score (cards left)."))
        return {"ranks": None, "team_score": team_score, "forfeited": forfeited}
    if team_score is not None or ranks is None:
        raise bad_request("bad_result", _("A table's result is one rank per seat (1 is best)."))
    if len(ranks) != len(table["seats"]) or not all(
        isinstance(r, int) and 1 <= r <= len(ranks) for r in ranks
    ):
        raise bad_request(
            "bad_result", _("Give one rank from 1 to %(count)s per seat, in seat order.") % {"count": len(table['seats'])}
        )
    return {"ranks": list(ranks), "team_score": None, "forfeited": forfeited}


def _check_consistent(state: fold.State, kind: str, data: dict[str, Any]) -> None:
    """Refuses a change the format cannot make sense of (a bracket whose later rounds contradict it)."""
    after = fold.evolve(
        state,
        {"seq": state["last_seq"] + 1, "type": kind, "data": data, "created": timezone.now().isoformat()},
    )
    try:
        fold.standings(after)
        options = fold.format_options(after)
        placing = fold.bracket_format(after, options)
        if hasattr(placing, "bracket"):
            drawn = placing.bracket(fold.entrants(after), options, fold.history(after))
            _check_seated_as_drawn(after, drawn)
    except ValueError as exc:
        raise conflict(
            "correction_conflicts",
            english_or(f"Later rounds contradict that result: {exc}", _("Later rounds contradict that result.")),
        ) from None


def _check_seated_as_drawn(state: fold.State, drawn: Any) -> None:
    """Every bracket table already started still seats the players the bracket now puts there."""
    for rnd in fold.rounds_in_order(state):
        for table in rnd["tables"]:
            if not table["match"]:
                continue
            if table["bracket"] and set(drawn.match(table["bracket"]).players) != set(table["seats"]):
                raise ValueError(f"match {table['bracket']} of round {rnd['number']} is already being played")
