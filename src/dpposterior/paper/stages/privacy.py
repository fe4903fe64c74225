"""The `privacy:` section: the exact concrete epsilon of one mechanism over an n grid; a split entry
(``split: true``) runs one job per n (:meth:`Privacy.slice_spec`) and merges them."""

from __future__ import annotations

from ... import validate as V
from .. import paths
from .base import Stage, check_common, library


class Privacy(Stage):
    name = "privacy"
    section = "privacy"
    help = "exact concrete epsilon of one mechanism over an n grid"
    keys = ("prior", "n", "epsilon", "delta")
    outputs = {"privacy": paths.PRIVACY}
    progress = True
    notebook_mechanisms = True
    #: the one-n slice of a split entry (rule privacy_slice)
    slice_output = paths.PRIVACY_SLICE
    slice_job = "{experiment}/{mechanism}/n{n}"

    def slice_spec(self, config, experiment, n: int) -> dict:
        """The settings of one slice: the entry's, on the grid [n]."""
        return self.spec(config, experiment) | {"n": [n]}

    def slices(self, config, experiment, mechanism, results) -> list[str]:
        """The one-n slices a split entry merges; none for an entry computed in one job."""
        spec = config["privacy"][experiment]
        if not spec.get("split", False):
            return []
        return [paths.fill(self.slice_output, results=results, experiment=experiment, mechanism=mechanism, n=n)
                for n in spec["n"]]

    def add_arguments(self, p):
        super().add_arguments(p)
        p.add_argument("--merge", nargs="+", metavar="SLICE",
                       help="merge these one-n slices (each a privacy output of one n of the grid) instead of computing")

    def command(self, merge: bool = True) -> str:
        """The shell command; with ``merge``, ``{params.merge} {input:q}`` (empty for an unsplit entry)."""
        cmd = super().command()
        return cmd.replace("{params.progress}", "{params.progress} {params.merge} {input:q}") if merge else cmd

    def run(self, args, spec):
        import pandas as pd

        from ..experiments import merge_privacy_slices, privacy_loss, write_parquet

        if args.merge:
            df = merge_privacy_slices(spec, [pd.read_parquet(p) for p in args.merge])
        else:
            df = privacy_loss(args.experiment, args.mechanism, spec, args.progress)
        write_parquet(df, args.out_privacy)

    def check_values(self, cfg):
        from ...mechanisms import MECHANISMS
        from ...mechanisms.scan import check_scan_size
        from ..variants import base_id

        for name, spec in cfg.get("privacy", {}).items():
            key = f"privacy.{name}"
            check_common("privacy", name, spec)
            k = library(f"{key}.prior", V.prior, spec["prior"]).size
            for i, n in enumerate(spec["n"]):
                library(f"{key}.n[{i}]", check_scan_size, k, library(f"{key}.n[{i}]", V.size, n))
                for m in spec.get("mechanisms", []):  # the mechanism's own limit (optimal: its LP size)
                    library(f"{key}.n[{i}]", MECHANISMS[base_id(m)].check_size, int(n), k,
                            f"the exact privacy loss of {m}")


PRIVACY = Privacy()
