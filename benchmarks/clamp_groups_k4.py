"""The k = 4 class route's enumeration and grouping (``reach_classes``, then ``clamp_groups``: the noise-aware column
at small eps), the old tree against this one, side by side, each cell in its own process on each tree.

    python benchmarks/clamp_groups_k4.py --old OLD/src --new src --out benchmarks/clamp_groups_k4.json 0.3:5,5,4,4 ...

Each cell is ``EPS:RELEASED`` at Dir(1,...,1) (k = the number of counts, n their sum), run at its working eps. Each
side: the classes, groups and lone parts, the enumeration's and the grouping's CPU s, a SHA-256 of the groups
(``lead`` and ``group``, equal on both trees where the grouping is the same), and the plan's grouping term
(``group_seconds``, enumeration and grouping together) with the run over it. ``column_cpu_s`` is the two together.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _side  # noqa: E402

CHILD = _side.CLASSES_PRELUDE + r"""
sha = hashlib.sha256(np.ascontiguousarray(lead, dtype=np.int64).tobytes()
                     + np.ascontiguousarray(group, dtype=np.int64).tobytes()).hexdigest()
grouping, _ = L.group_seconds(n, k, W, L.exact_shifts(a, w))
print(json.dumps({"working_epsilon": w, "classes": len(Z), "groups": int(len(lead)), "alone": int((group < 0).sum()),
                  "enumerate_cpu_s": round(t1 - t0, 2), "grouping_cpu_s": round(t2 - t1, 2),
                  "column_cpu_s": round(t2 - t0, 2), "sha256": sha, "planned_grouping_s": round(grouping, 2),
                  "run_over_plan": round((t2 - t0) / grouping, 3)}))
"""


def _compare(old: dict, new: dict) -> dict:
    return {"same_groups": _side.same_output(old, new)}


if __name__ == "__main__":
    _side.column_cells(__doc__, CHILD, "benchmarks/clamp_groups_k4.py", _compare)
