"""What a pipeline stage is: one config section's jobs, from the settings they use to the files they write.

A :class:`Stage` holds its name (the CLI subcommand ``python -m dpposterior.paper <name>``, the
rule, the results/log/benchmark folder), the config section it reads, the keys its jobs use
(nothing else goes into a job's ``--spec``, so nothing else reruns it), its output patterns (from
:mod:`..paths`, by role), its runner, and its dry-run checks. The registry is
:data:`dpposterior.paper.stages.STAGES`.
"""

from __future__ import annotations

import argparse
import json
import sys

from ... import validate as V
from ...errors import InputError
from .. import paths
from ..errors import config_error


def pick(spec: dict, keys) -> dict:
    """The entries of ``spec`` named in ``keys`` (those present)."""
    return {k: spec[k] for k in keys if k in spec}


def as_json(d) -> str:
    return json.dumps(d, sort_keys=True)


def library(key: str, fn, *args, **kw):
    """Call one of the library's validators or size checks; its InputError becomes a ConfigError naming ``key``."""
    try:
        return fn(*args, **kw)
    except InputError as exc:
        config_error(key, " ".join(str(exc).split()))


def as_list(x):
    return x if isinstance(x, list) else [x]


def check_common(section: str, name: str, spec: dict):
    """epsilon, delta and every mechanism at every epsilon, as the job would build it; returns (eps list, delta)."""
    from ...mechanisms import ReleaseSpec
    from ..variants import variant

    key = f"{section}.{name}"
    eps = [library(f"{key}.epsilon", V.epsilon, e) for e in as_list(spec.get("epsilon", []))]
    delta = library(f"{key}.delta", V.delta, spec["delta"]) if "delta" in spec else 1e-8
    for m in spec.get("mechanisms", []):
        base, options = variant(m)
        for e in eps:
            library(f"{key}.mechanisms", ReleaseSpec.of, base, e, delta, **options)
    return eps, delta


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class Stage:
    """One config section's jobs (subclasses set the class attributes and :meth:`run`).

    A stage module imports the library's computations inside the methods that use them (:meth:`run`, the
    dry-run checks): every job imports the whole registry, and each job then loads only its own stage's
    computations (a render job none of them)."""

    #: the CLI subcommand, the rule, the results/log/benchmark folder
    name: str = ""
    #: the config section whose entries (``experiment`` wildcard) the jobs read
    section: str = ""
    #: one line for ``--help``
    help: str = ""
    #: the entry's settings the job uses (None: the whole entry)
    keys: tuple[str, ...] | None = None
    #: output role -> path pattern (:mod:`..paths`); the first role is ``--out``, others ``--out-<role>``
    outputs: dict[str, str] = {}
    #: one job per (experiment, mechanism), else one per experiment
    per_mechanism: bool = True
    #: the job takes ``--progress`` (the config's ``progress``)
    progress: bool = False
    #: an item of this section gets the entry's ``mechanisms`` as a notebook parameter
    notebook_mechanisms: bool = False

    # ---- settings
    def spec(self, config: dict, experiment: str) -> dict:
        """The settings one job uses (its ``--spec``)."""
        entry = config[self.section][experiment]
        return dict(entry) if self.keys is None else pick(entry, self.keys)

    def mechanisms(self, config: dict, experiment: str) -> list[str]:
        """The mechanisms of one entry (one job each)."""
        return list(config[self.section][experiment]["mechanisms"])

    # ---- paths
    @property
    def job(self) -> str:
        """The job's wildcards as a path (its log and benchmark names)."""
        return "{experiment}/{mechanism}" if self.per_mechanism else "{experiment}"

    def output_patterns(self, results: str) -> dict[str, str]:
        return {role: paths.fill(p, results=results) for role, p in self.outputs.items()}

    def item_inputs(self, config: dict, experiment: str, results: str) -> dict:
        """Role -> the files of one entry an item reads (a list over its mechanisms, or one path)."""
        out = {}
        for role, pattern in self.outputs.items():
            if self.per_mechanism:
                out[role] = [paths.result(pattern, experiment, m, results) for m in self.mechanisms(config, experiment)]
            else:
                out[role] = paths.result(pattern, experiment, results=results)
        return out

    # ---- the job's command line
    def out_flag(self, role: str) -> str:
        return "--out" if role == next(iter(self.outputs)) else f"--out-{role}"

    def inputs(self) -> dict[str, str]:
        """Input role -> CLI flag (inputs from other jobs; none by default)."""
        return {}

    def add_arguments(self, p: argparse.ArgumentParser) -> None:
        p.add_argument("--experiment", required=True)
        if self.per_mechanism:
            p.add_argument("--mechanism", required=True)
        p.add_argument("--spec", required=True)
        for role in self.outputs:
            p.add_argument(self.out_flag(role), required=True, dest=f"out_{role}")
        if self.progress:
            p.add_argument("--progress", action="store_true")

    def command(self) -> str:
        """The rule's shell command (Snakemake placeholders) for :meth:`add_arguments`'s parser."""
        parts = [f"python -m dpposterior.paper {self.name} --experiment {{wildcards.experiment:q}}"]
        if self.per_mechanism:
            parts.append("--mechanism {wildcards.mechanism:q}")
        parts.append("--spec {params.spec:q}")
        parts += [f"{flag} {{input.{role}:q}}" for role, flag in self.inputs().items()]
        if self.progress:
            parts.append("{params.progress}")
        parts += [f"{self.out_flag(role)} {{output.{role}:q}}" for role in self.outputs]
        return " ".join(parts) + " > {log:q} 2>&1"

    def run(self, args: argparse.Namespace, spec: dict) -> None:
        raise NotImplementedError

    # ---- dry-run checks (each error one line naming the key)
    def check_refs(self, cfg: dict) -> None:
        """Cross-references and shapes the schema cannot express."""

    def check_values(self, cfg: dict) -> None:
        """What each job would refuse, refused at dry run (ranges, sizes under the budgets)."""
