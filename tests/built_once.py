"""Data made once for the tests of a class (or a module) that only read it: Django TestCase's
`setUpTestData`, for pytest.

A class-scoped fixture builds inside `rolled_back_at_the_end(django_db_blocker)`: one transaction
that stays open while the class's tests run and is rolled back after the last. Each test
(`django_db`, not `transaction=True`) runs in a savepoint of it, rolled back at its end, so each
starts from the data as built, whatever the test before it wrote. Nothing is deleted (the
append-only tables refuse DELETE; a rollback they allow), and nothing is committed.

Class scope, not module scope: pytest ends a class's fixtures as soon as the next test is outside
the class, so no other test (a `transaction=True` test of the same module, whose own connections
would wait on the open transaction's rows) runs while the transaction is open. The per-process
caches of states and frames are emptied before each test as ever (tests/conftest.py), so none
carries anything from one test, or one class, to the next.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.db import transaction


@contextlib.contextmanager
def rolled_back_at_the_end(django_db_blocker) -> Iterator[None]:
    """One transaction around what is built in it and every test run in it, rolled back at the end."""
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic._from_testcase = True  # as TestCase's own class-wide atomic: a `durable` block may nest in it
        with atomic:
            try:
                yield
            finally:
                transaction.set_rollback(True)
