"""The table's sound volume kept per account (issue #42 item 4): `sound_volume` on
`GET`/`PATCH /api/auth/me`, 0 (muted) to 100, 70 for a new account."""
from __future__ import annotations

import pytest

from tests.accounts.helpers import assert_error
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

URL = "/api/auth/me"


def test_anonymous_reads_and_changes_no_volume(alice):
    anonymous = client_for(None)
    assert anonymous.get(URL).status_code == 401
    assert anonymous.patch(URL, {"sound_volume": 0}, format="json").status_code == 401
    alice.refresh_from_db()
    assert alice.sound_volume == 70


def test_a_new_account_hears_the_cues_at_70(alice):
    assert client_for(alice).get(URL).json()["sound_volume"] == 70


@pytest.mark.parametrize("volume", [0, 1, 35, 100])
def test_a_person_sets_their_own_volume(alice, bob, volume):
    answer = client_for(alice).patch(URL, {"sound_volume": volume}, format="json")
    assert answer.status_code == 200 and answer.json()["sound_volume"] == volume
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert (alice.sound_volume, bob.sound_volume) == (volume, 70)
    assert client_for(alice).get(URL).json()["sound_volume"] == volume


def test_changing_the_volume_leaves_the_rest_of_the_account(alice):
    before = client_for(alice).get(URL).json()
    after = client_for(alice).patch(URL, {"sound_volume": 5}, format="json").json()
    assert {**after, "sound_volume": 70} == before


@pytest.mark.parametrize(("volume", "code"), [
    (101, "invalid_sound_volume"),
    (-1, "invalid_sound_volume"),
    (1000, "invalid_sound_volume"),
    ("loud", "invalid_input"),
    (50.5, "invalid_input"),
    (None, "invalid_input"),
])
def test_a_bad_volume_is_refused_and_nothing_is_written(alice, volume, code):
    client = client_for(alice)
    client.patch(URL, {"sound_volume": 40}, format="json")
    alice.refresh_from_db()
    name = alice.display_name
    answer = client.patch(URL, {"sound_volume": volume, "display_name": "Alice the Loud"}, format="json")
    assert_error(answer, 400, code)
    if code == "invalid_sound_volume":
        assert answer.json()["error"]["extra"] == {"field": "sound_volume", "max": 100}
    alice.refresh_from_db()
    assert (alice.sound_volume, alice.display_name) == (40, name)
