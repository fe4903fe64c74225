rule sensitivity:
    """Sensitivity curves (arXiv draft Fig. 1) and per-candidate score changes (arXiv draft Fig. 2)."""
    output:
        **stage_outputs("sensitivity"),
    wildcard_constraints:
        experiment="|".join(STAGES["sensitivity"].kinds),
    params:
        spec=stage_spec("sensitivity"),
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("sensitivity"),
    benchmark:
        stage_benchmark("sensitivity")
    shell:
        stage_command("sensitivity")
