rule exact_pmf:
    """Exact output distribution of one mechanism at one (prior, c) (arXiv draft Fig. 3, workshop draft Tables 1-2)."""
    output:
        pmf=f"{R}/pmf/{{name}}/{{mechanism}}.parquet",
        tails=f"{R}/pmf/{{name}}/tails/{{mechanism}}.parquet",
    params:
        spec=lambda wc: pmf_spec(wc.name),
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/pmf/{{name}}/{{mechanism}}.log",
    benchmark:
        f"{R}/benchmarks/pmf/{{name}}/{{mechanism}}.tsv"
    shell:
        "python -m dpposterior.paper pmf --name {wildcards.name:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} --out {output.pmf:q} --out-tails {output.tails:q} > {log:q} 2>&1"
