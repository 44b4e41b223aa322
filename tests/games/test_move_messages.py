"""Every refusal an engine can raise has its message in the reader's language (games/move_messages.py).

The codes are read from the engines' source (`ast`), so a code no test provokes is held to the
table too.
"""
from __future__ import annotations

import ast
import inspect

import pytest
from django.utils import translation

from games.engines import ENGINES, IllegalMove
from games.engines import _common as engines_common
from games.move_messages import MOVE_MESSAGES, move_message
from server.errors import CATALOGUE


def raised_codes(source: str) -> set[str]:
    """The code of every `IllegalMove(...)` in `source`, each a literal (a computed one fails)."""
    codes = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "IllegalMove":
            code = node.args[0]
            assert isinstance(code, ast.Constant) and isinstance(code.value, str), ast.unparse(node)
            codes.add(code.value)
    return codes


ENGINE_CODES = sorted(
    {(slug, code) for slug, engine in ENGINES.items() for code in raised_codes(inspect.getsource(inspect.getmodule(engine)))}
)
# The refusals the engines' common base raises for every game (a team's concession in a game without one).
COMMON_CODES = sorted(("*", code) for code in raised_codes(inspect.getsource(engines_common)))


def test_the_engines_raise_refusals_at_all():
    assert {slug for slug, _code in ENGINE_CODES} == set(ENGINES)


@pytest.mark.parametrize(("game", "code"), ENGINE_CODES + COMMON_CODES)
def test_every_code_an_engine_raises_has_a_welsh_message(game, code):
    assert code in MOVE_MESSAGES and code in CATALOGUE
    with translation.override("cy"):
        welsh = str(MOVE_MESSAGES[code])
    with translation.override("en-gb"):
        english = str(MOVE_MESSAGES[code])
    assert welsh != english and welsh.strip()


def test_the_table_holds_no_code_that_no_engine_raises():
    assert set(MOVE_MESSAGES) == {code for _game, code in ENGINE_CODES + COMMON_CODES}


def test_an_english_reader_keeps_the_engines_detail_and_a_welsh_one_gets_the_codes_message():
    refusal = IllegalMove("not_your_turn", "it is seat 1's turn")
    with translation.override("en-gb"):
        assert move_message(refusal) == "it is seat 1's turn"
    with translation.override("cy"):
        assert move_message(refusal) == "Nid eich tro chi yw hi."
