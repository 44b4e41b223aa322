"""Reads of tournaments: summaries, standings, rounds with their matches, brackets, the calendar,
and the feed of events. Anyone may read a tournament; secrets (the seed, the deal of a round still
being played) stay hidden."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, NamedTuple

from django.db.models import Exists, Max, OuterRef, Prefetch, QuerySet
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from accounts.models import User
from games.engines import ENGINES
from games.models import SpectatorPolicy
from server.errors import bad_request, conflict, english_or, forbidden, not_found
from tournaments import fold, projections, series
from tournaments.formats import FORMATS
from tournaments.formats._common import Entrant as FormatEntrant
from tournaments.formats._common import PlayerId, seeded
from tournaments.models import (
    RESULT_CHANGES,
    Entrant,
    Judge,
    JudgeCall,
    JudgeCallEvent,
    Round,
    RoundTable,
    Series,
    SeriesDecision,
    SeriesEvent,
    StandingRow,
    Tournament,
    TournamentEvent,
    TournamentProjection,
    Webhook,
)
from tournaments.shapes import (
    BracketShown,
    EntrantShown,
    ExportedTable,
    FieldDecision,
    JudgeCallShown,
    JudgingQueue,
    PersonShown,
    PlayerShown,
    RoundShown,
    SeriesDecisionFeed,
    SeriesDecisionShown,
    SeriesEventShown,
    SeriesShown,
    SeriesStandingShown,
    SeriesWithStandings,
    StandingShown,
    TableJudging,
    TableShown,
    TournamentEventShown,
    TournamentExport,
    TournamentSummary,
)

FEED_LIMIT = 500
# `field_rules.RULES` in the reader's language. A decision's `why` is stored in English, with its
# details, in the tournament's log; a reader of another language gets its rule's sentence.
RULE_SENTENCES = {
    "waitlist.joined": gettext_lazy("The tournament was full: registration joined the waitlist."),
    "waitlist.promoted": gettext_lazy("A seat was freed before the start: the first on the waitlist took it."),
    "waitlist.closed": gettext_lazy("The tournament started: nobody left on the waitlist was admitted."),
    "check_in.checked_in": gettext_lazy("The player checked in."),
    "check_in.missed": gettext_lazy("The player had not checked in when the tournament started."),
    "drop.requested": gettext_lazy("The player dropped."),
    "drop.by_organiser": gettext_lazy("The organiser dropped the player."),
    "late_entry.joined": gettext_lazy("The player joined late."),
    "reentry.player": gettext_lazy("The player came back after dropping (re-entry allowed)."),
    "reentry.organiser": gettext_lazy("The organiser re-admitted the player."),
    "no_show.forfeit": gettext_lazy("Absent from the table: the table is forfeited."),
    "no_show.dropped": gettext_lazy("Too many forfeits: the player is dropped."),
}
_ID_CHUNK = 900  # ids per IN (...) list: under SQLite's smallest limit on query parameters


def tournament_get(tournament_id: int) -> Tournament:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise not_found("tournament_not_found", _("There is no tournament %(tournament_id)s.") % {"tournament_id": tournament_id})
    return tournament


def tournament_list(
    *, game: str | None = None, status: str | None = None, organiser: int | None = None
) -> QuerySet[Tournament]:
    rows = Tournament.objects.all().order_by("-id")
    if game:
        rows = rows.filter(game=game)
    if status:
        rows = rows.filter(status=status)
    if organiser:
        rows = rows.filter(organiser_id=organiser)
    return rows


# The Game is played by the team against the deck (its outcome says `cooperative`).
COOPERATIVE_GAMES = frozenset({"the-game"})


def format_options_raw(*, game: str, options: dict[str, Any]) -> dict[str, Any]:
    """The organiser's format options with the game's range and kind added."""
    engine = ENGINES[game]
    return {
        **options,
        "min_players": engine.min_players,
        "max_players": engine.max_players,
        "cooperative": game in COOPERATIVE_GAMES,
    }


def game_formats() -> list[dict[str, Any]]:
    """Per game, the formats a tournament of it may use and the rounds a league of it may play.
    Judged by the very check `services.tournament_create` refuses with (`Format.options` given the
    game's range and kind), so a form that offers only these is never refused for its format."""

    def allowed(game: str, slug: str, options: dict[str, Any]) -> bool:
        try:
            FORMATS[slug].options(format_options_raw(game=game, options=options))
        except ValueError:
            return False
        return True

    rows = []
    for game in sorted(ENGINES):
        single = [slug for slug in FORMATS if slug != "league" and allowed(game, slug, {})]
        league = [slug for slug in single if allowed(game, "league", {"format": slug})]
        rows.append({"game": game, "formats": single + (["league"] if league else []), "league_formats": league})
    return rows


def tournament_summary(tournament: Tournament) -> TournamentSummary:
    """A tournament's public facts; the seed is shown once it has ended. A few indexed reads,
    whatever the field's size."""
    over = tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
    facts = TournamentProjection.objects.filter(tournament=tournament).values_list("state", flat=True).first() or {}
    latest = Round.objects.filter(tournament=tournament).order_by("-number").values_list("number", flat=True).first()
    options = {
        k: v for k, v in tournament.options.items() if k not in ("min_players", "max_players", "cooperative")
    }
    return {
        "id": tournament.pk,
        "name": tournament.name,
        "game": tournament.game,
        "format": tournament.format,
        # The Game's tables are a team against the deck: players rank by the cards their tables
        # left, with no wins, points or tie-breaks to show.
        "cooperative": bool(tournament.options.get("cooperative")),
        "options": options,
        "match_options": tournament.match_options,
        "organiser": tournament.organiser_id,
        "status": tournament.status,
        "starts_at": tournament.starts_at,
        "round_seconds": tournament.round_seconds,
        "clock_seconds": tournament.clock_seconds,
        "rated": tournament.rated,
        "max_entrants": tournament.max_entrants,
        "contributed_shuffle": tournament.contributed_shuffle,
        "spectator_policy": tournament.spectator_policy,
        "spectator_delay_moves": (
            tournament.spectator_delay_moves if tournament.spectator_policy == SpectatorPolicy.DELAYED else None
        ),
        "entrants": Entrant.objects.filter(tournament=tournament, status=Entrant.Status.ACTIVE).count(),
        "total_rounds": total_rounds(tournament),
        "current_round": latest,
        "champion": facts.get("champion"),
        "seq": tournament.last_seq,
        "seed_sha256": tournament.seed_sha256,
        "seed": tournament.seed if over else None,
        "created_at": tournament.created_at,
        "field_rules": tournament.field_rules,
        "check_in_opens_at": check_in_opens_at(tournament),
        "waitlisted": Entrant.objects.filter(tournament=tournament, status=Entrant.Status.WAITLISTED).count(),
    }


def check_in_opens_at(tournament: Tournament) -> dt.datetime | None:
    """When check-in opens (None: no check-in, or no start time: open all through registration)."""
    minutes = (tournament.field_rules or {}).get("check_in_minutes")
    if minutes is None or tournament.starts_at is None:
        return None
    try:
        return tournament.starts_at - dt.timedelta(minutes=minutes)
    except OverflowError:  # a start in the first years of the calendar: open from the beginning
        return dt.datetime.min.replace(tzinfo=dt.UTC)


def _field_size(tournament: Tournament) -> int:
    """The field once started, else the players registered (both: the entrants in the order)."""
    return Entrant.objects.filter(tournament=tournament, seed_order__isnull=False).count()


def total_rounds(tournament: Tournament) -> int | None:
    count = _field_size(tournament)
    if count < 2:
        return None
    # A Swiss open to late entry fixed its rounds at the start (in the projection's options).
    facts = TournamentProjection.objects.filter(tournament=tournament).values_list("state", flat=True).first() or {}
    try:
        return FORMATS[tournament.format].total_rounds(count, facts.get("options") or tournament.options)
    except ValueError:
        return None


def _entrant_public(entrant: Entrant, seed: int | None, line: int | None = None) -> EntrantShown:
    return {
        "checked_in": entrant.checked_in or bool(entrant.bot),
        "waitlist_position": line,
        "id": entrant.pk,
        "name": entrant.name,
        "user": entrant.user_id,
        "bot": entrant.bot,
        "status": entrant.status,
        "seed": seed,
        "rating": entrant.seed_rating,
    }


def entrant_list(tournament: Tournament) -> list[EntrantShown]:
    """Every entrant with their seed once the field is frozen (the format's seed order: the
    organiser's, or by rating, unrated last) and the rating frozen then."""
    rows = list(Entrant.objects.filter(tournament=tournament).order_by("pk"))
    seeds = _seeds(tournament, rows)
    # (order, entrant) pairs sorted by the order alone: the sort is stable, so ties keep the rows' order.
    waiting = sorted(((e.waitlist_order, e) for e in rows if e.waitlist_order is not None), key=lambda p: p[0])
    lines = {e.pk: line for line, (_, e) in enumerate(waiting, start=1)}
    return [_entrant_public(e, seeds.get(e.pk), lines.get(e.pk)) for e in rows]


def entrant_one(entrant: Entrant) -> EntrantShown:
    """One entrant as `entrant_list` shows them (read alone while registration is open)."""
    if entrant.tournament.status == Tournament.Status.REGISTRATION:
        line = None
        if entrant.waitlist_order is not None:
            line = 1 + Entrant.objects.filter(
                tournament_id=entrant.tournament_id, waitlist_order__lt=entrant.waitlist_order
            ).count()
        return _entrant_public(entrant, None, line)
    rows = list(Entrant.objects.filter(tournament_id=entrant.tournament_id))
    return _entrant_public(entrant, _seeds(entrant.tournament, rows).get(entrant.pk))


def _seeds(tournament: Tournament, rows: list[Entrant]) -> dict[PlayerId, int]:
    """Seeds once the field is frozen (a tournament cancelled before its start has none)."""
    facts = TournamentProjection.objects.filter(tournament=tournament).values_list("state", flat=True).first()
    if not (facts or {}).get("started_at"):
        return {}
    # (order, entrant) pairs sorted by the order alone: the sort is stable, so ties keep the rows' order.
    field = sorted(((e.seed_order, e) for e in rows if e.seed_order is not None), key=lambda p: p[0])
    if not field:
        return {}
    ordered = seeded(
        [FormatEntrant(e.pk, e.seed_rating) for _, e in field], tournament.options.get("seeding", "order")
    )
    return {entrant.id: index for index, entrant in enumerate(ordered, start=1)}


def _names(tournament: Tournament) -> dict[int, PlayerShown]:
    return {
        e.pk: {"id": e.pk, "name": e.name, "user": e.user_id, "bot": e.bot}
        for e in Entrant.objects.filter(tournament=tournament)
    }


def standings_rows(tournament: Tournament, viewer: Any = None) -> QuerySet[StandingRow] | list[StandingRow]:
    """The standings rows best first, each with its entrant: page it, then `standing_public` each.

    While a duplicate deal's result is held from `viewer` (`results_held_for`), the rows as they
    stood before it (unsaved rows, folded from the events before it): points, games and places
    do not move for a table whose deal other tables still play."""
    held = results_held_for(tournament, viewer)
    if held is not None:
        return _standings_before(tournament, held)
    return StandingRow.objects.filter(tournament=tournament).select_related("entrant").order_by("position")


def standing_public(row: StandingRow) -> StandingShown:
    """A standings row with its entrant's name; points and tie-breaks as numbers and as exact fractions."""
    entrant = row.entrant
    return {
        "position": row.position,
        "rank": row.rank,
        "place": row.place,
        "entrant": {"id": entrant.pk, "name": entrant.name, "user": entrant.user_id, "bot": entrant.bot},
        "points": float(fold.as_fraction(row.points)),
        "points_exact": row.points,
        "played": row.played,
        "wins": row.wins,
        "draws": row.draws,
        "losses": row.losses,
        "byes": row.byes,
        "forfeits": row.forfeits,
        "buchholz": float(fold.as_fraction(row.buchholz)),
        "sonneborn_berger": float(fold.as_fraction(row.sonneborn_berger)),
        "rating": row.rating,
        "mean_team_score": row.mean_team_score,
        "withdrawn": row.withdrawn,
        "disqualified": row.disqualified,
    }


def standings(tournament: Tournament, viewer: Any = None) -> list[StandingShown]:
    """The whole standings table (see `standings_rows` for a page of it)."""
    return [standing_public(row) for row in standings_rows(tournament, viewer)]


def standing_of(tournament: Tournament, entrant_id: int, viewer: Any = None) -> StandingShown:
    """One entrant's standings row, with its position: one indexed read (while a result is held
    from `viewer`, the row as it stood before it: `standings_rows`)."""
    rows = standings_rows(tournament, viewer)
    if isinstance(rows, list):
        row = next((r for r in rows if r.entrant_id == entrant_id), None)
    else:
        row = rows.filter(entrant_id=entrant_id).first()
    if row is None:
        raise not_found(
            "not_in_standings",
            _("Entrant %(entrant_id)s is not in tournament %(tournament_id)s's standings.")
            % {"entrant_id": entrant_id, "tournament_id": tournament.pk},
        )
    return standing_public(row)


# A standings row's columns after its position, as `projections` names them in its rows.
STANDING_COLUMNS = ("entrant", *fold.STANDING_FIELDS)


def standings_snapshot(tournament: Tournament) -> list[tuple]:
    """The stored standings rows as plain tuples (for comparing with a rebuild)."""
    columns = ["entrant_id" if column == "entrant" else column for column in STANDING_COLUMNS]
    return list(
        StandingRow.objects.filter(tournament=tournament).order_by("position").values_list("position", *columns)
    )


def rows_snapshot(rows: list[dict[str, Any]]) -> list[tuple]:
    """The fold's standings rows as `standings_snapshot` gives the stored ones."""
    return [(position, *[row[column] for column in STANDING_COLUMNS]) for position, row in enumerate(rows, start=1)]


def match_url(match_id: int | None) -> str | None:
    return reverse("match-detail", kwargs={"match_id": match_id}) if match_id else None


def rounds(tournament: Tournament) -> list[RoundShown]:
    """Every round's pairings: tables with seats, links to their matches and their results."""
    names = _names(tournament)
    shown: list[RoundShown] = []
    for rnd in (
        Round.objects.filter(tournament=tournament).order_by("number").prefetch_related("tables__match")
    ):
        complete = rnd.completed_at is not None
        tables: list[TableShown] = []
        seating: list[tuple[int, list[int]]] = []
        for table in rnd.tables.all():
            seating.append((table.number, table.seats))
            tables.append(
                {
                    "table": table.number,
                    "seats": [{"seat": seat, **names[entrant]} for seat, entrant in enumerate(table.seats)],
                    "bracket": table.bracket or None,
                    "deal": table.deal if complete else None,
                    "seed_sha256": table.seed_sha256,
                    "match": table.match_id,
                    "match_url": match_url(table.match_id),
                    "match_status": table.match.status if table.match is not None else None,
                    "absent": table.absent,
                    "extra_seconds": table.extra_seconds,
                    # A duplicate deal's result tells its other tables how it plays (games.selectors.can_watch).
                    "result": None if table.match is not None and table.match.sealed else table.result,
                }
            )
        shown.append(
            {
                "round": rnd.number,
                "status": round_status(rnd),
                "date": rnd.date,
                "starts_at": rnd.starts_at,
                "started_at": rnd.started_at,
                "deadline": rnd.deadline,
                "completed_at": rnd.completed_at,
                "byes": [names[entrant] for entrant in rnd.byes],
                "tables": tables,
                "quality": rnd.quality,
                "quality_summary": pairing_summary(rnd.quality, names) if rnd.quality else None,
                "quality_details": pairing_details(rnd.quality, names, seating) if rnd.quality else None,
            }
        )
    return shown


def pairing_summaries(tournament: Tournament) -> list[dict[str, Any]]:
    """Each round's pairing-quality line, for the tournament page (rounds without a report are left out)."""
    reports = Round.objects.filter(tournament=tournament, quality__isnull=False).order_by("number")
    names = _names(tournament)
    return [
        {"round": number, "summary": pairing_summary(quality, names)}
        for number, quality in reports.values_list("number", "quality")
        if quality is not None  # all of them (quality__isnull=False)
    ]


def pairing_summary(quality: dict[str, Any], names: Mapping[int, PlayerShown]) -> str:
    """A round's pairing-quality report in one line, in the reader's language: its rematches
    (named, and whether they could have been avoided), the seats, the score spread at the tables
    and who has a bye."""
    name = _namer(names)
    rematches = quality["rematches"]
    parts = [ngettext("%(count)s rematch", "%(count)s rematches", len(rematches)) % {"count": len(rematches)}]
    if rematches:
        parts[0] += ": " + _listed(
            [
                _("%(players)s (%(ordinal)s meeting, %(avoidable)s)") % {
                    "players": " – ".join(map(name, meeting["players"])),
                    "ordinal": _ordinal(meeting["meeting"]), "avoidable": _AVOIDABLE[meeting["avoidable"]],
                }
                for meeting in rematches
            ],
            "; ",
        )
    balance = quality["seat_balance"]
    if balance["out_of_balance"]:
        parts.append(_("seats out of balance: %(names)s (by up to %(deviation)s)") % {
            "names": _listed([name(p) for p in balance["out_of_balance"]]), "deviation": _decimal(balance["max_deviation"]),
        })
    else:
        parts.append(_("seats in balance"))
    spread = quality["score_spread"]
    parts.append(_("score spread %(mean)s (max %(max)s)") % {"mean": _decimal(spread["mean"]), "max": _decimal(spread["max"])})
    if quality["byes"]:
        parts.append(_("byes: %(names)s") % {"names": _listed([name(p) for p in quality["byes"]])})
    return _("Pairing: %(report)s") % {"report": " · ".join(parts)}


def pairing_details(
    quality: dict[str, Any], names: Mapping[int, PlayerShown], tables: Sequence[tuple[int, Sequence[int]]]
) -> list[str]:
    """What the pairing checker measured for a round, a sentence each with names, in the reader's
    language: the tables, the byes, each rematch and whether it could have been avoided, the seats,
    and the tables whose players came with different scores (a score group floated). The tournament
    page shows them under `pairing_summary`'s line. `tables`: (number, entrant ids) in table order,
    the order of the report's `per_table`."""
    name = _namer(names)
    sizes = quality["table_sizes"]
    sentences = [ngettext("%(count)s table of %(sizes)s players.", "%(count)s tables, players at each: %(sizes)s.",
                          len(sizes)) % {"count": len(sizes), "sizes": _listed([str(size) for size in sizes])}]
    byes = quality["byes"]
    sentences.append(ngettext("Bye: %(names)s.", "Byes: %(names)s.", len(byes)) % {"names": _listed([name(p) for p in byes])}
                     if byes else _("No byes."))
    rematches = quality["rematches"]
    if not rematches:
        sentences.append(_("No rematches: nobody sits with someone they have met before."))
    for meeting in rematches:
        sentences.append(_("%(players)s meet for the %(ordinal)s time: %(avoidable)s.") % {
            "players": " – ".join(map(name, meeting["players"])), "ordinal": _ordinal(meeting["meeting"]),
            "avoidable": _AVOIDABLE_WHY[meeting["avoidable"]],
        })
    if rematches:
        sentences.append(str(_REPEAT_COST[quality["repeat_cost_minimal"]]))
    balance = quality["seat_balance"]
    if balance["out_of_balance"]:
        sentences.append(_("Seats out of balance (a player a turn or more past their fair share of a seat): "
                           "%(names)s; the largest gap is %(deviation)s.") % {
            "names": _listed([name(p) for p in balance["out_of_balance"]]), "deviation": _decimal(balance["max_deviation"]),
        })
    else:
        sentences.append(_("Seats in balance: everyone is within a turn of their fair share of each seat "
                           "(the largest gap is %(deviation)s).") % {"deviation": _decimal(balance["max_deviation"])})
    sentences.append(_("Turns in the first seat: the most and the fewest differ by %(spread)s.") % {
        "spread": balance["first_seat_spread"],
    })
    spread = quality["score_spread"]
    floated = [
        _("table %(table)s (%(players)s), %(spread)s apart") % {
            "table": number, "players": " – ".join(map(name, seats)), "spread": _decimal(apart),
        }
        for (number, seats), apart in zip(tables, spread["per_table"])
        if apart > 0
    ]
    if floated:
        sentences.append(_("Tables whose players came with different scores: %(tables)s (on average %(mean)s "
                           "apart, at most %(max)s).") % {
            "tables": _listed(floated, "; "), "mean": _decimal(spread["mean"]), "max": _decimal(spread["max"]),
        })
    elif tables:
        sentences.append(_("At every table the players came with the same score."))
    return sentences


# A rematch's `avoidable` and the round's `repeat_cost_minimal`, as `pairing_details` explains them.
_AVOIDABLE_WHY = {
    True: gettext_lazy("avoidable, some other grouping into the same table sizes has no rematch"),
    False: gettext_lazy("unavoidable, every grouping into the same table sizes has one"),
    None: gettext_lazy("the checker could not tell whether it was avoidable"),
}
_REPEAT_COST = {
    True: gettext_lazy("No grouping into the same table sizes has fewer repeat meetings."),
    False: gettext_lazy("Another grouping into the same table sizes has fewer repeat meetings."),
    None: gettext_lazy("Whether a grouping with fewer repeat meetings exists was not decided (too many players "
                       "for the full search, or a format that does not pair tables freely)."),
}
def _namer(names: Mapping[int, PlayerShown]) -> Callable[[int], str]:
    """An entrant's name from `names`, or "entrant 12" for one not in it."""
    return lambda entrant: names[entrant]["name"] if entrant in names else _("entrant %(id)s") % {"id": entrant}


def _decimal(value: float) -> str:
    # Rounded first: number_format cuts a float's digits off (0.666 would read 0.66).
    return number_format(Decimal(f"{value:.2f}"), 2)


# A rematch's `avoidable`: the checker proved it avoidable, unavoidable, or could not decide (null).
_AVOIDABLE = {True: gettext_lazy("avoidable"), False: gettext_lazy("unavoidable"), None: gettext_lazy("undecided")}
# A line names this many players (or rematches) of a list, then says how many more: it stays short.
_NAMED = 8


def _listed(items: list[str], separator: str = ", ") -> str:
    more = len(items) - _NAMED
    return separator.join(items[:_NAMED]) + (_(" and %(count)s more") % {"count": more} if more > 0 else "")


def _ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 11th... in English; each language writes its own (Welsh: "rhif 2")."""
    if 11 <= number % 100 <= 13 or number % 10 not in (1, 2, 3):
        return pgettext("ordinal", "%(number)sth") % {"number": number}
    if number % 10 == 1:
        return pgettext("ordinal", "%(number)sst") % {"number": number}
    if number % 10 == 2:
        return pgettext("ordinal", "%(number)snd") % {"number": number}
    return pgettext("ordinal", "%(number)srd") % {"number": number}


def round_status(rnd: Round) -> str:
    if rnd.completed_at is not None:
        return "complete"
    if rnd.started_at is not None:
        return "playing"
    return "paired"


EXPORT_VERSION = 1


def tournament_export(tournament: Tournament, viewer: Any = None) -> TournamentExport:
    """The tournament's pairings as the documented export (version 1), which
    `tournaments.pairing_check` reads: the format and the options it pairs with, the field, who
    left and from when, and every round's byes and tables with their results and quality report.

    The tournament's seed (an option the format is given, for duplicate deals) is left out until
    the tournament ends, as everywhere else: the deals of rounds not yet played come from it.
    A result held from `viewer` (`results_held_for`) is not in it yet, nor anything after it."""
    state = tournament_state_shown(tournament, viewer)
    return {
        "export": "tournament-pairings",
        "version": EXPORT_VERSION,
        "tournament": {"id": tournament.pk, "name": tournament.name, "game": tournament.game},
        "format": state["format"],
        "options": _export_options(tournament, state),
        # Late entry does not exist on the server yet: everyone may be paired from round 1.
        # The fold's ids are the entrants' row ids (ints); the formats type them as any hashable.
        "entrants": [{"id": e.id, "rating": e.rating, "entered": 1} for e in fold.entrants(state)],  # type: ignore[typeddict-item]
        "withdrawn": dict(state["withdrawn"]),
        "disqualified": dict(state["disqualified"]),
        "rounds": [
            {
                "round": rnd["number"],
                "byes": list(rnd["byes"]),
                "tables": [_export_table(table) for table in rnd["tables"]],
                "quality": rnd["quality"],
            }
            for rnd in fold.rounds_in_order(state)
        ],
    }


def _export_options(tournament: Tournament, state: fold.State) -> dict[str, Any]:
    """The options the server gives the format (`fold.format_options`), as validated,
    in JSON: a fraction as "n/d", dates as YYYY-MM-DD."""
    options = fold.format_options(state, seed=tournament.seed)
    over = tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED)
    given = [*state["options"], *(["seed"] if over else [])]  # the organiser's keys and the game's range
    return {key: _json_ready(getattr(options, key)) for key in given}


def _json_ready(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, tuple):
        return [_json_ready(item) for item in value]
    return value


def _export_table(table: dict[str, Any]) -> ExportedTable:
    result = table["result"] or {}
    return {
        "seats": list(table["seats"]),
        "ranks": result.get("ranks"),
        "team_score": result.get("team_score"),
        "forfeited": list(result.get("forfeited") or []),
    }


def bracket(tournament: Tournament, viewer: Any = None) -> BracketShown:
    """The bracket of an elimination format, each match with its players' names and its table (as
    it stood before a result held from `viewer`: `results_held_for`)."""
    state = tournament_state_shown(tournament, viewer)
    options = fold.format_options(state)
    fmt = fold.bracket_format(state, options)
    if not hasattr(fmt, "bracket"):
        raise not_found(
            "no_bracket", _("A %(format)s tournament has no bracket; see its rounds.") % {"format": tournament.format}
        )
    field = fold.entrants(state)
    if len(field) < 2:
        raise not_found("no_bracket", _("The bracket is drawn when the tournament starts."))
    drawn = fmt.bracket(field, options, fold.history(state)).as_dict()
    tables = {
        t["bracket"]: t for rnd in fold.rounds_in_order(state) for t in rnd["tables"] if t["bracket"]
    }
    names = _names(tournament)
    for match in drawn["matches"]:
        table = tables.get(match["id"])
        match["match"] = table["match"] if table else None
        match["match_url"] = match_url(match["match"])
        match["names"] = [names[p]["name"] if isinstance(p, int) else None for p in match["players"]]
    drawn["entrants"] = list(names.values())
    return drawn


def calendar(tournament: Tournament) -> dict[str, Any]:
    """A league's matchdays: each date with its round once paired."""
    if tournament.format != "league":
        raise not_found("not_a_league", _("Only a league has a calendar of matchdays."))
    fmt = FORMATS["league"]
    # The folded options: a league created without a start date has the day it started (services.start._start).
    facts = TournamentProjection.objects.filter(tournament=tournament).values_list("state", flat=True).first() or {}
    options = facts.get("options") or tournament.options
    entrants = max(_field_size(tournament), 2)
    try:
        dates: list[dt.date | None] = list(fmt.calendar(entrants, options))  # type: ignore[attr-defined]
    except ValueError:  # the calendar runs past the year 9999
        raise conflict("calendar_too_long", _("The league's calendar runs past the year 9999.")) from None
    if not dates:  # no start date yet: the matchdays are numbered, their dates fixed at the start
        dates = [None] * (fmt.total_rounds(entrants, options) or 0)
    played = {r.number: r for r in Round.objects.filter(tournament=tournament)}
    matchdays = []
    for number, day in enumerate(dates, start=1):
        rnd = played.get(number)
        matchdays.append(
            {
                "round": number,
                "date": day,
                "starts_at": rnd.starts_at if rnd else None,
                "status": round_status(rnd) if rnd else "scheduled",
            }
        )
    return {"inner_format": tournament.options.get("format", "round-robin"), "matchdays": matchdays}


