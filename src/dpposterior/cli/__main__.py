"""``python -m dpposterior.cli``: the ``dpposterior`` command."""

import sys

from .main import main

sys.exit(main())
