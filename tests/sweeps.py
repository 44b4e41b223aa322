"""How big the slow tier's random sweeps are, by Hypothesis profile (HYPOTHESIS_PROFILE).

`thorough` (`make test-thorough`) runs each at the size its issue promised: 1,000 generated
tournaments (#27), 100,000 rated matches. `ci` (`make test-all`, CI) and `fast` run a quarter
of it: the whole sweep costs about 8 CPU-minutes, more than a quarter of what CI's 15 minutes
on two cores allow (issue #38). Free of Django: the sweeps' spawned workers import the modules
that use it.
"""
from __future__ import annotations

import os

_SHARE = {"thorough": 1, "ci": 4, "fast": 4}


def sweep_size(full: int) -> int:
    """The size of a sweep whose `thorough` size is `full`, in this run's profile."""
    return full // _SHARE.get(os.environ.get("HYPOTHESIS_PROFILE", "fast"), 4)


def at_full_size() -> bool:
    """Whether this run is `make test-thorough`'s, where the long tests take their full size."""
    return os.environ.get("HYPOTHESIS_PROFILE", "fast") == "thorough"
