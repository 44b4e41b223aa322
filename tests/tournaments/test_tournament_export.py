"""GET /api/tournaments/{id}/export and `manage.py tournament_export`: the pairings file (version 1)
that `pairing_check` reads, with what was played in it, open to whoever may read the rounds."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from django.core.management import CommandError, call_command

from tests.conftest import client_for, make_user
from tests.tournaments.builders import finish_round, make_tournament, play_to_end, reloaded
from tournaments import fold, pairing_check, projections, selectors, services
from tournaments.formats import FORMATS
from tournaments.models import Entrant as EntrantRow
from tournaments.models import Round

pytestmark = pytest.mark.django_db


def played_swiss_tables(organiser, player):
    """Eight entrants at tables of 3 for three rounds: a forfeit in rounds 1 and 2, one bot
    withdrawn and one disqualified while round 2 is played (both miss round 3)."""
    tournament = make_tournament(
        organiser, format="swiss-tables", options={"table_size": 3, "rounds": 3}, people=(player,), bots=7
    )
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    bots = list(EntrantRow.objects.filter(tournament=tournament, user=None).order_by("pk"))
    for number in (1, 2):
        table = Round.objects.get(tournament=tournament, number=number).tables.order_by("number").first()
        services.forfeit_award(
            tournament_id=tournament.pk, user=organiser, round_number=number, table_number=table.number,
            forfeited=[table.seats[-1]], reason="did not come",
        )
        if number == 2:
            services.entrant_withdraw(tournament_id=tournament.pk, user=organiser, entrant_id=bots[0].pk)
            services.entrant_disqualify(
                tournament_id=tournament.pk, user=organiser, entrant_id=bots[1].pk, reason="abusive"
            )
        finish_round(tournament)
    return play_to_end(tournament), bots[0].pk, bots[1].pk


def export_of(tournament, user=None) -> tuple[int, dict, object]:
    answer = client_for(user).get(f"/api/tournaments/{tournament.pk}/export")
    return answer.status_code, json.loads(answer.content), answer


def test_the_export_of_a_played_swiss_tables_tournament_replays_what_was_played(alice, bob):
    tournament, withdrawn, disqualified = played_swiss_tables(alice, bob)
    status, export, answer = export_of(tournament)
    assert status == 200 and answer["Content-Type"] == "application/json"
    assert answer["Content-Disposition"] == f'attachment; filename="tournament-{tournament.pk}.json"'
    assert export["export"] == "tournament-pairings" and export["version"] == 1
    assert export["tournament"] == {"id": tournament.pk, "name": tournament.name, "game": "sequence-stacks"}
    assert export["format"] == "swiss-tables"
    state = projections.state_of(tournament)
    fmt = FORMATS["swiss-tables"]
    # The options the server paired with, seed included now that the tournament is over.
    assert fmt.options(export["options"]) == fold.format_options(state, seed=tournament.seed)
    assert export["options"]["seed"] == tournament.seed and export["options"]["table_size"] == 3
    assert [e["id"] for e in export["entrants"]] == state["field"]
    assert {e["entered"] for e in export["entrants"]} == {1}
    assert export["withdrawn"] == {str(withdrawn): 3} and export["disqualified"] == {str(disqualified): 3}

    stored = list(Round.objects.filter(tournament=tournament).order_by("number").prefetch_related("tables"))
    assert [r["round"] for r in export["rounds"]] == [1, 2, 3]
    for rnd, row in zip(export["rounds"], stored):
        tables = list(row.tables.order_by("number"))
        assert rnd["byes"] == row.byes and rnd["quality"] == row.quality is not None
        assert [t["seats"] for t in rnd["tables"]] == [t.seats for t in tables]
        assert [t["ranks"] for t in rnd["tables"]] == [t.result["ranks"] for t in tables]
        assert all(t["team_score"] is None for t in rnd["tables"])
        assert [t["forfeited"] for t in rnd["tables"]] == [t.result["forfeited"] for t in tables]
    # The checker reads the file; given its field, options and earlier rounds, the format pairs
    # every round again as it was played.
    loaded = pairing_check.load_export(export)
    for rnd in loaded.rounds:
        entrants, earlier = loaded.entrants_in(rnd.number), loaded.history_before(rnd.number)
        assert fmt.next_round(entrants, loaded.options, earlier) == rnd.pairing()
    forfeits = [t["forfeited"] for rnd in export["rounds"][:2] for t in rnd["tables"] if t["forfeited"]]
    assert len(forfeits) == 2 and all(len(f) == 1 for f in forfeits)
    third = export["rounds"][2]
    in_third = {p for t in third["tables"] for p in t["seats"]} | set(third["byes"])
    assert withdrawn not in in_third and disqualified not in in_third
    # Every key the selector writes is named by the documented serializer (none dropped on the way).
    assert export == json.loads(json.dumps(selectors.tournament_export(tournament)))


def test_a_running_tournament_is_exported_without_its_seed_and_with_unplayed_tables(alice):
    tournament = make_tournament(alice, format="swiss-tables", options={"table_size": 3, "rounds": 2}, bots=6)
    status, export, _ = export_of(tournament)
    assert status == 200 and export["rounds"] == []
    assert [e["rating"] for e in export["entrants"]] == [None] * 6
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    status, export, _ = export_of(reloaded(tournament))
    assert "seed" not in export["options"] and str(tournament.seed) not in json.dumps(export)
    tables = export["rounds"][0]["tables"]
    assert len(tables) == 2
    assert all(t["ranks"] is None and t["team_score"] is None and t["forfeited"] == [] for t in tables)
    assert export["withdrawn"] == {} and export["disqualified"] == {}


def test_fractions_and_dates_in_the_options_are_written_as_text(alice):
    tournament = make_tournament(
        alice,
        format="league",
        bots=4,
        options={"format": "swiss-tables", "table_size": 3, "rounds": 2, "bye_points": 0.5,
                 "start": "2031-01-06", "skip_dates": ["2031-01-13"]},
    )
    export = selectors.tournament_export(tournament)
    assert export["options"]["bye_points"] == "1/2"
    assert export["options"]["start"] == "2031-01-06" and export["options"]["skip_dates"] == ["2031-01-13"]
    assert FORMATS["league"].options(export["options"]).bye_points == Fraction(1, 2)
    assert json.loads(json.dumps(export)) == export


def test_a_cooperative_tables_team_score_is_exported(alice):
    tournament = make_tournament(
        alice, game="the-game", format="swiss-tables", options={"table_size": 2, "rounds": 1}, bots=4
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    tournament = play_to_end(tournament)
    tables = selectors.tournament_export(tournament)["rounds"][0]["tables"]
    assert all(t["ranks"] is None and isinstance(t["team_score"], (int, float)) for t in tables)


# Who may read the export: exactly whoever may read the rounds (everyone).
PERSONAS = ["anonymous", "other player", "spectator", "organiser", "staff"]


@pytest.mark.parametrize("persona", PERSONAS)
def test_whoever_may_read_the_rounds_may_export_them(alice, bob, persona):
    tournament = make_tournament(alice, people=(bob,), bots=3, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    carol = make_user("carol")  # plays in another tournament
    make_tournament(alice, people=(carol,), bots=1)
    users = {"anonymous": None, "other player": carol, "spectator": make_user("dave"), "organiser": alice,
             "staff": make_user("sam", staff=True)}
    reader = client_for(users[persona])
    rounds = reader.get(f"/api/tournaments/{tournament.pk}/rounds")
    status, export, _ = export_of(tournament, users[persona])
    assert rounds.status_code == status == 200
    assert export == selectors.tournament_export(reloaded(tournament))
    assert reader.post(f"/api/tournaments/{tournament.pk}/export").status_code == 405


def test_the_export_is_json_even_for_a_browser(alice):
    tournament = make_tournament(alice, bots=2)
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    answer = client_for().get(f"/api/tournaments/{tournament.pk}/export", HTTP_ACCEPT=browser)
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    assert json.loads(answer.content)["version"] == 1


def test_a_missing_tournament_is_a_404_in_the_usual_shape(db):
    answer = client_for().get("/api/tournaments/999999/export")
    assert answer.status_code == 404
    error = answer.json()["error"]
    assert error["code"] == "tournament_not_found" and error["message"] == "There is no tournament 999999."


def test_the_command_writes_the_export_to_standard_output_or_a_file(alice, tmp_path, capsys):
    tournament = make_tournament(alice, bots=4, options={"rounds": 1})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    tournament = play_to_end(tournament)
    expected = selectors.tournament_export(tournament)
    call_command("tournament_export", str(tournament.pk))
    assert json.loads(capsys.readouterr().out) == expected
    target = tmp_path / "t.json"
    call_command("tournament_export", str(tournament.pk), "--output", str(target))
    assert json.loads(target.read_text()) == expected
    assert str(target) in capsys.readouterr().out
    with pytest.raises(CommandError, match="no tournament 999999"):
        call_command("tournament_export", "999999")
    with pytest.raises(CommandError, match="cannot write"):
        call_command("tournament_export", str(tournament.pk), "--output", str(tmp_path / "no" / "t.json"))
