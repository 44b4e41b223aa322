"""Interrupt windows (a Block in Sequence Stacks) never make a table wait on people with nothing to play."""
from __future__ import annotations

import pytest
from django.conf import settings

from games import services, turns
from games.engines import ENGINES
from games.models import Event, Match
from games.state import state_at_head
from server.errors import ApplicationError
from tests.conftest import make_user
from tests.games.engines.test_sequence_stacks import BLUE_RUN, build_deck
from tests.games.worker import celery_worker, wait_for

GAME = "sequence-stacks"


def window_table(users, **services_options):
    """Seat 0 holds a blue run, seat 1 a Block, seat 2 none (the helper deck of the engine tests)."""
    deck = build_deck(3, hands=[BLUE_RUN, ["block", "R5", "R5", "R5", "R5"], ["R4"] * 5], draw=["R3"] * 5)
    match = services.match_create(user=users[0], game=GAME, players=3, rated=False, options={"deck": deck})
    for user in users[1:]:
        services.match_join(match_id=match.pk, user=user, confirm_chosen_deck=True)
    for user, enabled in services_options.get("auto_pass", {}).items():
        services.seat_auto_pass_set(match_id=match.pk, user=user, enabled=enabled)
    services.match_start(match_id=match.pk, user=users[0])
    return match


def play_the_run(match, user) -> None:
    engine = ENGINES[GAME]
    for card in BLUE_RUN:
        m = Match.objects.get(pk=match.pk)
        legal = engine.legal_moves(state_at_head(m.pk, GAME, m.last_seq), 0)
        move = next(x for x in legal if x["action"] == "play" and x.get("card") == card and x["pile"] == 0)
        services.move_submit(match_id=match.pk, user=user, move=move)


def to_act(match_id: int) -> list[int]:
    m = Match.objects.get(pk=match_id)
    return ENGINES[GAME].to_act(state_at_head(m.pk, GAME, m.last_seq))


@pytest.mark.django_db
def test_closing_the_window_passes_for_everyone_still_asked_once():
    users = [make_user(n) for n in ("alice", "bob", "carol")]
    match = window_table(users)
    play_the_run(match, users[0])
    window = Match.objects.get(pk=match.pk)
    assert to_act(match.pk) == [1, 2] and window.deadline is not None
    assert turns.window_close(match_id=match.pk, deadline="2000-01-01T00:00:00+00:00") == 0  # another window
    assert turns.window_close(match_id=match.pk, deadline=window.deadline.isoformat()) == 2
    passes = Event.objects.filter(match=match, type="MovePlayed", seq__gt=window.last_seq)
    assert [(p.data["seat"], p.data["move"], p.actor) for p in passes.order_by("seq")] == [
        (1, {"action": "pass"}, "clock"), (2, {"action": "pass"}, "clock")]
    assert Event.objects.filter(match=match, type="SequenceScored").exists()
    assert turns.window_close(match_id=match.pk, deadline=window.deadline.isoformat()) == 0  # a repeated task


@pytest.mark.django_db
def test_a_window_keeps_its_deadline_while_it_only_shrinks():
    users = [make_user(n) for n in ("alice", "bob", "carol")]
    match = window_table(users)
    play_the_run(match, users[0])
    opened = Match.objects.get(pk=match.pk).deadline
    services.move_submit(match_id=match.pk, user=users[2], move={"action": "pass"})
    assert to_act(match.pk) == [1]
    assert Match.objects.get(pk=match.pk).deadline == opened


@pytest.mark.django_db
def test_auto_pass_is_a_seats_own_choice(alice, bob, carol):
    match = services.match_create(user=alice, game=GAME, players=2)
    assert services.seat_auto_pass_set(match_id=match.pk, user=alice, enabled=True) is True

    with pytest.raises(ApplicationError) as refused:
        services.seat_auto_pass_set(match_id=match.pk, user=carol, enabled=True)
    assert refused.value.code == "not_seated"


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_a_seat_with_auto_pass_passes_at_once_and_the_window_closes_on_its_own(settings):
    settings.INTERRUPT_WINDOW_SECONDS = 4
    users = [make_user(n) for n in ("alice", "bob", "carol")]
    match = window_table(users, auto_pass={users[2]: True})
    with celery_worker():
        play_the_run(match, users[0])
        wait_for(lambda: Event.objects.filter(match=match, type="SequenceScored").exists(), timeout=20,
                 what="the window to close")
    passes = Event.objects.filter(match=match, type="MovePlayed", data__move__action="pass").order_by("seq")
    # Carol (seat 2) passed before the window closed; the closing passes seats in window order.
    assert [(p.data["seat"], p.actor) for p in passes] == [(2, "clock"), (1, "clock")]