# The events that entered a person under the name they had then, before issue #39 (now by id only).
_NAMED_ENTRIES = frozenset({"PlayerRegistered", "PlayerWaitlisted", "PlayerLateEntered"})


def event_public(event: TournamentEvent, *, reveal_deals: bool | Collection[int] = False) -> TournamentEventShown:
    """An event as served (the feed, webhooks): deal seeds of a round shown only once the round is
    complete, and a person by id alone. An entry written before issue #39 named the person as they
    were then: that `name` is left out, as today's entries have none, so a deleted account's old
    name is not served here (the entrants list names them now). The league log keeps its entry as
    logged: its hashes cover the bytes."""
    data = event.data
    if event.type in _NAMED_ENTRIES and data.get("user") is not None and "name" in data:
        data = {key: value for key, value in data.items() if key != "name"}
    if event.type == "RoundPaired":
        show = reveal_deals is True or (not isinstance(reveal_deals, bool) and data["round"] in reveal_deals)
        if not show:
            data = {**data, "tables": [{**table, "deal": None} for table in data["tables"]]}
    return {
        "seq": event.seq,
        "type": event.type,
        "data": data,
        "actor": event.actor,
        "created": event.created,
    }


def event_feed(tournament: Tournament, *, after: int = 0, limit: int = 100, viewer: Any = None) -> dict[str, Any]:
    """The tournament's events after position `after`, oldest first; resume from `next`.

    While a duplicate deal's result is held from `viewer` (`results_held_for`) the feed stops just
    before it and its `head` is the event before it: a reader sees a prefix of the stream, gapless,
    and reads on from there once the round is over."""
    _feed_bounds(after, limit)
    complete = set(
        Round.objects.filter(tournament=tournament, completed_at__isnull=False).values_list(
            "number", flat=True
        )
    )
    held = results_held_for(tournament, viewer)
    rows = TournamentEvent.objects.filter(tournament=tournament, seq__gt=after).order_by("seq")
    if held is not None:
        rows = rows.filter(seq__lt=held)
    page = list(rows[:limit])
    events = [event_public(row, reveal_deals=complete) for row in page]
    head = tournament.last_seq if held is None else held - 1
    return {"events": events, "next": page[-1].seq if page else after, "head": head}


