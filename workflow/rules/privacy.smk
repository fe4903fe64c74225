rule privacy_loss:
    """Exact concrete epsilon (local and worst case) of one mechanism over an n grid, against its claim;
    for a split entry, the merge of its one-n slices (rule privacy_slice)."""
    input:
        privacy_slices,
    output:
        f"{R}/privacy/{{experiment}}/{{mechanism}}.parquet",
    params:
        spec=lambda wc: privacy_spec(wc.experiment),
        progress=PROGRESS,
        merge=lambda wc, input: "--merge" if input else "",
    threads: 1  # single-process numpy; mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/privacy/{{experiment}}/{{mechanism}}.log",
    benchmark:
        f"{R}/benchmarks/privacy/{{experiment}}/{{mechanism}}.tsv"
    shell:
        "python -m dpposterior.paper privacy --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} {params.progress} {params.merge} {input:q} --out {output:q} > {log:q} 2>&1"


rule privacy_slice:
    """One n of a split privacy entry: the same computation as privacy_loss on the grid [n] (large n grids
    at k >= 3, where one n takes minutes, run as one job per n on a cluster)."""
    output:
        f"{R}/privacy/{{experiment}}/{{mechanism}}/n{{n}}.parquet",
    wildcard_constraints:
        n="[0-9]+",
    params:
        spec=lambda wc: privacy_spec(wc.experiment, n=int(wc.n)),
        progress=PROGRESS,
    threads: 1
    resources:
        # The largest slice of workflow/large.yaml (k = 3, n = 400, mh-delta), measured with /usr/bin/time:
        # peak RSS 1365 MB (the scan's chunks are bounded by privacy.WORK_BYTES), 1169 s CPU (461 s user,
        # 708 s system), 33 min wall on a shared 2-core machine. mem_mb: 2x, under the 4 GiB per job;
        # runtime (minutes): 3.5x that wall time.
        mem_mb=3072,
        runtime=120,
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/privacy/{{experiment}}/{{mechanism}}/n{{n}}.log",
    benchmark:
        f"{R}/benchmarks/privacy/{{experiment}}/{{mechanism}}/n{{n}}.tsv"
    shell:
        "python -m dpposterior.paper privacy --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} {params.progress} --out {output:q} > {log:q} 2>&1"
