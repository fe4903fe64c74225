"""The `coverage:` section: exact coverage of naive and noise-aware intervals of one mechanism."""

from __future__ import annotations

from ... import validate as V
from .. import paths
from ..errors import config_error
from .base import Stage, check_common, library


class Coverage(Stage):
    name = "coverage"
    section = "coverage"
    help = "exact coverage of naive and noise-aware intervals of one mechanism"
    keys = ("prior", "n", "epsilon", "delta", "level")
    outputs = {"coverage": paths.COVERAGE}
    notebook_mechanisms = True

    def run(self, args, spec):
        from ..coverage import coverage_table
        from ..experiments import write_parquet

        df = coverage_table(args.mechanism, spec)
        df.insert(0, "experiment", args.experiment)
        write_parquet(df, args.out_coverage)

    def check_refs(self, cfg):
        for name, spec in cfg.get("coverage", {}).items():
            if len(spec["prior"]) != 2:
                config_error(f"coverage.{name}.prior", "the coverage experiment is exact for k = 2: give two prior values")

    def check_values(self, cfg):
        from ..coverage import check_coverage_size

        for name, spec in cfg.get("coverage", {}).items():
            key = f"coverage.{name}"
            check_common("coverage", name, spec)
            library(f"{key}.prior", V.prior, spec["prior"])
            library(f"{key}.level", V.level, spec["level"], "level")
            for i, n in enumerate(spec["n"]):
                library(f"{key}.n[{i}]", check_coverage_size, library(f"{key}.n[{i}]", V.size, n))


COVERAGE = Coverage()
