"""The kit for a night in a real room (issue #46): the venue screen's QR code, and what the
printouts of a tournament's current round show (pairings by table and by name, the standings,
place cards).

Everything here is read through the tournaments' selectors with the reader as viewer, so a
printout shows what the tournament page shows that reader: a duplicate deal's result held from
the public (`tournaments.selectors.results_held_for`) stays out of both.
"""
from __future__ import annotations

from typing import Any

import segno
from django.conf import settings
from django.http import HttpRequest
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from tournaments import selectors as tournament_selectors
from tournaments.models import Tournament
from tournaments.shapes import RoundShown


def absolute_url(request: HttpRequest, path: str) -> str:
    """The address a phone in the room opens: the site's own (SITE_URL), else the request's host."""
    return f"{settings.SITE_URL}{path}" if settings.SITE_URL else request.build_absolute_uri(path)


def qr_svg(url: str, label: str) -> SafeString:
    """`url` as a QR code, inline SVG with no style attribute (the Content-Security-Policy refuses
    inline style), named `label` for screen readers. Error correction M: a code on a screen or a
    printed card still reads with a glare or a crease across it."""
    code = segno.make(url, error="m")
    svg = code.svg_inline(scale=4, border=2, dark="#000", light="#fff", svgclass="qr-code", lineclass=None, omitsize=True)
    # Safe: segno's markup holds only paths drawn from the code, and the label is escaped.
    return mark_safe(svg.replace("<svg ", f'<svg role="img" aria-label="{escape(label)}" ', 1))


def current_round(rounds: list[RoundShown]) -> RoundShown | None:
    """The round being played, or the last one paired (rounds come numbered in order)."""
    return rounds[-1] if rounds else None


def printout(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    """The current round's pairings by table and by player, the standings, and a place card per table."""
    rounds = tournament_selectors.rounds(tournament)
    shown = current_round(rounds)
    completed = [rnd["round"] for rnd in rounds if rnd["status"] == "complete"]
    tables: list[dict[str, Any]] = []
    by_name: list[dict[str, Any]] = []
    if shown is not None:
        for table in shown["tables"]:
            names = [seat["name"] for seat in table["seats"]]
            path = f"/tables/{table['match']}" if table["match"] else f"/tournaments/{tournament.pk}"
            tables.append({
                "number": table["table"], "players": names, "result": _result(table),
                "url": absolute_url(request, path), "has_match": bool(table["match"]),
            })
            for seat in table["seats"]:
                others = [name for name in names if name != seat["name"]] if len(names) > 1 else []
                by_name.append({"name": seat["name"], "table": table["table"], "opponents": others})
        for bye in shown["byes"]:
            by_name.append({"name": bye["name"], "table": None, "opponents": []})
    by_name.sort(key=lambda row: (row["name"].casefold(), row["table"] or 0))
    for card in tables:
        card["qr"] = qr_svg(card["url"], card["url"])
    return {
        "round": shown,
        # The standings count the rounds played out (a round being played adds its results as they come).
        "standings_after": completed[-1] if completed else None,
        "tables": tables,
        "by_name": by_name,
        "standings": tournament_selectors.standings(tournament, request.user),
        "cooperative": bool(tournament.options.get("cooperative")),
    }


def _result(table: Any) -> str:
    """The table's result in words, as the tournament page writes it (js/tournament-live.js
    resultText); empty until it has one the reader may see (`rounds` hides a held one)."""
    result = table["result"]
    if not result:
        return ""
    words = _result_words(table, result)
    forfeited = set(result.get("forfeited") or ())
    gone = [seat["name"] for seat in table["seats"] if seat["id"] in forfeited]
    if not gone:
        return words
    return f"{words} ({_('%(names)s forfeited') % {'names': ', '.join(gone)}})"


def _result_words(table: Any, result: dict[str, Any]) -> str:
    if result.get("team_score") is not None:
        count = result["team_score"]
        return ngettext("%(count)s card left", "%(count)s cards left", count) % {"count": count}
    names = [seat["name"] for seat in table["seats"]]
    ranks = list(result.get("ranks") or [])
    if len(names) != len(ranks):
        return ""
    if len(names) == 2:
        if ranks[0] == ranks[1]:
            return pgettext("result", "Draw")
        return _("%(name)s won") % {"name": names[0] if ranks[0] < ranks[1] else names[1]}
    placed = sorted(zip(ranks, names, strict=True))
    return ", ".join(f"{rank}. {name}" for rank, name in placed)
