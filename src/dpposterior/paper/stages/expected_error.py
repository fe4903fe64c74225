"""The `expected_error:` section: exact worst-case and average expected errors of one mechanism on a grid."""

from __future__ import annotations

from ... import validate as V
from .. import paths
from .base import Stage, check_common, library


class ExpectedError(Stage):
    name = "expected_error"
    section = "expected_error"
    help = "exact worst-case and average expected error of one mechanism on a grid"
    keys = ("priors", "n", "epsilon", "delta", "max_candidates", "local_max_candidates", "local_k",
            "local_mechanisms", "lp_oracle",
            "calibrated_max_n", "batched_search_max_n", "distances", "measures")
    outputs = {"expected_error": paths.EXPECTED_ERROR}
    notebook_mechanisms = True

    def same_release_input(self, config: dict, experiment: str, mechanism: str, results: str) -> dict:
        """The grids whose rows this job takes instead of computing them: ``"same"``, the grid of the same experiment
        that holds rows of the same release (:func:`~dpposterior.paper.beyond.same_release_source`: ``optimal~worst``
        reads ``lattice~worst``'s), and ``"earlier"``, the same mechanism's grids in the experiments before this one
        that share points with it (:meth:`earlier_grids`); each only where there is one."""
        from ..beyond import same_release_source

        out = {}
        source = same_release_source(mechanism, self.mechanisms(config, experiment))
        if source is not None:
            out["same"] = paths.result(self.outputs["expected_error"], experiment, source, results)
        earlier = self.earlier_grids(config, experiment, mechanism, results)
        if earlier:
            out["earlier"] = earlier
        return out

    def earlier_grids(self, config: dict, experiment: str, mechanism: str, results: str) -> list[str]:
        """The grids of ``mechanism`` in the experiments before ``experiment`` (config order) that share points with
        this job's at the same delta (:func:`~dpposterior.paper.beyond.earlier_sources`)."""
        from ..beyond import earlier_sources

        specs = {e: {**self.spec(config, e), "mechanisms": self.mechanisms(config, e)} for e in config[self.section]}
        return [paths.result(self.outputs["expected_error"], other, mechanism, results)
                for other in earlier_sources(mechanism, experiment, specs)]

    def add_arguments(self, p):
        super().add_arguments(p)
        p.add_argument("--same-release", default="", help="the grid of the same release's mechanism (or '')")
        p.add_argument("--earlier-grids", default="", help="a JSON list: the same mechanism's grids of earlier "
                                                           "experiments (or '')")

    def command(self) -> str:
        return super().command().replace(
            " --out ", " --same-release={params.same:q} --earlier-grids={params.earlier:q} --out ", 1)

    def run(self, args, spec):
        import json

        import pandas as pd

        from ..beyond import expected_error_grid
        from ..experiments import write_parquet

        same = pd.read_parquet(args.same_release) if args.same_release else None
        earlier = [pd.read_parquet(p) for p in json.loads(args.earlier_grids or "[]")]
        df = expected_error_grid(args.mechanism, spec, same, earlier)
        df.insert(0, "experiment", args.experiment)
        write_parquet(df, args.out_expected_error)

    def check_values(self, cfg):
        from ...distances import get_distance

        for name, spec in cfg.get("expected_error", {}).items():
            key = f"expected_error.{name}"
            check_common("expected_error", name, spec)
            for i, p in enumerate(spec["priors"]):
                library(f"{key}.priors[{i}]", V.prior, p)
            for i, n in enumerate(spec["n"]):
                library(f"{key}.n[{i}]", V.size, n)
            for field in ("distances", "measures"):
                for i, name in enumerate(spec.get(field, [])):
                    library(f"{key}.{field}[{i}]", get_distance, name)
                    for j, p in enumerate(spec["priors"]):
                        library(f"{key}.{field}[{i}] at priors[{j}]", get_distance(name).check, len(p))
            _check_tailorings(key, spec)


def _check_tailorings(key: str, spec: dict) -> None:
    """Every (mechanism, prior's k, distance) the job builds passes the entry checks the job's release runs
    (:meth:`~dpposterior.mechanisms.Mechanism.check_distance`: ``optimal`` under kl at k = 3 is refused there)."""
    from ...distances import DEFAULT_DISTANCE
    from ...mechanisms import ReleaseSpec
    from ..beyond import tailorings
    from ..variants import parsed

    delta = float(spec.get("delta", 1e-8))
    for m in spec.get("mechanisms", []):
        v = parsed(m)
        for dist, _ in tailorings(v.entry, spec):
            for e in spec.get("epsilon", []):
                release = library(f"{key}.mechanisms", ReleaseSpec.of, v, float(e), delta,
                                  distance=dist or DEFAULT_DISTANCE)
                for j, p in enumerate(spec["priors"]):
                    library(f"{key}.mechanisms ({m} at priors[{j}])", release.mechanism.check_distance, release, len(p))


EXPECTED_ERROR = ExpectedError()
