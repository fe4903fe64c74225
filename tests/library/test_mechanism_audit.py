"""The library mechanisms' audit (dpposterior.mechanism_audit): its time estimate and budget."""

from __future__ import annotations

import pytest

from dpposterior import audit, mechanism_audit
from dpposterior.errors import SizeError
from dpposterior.mechanisms import MECHANISMS


def test_audit_time_estimate_and_its_budget(monkeypatch):
    est = mechanism_audit.check_audit_time("lshist", 100, 2, 10**6)
    assert est == pytest.approx(2 * 10**6 * 2 * MECHANISMS["lshist"].audit_entry_seconds(100, 2))
    # the rejection sampler (|R(n)| > 20000) adds its tables once per batch of draws
    slow = mechanism_audit.check_audit_time("ehd", 10**5, 2, 10**6)
    batches = -(-10**6 // audit.batch_rows(2))
    assert slow == pytest.approx(2 * (10**6 * 2 * 1.7e-6 + batches * 2 * (10**5 + 1) * 0.6e-6))
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_AUDIT_SECONDS"):
        mechanism_audit.check_audit_time("ehd", 10**5, 2, 2 * 10**7)
    monkeypatch.setenv("DPPOSTERIOR_MAX_AUDIT_SECONDS", str(est * 0.99))
    with pytest.raises(SizeError, match="over the limit"):
        mechanism_audit.check_audit_time("lshist", 100, 2, 10**6)
    with pytest.raises(SizeError, match="DPPOSTERIOR_MAX_AUDIT_SECONDS"):
        mechanism_audit.audit_mechanism("lshist", [1, 1], 100, pair=([50, 50], [49, 51]), epsilon=1, samples=10**6)
