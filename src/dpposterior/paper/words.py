"""The verdict words (:mod:`.verdicts` judges with them) and their order in every count a reader sees.

A module of plain strings: a render job counts an item's verdicts and reads whose statement each row checks
(:func:`source_of`) for its notebook's first cell from the CSV alone (:func:`dpposterior.paper.render.item_header`),
without loading pandas or scipy; it also reads an item's title and settings from its caption
(:func:`title_and_settings`) there.
"""

from __future__ import annotations

import re
from collections import Counter

REPRODUCED = "REPRODUCED"
PARTLY = "PARTLY"
NOT_REPRODUCED = "NOT REPRODUCED"
WITHIN_NOISE = "WITHIN NOISE"
CONSISTENT = "CONSISTENT"
INCONSISTENT = "INCONSISTENT"
NOT_REFUTED = "NOT REFUTED"
#: The check cannot fail for a correct implementation (it restates a definition or an identity); never counted
#: as REPRODUCED.
BY_CONSTRUCTION = "BY CONSTRUCTION"
#: The stated bound holds but says nothing where it is evaluated (e.g. a probability bound >= 1).
VACUOUS = "VACUOUS"
#: The claim cannot be checked (the row says why).
CANNOT_CHECK = "CANNOT CHECK"
#: The row asks a question and claims no answer (a draft's future-work question, or the project's own); the
#: computed column gives the answer. Never counted as REPRODUCED.
ANSWERED = "ANSWERED"

#: the order of the verdict words in every count (the verdict table, the first page, a notebook's first cell)
ORDER = [REPRODUCED, PARTLY, NOT_REPRODUCED, WITHIN_NOISE, NOT_REFUTED, BY_CONSTRUCTION, VACUOUS, CANNOT_CHECK,
         ANSWERED, CONSISTENT, INCONSISTENT]


def word_counts(words) -> dict[str, int]:
    """Rows per verdict word: the words of :data:`ORDER` in that order, then any other word (none is made by
    :mod:`.verdicts`) by decreasing count, the first seen first among equals."""
    c = Counter(words)
    others = sorted((w for w in c if w not in ORDER), key=lambda w: -c[w])
    return {w: c[w] for w in ORDER if c[w]} | {w: c[w] for w in others}


# ------------------------------------------------------------------ whose statement a row checks
#: The three kinds of row, by whose statement they check (:func:`whose`).
DRAFT, QUESTION, PROJECT = "a draft's claim", "a draft's question", "the project's own check"
#: The drafts by the name the claims cite them with: their version (the seed's number) and full name.
DRAFTS = {"arxiv draft": "arXiv draft (004)", "workshop draft": "workshop draft (000)", "sketch": "sketch (001)",
          "algorithm note": "algorithm note (003)"}
_REF = (r"(?:§\s*[\d.]+(?:-[\d.]+)?(?: future work \d)?"
        r"|(?:Thm|Cor\.|Lemmas?|Def\.|Fig\.|Table|abstract)\s*[\d.]*(?:-[\d.]+)?)")
_CITE = re.compile(r"\b(arXiv draft|workshop draft|sketch|algorithm note)\s+(" + _REF + r")", re.IGNORECASE)
#: The drafts' passages that ask a question and claim no answer (arXiv draft §8: future work 1 asks when the
#: exponential mechanisms beat the baselines, 3 asks about distances other than Hellinger; 2 states a finding).
QUESTIONS = ("arXiv draft (004) §8 future work 1", "arXiv draft (004) §8 future work 3")
#: The authors' statements outside the drafts (their published version, their code).
AUTHORS = {"icml 2019 version": "the authors' ICML 2019 version (real data)",
           "authors' recorded": "the authors' code (recorded values, not in the drafts)"}


def source_of(claim: str) -> str:
    """Whose statement the row ``claim`` checks, from the claim's own words: the first draft it cites with a section,
    theorem, figure or table (``"arXiv draft (004) §7.2.2"``; ``"... (a question)"`` when the passage is one of
    :data:`QUESTIONS` or the claim says the draft *asks*), the authors' ICML 2019 version or code, else the
    project's own finding or check (``"project"``; ``"project (a question)"`` for a claim that ends in a question
    mark). A claim opening "Beyond the drafts" is the project's whatever it cites."""
    text = str(claim).strip()
    low = text.lower()
    if not low.startswith("beyond the drafts"):
        m = _CITE.search(text)
        if m:
            src = f"{DRAFTS[m.group(1).lower()]} {m.group(2).strip()}"
            asks = src in QUESTIONS or re.match(r"\s*(\([^)]*\))?\s*asks\b", text[m.end():])
            return src + " (a question)" if asks else src
        for key, name in AUTHORS.items():
            if low.startswith(key):
                return name
    return "project (a question)" if text.endswith("?") else "project"


def whose(source: str) -> str:
    """The kind of a ``source`` (:func:`source_of`): :data:`DRAFT`, :data:`QUESTION` or :data:`PROJECT`."""
    s = str(source)
    if s.startswith("project"):
        return PROJECT
    return QUESTION if s.endswith("(a question)") else DRAFT
#: The kinds of row as a reader sees them named (the first page, a notebook's first cell), in this order.
KINDS = {DRAFT: "the drafts' claims", QUESTION: "the drafts' questions", PROJECT: "the project's own checks"}


def title_and_settings(caption: str) -> tuple[str, str]:
    """The first two sentences of an item's caption: its title and its settings line (every notebook's
    caption opens with the item's title, then the settings: prior, data, n, eps, runs). A sentence ends at
    ". " outside parentheses and braces, so "(arXiv draft Fig. 3b)" stays whole."""
    sentences, depth, start = [], 0, 0
    for i, ch in enumerate(caption):
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "." and depth <= 0 and caption[i + 1:i + 2] in (" ", "") and i > start:
            sentences.append(caption[start:i].strip())
            start = i + 1
            if len(sentences) == 2:
                break
    else:
        if caption[start:].strip():
            sentences.append(caption[start:].strip().rstrip("."))
    return (sentences + ["", ""])[0], (sentences + ["", ""])[1]
