"""The `pmf:` section: exact output distributions of one mechanism at one (prior, counts)."""

from __future__ import annotations

from ... import validate as V
from .. import paths
from ..catalogue import TEMPLATE_SPECS
from ..errors import config_error
from .base import Stage, check_common, library

#: templates whose items also need the printed-formula pseudo-mechanisms of the workshop draft's tables
FORMULA_TEMPLATES = {t.name for t in TEMPLATE_SPECS.values() if t.printed_formulas}


class Pmf(Stage):
    name = "pmf"
    section = "pmf"
    help = "exact output distribution of one mechanism at one (prior, counts)"
    keys = ("prior", "counts", "epsilon", "delta", "tol")
    outputs = {"pmf": paths.PMF, "tails": paths.PMF_TAILS}

    def mechanisms(self, config, experiment):
        """The entry's mechanisms, plus the printed-formula pseudo-mechanisms if a table item shows it."""
        from ..experiments import FORMULAS

        extra = [f for f in FORMULAS if any(s["source"] == experiment and s["template"] in FORMULA_TEMPLATES
                                            for s in config["items"].values())]
        return super().mechanisms(config, experiment) + extra

    def run(self, args, spec):
        from ..experiments import exact_pmf, write_parquet

        pmf, tails = exact_pmf(args.experiment, args.mechanism, spec)
        write_parquet(pmf, args.out_pmf)
        write_parquet(tails, args.out_tails)

    def check_refs(self, cfg):
        for name, spec in cfg["pmf"].items():
            if len(spec["prior"]) != len(spec["counts"]):
                config_error(f"pmf.{name}.counts", "needs one entry per prior category")

    def check_values(self, cfg):
        from ...lattice.remap import DEFAULT_TOL
        from ...mechanisms import MECHANISMS, Family, ReleaseSpec
        from ..variants import base_id, parsed

        for name, spec in cfg.get("pmf", {}).items():
            key = f"pmf.{name}"
            (eps,), delta = check_common("pmf", name, spec)
            c = library(f"{key}.counts", V.counts, spec["counts"])
            a = library(f"{key}.prior", V.prior, spec["prior"], c.size)
            for m in spec["mechanisms"]:
                entry = MECHANISMS[base_id(m)]
                if entry.family == Family.LATTICE:  # its pmf at this one data set (exact_pmf), not rows over R(n)
                    rs = library(f"{key}.mechanisms", ReleaseSpec.of, parsed(m), eps, delta)
                    library(f"{key}.counts", entry.check_pmf_at, int(c.sum()), c.size, rs, spec.get("tol", DEFAULT_TOL),
                            c, a)
                else:
                    library(f"{key}.counts", entry.check_size, int(c.sum()), c.size, f"the exact pmf of {m}")


PMF = Pmf()
