"""A move's hint carries the move: a process holding the state before it builds every socket's
frame without reading the database, and the frame is the one the database would give."""
from __future__ import annotations

import json
import random

import pytest

from games import frames, services
from games.engines import ENGINES
from games.models import Match
from games.state import state_at_head, state_cache
from server import live
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def hints(monkeypatch):
    sent = []
    monkeypatch.setattr(live._publisher, "send", lambda group, message: sent.append(message))
    return sent


def process_at(match: Match, seq: int) -> None:
    """This process as another server process would be: its state and head at `seq`."""
    state_cache.clear()
    frames.forget_all()
    state_at_head(match.pk, match.game, seq)
    seat_users = tuple(match.seat_set.order_by("seat").values_list("user_id", flat=True))
    frames.head_known(frames.MatchHead(match.pk, match.game, match.status, seq, None, seat_users))


def frame_from_database(match_id: int, viewer: int | None, since: int, hint: int) -> str:
    state_cache.clear()
    frames.forget_all()
    return frames.frame_text(match_id, viewer, kind="update", since=since, hint=hint).text


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_hint_that_carries_the_move_gives_every_seat_the_databases_frame_without_a_read(
    game, hints, django_capture_on_commit_callbacks, django_assert_num_queries
):
    players = max(2, ENGINES[game].min_players)
    users = [make_user(f"h{i}") for i in range(players)]
    match = services.match_start_seated(game=game, seats=users, created_by=users[0])
    rng = random.Random(3)
    for _ in range(6):
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            break
        before = match.last_seq
        state = state_at_head(match.pk, match.game, before)
        seat = next(s for s in range(players) if ENGINES[game].legal_moves(state, s))
        move = rng.choice(ENGINES[game].legal_moves(state, seat))
        with django_capture_on_commit_callbacks(execute=True):
            answer = services.move_submit(match_id=match.pk, user=users[seat], move=move)
        hint = hints[-1]
        assert hint["seq"] == answer["seq"] and hint["change"]["after"] == before

        for seat in [*range(players), None]:
            viewer = None if seat is None else users[seat].pk
            process_at(match, before)
            with django_assert_num_queries(0):
                frames.change_applied(match.pk, hint["change"])
                seq, frame_seat, text = frames.frame_text_known(match.pk, viewer, kind="update", since=before, hint=hint["seq"])
            assert seq == hint["seq"] and frame_seat == seat
            # Equal as JSON (PostgreSQL's jsonb gives an event's keys in its own order).
            assert json.loads(text) == json.loads(frame_from_database(match.pk, viewer, before, hint["seq"]))


def test_a_process_whose_state_is_not_where_the_move_started_reads_the_database(hints, django_capture_on_commit_callbacks):
    users = [make_user("a"), make_user("b")]
    match = services.match_start_seated(game="ten", seats=users, created_by=users[0])
    for _ in range(2):
        match.refresh_from_db()
        state = state_at_head(match.pk, match.game, match.last_seq)
        seat = next(s for s in range(2) if ENGINES["ten"].legal_moves(state, s))
        with django_capture_on_commit_callbacks(execute=True):
            services.move_submit(match_id=match.pk, user=users[seat], move=ENGINES["ten"].legal_moves(state, seat)[0])
    first, second = hints[-2], hints[-1]
    process_at(match, first["change"]["after"])  # this process missed the first move's hint
    frames.change_applied(match.pk, second["change"])
    assert frames.frame_text_known(match.pk, users[0].pk, kind="update", since=0, hint=second["seq"]) is None
    assert frames.frame_text(match.pk, users[0].pk, kind="update", since=0, hint=second["seq"]).seq == second["seq"]
