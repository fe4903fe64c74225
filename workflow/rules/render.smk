ITEM = paths.item_outputs("{item}", F, R)


rule parameters:
    """One item's notebook parameters (its `items:` entry, mechanisms and paths) as a JSON file, the render job's
    input: Snakemake reruns this job when the parameters change, and the render job when the file does. A shell
    printf (a `run:` block would start another Snakemake process per item)."""
    output:
        paths.fill(paths.PARAMETERS, results=R),
    params:
        parameters=item_parameters,
    localrule: True
    threads: 1
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("parameters", "{item}"),
    shell:
        "printf '%s\\n' {params.parameters:q} > {output:q} 2> {log:q}"


rule render:
    """One item: papermill runs its notebook template (notebooks/<template>.py) with the item's parameters and
    paths; the notebook draws the figure inline and writes the figure, its table, its verdicts and its caption."""
    input:
        item_inputs_list,
        template=template_of,
        parameters=rules.parameters.output[0],
    output:
        png=report(ITEM["png"], caption="../report/item.rst", category="Figures",
                   labels=item_labels("figure")),
        pdf=ITEM["pdf"],
        csv=ITEM["csv"],
        md=ITEM["md"],
        tex=ITEM["tex"],
        verdicts=ITEM["verdicts"],
        caption=ITEM["caption"],
        notebook=paths.fill(paths.NOTEBOOK, results=R),
        html=report(paths.fill(paths.NOTEBOOK_HTML, results=R), caption="../report/item.rst", category="Notebooks",
                    labels=item_labels("notebook")),
    threads: 1  # papermill runs one kernel; runtime: profiles/default/config.yaml
    resources:
        mem_mb=1536,  # the kernel plus the notebook: up to 889 MB RSS in the default config's renders (2026-11-27)
    conda:
        "../envs/dpposterior.yaml"
    log:
        stage_log("render", "{item}"),
    benchmark:
        stage_benchmark("render", "{item}")
    shell:
        "python -m dpposterior.paper render --template {input.template:q} --parameters {input.parameters:q} "
        "--notebook {output.notebook:q} --html {output.html:q} > {log:q} 2>&1"


rule verdicts:
    """Every claim of every item in one table: figures/verdicts.md and .csv, and the report's first page."""
    input:
        verdicts=expand(rules.render.output.verdicts, item=ITEMS),
        captions=expand(rules.render.output.caption, item=ITEMS),
    output:
        csv=report(paths.fill(paths.VERDICTS_CSV, figures=F), caption="../report/verdicts.rst", category="0. Verdicts",
                   labels={"item": "all", "title": "every claim of every item", "file": "table (CSV)"}),
        md=paths.fill(paths.VERDICTS_MD, figures=F),
        html=report(paths.fill(paths.VERDICTS_HTML, results=R), caption="../report/verdicts.rst", category="0. Verdicts",
                    labels={"item": "all", "title": "every claim of every item", "file": "table (HTML)"}),
    threads: 1  # mem_mb and runtime: profiles/default/config.yaml
    conda:
        "../envs/dpposterior.yaml"
    log:
        paths.fill(paths.VERDICTS_LOG, results=R),
    benchmark:
        paths.fill(paths.VERDICTS_BENCHMARK, results=R)
    shell:
        "python -m dpposterior.paper verdicts --inputs {input.verdicts:q} --captions {input.captions:q} "
        "--csv {output.csv:q} --md {output.md:q} --html {output.html:q} > {log:q} 2>&1"


rule index:
    """The first page a reader opens, next to the figures (<figures>/index.html): the verdict counts and one row
    per item (title, thumbnail, verdict counts, links to its figure, notebook and rows of the verdict table)."""
    input:
        csv=rules.verdicts.output.csv,
        table=rules.verdicts.output.html,
        figures=expand(rules.render.output.png, item=ITEMS),
        notebooks=expand(rules.render.output.html, item=ITEMS),
    output:
        paths.fill(paths.INDEX_HTML, figures=F),
    params:
        catalogue=index_items,
    threads: 1
    conda:
        "../envs/dpposterior.yaml"
    log:
        paths.fill(paths.INDEX_LOG, results=R),
    benchmark:
        paths.fill(paths.INDEX_BENCHMARK, results=R)
    shell:
        "python -m dpposterior.paper index --items {params.catalogue:q} --verdicts {input.csv:q} --table {input.table:q} "
        "--out {output:q} > {log:q} 2>&1"
