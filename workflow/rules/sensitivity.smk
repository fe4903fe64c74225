rule sensitivity:
    """Sensitivity curves (004 Fig. 1) and per-candidate score changes (004 Fig. 2)."""
    output:
        "results/sensitivity/{name}.parquet",
    wildcard_constraints:
        name="fig1|fig2",
    params:
        py=PY,
        spec=lambda wc: spec_json("sensitivity", wc.name),
    conda:
        "../envs/dpposterior.yaml"
    log:
        "logs/sensitivity/{name}.log",
    shell:
        "{params.py} workflow/scripts/sensitivity_curves.py --item {wildcards.name:q} --spec {params.spec:q} "
        "--out {output:q} > {log:q} 2>&1"
