rule expected_error:
    """Exact worst-case and average expected error of one mechanism (or variant, e.g. ehds~calibrated) on a grid."""
    output:
        **stage_outputs("expected_error"),
    params:
        spec=stage_spec("expected_error"),
    threads: 1
    resources:
        mem_mb=2000,  # measured peak ~700 MB (quick and default runs), with margin
        runtime=120,  # the optimal LP jobs of the default frontier took 23-40 min on 2 shared cores
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("expected_error"),
    benchmark:
        stage_benchmark("expected_error")
    shell:
        stage_command("expected_error")
