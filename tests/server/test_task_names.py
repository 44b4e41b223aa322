"""Tasks are sent by name (`server.celery.send_now`, `send_on_commit`, `games.schedule.FollowUp`),
so no sender imports a task's module. This holds every name sent anywhere to a registered task."""
from __future__ import annotations

import ast
from pathlib import Path

from celery import Task
from django.conf import settings
from django.utils.module_loading import import_string

from server.celery import app

ROOT = Path(__file__).resolve().parents[2]
SENDERS = {"send_now", "send_on_commit", "FollowUp"}


def _names_sent() -> set[str]:
    names = set()
    for package in (p.parent for p in ROOT.glob("*/__init__.py") if p.parent.name not in {"tests", "bench"}):
        for path in package.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                    func = node.func
                    called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                    if called in SENDERS:
                        names.add(node.args[0].value)
    return names


def test_every_task_sent_by_name_is_a_registered_task_of_that_name():
    sent = _names_sent() | set(settings.MATCH_FINISHED_TASKS) | set(settings.TABLE_RESULT_CHANGED_TASKS)
    assert {"games.tasks.bot_move_task", "tournaments.tasks.tournament_advance_task",
            "tournaments.tasks.webhook_deliver_task"} <= sent  # the scan sees the senders
    for name in sent:
        task = import_string(name)
        assert isinstance(task, Task) and task.name == name and name in app.tasks
