rule data:
    """Data generation: the count vectors (and priors) of one accuracy experiment."""
    output:
        **stage_outputs("data"),
    params:
        spec=stage_spec("data"),
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("data"),
    benchmark:
        stage_benchmark("data")
    shell:
        stage_command("data")
