"""Issue #39, finding 3, in the browser: an invitation's notification carries a "Mute sender"
button; pressing it mutes the sender (the account page then lists them) and says so."""
from __future__ import annotations

import pytest

from tests.frontend.conftest import needs_chromium, sign_up, unique

pytestmark = [pytest.mark.browser, needs_chromium]

_INVITE = """async (invitee) => {
  const csrf = decodeURIComponent(document.cookie.match(/(?:^|;\\s*)csrftoken=([^;]+)/)[1]);
  const send = (path, body) => fetch(path, {
    method: "POST", headers: {"Content-Type": "application/json", "X-CSRFToken": csrf}, body: JSON.stringify(body),
  }).then((answer) => answer.json());
  const table = await send("/api/matches", {game: "ten", players: 3, rated: false});
  return (await send(`/api/matches/${table.id}/invitations`, {username: invitee})).url;
}"""


def test_an_invitation_is_muted_from_its_notification(pages):
    sender, invitee = unique("sender"), unique("invitee")
    theirs = pages.open()
    sign_up(theirs, sender)
    mine = pages.open(width=390, height=844, mobile=True)
    sign_up(mine, invitee)
    assert theirs.evaluate(_INVITE, invitee).startswith("/invite/")
    mine.goto("/notifications")
    button = mine.get_by_role("button", name=f"Mute {sender}: their invitations will not reach you")
    button.wait_for()
    pages.screenshot(mine, "invitation")
    button.click()
    mine.get_by_role("status").filter(has_text=f"{sender} is muted").wait_for()
    pages.screenshot(mine, "muted")
    mine.goto("/account#account-invitations")
    assert mine.locator("#account-invitations .muted-senders").inner_text().count(sender) == 1
    pages.screenshot(mine, "account")
