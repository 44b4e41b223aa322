"""Player-contributed shuffles at a table: the server commits to its seed when the table opens, the
seated people add theirs before the start, and anyone re-derives the deal once the match ends."""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games import services, turns
from games.chain import canonical_json, event_hash, seed_sha256
from games.engines import ENGINES
from games.exchange import match_export_lines
from games.models import Event, Match, ShuffleContribution
from games.selectors import stored_events, verify_match
from games.shuffle import DERIVATION, contribution_valid, deck_seed, shuffle_problem
from games.verification import parse_match_file, verify_file_contents, verify_stream
from tests.conftest import client_for, make_user

GAME = "sequence-stacks"
MINE, THEIRS = "a" * 64, "0123456789abcdef" * 4
hexes = st.binary(min_size=32, max_size=32).map(bytes.hex)


# --- the derivation, pure --------------------------------------------------------------------


def test_the_deck_seed_is_the_documented_hmac():
    contributions = [{"seat": 0, "value": MINE}, {"seat": 2, "value": THEIRS}]
    digest = hmac.new(b"12345", canonical_json(contributions).encode(), hashlib.sha256).digest()
    assert deck_seed(12345, contributions) == int.from_bytes(digest[:8], "big") >> 2


@given(st.integers(0, 2**62 - 1), st.lists(hexes, min_size=1, max_size=6), st.integers(0, 5), hexes)
def test_any_one_contribution_changes_the_deal_and_the_seed_fits_the_column(server, values, which, other):
    contributions = [{"seat": seat, "value": value} for seat, value in enumerate(values)]
    seed = deck_seed(server, contributions)
    assert 0 <= seed < 2**62
    which %= len(values)
    if other != values[which]:
        changed = [dict(c, value=other) if c["seat"] == which else c for c in contributions]
        assert deck_seed(server, changed) != seed
    assert deck_seed(server + 1, contributions) != seed


@pytest.mark.parametrize(
    "record",
    [
        None,
        {"derivation": "sha1/0", "contributions": []},
        {"derivation": DERIVATION},
        {"derivation": DERIVATION, "contributions": [{"seat": 0}]},
        {"derivation": DERIVATION, "contributions": [{"seat": 5, "value": MINE}]},
        {"derivation": DERIVATION, "contributions": [{"seat": True, "value": MINE}]},
        {"derivation": DERIVATION, "contributions": [{"seat": 0, "value": MINE.upper()}]},
        {"derivation": DERIVATION, "contributions": [{"seat": 1, "value": MINE}, {"seat": 0, "value": MINE}]},
        {"derivation": DERIVATION, "contributions": [{"seat": 0, "value": MINE}, {"seat": 0, "value": MINE}]},
    ],
)
def test_a_malformed_shuffle_record_is_named(record):
    assert shuffle_problem(record, 2)


def test_a_contribution_is_64_lowercase_hex_digits():
    assert contribution_valid(MINE)
    assert not any(map(contribution_valid, [MINE[:-1], MINE + "a", "g" * 64, MINE.upper(), 7, None]))


# --- a table ---------------------------------------------------------------------------------


@pytest.fixture
def table(alice, bob):
    """An open two-seat contributed table: alice made it, bob sits at it."""
    match = services.match_create(user=alice, game=GAME, players=2, options={"turn_limit": 2}, contributed_shuffle=True)
    services.match_join(match_id=match.pk, user=bob)
    return Match.objects.get(pk=match.pk)


def summary(match_id: int, user=None) -> dict:
    return client_for(user).get(f"/api/matches/{match_id}").json()


def test_the_commitment_is_public_from_the_table_s_opening_and_the_seed_hidden(table, alice):
    shown = summary(table.pk)
    assert shown["seed_sha256"] == table.shuffle.seed_sha256 == seed_sha256(table.shuffle.seed)
    assert shown["seed"] is None
    assert shown["shuffle"] == {"derivation": DERIVATION, "contributed_seats": [], "contributions": None}
    client_for(alice).post(f"/api/matches/{table.pk}/shuffle", {"value": MINE}, format="json")
    assert summary(table.pk)["shuffle"]["contributed_seats"] == [0]
    assert MINE not in json.dumps(summary(table.pk, table.created_by))  # values are shown once dealt


def test_the_deal_follows_from_the_server_seed_and_every_seated_contribution(table, alice, bob):
    services.match_shuffle_contribute(match_id=table.pk, user=bob, value=THEIRS)
    services.match_shuffle_contribute(match_id=table.pk, user=alice, value="b" * 64)
    services.match_shuffle_contribute(match_id=table.pk, user=alice, value=MINE)  # the last one counts
    match = services.match_start(match_id=table.pk, user=alice)
    started, game_started = (e.data for e in Event.objects.filter(match=match, seq__lte=2).order_by("seq"))
    contributions = [{"seat": 0, "value": MINE}, {"seat": 1, "value": THEIRS}]
    assert started["shuffle"] == {"derivation": DERIVATION, "contributions": contributions}
    assert started["seed_sha256"] == table.shuffle.seed_sha256
    assert match.seed == table.shuffle.seed
    assert game_started["seed"] == deck_seed(table.shuffle.seed, contributions) != match.seed
    assert game_started == ENGINES[GAME].start(2, game_started["seed"], {"turn_limit": 2})[0]
    assert summary(match.pk)["shuffle"]["contributions"] == contributions
    assert summary(match.pk)["seed"] is None  # still hidden while the match runs


