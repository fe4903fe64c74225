rule run_mechanism:
    """Mechanism runs: `runs` releases per point of one (experiment, mechanism), plus the exact error law."""
    input:
        data=f"{R}/data/{{experiment}}.parquet",
    output:
        runs=f"{R}/runs/{{experiment}}/{{mechanism}}.parquet",
        exact=f"{R}/exact/{{experiment}}/{{mechanism}}.parquet",
    params:
        spec=lambda wc: run_spec(wc.experiment),
        progress=PROGRESS,
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/runs/{{experiment}}/{{mechanism}}.log",
    benchmark:
        f"{R}/benchmarks/runs/{{experiment}}/{{mechanism}}.tsv"
    shell:
        "python -m dpposterior.paper runs --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} --data {input.data:q} {params.progress} --out-runs {output.runs:q} "
        "--out-exact {output.exact:q} > {log:q} 2>&1"
