"""``compare``'s planned rows (hashed) and yardstick plans at seven Dir(1,1,1,1) cells, as JSON: run once per tree.

    PYTHONPATH=OLD/src python benchmarks/yardstick_plans_side.py > old.json
    PYTHONPATH=src python benchmarks/yardstick_plans_side.py > new.json

Public inputs only (prior, n, eps): every computed row is given errors over R(n) of average 1.0, so the start is
the row ``ranking.start_row`` picks by its tiers and label; on a tree without ``plan_blocks``' ``baseline`` and
``deeper`` they are not passed.
"""

import hashlib
import inspect
import json
import math
from types import SimpleNamespace

import numpy as np

from dpposterior import ranking
from dpposterior import yardstick as Y
from dpposterior.limits import limit_setting

CELLS = [(20, 0.5), (50, 1.0), (100, 1.0), (100, 2.0), (15, 0.5), (40, 1.0), (100, 0.5)]


def cell(n: int, eps: float) -> dict:
    a = np.ones(4)
    plans = ranking.plan_compare(a, n, eps)
    rows = [(r.variant.label, r.left_out, r.same_as, None if r.plan is None else r.plan.route) for r in plans]
    used = ranking.rows_seconds(plans)
    left = limit_setting("DPPOSTERIOR_MAX_COMPARE_SECONDS") - used - Y.marginal_seconds(a, n, eps)
    floor = Y.marginal_bound(a, n, eps).average
    errs = {r.variant.label: SimpleNamespace(counts=np.zeros((math.comb(n + 3, 3), 1)), average=1.0)
            for r in plans if not r.left_out}
    st = ranking.start_row(4, n, errs)
    kw = dict(start=st is not None, floor=floor, whole=True, weighted=True)
    if "deeper" in inspect.signature(Y.plan_blocks).parameters:
        kw.update(baseline=st is not None and st[0] in ranking.baseline_releases(4), deeper=True)
    p = Y.plan_blocks(a, n, eps, max(0.0, left) / 2, **kw)
    blocks = {k: (v[0].fits, v[0].route, round(v[0].seconds, 3), list(v[1]) if isinstance(v[1], tuple) else v[1])
              for k, v in p.items()}
    return dict(rows=hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:12], start=st and st[0], blocks=blocks)


if __name__ == "__main__":
    print(json.dumps({f"{n}:{eps}": cell(n, eps) for n, eps in CELLS}, indent=0))
