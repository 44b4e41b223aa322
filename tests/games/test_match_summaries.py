"""A page of tables is read in a fixed number of statements, whatever its length, and each
table's summary is the one its own page gives."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import selectors, services
from games.models import Match
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db


def tables(count: int, owner, others) -> None:
    for i in range(count):
        if i % 3 == 0:
            services.match_create(user=owner, game="ten", players=2, rated=False, options={})
        else:
            services.match_start_seated(game="ten", seats=[others[i % len(others)], "random"], created_by=owner)


def statements_for_a_page(client) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/api/matches", {"limit": 50}).status_code == 200
    return len(captured)


def test_a_longer_page_of_tables_costs_no_more_statements(settings):
    """Prevents the list reading seats, moves and openers once per table (N+1)."""
    settings.MAX_OPEN_TABLES_PER_USER = 100
    owner, others = make_user("owner"), [make_user(f"p{i}") for i in range(3)]
    client = client_for(owner)
    tables(3, owner, others)
    few = statements_for_a_page(client)
    tables(12, owner, others)
    assert statements_for_a_page(client) == few


def test_each_summary_on_a_page_is_the_tables_own():
    owner, others = make_user("owner"), [make_user(f"p{i}") for i in range(3)]
    tables(4, owner, others)
    matches = list(Match.objects.order_by("pk"))
    assert selectors.match_summaries(matches) == [selectors.match_summary(m) for m in matches]
