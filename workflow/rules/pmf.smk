rule pmf:
    """Exact output distribution of one mechanism at one (prior, c) (arXiv draft Fig. 3, workshop draft Tables 1-2)."""
    output:
        **stage_outputs("pmf"),
    params:
        spec=stage_spec("pmf"),
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("pmf"),
    benchmark:
        stage_benchmark("pmf")
    shell:
        stage_command("pmf")
