rule sensitivity:
    """Sensitivity curves (arXiv draft Fig. 1) and per-candidate score changes (arXiv draft Fig. 2)."""
    output:
        f"{R}/sensitivity/{{name}}.parquet",
    wildcard_constraints:
        name="fig1|fig2",
    params:
        spec=lambda wc: as_json(config["sensitivity"][wc.name]),
        which=lambda wc: "curves" if wc.name == "fig1" else "score-change",
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/sensitivity/{{name}}.log",
    benchmark:
        f"{R}/benchmarks/sensitivity/{{name}}.tsv"
    shell:
        "python -m dpposterior.paper sensitivity --which {params.which} --spec {params.spec:q} "
        "--out {output:q} > {log:q} 2>&1"
