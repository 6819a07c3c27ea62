"""`python -m lp.ir FILE`: print FILE's typed IR (the same as `lp ir FILE`)."""
import sys

from lp.cli import main

sys.exit(main(["ir", *sys.argv[1:]]))
