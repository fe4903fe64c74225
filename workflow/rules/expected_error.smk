rule expected_error:
    """Exact worst-case and average expected error of one mechanism (or variant, e.g. ehds~calibrated) on a grid."""
    output:
        f"{R}/expected_error/{{experiment}}/{{mechanism}}.parquet",
    params:
        spec=lambda wc: expected_error_spec(wc.experiment),
    threads: 1
    resources:
        mem_mb=2000,  # measured peak ~700 MB (quick and default runs), with margin
        runtime=120,  # the optimal LP jobs of the default frontier took 23-40 min on 2 shared cores
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/expected_error/{{experiment}}/{{mechanism}}.log",
    benchmark:
        f"{R}/benchmarks/expected_error/{{experiment}}/{{mechanism}}.tsv"
    shell:
        "python -m dpposterior.paper expected_error --experiment {wildcards.experiment:q} "
        "--mechanism {wildcards.mechanism:q} --spec {params.spec:q} --out {output:q} > {log:q} 2>&1"
