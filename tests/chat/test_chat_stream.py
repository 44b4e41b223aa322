"""The chat stream: append-only in the database, gapless under concurrent writers, a hide its own event."""
from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from chat import selectors
from chat.models import ChatEvent
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match
from tests.games.test_concurrency import run_at_once


def say(user, match_id, text, **fields):
    return client_for(user).post(f"/api/matches/{match_id}/chat", {"text": text, **fields}, format="json")


@pytest.mark.django_db
@pytest.mark.parametrize("statement", ["UPDATE chat_chatevent SET text = 'rewritten'", "DELETE FROM chat_chatevent"])
def test_the_database_refuses_to_change_or_delete_a_chat_event(open_world, statement):
    say(open_world["players"][0], open_world["match"], "original")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(statement)
    assert ChatEvent.objects.get().text == "original"


@pytest.mark.django_db
def test_a_hide_is_an_event_naming_the_message_which_stays_as_it_was_for_staff(sealed_world):
    users, match_id = sealed_world["users"], sealed_world["match"]
    posted = say(users["seated"], match_id, "rude words").json()
    hide = client_for(users["organiser"]).post(f"/api/matches/{match_id}/chat/{posted['seq']}/hide").json()
    assert hide["seq"] == posted["seq"] + 1 and hide["message"]["hidden"] and hide["message"]["text"] is None
    stored = list(ChatEvent.objects.order_by("seq").values_list("type", "text", "message_seq", "author_id"))
    assert stored == [
        ("MessagePosted", "rude words", None, users["seated"].pk),
        ("MessageHidden", "", posted["seq"], users["organiser"].pk),
    ]
    for persona in ("seated", "organiser"):  # the others may not read a duplicate deal's table
        items = client_for(users[persona]).get(f"/api/matches/{match_id}/chat").json()["items"]
        assert [(i["type"], i["message"]["text"], i["message"]["hidden_by"]) for i in items] == [
            ("MessagePosted", None, None), ("MessageHidden", None, None)
        ], persona
    staff_view = client_for(users["staff"]).get(f"/api/matches/{match_id}/chat").json()["items"]
    olga = {"id": users["organiser"].pk, "name": users["organiser"].shown_name}
    assert [(i["message"]["text"], i["message"]["hidden_by"]) for i in staff_view] == [("rude words", olga)] * 2


@pytest.mark.django_db
def test_since_and_pages_read_each_event_once(open_world, monkeypatch):
    monkeypatch.setattr(selectors, "CHAT_PAGE_SIZE", 2)
    for number in range(5):
        say(open_world["players"][number % 2], open_world["match"], f"m{number}")
    seen, since = [], 0
    while True:
        page = client_for().get(f"/api/matches/{open_world['match']}/chat", {"since": since}).json()
        seen += [item["seq"] for item in page["items"]]
        since = page["head"]
        if not page["more"]:
            break
    assert seen == [1, 2, 3, 4, 5] and since == 5


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_posts_get_distinct_gapless_seqs_and_a_retry_sent_at_once_posts_once(open_world):
    match_id = open_world["match"]
    people = [make_user(f"fan{i}") for i in range(6)] + open_world["players"]
    calls = [lambda who=who: say(who, match_id, f"from {who.username}") for who in people]
    calls += [lambda: say(people[0], match_id, "once", id="twice-sent")] * 2
    answers = run_at_once(calls)
    assert all(answer.status_code == 201 for answer in answers), [a.json() for a in answers if a.status_code != 201]
    seqs = sorted(ChatEvent.objects.filter(match_id=match_id).values_list("seq", flat=True))
    assert seqs == list(range(1, len(people) + 2))  # every person's message, and the retried one once
    assert answers[-1].json() == answers[-2].json()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_posts_sent_at_once_pass_the_per_table_limit_no_more_than_it_allows(open_world, settings):
    """Issue #39: 21-22 of 60 posts sent at once passed a limit of 20 (each counted before the others committed)."""
    settings.CHAT_MESSAGES_PER_MINUTE = 3
    settings.CHAT_MESSAGES_PER_MINUTE_ALL_TABLES = 1000
    alice = open_world["players"][0]
    for attempt in range(4):  # a race: each burst, at a table of its own, is a fresh chance to pass the limit
        match_id = started_match("the-game", [alice, make_user(f"opponent{attempt}")])
        answers = run_at_once([lambda i=i, m=match_id: say(alice, m, f"burst {i}") for i in range(24)])
        codes = sorted(answer.status_code for answer in answers)
        assert codes.count(201) == 3 and set(codes[3:]) == {429}, codes


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_posts_at_many_tables_at_once_pass_the_per_user_limit_no_more_than_it_allows(open_world, settings):
    """Issue #39: 100 messages at 5 tables in 2.6 s: no limit spanned tables."""
    settings.CHAT_MESSAGES_PER_MINUTE = 100
    settings.CHAT_MESSAGES_PER_MINUTE_ALL_TABLES = 6
    eve = open_world["users"]["spectator"]
    tables = [open_world["match"]] + [started_match("the-game", [make_user(f"p{i}")]) for i in range(3)]
    answers = run_at_once([lambda i=i: say(eve, tables[i % 4], f"spread {i}") for i in range(16)])
    codes = sorted(answer.status_code for answer in answers)
    assert codes.count(201) == 6 and set(codes[6:]) == {429}, codes
    refused = next(answer for answer in answers if answer.status_code == 429).json()["error"]
    assert refused["code"] == "chat_rate_limited_all_tables" and refused["extra"] == {"per_minute": 6}
    assert ChatEvent.objects.filter(author=eve).count() == 6
