"""Every environment variable is declared once (server/environment.py), read only through that
declaration, documented from it, and a wrong value stops the process naming the variable."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from server import environment, settings_doc
from server.environment import VARIABLES, Computed, Variable

ROOT = Path(__file__).resolve().parents[2]
# The project's own code: what runs in the server, its workers and commands.
PACKAGES = ("server", "accounts", "games", "tournaments", "ratings", "leaguelog", "chat", "notifications", "frontend")


def _read(variable: Variable) -> object:
    """The variable through the reader, a Computed default standing in as None."""
    return environment.read(variable.name, None) if isinstance(variable.default, Computed) else environment.read(variable.name)


def test_the_readme_tables_and_env_example_are_what_the_declarations_give():
    assert (ROOT / ".env.example").read_text() == settings_doc.env_example(), "run `make settings-doc`"
    readme = (ROOT / "README.md").read_text()
    assert settings_doc.readme_with_tables(readme) == readme, "run `make settings-doc`"


def test_each_variable_is_declared_once():
    names = [variable.name for variable in VARIABLES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("variable", [v for v in VARIABLES if v.kind.refused is not None], ids=lambda v: v.name)
def test_a_wrong_value_is_refused_naming_the_variable_and_what_it_expects(variable, monkeypatch):
    monkeypatch.setenv(variable.name, variable.kind.refused)
    with pytest.raises(ImproperlyConfigured) as refused:
        _read(variable)
    message = str(refused.value)
    assert message.startswith(f"{variable.name}: expected {variable.kind.expected}, got ")
    if variable.secret:  # a URL may carry a password: neither the message nor its cause shows it
        assert variable.kind.refused not in message and refused.value.__cause__ is None
    else:
        assert repr(variable.kind.refused) in message


@pytest.mark.parametrize("variable", VARIABLES, ids=lambda v: v.name)
def test_the_example_and_the_default_written_out_are_values_the_variable_takes(variable, monkeypatch):
    """.env.example's values, set or commented, parse; a written-out default reads back as the default."""
    if variable.example:
        monkeypatch.setenv(variable.name, variable.example)
        _read(variable)
    raw_default = settings_doc._raw_default(variable)
    if raw_default:
        monkeypatch.setenv(variable.name, raw_default)
        expected = list(variable.default) if isinstance(variable.default, tuple) else variable.default
        assert _read(variable) == expected


@pytest.mark.parametrize("variable", VARIABLES, ids=lambda v: v.name)
def test_unset_or_empty_is_the_default(variable, monkeypatch):
    """compose's `${NAME:-}` passes an empty value: it means the default, never a parse error."""
    expected = list(variable.default) if isinstance(variable.default, tuple) else variable.default
    if isinstance(variable.default, Computed):
        expected = None
    monkeypatch.delenv(variable.name, raising=False)
    assert _read(variable) == expected
    monkeypatch.setenv(variable.name, " ")
    assert _read(variable) == expected


@pytest.mark.parametrize("word", ["1", "TRUE", "Yes", "on", " ON "])
def test_yes_is_any_of_its_words_in_any_case(word, monkeypatch):
    monkeypatch.setenv("DEBUG", word)
    assert environment.read_bool("DEBUG") is True


@pytest.mark.parametrize("word", ["0", "False", "NO", "off"])
def test_no_is_any_of_its_words_in_any_case(word, monkeypatch):
    monkeypatch.setenv("DEBUG", word)
    assert environment.read_bool("DEBUG") is False


@pytest.mark.parametrize("word", ["ture", "y", "2", "enabled"])
def test_a_typo_in_a_yes_no_value_is_refused_not_taken_for_no(word, monkeypatch):
    """Regression: `value in ("1", "true", "yes", "on")` made any typo a silent "no"."""
    monkeypatch.setenv("SECURE_SSL_REDIRECT", word)
    with pytest.raises(ImproperlyConfigured, match="^SECURE_SSL_REDIRECT: expected yes or no"):
        environment.read_bool("SECURE_SSL_REDIRECT")


def test_a_variable_not_declared_cannot_be_read():
    with pytest.raises(LookupError, match="NOT_DECLARED_ANYWHERE is not declared"):
        environment.read_str("NOT_DECLARED_ANYWHERE")


