"""Config checks beyond the schema, and what each item needs from the config.

``TEMPLATES`` maps every notebook template to the config section its ``source`` names; the
Snakefile uses it to find an item's inputs. Adding a template: one entry here, one notebook under
``notebooks/``, one claims function in :mod:`.claims`.
"""

from __future__ import annotations

import math
from pathlib import Path

from ..mechanisms import MECHANISM_IDS

#: template -> the config section its items' ``source`` refers to
TEMPLATES = {"error_curve": "accuracy", "error_boxes": "accuracy", "candidate_pmf": "pmf", "step_table": "pmf",
             "privacy_loss": "privacy", "sensitivity": "sensitivity", "score_change": "sensitivity",
             "privacy_audit": "audit", "coverage": "coverage", "frontier": "expected_error",
             "which_to_use": "expected_error", "calibration": "expected_error"}
#: templates whose items also need the printed-formula pseudo-mechanisms of the workshop draft's tables
FORMULA_TEMPLATES = {"step_table"}

#: the settings each stage's jobs use (nothing else goes into their params, so nothing else reruns them)
DATA_KEYS = ("kind", "prior", "proportions", "n", "counts", "a", "prior_value")
RUN_KEYS = ("epsilon", "delta")
PMF_KEYS = ("prior", "counts", "epsilon", "delta")
PRIVACY_KEYS = ("prior", "n", "epsilon", "delta")
AUDIT_KEYS = ("samples", "confidence")
COVERAGE_KEYS = ("prior", "n", "epsilon", "delta", "level")
EXPECTED_ERROR_KEYS = ("priors", "n", "epsilon", "delta", "max_candidates")


class ConfigError(ValueError):
    """A config value the schema accepts but the pipeline cannot use; the message names the key."""


def config_error(key: str, msg: str):
    raise ConfigError(f"config error at '{key}': {msg}")


def check_config(cfg: dict) -> None:
    """Cross-references the schema cannot express; every message names the key."""
    for section in ("accuracy", "privacy", "pmf", "audit", "coverage", "expected_error"):
        for exp, spec in cfg.get(section, {}).items():
            for m in spec["mechanisms"]:
                try:
                    variant(m)
                except ConfigError as exc:
                    config_error(f"{section}.{exp}.mechanisms", str(exc))
    for exp, spec in cfg.get("audit", {}).items():
        if spec["privacy"] not in cfg["privacy"]:
            config_error(f"audit.{exp}.privacy", f"{spec['privacy']!r} is not an entry of 'privacy:'")
    for exp, spec in cfg["accuracy"].items():
        kind = spec["kind"]
        need = {"n-series": ["prior", "n"], "prior-series": ["counts", "a"], "counts-series": ["prior_value", "counts"]}[kind]
        for key in need:
            if key not in spec:
                config_error(f"accuracy.{exp}.{key}", f"required for kind {kind!r}")
        if kind == "n-series" and "proportions" in spec:
            if len(spec["proportions"]) != len(spec["prior"]):
                config_error(f"accuracy.{exp}.proportions", "needs one entry per prior category")
            if abs(sum(spec["proportions"]) - 1) > 1e-9:
                config_error(f"accuracy.{exp}.proportions", "must sum to 1")
    for name, spec in cfg.get("coverage", {}).items():
        if len(spec["prior"]) != 2:
            config_error(f"coverage.{name}.prior", "the coverage experiment is exact for k = 2: give two prior values")
    for name, spec in cfg["pmf"].items():
        if len(spec["prior"]) != len(spec["counts"]):
            config_error(f"pmf.{name}.counts", "needs one entry per prior category")
    for sid in cfg["sensitivity"]:
        if sid not in ("fig1", "fig2"):
            config_error(f"sensitivity.{sid}", "only 'fig1' (curves) and 'fig2' (score change) exist")
    for item, spec in cfg["items"].items():
        section = TEMPLATES[spec["template"]]
        if spec["source"] not in cfg.get(section, {}):
            config_error(f"items.{item}.source", f"{spec['source']!r} is not an entry of '{section}:'")
        if spec["template"] == "step_table" and "printed" not in spec:
            config_error(f"items.{item}.printed", "table items need the printed values")


#: options a config mechanism name may carry after "~": ``ehds~calibrated``, ``optimal~average``
VARIANT_OPTIONS = {"calibrated": {"calibrate": True}, "worst": {"objective": "worst"},
                   "average": {"objective": "average"}}


def variant(name: str) -> tuple[str, dict]:
    """A config mechanism name -> (registry id, keyword options): ``"ehds~calibrated"`` ->
    ``("ehds", {"calibrate": True})``; a plain id has no options. The registry entry validates them."""
    base, _, opt = name.partition("~")
    if base not in MECHANISM_IDS or (opt and opt not in VARIANT_OPTIONS):
        raise ConfigError(f"unknown mechanism {name!r}; use a registry id ({', '.join(MECHANISM_IDS)}), "
                          f"optionally with ~{' / ~'.join(VARIANT_OPTIONS)}")
    return base, dict(VARIANT_OPTIONS.get(opt, {}))


