rule privacy_audit:
    """Black-box lower bounds on the privacy loss from samples only (dpposterior.audit), at the exact worst
    and local pairs per n, at the settings of the `privacy:` entry the `audit:` entry names."""
    output:
        f"{R}/audit/{{experiment}}/{{mechanism}}.parquet",
    params:
        spec=lambda wc: audit_spec(wc.experiment),
        progress=PROGRESS,
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/audit/{{experiment}}/{{mechanism}}.log",
    benchmark:
        f"{R}/benchmarks/audit/{{experiment}}/{{mechanism}}.tsv"
    shell:
        "python -m dpposterior.paper audit --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} {params.progress} --out {output:q} > {log:q} 2>&1"
