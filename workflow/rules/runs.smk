rule run_mechanism:
    """Mechanism runs: `runs` releases per point of one (experiment, mechanism), plus the exact error law."""
    input:
        data="results/data/{experiment}.parquet",
    output:
        runs="results/runs/{experiment}/{mechanism}.parquet",
        exact="results/exact/{experiment}/{mechanism}.parquet",
    params:
        py=PY,
        spec=lambda wc: spec_json("accuracy", wc.experiment),
        seed=config["seed"],
        runs=config["runs"],
        exact_max=config["exact_max_candidates"],
        progress=PROGRESS,
    conda:
        "../envs/dpposterior.yaml"
    log:
        "logs/runs/{experiment}/{mechanism}.log",
    benchmark:
        "results/benchmarks/runs/{experiment}/{mechanism}.tsv"
    shell:
        "{params.py} workflow/scripts/run_accuracy.py --experiment {wildcards.experiment:q} --mechanism {wildcards.mechanism:q} "
        "--spec {params.spec:q} --data {input.data:q} --seed {params.seed} --runs {params.runs} "
        "--exact-max {params.exact_max} {params.progress} --out-runs {output.runs:q} --out-exact {output.exact:q} "
        "> {log:q} 2>&1"
