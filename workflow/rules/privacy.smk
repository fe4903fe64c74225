PRIVACY = STAGES["privacy"]


rule privacy:
    """Exact concrete epsilon (local and worst case) of one mechanism over an n grid, against its claim;
    for a split entry, the merge of its one-n slices (rule privacy_slice)."""
    input:
        lambda wc: PRIVACY.slices(config, wc.experiment, wc.mechanism, R),
    output:
        **stage_outputs("privacy"),
    params:
        spec=stage_spec("privacy"),
        progress=PROGRESS,
        merge=lambda wc, input: "--merge" if input else "",
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("privacy"),
    benchmark:
        stage_benchmark("privacy")
    shell:
        PRIVACY.command(merge=True)


rule privacy_slice:
    """One n of a split privacy entry: the same computation as rule privacy on the grid [n] (large n grids
    at k >= 3, where one n takes minutes, run as one job per n on a cluster)."""
    output:
        privacy=paths.fill(PRIVACY.slice_output, results=R),
    wildcard_constraints:
        n="[0-9]+",
    params:
        spec=lambda wc: as_json(PRIVACY.slice_spec(config, wc.experiment, int(wc.n))),
        progress=PROGRESS,
    threads: 1
    resources:
        # The largest slice of workflow/large.yaml (k = 3, n = 400, mh-delta), measured with /usr/bin/time:
        # peak RSS 1365 MB (the scan's chunks are bounded by mechanisms.scan.WORK_BYTES), 1169 s CPU (461 s user,
        # 708 s system), 33 min wall on a shared 2-core machine. mem_mb: 2x, under the 4 GiB per job;
        # runtime (minutes): 3.5x that wall time.
        mem_mb=3072,
        runtime=120,
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("privacy", PRIVACY.slice_job),
    benchmark:
        stage_benchmark("privacy", PRIVACY.slice_job)
    shell:
        PRIVACY.command(merge=False)
