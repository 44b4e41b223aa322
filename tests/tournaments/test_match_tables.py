"""GET /api/tournaments/tables: which matches are tournament tables, with the entrants' names
(a bot's seat only knows its kind), for lists of tables such as the lobby's."""

from __future__ import annotations

import pytest

from tests.conftest import client_for
from tests.games.helpers import started_match
from tests.tournaments.builders import make_tournament, reloaded, running_matches
from tournaments import services
from tournaments.models import Entrant, RoundTable

pytestmark = pytest.mark.django_db


def test_a_tournament_table_names_its_entrants_and_other_matches_are_left_out(alice, bob):
    tournament = make_tournament(alice, bots=2, options={"rounds": 1})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    (match_id,) = running_matches(reloaded(tournament))
    casual = started_match("the-game", [alice, bob])
    answer = client_for().get("/api/tournaments/tables", {"matches": f"{casual},{match_id}"})
    assert answer.status_code == 200
    seats = RoundTable.objects.get(match_id=match_id).seats
    names = [Entrant.objects.get(pk=entrant).name for entrant in seats]
    assert sorted(names) == ["random 1", "random 2"]
    assert answer.json() == [{
        "match": match_id, "tournament": tournament.pk, "tournament_name": tournament.name,
        "round": 1, "table": 1, "names": names,
    }]


@pytest.mark.parametrize("matches", ["4,x", "0", "-3", str(2**63), ",".join(str(i) for i in range(1, 102))])
def test_bad_or_too_many_match_ids_are_refused_with_a_code(matches):
    answer = client_for().get("/api/tournaments/tables", {"matches": matches})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] in {"bad_matches", "too_many_matches"}
