rule coverage:
    """Exact coverage of the naive Dir(a + m) and of the noise-aware intervals, one mechanism over an (n, eps) grid."""
    output:
        f"{R}/coverage/{{experiment}}/{{mechanism}}.parquet",
    params:
        spec=lambda wc: coverage_spec(wc.experiment),
    threads: 1
    resources:
        mem_mb=2000,  # measured peak ~700 MB (quick and default runs), with margin
        runtime=30,
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/coverage/{{experiment}}/{{mechanism}}.log",
    benchmark:
        f"{R}/benchmarks/coverage/{{experiment}}/{{mechanism}}.tsv"
    shell:
        "python -m dpposterior.paper coverage --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} --out {output:q} > {log:q} 2>&1"
