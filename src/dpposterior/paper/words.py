"""The verdict words (:mod:`.verdicts` judges with them) and their order in every count a reader sees.

A module of plain strings: a render job counts an item's verdicts for its notebook's first cell from the CSV
alone (:func:`dpposterior.paper.render.verdict_summary`), without loading pandas or scipy.
"""

from __future__ import annotations

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
