"""A finished match's review by the search bot (issue #44 item 5): what it holds, that it never
peeks at cards the seat could not see, who may read it, and its background task."""
from __future__ import annotations

import random

import pytest
from django.conf import settings as django_settings

from games import review, reviews, services
from games.bots import BOTS, STRONG_BOT
from games.engines import ENGINES
from games.models import Match, MatchReview, SpectatorPolicy
from games.replay import decision_points
from tests.conftest import client_for, make_user
from tests.games.builders import bot_moves, finished_match
from tests.games.helpers import started_match

PLAYOUTS = 2  # the smallest budget: what is tested here is what the review reads, not its strength


def _positions(game: str, players: int, seed: int, bot: str, every: int):
    """(state, seat, move, seq) at every `every`-th decision with a choice of a bot-played game."""
    engine = ENGINES[game]
    rng = random.Random(seed)
    state = engine.replay(engine.start(players, seed))
    found, turn = [], 0
    while engine.outcome(state) is None:
        seat = engine.to_act(state)[0]
        legal = engine.legal_moves(state, seat)
        move = BOTS[game][bot].choose(engine.view(state, seat), legal, rng)
        if len(legal) > 1:
            if turn % every == 0:
                found.append((state, seat, move, turn))
            turn += 1
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
    return found


@pytest.mark.no_cover  # volume: reviews of many positions of every game (tests/untraced.py)
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_review_of_a_move_is_the_same_whatever_the_other_seats_held(game):
    """The hidden cards of the real state (other hands, the draw pile's order, later shuffles' seed)
    are dealt again consistently with the seat's view; the review of the seat's move is unchanged."""
    engine = ENGINES[game]
    players = 3 if engine.max_players >= 3 else 2
    # Positions of the second half (their playouts to the end are short), a seat of each.
    positions = _positions(game, players, seed=5, bot="random", every=7)
    positions = positions[len(positions) // 2 :: max(1, len(positions) // 6)][:3]
    assert positions
    differed = 0
    determinize = BOTS[game]["search-easy"].determinize
    for state, seat, move, turn in positions:
        view = engine.view(state, seat)
        real = review.review_position(game, state, seat, move, seq=turn, after=turn + 1, playouts=PLAYOUTS)
        assert real is not None
        for other_seed in (1, 2):
            other = determinize(view, random.Random(other_seed))
            assert engine.view(other, seat) == view  # the same position for the seat ...
            differed += other != state  # ... and (mostly) other cards elsewhere
            again = review.review_position(game, other, seat, move, seq=turn, after=turn + 1, playouts=PLAYOUTS)
            assert again == real
    assert differed  # the test would pass trivially if every deal of the hidden cards were the real one


def test_a_review_marks_the_mistakes_of_random_play_and_none_of_the_heuristic_bot():
    game = "sequence-stacks"
    engine = ENGINES[game]

    def reviewed(bot: str) -> dict:
        seq, events, decisions = 0, [], []
        rng = random.Random(3)
        state = None
        for event in engine.start(2, 3):
            seq += 1
            events.append((seq, event))
            state = engine.evolve(state, event)
        while engine.outcome(state) is None:
            seat = engine.to_act(state)[0]
            move = BOTS[game][bot].choose(engine.view(state, seat), engine.legal_moves(state, seat), rng)
            before = seq
            for event in engine.decide(state, seat, move):
                seq += 1
                events.append((seq, event))
                state = engine.evolve(state, event)
            decisions.append({"seq": before, "after": seq, "seat": seat, "move": move})
        return review.review_events(game, events, decisions, playouts=PLAYOUTS)

    wild = reviewed("random")
    assert wild["metric"] == "win" and wild["threshold"] == review.MISTAKE_THRESHOLD["win"]
    assert any(d["mistake"] for d in wild["decisions"])
    for decision in wild["decisions"]:
        assert decision["options"] > 1
        assert 0 <= decision["played"]["low"] <= decision["played"]["value"] <= decision["played"]["high"] <= 1
        assert decision["loss"] >= 0  # the best is the best of the compared moves, the move played among them
        if decision["mistake"]:
            assert decision["best"] != decision["move"] and decision["loss"] >= wild["threshold"]
    assert not any(d["mistake"] for d in reviewed(STRONG_BOT[game])["decisions"])


def test_the_game_is_reviewed_in_expected_cards_left():
    positions = _positions("the-game", 2, seed=4, bot="tight", every=1)
    state, seat, move, turn = positions[-1]  # near the end: short playouts
    found = review.review_position("the-game", state, seat, move, seq=turn, after=turn + 1, playouts=PLAYOUTS)
    assert found is not None and review.metric_of("the-game") == "cards_left"
    assert 0 <= found["played"]["low"] <= found["played"]["value"] <= found["played"]["high"]


# --- kept, and read over HTTP ------------------------------------------------------------------

pytestmark = pytest.mark.django_db


def _short_match(users):
    """A finished Sequence Stacks match (its reviews are the quickest of the four games)."""
    return finished_match("sequence-stacks", users)


def _reviewed(match: Match) -> None:
    """A review kept for `match` as the task keeps one (the permission tests need no analysis)."""
    MatchReview.objects.create(
        match=match, status=MatchReview.Status.DONE, version=review.REVIEW_VERSION,
        playouts=django_settings.REVIEW_PLAYOUTS,
        analysis={"version": review.REVIEW_VERSION, "metric": "win", "playouts": 2, "threshold": 0.1, "decisions": []},
    )


def test_the_task_reviews_a_match_once_and_keeps_it(alice, bob, settings):
    settings.REVIEW_AFTER_MATCH = True
    match = _short_match([alice, bob])
    assert reviews.review_compute(match.pk) is True
    kept = MatchReview.objects.get(match=match)
    assert kept.status == MatchReview.Status.DONE and kept.playouts == settings.REVIEW_PLAYOUTS
    computed_at = kept.computed_at
    assert reviews.review_compute(match.pk) is False  # idempotent: a second copy finds it done
    assert MatchReview.objects.get(match=match).computed_at == computed_at
    seqs = {d["seq"] for d in decision_points(match)}
    assert kept.analysis["decisions"] and all(d["seq"] in seqs for d in kept.analysis["decisions"])


def test_the_match_finished_hook_reviews_matches_with_a_person_only_when_reviews_after_matches_are_on(
    alice, settings
):
    match = _short_match([alice, make_user("bea")])
    settings.REVIEW_AFTER_MATCH = False
    assert reviews.review_compute(match.pk) is False and not MatchReview.objects.exists()
    settings.REVIEW_AFTER_MATCH = True
    moves = bot_moves("sequence-stacks", 2, 1, ["stack_finisher"] * 2)
    bots_only = services.match_record(game="sequence-stacks", seats=["random", "random"], created_by=alice, seed=1,
                                      moves=moves)
    assert reviews.review_compute(bots_only.pk) is False  # bots only: reviewed when asked for
    assert reviews.review_compute(bots_only.pk, asked=True) is True
    assert "games.tasks.match_review_task" in settings.MATCH_FINISHED_TASKS
    assert settings.CELERY_TASK_ROUTES["games.tasks.match_review_task"] == {"queue": settings.BOTS_QUEUE}


def test_the_review_is_pending_until_its_task_has_run_then_served(
    alice, bob, eager_tasks, django_capture_on_commit_callbacks
):
    match = _short_match([alice, bob])
    with django_capture_on_commit_callbacks(execute=False) as queued:
        first = client_for(alice).get(f"/api/matches/{match.pk}/review")
    assert first.status_code == 202 and first.json() == {"match": match.pk, "status": "pending"}
    assert len(queued) == 1
    with django_capture_on_commit_callbacks(execute=False) as again:
        assert client_for(bob).get(f"/api/matches/{match.pk}/review").status_code == 202
    assert not again  # asked for once, queued once
    queued[0]()  # the task, run eagerly where it is sent
    done = client_for(alice).get(f"/api/matches/{match.pk}/review")
    assert done.status_code == 200
    body = done.json()
    assert body["status"] == "done" and body["metric"] == "win" and body["decisions"]
    assert set(body["decisions"][0]) >= {"seq", "after", "seat", "move", "best", "played", "best_value", "loss", "mistake"}


def test_there_is_no_review_before_the_end(alice, bob, staff):
    match_id = started_match("sequence-stacks", [alice, bob])
    for user in (alice, staff, None):
        answer = client_for(user).get(f"/api/matches/{match_id}/review")
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "review_not_ready"


def test_a_sealed_match_keeps_its_review_to_staff(alice, bob, staff):
    match = _short_match([alice, bob])
    _reviewed(match)
    Match.objects.filter(pk=match.pk).update(sealed=True)
    refused = client_for(alice).get(f"/api/matches/{match.pk}/review")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "match_running"
    assert client_for(staff).get(f"/api/matches/{match.pk}/review").status_code == 200


@pytest.mark.parametrize("private", [False, True])
def test_who_may_read_a_review(alice, bob, staff, private):
    """A public table's review is anyone's; a private one's its seats', its creator's (the
    organiser) and staff's, and no match at all to anyone else, as its replay."""
    organiser = make_user("organiser")
    match = finished_match("sequence-stacks", [alice, bob])
    Match.objects.filter(pk=match.pk).update(private=private, created_by=organiser)
    _reviewed(match)
    stranger = make_user("stranger")  # signed in, not seated: a spectator of a public table
    expected = {
        "anonymous": (None, 404 if private else 200),
        "other person": (stranger, 404 if private else 200),
        "seated player": (alice, 200),
        "other seated player": (bob, 200),
        "organiser": (organiser, 200),
        "staff": (staff, 200),
    }
    for who, (user, status) in expected.items():
        answer = client_for(user).get(f"/api/matches/{match.pk}/review")
        assert answer.status_code == status, who
        if status == 404:
            assert answer.json()["error"]["code"] == "match_not_found", who
        replay = client_for(user).get(f"/api/matches/{match.pk}/replay")
        assert replay.status_code == status, f"{who}: the review follows the replay"


def test_a_review_kept_under_another_budget_is_computed_again_when_asked_for(
    alice, bob, settings, django_capture_on_commit_callbacks
):
    match = _short_match([alice, bob])
    _reviewed(match)
    settings.REVIEW_PLAYOUTS = PLAYOUTS + 1
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert client_for(alice).get(f"/api/matches/{match.pk}/review").status_code == 202
    assert len(queued) == 1
    assert MatchReview.objects.get(match=match).status == MatchReview.Status.PENDING


def test_a_table_closed_to_spectators_opens_its_review_with_its_replay_once_it_has_ended(alice, bob):
    match = _short_match([alice, bob])
    Match.objects.filter(pk=match.pk).update(spectator_policy=SpectatorPolicy.CLOSED)
    _reviewed(match)
    for user in (None, make_user("stranger")):
        assert client_for(user).get(f"/api/matches/{match.pk}/replay").status_code == 200
        assert client_for(user).get(f"/api/matches/{match.pk}/review").status_code == 200


def test_only_the_players_and_staff_queue_a_review_not_yet_made(
    alice, bob, staff, django_capture_on_commit_callbacks
):
    """A review costs a worker's core on the bots' queue: anonymous readers and other people are
    told there is none (a state, not an error: the replay page asks on every visit) and queue
    nothing, so nobody can queue every demo table's review."""
    match = _short_match([alice, bob])
    moves = bot_moves("sequence-stacks", 2, 1, ["stack_finisher"] * 2)
    bots_only = services.match_record(game="sequence-stacks", seats=["random", "random"], created_by=alice, seed=1,
                                      moves=moves)
    for table in (match, bots_only):
        for user in (None, make_user(f"stranger{table.pk}")):
            with django_capture_on_commit_callbacks(execute=False) as queued:
                answer = client_for(user).get(f"/api/matches/{table.pk}/review")
            assert answer.status_code == 200 and answer.json() == {"match": table.pk, "status": "none"}
            assert not queued and not MatchReview.objects.filter(match=table).exists()
    with django_capture_on_commit_callbacks(execute=False) as queued:
        assert client_for(bob).get(f"/api/matches/{match.pk}/review").status_code == 202
        assert client_for(staff).get(f"/api/matches/{bots_only.pk}/review").status_code == 202
    assert len(queued) == 2
    # Once asked for, anyone the replay serves sees it pending, then done.
    assert client_for(None).get(f"/api/matches/{match.pk}/review").status_code == 202
