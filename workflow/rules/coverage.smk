rule coverage:
    """Exact coverage of the naive Dir(a + m) and of the noise-aware intervals, one mechanism over an (n, eps) grid."""
    output:
        **stage_outputs("coverage"),
    params:
        spec=stage_spec("coverage"),
    threads: 1
    resources:
        mem_mb=2000,  # measured peak 203 MB (the default config, 2026-11-27), with a wide margin
        runtime=30,
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("coverage"),
    benchmark:
        stage_benchmark("coverage")
    shell:
        stage_command("coverage")
