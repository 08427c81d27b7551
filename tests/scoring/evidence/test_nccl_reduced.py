"""Tables after the first of a streamed nccl log are reduced as they are read (no rows kept):
their summaries and curve facts equal those of the whole-text parse, whatever their format."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence import nccl
from scoring.evidence.base import EvidenceParseError, decode_text

SAMPLES = sorted((Path(__file__).parent / "samples" / "nccl_tests").glob("*.txt"))
# Each sample followed by the next one (another format, N/A cells, old "error" columns, a
# truncated last row...), and each sample three times over.
LOGS = [(a, b) for a, b in zip(SAMPLES, SAMPLES[1:] + SAMPLES[:1], strict=True)] + [
    (a, a) for a in SAMPLES
]


@pytest.mark.parametrize("first,second", LOGS, ids=lambda p: p.name)
def test_reduced_tables_give_what_the_kept_rows_give(first, second):
    text = decode_text(first.read_bytes()) + "\n" + decode_text(second.read_bytes())
    if first == second:
        text += "\n" + text
    try:
        full = nccl.parse(text)
    except EvidenceParseError as exc:
        with pytest.raises(EvidenceParseError) as streamed_error:
            nccl.parse_lines(nccl.iter_lines(text))
        assert str(streamed_error.value) == str(exc)
        return
    streamed = nccl.parse_lines(nccl.iter_lines(text, chunk=512))
    assert streamed.metrics == full.metrics
    assert streamed.warnings == full.warnings
    rows = [f for f in full.facts if f.metric == "busbw_gbyte_s"]
    curves = [f for f in streamed.facts if f.metric == "busbw_curve_gbyte_s"]
    for key, fact_key in (("busbw_gbyte_s", None), ("algbw_gbyte_s", "algbw_gbyte_s"),
                          ("time_us", "time_us"), ("placement", "placement"),
                          ("size_bytes", "size_bytes")):  # fmt: skip
        joined = [v for f in curves for v in f.details[key]]
        expected = [f.value if fact_key is None else f.details[fact_key] for f in rows]
        assert joined == expected, key
    assert [v for f in curves for v in f.details["lines"]] == [f.line for f in rows]
    assert [f.value for f in curves] == [max(f.details["busbw_gbyte_s"]) for f in curves]
