"""An organiser's correction or forfeit re-rates the match it changes, in the ledger, never by
editing a row: for each competitor a reversal row, then the new result rated, at a new position.
The rebuild reproduces it, whether the task ran or was lost."""
from __future__ import annotations

import json
import re

import pytest

from games.models import Match
from ratings import math as rmath
from ratings.models import Pool, Rating, RatingEntry
from ratings.selectors import game_params, head_to_head
from ratings.services import match_rate, ratings_rebuild, revisions_sweep
from tests.conftest import client_for
from tests.tournaments.builders import finish_round, make_tournament, reloaded
from tournaments import services
from tournaments.models import RoundTable

pytestmark = pytest.mark.django_db

GAME = "sequence-stacks"  # four moves a table (tournament builders): quick, a draw or a chip apart


def page_data(html: str) -> dict:
    """The page's data for its script (the json_script element)."""
    return json.loads(re.search(r'<script id="[a-z]+-data" type="application/json">(.*?)</script>', html, re.S)[1])


def bot_table(organiser, rounds: int = 2):
    """A rated tournament of two bots of different kinds (one table a round), its first round played."""
    tournament = make_tournament(organiser, game=GAME, bots=1, bot="random", options={"rounds": rounds}, rated=True)
    services.entrant_bot_add(tournament_id=tournament.pk, user=organiser, bot="stack_finisher")
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    (match_id,) = finish_round(reloaded(tournament))
    return reloaded(tournament), match_id


def played(match_id: int) -> list[int]:
    return Match.objects.get(pk=match_id).outcome["ranks"]


def other_than(ranks: list[int]) -> list[int]:
    """A two-seat result that differs from `ranks`."""
    return [1, 2] if list(ranks) == [2, 1] else [2, 1]


def seats_of(match_id: int) -> list[str]:
    table = RoundTable.objects.get(match_id=match_id)
    bots = dict(table.round.tournament.entrants.values_list("pk", "bot"))
    return [rmath.bot_competitor(bots[entrant]) for entrant in table.seats]


def rows(match_id: int) -> list[tuple]:
    return list(
        RatingEntry.objects.filter(match_id=match_id)
        .order_by("position", "-reversal", "seat")
        .values_list("position", "revision", "reversal", "competitor", "rank")
    )


def pairs() -> dict[str, rmath.Pair]:
    return {r.competitor: (r.mu, r.sigma) for r in Rating.objects.filter(ladder__game=GAME, ladder__pool=Pool.BOTS)}


def rebuilt_unchanged_in(game: str = GAME) -> bool:
    (bots,) = [r for r in ratings_rebuild(game=game) if r.pool == Pool.BOTS]
    return not bots.new_epoch and bots.appended == 0


def test_a_correction_reverses_the_rating_and_rates_the_new_result(alice):
    tournament, match_id = bot_table(alice)
    assert match_rate(match_id=match_id) == 1
    first, second = seats_of(match_id)
    was, now = played(match_id), other_than(played(match_id))
    assert rows(match_id) == [(1, 0, False, first, was[0]), (1, 0, False, second, was[1])]
    before = pairs()

    services.result_correct(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, ranks=now, reason="sheet"
    )
    assert match_rate(match_id=match_id) == 1
    assert rows(match_id)[2:] == [
        (2, 1, True, first, was[0]), (2, 1, True, second, was[1]),
        (2, 1, False, first, now[0]), (2, 1, False, second, now[1]),
    ]
    # The reversal takes the played result back; the new result is rated from there.
    env = rmath.environment(game_params(GAME))
    rated = {e.competitor: e for e in RatingEntry.objects.filter(match_id=match_id, revision=0)}
    back = {
        c: rmath.reversed_pair(
            before[c], (rated[c].mu_before, rated[c].sigma_before), (rated[c].mu_after, rated[c].sigma_after)
        )
        for c in (first, second)
    }
    expected = rmath.rate_table(env, rmath.Table((first, second), tuple(now)), back)
    assert pairs() == {change.competitor: change.after for change in expected}
    counts = {r.competitor: (r.games, r.wins) for r in Rating.objects.filter(ladder__pool=Pool.BOTS)}
    assert counts == {first: (1, int(now[0] == 1)), second: (1, int(now[1] == 1))}
    record = {row["competitor"]: (row["wins"], row["losses"]) for row in head_to_head(GAME, Pool.BOTS, second)}
    assert record == {first: (int(now[1] < now[0]), int(now[1] > now[0]))}
    assert match_rate(match_id=match_id) == 0  # a replayed task: nothing more
    assert rebuilt_unchanged_in()


def test_a_forfeit_re_rates_and_a_change_to_the_same_result_does_not(alice):
    tournament, match_id = bot_table(alice)
    match_rate(match_id=match_id)
    first, second = seats_of(match_id)
    # Forfeit the seat whose loss changes the result.
    gone = 1 if played(match_id) == [2, 1] else 0
    awarded = [2, 1] if gone == 0 else [1, 2]
    entrant = RoundTable.objects.get(match_id=match_id).seats[gone]
    services.forfeit_award(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, forfeited=[entrant], reason="left"
    )
    assert match_rate(match_id=match_id) == 1
    assert [r for r in rows(match_id) if not r[2]][-2:] == [
        (2, 1, False, first, awarded[0]), (2, 1, False, second, awarded[1]),
    ]
    services.result_correct(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, ranks=awarded, reason="same"
    )
    assert match_rate(match_id=match_id) == 0
    services.result_correct(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, ranks=[1, 1], reason="a draw"
    )
    assert match_rate(match_id=match_id) == 1
    assert {r[1] for r in rows(match_id)} == {0, 1, 2}
    assert Rating.objects.get(competitor=second).wins == 1
    assert rebuilt_unchanged_in()


