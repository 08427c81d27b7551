"""Shared helpers of the evidence parser tests: reading the stored real tool outputs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

SAMPLES = Path(__file__).parent / "samples"


def read_sample(path: str) -> str:
    """Text of ``samples/<path>`` (e.g. "ibstat/mlx4-cx3-fdr56-mt4099.txt"), decoded as UTF-8."""
    return (SAMPLES / path).read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def sample() -> Callable[[str], str]:
    """``sample(path)`` returns the text of one stored sample; session scope suits hypothesis."""
    return read_sample
