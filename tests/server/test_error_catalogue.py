"""The error catalogue is the one list of codes: every code the server sends is in it, once,
and every raise site gives it the catalogue's status.

The raise sites are read from the source (`ast`), so a code that no test happens to provoke is
held to the catalogue too.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from server.drf_errors import _DRF_CODES
from server.errors import CATALOGUE, ApplicationError

ROOT = Path(__file__).resolve().parents[2]
# Each call's status, by the name it is called by; None: the code's status is the catalogue's.
RAISERS = {"bad_request": 400, "forbidden": 403, "not_found": 404, "conflict": 409,
           "ApplicationError": None, "error_response": None, "IllegalMove": None}
_CODE = re.compile(r"[a-z][a-z0-9_]*")


def _project_modules() -> list[Path]:
    packages = [p.parent for p in ROOT.glob("*/__init__.py") if p.parent.name not in {"tests", "bench"}]
    return sorted(f for package in packages for f in package.rglob("*.py") if "migrations" not in f.parts)


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _literal(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def catalogue_faults(source: str, where: str) -> list[str]:
    """What in `source` breaks the catalogue: an unknown code, or a known one given another status."""
    faults = []
    tree = ast.parse(source)
    # A subclass of ApplicationError names its code in super().__init__.
    subclass_inits = {
        id(node) for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef)
        and any(isinstance(base, ast.Name) and base.id == "ApplicationError" for base in cls.bases)
        for node in ast.walk(cls) if isinstance(node, ast.Call) and _called_name(node) == "__init__"
    }
    for node in ast.walk(tree):
        found: list[tuple[str | None, int | None]] = []
        if isinstance(node, ast.Call):
            name = _called_name(node)
            if name in RAISERS and node.args:
                found.append((_literal(node.args[0]), RAISERS[name]))
            elif id(node) in subclass_inits and node.args:
                found.append((_literal(node.args[0]), None))
            elif name == "_error":  # a socket's error frame: (id, code, message) or (code, message)
                found += [(code, None) for code in map(_literal, node.args[:2]) if code and _CODE.fullmatch(code)][:1]
        elif isinstance(node, ast.Dict):  # an error body spelled out
            found += [(_literal(value), None) for key, value in zip(node.keys, node.values) if _literal(key) == "code"]
        for code, status in found:
            if code is None:
                continue  # a code passed on (an engine's IllegalMove.code): checked where it is raised
            if code not in CATALOGUE:
                faults.append(f"{where}:{node.lineno}: {code!r} is not in the catalogue")
            elif status is not None and CATALOGUE[code].status != status:
                faults.append(f"{where}:{node.lineno}: {code!r} raised as {status}, catalogued as {CATALOGUE[code].status}")
    return faults


def test_every_code_raised_anywhere_is_catalogued_with_its_one_status():
    faults = [fault for path in _project_modules()
              for fault in catalogue_faults(path.read_text(), str(path.relative_to(ROOT)))]
    assert faults == []


def test_the_check_finds_an_unknown_code_and_a_status_clash():
    source = 'raise conflict("unknown_game", "x")\nraise bad_request("no_such_code", "x")\nraise forbidden("match_running", "x")'
    assert catalogue_faults(source, "f.py") == [
        "f.py:1: 'unknown_game' raised as 409, catalogued as 400",
        "f.py:2: 'no_such_code' is not in the catalogue",
    ]


def test_the_catalogue_names_each_code_once():
    tree = ast.parse((ROOT / "server" / "errors.py").read_text())
    catalogue = next(node.value for node in ast.walk(tree) if isinstance(node, ast.AnnAssign)
                     and getattr(node.target, "id", None) == "CATALOGUE")
    codes = [key.value for key in catalogue.keys]
    assert len(codes) == len(set(codes)) == len(CATALOGUE)
    assert all(entry.meaning.strip() for entry in CATALOGUE.values())


def test_drf_errors_keep_the_status_their_code_has():
    for exception, code in _DRF_CODES.items():
        assert exception.status_code == CATALOGUE[code].status, code


@pytest.mark.parametrize(("code", "status"), [("unknown_game", 400), ("match_running", 403), ("match_not_started", 409)])
def test_the_three_codes_that_had_two_statuses_have_one(code, status):
    assert ApplicationError(code, "m").status == status


def test_an_uncatalogued_code_cannot_be_raised():
    with pytest.raises(KeyError):
        ApplicationError("no_such_code", "m")
