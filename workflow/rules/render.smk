FIGURE_REGEX = "|".join(FIGURE_ITEMS) or "NONE"
TABLE_REGEX = "|".join(TABLE_ITEMS) or "NONE"


rule render_figure:
    """papermill runs the item's template (results only), nbconvert renders it; writes figures/<item>.pdf/.png."""
    input:
        item_inputs,
        template=template_of,
    output:
        pdf=report("figures/{item}.pdf", caption="../report/figure.rst", category="Figures"),
        png=report("figures/{item}.png", caption="../report/figure.rst", category="Figures"),
        notebook="results/notebooks/{item}.ipynb",
        html="results/notebooks/{item}.html",
    wildcard_constraints:
        item=FIGURE_REGEX,
    params:
        py=PY,
        parameters=item_parameters,
    conda:
        "../envs/dpposterior.yaml"
    log:
        "logs/render/{item}.log",
    shell:
        "{params.py} workflow/scripts/render.py --template {input.template:q} --parameters {params.parameters:q} "
        "--notebook {output.notebook:q} --html {output.html:q} > {log:q} 2>&1"


rule render_table:
    """As render_figure for a table item: figures/<item>.csv, .md and .tex."""
    input:
        item_inputs,
        template=template_of,
    output:
        csv=report("figures/{item}.csv", caption="../report/table.rst", category="Tables"),
        md="figures/{item}.md",
        tex="figures/{item}.tex",
        notebook="results/notebooks/{item}.ipynb",
        html="results/notebooks/{item}.html",
    wildcard_constraints:
        item=TABLE_REGEX,
    params:
        py=PY,
        parameters=item_parameters,
    conda:
        "../envs/dpposterior.yaml"
    log:
        "logs/render/{item}.log",
    shell:
        "{params.py} workflow/scripts/render.py --template {input.template:q} --parameters {params.parameters:q} "
        "--notebook {output.notebook:q} --html {output.html:q} > {log:q} 2>&1"
