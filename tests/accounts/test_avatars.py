"""Generated avatars: deterministic identicons, served as inert SVG, picked by the user."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.avatars import AVATAR_VARIANTS, avatar_svg
from tests.conftest import client_for


def test_each_variant_is_deterministic_and_the_variants_differ():
    assert avatar_svg("alice", 3) == avatar_svg("alice", 3)
    assert len({avatar_svg("alice", n) for n in range(AVATAR_VARIANTS)}) == AVATAR_VARIANTS
    assert avatar_svg("alice", 0) != avatar_svg("bob", 0)


def test_the_svg_holds_nothing_the_user_wrote():
    hostile = '"><script>alert(1)</script><foreignObject'
    svg = avatar_svg(hostile, 0)
    assert "script" not in svg and "foreignObject" not in svg and "alert" not in svg
    assert set(svg) <= set('<>/="%. #-()0123456789abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ')


@pytest.mark.django_db
def test_the_picked_avatar_is_served_cacheable_and_inert(alice):
    client_for(alice).patch("/api/auth/me", {"avatar": 5}, format="json")
    answer = APIClient().get(f"/avatars/{alice.pk}.svg")
    assert answer.status_code == 200 and answer["Content-Type"] == "image/svg+xml"
    assert answer.content.decode() == avatar_svg("alice", 5)
    assert "public" in answer["Cache-Control"] and "max-age=" in answer["Cache-Control"]
    assert "sandbox" in answer["Content-Security-Policy"]


@pytest.mark.django_db
@pytest.mark.parametrize("persona", ["anonymous", "bob", "staff"])
def test_anyone_may_see_the_choices(alice, bob, staff, persona):
    client = {"anonymous": APIClient(), "bob": client_for(bob), "staff": client_for(staff)}[persona]
    answer = client.get(f"/avatars/{alice.pk}/11.svg")
    assert answer.status_code == 200 and answer.content.decode() == avatar_svg("alice", 11)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/avatars/999999.svg", "/avatars/{alice}/12.svg", "/avatars/{alice}/-1.svg"])
def test_unknown_users_and_variants_are_404(alice, path):
    assert APIClient().get(path.format(alice=alice.pk)).status_code == 404
