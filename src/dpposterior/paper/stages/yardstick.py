"""The `expected_error:` section's yardstick: a certified lower bound on the best achievable error at every k >= 3
point of an entry that has ``yardstick:`` settings (one job per entry; entries without them have none)."""

from __future__ import annotations

from .. import paths
from .base import Stage


class Yardstick(Stage):
    name = "yardstick"
    section = "expected_error"
    help = "a certified lower bound on the best achievable error at every k >= 3 point of a grid"
    keys = ("priors", "n", "epsilon", "max_candidates", "local_max_candidates", "local_k", "yardstick")
    outputs = {"yardstick": paths.YARDSTICK}
    per_mechanism = False

    def experiments(self, config: dict) -> list[str]:
        """The entries of the section that ask for the yardstick (a ``yardstick:`` key)."""
        return [e for e, spec in config.get(self.section, {}).items() if spec.get("yardstick") is not None]

    def item_inputs(self, config, experiment, results):
        return super().item_inputs(config, experiment, results) if experiment in self.experiments(config) else {}

    def run(self, args, spec):
        from ..beyond import yardstick_grid
        from ..experiments import write_parquet

        df = yardstick_grid(spec)
        df.insert(0, "experiment", args.experiment)
        write_parquet(df, args.out_yardstick)


YARDSTICK = Yardstick()
