"""The claim kinds of the error curves and boxes (templates ``error_curve`` and ``error_boxes``), judged on the
experiment's error summary: one row per (mechanism, point) with ``x``, ``value`` and ``se`` (exact expectation
with se 0 where the pmf exists, else the Monte Carlo mean and its standard error;
:func:`~dpposterior.paper.experiments.error_summary`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import verdicts as V
from .registry import NUMBER, Mechanism, judge, kind

#: The templates whose items judge these kinds.
TEMPLATES = ("error_curve", "error_boxes")
#: At k >= 3 these two are the same mechanism (Laplace noise of scale 2/eps on k - 1 counts).
SAME_AT_K3 = ("lshist", "lszhang")


def shown_mechanisms(mechanisms: list[str], k_values) -> tuple[list[str], dict[str, str], str]:
    """Mechanisms to draw, an alias map and a caption note.

    At k >= 3 ``lshist`` and ``lszhang`` are one mechanism (both Lap(2/eps)); when every point of an
    experiment has k >= 3 and both are listed, only ``lszhang`` is drawn (as "lshist = lszhang") and
    claims about ``lshist`` are judged on its runs.
    """
    ks = np.atleast_1d(np.asarray(k_values))
    if all(m in mechanisms for m in SAME_AT_K3) and ks.min() >= 3:
        shown = [m for m in mechanisms if m != "lshist"]
        return shown, {"lshist": "lszhang"}, ("At k >= 3 lshist and lszhang are the same mechanism (Laplace noise of "
                                              "scale 2/eps); it is drawn once, as lszhang.")
    return list(mechanisms), {}, ""


def _series(summary: pd.DataFrame, m: str):
    s = summary[summary.mechanism == m].sort_values("x")
    return s.x.to_numpy(float), s.value.to_numpy(float), s.se.to_numpy(float)


@dataclass
class Context:
    """What the accuracy kinds' rules read: the error summary, the x variable's name, the alias map of
    :func:`shown_mechanisms` and the experiment's data points (for ``grows-with-k``)."""

    summary: pd.DataFrame
    xname: str = "n"
    alias: dict | None = None
    data: pd.DataFrame | None = None

    def series(self, m: str):
        return _series(self.summary, (self.alias or {}).get(m, m))


_PAIR = {"better": Mechanism, "worse": Mechanism}
_COMPARE = (V.REPRODUCED, V.PARTLY, V.WITHIN_NOISE, V.NOT_REPRODUCED)


def _pair(cl: dict, ctx: Context):
    x, vb, sb = ctx.series(cl["better"])
    _, vw, sw = ctx.series(cl["worse"])
    return x, vb, sb, vw, sw, (cl["better"], cl["worse"])


@kind("crossover", templates=TEMPLATES, verdicts=_COMPARE, required=_PAIR, optional={"draft": NUMBER})
def _crossover(cl: dict, ctx: Context) -> list[V.Verdict]:
    """``better`` overtakes ``worse`` (optionally near ``draft``): :func:`~dpposterior.paper.verdicts.crossover`."""
    x, vb, sb, vw, sw, names = _pair(cl, ctx)
    return [V.crossover(cl["text"], x, vb, sb, vw, sw, names=names, draft=cl.get("draft"), xname=ctx.xname)]


@kind("crossover-below", templates=TEMPLATES, verdicts=(V.REPRODUCED, V.PARTLY, V.NOT_REPRODUCED),
      required=_PAIR | {"draft": NUMBER})
def _crossover_below(cl: dict, ctx: Context) -> list[V.Verdict]:
    """``better`` wins below ``draft`` and loses from there on: :func:`~dpposterior.paper.verdicts.loses_from`."""
    x, vb, sb, vw, sw, names = _pair(cl, ctx)
    return [V.loses_from(cl["text"], x, vb, sb, vw, sw, names=names, draft=cl["draft"], xname=ctx.xname)]


@kind("always-better", templates=TEMPLATES, verdicts=_COMPARE, required=_PAIR)
def _always_better(cl: dict, ctx: Context) -> list[V.Verdict]:
    """``better`` has the smaller error at every point: :func:`~dpposterior.paper.verdicts.better_everywhere`."""
    x, vb, sb, vw, sw, names = _pair(cl, ctx)
    return [V.better_everywhere(cl["text"], x, vb, sb, vw, sw, names=names, xname=ctx.xname)]


@kind("approaches", templates=TEMPLATES, verdicts=(V.REPRODUCED, V.PARTLY, V.NOT_REPRODUCED),
      required={"a": Mechanism, "b": Mechanism})
def _approaches(cl: dict, ctx: Context) -> list[V.Verdict]:
    """The error ratio of ``a`` to ``b`` goes to 1: :func:`~dpposterior.paper.verdicts.approaches`."""
    x, va, _ = ctx.series(cl["a"])
    _, vb, _ = ctx.series(cl["b"])
    return [V.approaches(cl["text"], x, va, vb, names=(cl["a"], cl["b"]), xname=ctx.xname)]


@kind("trend", templates=TEMPLATES, verdicts=_COMPARE, required={"mechanism": Mechanism, "direction": ("up", "down")})
def _trend(cl: dict, ctx: Context) -> list[V.Verdict]:
    """One mechanism's error goes ``direction``: :func:`~dpposterior.paper.verdicts.trend`."""
    x, v, s = ctx.series(cl["mechanism"])
    return [V.trend(cl["text"], x, v, s, name=cl["mechanism"], direction=cl["direction"], xname=ctx.xname)]


@kind("grows-with-k", templates=TEMPLATES, verdicts=_COMPARE)
def _grows_with_k(cl: dict, ctx: Context) -> list[V.Verdict]:
    """At a fixed count per category the error of every mechanism grows with k (one trend row per mechanism
    and count; needs the data points)."""
    text, summary, data = cl["text"], ctx.summary, ctx.data
    if data is None:
        raise ValueError("grows-with-k needs the experiment's data points")
    rows = []
    per = data.set_index("point").counts.map(lambda c: c[0])
    ks = data.set_index("point").k
    for m in sorted(summary.mechanism.unique()):
        s = summary[summary.mechanism == m].set_index("point")
        for q in sorted(per.unique()):
            pts = per.index[per == q]
            order = ks.loc[pts].sort_values().index
            rows.append(V.trend(f"{text} ({m}, {q} per category)", ks.loc[order].to_numpy(float),
                                s.loc[order, "value"].to_numpy(float), s.loc[order, "se"].to_numpy(float),
                                name=m, direction="up", xname="k"))
    return rows


def accuracy(claims: list[dict], summary: pd.DataFrame, *, xname: str = "n", alias: dict | None = None,
             data: pd.DataFrame | None = None) -> list[V.Verdict]:
    """Claims on error curves/boxes (docs/definitions.md §8), each by its kind's rule (the kinds of this
    module: ``crossover``, ``crossover-below``, ``always-better``, ``approaches``, ``trend``, ``grows-with-k``).
    Claims about ``lshist`` are judged on ``lszhang``'s runs where ``alias`` says so (:func:`shown_mechanisms`)."""
    return judge(TEMPLATES[0], claims, Context(summary, xname, alias or {}, data))
