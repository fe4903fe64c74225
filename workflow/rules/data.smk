rule make_data:
    """Data generation: the count vectors (and priors) of one accuracy experiment."""
    output:
        f"{R}/data/{{experiment}}.parquet",
    params:
        spec=lambda wc: data_spec(wc.experiment),
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/data/{{experiment}}.log",
    benchmark:
        f"{R}/benchmarks/data/{{experiment}}.tsv"
    shell:
        "python -m dpposterior.paper data --experiment {wildcards.experiment:q} --spec {params.spec:q} "
        "--out {output:q} > {log:q} 2>&1"