def test_one_who_left_the_table_does_not_count(table, alice, bob, carol):
    services.match_shuffle_contribute(match_id=table.pk, user=bob, value=THEIRS)
    services.match_leave(match_id=table.pk, user=bob)
    services.match_join(match_id=table.pk, user=carol)
    match = services.match_start(match_id=table.pk, user=alice)
    assert Event.objects.get(match=match, seq=1).data["shuffle"]["contributions"] == []


def test_nobody_contributes_once_dealt(table, alice, bob):
    services.match_start(match_id=table.pk, user=alice)
    response = client_for(bob).post(f"/api/matches/{table.pk}/shuffle", {"value": MINE}, format="json")
    assert (response.status_code, response.json()["error"]["code"]) == (409, "match_not_open")
    assert not ShuffleContribution.objects.exists()


def test_a_finished_contributed_match_verifies_and_reveals_the_server_seed(table, alice, bob):
    services.match_shuffle_contribute(match_id=table.pk, user=alice, value=MINE)
    match = services.match_start(match_id=table.pk, user=alice)
    assert turns.match_play_out(match_id=match.pk)
    match.refresh_from_db()
    assert verify_match(match).ok, verify_match(match).problems
    finished = Event.objects.get(match=match, seq=match.last_seq).data
    assert finished["type"] == "MatchFinished" and finished["seed"] == table.shuffle.seed
    assert summary(match.pk)["seed"] == table.shuffle.seed
    # The export file verifies offline: the deal is re-derived from what the file holds.
    header, events, _ = parse_match_file(match_export_lines(match))
    assert verify_file_contents(header, events).ok


def _rechained(match: Match, change) -> list:
    """The match's events with `change` applied to the first one's data and every hash recomputed,
    as an attacker with the database would."""

    events = stored_events(match.pk)
    events[0] = dataclasses.replace(events[0], data=change(json.loads(json.dumps(events[0].data))))
    previous, out = "", []
    for event in events:
        digest = event_hash(
            previous, version=match.chain_version, seq=event.seq, kind=event.kind, type=event.type,
            actor=event.actor, data=event.data, created=event.created,
        )
        out.append(dataclasses.replace(event, hash=digest))
        previous = digest
    return out


def test_a_rewritten_contribution_is_caught(table, alice):
    services.match_shuffle_contribute(match_id=table.pk, user=alice, value=MINE)
    match = services.match_start(match_id=table.pk, user=alice)
    turns.match_play_out(match_id=match.pk)
    match.refresh_from_db()

    def swap(data):
        data["shuffle"]["contributions"][0]["value"] = THEIRS
        return data

    report = verify_stream(GAME, _rechained(match, swap), chain_version=match.chain_version)
    assert report.problems == ["seq 2: the deck's seed does not follow from the server's seed and the contributions"]

    def dropped(data):
        del data["shuffle"]
        return data

    report = verify_stream(GAME, _rechained(match, dropped), chain_version=match.chain_version)
    assert report.problems and "SHA-256 published" in report.problems[0]


# --- who may send one ------------------------------------------------------------------------


def post(user, match_id: int, body) -> tuple[int, str | None]:
    response = client_for(user).post(f"/api/matches/{match_id}/shuffle", body, format="json")
    return response.status_code, response.json().get("error", {}).get("code")


def test_who_may_contribute(table, alice, bob, carol):
    staff = make_user("judge", staff=True)
    assert post(None, table.pk, {"value": MINE})[0] in (401, 403)
    assert post(carol, table.pk, {"value": MINE}) == (403, "not_seated")  # a spectator or another player
    assert post(staff, table.pk, {"value": MINE}) == (403, "not_seated")  # staff do not deal for others
    assert not ShuffleContribution.objects.exists()
    assert post(bob, table.pk, {"value": MINE})[0] == 200
    assert post(alice, table.pk, {"value": THEIRS})[0] == 200  # the creator is a seated player
    assert ShuffleContribution.objects.count() == 2


@pytest.mark.parametrize("body", [{}, {"value": ""}, {"value": "x" * 64}, {"value": MINE.upper()}, {"value": MINE + "0"}])
def test_bad_input_is_refused_and_changes_nothing(table, bob, body):
    status, _ = post(bob, table.pk, body)
    assert status == 400
    assert not ShuffleContribution.objects.exists()


def test_a_table_without_the_option_or_no_table_at_all(alice, bob):
    plain = services.match_create(user=alice, game=GAME, players=2)
    assert post(alice, plain.pk, {"value": MINE}) == (409, "shuffle_not_contributed")
    assert post(alice, 999_999, {"value": MINE}) == (404, "match_not_found")
    assert summary(plain.pk)["shuffle"] is None


def test_a_chosen_deck_is_not_contributed_to(alice):
    deck = ENGINES[GAME].start(2, 1)[0]["deck"]
    response = client_for(alice).post(
        "/api/matches",
        {"game": GAME, "players": 2, "rated": False, "options": {"deck": deck}, "contributed_shuffle": True},
        format="json",
    )
    assert (response.status_code, response.json()["error"]["code"]) == (400, "deck_with_contributed_shuffle")
    assert not Match.objects.exists()


def test_the_option_is_given_when_the_table_is_made(alice):
    response = client_for(alice).post(
        "/api/matches", {"game": GAME, "players": 2, "contributed_shuffle": True}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["shuffle"]["derivation"] == DERIVATION
    assert len(response.json()["seed_sha256"]) == 64
