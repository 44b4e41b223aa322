"""Patches to a view: what an update sends a socket that asked for them (`?patches=1`) instead of
the whole view, and how a client applies them. No Django: the table page (socket.js's
`viewPatched`), Python clients, the tests and the benchmarks apply the same operations.

A patch is a list of operations applied in order, each a JSON list: `["set", path, value]`,
`["del", path]` (a key gone) or `["add", path, items]` (items added at the end of the list at
`path`); a path lists the keys and list indexes from the view's root.
"""
from __future__ import annotations

import json
from typing import Any


def view_patch(before: Any, after: Any, path: list | None = None, operations: list | None = None) -> list[list]:
    """The operations that turn the view `before` into `after`. Objects are compared key by key
    and lists of the same length item by item, so a move sends the few values it changed (a third
    of the view or less, over the four games), not the view."""
    path = [] if path is None else path
    operations = [] if operations is None else operations
    if isinstance(before, dict) and isinstance(after, dict):
        operations.extend(["del", [*path, key]] for key in before if key not in after)
        for key, value in after.items():
            if key not in before:
                operations.append(["set", [*path, key], value])
            elif not _same(before[key], value):
                view_patch(before[key], value, [*path, key], operations)
    elif isinstance(before, list) and isinstance(after, list) and before and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after)):
            if not _same(old, new):
                view_patch(old, new, [*path, index], operations)
    elif isinstance(before, list) and isinstance(after, list) and len(after) > len(before) and _same(after[:len(before)], before):
        operations.append(["add", path, after[len(before):]])
    elif not _same(before, after):
        operations.append(["set", path, after])
    return operations


def view_patched(view: dict, operations: list[list]) -> dict:
    """What `view_patch`'s `operations` make of `view`, as a new view."""
    holder = {"view": json.loads(json.dumps(view))}  # a copy: JSON's is a few times quicker than deepcopy
    for operation, path, *value in operations:
        keys: list[Any] = ["view", *path]
        parent: Any = holder
        for key in keys[:-1]:
            parent = parent[key]
        if operation == "set":
            parent[keys[-1]] = value[0]
        elif operation == "del":
            del parent[keys[-1]]
        elif operation == "add":
            parent[keys[-1]].extend(value[0])
        else:
            raise ValueError(f"no such view_patch operation: {operation}")
    return holder["view"]


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: Python's == takes 1 for True and 1.0, which JSON writes otherwise."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(value, b[key]) for key, value in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    return a == b
