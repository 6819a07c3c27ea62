"""`python -m lp` is the `lp` command."""
import sys

from lp.cli import main

sys.exit(main())
