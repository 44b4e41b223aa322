"""The hash chain's versions (games/chain.py): what each covers, and the one spelling of a time."""
from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone

import pytest

from games.chain import CHAIN_COVERS, CHAIN_VERSION, canonical_time, event_hash

EVENT = {"seq": 1, "kind": "table", "type": "MatchStarted", "actor": "server", "data": {"type": "MatchStarted"}}
CREATED = "2026-12-03T10:22:32.123456Z"


def test_new_matches_are_hashed_under_version_2_which_covers_every_field_an_event_stores():
    assert CHAIN_VERSION == 2
    assert CHAIN_COVERS == {1: ("seq", "kind", "actor", "data"), 2: ("seq", "kind", "type", "actor", "data", "created")}


def test_version_2_hashes_exactly_the_documented_json_after_the_previous_hash():
    """The README's example: what a checker in another language must hash, byte for byte."""
    body = (
        '{"actor":"server","created":"2026-12-03T10:22:32.123456Z","data":{"type":"MatchStarted"},'
        '"kind":"table","seq":1,"type":"MatchStarted"}'
    )
    assert event_hash("ab", version=2, **EVENT, created=CREATED) == hashlib.sha256(f"ab{body}".encode()).hexdigest()


def test_version_1_hashes_as_it_always_did_and_leaves_type_and_created_out():
    body = '{"actor":"server","data":{"type":"MatchStarted"},"kind":"table","seq":1}'
    v1 = event_hash("", version=1, **EVENT, created=CREATED)
    assert v1 == hashlib.sha256(body.encode()).hexdigest()
    assert event_hash("", version=1, **dict(EVENT, type="Other"), created="1999-01-01T00:00:00.000000Z") == v1


@pytest.mark.parametrize("field", ["type", "created"])
def test_version_2_changes_with_the_type_and_the_time(field):
    changed = {**EVENT, "created": CREATED, field: "2026-12-03T10:22:32.123457Z"}
    assert event_hash("", version=2, **changed) != event_hash("", version=2, **EVENT, created=CREATED)


def test_a_time_is_spelled_in_utc_with_microseconds_and_a_z_whatever_its_zone():
    assert canonical_time(datetime(2026, 12, 3, 10, 22, 32, 123456, tzinfo=UTC)) == CREATED
    in_paris = datetime(2026, 12, 3, 11, 22, 32, tzinfo=timezone(timedelta(hours=1)))
    assert canonical_time(in_paris) == "2026-12-03T10:22:32.000000Z"
    assert datetime.fromisoformat(CREATED) == datetime(2026, 12, 3, 10, 22, 32, 123456, tzinfo=UTC)


def test_a_time_without_a_zone_is_refused_rather_than_guessed():
    with pytest.raises(ValueError):
        canonical_time(datetime(2026, 12, 3, 10, 22, 32))
