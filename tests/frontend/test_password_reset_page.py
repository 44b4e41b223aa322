"""A forgotten password, end to end in the browser with the console e-mail backend: ask for the
link on the page, read the e-mail in the server's log, set a new password, log in with it; then
the account page on a phone, where an avatar is picked."""
from __future__ import annotations

import re
import time

import pytest

from tests.frontend.conftest import PASSWORD, SERVER_LOG, needs_chromium, unique

pytestmark = [pytest.mark.browser, needs_chromium]

NEW_PASSWORD = "another long passphrase"


def link_from_server_log(email: str, timeout: float = 20) -> str:
    """The reset link of the newest e-mail to `email` that the server printed."""
    deadline = time.monotonic() + timeout
    while True:
        log = SERVER_LOG.read_text(errors="replace")
        start = log.rfind(f"To: {email}")
        found = re.search(r"https?://[^/\s]+(/account/reset/\S+)", log[start:]) if start >= 0 else None
        if found:
            # Printed as the mail it is, not as a log record per line (it was a WARNING each).
            line = log[log.rfind("\n", 0, start) + 1:log.find("\n", start)]
            assert line == f"To: {email}", line
            return found.group(1)
        assert time.monotonic() < deadline, f"no e-mail to {email} in the server's log"
        time.sleep(0.2)


def test_a_forgotten_password_is_reset_by_the_emailed_link(pages):
    username = unique("rita")
    email = f"{username}@example.org"
    page = pages.open()
    page.goto("/signup")
    page.get_by_label("Username").fill(username)
    page.get_by_label("E-mail").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.wait_for_selector(".nav-user .user-link")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_selector(".nav-user >> text=Log in")

    page.goto("/login")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill(email)
    page.get_by_role("button", name="Send the link").click()
    page.wait_for_selector("#reset-sent")
    pages.screenshot(page, "sent")

    link = link_from_server_log(email)
    page.goto(link)
    page.get_by_label("New password", exact=True).fill(NEW_PASSWORD)
    page.get_by_label("New password confirmation").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Set the password").click()
    page.wait_for_selector("#reset-done")

    page.goto("/login")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(NEW_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_selector(".nav-user .user-link")
    page.get_by_role("link", name="Account").click()
    page.wait_for_selector("#account-password")
    pages.screenshot(page, "account")

    page.goto(link)  # spent
    page.wait_for_selector("#reset-invalid")

    phone = pages.open(width=390, height=800, mobile=True)
    phone.goto("/login")
    phone.get_by_label("Username").fill(username)
    phone.get_by_label("Password").fill(NEW_PASSWORD)
    phone.get_by_role("button", name="Log in").click()
    phone.wait_for_selector(".nav-user .user-link")
    phone.goto("/account")
    phone.wait_for_selector("#account-avatar img")
    assert phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    pages.screenshot(phone, "account-phone")
    phone.get_by_role("radio").nth(3).check()
    phone.get_by_role("button", name="Use this avatar").click()
    phone.wait_for_selector(".flash >> text=Your avatar is saved")
    assert phone.get_attribute(".nav-user .user-link img", "src").endswith(".svg?v=3")
