"""API tokens: the fixed-query lookup gives the user the ORM gives, and nobody for a bad token."""
from __future__ import annotations

import pytest

from accounts.authentication import user_for_token
from accounts.models import User
from accounts.services import user_token
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db


def test_a_token_gives_its_user_with_every_field_as_the_orm_reads_it():
    alice = make_user("alice", staff=True)
    found = user_for_token(user_token(user=alice))
    expected = User.objects.get(pk=alice.pk)
    assert found == expected
    assert {f.attname: getattr(found, f.attname) for f in User._meta.concrete_fields} == {
        f.attname: getattr(expected, f.attname) for f in User._meta.concrete_fields
    }
    assert found.is_staff is True and found.last_login == expected.last_login


def test_an_unknown_token_or_an_inactive_user_gives_nobody():
    bob = make_user("bob")
    key = user_token(user=bob)
    assert user_for_token("0" * 40) is None
    User.objects.filter(pk=bob.pk).update(is_active=False)
    assert user_for_token(key) is None


def test_the_api_refuses_a_bad_token_with_401():
    client = client_for()
    client.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    answer = client.post("/api/matches", {"game": "ten", "players": 2}, format="json")
    assert answer.status_code == 401
