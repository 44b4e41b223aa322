"""The Content-Security-Policy on every response, and the endpoint browsers report refusals to.

The browser tests run with the policy on: a page that breaks it logs a console error there, and
every browser test fails on a console error (tests/frontend/conftest.py).
"""
from __future__ import annotations

import json
import logging
import uuid

import pytest
from django.test import Client

from server.limits import ScopedThrottle
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

REPORT = {
    "csp-report": {
        "document-uri": "https://league.example/tables/7",
        "violated-directive": "script-src-elem",
        "effective-directive": "script-src-elem",
        "blocked-uri": "inline",
        "source-file": "https://league.example/tables/7",
        "line-number": 12,
        "original-policy": "default-src 'self'",
    }
}


def policy_of(answer) -> dict[str, list[str]]:
    header = answer["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in header.split(";") if part.strip())}


@pytest.mark.parametrize("path", ["/", "/login", "/rules", "/tournaments", "/no-such-page", "/api/games", "/api/docs/",
                                  "/admin/login/"])
def test_every_response_carries_a_policy_without_inline_script_or_style(path, alice):
    policy = policy_of(client_for(alice).get(path))
    assert policy["script-src"] == ["'self'"] and policy["style-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert policy["connect-src"] == ["'self'"]  # sockets to this site only
    assert policy["report-uri"] == ["/csp-report"]
    assert not [value for values in policy.values() for value in values if "unsafe" in value]


def test_the_pages_carry_no_inline_script_or_style_attribute(alice):
    """What the policy would refuse, caught before a browser has to: no <script> without a src,
    no <style> element, no style="" or on*="" attribute on a page the site renders."""
    for path in ["/", "/login", "/signup", "/rules", "/rules/split", "/tournaments", "/leaderboards", "/account",
                 "/notifications", "/api/docs/"]:
        page = client_for(alice).get(path).content.decode()
        assert "<script>" not in page and "<style" not in page, path
        assert " style=" not in page and " onload=" not in page and " onclick=" not in page, path


def test_the_api_docs_start_up_script_is_a_file():
    answer = Client().get("/api/docs/?script=")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("application/javascript")


def test_a_report_is_logged_with_its_fields_and_answered_204(caplog):
    with caplog.at_level(logging.WARNING, logger="server.csp"):
        answer = Client(REMOTE_ADDR=_fresh_address()).post("/csp-report", json.dumps(REPORT),
                                                          content_type="application/csp-report")
    assert answer.status_code == 204
    (line,) = [record.getMessage() for record in caplog.records if record.name == "server.csp"]
    logged = json.loads(line.removeprefix("content security policy violation: "))
    assert logged["blocked-uri"] == "inline" and logged["violated-directive"] == "script-src-elem"
    assert "original-policy" not in logged  # only the fields that find the page and the rule


def test_a_long_field_is_cut_before_it_reaches_the_log(caplog):
    report = {"csp-report": {**REPORT["csp-report"], "blocked-uri": "x" * 5000}}
    with caplog.at_level(logging.WARNING, logger="server.csp"):
        Client(REMOTE_ADDR=_fresh_address()).post("/csp-report", json.dumps(report), content_type="application/csp-report")
    (line,) = [record.getMessage() for record in caplog.records if record.name == "server.csp"]
    assert len(line) < 1000


@pytest.mark.parametrize("body", ["not json", "[]", json.dumps({"csp-report": "text"}), json.dumps({"other": {}})])
def test_a_body_that_is_not_a_report_is_refused_with_400_and_logs_nothing(body, caplog):
    with caplog.at_level(logging.WARNING, logger="server.csp"):
        answer = Client(REMOTE_ADDR=_fresh_address()).post("/csp-report", body, content_type="application/csp-report")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "malformed_json"
    assert not [record for record in caplog.records if record.name == "server.csp"]


def test_reading_the_report_endpoint_is_not_allowed():
    assert Client().get("/csp-report").status_code == 405


@pytest.mark.parametrize("persona", ["anonymous", "alice", "staff"])
def test_anyone_may_report_as_browsers_send_reports_without_a_session_or_token(persona, request):
    """Reports come from any page, signed in or not, with no CSRF token; a report changes nothing
    but a log line, so no persona is refused."""
    user = None if persona == "anonymous" else request.getfixturevalue(persona)
    client = client_for(user)
    client.handler.enforce_csrf_checks = True
    answer = client.post("/csp-report", json.dumps(REPORT), content_type="application/csp-report",
                         REMOTE_ADDR=_fresh_address())
    assert answer.status_code == 204


def test_reports_are_throttled_per_address(monkeypatch):
    monkeypatch.setattr(ScopedThrottle, "THROTTLE_RATES", {"csp_report": "3/hour"})
    client = Client(REMOTE_ADDR=_fresh_address())
    answers = [client.post("/csp-report", json.dumps(REPORT), content_type="application/csp-report") for _ in range(4)]
    assert [answer.status_code for answer in answers] == [204, 204, 204, 429]
    assert answers[-1].json()["error"]["code"] == "throttled" and "Retry-After" in answers[-1]


def _fresh_address() -> str:
    """An address no earlier run has counted (throttle counts live in the cache, Redis in CI)."""
    raw = uuid.uuid4().bytes
    return f"10.{raw[0]}.{raw[1]}.{raw[2]}"
