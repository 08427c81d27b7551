"""Parser for nccl-tests results (all_reduce_perf and every other ``*_perf`` collective).

Handles every output generation seen in the wild: pre-2019 tables without ``#`` and without
``redop``/``root`` columns (``error`` = max deviation), 2020-era tables with ``redop`` only,
current tables with ``redop root ... #wrong``, NCCL 1.x ``bytes N type op ... res`` headers,
``N/A`` values, blank ``redop`` cells (old alltoall), ``%g`` numbers, lines tagged by
mpirun (``[1,0]<stdout>:``), srun (``0: ``), MPICH / Intel MPI's Hydra (``[0] ``, repeated
inside a line where one printf ended), Ray / SkyPilot (``(head, rank=0, pid=N) ``) or
``kubectl logs --prefix`` (``[pod/<name>/<container>] ``), result rows alone (a log tail), the
"nccl-tests version" / "Collective test starting|concluded" banners, device lists from many
processes and hosts, and MPI / NCCL / UCX noise interleaved. A last row that stops before
its in-place columns is a paste cut there: left out, with the truncation warning. Columns
are found from the header line and rows are split on whitespace: widths are never trusted.

Its JSON report (``-J <path>``) is read through the text table it stands for (json_report):
the same figures, plus ``format`` "json", ``json_version``, ``errors`` and ``wrong_result``
(the first wrong row as "results[3]"; ``wrong_line`` and every fact's line are None there).

Units: nccl-tests prints algbw/busbw in GB/s with GB = 10^9 bytes (it divides by 1.0E9), time
in microseconds, sizes in bytes.

metrics
    collective           "all_reduce", "alltoall", ... from the binary name or banner; None
                         when the output never names it. A name first seen after a table that
                         printed its summary ("./broadcast_perf ..." starting the next run)
                         does not name that table.
    collective_inferred  True when ``collective`` was not named but inferred from the table:
                         busbw/algbw is 2(n-1)/n for all_reduce, (n-1)/n for all_gather,
                         reduce_scatter and alltoall, 1 for broadcast/reduce/sendrecv; the
                         count column (size / type size / n for the per-rank collectives), the
                         redop (a reduction or "none") and root (-1 or a rank) narrow it.
    collective_candidates  the collectives the table fits when none is named ([] when named);
                         several when the table cannot tell them apart (all_gather/alltoall;
                         all_reduce/sendrecv over 2 ranks): ``collective`` then stays None.
    ranks_inferred       n derived from that ratio or the count column, for a named collective
                         too (None when unknown: busbw = algbw says nothing of n for broadcast,
                         reduce or sendrecv).
    collectives          every collective named, in order of appearance.
    net_plugins          network transports named by NCCL INFO lines: "GCP GPUDirect-TCPX",
                         "GCP GPUDirect-TCPXO", "AWS EFA", "libfabric (OFI)", "InfiniBand",
                         "Socket" ([] when NCCL_DEBUG=INFO was off).
    ranks                number of ranks: the distinct ranks in the device list ("Rank N ...
                         device"), at least its highest rank + 1 and NCCL's "nranks N" (a
                         per-node log lists only its own ranks); None when neither is shown.
    peak_busbw_gbyte_s   largest busbw of any row, in- or out-of-place (first table).
    peak_size_bytes      size of the row holding that peak.
    avg_busbw_gbyte_s    the tool's "Avg bus bandwidth", None when not printed.
    wrong_total          "#wrong" columns: sum of the printed counts (None when every cell was
                         N/A, i.e. -c 0). Old "error" columns hold a deviation, not a count: there
                         wrong_total is the "Out of bounds values" count, None if not printed.
    wrong_unchecked      number of N/A cells in the #wrong/error columns.
    max_error            largest value of an old-style "error" column (None otherwise).
    out_of_bounds        the "Out of bounds values" count; out_of_bounds_ok its OK/FAILED.
    wrong_line           the line showing the first wrong result: the first row with a
                         #wrong count above 0, else a failing "Out of bounds values" line;
                         None when every table is clean.
                         These correctness figures cover every table of the file (the sum of
                         the known counts, False when any table FAILED): a table of wrong
                         results after a clean one is as wrong as a first one.
    max_size_bytes / min_size_bytes / row_count
    curve                one entry per row: size_bytes, count, type, redop, root, time_us,
                         algbw_gbyte_s, busbw_gbyte_s (from whichever of out-of-/in-place has
                         the larger busbw), out_of_place_busbw_gbyte_s, in_place_busbw_gbyte_s.
    nccl_version         "2.21.5" from "NCCL version ..." lines or nccl-tests' nccl-library code.
    nccl_tests_version   from "# nccl-tests version X" (newer builds add the git revision:
                         "2.20.0 (b4d5bee) nccl-headers=... nccl-library=...").
    gpu_names, hosts     distinct values from the device list, in order.
    devices_listed       ranks the "Using devices" list shows (below ``ranks`` in a per-node
                         or cut log: its hosts are then only some of the run's).
    bus_ids_shown        ranks whose device line shows a readable PCI bus ("[0x18]" in older
                         builds, "[0002:00:01]" domain:bus:device in newer ones).
    shared_gpu_ranks     list of the ranks whose device line shows the same host and full PCI
                         address ("[0000:02:00]") as another rank's: several processes on one
                         GPU (empty when none, or when no full address is shown).
    root_bus_ranks       of those, ranks whose GPU sits on bus 00 of its PCI domain. A
                         discrete GPU in a physical server sits behind a root port (bus 01 or
                         higher); bus 00 is where a hypervisor's virtual PCI bus (Hyper-V
                         vPCI, a QEMU/Nitro root bus) puts a passed-through GPU.
    gpus_per_process     the "nGpus" figure of the parameter line.
    failures             "Test NCCL failure ..." / "NCCL failure ..." lines. A file with no
                         result row fails (nccl.test_failed) quoting the first such line
                         that gives NCCL's reason, or else NCCL's first WARN about an error;
                         a log of failure lines alone is still recognised as nccl-tests.
    runs                 when the file holds several tables, one summary per table; the other
                         figures above then describe the first table.
facts: one ``busbw_gbyte_s`` per row (max of in/out-of-place), ``peak_busbw_gbyte_s`` and
``avg_busbw_gbyte_s`` (first table).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator

from ..base import EvidenceParseError, ParseResult, strip_annotation, unquote
from .formats import (
    _COLLECTIVE_RE,
    _DEVICE_ENTRY_RE,
    _HYDRA_HEAD,
    _MPI_TAG_RE,
    _PARAMS_RE,
    _ROW_SHAPE_RE,
    _SCAN_BYTES,
    _TESTS_FAILURE_RE,
    KIND,
)
from .json_report import is_json_report, parse_json
from .net import _NET_PATTERNS, _net_plugins
from .scanner import _Scanner


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is nccl-tests output (looks at the first 64 KiB)."""
    head = text[:_SCAN_BYTES]
    if is_json_report(head):
        return 95
    score = 0
    if "nccl-tests version" in head or "Collective test starting" in head:
        score += 40
    if _PARAMS_RE.search(head):
        score += 30
    if re.search(
        rf"(?m)^{_HYDRA_HEAD}[# \t]*(?:size|bytes)\s+(?:count|N)\s+type\b.*\bbusbw\b", head
    ):
        score += 45
    # The units line under the column names: an excerpt may start there.
    if re.search(rf"(?m)^{_HYDRA_HEAD}[# \t]*\(B\)\s+\(elements\)\s.*\(us\)\s+\(GB/s\)", head):
        score += 45
    # A log tail or a relay may keep the result rows alone: three rows of nccl-tests' shape.
    if next(itertools.islice(_ROW_SHAPE_RE.finditer(head), 2, None), None) is not None:
        score += 40
    if "Avg bus bandwidth" in head:
        score += 20
    if "Out of bounds values" in head:
        score += 15
    if _device_ends(head):
        score += 15
    # nccl-tests' own device list ("#  Rank  1 Group  0 Pid 34002 on vm-host40 device  1 [0x23]
    # NVIDIA H20-3e"): a log cut before its table, or drowned in NCCL INFO lines, still shows it.
    if next(itertools.islice(_DEVICE_ENTRY_RE.finditer(head), 1, None), None) is not None:
        score += 40
    if _COLLECTIVE_RE.search(head):
        score += 10
    if "failure" in head and _TESTS_FAILURE_RE.search(head):
        score += 55
    return min(score, 100)


