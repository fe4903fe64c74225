"""The auditor counts its draws as they come: identical statistics to counting kept
arrays, memory bounded by one batch plus the distinct outputs, and a draw budget checked first."""

from __future__ import annotations

import numpy as np
import pytest

from dpposterior import audit as A
from dpposterior.errors import InputError, SizeError


def _sampler(dataset, size, rng):
    """A black box with a few integer outputs: shifted binomials."""
    return rng.binomial(6, 0.3 + 0.1 * dataset, size=size)[:, None] + np.array([[0, 1]])


@pytest.mark.parametrize("samples", [1000, A._CHUNK + 7, 2 * A._CHUNK + 3])
def test_streamed_audit_equals_the_audit_of_the_kept_draws(samples):
    rng = np.random.default_rng(11)  # the same stream: side 0's batches, then side 1's
    kept = [np.concatenate([_sampler(d, min(A._CHUNK, samples - s), rng) for s in range(0, samples, A._CHUNK)])
            for d in (0, 1)]
    expected = A.audit_samples(kept[0], kept[1], pair=(0, 1), delta_at=0.2)
    got = A.audit(_sampler, 0, 1, samples=samples, seed=np.random.default_rng(11), delta_at=0.2)
    assert got.to_dict() == expected.to_dict()


def test_audit_never_holds_more_than_one_batch(monkeypatch):
    seen = []

    def sampler(dataset, size, rng):
        seen.append(size)
        return _sampler(dataset, size, rng)

    monkeypatch.setattr(A, "_CHUNK", 1000)
    hist_sizes = []
    real_merge = A._Histogram._merge

    def merge(self, side, part, rows):
        hist_sizes.append(rows.shape[0])
        real_merge(self, side, part, rows)
        assert self.uniq.shape[0] <= 7 * 2  # distinct outputs only

    monkeypatch.setattr(A._Histogram, "_merge", merge)
    A.audit(sampler, 0, 1, samples=25_000, seed=1)
    assert max(seen) == 1000 and sum(seen) == 50_000 and max(hist_sizes) <= 1000


def test_draw_budget_refuses_before_drawing(monkeypatch):
    calls = []
    monkeypatch.setenv("DPPOSTERIOR_MAX_AUDIT_SAMPLES", "1e4")
    with pytest.raises(SizeError) as err:
        A.audit(lambda d, s, r: calls.append(s) or _sampler(d, s, r), 0, 1, samples=20_000, seed=1)
    assert not calls
    msg = str(err.value)
    assert "\n" not in msg and "DPPOSTERIOR_MAX_AUDIT_SAMPLES" in msg and "2e+04 samples per side" in msg
    with pytest.raises(SizeError, match="4 pairs"):
        A.audit_search(_sampler, [(0, 1)] * 4, samples=5000, seed=1)
    A.audit_search(_sampler, [(0, 1)] * 2, samples=5000, seed=1)  # 1e4: at the budget, accepted


@pytest.mark.parametrize("value", ["lots", "-5", "nan", "0"])
def test_malformed_budget_setting_is_one_line(monkeypatch, value):
    monkeypatch.setenv("DPPOSTERIOR_MAX_AUDIT_SAMPLES", value)
    with pytest.raises(InputError, match="DPPOSTERIOR_MAX_AUDIT_SAMPLES must be a positive"):
        A.audit(_sampler, 0, 1, samples=1000, seed=1)