def test_a_correction_whose_task_was_lost_is_rated_by_the_rebuild_and_then_by_nobody(alice):
    tournament, match_id = bot_table(alice)
    match_rate(match_id=match_id)
    services.result_correct(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, ranks=other_than(played(match_id)),
        reason="sheet",
    )
    (bots,) = [r for r in ratings_rebuild(game=GAME) if r.pool == Pool.BOTS]
    assert (bots.new_epoch, bots.appended) == (False, 4)  # two reversals, two new ratings
    assert match_rate(match_id=match_id) == 0
    assert rebuilt_unchanged_in()


def test_a_correction_before_the_match_is_rated_rates_it_as_played_then_as_corrected(alice):
    tournament, match_id = bot_table(alice)
    services.result_correct(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, reason="sheet",
        ranks=other_than(played(match_id)),
    )
    assert match_rate(match_id=match_id) == 2
    assert [(r[0], r[1], r[2]) for r in rows(match_id)] == [(1, 0, False)] * 2 + [(2, 1, True)] * 2 + [(2, 1, False)] * 2
    assert rebuilt_unchanged_in()


def test_the_correction_reaches_the_ratings_through_its_task_after_commit(
    alice, eager_tasks, django_capture_on_commit_callbacks
):
    tournament, match_id = bot_table(alice)
    match_rate(match_id=match_id)
    with django_capture_on_commit_callbacks(execute=True):
        services.result_correct(
            tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, reason="sheet",
        ranks=other_than(played(match_id)),
        )
    assert RatingEntry.objects.filter(match_id=match_id, revision=1).count() == 4


def test_a_table_between_two_entrants_of_one_bot_is_rated_for_nobody(alice):
    """The issue's "stack-0" against "stack-2": one program, so one competitor, and no rating."""
    tournament = make_tournament(alice, game=GAME, bots=2, bot="stack_finisher", options={"rounds": 1}, rated=True)
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    (match_id,) = finish_round(reloaded(tournament))
    match_rate(match_id=match_id)
    services.result_correct(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, ranks=[2, 1], reason="sheet"
    )
    match_rate(match_id=match_id)
    assert not RatingEntry.objects.filter(match_id=match_id).exists()
    assert not Rating.objects.filter(competitor="bot:stack_finisher").exists()


def test_the_sweep_rates_a_correction_whose_task_was_lost_once(alice):
    tournament, match_id = bot_table(alice)
    match_rate(match_id=match_id)
    assert revisions_sweep() == []
    services.result_correct(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, reason="sheet",
        ranks=other_than(played(match_id)),
    )
    assert revisions_sweep() == [match_id]
    assert RatingEntry.objects.filter(match_id=match_id, revision=1).count() == 4
    assert revisions_sweep() == []


def test_a_forfeit_at_a_cooperative_table_re_rates_it_as_lost(alice):
    """The Game: the team against the game; a forfeit scores the whole deck, so the team lost."""
    tournament = make_tournament(
        alice, game="the-game", format="swiss-tables", bots=1, bot="random",
        options={"table_size": 2, "rounds": 2}, rated=True,
    )
    services.entrant_bot_add(tournament_id=tournament.pk, user=alice, bot="tight")
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    (match_id,) = finish_round(reloaded(tournament))
    match_rate(match_id=match_id)
    table = RoundTable.objects.get(match_id=match_id)
    services.forfeit_award(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, forfeited=[table.seats[0]],
        reason="left",
    )
    assert match_rate(match_id=match_id) == 1
    gone, stayed = (rmath.bot_competitor(tournament.entrants.get(pk=entrant).bot) for entrant in table.seats)
    revised = RatingEntry.objects.filter(match_id=match_id, revision=1, reversal=False)
    # The team (the seat that stayed) lost to the game; the forfeited seat ranks below both.
    assert dict(revised.values_list("competitor", "rank")) == {stayed: 2, "game:2": 1, gone: 3}
    assert rebuilt_unchanged_in("the-game")


def test_the_table_and_replay_pages_say_the_result_was_changed_and_what_counts(alice, bob):
    tournament, match_id = bot_table(alice)
    page = client_for(bob).get(f"/tables/{match_id}").content.decode()
    assert '"changed_result": null' in page
    services.result_correct(
        tournament_id=tournament.pk, user=alice, round_number=1, table_number=1, ranks=[2, 1], reason="sheet"
    )
    for path in (f"/tables/{match_id}", f"/tables/{match_id}/replay"):
        data = page_data(client_for().get(path).content.decode())
        assert data["changed_result"] == {
            "tournament": tournament.pk, "ranks": [2, 1], "team_score": None, "forfeited": [],
            "source": "ResultCorrected", "reason": "sheet", "forfeited_seats": [],
        }