def _feed_bounds(after: int, limit: int) -> None:
    if after < 0 or not 1 <= limit <= FEED_LIMIT:
        raise bad_request("bad_position", _("after ≥ 0 and 1 ≤ limit ≤ %(feed_limit)s.") % {"feed_limit": FEED_LIMIT})


# --- results held while a duplicate deal is played (issue #39) ----------------------------------

# The events that tell how a table played: its result, and an organiser's correction of it.
PLAYED_RESULTS = ("TableResult", "ResultCorrected")


def results_held_from(tournament: Tournament) -> int | None:
    """The seq of the tournament's first event telling the result of a table whose duplicate deal
    other tables still play (its match is sealed), or None when there is none.

    Every table of a duplicate round is dealt the same deck, so a finished table's result (its
    ranks, its players' points) tells the tables still playing how the deal goes. The public reads
    the tournament as it stood before that event until the round is over and its matches are
    unsealed: the feed stops there, the standings, export and bracket are folded up to it, and its
    webhooks (`webhooks.deliveries_release`) and league log entries wait. Later events wait too:
    the stream each reader sees stays a gapless prefix."""
    sealed = set(
        RoundTable.objects.filter(round__tournament=tournament, match__sealed=True).values_list(
            "round__number", "number"
        )
    )
    if not sealed:
        return None
    rows = (
        TournamentEvent.objects.filter(
            tournament=tournament, type__in=PLAYED_RESULTS, data__round__in=sorted({number for number, _ in sealed})
        )
        .order_by("seq")
        .values_list("seq", "data")
    )
    return next((seq for seq, data in rows if (data["round"], data["table"]) in sealed), None)