def _device_ends(head: str) -> bool:
    """Whether a device-list entry ends ``head``: what ``_DEVICE_RE.search(head)`` says (its
    ``$`` is the end of the head, so only an entry on the last line, or the line before it when
    the last is what follows it, counts), in time linear in the head's length. That search runs
    ``(.*)$`` to the end of the line from every entry, quadratic on a line of many entries."""
    body = head[:-1] if head.endswith("\n") else head
    newline = body.rfind("\n")
    # Where ``\s*(.*)$`` can still match from: after the last line break but the final one and
    # the blanks before it.
    tail = 0 if newline < 0 else len(head[: newline + 1].rstrip())
    return any(entry.end() >= tail for entry in _DEVICE_ENTRY_RE.finditer(head))


def _clean(line: str) -> str:
    # A paste quoted in a markdown reply: "> " before every line.
    line = unquote(line)
    # Both MPI tag forms end in a colon, both launcher tags start with a bracket: any other
    # line is left as it is.
    if ":" in line or line.lstrip(" \t").startswith(("(", "[")):
        tag = _MPI_TAG_RE.match(line)
        if tag:
            hydra = re.search(r"\[\d{1,6}\]$", tag.group(0))
            line = line[tag.end() :]
            if hydra:
                # The rank's later pieces of the same line carry the same tag: "-1[0]  1626.5".
                line = line.replace(hydra.group(0), " ")
    line = line.rstrip()
    # An annotation needs "#", "//", "<", ">" or an arrow (not ASCII) after a word and a
    # blank: result rows have none, and a "#" that starts a line is not one.
    if "/" in line or "<" in line or ">" in line or not line.isascii():
        return strip_annotation(line)
    mark = line.find("#")
    if mark >= 0 and ((not line[:mark].isspace() and mark > 0) or "#" in line[mark + 1 :]):
        return strip_annotation(line)
    return line


