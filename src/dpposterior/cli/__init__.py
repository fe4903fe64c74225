"""The ``dpposterior`` command line: a package of one module per concern.

- :mod:`.main`: the parser, the dispatch table :data:`COMMANDS`, the exit codes and :func:`main`;
- :mod:`.commands`: one module per sub-command (its arguments and its handler);
- :mod:`.options`: the options the commands share (mechanism, epsilon, delta, gamma, ...) and the
  readers of flag text (through :func:`dpposterior.validate.parse_number` and friends);
- :mod:`.data`: ``--data`` (CSV files, pipes, FIFOs) and its budgets;
- :mod:`.output`: strict JSON (whole or streamed) and the text both ``release`` and ``posterior`` print.

The names below are those the single module ``dpposterior.cli`` offered.  Note that ``main`` here is the
function, which hides the submodule of the same name as an attribute: import from the submodule with
``from dpposterior.cli.main import ...``.
"""

from .commands.accuracy import add_accuracy, cmd_accuracy
from .commands.audit import add_audit, cmd_audit
from .commands.compare import add_compare, cmd_compare
from .commands.pmf import add_pmf, cmd_pmf
from .commands.posterior import add_posterior, cmd_posterior
from .commands.privacy import add_privacy, cmd_privacy
from .commands.release import add_release, cmd_release
from .main import COMMANDS, build_parser, main
from .output import exact_sum, json_safe, noise_aware_summary

__all__ = [
    "COMMANDS", "add_accuracy", "add_audit", "add_compare", "add_pmf", "add_posterior", "add_privacy", "add_release",
    "build_parser", "cmd_accuracy", "cmd_audit", "cmd_compare", "cmd_pmf", "cmd_posterior", "cmd_privacy",
    "cmd_release", "exact_sum", "json_safe", "main", "noise_aware_summary",
]
