"""The `sensitivity:` section: sensitivity curves (entry `fig1`) and score changes (entry `fig2`); no mechanism."""

from __future__ import annotations

from ... import validate as V
from .. import paths
from ..errors import config_error
from .base import Stage, library

#: entry -> what its job computes (a function of :mod:`..experiments`)
KINDS = {"fig1": "sensitivity_curves", "fig2": "score_changes"}


class Sensitivity(Stage):
    name = "sensitivity"
    section = "sensitivity"
    help = "sensitivity curves (fig1) or score changes (fig2)"
    outputs = {"sensitivity": paths.SENSITIVITY}
    per_mechanism = False
    #: the entries that exist (the rule's wildcard constraint)
    kinds = tuple(KINDS)

    def run(self, args, spec):
        from .. import experiments

        experiments.write_parquet(getattr(experiments, KINDS[args.experiment])(spec), args.out_sensitivity)

    def check_refs(self, cfg):
        for sid in cfg["sensitivity"]:
            if sid not in KINDS:
                config_error(f"sensitivity.{sid}", "only 'fig1' (curves) and 'fig2' (score change) exist")

    def check_values(self, cfg):
        from ..experiments import check_sensitivity_size

        sens = cfg.get("sensitivity", {})
        if "fig1" in sens:
            library("sensitivity.fig1.n", check_sensitivity_size, library("sensitivity.fig1.n", V.size, sens["fig1"]["n"]))
            library("sensitivity.fig1.epsilon", V.epsilon, sens["fig1"]["epsilon"])
            library("sensitivity.fig1.delta", V.delta, sens["fig1"]["delta"])
            for i, p in enumerate(sens["fig1"]["priors"]):
                library(f"sensitivity.fig1.priors[{i}]", V.prior, p)
        if "fig2" in sens:
            k = library("sensitivity.fig2.prior", V.prior, sens["fig2"]["prior"]).size
            for i, c in enumerate(sens["fig2"]["counts"]):
                library(f"sensitivity.fig2.counts[{i}]", V.counts, c, k=k)


SENSITIVITY = Sensitivity()