def result_held(event: TournamentEvent) -> bool:
    """Whether the event tells the result of a table whose duplicate deal other tables still play
    (its match sealed: see `results_held_from`). A webhook's receiver is often public (a chat bot,
    a results page) and the league log is: they hear of it when the round is over."""
    if event.type not in PLAYED_RESULTS:
        return False
    return RoundTable.objects.filter(
        round__tournament_id=event.tournament_id, round__number=event.data["round"], number=event.data["table"],
        match__sealed=True,
    ).exists()


def sees_results_live(tournament: Tournament, user: Any) -> bool:
    """The organiser and staff read the tournament as it is, held results included."""
    return bool(
        user is not None and user.is_authenticated and (user.is_staff or user.pk == tournament.organiser_id)
    )


def results_held_for(tournament: Tournament, user: Any) -> int | None:
    """`results_held_from`, for anyone but those who `sees_results_live`."""
    return None if sees_results_live(tournament, user) else results_held_from(tournament)


def _folded_before(tournament: Tournament, held: int) -> tuple[fold.State, list[dict[str, Any]]]:
    """The pure fold of the events before `held`, with the standings rows `apply` kept then.
    Read only while a result is held (a duplicate round being played), for those it is held from."""
    rows = TournamentEvent.objects.filter(tournament=tournament, seq__lt=held).order_by("seq")
    return fold.fold_with_standings(projections.event_dict(row) for row in rows.iterator())


