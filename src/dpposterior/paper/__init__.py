"""The paper's items: experiments, claim checks (verdicts), figure style and tables.

The pipeline (``Snakefile``) runs :mod:`.experiments` through the stage CLI
(``python -m dpposterior.paper <stage>``) and renders one notebook per item from ``notebooks/``;
the notebooks call :mod:`.claims` / :mod:`.verdicts` and only plot.
"""
