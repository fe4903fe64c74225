"""Every verdict row's words agree with its own columns: whose claim it checks (its source), what the draft states,
what was computed and the verdict. The rows the issue found wrong are refused; the rows the rules write now pass."""

import numpy as np
import pandas as pd
import pytest

from dpposterior.paper import claims as C
from dpposterior.paper import report
from dpposterior.paper import verdicts as V


def row(claim, draft, computed, verdict, rule="r", tolerance="t"):
    return {"item": "i", "claim": claim, "draft": draft, "computed": computed, "rule": rule, "tolerance": tolerance,
            "verdict": verdict}


# the rows of figures/verdicts.md as they read before: each says one thing in one column and another in the next
OLD_ROWS = {
    "question judged REPRODUCED": row(
        "arXiv draft §8 future work 1 (average error): an exponential mechanism is the best pure eps-DP release "
        "somewhere", "a question (future work 1), no claim",
        "won by >= 1 % over the best non-exponential release in 3 of 24 cells", V.REPRODUCED),
    "future-work question given a 1 % threshold": row(
        "arXiv draft §8 future work 3 (worst error under tv): the optimum tailored to hellinger is worse than the tv "
        "optimum (tailoring the optimum matters)", "the hellinger optimum's worst error is >= 1% above the tv optimum's",
        "x1.000 to x1.210 the tv optimum's; >= 1% worse at 5 of 9 points", V.PARTLY),
    "no claimed guarantee, yet a bound and NOT REFUTED": row(
        "ehdl: no claimed guarantee; empirical loss above the nominal eps = 1?", "privacy loss <= 1",
        "max of 10 lower bounds = 0.6989", V.NOT_REFUTED),
    "one label printed twice with two values": row(
        "arXiv draft §7.2.1 (Fig. 3): M_H outputs the candidates near the truth with larger probability",
        "P_mh(H<=t) > P_lsdim(H<=t) at the 4 smallest t",
        "mh vs lsdim: t=0: 0.01953 < 0.02009; t=0.0856: 0.09061 < 0.1178; t=0.0856: 0.1156 < 0.1586", V.NOT_REPRODUCED),
}


@pytest.mark.parametrize("name", list(OLD_ROWS))
def test_the_rows_the_issue_found_are_refused(name, tmp_path):
    assert V.problems(OLD_ROWS[name]), name
    # and the verdict table is not written with them
    p = tmp_path / "i.csv"
    pd.DataFrame([OLD_ROWS[name]]).to_csv(p, index=False)
    with pytest.raises(ValueError, match="verdict row of i"):
        report.write_verdicts([str(p)], [], csv=str(tmp_path / "v.csv"), md=str(tmp_path / "v.md"),
                              html=str(tmp_path / "v.html"))
    assert not (tmp_path / "v.csv").exists()


def test_whose_claim_is_read_from_the_claim():
    assert V.source_of("arXiv draft §7.2.2: Laplace beats M_H below n ~ 300") == "arXiv draft (004) §7.2.2"
    assert V.source_of("workshop draft §6.2: x") == "workshop draft (000) §6.2"
    assert V.source_of("sketch §5.1: x") == "sketch (001) §5.1"
    assert V.source_of("algorithm note Cor. 4.4.1: x") == "algorithm note (003) Cor. 4.4.1"
    assert V.source_of("Drafts: GS = sqrt(1 - pi/4) (arXiv draft §4.1.1)") == "arXiv draft (004) §4.1.1"
    assert V.whose(V.source_of("arXiv draft §8 future work 3 (x): y")) == V.QUESTION
    assert V.whose(V.source_of("arXiv draft §8 future work 2: the concrete loss is below eps")) == V.DRAFT
    assert V.whose(V.source_of("ICML 2019 version (real data): ehds beats ehd")) == V.DRAFT
    for own in ("Beyond the drafts (docs/lattice.md, arXiv draft §7): x", "No pure eps-DP release beats the optimum",
                "Auditor soundness: lower bounds vs the exact loss"):
        assert V.whose(V.source_of(own)) == V.PROJECT, own


def _audit_frame(lower):
    rows = []
    for m, ce in (("ehdl", np.nan), ("lshist", 1.0)):
        for n in range(4):
            rows.append({"mechanism": m, "epsilon": 1.0, "family_confidence": 0.95,
                         "confidence": V.bonferroni_level(0.95, 8), "claimed_epsilon": ce, "claimed_delta": 0.0,
                         "lower_bound": lower if m == "ehdl" else 0.5, "exact_pair_epsilon": 3.0,
                         "delta_lower_bound": 0.0, "n": n})
    return pd.DataFrame(rows)


