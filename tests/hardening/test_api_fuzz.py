"""Schemathesis over every endpoint of /api/schema/, as a logged-in player seated at a running
match: no response is a 500, and every response matches the schema."""
from __future__ import annotations

import contextlib

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import negative_data_rejection, positive_data_acceptance

from accounts.services import user_token
from server.wsgi import application
from tests.built_once import rolled_back_at_the_end
from tests.conftest import make_user
from tests.games.builders import finished_match
from tests.games.helpers import started_match

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)


@pytest.fixture(scope="module")
def alice(django_db_setup, django_db_blocker):
    """Made once for the module (tests/built_once.py), whose one test function runs in a savepoint
    of it each time: what one endpoint's test wrote is gone before the next. (Module scope: the
    module has no `transaction=True` test to keep out of the open transaction.)"""
    with rolled_back_at_the_end(django_db_blocker):
        alice, bob = make_user("alice"), make_user("bob")
        started_match("the-game", [alice, bob])  # match 1 runs; a finished match exists too
        # The shortest of the bots' whole games (the-game's took ~0.2 s more, a test).
        finished_match("sequence-stacks", [alice, bob], seed=3)
        yield alice


@pytest.fixture
def token(alice, db):
    return user_token(user=alice)


@contextlib.contextmanager
def connection_kept():
    """The WSGI app's requests run on the test's connection, inside its transaction: as Django's
    test Client does, `close_old_connections` is off while they run. (On the request signals it
    would close a connection in an atomic block, the test's.)"""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.mark.postgres  # the database of production
@pytest.mark.django_db  # rolled back, not flushed; each call's on-commit work runs (below)
@schema.parametrize()
@settings(suppress_health_check=list(HealthCheck))
def test_no_endpoint_answers_500_and_every_answer_matches_the_schema(case, token, django_capture_on_commit_callbacks):
    # Left out, on purpose: a schema cannot say every rule of the domain (a game's player
    # counts, a seat being free), so schema-valid requests may still get a 400; and unknown
    # fields are ignored by design (ENGINE.md: fields a move's action does not use are ignored).
    # What an endpoint does after its commit (tasks, socket messages) runs right after the call,
    # as it would on the commit the test's transaction never makes.
    with connection_kept(), django_capture_on_commit_callbacks(execute=True):
        case.call_and_validate(
            headers={"Authorization": f"Token {token}"}, excluded_checks=[positive_data_acceptance, negative_data_rejection]
        )
