"""The `accuracy:` section: its data points (stage `data`) and the mechanisms' runs on them (stage `runs`)."""

from __future__ import annotations

from ... import validate as V
from .. import paths
from ..errors import config_error
from .base import Stage, check_common, library, log

#: what each kind of experiment needs
KIND_KEYS = {"n-series": ["prior", "n"], "prior-series": ["counts", "a"], "counts-series": ["prior_value", "counts"]}


class Data(Stage):
    name = "data"
    section = "accuracy"
    help = "the count vectors of one accuracy experiment"
    keys = ("kind", "prior", "proportions", "n", "counts", "a", "prior_value")
    outputs = {"data": paths.DATA}
    per_mechanism = False

    def run(self, args, spec):
        from ..experiments import data_points, write_parquet

        df = data_points(spec)
        df.insert(0, "experiment", args.experiment)
        write_parquet(df, args.out_data)

    def check_refs(self, cfg):
        for exp, spec in cfg["accuracy"].items():
            kind = spec["kind"]
            for key in KIND_KEYS[kind]:
                if key not in spec:
                    config_error(f"accuracy.{exp}.{key}", f"required for kind {kind!r}")
            if kind == "n-series" and "proportions" in spec:
                if len(spec["proportions"]) != len(spec["prior"]):
                    config_error(f"accuracy.{exp}.proportions", "needs one entry per prior category")
                if abs(sum(spec["proportions"]) - 1) > 1e-9:
                    config_error(f"accuracy.{exp}.proportions", "must sum to 1")


class Runs(Stage):
    name = "runs"
    section = "accuracy"
    help = "Monte Carlo releases of one mechanism at every point, and the exact error law"
    keys = ("epsilon", "delta", "max_n")
    outputs = {"runs": paths.RUNS, "exact": paths.EXACT}
    progress = True
    notebook_mechanisms = True

    def spec(self, config, experiment):
        return super().spec(config, experiment) | {"seed": config["seed"], "runs": config["runs"],
                                                   "exact_max": config["exact_max_candidates"]}

    def inputs(self):
        return {"data": "--data"}

    def add_arguments(self, p):
        super().add_arguments(p)
        p.add_argument("--data", required=True)

    def run(self, args, spec):
        import pandas as pd

        from ..experiments import accuracy_runs, write_parquet

        runs, exact = accuracy_runs(args.experiment, args.mechanism, pd.read_parquet(args.data),
                                    epsilon=float(spec["epsilon"]), delta=float(spec["delta"]), seed=int(spec["seed"]),
                                    runs=int(spec["runs"]), exact_max=int(spec["exact_max"]), progress=args.progress,
                                    log=log, max_n=spec.get("max_n", {}).get(args.mechanism))
        write_parquet(runs, args.out_runs)
        write_parquet(exact, args.out_exact)

    def check_values(self, cfg):
        from ...mechanisms import MECHANISMS
        from ...models import n_candidates
        from ...sampling import ENUMERATE_UP_TO, check_sampler_size
        from ..variants import base_id

        for name, spec in cfg.get("accuracy", {}).items():
            key = f"accuracy.{name}"
            check_common("accuracy", name, spec)
            k = None
            if "prior" in spec:
                k = library(f"{key}.prior", V.prior, spec["prior"]).size
            for i, a in enumerate(spec.get("a", [])):
                library(f"{key}.a[{i}]", V.number, a, "a prior value", V.MIN_PRIOR, V.MAX_PRIOR)
            if "prior_value" in spec:
                library(f"{key}.prior_value", V.number, spec["prior_value"], "prior_value", V.MIN_PRIOR, V.MAX_PRIOR)
            for m in spec.get("max_n", {}):
                if m not in spec.get("mechanisms", []):
                    config_error(f"{key}.max_n.{m}", "names a mechanism the experiment does not run")
            vectors = spec.get("counts", [])
            vectors = [vectors] if vectors and not isinstance(vectors[0], list) else vectors
            sizes = [(f"{key}.n[{i}]", library(f"{key}.n[{i}]", V.size, n), k) for i, n in enumerate(spec.get("n", []))]
            for i, c in enumerate(vectors):
                cc = library(f"{key}.counts[{i}]", V.counts, c)
                sizes.append((f"{key}.counts[{i}]", int(cc.sum()), cc.size))
            for where, n, kk in sizes:
                if kk is not None and n_candidates(n, kk) > ENUMERATE_UP_TO:
                    library(where, check_sampler_size, n, kk)
                if kk is not None:  # each job draws `runs` releases at once: dp.sample's budgets
                    for m in spec.get("mechanisms", []):
                        if n > spec.get("max_n", {}).get(m, n):
                            continue  # not drawn (max_n)
                        library(where, MECHANISMS[base_id(m)].check_draws, n, kk, cfg["runs"])
        if "seed" in cfg:  # the seed every job derives its stream from
            library("seed", V.seed, cfg["seed"])


DATA = Data()
RUNS = Runs()
