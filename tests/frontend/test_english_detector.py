"""The English detector of the Welsh page tests: it finds English, and lets Welsh through."""
from __future__ import annotations

import pytest

from tests.frontend.english import english_words

WELSH = [
    "Eich tro chi: chwaraewch gerdyn ar un o'r pentyrrau.",
    "Agor bwrdd · Gêm · Seddi · Cloc · Â sgôr · Anffurfiol · Preifat · Botiau, a dechrau ar unwaith",
    "Mae'r twrnamaint yn aros i'r chwaraewyr gofrestru'n bresennol; a'r rownd nesaf am 20:30.",
    "Mewngofnodi · Cofrestru · Cyfrif · Cyfrinair · Enw defnyddiwr · E-bost (dewisol) · Cadw",
    "Enillodd Siân 3 gornest, collodd 2, a chafwyd 1 gornest gyfartal. Dim hysbysiadau eto.",
    "Dydd Iau, 3 Rhagfyr 2026 am 21:05 · Card League · API · English",
    "Does dim byd yn y cyfeiriad hwn. Yn ôl i'r lobi.",
]

ENGLISH = [
    ("Your turn: play a card on one of the piles.",
     {"your", "turn", "play", "card", "on", "one", "of", "the", "piles"}),
    ("Open a table", {"open", "table"}),
    ("Wrong username or password.", {"username", "or", "password"}),
    ("Waiting for players…", {"waiting", "for", "players"}),
    ("Don't leave: the player's seat is kept for 3 minutes.",
     {"don't", "leave", "the", "player's", "seat", "for", "minutes"}),
]


@pytest.mark.parametrize("text", WELSH)
def test_welsh_passes(text: str):
    assert english_words(text) == []


@pytest.mark.parametrize(("text", "expected"), ENGLISH)
def test_english_is_found(text: str, expected: set[str]):
    found = {word.casefold() for word in english_words(text)}
    assert expected <= found


def test_each_word_once_as_written():
    assert english_words("The table, the TABLE and the Table.") == ["The", "table", "and"]


def test_names_and_phrases_can_be_allowed():
    text = "Card League · Bot Ten Player joined the table"
    assert english_words(text) == ["Ten", "Player", "joined", "the", "table"]
    assert english_words(text, allowed={"Bot Ten Player"}) == ["joined", "the", "table"]
    assert english_words("Welcome, Table", allowed={"table"}) == ["Welcome"]


def test_compounds_count_when_every_part_is_english():
    assert english_words("move-by-move, hash-chained") == ["move-by-move", "hash-chained"]
    assert english_words("is-deitl, e-bost") == []
