"""Running code without coverage's tracer (pytest-cov's `no_cover`, made to work under xdist).

Kept apart from tests/conftest.py and free of Django: the spawned workers of the process-pool
sweeps import the test modules that use it, with no settings configured.
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager


# Coverage (`make test-all`) counts the lines the tests reach. On Python 3.11 its tracer makes
# the code it watches three to twenty times slower, and the tests that run the same code over
# many random inputs (property tests, sweeps, random whole games, the tournament generator)
# reach nothing the scenario tests do not: they run untraced, marked `no_cover` (pytest-cov's
# marker; every Hypothesis test gets it at collection). The README gives the figure.
@contextmanager
def coverage_paused(config):
    """For a fixture that computes in volume: `no_cover` pauses only a test's own call."""
    plugin = config.pluginmanager.getplugin("_cov")
    controller = getattr(plugin, "cov_controller", None)
    if controller is None or controller.cov is None:
        yield
        return
    controller.pause()
    try:
        with untraced():
            yield
    finally:
        controller.resume()


@contextmanager
def untraced():
    """No tracer on this thread or on threads it starts. pytest-cov's pause leaves the tracer of
    an xdist worker's main thread installed (coverage started it from another thread), and on
    Python 3.11 an installed tracer alone makes all code several times slower."""
    tracer, thread_tracer = sys.gettrace(), threading.gettrace()
    sys.settrace(None)
    threading.settrace(None)
    try:
        yield
    finally:
        threading.settrace(thread_tracer)
        sys.settrace(tracer)
