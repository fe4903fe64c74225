"""Which claimed privacy guarantees are proven theorems (the one place the claims read it)."""

from __future__ import annotations

#: Mechanisms whose claimed guarantee is a textbook theorem (exponential mechanism with the global sensitivity,
#: Laplace/geometric noise on counts): their "concrete eps <= claimed" rows are implementation checks.
PROVEN_DP = frozenset({"ehd", "lsdim", "lszhang", "lshist", "geometric"})
