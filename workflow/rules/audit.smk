"""Empirical (black-box) privacy loss, issue 4: every mechanism of an `audit:` entry audited from
samples at the settings (prior, n grid, eps, delta) of the privacy experiment it names."""


rule privacy_audit:
    """Lower confidence bounds from samples only (dpposterior.audit) at the exact worst and local pairs, per n."""
    output:
        "results/audit/{experiment}/{mechanism}.parquet",
    params:
        py=PY,
        spec=lambda wc: audit_spec_json(wc.experiment),
        seed=config["seed"],
        progress=PROGRESS,
    conda:
        "../envs/dpposterior.yaml"
    log:
        "logs/audit/{experiment}/{mechanism}.log",
    benchmark:
        "results/benchmarks/audit/{experiment}/{mechanism}.tsv"
    shell:
        "{params.py} workflow/scripts/audit_privacy.py --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} --seed {params.seed} {params.progress} --out {output:q} > {log:q} 2>&1"
