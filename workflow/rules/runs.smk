rule runs:
    """Mechanism runs: `runs` releases per point of one (experiment, mechanism), plus the exact error law."""
    input:
        data=rules.data.output.data,
    output:
        **stage_outputs("runs"),
    params:
        spec=stage_spec("runs"),
        progress=PROGRESS,
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("runs"),
    benchmark:
        stage_benchmark("runs")
    shell:
        stage_command("runs")