def pick(spec: dict, keys) -> dict:
    """The entries of ``spec`` named in ``keys`` (those present)."""
    return {k: spec[k] for k in keys if k in spec}


# ---------------------------------------------------------------------------------------------
# the dry-run checks: files, schema, values (each error one line naming the key)


def _strict_loader(path):
    import yaml

    class Strict(yaml.SafeLoader):
        """A YAML loader that refuses duplicate keys (PyYAML keeps the last one silently)."""

    def mapping(loader, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            if key in seen:
                raise ConfigError(f"config error in {path}, line {key_node.start_mark.line + 1}: duplicate key "
                                  f"{key!r} (first at line {seen[key] + 1}); YAML would silently keep the last one")
            seen[key] = key_node.start_mark.line
        return loader.construct_mapping(node, deep=deep)

    Strict.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    return Strict


def check_files(paths) -> None:
    """Load every config file strictly: a YAML error gives its file and line, a duplicate key is an error."""
    import yaml

    for path in paths:
        path = Path(path)
        loader = _strict_loader(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"config error: cannot read {path}: {exc}") from None
        try:
            yaml.load(text, Loader=loader)  # noqa: S506 (a SafeLoader subclass)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = f", line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise ConfigError(f"config error in {path}{where}: {exc.problem or exc.context}") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"config error in {path}: {' '.join(str(exc).split())}") from None


def _dotted(path) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def check_schema(cfg: dict, schema_path) -> None:
    """The JSON-schema check as one line (the most relevant error; no schema dump)."""
    import jsonschema
    import yaml

    schema = yaml.safe_load(Path(schema_path).read_text(encoding="utf-8"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(cfg))
    if error is not None:
        message = " ".join(error.message.split())
        if len(message) > 200:
            message = message[:197] + "..."
        config_error(_dotted(error.absolute_path), message)


def _finite(obj, path=()) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            _finite(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _finite(v, (*path, i))
    elif isinstance(obj, float) and not math.isfinite(obj):
        config_error(_dotted(path), f"must be a finite number, got {obj}")


def _library(key: str, fn, *args, **kw):
    """Call one of the library's validators or size checks; its InputError becomes a ConfigError naming ``key``."""
    from ..errors import InputError

    try:
        return fn(*args, **kw)
    except InputError as exc:
        config_error(key, " ".join(str(exc).split()))


def _as_list(x):
    return x if isinstance(x, list) else [x]


def check_values(cfg: dict) -> None:
    """What each job would refuse, refused at dry run: ranges (the library's validators), lengths, mechanism
    settings and exact sizes beyond the budgets (the pipeline's, :mod:`dpposterior.paper.budgets`)."""
    from .. import validate as V
    from ..audit import check_draw_budget, check_samples
    from ..mechanism_audit import check_audit_time
    from .coverage import check_coverage_size
    from .experiments import check_sensitivity_size
    from ..mechanisms import MECHANISMS, resolve
    from ..models import n_candidates
    from ..privacy import check_scan_size
    from ..sampling import ENUMERATE_UP_TO, check_sampler_size

    _finite(cfg)

    def common(section, name, spec):
        key = f"{section}.{name}"
        eps = [_library(f"{key}.epsilon", V.epsilon, e) for e in _as_list(spec.get("epsilon", []))]
        delta = _library(f"{key}.delta", V.delta, spec["delta"]) if "delta" in spec else 1e-8
        for m in spec.get("mechanisms", []):
            base, options = variant(m)
            for e in eps:
                _library(f"{key}.mechanisms", resolve, base, e, delta, 1.0, "exact",
                         options.get("objective", "worst"), options.get("calibrate", False))
        return eps, delta

    for name, spec in cfg.get("accuracy", {}).items():
        key = f"accuracy.{name}"
        common("accuracy", name, spec)
        k = None
        if "prior" in spec:
            k = _library(f"{key}.prior", V.prior, spec["prior"]).size
        for i, a in enumerate(spec.get("a", [])):
            _library(f"{key}.a[{i}]", V.number, a, "a prior value", V.MIN_PRIOR, V.MAX_PRIOR)
        if "prior_value" in spec:
            _library(f"{key}.prior_value", V.number, spec["prior_value"], "prior_value", V.MIN_PRIOR, V.MAX_PRIOR)
        vectors = spec.get("counts", [])
        vectors = [vectors] if vectors and not isinstance(vectors[0], list) else vectors
        sizes = [(f"{key}.n[{i}]", _library(f"{key}.n[{i}]", V.size, n), k) for i, n in enumerate(spec.get("n", []))]
        for i, c in enumerate(vectors):
            cc = _library(f"{key}.counts[{i}]", V.counts, c)
            sizes.append((f"{key}.counts[{i}]", int(cc.sum()), cc.size))
        for where, n, kk in sizes:
            if kk is not None and n_candidates(n, kk) > ENUMERATE_UP_TO:
                _library(where, check_sampler_size, n, kk)
            if kk is not None:  # each job draws `runs` releases at once: dp.sample's budgets
                for m in spec.get("mechanisms", []):
                    _library(where, MECHANISMS[variant(m)[0]].check_draws, n, kk, cfg["runs"])
    if "seed" in cfg:
        _library("seed", V.seed, cfg["seed"])
    for name, spec in cfg.get("privacy", {}).items():
        key = f"privacy.{name}"
        common("privacy", name, spec)
        k = _library(f"{key}.prior", V.prior, spec["prior"]).size
        for i, n in enumerate(spec["n"]):
            _library(f"{key}.n[{i}]", check_scan_size, k, _library(f"{key}.n[{i}]", V.size, n))
            for m in spec.get("mechanisms", []):  # the mechanism's own limit (optimal: its LP size)
                _library(f"{key}.n[{i}]", MECHANISMS[variant(m)[0]].check_size, int(n), k,
                         f"the exact privacy loss of {m}")
    for name, spec in cfg.get("pmf", {}).items():
        key = f"pmf.{name}"
        common("pmf", name, spec)
        c = _library(f"{key}.counts", V.counts, spec["counts"])
        _library(f"{key}.prior", V.prior, spec["prior"], c.size)
        for m in spec["mechanisms"]:
            _library(f"{key}.counts", MECHANISMS[variant(m)[0]].check_size, int(c.sum()), c.size,
                     f"the exact pmf of {m}")
    for name, spec in cfg.get("coverage", {}).items():
        key = f"coverage.{name}"
        common("coverage", name, spec)
        _library(f"{key}.prior", V.prior, spec["prior"])
        _library(f"{key}.level", V.level, spec["level"], "level")
        for i, n in enumerate(spec["n"]):
            _library(f"{key}.n[{i}]", check_coverage_size, _library(f"{key}.n[{i}]", V.size, n))
    for name, spec in cfg.get("expected_error", {}).items():
        key = f"expected_error.{name}"
        common("expected_error", name, spec)
        for i, p in enumerate(spec["priors"]):
            _library(f"{key}.priors[{i}]", V.prior, p)
        for i, n in enumerate(spec["n"]):
            _library(f"{key}.n[{i}]", V.size, n)
    for name, spec in cfg.get("audit", {}).items():
        key = f"audit.{name}"
        samples = _library(f"{key}.samples", check_samples, spec["samples"])
        _library(f"{key}.samples", check_draw_budget, samples)
        priv = cfg.get("privacy", {}).get(spec.get("privacy"), {})
        if "prior" in priv and "n" in priv:  # each job audits one pair at a time, at each n
            for m in spec.get("mechanisms", []):
                for n in priv["n"]:
                    _library(f"{key}.samples", check_audit_time, variant(m)[0], int(n), len(priv["prior"]), samples)
        _library(f"{key}.confidence", V.level, spec["confidence"], "confidence")
    sens = cfg.get("sensitivity", {})
    if "fig1" in sens:
        _library("sensitivity.fig1.n", check_sensitivity_size, _library("sensitivity.fig1.n", V.size, sens["fig1"]["n"]))
        _library("sensitivity.fig1.epsilon", V.epsilon, sens["fig1"]["epsilon"])
        _library("sensitivity.fig1.delta", V.delta, sens["fig1"]["delta"])
        for i, p in enumerate(sens["fig1"]["priors"]):
            _library(f"sensitivity.fig1.priors[{i}]", V.prior, p)
    if "fig2" in sens:
        k = _library("sensitivity.fig2.prior", V.prior, sens["fig2"]["prior"]).size
        for i, c in enumerate(sens["fig2"]["counts"]):
            _library(f"sensitivity.fig2.counts[{i}]", V.counts, c, k=k)


def check_all(cfg: dict, schema_path) -> None:
    """The dry-run checks of the merged config, in order: the schema, the cross-references, the values
    (the files themselves go through :func:`check_files` first)."""
    check_schema(cfg, schema_path)
    check_config(cfg)
    check_values(cfg)


def exit_with(exc: ConfigError) -> None:
    """End Snakemake's run on a config error: one line on stderr, exit status 2 (a raised error would
    add Snakemake's traceback of the Snakefile; nothing has been written yet)."""
    import os
    import sys

    print(f"dpposterior: {exc}", file=sys.stderr)
    sys.stderr.flush()
    os._exit(2)