def test_only_a_computed_default_is_given_by_the_settings():
    with pytest.raises(TypeError):
        environment.read_int("HTTP_THREADS", 4)  # declared: 8, in one place
    with pytest.raises(TypeError):
        environment.read_bool("FASTLANE")  # declared as the settings' to work out


def _settings_reads() -> set[str]:
    """The names server/settings.py passes to a `read_*` of server.environment."""
    tree = ast.parse((ROOT / "server" / "settings.py").read_text())
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("read_")
        and node.args and isinstance(node.args[0], ast.Constant)
    }


def test_the_settings_read_every_variable_declared_for_them():
    declared = {variable.name for variable in VARIABLES if variable.read_by == "settings"}
    assert _settings_reads() == declared


# Where the project's code may touch os.environ, and why. Anything else reading it is a
# configuration value read around the declarations.
_ENVIRONMENT_ALLOWED = {
    # The reader itself, and the test settings (they set the suite's defaults before the settings load).
    ("server/environment.py", "*"),
    ("server/settings_test.py", "*"),
    # Which settings module to load: before any setting exists.
    ("manage.py", "os.environ.setdefault"),
    ("server/asgi.py", "os.environ.setdefault"),
    ("server/wsgi.py", "os.environ.setdefault"),
    ("server/celery.py", "os.environ.setdefault"),
    # Processes started with this process's environment: `manage.py serve`'s worker, pg_dump and pg_restore.
    ("games/management/commands/serve.py", "os.environ"),
    ("games/management/commands/serve.py", "os.environ.get"),
    ("leaguelog/backup.py", "os.environ"),
    # prometheus_client's own variable (declared in server/environment.py), read where the metrics
    # are made, before any setting may be loaded.
    ("server/metrics.py", "os.environ.get"),
}


def _environment_touches(path: Path) -> list[tuple[str, int]]:
    """Each `os.environ...` / `os.getenv` / `environ` (imported from os) in a module: (what, line)."""
    tree = ast.parse(path.read_text())
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module == "os" for alias in node.names if alias.name in ("environ", "getenv")}
    touches = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os" \
                and node.attr in ("environ", "getenv", "environb", "putenv"):
            touches.append(("os." + node.attr, node.lineno))
        elif isinstance(node, ast.Name) and node.id in imported:
            touches.append((node.id, node.lineno))
    # `os.environ.get` reads better than `os.environ` in the allow-list: name the attribute used on it.
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "os" and node.value.attr == "environ":
            touches.remove(("os.environ", node.lineno))
            touches.append((f"os.environ.{node.attr}", node.lineno))
    return touches


def test_no_module_reads_the_environment_around_the_declarations():
    files = [ROOT / "manage.py", *(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))]
    found = []
    for path in files:
        relative = path.relative_to(ROOT).as_posix()
        if "/migrations/" in relative:
            continue
        for what, line in _environment_touches(path):
            if (relative, "*") not in _ENVIRONMENT_ALLOWED and (relative, what) not in _ENVIRONMENT_ALLOWED:
                found.append(f"{relative}:{line}: {what}")
    assert found == [], "read these through server/environment.py (declare them there):\n" + "\n".join(found)


# One variable of each kind of value, set wrong, in a process of its own (as an operator starts one).
_WRONG = {
    "DEBUG": "ture",  # yes/no
    "HTTP_THREADS": "eight",  # integer
    "BOT_MOVE_DELAY": "half a second",  # number
    "TRUSTED_PROXIES": "10.0.0.0/8, proxy.example.org",  # list (of networks)
    "SITE_URL": "cards.example.org",  # URL
    "DATABASE_URL": "postgress://cardleague:hunter2@db/cardleague",  # URL with a password
}


@pytest.mark.processes
@pytest.mark.parametrize("name", _WRONG)
def test_a_wrong_value_stops_django_setup_naming_the_variable(name):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "server.settings_test", name: _WRONG[name]}
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    last_line = done.stderr.strip().splitlines()[-1]
    assert last_line.startswith(f"django.core.exceptions.ImproperlyConfigured: {name}: expected "), done.stderr[-2000:]
    assert "hunter2" not in done.stderr
