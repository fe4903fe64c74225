"""``python -m dpposterior``: the ``dpposterior`` command."""

import sys

from .cli.main import main

sys.exit(main())
