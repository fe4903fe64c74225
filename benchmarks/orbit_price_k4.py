"""The k = 4 local column's searches by orbits: the check's price (``column_orbit_seconds``) fitted on what they run.

    python benchmarks/orbit_price_k4.py --out benchmarks/orbit_price_k4.json

Reads the runs of ``RUNS`` (``orbit_check_k4.py``: one release at a time on an idle host, the check's parts, their
orbits and the parts with a count at most 1, and the searches' CPU s). The price is

    orbits * A * grow + parts * B * min(|ball of Dc|, |R(n)|) / eps + faces * F(n, eps)

(``grow = (1 / eps)^p`` below eps 1, ``COLUMN_ORBIT_EPS_POWER``; ``F`` the face term, ``COLUMN_FACE_SECONDS``'s shape,
only where ``face_part_orbit_cell`` holds, with one scale ``C``). At each ``p`` of ``POWERS`` the coefficients ``(A,
B, C)`` are those with the least spread of run over price (largest over smallest, by bisection on a linear programme:
``y / rho <= F c <= y``), scaled so that the largest run over price equals the old rule's (a price a part: ``(4e-5,
1.2e-8)`` a part and data set of its ball, the face term at 1), so that no run is priced further under than it was;
the ``p`` whose fit spreads least is kept. Prints and writes, for the old rule and the fit: the coefficients, each run
over its price and the range.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib

import numpy as np
from scipy.optimize import linprog

from dpposterior.lattice.remap import JENSEN_TABLE_ENTRIES
from dpposterior.mechanisms import lattice as L
from dpposterior.models import n_candidates

HERE = pathlib.Path(__file__).resolve().parent
#: the runs fitted on: eps 0.5 to 2.75 (s89), and below eps 0.75 (s90, s91), each one release at a time on an idle host
RUNS = [HERE / name for name in ("orbit_check_k4_s89.json", "orbit_check_k4_loweps_s90.json",
                                 "orbit_check_k4_loweps_s91.json")]
#: the column's growth below eps 1 tried (``COLUMN_ORBIT_EPS_POWER``): the one with the least spread is kept
POWERS = np.round(np.arange(0.0, 2.26, 0.05), 2)
OLD = (4e-5, 1.2e-8)  # the old rule's price a part: a constant (times grow) and a data set of its ball
#: the old rule's face term (``COLUMN_FACE_SECONDS`` before): a constant and a data set of its ball, the first pair where
#: the Jensen table of the loss rows fits, the second where it does not; the fit scales it by ``C``
OLD_FACE = ((3.0e-4, 7.0e-9), (9.5e-4, 2.3e-8))


def features(r: dict, power: float) -> tuple[list[float], float]:
    """The fit's three terms at one run, the orbit term grown by ``(1 / eps)^power`` below eps 1, and the old rule's
    price there."""
    eps, n, k = float(r["epsilon"]), int(sum(r["released"])), len(r["released"])
    c = r["checks"][0]
    b = min(float(L.ball_size(k, eps, 1e-12)), float(n_candidates(n, k)))
    grow = max(1.0, 1.0 / eps) ** L.ORBIT_TIE_EPS_POWER  # the old rule's growth
    cell = L.face_part_orbit_cell(n, k, eps)
    c0, c1 = OLD_FACE[0] if (n + 1) ** 2 <= JENSEN_TABLE_ENTRIES else OLD_FACE[1]
    face = c0 + c1 * min(float(L.ball_size(k, eps, 1e-12)), float(n_candidates(n, k))) if cell else 0.0
    old = c["points"] * (OLD[0] * grow + OLD[1] * b) + c["faces"] * face
    return [c["orbits"] * max(1.0, 1.0 / eps) ** power, c["points"] * b / eps, c["faces"] * face], old


def least_spread(F: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Coefficients ``c >= 0`` with the least ``max(y / F c) / min(y / F c)``: the least ``rho`` (bisection) for which
    ``y / rho <= F c <= y`` is feasible (HiGHS)."""
    scale = F.mean(axis=0)
    scale[scale == 0] = 1.0
    G = F / scale
    lo, hi, best = 1.0, 1e3, None
    for _ in range(60):
        rho = (lo * hi) ** 0.5
        res = linprog(np.zeros(G.shape[1]), A_ub=np.vstack([G, -G]), b_ub=np.concatenate([y, -y / rho]),
                      bounds=[(0, None)] * G.shape[1], method="highs")
        if res.status == 0:
            hi, best = rho, res.x / scale
        else:
            lo = rho
    return best, hi


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    runs = [r for path in RUNS for r in json.loads(path.read_text())["runs"]
            if r["checks"] and r["checks"][0]["points"] >= 1000]
    y = np.array([r["searches"][0]["cpu_seconds"] for r in runs])
    by_power = []
    for power in POWERS:
        F = np.array([features(r, power)[0] for r in runs])
        coef, spread = least_spread(F, y)
        by_power.append((spread, float(power), F, coef))
        print(f"power {power:4.2f}: least spread {spread:.3f}")
    spread, power, F, coef = min(by_power, key=lambda t: t[0])
    old = np.array([features(r, power)[1] for r in runs])
    old_ratio = y / old
    coef = coef * (y / (F @ coef)).max() / old_ratio.max()  # the largest run over price: the old rule's
    new_ratio = y / (F @ coef)
    rows = [{"epsilon": r["epsilon"], "released": r["released"], "cell": bool(f[2] > 0),
             "parts": r["checks"][0]["points"], "orbits": r["checks"][0]["orbits"],
             "faces": r["checks"][0]["faces"], "cpu_seconds": float(t),
             "old_price": round(float(o), 2), "new_price": round(float(p), 2),
             "run_over_old": round(float(t / o), 3), "run_over_new": round(float(t / p), 3)}
            for r, f, t, o, p in zip(runs, F, y, old, F @ coef)]
    for row in rows:
        print(f"eps {row['epsilon']:<5g} {str(tuple(row['released'])):<22} parts {row['parts']:>7,} orbits "
              f"{row['orbits']:>6,} run {row['cpu_seconds']:6.2f} s  old {row['old_price']:7.2f} "
              f"({row['run_over_old']:.2f})  new {row['new_price']:7.2f} ({row['run_over_new']:.2f})")
    out = {"what": __doc__.splitlines()[0], "date": datetime.date.today().isoformat(),
           "command": "python benchmarks/orbit_price_k4.py --out " + args.out,
           "runs_files": [path.name for path in RUNS], "eps_power": power,
           "spread_by_power": {f"{p:.2f}": round(float(s_), 3) for s_, p, _, _ in by_power},
           "coefficients": {"orbit": float(coef[0]), "part_ball_over_eps": float(coef[1]), "face_scale": float(coef[2])},
           "least_spread": round(float(spread), 3),
           "old_range": [round(float(old_ratio.min()), 3), round(float(old_ratio.max()), 3)],
           "new_range": [round(float(new_ratio.min()), 3), round(float(new_ratio.max()), 3)], "rows": rows}
    print(json.dumps({k: v for k, v in out.items() if k != "rows"}))
    pathlib.Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
