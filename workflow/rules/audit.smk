rule audit:
    """Black-box lower bounds on the privacy loss from samples only (dpposterior.audit), at the exact worst
    and local pairs per n, at the settings of the `privacy:` entry the `audit:` entry names."""
    output:
        **stage_outputs("audit"),
    params:
        spec=stage_spec("audit"),
        progress=PROGRESS,
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("audit"),
    benchmark:
        stage_benchmark("audit")
    shell:
        stage_command("audit")
