"""The `audit:` section: black-box privacy-loss lower bounds at the settings of a `privacy:` entry."""

from __future__ import annotations

from ... import validate as V
from .. import paths
from ..errors import config_error
from .base import Stage, library, log, pick
from .privacy import PRIVACY

AUDIT_KEYS = ("samples", "confidence")


class Audit(Stage):
    name = "audit"
    section = "audit"
    help = "black-box privacy-loss lower bounds of one mechanism over an n grid"
    keys = AUDIT_KEYS
    outputs = {"audit": paths.AUDIT}
    progress = True
    notebook_mechanisms = True

    def spec(self, config, experiment):
        """The audited `privacy:` entry's settings, the audit's own, and the seed."""
        spec = config["audit"][experiment]
        return PRIVACY.spec(config, spec["privacy"]) | pick(spec, self.keys) | {"seed": config["seed"]}

    def run(self, args, spec):
        from ..experiments import privacy_audit, write_parquet

        write_parquet(privacy_audit(args.experiment, args.mechanism, spec, int(spec["seed"]), args.progress, log),
                      args.out_audit)

    def check_refs(self, cfg):
        for exp, spec in cfg.get("audit", {}).items():
            if spec["privacy"] not in cfg["privacy"]:
                config_error(f"audit.{exp}.privacy", f"{spec['privacy']!r} is not an entry of 'privacy:'")

    def check_values(self, cfg):
        from ...audit import check_draw_limit
        from ...mechanism_audit import check_audit_time
        from ..variants import base_id

        for name, spec in cfg.get("audit", {}).items():
            key = f"audit.{name}"
            samples = library(f"{key}.samples", V.audit_samples, spec["samples"])
            library(f"{key}.samples", check_draw_limit, samples)
            priv = cfg.get("privacy", {}).get(spec.get("privacy"), {})
            if "prior" in priv and "n" in priv:  # each job audits one pair at a time, at each n
                for m in spec.get("mechanisms", []):
                    for n in priv["n"]:
                        library(f"{key}.samples", check_audit_time, base_id(m), int(n), len(priv["prior"]), samples)
            library(f"{key}.confidence", V.level, spec["confidence"], "confidence")


AUDIT = Audit()
