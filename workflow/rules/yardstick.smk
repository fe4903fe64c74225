rule yardstick:
    """A certified lower bound on the best achievable error at every k >= 3 point of one expected-error grid."""
    output:
        **stage_outputs("yardstick"),
    wildcard_constraints:
        experiment="|".join(STAGES["yardstick"].experiments(config)) or "(?!)",  # no entry asks for it: no job
    params:
        spec=stage_spec("yardstick"),
    threads: 1
    resources:
        mem_mb=2000,  # the block LPs and the flows: each plan's memory estimate, under 1.5 GB
        runtime=10,
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("yardstick"),
    benchmark:
        stage_benchmark("yardstick")
    shell:
        stage_command("yardstick")
