"""Shared helpers of the pipeline scripts: seeds, logging, atomic parquet writes."""

from __future__ import annotations

import json
import logging
import os
import sys
import zlib
from pathlib import Path

import numpy as np
import pandas as pd


def stable_int(text: str) -> int:
    """A stable 32-bit integer for a string (crc32; Python's hash() is salted per process)."""
    return zlib.crc32(text.encode("utf-8"))


def job_rng(base_seed: int, *key: object) -> tuple[np.random.Generator, str]:
    """Generator for one job/point: SeedSequence([base, stable ints of the key]). Independent of --cores."""
    ints = [int(base_seed)] + [k if isinstance(k, int) else stable_int(str(k)) for k in key]
    label = "/".join([str(base_seed)] + [str(k) for k in key])
    return np.random.default_rng(np.random.SeedSequence(ints)), label


def setup_logging(log: str | None) -> logging.Logger:
    logger = logging.getLogger("dpposterior.pipeline")
    logger.setLevel(logging.INFO)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    return logger


def load_spec(text: str) -> dict:
    return json.loads(text)


def write_parquet(df: pd.DataFrame, path: str) -> None:
    """Write via a temporary file and rename, so a failed job leaves no partial output."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    df.to_parquet(tmp, index=False, compression="zstd")
    os.replace(tmp, out)
