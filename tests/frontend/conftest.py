"""Browser tests: a real server process, Debian's Chromium driven by Playwright, no console errors
and nothing the Content-Security-Policy refuses.

The server is `manage.py serve --no-demo` (uvicorn and a Celery worker), started once for
these tests (package scope: it stops before any other tests run, so its worker never takes
their tasks): on the embedded default (a fresh SQLite file, the filesystem broker) unless
DATABASE_URL is set, and then on a PostgreSQL database of its own and REDIS_URL. Every page a
test opens through `pages` fails the test on any console error, uncaught exception or refusal
of the Content-Security-Policy.
Screenshots go to `test-artifacts/frontend/` at the repository root, to be looked at; with
SCREENSHOTS=no (CI, which keeps no files) none is taken: each cost about 0.3 CPU-seconds of
Chromium (a table page at 1280 px, measured).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psycopg
import pytest
from django.conf import settings

from tests.conftest import broker_emptied

ROOT = Path(__file__).resolve().parents[2]
# Debian's headless shell of Chromium (apt: chromium-headless-shell): the same Blink without the
# full browser's shell around it. A table test's run took 123 CPU-seconds with it against 172
# with `/usr/bin/chromium --headless` (test_table_pages, Split and Ten, measured on this machine).
CHROMIUM = Path("/usr/bin/chromium-headless-shell")
ARTIFACTS = ROOT / "test-artifacts" / "frontend"  # emptied as a run starts (tests/conftest.py)
SCREENSHOTS = os.environ.get("SCREENSHOTS", "yes") != "no"
# The log of this xdist worker's server (each worker starts its own).
SERVER_LOG = ARTIFACTS / f"server-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.log"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
PASSWORD = "a long enough passphrase"
# Every browser test module: `pytestmark = [pytest.mark.browser, needs_chromium]`.
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"browser tests need Debian's Chromium at {CHROMIUM} (apt: chromium-headless-shell)"
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="package")
def server_env(tmp_path_factory) -> dict[str, str]:
    """The environment of the server processes: their own SQLite file, or their own PostgreSQL
    database (named after the test database and this xdist worker, made for the session and
    dropped after it) and the run's Redis."""
    own = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    env = {key: value for key, value in os.environ.items() if key not in own}
    env.update(
        DJANGO_SETTINGS_MODULE="tests.frontend.settings_browser",
        VAR_DIR=str(tmp_path_factory.mktemp("browser-server")),
        BOT_MOVE_DELAY="0",  # a delay makes every bot move an ETA task, which the worker holds back
        INTERRUPT_WINDOW_SECONDS="3",
        TOURNAMENT_SHUFFLE_SECONDS="4",  # the pages send theirs at once; the tests need not wait 20 s
        CLAIM_SEAT_AFTER_SECONDS="1",  # a seat whose person left is claimable at once, not after 2 minutes
        THROTTLE_SIGNUP="1000/hour",  # every test signs people up, and Redis's cache outlives a run
        THROTTLE_LOGIN="1000/minute",
        LOG_LEVEL="WARNING",
        # E-mails (password resets) printed into the server's log, on PostgreSQL too.
        EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend",
    )
    if not os.environ.get("DATABASE_URL"):
        yield env
        return

    database = settings.DATABASES["default"]
    # By the worker, not by the settings' name alone: a worker whose first test is a browser test
    # gets here before its test database is made, while the settings still name the shared one.
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    name = f"test_{database['NAME'].removeprefix('test_').removesuffix(f'_{worker}')}_{worker}_browser"
    _postgres(database, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', f'CREATE DATABASE "{name}"')
    env.update(DATABASE_URL=f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{name}",
               REDIS_URL=settings.REDIS_URL)

    broker_emptied()  # tasks left by other tests name matches of another database
    yield env
    _postgres(database, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _postgres(database: dict, *statements: str) -> None:
    with psycopg.connect(
        host=database["HOST"], port=database["PORT"], user=database["USER"],
        password=database.get("PASSWORD") or None, dbname="postgres", autocommit=True,
    ) as conn:
        for statement in statements:
            conn.execute(statement)


@pytest.fixture(scope="package")
def live_server_url(server_env) -> str:
    """`manage.py serve` on a free port for these tests; its log is kept as an artifact."""
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's Chromium at {CHROMIUM}")
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with open(SERVER_LOG, "w") as log:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--no-demo", "--port", str(port)],
            # The mails' links (password resets) point at this server.
            cwd=ROOT, env={**server_env, "SITE_URL": f"http://127.0.0.1:{port}"}, stdout=log, stderr=subprocess.STDOUT,
        )
        try:
            yield _wait_until_up(f"http://127.0.0.1:{port}", process)
        finally:
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait_until_up(base: str, process: subprocess.Popen) -> str:
    # Migrating a new database and starting the workers takes seconds on idle cores but went past
    # 90 s with other suites beside it: the bound is for a server that hangs, not a slow one.
    deadline = time.monotonic() + 300
    while True:
        try:
            if httpx.get(f"{base}/api/games", timeout=2).status_code == 200:
                return base
        except httpx.TransportError:
            pass
        assert process.poll() is None, SERVER_LOG.read_text()
        assert time.monotonic() < deadline, "the server did not come up"
        time.sleep(0.3)


@pytest.fixture(scope="package")
def browser():
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests need Debian's Chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        # launch() gives every run a fresh, temporary user-data-dir of its own.
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


# axe-core, the accessibility checker: pinned in package.json (`npm ci`, which `make test-all`
# and `.ci/run` run) and given to each page as a script of the site's own origin, so the
# Content-Security-Policy stays on.
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_PATH = "/__axe-core.js"  # served by the browser context itself, never by the site
AXE_SERIOUS = """async () => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) =>
    `${v.id} (${v.impact}): ${v.help}; ` + v.nodes.slice(0, 4).map((n) => n.target.join(" ")).join(" | "));
}"""
# The innermost elements that reach past the screen's right edge, for the failure message.
PAST_EDGE = """(width) => [...document.querySelectorAll("body *")]
  .filter((el) => el.getBoundingClientRect().right > width + 1 && ![...el.children].some(
    (child) => child.getBoundingClientRect().right > width + 1))
  .slice(0, 5).map((el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${el.className} ` +
    `(${Math.round(el.getBoundingClientRect().width)} px: ${el.textContent.trim().slice(0, 40)})`)"""


@pytest.fixture(scope="session")
def axe_script() -> Path:
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail("axe-core is missing: run `npm ci` (make test-all does)")
        pytest.skip("axe-core is not installed: run `npm ci`")
    return AXE


def axe_served(page, axe_script: Path) -> None:
    """axe-core at AXE_PATH for every page of `page`'s browser context."""
    page.context.route(f"**{AXE_PATH}", lambda route: route.fulfill(path=str(axe_script), content_type="application/javascript"))


def axe_findings(page) -> list[str]:
    """The page as it is now: its serious or critical axe-core violations, and whatever reaches past
    the right edge of its screen (axe-core served with `axe_served`)."""
    page.add_script_tag(url=AXE_PATH)
    problems = list(page.evaluate(AXE_SERIOUS))
    width = page.viewport_size["width"]
    wide = page.evaluate("document.documentElement.scrollWidth")
    if wide > width:
        problems.append(f"the page is {wide} px wide at {width} px: {page.evaluate(PAST_EDGE, width)}")
    return problems


# Whatever the Content-Security-Policy refuses on a page becomes a console error, which fails the
# test: every browser test runs with the server's policy on.
_POLICY_REFUSALS_LOGGED = """
document.addEventListener("securitypolicyviolation", (event) =>
  console.error(`Content-Security-Policy refused ${event.effectiveDirective}: ${event.blockedURI || "inline"}`));
"""


class Pages:
    """Opens browser contexts (one per person) whose pages record every console error."""

    def __init__(self, browser, base_url: str, name: str):
        self.browser = browser
        self.base_url = base_url
        self.name = name
        self.contexts = []
        self.errors: list[str] = []
        self.shots = 0

    def open(self, *, width: int = 1280, height: int = 900, mobile: bool = False, permissions=None,
             locale: str | None = None, motion: bool = False):
        """A page as a new person's browser. It asks for reduced motion unless `motion`: the cards'
        animations cost a whole match about a fifth of its CPU (measured: 47 CPU-s against 37 for
        a match of Split), and only the tests of the motion itself look at them."""
        context = self.browser.new_context(
            base_url=self.base_url, viewport={"width": width, "height": height}, is_mobile=mobile,
            has_touch=mobile, permissions=permissions or [], locale=locale,
            reduced_motion="no-preference" if motion else "reduce",
        )
        context.set_default_timeout(30_000)
        self.contexts.append(context)
        page = context.new_page()
        label = f"context {len(self.contexts)}"
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(f"{label}: {msg.text}"))
        page.on("pageerror", lambda error: self.errors.append(f"{label}: uncaught {error}"))
        page.add_init_script(_POLICY_REFUSALS_LOGGED)
        return page

    def screenshot(self, page, what: str) -> None:
        self.shots += 1
        if SCREENSHOTS:
            page.screenshot(path=str(ARTIFACTS / f"{self.name}-{self.shots:02d}-{what}.png"), full_page=True)

    def done(self, page) -> None:
        """Closes a page the test has finished with. A table's page left open goes on drawing
        every move played after it (a whole match, bots' moves included), for nobody."""
        self.contexts.remove(page.context)
        page.context.close()

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser, live_server_url, request):
    name = request.node.originalname.removeprefix("test_")[:32].rstrip("_")
    if hasattr(request.node, "callspec"):
        name += "-" + request.node.callspec.id
    pages = Pages(browser, live_server_url, name)
    yield pages
    pages.close()
    assert not pages.errors, "console errors:\n" + "\n".join(pages.errors)


def sign_up(page, username: str, *, display_name: str = "") -> None:
    """Creates an account through the sign-up page; the browser is then logged in."""
    page.goto("/signup")
    page.get_by_label("Username").fill(username)
    if display_name:
        page.get_by_label("Display name").fill(display_name)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/")
    page.wait_for_selector(".nav-user .user-link")


def log_in(page, username: str) -> None:
    """Logs an existing account in (its password is `PASSWORD`) and opens the home page.

    Through the API, whose session cookie the page's browser context keeps (Playwright's
    `page.request` shares the context's cookies): the form took a page more each time, and has
    tests of its own (the password reset's, The Game table's, the Welsh site's)."""
    answer = page.request.post("/api/auth/login", data={"username": username, "password": PASSWORD})
    assert answer.ok, answer.text()
    page.goto("/")
    page.wait_for_selector(".nav-user .user-link")


def unique(prefix: str) -> str:
    return f"{prefix}{time.time_ns() % 10**9:x}"
