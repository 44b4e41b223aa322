"""Sign-up and login throttles: an address is the socket's peer unless a trusted proxy vouches
for another, and logins are counted per account tried as well, on the API, the login page and
the admin's login page."""
from __future__ import annotations

import uuid

import pytest
from django.test import Client
from rest_framework.test import APIClient

from server.limits import ScopedThrottle, client_address
from tests.conftest import make_user
from tests.hardening.test_limits import fresh_address
from tests.server.test_production_shape import settings_in_a_fresh_process

pytestmark = pytest.mark.django_db

PASSWORD = "a long enough passphrase"


@pytest.fixture
def low_rates(monkeypatch):
    # Per hour, so that the few requests of a test rarely straddle a window's end.
    rates = {"signup": "3/hour", "login": "3/hour", "login_account": "3/hour", "moves": "5/hour"}
    monkeypatch.setattr(ScopedThrottle, "THROTTLE_RATES", rates)


@pytest.fixture
def address_rates(monkeypatch):
    """Only the address throttles are low: what a test reaches is the address's limit."""
    rates = {"signup": "3/hour", "login": "3/hour", "login_account": "1000/hour", "moves": "5/hour"}
    monkeypatch.setattr(ScopedThrottle, "THROTTLE_RATES", rates)


def unique(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def login(client, username: str, password: str = "wrong", **extra):
    return client.post("/api/auth/login", {"username": username, "password": password}, format="json", **extra)


def test_rotating_x_forwarded_for_does_not_escape_the_sign_up_throttle(address_rates):
    """Regression: the throttle keyed on X-Forwarded-For, which any client writes: a new value on
    every request was a new allowance, so sign-ups were unlimited."""
    client = APIClient(REMOTE_ADDR=fresh_address())
    answers = [client.post("/api/auth/register", {"username": unique("spam"), "password": PASSWORD}, format="json",
                           HTTP_X_FORWARDED_FOR=fresh_address()) for _ in range(4)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    assert answers[-1].json()["error"]["code"] == "throttled"


def test_rotating_x_forwarded_for_does_not_escape_the_login_throttle(address_rates):
    """Regression: a new X-Forwarded-For per request gave unlimited password guesses."""
    client = APIClient(REMOTE_ADDR=fresh_address())
    codes = [login(client, unique("victim"), HTTP_X_FORWARDED_FOR=fresh_address()).status_code for _ in range(4)]
    assert codes == [400, 400, 400, 429]


def test_the_login_throttle_holds_per_account_across_addresses(low_rates):
    """Regression: logins were counted per address only, so a guesser with many addresses had
    unlimited guesses at one account. Spellings that log into the same account count together."""
    victim = make_user(unique("victim"))
    spellings = [victim.username, f"  {victim.username} ", victim.username.upper()]
    answers = [login(APIClient(REMOTE_ADDR=fresh_address()), name) for name in spellings]
    assert [a.status_code for a in answers] == [400, 400, 400]
    throttled = login(APIClient(REMOTE_ADDR=fresh_address()), victim.username, PASSWORD)  # even the right password
    assert throttled.status_code == 429 and "Retry-After" in throttled
    error = throttled.json()["error"]
    assert error["code"] == "throttled" and "seconds" in error["message"]
    # Another account is not held back by it.
    bystander = make_user(unique("bystander"))
    assert login(APIClient(REMOTE_ADDR=fresh_address()), bystander.username, "correct horse battery").status_code == 200


def test_the_login_page_is_throttled_per_account_and_not_by_x_forwarded_for(low_rates):
    """Regression: the login page counted X-Forwarded-For as DRF did, and per address only."""
    victim = make_user(unique("victim"))
    peer = fresh_address()
    codes = [Client(REMOTE_ADDR=peer).post("/login", {"username": unique("nobody"), "password": "x"},
                                           HTTP_X_FORWARDED_FOR=fresh_address()).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    codes = [Client(REMOTE_ADDR=fresh_address()).post("/login", {"username": victim.username, "password": "x"}).status_code
             for _ in range(4)]
    assert codes == [200, 200, 200, 429]


def test_the_admin_login_is_throttled_per_address_and_per_account(low_rates):
    """Regression: `/admin/login/` checked staff passwords with no limit at all."""
    staff = make_user(unique("staff"), staff=True)
    peer = fresh_address()
    answers = [Client(REMOTE_ADDR=peer).post("/admin/login/", {"username": unique("nobody"), "password": "x"},
                                             HTTP_X_FORWARDED_FOR=fresh_address()) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429]  # the admin shows its form again: 200
    assert answers[-1].json()["error"]["code"] == "throttled" and "Retry-After" in answers[-1]
    answers = [Client(REMOTE_ADDR=fresh_address()).post("/admin/login/", {"username": staff.username, "password": "x"})
               for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    right = Client(REMOTE_ADDR=fresh_address()).post(
        "/admin/login/", {"username": staff.username, "password": "correct horse battery"}
    )
    assert right.status_code == 429
    # The admin login and the API count the same account together.
    assert login(APIClient(REMOTE_ADDR=fresh_address()), staff.username).status_code == 429


def test_the_admin_login_still_logs_staff_in_and_only_posts_are_counted(low_rates):
    staff = make_user(unique("staff"), staff=True)
    browser = Client(REMOTE_ADDR=fresh_address())
    for _ in range(5):
        assert browser.get("/admin/login/").status_code == 200
    answer = browser.post("/admin/login/", {"username": staff.username, "password": "correct horse battery", "next": "/admin/"})
    assert answer.status_code == 302 and answer["Location"] == "/admin/"
    assert browser.get("/admin/").status_code == 200


def test_a_trusted_proxys_forwarded_address_is_honoured(address_rates, settings):
    """Behind a trusted proxy each client counts as the address the proxy heard from (the
    right-most one it is not itself); what the client wrote to the left of it changes nothing."""
    settings.TRUSTED_PROXIES = ["10.250.0.0/16", "192.0.2.1"]
    first, second = fresh_address(), fresh_address()
    # Two proxies deep: the client wrote a spoofed entry, the edge and inner proxies appended theirs.
    via_proxy = APIClient(REMOTE_ADDR="10.250.0.7")
    codes = [login(via_proxy, unique("victim"), HTTP_X_FORWARDED_FOR=f"{fresh_address()}, {first}, 192.0.2.1").status_code
             for _ in range(4)]
    assert codes == [400, 400, 400, 429]
    assert login(via_proxy, unique("victim"), HTTP_X_FORWARDED_FOR=second).status_code == 400  # another client


def test_client_addresses_as_the_throttles_count_them(settings):
    settings.TRUSTED_PROXIES = ["10.250.0.0/16"]
    assert client_address({"REMOTE_ADDR": "203.0.113.9", "HTTP_X_FORWARDED_FOR": "198.51.100.1"}) == "203.0.113.9"
    proxied = {"REMOTE_ADDR": "10.250.1.1", "HTTP_X_FORWARDED_FOR": "1.1.1.1, 198.51.100.1:4711, 10.250.2.2"}
    assert client_address(proxied) == "198.51.100.1"  # a port written by a proxy is not a new address
    assert client_address({"REMOTE_ADDR": "10.250.1.1"}) == "10.250.1.1"  # nothing forwarded: the proxy itself
    assert client_address({"REMOTE_ADDR": "10.250.1.1", "HTTP_X_FORWARDED_FOR": "garbage"}) == "10.250.1.1"
    # An IPv6 client holds a whole /64: a fresh address in it is not a fresh allowance.
    assert client_address({"REMOTE_ADDR": "2001:db8:1:2::5"}) == client_address({"REMOTE_ADDR": "2001:db8:1:2:ffff::9"})
    assert client_address({"REMOTE_ADDR": "::ffff:198.51.100.7"}) == "198.51.100.7"


def test_an_ipv6_client_cannot_rotate_addresses_within_its_64(address_rates):
    """Regression: each IPv6 address counted alone, and a home connection has 2**64 of them."""
    first, second = uuid.uuid4().bytes[:2]
    prefix = f"2001:db8:{first:x}:{second:x}"
    codes = [login(APIClient(REMOTE_ADDR=f"{prefix}::{i + 1:x}"), unique("victim")).status_code for i in range(4)]
    assert codes == [400, 400, 400, 429]


@pytest.mark.processes
def test_a_bad_trusted_proxies_setting_stops_the_server():
    done = settings_in_a_fresh_process({"SECRET_KEY": "x" * 50, "TRUSTED_PROXIES": "*"}, "settings.TRUSTED_PROXIES")
    assert done.returncode != 0 and "TRUSTED_PROXIES" in done.stderr
    done = settings_in_a_fresh_process(
        {"SECRET_KEY": "x" * 50, "TRUSTED_PROXIES": "10.0.0.0/8, 192.0.2.1"}, "settings.TRUSTED_PROXIES"
    )
    assert done.stdout.strip() == "['10.0.0.0/8', '192.0.2.1']"