def _standings_before(tournament: Tournament, held: int) -> list[StandingRow]:
    """The standings rows as they stood before event `held`, unsaved, each with its entrant."""
    _, rows = _folded_before(tournament, held)
    entrants = Entrant.objects.in_bulk([row["entrant"] for row in rows])
    return [
        StandingRow(
            tournament=tournament, entrant=entrants[row["entrant"]], position=position,
            **{key: value for key, value in row.items() if key != "entrant"},
        )
        for position, row in enumerate(rows, start=1)
    ]


def tournament_state_shown(tournament: Tournament, viewer: Any = None) -> fold.State:
    """The tournament's state as `viewer` may read it: as it is, or as it stood before a result
    held from them (`results_held_for`)."""
    held = results_held_for(tournament, viewer)
    return projections.state_of(tournament) if held is None else _folded_before(tournament, held)[0]


_ENTRANT_IN_TEXT = re.compile(r"\bentrant (\d+)\b")


def _with_names(text: str, names: dict[int, PlayerShown]) -> str:
    """The server's own words name a person "entrant N" (no person's name is written in an event,
    issue #39): shown with the entrant's name now, which a deleted account's is anonymised to."""
    return _ENTRANT_IN_TEXT.sub(lambda m: names[int(m[1])]["name"] if int(m[1]) in names else m[0], text)


