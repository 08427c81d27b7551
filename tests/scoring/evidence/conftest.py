"""Shared helpers of the evidence parser tests: stored real tool outputs, the parse contract."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from scoring.evidence.base import EvidenceParseError, ParseResult

SAMPLES = Path(__file__).parent / "samples"

ParseContract = Callable[..., None]


def read_sample(path: str) -> str:
    """Text of ``samples/<path>`` (e.g. "ibstat/mlx4-cx3-fdr56-mt4099.txt"), decoded as UTF-8."""
    return (SAMPLES / path).read_text(encoding="utf-8")


def check_parse_contract(
    module: ModuleType,
    kind: str,
    text: str,
    invariant: Callable[[ParseResult], None] | None = None,
) -> None:
    """Any text gives a score in 0..100 and either a JSON-safe result or an error of ``kind``."""
    assert 0 <= module.detect(text) <= 100
    try:
        result = module.parse(text)
    except EvidenceParseError as exc:
        assert exc.kind == kind
        return
    assert isinstance(result, ParseResult)
    if invariant is not None:
        invariant(result)
    json.dumps(result.metrics, allow_nan=False)


@pytest.fixture(scope="session")
def sample() -> Callable[[str], str]:
    """``sample(path)`` returns the text of one stored sample; session scope suits hypothesis."""
    return read_sample


@pytest.fixture(scope="session")
def parse_contract() -> ParseContract:
    """``parse_contract(module, kind, text[, invariant])``: the contract every parser keeps."""
    return check_parse_contract
