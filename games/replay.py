"""Replays of finished matches: any position, with every hand shown or as one seat saw it."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _

from accounts.models import User
from games.engines import ENGINES
from games.models import Event, Match
from games.shapes import DecisionPoint
from server.errors import bad_request, conflict, forbidden


def replay_position(match: Match, user: User | None, *, seq: int | None, seat: int | None | str) -> dict[str, Any]:
    """The match at `seq` (its end by default).

    `seat="all"` shows everything (every seat's view, built as ENGINE.md says a full replay is,
    and the raw events); a seat number or `None` (a spectator) shows what that viewer saw then.
    A running match is replayed for staff only: its log still holds hidden cards.
    """
    if not match.revealed and not (user is not None and user.is_staff):
        raise forbidden("match_running", _("A match can be replayed once it has ended."))
    if match.status == Match.Status.OPEN:
        raise conflict("match_not_started", _("The match has not started."))
    seq = match.last_seq if seq is None else seq
    if not 0 < seq <= match.last_seq:
        raise bad_request("bad_seq", _("seq runs from 1 to %(last_seq)s.") % {"last_seq": match.last_seq})
    if seat not in ("all", None) and not (isinstance(seat, int) and 0 <= seat < match.players):
        raise bad_request("bad_seat", _("seat is 'all', 'spectator' or 0 to %(last)s.") % {"last": match.players - 1})
    engine = ENGINES[match.game]
    # One read of the whole log: the position needs its events up to `seq`, the decisions all of them.
    every_row = list(_rows(match))
    rows = [row for row in every_row if row[0] <= seq]
    state = engine.replay(data for _, kind, data, _ in rows if kind == Event.Kind.ENGINE)
    position: dict[str, Any] = {"match": match.pk, "seq": seq, "last_seq": match.last_seq, "seat": seat}
    if state is None:  # before GameStarted: only the table's first fact
        position.update(views=None, view=None, log=[])
    elif seat == "all":
        position["views"] = [engine.view(state, s) for s in range(match.players)]
        position["view"] = engine.view(state, None)
        position["log"] = [{"seq": s, "event": data} for s, kind, data, _ in rows if kind == Event.Kind.ENGINE]
    else:
        assert not isinstance(seat, str)  # the only text let through above is "all"
        position["views"] = None
        position["view"] = engine.view(state, seat)
        position["log"] = [
            {"seq": s, "event": red}
            for s, kind, data, _ in rows
            if kind == Event.Kind.ENGINE and (red := engine.redact(data, seat)) is not None
        ]
    position["decisions"] = _decisions_in(every_row)
    return position


def _rows(match: Match) -> Iterable[tuple[int, str, dict[str, Any], str]]:
    """The match's whole log as (seq, kind, data, actor)."""
    return Event.objects.filter(match=match).order_by("seq").values_list("seq", "kind", "data", "actor")


def decision_points(match: Match) -> list[DecisionPoint]:
    """Every move of the match: the position it was made in (`seq`) and the one it led to (`after`)."""
    return _decisions_in(_rows(match))


def _decisions_in(rows: Iterable[tuple[int, str, dict[str, Any], str]]) -> list[DecisionPoint]:
    points: list[DecisionPoint] = []
    for seq, kind, data, actor in rows:
        if kind == Event.Kind.TABLE and data.get("type") == "MovePlayed":
            points.append({"seq": seq - 1, "after": seq, "seat": data["seat"], "move": data["move"], "actor": actor})
        elif kind == Event.Kind.ENGINE and points:
            points[-1]["after"] = seq
    return points
