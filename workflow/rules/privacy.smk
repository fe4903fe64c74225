rule privacy_loss:
    """Exact concrete epsilon (local and worst case) of one mechanism over an n grid, against its claim."""
    output:
        "results/privacy/{experiment}/{mechanism}.parquet",
    params:
        spec=lambda wc: spec_json("privacy", wc.experiment),
        progress=PROGRESS,
    log:
        "logs/privacy/{experiment}/{mechanism}.log",
    benchmark:
        "results/benchmarks/privacy/{experiment}/{mechanism}.tsv"
    shell:
        "{PY} workflow/scripts/privacy_loss.py --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} {params.progress} --out {output:q} > {log:q} 2>&1"