def _cells(ehds, geo):
    return pd.DataFrame([{"mechanism": m, "base": m, "pure_dp": True, "private": True, "k": 2, "prior_strength": 1,
                          "n": 10, "epsilon": 1.0, "average": v, "worst": v}
                         for m, v in (("ehds", ehds), ("geometric", geo), ("ehd", 0.9))])


def _pmf(hs):
    rows = [{"mechanism": m, "H": h, "prob": p} for m, ps in (("mh", (0.1, 0.2, 0.3, 0.4)), ("lsdim", (0.2, 0.1, 0.3, 0.4)))
            for h, p in zip(hs, ps, strict=True)]
    return pd.DataFrame(rows)


def _tailoring():
    rows = []
    for n in (10, 20):
        for d in ("hellinger", "tv"):
            for m in ("hellinger", "tv"):
                v = 1.0 if d == m else (1.2 if n == 10 else 1.001)
                for name in ("optimal~worst", "optimal~average"):
                    rows.append({"status": "ok", "prior_strength": 1.0, "epsilon": 1.0, "k": 2, "n": n,
                                 "mechanism": name, "base": "optimal", "family": "optimal", "distance": d,
                                 "measure": m, "worst": v, "average": v})
    return pd.DataFrame(rows)


def test_the_rows_the_rules_write_agree_with_their_columns():
    rows = []
    for lower in (0.4, 2.5):  # no certified loss above eps, and one
        rows += C.audit(_audit_frame(lower), claim="arXiv draft §7.3: the concrete eps < 1", claim_mechanism="lshist")
    for ehds in (0.27, 0.3099):  # an exponential mechanism wins, and none does
        rows.append(C.exponential_best(_cells(ehds, 0.31), "average"))
    rows += C.tailoring(_tailoring())
    claim = {"kind": "more-mass-near-truth", "better": "mh", "worse": "lsdim", "text": "arXiv draft §7.2.1: m"}
    rows += C.pmf(_pmf([0.0, 0.08557, 0.08563, 0.2]), pd.DataFrame(columns=["mechanism"]), [claim])
    bad = {r.claim: V.problems(r) for r in rows if V.problems(r)}
    assert not bad
    ehdl = next(r for r in rows if r.claim.startswith("ehdl"))
    assert ehdl.verdict == V.ANSWERED and "<=" not in ehdl.draft
    assert "t=0.08557" in rows[-1].computed and "t=0.08563" in rows[-1].computed
    kinds = {V.whose(r.source) for r in rows}
    assert kinds == {V.DRAFT, V.QUESTION, V.PROJECT}
    assert any(r.source == "arXiv draft (004) §8 future work 3 (a question)" for r in rows)


def test_the_first_page_counts_whose_claims_apart(tmp_path):
    rows = [V.Verdict("arXiv draft §7.2.2: a", "d", "x", "r", "t", V.REPRODUCED, "i"),
            V.Verdict("arXiv draft §8 future work 1 asks: b?", "a question, no claim", "yes", "r", "t", V.ANSWERED, "i"),
            V.Verdict("No pure eps-DP release beats the optimum", "d", "x", "r", "t", V.REPRODUCED, "j")]
    p = tmp_path / "i.csv"
    V.as_frame(rows).to_csv(p, index=False)
    df = report.write_verdicts([str(p)], [], csv=str(tmp_path / "v.csv"), md=str(tmp_path / "v.md"),
                               html=str(tmp_path / "v.html"))
    assert list(df.source) == ["arXiv draft (004) §7.2.2", "arXiv draft (004) §8 future work 1 (a question)", "project"]
    md = (tmp_path / "v.md").read_text()
    assert ("**3 rows: 1 the drafts' claims (1 REPRODUCED); 1 the drafts' questions (1 ANSWERED); "
            "1 the project's own checks (1 REPRODUCED).**") in md
    assert "| verdict | the drafts' claims | the drafts' questions | the project's own checks | all |" in md
    assert "| REPRODUCED | 1 |  | 1 | 2 |" in md
    items = [{"item": "i", "title": "I", "figure": str(tmp_path / "i.png"), "notebook": str(tmp_path / "i.html")}]
    page = report.write_index(items, verdicts_csv=tmp_path / "v.csv", verdicts_html=tmp_path / "v.html",
                              out=tmp_path / "index.html")
    assert "<th>the drafts&#x27; claims</th>" in page and "1 the drafts&#x27; questions (1 ANSWERED)" in page
