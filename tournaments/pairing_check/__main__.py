"""`python -m tournaments.pairing_check FILE [--json]`: the command line (`cli`), its exit status the process's."""
import sys

from tournaments.pairing_check.cli import main

sys.exit(main())
