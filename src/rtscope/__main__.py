"""Entry point for ``python -m rtscope``."""

import sys

from rtscope.cli import main

sys.exit(main())
