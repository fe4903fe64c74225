"""The paper's items: experiments, claim checks (verdicts), figure style and tables.

The pipeline (``Snakefile``) runs the stages of :mod:`.stages` (one object per job kind: its
settings, command line, runner, dry-run checks and output paths, the paths named in :mod:`.paths`)
through the stage CLI (``python -m dpposterior.paper <stage>``); the computations are in
:mod:`.experiments`, :mod:`.coverage` and :mod:`.beyond`. It renders one notebook per item from
``notebooks/``; the notebooks judge the items' claims with :mod:`.claims` / :mod:`.verdicts` and only plot.
"""

from .startup import defer_unused_numpy_submodules

defer_unused_numpy_submodules()  # an import hook, before anything imports scipy: ~0.1 s of CPU per job and kernel
