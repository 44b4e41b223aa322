"""The site in Welsh, as a Welsh reader meets it: signing up, the lobby, opening a table, the
account page and its language switcher (remembered on the account across logging out and in),
notifications, the profile with its matches' dates, a refused log-in and the 404 page, with no
English on screen at any step (tests/frontend/english.py) and a Welsh month on the profile."""
from __future__ import annotations

import re

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, needs_chromium, unique
from tests.frontend.english import english_words

pytestmark = [pytest.mark.browser, needs_chromium]

WELSH = {"Accept-Language": "cy"}
ENGLISH = {"Accept-Language": "en-GB"}
WELSH_MONTHS = ("Ionawr", "Chwefror", "Mawrth", "Ebrill", "Mai", "Mehefin", "Gorffennaf", "Awst", "Medi",
                "Hydref", "Tachwedd", "Rhagfyr")
ENGLISH_MONTHS = ("January", "February", "March", "April", "June", "July", "August", "September", "October",
                  "November", "December")

# What a reader sees: the text, the page's title, and the words in attributes read aloud or shown
# on hover, of the elements on screen.
_SHOWN_TEXT = """() => {
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const attributes = [...document.querySelectorAll("[title], [aria-label], [placeholder], img[alt]")]
    .filter(shown).flatMap((el) => ["title", "aria-label", "placeholder", "alt"].map((a) => el.getAttribute(a) || ""));
  return [document.title, document.body.innerText, ...attributes].join("\\n");
}"""


def _tournament_names(page) -> list[str]:
    """Every tournament's name (other tests' tournaments show in the lobby): names, not English."""
    names, url = [], f"{page.url.split('/', 3)[0]}//{page.url.split('/', 3)[2]}/api/tournaments?limit=100"
    while url:
        answer = httpx.get(url).json()
        names += [tournament["name"] for tournament in answer["results"]]
        url = answer["next"]
    return sorted(names, key=len, reverse=True)  # "Open Swiss" goes before "Open"


def _no_english(page, allowed: set[str]) -> str:
    text = page.evaluate(_SHOWN_TEXT)
    names_out = text
    for name in _tournament_names(page):
        names_out = names_out.replace(name, "")
    assert english_words(names_out, allowed) == [], f"English on {page.url}:\n{text}"
    return text


def _log_in(page, username: str, *, username_label: str, password_label: str, button: str) -> None:
    page.goto("/login")
    page.get_by_label(username_label, exact=True).fill(username)
    page.get_by_label(password_label, exact=True).fill(PASSWORD)
    page.get_by_role("button", name=button, exact=True).click()
    page.wait_for_selector(".nav-user .user-link")


def _log_out(page) -> None:
    page.locator(".nav-user form button[type=submit]").click()
    page.wait_for_selector(".nav-user a[href^='/login']")


def _switch_language(page, code: str) -> None:
    page.select_option("#language-choice", code)
    page.locator(".language-switcher button[type=submit]").click()
    page.wait_for_function("(code) => document.documentElement.lang === code", arg=code)


def test_a_welsh_reader_meets_no_english(pages, live_server_url):
    games = httpx.get(f"{live_server_url}/api/games").json()
    games = games["results"] if isinstance(games, dict) else games
    username = unique("sian")
    # People's and bots' names are names in every language.
    allowed = {username, *(bot for game in games for bot in game["bots"])}

    page = pages.open()
    page.context.set_extra_http_headers(WELSH)

    # Signing up, in Welsh.
    page.goto("/signup")
    assert page.evaluate("document.documentElement.lang") == "cy"
    _no_english(page, allowed)
    page.get_by_label("Enw defnyddiwr", exact=True).fill(username)
    page.get_by_label("Cyfrinair", exact=True).fill(PASSWORD)
    pages.screenshot(page, "signup")
    page.get_by_role("button", name="Creu cyfrif").click()
    page.wait_for_url("**/")
    page.wait_for_selector("#lobby-tables[aria-busy=false]")
    assert "Croeso" in page.locator("#flash").inner_text()
    _no_english(page, allowed)
    pages.screenshot(page, "lobby")

    # Opening a table from the lobby's form: the first game, bots in the other seats.
    page.select_option("#create-clock", "300")
    page.get_by_role("button", name="Agor y bwrdd").click()
    page.wait_for_url(re.compile(r"/tables/\d+$"))
    page.goto("/")
    page.wait_for_selector("#lobby-tables .table-row")
    lobby = _no_english(page, allowed)
    assert "5 munud y symudiad" in lobby
    pages.screenshot(page, "lobby-with-table")

    # The sign-up kept the language it was read in: logged in from an English browser with no
    # cookie, the account is still Welsh.
    _log_out(page)
    page.context.clear_cookies()
    page.context.set_extra_http_headers(ENGLISH)
    _log_in(page, username, username_label="Username", password_label="Password", button="Log in")
    assert page.evaluate("document.documentElement.lang") == "cy"

    # The account page, then its switcher: English, remembered on the account.
    page.goto("/account")
    _no_english(page, allowed)
    pages.screenshot(page, "account")
    _switch_language(page, "en-gb")
    assert page.get_by_role("heading", name="Your account", exact=True).is_visible()
    _log_out(page)
    page.context.clear_cookies()
    page.context.set_extra_http_headers(WELSH)
    _log_in(page, username, username_label="Enw defnyddiwr", password_label="Cyfrinair", button="Mewngofnodi")
    assert page.evaluate("document.documentElement.lang") == "en-gb"
    page.goto("/account")
    _switch_language(page, "cy")
    assert page.get_by_role("heading", name="Eich cyfrif", exact=True).is_visible()
    _no_english(page, allowed)

    page.goto("/notifications")
    page.wait_for_selector("#notification-empty:not([hidden]), #notification-list li")
    _no_english(page, allowed)
    pages.screenshot(page, "notifications")

    # The profile: the table just opened, with its date in Welsh.
    page.goto(f"/players/{username}")
    page.wait_for_selector("#history :is(figure, p)")
    profile = _no_english(page, allowed)
    when = page.locator("#recent time").first.inner_text()
    assert any(month in when for month in WELSH_MONTHS), when
    assert not any(month in profile for month in ENGLISH_MONTHS)
    pages.screenshot(page, "profile")

    # A wrong password is refused in Welsh.
    _log_out(page)
    page.goto("/login")
    page.get_by_label("Enw defnyddiwr", exact=True).fill(username)
    page.get_by_label("Cyfrinair", exact=True).fill("not the password")
    page.get_by_role("button", name="Mewngofnodi", exact=True).click()
    assert page.locator(".form-errors").inner_text().strip() == "Enw defnyddiwr neu gyfrinair anghywir."
    _no_english(page, allowed)
    pages.screenshot(page, "wrong-password")

    # The 404 page (a page of its own: its status is no console error of the site's).
    missing = page.context.new_page()
    answer = missing.goto("/no-such-page")
    assert answer.status == 404
    assert missing.get_by_role("heading", name="Heb ei ganfod").is_visible()
    _no_english(missing, allowed)
    pages.screenshot(missing, "not-found")
