"""The lattice (K-norm) release at any k >= 2, its remaps at k >= 3, and a certified lower bound on the optimum.

Definitions and proofs: docs/lattice.md and the module docstrings of :mod:`.noise` (the noise, its exact
sampler, the kernel and its truncation, the privacy proof), :mod:`.remap` (Bayes and minimax remaps,
certificates, the exact pmf over R(n)), :mod:`.pointwise` (the pmf at one data set, from the remap near it) and
:mod:`.yardstick` (the lower bound).
"""
