"""Whole tournaments played by bots through a real Celery worker on Redis, start to final standings.

Nothing in these tests moves a tournament on: the worker's tasks do (bots' moves, each match's
end recording its table and pairing the next round, scheduled starts). Each tournament ends with
standings equal to the projection rebuilt from its events.

The three formats' fields are played at the sizes their issues named in `make test-thorough` (its
`slow` tier at full size), and at about half in `make test-all` and CI: a 24-player Swiss of Ten at
tables of 4 was 169 s of CI's run, the 16-player double elimination 153 s (issue #38). Each
assertion is made at both sizes.
"""

from __future__ import annotations

import datetime as dt
import random
import time

import pytest
from django.conf import settings
from django.utils import timezone

from games.models import Match
from tests.conftest import client_for, make_user
from tests.games.worker import celery_worker, wait_for
from tests.sweeps import at_full_size
from tests.tournaments.builders import assert_rebuild_equals_incremental, event_types, events_of, reloaded
from tests.tournaments.receiver import webhook_receiver
from tournaments import selectors, services
from tournaments.models import Round, RoundTable, Tournament

needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")
pytestmark = [needs_redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.processes]

FULL = at_full_size()
ELIMINATION_FIELD = 16 if FULL else 8
SWISS_FIELD, SWISS_ROUNDS = (24, 5) if FULL else (12, 3)
ROUND_ROBIN_FIELD = 6 if FULL else 4


def bot_tournament(*, game: str, format: str, options: dict, bots: list[str], **settings_) -> Tournament:
    organiser = make_user("organiser")
    tournament = services.tournament_create(
        organiser=organiser,
        name=f"{format} of {game}",
        game=game,
        format=format,
        options=options,
        rated=False,
        **settings_,
    )
    for bot in bots:
        services.entrant_bot_add(tournament_id=tournament.pk, user=organiser, bot=bot)
    return tournament


def run(tournament: Tournament, *, timeout: float) -> Tournament:
    organiser = tournament.organiser
    with celery_worker(
        # Many tables at once: threads with a deep prefetch (measured fastest for this load).
        pool="threads", concurrency=6, CELERY_PREFETCH="16", INTERRUPT_WINDOW_SECONDS="1",
        TOURNAMENT_WEBHOOK_BACKOFF_SECONDS="0.5",
    ):
        services.tournament_start(tournament_id=tournament.pk, user=organiser)
        wait_for(
            lambda: reloaded(tournament).status == Tournament.Status.FINISHED,
            timeout=timeout,
            what=f"{tournament.name} to finish",
        )
    return reloaded(tournament)


def assert_played_out(tournament: Tournament) -> None:
    """Every table was played to its end by bots and recorded once; the standings match the log."""
    tables = RoundTable.objects.filter(round__tournament=tournament)
    assert tables.exists() and not tables.filter(result__isnull=True).exists()
    assert (
        not Match.objects.filter(tournament_table__round__tournament=tournament)
        .exclude(status="finished")
        .exists()
    )
    results = events_of(tournament, "TableResult")
    assert len(results) == tables.count() == len({r["match"] for r in results})
    assert event_types(tournament)[-1] == "TournamentFinished"
    finished = events_of(tournament, "TournamentFinished")[0]
    rows = selectors.standings(tournament)
    assert [(r["entrant"], r["rank"]) for r in finished["standings"]] == [
        (r["entrant"]["id"], r["rank"]) for r in rows
    ]
    assert_rebuild_equals_incremental(tournament)


def test_a_double_elimination_of_split():
    """16 players (8 in CI): every table played, the champion crowned, the first four placed."""
    tournament = run(
        bot_tournament(
            game="split", format="double-elimination", options={}, bots=["shedder"] * ELIMINATION_FIELD
        ),
        timeout=420,
    )
    assert_played_out(tournament)
    bracket = selectors.bracket(tournament)
    assert (
        bracket["finished"]
        and bracket["champion"] == events_of(tournament, "TournamentFinished")[0]["champion"]
    )
    tables = RoundTable.objects.filter(round__tournament=tournament).count()
    n = ELIMINATION_FIELD
    assert tables in (2 * n - 2, 2 * n - 1)  # 2n − 2, or 2n − 1 with a grand-final reset
    places = sorted(row["place"] for row in selectors.standings(tournament))
    assert places[:4] == [1, 2, 3, 4] and len(places) == n


def test_a_swiss_of_ten_at_tables_of_4():
    """24 players over 5 rounds (12 over 3 in CI): every table seats four, and the points add up."""
    tournament = run(
        bot_tournament(
            game="ten",
            format="swiss-tables",
            options={"table_size": 4, "rounds": SWISS_ROUNDS},
            bots=["run_builder"] * SWISS_FIELD,
        ),
        timeout=420,
    )
    assert_played_out(tournament)
    rounds = Round.objects.filter(tournament=tournament)
    tables_a_round = SWISS_FIELD // 4
    assert rounds.count() == SWISS_ROUNDS
    assert all(len(table.seats) == 4 for rnd in rounds for table in rnd.tables.all())
    assert all(rnd.tables.count() == tables_a_round for rnd in rounds)
    rows = selectors.standings(tournament)
    assert all(row["played"] == SWISS_ROUNDS for row in rows)
    # 1 + 2/3 + 1/3 + 0 a table
    assert sum(row["points"] for row in rows) == pytest.approx(SWISS_ROUNDS * tables_a_round * 2)


