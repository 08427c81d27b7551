"""fio logs relayed with a prefix on every line (a CI runner, a logging framework, kubectl).

Each test takes a real fio output of the corpus and puts a relay's prefix before each of its
lines, the way the relay writes it: the figures must be those of the bare output, read from
the same line numbers. Lines that share no prefix are read as they are.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from scoring.evidence import fio, registry
from scoring.evidence.base import EvidenceParseError, strip_line_prefix

Sample = Callable[[str], str]

SEQREAD_TEXT = "fio/fio333-seqread-normal.txt"
SEQWRITE_JSON = "fio/fio333-seqwrite-json.txt"
RANDRW_TEXT = "fio/fio333-randrw-normal.txt"
RANDRW_JSON = "fio/fio333-randrw-json.txt"
MIXED = "fio/fio342-nvme-randwrite-header-json-normal.txt"
TERSE = "fio/rust-probe-fio336-terse-v3-randrw-nvme-one-line.txt"

PREFIXES = (
    "[node-3] ",
    "stdout: ",
    "[pod/fio-bench/fio] ",
    "2026-11-02T10:11:12.345Z INFO  ",
    "Dec  3 10:11:12 gpu-node-3 fio-run[4242]: ",
)


def _prefixed(text: str, prefix: str | Callable[[int], str]) -> str:
    """``text`` with ``prefix`` (or ``prefix(line_number)``) before each line; a relayed empty
    line keeps the prefix without its trailing blanks, as most relays write it."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        head = prefix(number) if callable(prefix) else prefix
        out.append(head + line if line.strip() else head.rstrip())
    return "\n".join(out) + "\n"


def _stamp(number: int) -> str:
    """A logging framework's time stamp, different on every line."""
    return f"2026-11-02T10:{number // 60 % 60:02}:{number % 60:02}.{number * 37 % 1000:03}Z INFO  "


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("path", [SEQREAD_TEXT, SEQWRITE_JSON, RANDRW_TEXT, RANDRW_JSON, MIXED])
def test_a_prefixed_log_reads_like_the_bare_output(sample: Sample, path: str, prefix: str) -> None:
    bare = fio.parse(sample(path))
    text = _prefixed(sample(path), prefix)
    assert registry.detect_kind(text) == "fio"
    assert fio.parse(text) == bare


def test_prefixed_text_report_keeps_figures_and_line_numbers(sample: Sample) -> None:
    result = fio.parse(_prefixed(sample(SEQREAD_TEXT), "[node-3] "))
    metrics = result.metrics
    # "READ: bw=1063MiB/s (1115MB/s)" on line 28, as in the bare report.
    assert (metrics["format"], metrics["fio_version"]) == ("normal", "fio-3.33")
    assert (metrics["read_bw_mbyte_s"], metrics["read_iops"]) == (1115.0, 1062.0)
    assert metrics["read_clat_mean_us"] == 884.03
    assert [(f.metric, f.value, f.line) for f in result.facts] == [
        ("read_bw_mbyte_s", 1115.0, 28),
        ("read_iops", 1062.0, 28),
    ]
    assert result.warnings == ()


def test_prefixed_json_through_kubectl_logs(sample: Sample) -> None:
    text = _prefixed(sample(SEQWRITE_JSON), "[pod/fio-bench/fio] ")
    metrics = fio.parse(text).metrics
    assert metrics["format"] == "json"
    assert metrics["write_bw_mbyte_s"] == 10220.603  # bw_bytes 10220602850
    assert metrics["write_iops"] == 9747.126


def test_time_stamps_that_change_from_line_to_line(sample: Sample) -> None:
    for path in (RANDRW_TEXT, RANDRW_JSON):
        text = _prefixed(sample(path), _stamp)
        assert registry.detect_kind(text) == "fio"
        metrics = fio.parse(text).metrics
        assert (metrics["read_bw_mbyte_s"], metrics["write_bw_mbyte_s"]) in {
            (39.6, 16.8),  # the text report
            (31.665, 13.44),  # the JSON run
        }


