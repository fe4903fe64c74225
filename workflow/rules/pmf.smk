rule exact_pmf:
    """Exact output distributions of the mechanisms at one (prior, c) (004 Fig. 3, 000 Tables 1-2)."""
    output:
        pmf="results/pmf/{name}.parquet",
        tails="results/pmf/{name}-tails.parquet",
    wildcard_constraints:
        name="|".join(config["pmf"]) or "NONE",
    params:
        py=PY,
        spec=lambda wc: spec_json("pmf", wc.name),
        table=lambda wc: "--table" if wc.name in [config["items"][i]["source"] for i in TABLE_ITEMS] else "",
    conda:
        "../envs/dpposterior.yaml"
    log:
        "logs/pmf/{name}.log",
    benchmark:
        "results/benchmarks/pmf/{name}.tsv"
    shell:
        "{params.py} workflow/scripts/exact_pmf.py --item {wildcards.name:q} --spec {params.spec:q} {params.table} "
        "--out {output.pmf:q} --out-tails {output.tails:q} > {log:q} 2>&1"
