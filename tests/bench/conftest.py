"""What the benchmarks' end-to-end tests share."""
from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import urlsplit

import psycopg
import pytest


@pytest.fixture
def bench_database(request) -> Iterator[str]:
    """The URL of a database of the test's own beside DATABASE_URL's (the benchmark drops and
    creates it), dropped when the test ends: a run leaves no benchmark database behind."""
    name = f"cardleague_bench_{request.node.module.__name__.rsplit('.', 1)[-1].removeprefix('test_')}_test"
    base = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
    yield f"{base}/{name}"
    parts = urlsplit(base)
    with psycopg.connect(
        host=parts.hostname, port=parts.port or 5432, user=parts.username, password=parts.password,
        dbname="postgres", autocommit=True,
    ) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