def field_decisions(tournament: Tournament) -> list[FieldDecision]:
    """Every decision about the field (an event naming its `rule`), oldest first, with the players
    it is about by name: the tournament's log of who is there and why."""
    names = _names(tournament)
    rows = TournamentEvent.objects.filter(tournament=tournament, data__has_key="rule").order_by("seq")
    decisions: list[FieldDecision] = []
    for row in rows:
        data = row.data
        if row.type == "NoShowsForfeited":
            about = sorted({e for table in data["tables"] for e in table["forfeited"]})
        elif row.type == "WaitlistClosed":
            about = list(data["entrants"])
        else:
            about = [data["entrant"]]
        decisions.append(
            {
                "seq": row.seq,
                "type": row.type,
                "rule": data["rule"],
                "why": _with_names(english_or(data.get("why", ""), RULE_SENTENCES[data["rule"]]), names),
                "entrants": [names[e] for e in about if e in names],
                "round": data.get("round", data.get("from_round", data.get("first_round"))),
                "actor": row.actor,
                "created": row.created,
            }
        )
    return decisions


def webhook_list(tournament: Tournament) -> QuerySet[Webhook]:
    return Webhook.objects.filter(tournament=tournament, active=True).order_by("pk")


def series_webhook_list(series: Series, user: Any) -> QuerySet[Webhook]:
    """The series' webhooks, for its organiser or staff (their secrets sign the bodies)."""
    if not (user.is_authenticated and (user.is_staff or user.pk == series.organiser_id)):
        raise forbidden("not_series_organiser", _("Only the series' organiser (or staff) may do that."))
    return Webhook.objects.filter(series=series, active=True).order_by("pk")


def series_decision_public(decision: SeriesDecision) -> SeriesDecisionShown:
    """A series' decision as served (its feed, webhooks): as the league log takes it."""
    return {
        "seq": decision.seq, "type": decision.type, "data": decision.data, "actor": decision.actor, "created": decision.created,
    }


def series_decision_feed(series: Series, *, after: int = 0, limit: int = 100) -> SeriesDecisionFeed:
    """The series' decisions after position `after`, oldest first; resume from `next`."""
    _feed_bounds(after, limit)
    page = list(SeriesDecision.objects.filter(series=series, seq__gt=after).order_by("seq")[:limit])
    return {
        "decisions": [series_decision_public(decision) for decision in page],
        "next": page[-1].seq if page else after,
        "head": series.last_seq,
    }


def match_changed_result(match_id: int) -> dict[str, Any] | None:
    """The result the match's tournament table counts when an organiser changed it after the
    match (a correction or a forfeit: what ratings follow too), for the match's own pages; else None."""
    row = RoundTable.objects.filter(match_id=match_id).values_list("result", "round__tournament_id", "seats").first()
    if row is None:
        return None
    result, tournament_id, seats = row
    if not result or result.get("source") not in RESULT_CHANGES:
        return None
    forfeited = set(result["forfeited"])
    return {
        "tournament": tournament_id, **result,
        "forfeited_seats": [seat for seat, entrant in enumerate(seats) if entrant in forfeited],
    }


MATCH_TABLES_LIMIT = 100


def match_tables(match_ids: Collection[int]) -> list[dict[str, Any]]:
    """For each of these matches that is a tournament's table: the tournament, the round and
    table, and the entrants' names in seat order (a bot's entrant name, "random 2", where the
    match's own seat only knows its kind). Matches outside tournaments are left out."""
    ids = sorted(set(match_ids))
    if len(ids) > MATCH_TABLES_LIMIT:
        raise bad_request(
            "too_many_matches",
            _("At most %(match_tables_limit)s matches at a time.") % {"match_tables_limit": MATCH_TABLES_LIMIT},
        )
    tables = list(
        RoundTable.objects.filter(match_id__in=ids).values_list(
            "match_id", "round__tournament_id", "round__tournament__name", "round__number", "number", "seats"
        )
    )
    names = dict(
        Entrant.objects.filter(pk__in={entrant for *_, seats in tables for entrant in seats}).values_list("pk", "name")
    )
    return [
        {
            "match": match_id, "tournament": tournament_id, "tournament_name": tournament_name,
            "round": round_number, "table": number, "names": [names.get(entrant, "") for entrant in seats],
        }
        for match_id, tournament_id, tournament_name, round_number, number, seats in sorted(tables)
    ]


