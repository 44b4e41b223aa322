"""The floors of the house hold (`[tool.importlinter]` in pyproject.toml, run by `make lint`), and
an arrow planted up through them is refused: the contracts are not empty words."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ["server", "accounts", "games", "tournaments", "ratings", "chat", "notifications", "leaguelog", "frontend"]


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],  # reads ./pyproject.toml
        cwd=root, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)}, capture_output=True, text=True, timeout=120,
    )


@pytest.fixture(scope="module")
def house(tmp_path_factory) -> Path:
    """A copy of the project's Python (nothing else is read), to plant arrows in."""
    root = tmp_path_factory.mktemp("house")
    shutil.copy(ROOT / "pyproject.toml", root)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__", "static", "templates"))
    return root


def test_the_house_keeps_its_floors(house):
    answer = _lint_imports(house)
    assert answer.returncode == 0, answer.stdout + answer.stderr
    assert "BROKEN" not in answer.stdout


@pytest.mark.parametrize(("module", "planted", "contract"), [
    ("games/state.py", "from chat import selectors", "The games core reaches no app above it"),
    ("games/engines/ten.py", "import ratings.math", "Apps by floor"),
    ("accounts/selectors.py", "from tournaments.models import Entrant", "Accounts read no games or tournaments tables"),
    ("server/errors.py", "from games import models", "Apps by floor"),
    ("games/services/_append.py", "from games.services import invitations", "games.services: rooms by floor"),
    ("tournaments/services/field.py", "from tournaments.services import results", "tournaments.services: rooms by floor"),
])
def test_an_arrow_planted_up_is_refused(house, module, planted, contract):
    path = house / module
    kept = path.read_text()
    try:
        path.write_text(kept + f"\n{planted}  # noqa\n")
        answer = _lint_imports(house)
    finally:
        path.write_text(kept)
    assert answer.returncode != 0
    assert f"{contract} BROKEN" in answer.stdout
    assert module.removesuffix(".py").replace("/", ".") in answer.stdout  # it names the arrow's tail