def test_prefixed_terse_line(sample: Sample) -> None:
    text = _prefixed(sample(TERSE), "stdout: ")
    assert registry.detect_kind(text) == "fio"
    assert fio.parse(text) == fio.parse(sample(TERSE))


def test_crlf_log_with_a_prefix(sample: Sample) -> None:
    text = _prefixed(sample(RANDRW_JSON), "[node-3] ").replace("\n", "\r\n")
    assert fio.parse(text) == fio.parse(sample(RANDRW_JSON))


def test_a_few_bare_lines_among_prefixed_ones_are_kept(sample: Sample) -> None:
    # The relay's own messages around the run carry no prefix; the fio lines all do.
    text = (
        "Running fio on gpu-node-3\n"
        + _prefixed(sample(SEQREAD_TEXT), "[node-3] ")
        + "fio finished with code 0\n"
    )
    metrics = fio.parse(text).metrics
    assert metrics["read_bw_mbyte_s"] == 1115.0


def test_truncated_prefixed_json_is_an_error_with_its_line(sample: Sample) -> None:
    bare = sample(SEQWRITE_JSON)[:3000]
    with pytest.raises(EvidenceParseError, match="fio JSON is unreadable") as bare_err:
        fio.parse(bare)
    with pytest.raises(EvidenceParseError, match="fio JSON is unreadable") as err:
        fio.parse(_prefixed(bare, "stdout: "))
    assert err.value.line == bare_err.value.line


def test_two_nodes_interleaved_share_no_prefix(sample: Sample) -> None:
    # "[node-3] " and "[node-4] " on alternate lines: no prefix is common to the large
    # majority, nothing is stripped, and the JSON (whose "{" line is tagged) is not found.
    text = _prefixed(sample(SEQWRITE_JSON), lambda n: f"[node-{3 + n % 2}] ")
    lines = text.splitlines()
    assert strip_line_prefix(lines, fio._FIRST_TOKEN_RE) == (lines, None)
    with pytest.raises(EvidenceParseError, match="no fio results found") as err:
        fio.parse(text)
    assert err.value.code == "fio.nothing"


def test_half_prefixed_report_is_read_as_it_is(sample: Sample) -> None:
    bare = sample(RANDRW_TEXT).splitlines()
    mixed = [f"[node-3] {line}" if n % 2 else line for n, line in enumerate(bare)]
    assert strip_line_prefix(mixed, fio._FIRST_TOKEN_RE) == (mixed, None)


def test_an_unprefixed_sample_is_left_alone(sample: Sample) -> None:
    # A Jenkins time stamp on the first line only (spdk#771): not a prefix of the report.
    lines = sample("fio/spdk-issue771-nvmf-jenkins-log-randrw-summary-zero-disk-stats.txt")
    assert strip_line_prefix(lines.splitlines(), fio._FIRST_TOKEN_RE)[1] is None
    for path in (SEQREAD_TEXT, SEQWRITE_JSON, MIXED, TERSE):
        bare = sample(path).splitlines()
        assert strip_line_prefix(bare, fio._FIRST_TOKEN_RE) == (bare, None)


def test_a_job_name_with_a_space_is_no_prefix() -> None:
    text = (
        "my job: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) 4096B-4096B\n"
        "fio-3.33\n"
        "Starting 1 process\n"
    )
    lines = text.splitlines()
    assert strip_line_prefix(lines, fio._FIRST_TOKEN_RE) == (lines, None)


def test_long_lines_without_blanks_are_searched_quickly() -> None:
    # A blob or a rule line: the prefix search must not go quadratic on it.
    start = time.perf_counter()
    for text in ("a" * 65536, ("x" * 1000 + ": (y\n") * 200):
        assert fio.detect(text) == 0
        assert strip_line_prefix(text.splitlines(), fio._FIRST_TOKEN_RE)[1] is None
    assert time.perf_counter() - start < 2