def test_a_double_round_robin_of_sequence_stacks():
    """6 players (4 in CI): everyone meets everyone twice."""
    tournament = run(
        bot_tournament(
            game="sequence-stacks",
            format="round-robin",
            options={"double": True},
            bots=["stack_finisher"] * (ROUND_ROBIN_FIELD - 2) + ["random"] * 2,
        ),
        timeout=420,
    )
    assert_played_out(tournament)
    n = ROUND_ROBIN_FIELD
    assert Round.objects.filter(tournament=tournament).count() == 2 * (n - 1)
    rows = selectors.standings(tournament)
    assert all(row["played"] == 2 * (n - 1) for row in rows)
    pairs = [frozenset(t.seats) for t in RoundTable.objects.filter(round__tournament=tournament)]
    assert len(pairs) == n * (n - 1) and all(pairs.count(pair) == 2 for pair in pairs)  # everyone meets twice


def test_a_league_of_the_game_over_three_matchdays():
    start = timezone.now().date() - dt.timedelta(days=14)  # the three matchdays are all due by today
    tournament = run(
        bot_tournament(
            game="the-game",
            format="league",
            options={
                "format": "swiss-tables",
                "rounds": 3,
                "table_size": 3,
                "start": start.isoformat(),
                "every_days": 7,
            },
            bots=["tight"] * 4 + ["random"] * 2,
        ),
        timeout=420,
    )
    assert_played_out(tournament)
    calendar = selectors.calendar(tournament)
    assert [(d["date"], d["status"]) for d in calendar["matchdays"]] == [
        (start + dt.timedelta(days=7 * n), "complete") for n in range(3)
    ]
    rows = selectors.standings(tournament)
    assert all(row["mean_team_score"] is not None for row in rows)
    assert [row["mean_team_score"] for row in rows] == sorted(row["mean_team_score"] for row in rows)


def play_for_people(people: list, until, *, timeout: float) -> int:
    """People play their tournament tables through the API, a random legal move whenever asked."""
    clients = [(person, client_for(person)) for person in people]
    rng = random.Random(0)
    moves, stop = 0, time.monotonic() + timeout
    while not until():
        assert time.monotonic() < stop, "the tournament did not finish"
        for person, client in clients:
            running = client.get("/api/matches", {"player": person.username, "status": "running"}).json()
            for match in running["results"]:
                view = client.get(f"/api/matches/{match['id']}/view").json()
                if view["legal_moves"]:
                    move = {"move": rng.choice(view["legal_moves"]), "expected_seq": view["seq"]}
                    answer = client.post(f"/api/matches/{match['id']}/moves", move, format="json")
                    moves += answer.status_code == 200
        time.sleep(0.02)
    return moves


def test_a_swiss_with_a_start_time_runs_itself_to_final_standings_with_people_bots_and_webhooks(settings):
    """Done when: an organiser creates a Swiss tournament with a start time, players and bots
    register, and the whole event runs itself to final standings (people play through the API)."""
    organiser, ann, ben = make_user("organiser"), make_user("ann"), make_user("ben")
    starts = timezone.now() + dt.timedelta(seconds=4)
    body = {
        "name": "Friday Swiss",
        "game": "sequence-stacks",
        "format": "swiss",
        "options": {"rounds": 3},
        "match_options": {"turn_limit": 24},
        "starts_at": starts.isoformat(),
        "clock_seconds": 30,
        "rated": True,
    }
    created = client_for(organiser).post("/api/tournaments", body, format="json")
    assert created.status_code == 201, created.json()
    tournament_id = created.json()["id"]
    base = f"/api/tournaments/{tournament_id}"
    for person in (ann, ben):
        assert client_for(person).post(f"{base}/register").status_code == 201
    for bot in ("stack_finisher", "stack_finisher", "random", "random"):
        assert client_for(organiser).post(f"{base}/bots", {"bot": bot}, format="json").status_code == 201
    # The receiver is http on 127.0.0.1, which production never allows (here and in the worker).
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = settings.WEBHOOK_ALLOW_HTTP = True
    with webhook_receiver(500) as receiver:
        hook = client_for(organiser).post(f"{base}/webhooks", {"url": receiver.url}, format="json").json()
        with celery_worker(
        # Many tables at once: threads with a deep prefetch (measured fastest for this load).
        pool="threads", concurrency=6, CELERY_PREFETCH="16", INTERRUPT_WINDOW_SECONDS="1",
        TOURNAMENT_WEBHOOK_BACKOFF_SECONDS="0.5", WEBHOOK_ALLOW_PRIVATE_ADDRESSES="1", WEBHOOK_ALLOW_HTTP="1",
    ):
            moves = play_for_people(
                [ann, ben], lambda: client_for().get(base).json()["status"] == "finished", timeout=240
            )
            wait_for(
                lambda: any(r.json["kind"] == "tournament.finished" for r in receiver.requests),
                timeout=60,
                what="the finished webhook",
            )
    tournament = Tournament.objects.get(pk=tournament_id)
    assert_played_out(tournament)
    assert moves > 0
    assert Round.objects.get(tournament=tournament, number=1).started_at >= starts
    assert len(events_of(tournament, "RoundStarted")[0]["tables"]) == 3
    standings = client_for().get(f"{base}/standings").json()["results"]
    assert len(standings) == 6 and all(row["played"] == 3 for row in standings)
    kinds = [r.json["kind"] for r in receiver.requests]
    assert kinds.count("round.paired") == 4  # three rounds, the first delivered again after a 500
    assert kinds.count("result.recorded") == 9 and kinds.count("tournament.finished") == 1
    assert all(r.signed_with(hook["secret"]) for r in receiver.requests)
