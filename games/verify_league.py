"""The verifier's old path: `python -m games.verify_league` runs `python -m leaguelog` (leaguelog/__main__.py).

It goes after one release (the verifier moved in issue #41); scripts should call `python -m leaguelog`.
"""
from __future__ import annotations

import sys

from leaguelog.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
