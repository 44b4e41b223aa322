"""The tournament page's data and links: reasons in the reader's language (issue #43 item 7; a
decision's stored `why` is English, so a Welsh reader's page is given each rule's sentence in Welsh,
"Pam: The player checked in. (rheol check_in.checked_in)" before) and the pairings file (item 9)."""
from __future__ import annotations

import pytest
from django.test import Client

from tests.frontend.test_board_pages import page_data
from tests.tournaments.builders import make_tournament
from tournaments.selectors import RULE_SENTENCES

pytestmark = pytest.mark.django_db


def test_a_welsh_reader_is_given_every_rules_sentence_in_welsh(alice):
    tournament = make_tournament(alice)
    html = Client(headers={"Accept-Language": "cy"}).get(f"/tournaments/{tournament.pk}").content.decode()
    sentences = page_data(html, "tournament-data")["rule_sentences"]
    assert set(sentences) == set(RULE_SENTENCES)
    assert sentences["check_in.checked_in"] == "Cofrestrodd y chwaraewr yn bresennol."


def test_an_english_reader_reads_the_stored_reason_with_its_details(alice):
    tournament = make_tournament(alice)
    html = Client(headers={"Accept-Language": "en-GB"}).get(f"/tournaments/{tournament.pk}").content.decode()
    assert page_data(html, "tournament-data")["rule_sentences"] == {}


def test_the_page_links_the_pairings_file_anyone_may_check(alice):
    """Issue #43 item 9: organisers could not find the export (API only)."""
    tournament = make_tournament(alice)
    html = Client().get(f"/tournaments/{tournament.pk}").content.decode()
    assert f'<a href="/api/tournaments/{tournament.pk}/export" class="small" download id="t-export">' in html
    assert Client().get(f"/api/tournaments/{tournament.pk}/export").status_code == 200