def parse(text: str) -> ParseResult:
    """Parse nccl-tests output into the figures documented at the top of this module; its JSON
    report (``-J``) is read through the table it renders (json_report)."""
    if is_json_report(text[:_SCAN_BYTES]):
        return parse_json(text, _parse_table)
    return _parse_table(text)


def _parse_table(text: str) -> ParseResult:
    scanner = _Scanner()
    for line_no, raw in enumerate(text.splitlines(), start=1):
        scanner.feed(line_no, _clean(raw))
    result = scanner.finish()
    result.metrics["net_plugins"] = _net_plugins(text)
    return result


def iter_lines(text: str, chunk: int = 1 << 20) -> Iterator[str]:
    """The lines of ``text`` as ``str.splitlines`` gives them, one chunk at a time (never a
    list of every line of a big log)."""
    start = 0
    while start < len(text):
        end = text.find("\n", start + chunk)
        end = len(text) if end < 0 else end + 1
        yield from text[start:end].splitlines()
        start = end


def parse_lines(lines: Iterable[str]) -> ParseResult:
    """Parse nccl-tests output read line by line, keeping little of it: each table is
    summarised when the next begins, and its rows become ONE ``busbw_curve_gbyte_s`` fact
    (the table's peak, with ``size_bytes``, ``busbw_gbyte_s``, ``algbw_gbyte_s``,
    ``time_us``, ``placement`` and ``lines`` arrays in its details) instead of one fact per
    row. The metrics are those of :func:`parse`; ``net_plugins`` is read line by line. A JSON
    report (one line, a few MiB at most) is read whole, as :func:`parse` reads it."""
    lines = iter(lines)
    # The report's opening keys: on its one line, or over the first lines of a pretty-printed
    # copy ("{" alone, then '  "version": 2,').
    head = list(itertools.islice(lines, _JSON_HEAD_LINES))
    if is_json_report("\n".join(head)[:_SCAN_BYTES]):
        text = "\n".join(itertools.chain(head, itertools.islice(lines, _JSON_MAX_LINES)))
        if next(lines, None) is not None or len(text) > _JSON_MAX_CHARS:
            raise EvidenceParseError(
                "nccl-tests JSON report too large to be one run's",
                kind=KIND,
                code="nccl.json_too_large",
                params={"max": _JSON_MAX_CHARS},
            )
        return parse_json(text, lambda table: _parse_stream(iter(table.splitlines())))
    return _parse_stream(itertools.chain(head, lines))


# nccl-tests writes its report on one line; a pretty-printed copy has a few lines per row.
_JSON_HEAD_LINES = 8
_JSON_MAX_LINES = 1_000_000
_JSON_MAX_CHARS = 64 * 1024 * 1024


def _parse_stream(lines: Iterator[str]) -> ParseResult:
    scanner = _Scanner(compact=True)
    plugins: list[str] = []
    feed = scanner.feed
    for line_no, raw in enumerate(lines, start=1):
        line = _clean(raw)
        if feed(line_no, line):
            continue  # a result row: no transport is named there
        if "NET" in line or "network" in line or "efa" in line.lower():
            plugins.extend(p for p in _net_plugins(line) if p not in plugins)
    result = scanner.finish()
    result.metrics["net_plugins"] = [label for _p, label in _NET_PATTERNS if label in plugins]
    return result
