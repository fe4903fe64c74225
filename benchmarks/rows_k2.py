"""CPU of the k = 2 rows that `frontier`'s n = 1e4 points walk: ``HellingerGrid.rows`` and the clamped log-pmf rows.

    PYTHONPATH=SRC python benchmarks/rows_k2.py [--n 10000] [--block 52] [--json F]

Times (``time.process_time``) every block of ``--block`` data sets of R(n) at k = 2, prior (1, 1), as the walk of
:func:`dpposterior.accuracy.errors_of` reads them (52 rows of 10,001 at ``CACHE_CHUNK_BYTES``): the Hellinger grid's
rows of both coordinates (ascending and descending counts) and ``clamped_log_pmf_rows`` of `lszhang`'s Laplace tables at
eps = 1, with a digest of every float, so that two trees run one after the other (``PYTHONPATH`` of each) show their
CPU side by side and that their bits agree.  Thread counts 1, as in the pipeline's jobs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--block", type=int, default=52)
    ap.add_argument("--json")
    args = ap.parse_args(argv)

    import dpposterior
    from dpposterior.distances import HellingerGrid
    from dpposterior.mechanisms import laplace_noise_tables, laplace_scale
    from dpposterior.mechanisms.clamped import clamped_log_pmf_rows
    from dpposterior.models import candidates

    n, B = args.n, args.block
    cands = candidates(n, 2)
    out = {"src": os.path.dirname(dpposterior.__file__), "n": n, "block": B}
    grid = HellingerGrid([1.0, 1.0], n)
    digest = hashlib.sha1()
    t = time.process_time()
    for lo in range(0, n + 1, B):
        block = cands[lo:lo + B]
        for i in range(2):
            digest.update(grid.rows(i, block[:, i]).tobytes())
    out["hellinger_rows_cpu_s"] = round(time.process_time() - t, 3)
    out["hellinger_rows_sha1"] = digest.hexdigest()
    tables = laplace_noise_tables(laplace_scale("lszhang", 2, 1.0), n)
    digest = hashlib.sha1()
    t = time.process_time()
    for lo in range(0, n + 1, B):
        digest.update(clamped_log_pmf_rows(tables, cands[lo:lo + B], cands).tobytes())
    out["clamped_rows_cpu_s"] = round(time.process_time() - t, 3)
    out["clamped_rows_sha1"] = digest.hexdigest()
    print(json.dumps(out))
    if args.json:
        with open(args.json, "a", encoding="utf-8") as f:
            f.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
