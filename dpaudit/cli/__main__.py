"""``python -m dpaudit.cli``: the same as the ``dpaudit`` command."""

import sys

from dpaudit.cli import main

sys.exit(main())
