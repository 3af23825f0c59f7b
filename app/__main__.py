"""``python -m app`` is the same as the ``atout`` command."""

import sys

from app.cli import main

sys.exit(main())
