"""The games' rules pages (/rules, /rules/<game>) in English and in Welsh, and the rules link on
every table (Django's test client: the pages' markup).

The key facts asserted below are taken from each game's specification (the engines' rules
pages); both languages must state them.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client

from frontend.rulebook import RULES_DIR, RULES_LANGUAGES
from games.services import match_create
from tests.frontend.english import english_words

pytestmark = pytest.mark.django_db

GAMES = ("ten", "the-game", "sequence-stacks", "split")
WELSH = {"HTTP_ACCEPT_LANGUAGE": "cy"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}
# Names a Welsh page may show: the site's name, the API link, the switcher's language names.
ALLOWED = {"Card League", "API", "English"}

# Per game: numbers both languages state, then words only one language uses for the same thing.
KEY_FACTS = {
    # 2 to 5 players, 129 cards (114 with 3 players, 99 with 2), 18 wilds, 27 currency cards,
    # bust at 11, at most 10 currency tokens, a full run 1 to 9 scores 10, bust tokens worth 3.
    "ten": (("129", "114", "99", "18", "27", "11", "10", "3"),
            {"en": ("bust", "auction", "market"), "cy": ("chwalu", "arwerth", "farchnad")}),
    # 98 cards 2 to 99, piles from 1 up and from 100 down, hands of 8/7/6, the backwards trick by
    # exactly 10 (16 takes 6, 87 takes 97), at least 2 cards a turn (1 once the pile is empty).
    "the-game": (("98", "99", "100", "8", "7", "6", "10", "16", "87", "97"),
                 {"en": ("backwards trick", "going up", "going down"), "cy": ("tric am yn ôl", "i fyny", "i lawr")}),
    # 2 to 6 players, 120 cards (112 with 2), 5-card hands, stacks 1 to 5, 5 chips with 2 of each
    # colour, 20 chips a colour, 16 action cards, 100 turns a player at most.
    "sequence-stacks": (("120", "112", "16", "20", "100", "5", "2"),
                        {"en": ("Block", "Steal-a-Chip", "set aside"), "cy": ("Blocio", "Dwyn Sglodyn", "o'r neilltu")}),
    # 104 half-cards, 9 dealt, 3 rounds, rows worth 21 full (×2, ×3) and negative rows 78 full.
    "split": (("104", "52", "9", "3", "21", "78", "12"),
              {"en": ("perfect", "strong", "weak", "upgrade"), "cy": ("perffaith", "cryf", "gwan", "uwchraddio")}),
}


class _Text(HTMLParser):
    """A page's visible text, and its article's, without scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.article: list[str] = []
        self._skip = 0
        self._in_article = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("script", "style", "title")
        self._in_article += tag == "article"

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style", "title")
        self._in_article -= tag == "article"

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)
            if self._in_article:
                self.article.append(data)


def texts(html: str) -> tuple[str, str]:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.text), " ".join(parser.article)


def rules_page(game: str, headers: dict, query: str = "") -> str:
    answer = Client().get(f"/rules/{game}{query}", **headers)
    assert answer.status_code == 200
    return answer.content.decode()


def numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+", text))


@pytest.mark.parametrize("game", GAMES)
def test_each_game_s_rules_state_the_specification_s_key_facts_in_both_languages(game):
    facts, words = KEY_FACTS[game]
    for language, headers in (("en", ENGLISH), ("cy", WELSH)):
        html = rules_page(game, headers)
        assert f'<article class="rules" lang="{language}">' in html
        _, article = texts(html)
        assert set(facts) <= numbers(article), (language, set(facts) - numbers(article))
        for word in words[language]:
            assert word in article, (language, word)


@pytest.mark.parametrize("game", GAMES)
def test_both_languages_give_the_same_numbers_and_the_same_sections(game):
    """So that the two files cannot drift apart silently: the same headings at each level, the
    same number of list items, and the same numbers."""
    english, welsh = ((RULES_DIR / f"{game}.{language}.md").read_text() for language in RULES_LANGUAGES)
    for pattern in (r"^# ", r"^## ", r"^### ", r"^\s*(?:[-*]|\d+\.) "):
        assert len(re.findall(pattern, english, re.M)) == len(re.findall(pattern, welsh, re.M)), pattern
    assert numbers(english) == numbers(welsh)


@pytest.mark.parametrize("game", GAMES)
def test_a_welsh_reader_meets_no_english_on_a_rules_page(game):
    text, _ = texts(rules_page(game, WELSH))
    assert english_words(text, ALLOWED) == []
    text, _ = texts(Client().get("/rules", **WELSH).content.decode())
    assert english_words(text, ALLOWED) == []


def test_the_rules_index_lists_the_four_games_in_the_reader_s_language():
    english = Client().get("/rules", **ENGLISH).content.decode()
    welsh = Client().get("/rules", **WELSH).content.decode()
    for game, title_en, title_cy in (("ten", "Ten", "Deg"), ("the-game", "The Game", "Y Gêm"),
                                     ("sequence-stacks", "Sequence Stacks", "Pentyrrau Dilyniant"),
                                     ("split", "Split", "Hollti")):
        assert f'<a href="/rules/{game}">{title_en}</a>' in english
        assert f'<a href="/rules/{game}">{title_cy}</a>' in welsh
    assert "<title>Rules of the games · Card League</title>" in english
    assert "<title>Rheolau'r gemau · Card League</title>" in welsh
    assert '<a href="/rules" aria-current="page">Rheolau</a>' in welsh  # the site's navigation


def test_each_page_links_the_other_language_s_version():
    welsh = rules_page("split", WELSH)
    assert "<h1>Hollti</h1>" in welsh and '<a href="/rules/split" aria-current="page">Hollti</a>' in welsh
    assert re.search(r'<a href="/rules/split\?lang=en" hreflang="en" id="rules-other-language">\s*'
                     r'Darllenwch y rheolau hyn yn Saesneg</a>', welsh)
    english_for_a_welsh_reader = rules_page("split", WELSH, "?lang=en")
    assert '<article class="rules" lang="en">' in english_for_a_welsh_reader
    assert "<h1>Split</h1>" in english_for_a_welsh_reader
    assert 'Darllenwch y rheolau hyn yn Gymraeg' in english_for_a_welsh_reader  # the page around stays Welsh
    english = rules_page("split", ENGLISH)
    assert 'href="/rules/split?lang=cy" hreflang="cy"' in english and "Read these rules in Welsh" in english
    assert '<article class="rules" lang="en">' in rules_page("split", ENGLISH, "?lang=fr")  # unknown: the reader's


def test_an_unknown_game_has_no_rules_page():
    assert Client().get("/rules/chess").status_code == 404
    assert Client().get("/rules/chess", **WELSH).status_code == 404


@pytest.mark.parametrize("game", GAMES)
def test_every_table_and_its_replay_link_the_game_s_rules_in_a_new_tab(alice, game):
    match = match_create(user=alice, game=game, players=2, rated=False)
    link = f'<a href="/rules/{game}" class="small" target="_blank" rel="noopener" id="rules-link">'
    for path in (f"/tables/{match.pk}", f"/tables/{match.pk}/replay"):
        assert f"{link}Rules</a>" in Client().get(path, **ENGLISH).content.decode()
        assert f"{link}Rheolau</a>" in Client().get(path, **WELSH).content.decode()