class TableResultChange(NamedTuple):
    """A result the tournament gave a match's table after the match's own: an organiser's
    correction or forfeit, for ratings to follow."""

    match_id: int
    tournament_id: int
    seq: int  # its place in the tournament's stream
    ranks: tuple[int, ...] | None  # per seat (None: a cooperative table's team score)
    team_score: float | None
    forfeited_seats: tuple[int, ...]


def table_result_changes(
    *, game: str | None = None, match_ids: Collection[int] | None = None
) -> dict[int, list[TableResultChange]]:
    """Per match (of `game`, or among `match_ids`): the changes of its table's result, in the
    order the tournament made them. Matches whose result was never changed are absent."""
    tables = RoundTable.objects.exclude(match=None).filter(
        Exists(TournamentEvent.objects.filter(tournament=OuterRef("round__tournament"), type__in=RESULT_CHANGES))
    )
    if game is not None:
        tables = tables.filter(round__tournament__game=game)
    scopes = [tables]
    if match_ids is not None:
        ids = sorted(match_ids)
        scopes = [tables.filter(match_id__in=ids[i:i + _ID_CHUNK]) for i in range(0, len(ids), _ID_CHUNK)]
    places: dict[tuple[int, int, int], tuple[int, list[int]]] = {}
    for scope in scopes:
        for match_id, tournament_id, round_number, number, seats in scope.values_list(
            "match_id", "round__tournament_id", "round__number", "number", "seats"
        ):
            places[(tournament_id, round_number, number)] = (match_id, seats)
    changes: dict[int, list[TableResultChange]] = {}
    events = (
        TournamentEvent.objects.filter(tournament_id__in={place[0] for place in places}, type__in=RESULT_CHANGES)
        .order_by("tournament_id", "seq")
        .values_list("tournament_id", "seq", "data")
    )
    for tournament_id, seq, data in events:
        place = places.get((tournament_id, data["round"], data["table"]))
        if place is None:
            continue
        match_id, seats = place
        forfeited = set(data.get("forfeited") or ())
        changes.setdefault(match_id, []).append(
            TableResultChange(
                match_id, tournament_id, seq, tuple(data["ranks"]) if data.get("ranks") is not None else None,
                data.get("team_score"), tuple(seat for seat, entrant in enumerate(seats) if entrant in forfeited),
            )
        )
    return changes


def entries_in_play(user: User) -> dict[str, list[int]]:
    """An account check (ACCOUNT_IN_PLAY_CHECKS): the tournaments, still to be played, that `user`
    has an active entry in. One the user only organises does not count: it runs on its schedule."""
    ongoing = [Tournament.Status.REGISTRATION, Tournament.Status.RUNNING]
    entered = Entrant.objects.filter(user=user, status=Entrant.Status.ACTIVE, tournament__status__in=ongoing)
    return {"tournaments": sorted(set(entered.values_list("tournament_id", flat=True)))}


# --- series of tournaments --------------------------------------------------------------------------


def _series_rows() -> QuerySet[Series]:
    """Series with the tournaments they count, in one more query for a whole page of them."""
    counted = SeriesEvent.objects.select_related("tournament").order_by("tournament_id")
    return Series.objects.prefetch_related(Prefetch("events", queryset=counted))


def series_get(series_id: int) -> Series:
    found = _series_rows().filter(pk=series_id).first()
    if found is None:
        raise not_found("series_not_found", _("There is no series %(series_id)s.") % {"series_id": series_id})
    return found


def series_list(*, game: str | None = None, organiser: int | None = None) -> QuerySet[Series]:
    rows = _series_rows().order_by("-id")
    if game:
        # A slug within its quotes in the list's JSON text (SQLite's JSON has no containment lookup).
        rows = rows.filter(games__icontains=f'"{game}"')
    if organiser:
        rows = rows.filter(organiser_id=organiser)
    return rows


def series_shown(found: Series) -> SeriesShown:
    """A series' facts and the tournaments it counts, at their tiers."""
    events: list[SeriesEventShown] = [
        {"tournament": event.tournament_id, "tournament_seq": event.tournament.last_seq, "name": event.tournament.name,
         "game": event.tournament.game, "tier": event.tier, "status": event.tournament.status,
         "counted": event.tournament.status == Tournament.Status.FINISHED}
        for event in found.events.all()
    ]
    return {
        "id": found.pk, "name": found.name, "games": list(found.games), "starts_on": found.starts_on,
        "ends_on": found.ends_on, "organiser": found.organiser_id, "rules": found.rules, "seq": found.last_seq,
        "created_at": found.created_at, "events": events,
    }


def series_with_standings(found: Series) -> SeriesWithStandings:
    """A series with its standings now: each player's counting, dropped and void results."""
    return {**series_shown(found), "standings": series_standings_shown(found)}


def series_standings_shown(found: Series) -> list[SeriesStandingShown]:
    """The standings computed (`tournaments.series.series_standings`) from the current final
    standings of the series' finished tournaments, corrections included: the standings rows are
    the projection of each tournament's stream. Players are named as the league log names them:
    `user:<id>` for a person, `bot:<name>` for a bot by its name in the event (`series_placings`)."""
    rows = series.standings_json(series.series_standings(series.rules_from_json(found.rules), series_placings(found)))
    people = [int(str(row["player"]).removeprefix("user:")) for row in rows if str(row["player"]).startswith("user:")]
    names = {user.pk: user.shown_name for user in User.objects.filter(pk__in=people).only("username", "display_name")}
    shown: list[SeriesStandingShown] = []
    for row in rows:
        player = str(row["player"])
        user_id = int(player.removeprefix("user:")) if player.startswith("user:") else None
        name = names.get(user_id, "") if user_id is not None else player.removeprefix("bot:")
        results = [{**result, "event": int(result["event"])} for result in row["results"]]
        shown.append({**row, "player": player, "name": name, "results": results})  # type: ignore[typeddict-item]
    return shown


