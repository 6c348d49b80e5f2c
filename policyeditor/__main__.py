"""`python -m policyeditor`: the same command as the `policyeditor` console script."""

import sys

from policyeditor.cli import main

sys.exit(main())
