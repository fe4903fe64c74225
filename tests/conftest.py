"""Shared hypothesis strategies and fixtures for the core-library tests.

Sizes stay tiny (n <= 8, k in 2..4) so the brute-force references in ``reference.py``
run in milliseconds; priors are drawn from [0.1, 5], which includes the priors below 1
where the paper's constants break.

The tests are grouped by subject (library/, cli/, pipeline/, project/): see tests/README.md.

Hypothesis profiles: ``dev`` (the default) draws afresh on every run, so each run of the suite
may find a case no run found before; ``ci`` (``HYPOTHESIS_PROFILE=ci``, or any run with ``CI``
set, as ``.ci/run`` does) draws the same examples on every run (``derandomize``, no deadline), so a landing
is judged on the code, not on the luck of its draw.  Either prints the blob that replays a
failure (``@reproduce_failure``); a failure found in ``dev`` is pinned as an ``@example``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))  # make `import reference` work under xdist

# explicit on both sides: hypothesis loads its own "ci" profile when it sees CI set, and a new profile inherits it
settings.register_profile("dev", derandomize=False, print_blob=True)
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

# every mechanism with a closed-form pmf (``optimal``, a linear program, has its own tests)
MECHANISM_IDS = ("ehd", "ehdl", "ehds", "mh", "mh-delta", "lszhang", "lsdim", "lshist", "geometric")
ALL_IDS = MECHANISM_IDS + ("optimal", "remapped-geometric", "lattice")  # optimal.py, lattice.py
EXPONENTIAL_IDS = ("ehd", "ehdl", "ehds", "mh", "mh-delta")
LAPLACE_IDS = ("lszhang", "lsdim", "lshist")
GEOMETRIC_IDS = ("geometric",)

# Rounded to 3 decimals so the brute-force cache in reference.brute gets hits.
prior_value = st.floats(min_value=0.1, max_value=5.0, allow_nan=False).map(lambda x: round(x, 3))
# half the draws below 1
prior_value_low = st.one_of(st.floats(min_value=0.1, max_value=1.0).map(lambda x: round(x, 3)), prior_value)


@st.composite
def setting(draw, k_min=2, k_max=4, n_max=8, n_max_k4=6):
    """(prior tuple, counts tuple) with k in [k_min, k_max], 1 <= n <= n_max (n_max_k4 when k = 4)."""
    k = draw(st.integers(k_min, k_max))
    n = draw(st.integers(1, n_max_k4 if k == 4 else n_max))
    prior = tuple(draw(prior_value_low) for _ in range(k))
    cuts = sorted(draw(st.lists(st.integers(0, n), min_size=k - 1, max_size=k - 1)))
    bounds = [0, *cuts, n]
    counts = tuple(bounds[i + 1] - bounds[i] for i in range(k))
    return prior, counts


epsilons = st.sampled_from([0.3, 0.5, 1.0, 2.0, 3.0])
gammas = st.sampled_from([0.25, 0.5, 1.0, 2.0])
deltas = st.sampled_from([1e-8, 1e-4, 5e-4, 0.05])


@st.composite
def distance_setting(draw):
    """(distance, prior, n): tv at k = 2 (its domain), kl at k = 2 or 3; n small enough for the brute force."""
    distance = draw(st.sampled_from(["tv", "kl"]))
    k = 2 if distance == "tv" else draw(st.sampled_from([2, 3]))
    prior = tuple(draw(prior_value_low) for _ in range(k))
    n = draw(st.integers(1, 4 if k == 2 else 2))
    return distance, prior, n


#: node ids of the heavy checks (tests/heavy.txt says how they were chosen); marked ``heavy`` at collection
HEAVY = frozenset(line.strip() for line in (Path(__file__).parent / "heavy.txt").read_text().splitlines()
                  if line.strip() and not line.startswith("#"))


def pytest_collection_modifyitems(config, items):
    """Mark the tests listed in tests/heavy.txt ``heavy`` (the default run, `-m "not heavy"`, leaves them out)."""
    import pytest

    for item in items:
        if item.nodeid in HEAVY:
            item.add_marker(pytest.mark.heavy)


@pytest.fixture
def evaluated_loss_rows(monkeypatch):
    """The k = 4 plans and checks priced as the route before the band tables (past n = 511 the grouped search's loss
    rows were evaluated: ``loss_tables`` the square Jensen table alone), for the recorded runs of that route; the
    family's cached costs (``_cut_release_most``) cleared before and after."""
    from dpposterior.lattice import batched
    from dpposterior.lattice.remap import square_table
    from dpposterior.mechanisms import lattice as lattice_module

    lattice_module._cut_release_most.cache_clear()
    monkeypatch.setattr(batched, "loss_tables", lambda n, k, eps: square_table(n))
    yield
    lattice_module._cut_release_most.cache_clear()