def series_placings(found: Series) -> list[series.EventPlacings]:
    """Each finished tournament of the series as the series reads it (`series.event_placings`),
    at its tier, its revision the position of its stream's head."""
    counted = list(
        SeriesEvent.objects.filter(series=found, tournament__status=Tournament.Status.FINISHED)
        .select_related("tournament").order_by("tournament_id")
    )
    ids = [event.tournament_id for event in counted]
    by_tournament: dict[int, list[series.StandingFacts]] = {tournament_id: [] for tournament_id in ids}
    for row in StandingRow.objects.filter(tournament_id__in=ids).order_by("tournament_id", "position").values(
        "tournament_id", "entrant_id", "rank", "place", "played", "forfeits", "withdrawn", "disqualified"
    ):
        by_tournament[row["tournament_id"]].append({
            "entrant": row["entrant_id"], "rank": row["rank"], "place": row["place"], "played": row["played"],
            "forfeits": row["forfeits"], "withdrawn": row["withdrawn"], "disqualified": row["disqualified"],
        })
    players: dict[int, series.PlayerId] = {
        pk: f"user:{user_id}" if user_id is not None else f"bot:{name}"
        for pk, user_id, name in Entrant.objects.filter(tournament_id__in=ids).values_list("pk", "user_id", "name")
    }
    return [
        series.event_placings(event.tournament_id, event.tier, by_tournament[event.tournament_id], players,
                              revision=event.tournament.last_seq)
        for event in counted
    ]


# --- judging (issue #46) ------------------------------------------------------------------------


def judges_for(tournament: Tournament, user: Any) -> bool:
    """Whether `user` judges the tournament: its organiser, a judge it named, or staff."""
    if user is None or not user.is_authenticated:
        return False
    return bool(
        user.is_staff
        or user.pk == tournament.organiser_id
        or Judge.objects.filter(tournament=tournament, user=user).exists()
    )


def table_deadline(rnd: Round, extra_seconds: int) -> dt.datetime | None:
    """When a table of the round must end: the round's deadline and the time its judges added."""
    return rnd.deadline + dt.timedelta(seconds=extra_seconds) if rnd.deadline is not None else None


def _person(user: User | None) -> PersonShown | None:
    return {"id": user.pk, "name": user.shown_name} if user is not None else None


def judge_call_shown(call: JudgeCall, seats: Sequence[PersonShown] = (), *, details: bool = True) -> JudgeCallShown:
    """A call as judges read it; a table's other players read it without the caller's words.
    `seats`: the table's entrants in seat order (a penalty's `entrant` is one of them)."""
    return {
        "number": call.number,
        "round": call.round_number,
        "table": call.table_number,
        "seats": list(seats),
        "match": call.match_id,
        "match_url": reverse("table", kwargs={"match_id": call.match_id}) if call.match_id else None,
        "match_seq": call.match_seq,
        "reason": call.reason,
        "details": call.details if details else None,
        "caller": _person(call.caller),
        "called_at": call.called_at,
        "status": call.status,
        "claimed_by": _person(call.claimed_by),
        "claimed_at": call.claimed_at,
        "ruling": call.ruling,
        "resolved_by": _person(call.resolved_by),
        "resolved_at": call.resolved_at,
        "last_seq": call.last_seq,
    }


def _seats_of_calls(tournament: Tournament, calls: Sequence[JudgeCall]) -> dict[tuple[int, int], list[PersonShown]]:
    """The entrants at each called table, in seat order, by (round, table)."""
    wanted = {(call.round_number, call.table_number) for call in calls}
    if not wanted:
        return {}
    tables = [
        (rnd, number, seats)
        for rnd, number, seats in RoundTable.objects.filter(
            round__tournament=tournament, round__number__in={r for r, _ in wanted}, number__in={t for _, t in wanted}
        ).values_list("round__number", "number", "seats")
        if (rnd, number) in wanted
    ]
    names = _entrant_names([entrant for _, _, seats in tables for entrant in seats])
    return {(rnd, number): [{"id": entrant, "name": names[entrant]} for entrant in seats] for rnd, number, seats in tables}


def _entrant_names(entrants: Sequence[int]) -> dict[int, str]:
    return dict(Entrant.objects.filter(pk__in=list(entrants)).values_list("pk", "name"))


def judge_call_of(call: JudgeCall) -> JudgeCallShown:
    """One call as its judges read it (the answer to a call, a claim, a ruling)."""
    seats = _seats_of_calls(call.tournament, [call])
    return judge_call_shown(call, seats.get((call.round_number, call.table_number), []))


def _calls(tournament: Tournament) -> QuerySet[JudgeCall]:
    return JudgeCall.objects.filter(tournament=tournament).select_related("caller", "claimed_by", "resolved_by")


def judging_queue(tournament: Tournament, viewer: Any, *, after: int = 0) -> JudgingQueue:
    """The calls changed after judging position `after` (all of them from 0), oldest change first,
    and the judges: for those who judge the tournament only (`judges_for`)."""
    if not judges_for(tournament, viewer):
        raise forbidden("not_judge", _("Only the tournament's organiser and the judges they named may do that."))
    head = JudgeCallEvent.objects.filter(tournament=tournament).aggregate(head=Max("seq"))["head"] or 0
    judges = Judge.objects.filter(tournament=tournament).select_related("user")
    calls = list(_calls(tournament).filter(last_seq__gt=after).order_by("last_seq"))
    seats = _seats_of_calls(tournament, calls)
    return {
        "calls": [judge_call_shown(call, seats.get((call.round_number, call.table_number), [])) for call in calls],
        "judges": [_person(judge.user) for judge in judges],
        "organiser": _person(tournament.organiser),
        "head": head,
    }


def table_judging(match_id: int, viewer: Any) -> TableJudging | None:
    """What a tournament table's page shows of its judging (None: not a tournament table): when the
    table must end, the time its judges added, whether `viewer` may call a judge or judges the
    tournament, and the calls at this table that `viewer` may read (its players read them all,
    the words only of their own)."""
    table = RoundTable.objects.filter(match_id=match_id).select_related("round__tournament").first()
    if table is None:
        return None
    rnd, tournament = table.round, table.round.tournament
    authenticated = viewer is not None and viewer.is_authenticated
    seated = authenticated and Entrant.objects.filter(pk__in=table.seats, user=viewer).exists()
    judge = judges_for(tournament, viewer)
    calls = []
    if seated or judge:
        names = _entrant_names(table.seats)
        at_table: list[PersonShown] = [{"id": entrant, "name": names[entrant]} for entrant in table.seats]
        for call in _calls(tournament).filter(match_id=match_id).order_by("number"):
            calls.append(judge_call_shown(call, at_table, details=judge or call.caller_id == viewer.pk))
    return {
        "tournament": tournament.pk,
        "round": rnd.number,
        "table": table.number,
        "deadline": table_deadline(rnd, table.extra_seconds),
        "extra_seconds": table.extra_seconds,
        "can_call": bool(seated) and tournament.status == Tournament.Status.RUNNING and rnd.completed_at is None,
        "judges": judge,
        "calls": calls,
    }
