"""Registration, login (session and token), logout and the current user."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import User

pytestmark = pytest.mark.django_db


def register(client, username="dora", password="a long enough passphrase", **extra):
    return client.post("/api/auth/register", {"username": username, "password": password, **extra}, format="json")


def test_registering_creates_a_user_with_a_token_and_a_session():
    client = APIClient()
    answer = register(client, display_name="Dora the Player")
    assert answer.status_code == 201
    body = answer.json()
    assert body["user"]["display_name"] == "Dora the Player" and len(body["token"]) == 40
    assert client.get("/api/auth/me").json()["username"] == "dora"  # the session cookie works
    token_client = APIClient()
    token_client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    assert token_client.get("/api/auth/me").json()["username"] == "dora"


def test_a_weak_password_is_refused_with_400():
    answer = register(APIClient(), password="12345678")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "weak_password"
    assert not User.objects.exists()


def test_a_taken_username_is_a_409():
    register(APIClient())
    answer = register(APIClient())
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "username_taken"


def test_a_bad_username_is_a_400():
    answer = register(APIClient(), username="no spaces please")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_input"


def test_login_gives_the_same_error_for_an_unknown_user_and_a_wrong_password():
    register(APIClient())
    wrong = APIClient().post("/api/auth/login", {"username": "dora", "password": "nope"}, format="json")
    unknown = APIClient().post("/api/auth/login", {"username": "nobody", "password": "nope"}, format="json")
    assert wrong.status_code == unknown.status_code == 400
    assert wrong.json() == unknown.json()


def test_login_then_logout_revokes_the_token():
    register(APIClient())
    login = APIClient().post("/api/auth/login", {"username": "dora", "password": "a long enough passphrase"}, format="json")
    assert login.status_code == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {login.json()['token']}")
    assert client.post("/api/auth/logout").status_code == 204
    assert client.get("/api/auth/me").status_code == 401


def test_the_openapi_schema_and_docs_are_served():
    client = APIClient()
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/matches/{match_id}/moves" in paths and "/api/auth/register" in paths
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()
