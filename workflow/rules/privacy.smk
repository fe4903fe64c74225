rule privacy_loss:
    """Exact concrete epsilon (local and worst case) of one mechanism over an n grid, against its claim."""
    output:
        "results/privacy/{experiment}/{mechanism}.parquet",
    params:
        py=PY,
        spec=lambda wc: spec_json("privacy", wc.experiment),
        progress=PROGRESS,
    conda:
        "../envs/dpposterior.yaml"
    log:
        "logs/privacy/{experiment}/{mechanism}.log",
    benchmark:
        "results/benchmarks/privacy/{experiment}/{mechanism}.tsv"
    shell:
        "{params.py} workflow/scripts/privacy_loss.py --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} {params.progress} --out {output:q} > {log:q} 2>&1"
