rule privacy_loss:
    """Exact concrete epsilon (local and worst case) of one mechanism over an n grid, against its claim."""
    output:
        f"{R}/privacy/{{experiment}}/{{mechanism}}.parquet",
    params:
        spec=lambda wc: privacy_spec(wc.experiment),
        progress=PROGRESS,
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/privacy/{{experiment}}/{{mechanism}}.log",
    benchmark:
        f"{R}/benchmarks/privacy/{{experiment}}/{{mechanism}}.tsv"
    shell:
        "python -m dpposterior.paper privacy --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} {params.progress} --out {output:q} > {log:q} 2>&1"
