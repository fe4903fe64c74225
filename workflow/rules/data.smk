rule make_data:
    """Data generation: the count vectors (and priors) of one accuracy experiment."""
    output:
        "results/data/{experiment}.parquet",
    params:
        py=PY,
        spec=lambda wc: spec_json("accuracy", wc.experiment),
    conda:
        "../envs/dpposterior.yaml"
    log:
        "logs/data/{experiment}.log",
    shell:
        "{params.py} workflow/scripts/make_data.py --experiment {wildcards.experiment:q} --spec {params.spec:q} "
        "--out {output:q} > {log:q} 2>&1"
