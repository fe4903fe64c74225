rule render:
    """One item: papermill runs its notebook template (notebooks/<template>.py) with the item's parameters and
    paths; the notebook draws the figure inline and writes the figure, its table, its verdicts and its caption."""
    input:
        item_inputs,
        template=template_of,
    output:
        png=report(f"{F}/{{item}}.png", caption="../report/item.rst", category="Figures",
                   labels={"item": "{item}", "file": "figure"}),
        pdf=f"{F}/{{item}}.pdf",
        csv=f"{F}/{{item}}.csv",
        md=f"{F}/{{item}}.md",
        tex=f"{F}/{{item}}.tex",
        verdicts=f"{R}/verdicts/{{item}}.csv",
        caption=f"{R}/captions/{{item}}.txt",
        notebook=f"{R}/notebooks/{{item}}.ipynb",
        html=report(f"{R}/notebooks/{{item}}.html", caption="../report/item.rst", category="Notebooks",
                    labels={"item": "{item}", "file": "notebook"}),
    params:
        parameters=item_parameters,
    threads: 1  # papermill runs one kernel; runtime: profiles/default/config.yaml
    resources:
        mem_mb=1536,  # the kernel plus the notebook: up to 658 MB RSS in the quick config's render benchmarks, x2
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/render/{{item}}.log",
    benchmark:
        f"{R}/benchmarks/render/{{item}}.tsv"
    shell:
        "python -m dpposterior.paper render --template {input.template:q} --parameters {params.parameters:q} "
        "--notebook {output.notebook:q} --html {output.html:q} > {log:q} 2>&1"


rule verdicts:
    """Every claim of every item in one table: figures/verdicts.md and .csv, and the report's first page."""
    input:
        verdicts=expand(f"{R}/verdicts/{{item}}.csv", item=ITEMS),
        captions=expand(f"{R}/captions/{{item}}.txt", item=ITEMS),
    output:
        csv=report(f"{F}/verdicts.csv", caption="../report/verdicts.rst", category="0. Verdicts",
                   labels={"item": "all", "file": "table (CSV)"}),
        md=f"{F}/verdicts.md",
        html=report(f"{R}/report/verdicts.html", caption="../report/verdicts.rst", category="0. Verdicts",
                    labels={"item": "all", "file": "table (HTML)"}),
    threads: 1  # mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        f"{R}/logs/verdicts.log",
    benchmark:
        f"{R}/benchmarks/verdicts.tsv"
    shell:
        "python -m dpposterior.paper verdicts --inputs {input.verdicts:q} --captions {input.captions:q} "
        "--csv {output.csv:q} --md {output.md:q} --html {output.html:q} > {log:q} 2>&1"
