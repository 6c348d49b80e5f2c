"""`python -m policyeditor`: the same command as the `policyeditor` console script."""

import sys

from policyeditor.cli import main

# Guarded: where worker processes are spawned (not forked), each re-imports this module.
if __name__ == "__main__":
    sys.exit(main())
