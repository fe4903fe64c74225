rule expected_error:
    """Exact worst-case and average expected error of one mechanism (or variant, e.g. ehds~calibrated) on a grid."""
    input:
        # optimal~worst reads lattice~worst's grid (the rows of the same release), and a job reads its mechanism's
        # grids of the experiments before it that share points with it (those rows computed once)
        unpack(same_release_input),
    output:
        **stage_outputs("expected_error"),
    params:
        spec=stage_spec("expected_error"),
        same=lambda wildcards, input: input.get("same", ""),
        earlier=earlier_grids_param,
    threads: 1
    resources:
        mem_mb=4096,  # the library's memory budget per call (4 GiB: every plan is admitted up to it); measured peak
        # 3.4 GB (which-to-use lattice~worst: k = 4, n = 10, eps = 1, the corner remap's errors; 2026-11-28)
        runtime=120,  # the slowest (which-to-use's optimal~worst) took 314 s, 8 jobs on 2 cores (2026-11-27)
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("expected_error"),
    benchmark:
        stage_benchmark("expected_error")
    shell:
        stage_command("expected_error")
