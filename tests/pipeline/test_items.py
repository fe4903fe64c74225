"""The paper subpackage around the verdicts: tables, paths, claims per item, the verdict table,
config checks, and the notebook templates' structure."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dpposterior.paper import claims as C
from dpposterior.paper import config as K
from dpposterior.paper import report, tables
from dpposterior.paper import verdicts as V
from dpposterior.paper.paths import here, repo_root

ROOT = Path(__file__).resolve().parents[2]


def test_markdown_escapes_pipes_and_shows_missing_as_dashes():
    df = pd.DataFrame({"a|b": ["x | y", "z"], "v": [np.nan, 0.5]})
    md = tables.to_markdown(df)
    lines = md.splitlines()
    assert lines[0] == "| a\\|b | v |"
    assert lines[2] == "| x \\| y | -- |"
    assert "nan" not in md


def test_latex_is_escaped():
    df = pd.DataFrame({"P_mh(H<=t)": [0.5], "note": ["50% & more_{x}"]})
    tex = tables.to_latex(df, "caption with _ and %", "lab")
    assert r"P\_mh" in tex and r"50\% \& more\_\{x\}" in tex and r"caption with \_ and \%" in tex


def test_write_table(tmp_path):
    df = pd.DataFrame({"x": [1.0, np.nan]})
    tables.write_table(df, csv=tmp_path / "t.csv", md=tmp_path / "t.md", tex=tmp_path / "t.tex", caption="cap", label="t")
    assert (tmp_path / "t.md").read_text().splitlines()[-1] == "cap"
    assert "--" in (tmp_path / "t.tex").read_text()


def test_repo_root_from_notebooks_folder():
    assert repo_root(ROOT / "notebooks") == ROOT
    assert here("results/x.parquet", ROOT / "notebooks") == ROOT / "results/x.parquet"
    assert here("/abs/p") == Path("/abs/p")


def test_repo_root_missing(tmp_path):
    with pytest.raises(FileNotFoundError):
        repo_root(tmp_path)


def test_shown_mechanisms_merges_lshist_and_lszhang_at_k3_only():
    shown, alias, note = C.shown_mechanisms(["mh-delta", "lszhang", "mh", "lshist"], [3, 3])
    assert shown == ["mh-delta", "lszhang", "mh"] and alias == {"lshist": "lszhang"} and "same mechanism" in note
    shown, alias, note = C.shown_mechanisms(["mh-delta", "lszhang", "lshist"], [2, 3])
    assert shown == ["mh-delta", "lszhang", "lshist"] and not alias and not note


def _summary(rows):
    return pd.DataFrame(rows, columns=["mechanism", "point", "x", "value", "se"])


def test_accuracy_claims_on_a_constructed_summary():
    s = _summary([("a", i, x, v, 0.0) for i, (x, v) in enumerate(zip([10, 100, 1000], [3, 2, 1]))]
                 + [("b", i, x, v, 0.0) for i, (x, v) in enumerate(zip([10, 100, 1000], [1, 2.5, 2]))])
    rows = C.accuracy([{"kind": "crossover", "better": "a", "worse": "b", "draft": 60, "text": "t1"},
                       {"kind": "always-better", "better": "b", "worse": "a", "text": "t2"},
                       {"kind": "trend", "mechanism": "a", "direction": "down", "text": "t3"}], s)
    assert [r.verdict for r in rows] == [V.REPRODUCED, V.PARTLY, V.REPRODUCED]
    with pytest.raises(ValueError):
        C.accuracy([{"kind": "nonsense", "text": "t"}], s)


def test_alias_judges_lshist_on_lszhang_runs():
    s = _summary([("mh-delta", 0, 1.0, 1.0, 0.0), ("mh-delta", 1, 2.0, 0.5, 0.0),
                  ("lszhang", 0, 1.0, 0.8, 0.0), ("lszhang", 1, 2.0, 0.9, 0.0)])
    rows = C.accuracy([{"kind": "crossover", "better": "mh-delta", "worse": "lshist", "text": "t"}], s,
                      alias={"lshist": "lszhang"}, xname="a")
    assert rows[0].verdict == V.REPRODUCED


def test_audit_claims_use_bonferroni_levels_and_the_soundness_test():
    n = 4
    df = pd.DataFrame({"mechanism": ["m"] * 2 * n, "epsilon": 1.0, "family_confidence": 0.95,
                       "confidence": V.bonferroni_level(0.95, 2 * n), "claimed_epsilon": 1.0, "claimed_delta": 0.0,
                       "lower_bound": [0.5] * 2 * n, "exact_pair_epsilon": [0.9] * 2 * n,
                       "delta_lower_bound": 0.0})
    rows = C.audit(df, claim="c", claim_mechanism="m")
    assert rows[0].verdict == V.CONSISTENT and rows[1].verdict == V.NOT_REFUTED
    broken = df.assign(lower_bound=1.2)
    rows = C.audit(broken, claim="c", claim_mechanism="m")
    assert rows[0].verdict == V.INCONSISTENT and rows[1].verdict == V.NOT_REPRODUCED


def test_write_verdicts(tmp_path):
    a = V.as_frame([V.Verdict("c|1", "d", "x", "r", "t", V.REPRODUCED)], "i1")
    b = V.as_frame([V.Verdict("c2", "d", "x", "r", "t", V.PARTLY), V.Verdict("c3", "d", "x", "r", "t", V.REPRODUCED)], "i2")
    a.to_csv(tmp_path / "i1.csv", index=False)
    b.to_csv(tmp_path / "i2.csv", index=False)
    (tmp_path / "i1.txt").write_text("Caption one.")
    df = report.write_verdicts([tmp_path / "i1.csv", tmp_path / "i2.csv"], [tmp_path / "i1.txt"],
                               csv=tmp_path / "v.csv", md=tmp_path / "v.md", html=tmp_path / "v.html")
    assert len(df) == 3 and report.counts(df) == {V.REPRODUCED: 2, V.PARTLY: 1}
    md = (tmp_path / "v.md").read_text()
    assert "3 rows: 3 the project's own checks (2 REPRODUCED, 1 PARTLY)" in md and "c\\|1" in md
    assert "Caption one." in (tmp_path / "v.html").read_text()


def test_check_config_names_the_key():
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    K.check_config(cfg)
    cfg["items"]["fig4"]["source"] = "nope"
    with pytest.raises(K.ConfigError, match="items.fig4.source"):
        K.check_config(cfg)


TEMPLATES = sorted((ROOT / "notebooks").glob("*.py"))


def test_every_template_of_the_config_exists():
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    names = {p.stem for p in TEMPLATES}
    assert {s["template"] for s in cfg["items"].values()} <= names
    assert set(K.TEMPLATES) == names


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.stem)
def test_template_structure(path):
    text = path.read_text()
    assert text.count('# %% tags=["parameters"]') == 1
    assert "sys.path" not in text
    imports = re.findall(r"^(?:from|import) ([\w.]+)", text, flags=re.M)
    assert all(m.split(".")[0] in {"matplotlib", "numpy", "pandas", "dpposterior"} for m in imports), imports
    assert "items.finish(" in text and "plt.show()" in text
    assert not re.search(r"\b(00[0-4] L\d+|docs/definitions.md §|issue \d)", text)


def test_markdown_table_renders_as_an_html_table():
    nbconvert_md = pytest.importorskip("nbconvert.filters.markdown_mistune")
    html = nbconvert_md.markdown2html_mistune(tables.to_markdown(pd.DataFrame({"a|b": ["x | y"], "v": [np.nan]})))
    assert "<table>" in html and "<td>x | y</td>" in html and "<td>--</td>" in html
