"""The one pass over a log's cleaned lines: banners, device lists, tables, the result."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from ..base import ParseResult, placeholder_gpu_name_warning
from .formats import (
    _AVG_RE,
    _COLLECTIVE_RE,
    _COMPILED_WITH_RE,
    _DEVICE_BUS_RE,
    _DEVICE_RE,
    _EXCERPT_RE,
    _FAILURE_RE,
    _NCCL_VERSION_RE,
    _NRANKS_RE,
    _OOB_RE,
    _PARAMS_RE,
    _TESTS_VERSION_RE,
    _WARN_ERROR_RE,
    KIND,
)
from .inference import _infer_collective, _ranks_of
from .runs import (
    _ABSENT,
    _compact_fact,
    _curve_point,
    _facts,
    _no_rows_error,
    _Reduced,
    _Run,
    _run_summary,
    _worst_correctness,
)
from .table import (
    _default_header,
    _group_labels,
    _groups_fitting,
    _Header,
    _number,
    _parse_header,
    _parse_row,
)


def _nccl_version_from_code(code: str) -> str:
    number = int(code)
    if number >= 10000:  # NCCL >= 2.9 encodes major*10000 + minor*100 + patch
        return f"{number // 10000}.{number % 10000 // 100}.{number % 100}"
    return f"{number // 1000}.{number % 1000 // 100}.{number % 100}"


@dataclass
class _Scanner:
    """One pass over the lines; keeps what the banners said and the tables found."""

    warnings: list[str] = field(default_factory=list)
    runs: list[_Run] = field(default_factory=list)
    collectives: list[str] = field(default_factory=list)
    collective: str | None = None
    devices: dict[int, tuple[str, str]] = field(default_factory=dict)
    duplicate_ranks: set[int] = field(default_factory=set)
    nranks: int | None = None
    nccl_version: str | None = None
    tests_version: str | None = None
    gpus_per_process: int | None = None
    failures: list[tuple[int, str]] = field(default_factory=list)
    # NCCL WARN lines reporting an error: named when no row and no failure line was printed.
    warn_errors: list[tuple[int, str]] = field(default_factory=list)
    # Collective names first seen after a finished table (see _banner).
    late_collectives: set[str] = field(default_factory=set)
    labels: list[str] = field(default_factory=list)
    orphan_header: _Header | None = None
    unreadable: list[int] = field(default_factory=list)
    # A row missing a whole column group (in-place): held until another line follows it, since
    # the last line of a cut paste looks the same (see _add_row).
    pending: tuple[list[str], int, bool] | None = None
    # (table index, token count) of the short rows kept so far.
    short_rows: set[tuple[int, int]] = field(default_factory=set)
    last_line: int = 0
    compact: bool = False
    # Byte and element counts by their text (see _full_row).
    counts: dict[str, int | None] = field(default_factory=dict)
    # Whether a table closed so far kept rows (tables close in order).
    kept_rows: bool = False
    # Header lines already read (see _header) and root cells known to be numbers.
    headers: dict[tuple[str, tuple[str, ...]], Any] = field(default_factory=dict)
    roots: set[str] = field(default_factory=set)
    device_lines: dict[str, Any] = field(default_factory=dict)
    # rank -> PCI bus number of its GPU as the device list prints it.
    buses: dict[int, int] = field(default_factory=dict)
    # rank -> (host, "domain:bus:device") when the device line shows the full PCI address.
    pci_ids: dict[int, tuple[str, str]] = field(default_factory=dict)
    # Whether MSCCL++'s mscclpp-test banner ("# Initializing MSCCL++") was seen.
    mscclpp: bool = False

    def _close(self, index: int) -> None:
        run = self.runs[index]
        if run.summary is not None:
            return
        reduced = run.reduced
        if reduced is not None:
            run.row_count = reduced.count
            run.summary = reduced.summary(run)
            run.compact = reduced.fact(run, index)
            run.reduced = None
            self.kept_rows = self.kept_rows or run.row_count > 0
            return
        run.row_count = len(run.rows)
        run.summary = _run_summary(run)
        run.compact = _compact_fact(run, index)
        if self.kept_rows:
            run.rows = []  # not the first table with rows: its summary and fact suffice
        self.kept_rows = self.kept_rows or run.row_count > 0

    def feed(self, line_no: int, line: str) -> bool:
        """Take one cleaned line; True when it was read as a result row (runs exist, it starts
        with a digit and has no colon), whatever became of it."""
        self.last_line = line_no
        stripped = line.lstrip()
        if not stripped:
            return False
        if self.pending is not None:
            self._store_row(*self.pending)
            self.pending = None
        if self.runs and stripped[0].isdigit() and ":" not in line:
            # Result rows carry no banner: skipping the banner patterns keeps big logs fast.
            tokens = line.split()
            plain = "_" not in line
            run = self.runs[-1]
            if not (run.reduced is not None and plain and self._reduce_plain(run, tokens, line_no)):
                self._add_row(tokens, line_no, plain)
            return True
        if _EXCERPT_RE.match(line):
            self.warnings.append(f"line {line_no}: the output was cut by its author ({line})")
        elif not self._banner(line, line_no):
            tokens = line.split()
            if tokens and not tokens[0].startswith("#") and _number(tokens[0]) is not None:
                self._add_row(tokens, line_no)
                # An orphan row starting the first table: a row now, for the transport scan.
                return bool(self.runs) and stripped[0].isdigit() and ":" not in line
        return False

    def _banner(self, line: str, line_no: int) -> bool:
        """Handle a non-row line; False when it may be a result row."""
        if "MSCCL++" in line and not self.mscclpp:
            # mscclpp-test copies nccl-tests' table but times MSCCL++'s own kernels, prints
            # its in-place group first and leaves the other empty.
            self.mscclpp = True
            self.warnings.append(
                f"line {line_no}: MSCCL++'s mscclpp-test printed this, not nccl-tests: its bus "
                "bandwidth is MSCCL++'s, not NCCL's"
            )
            return True
        # Cheap substring tests guard each pattern: most lines of a big log match none.
        found = _COLLECTIVE_RE.search(line) if "_perf" in line else None
        if found:
            self.collective = found.group(1)
            first_seen = self.collective not in self.collectives
            if first_seen:
                self.collectives.append(self.collective)
            last = self.runs[-1] if self.runs else None
            if last is not None and last.collective is None and "concluded" in line:
                last.collective = self.collective
            elif (
                first_seen
                and last is not None
                and (last.rows or last.row_count)
                and (last.avg_busbw is not None or last.out_of_bounds is not None)
            ):
                # The name comes after a table that printed its summary: it names the next
                # run ("./broadcast_perf -b 8 ..." after an all_gather table), not that one.
                self.late_collectives.add(self.collective)
        match = _TESTS_VERSION_RE.search(line) if "nccl-tests version" in line else None
        if match:
            self.tests_version = match.group(1)
            if match.group(3):
                self.nccl_version = _nccl_version_from_code(match.group(3))
            return True
        match = None
        if "NCCL" in line:
            match = _NCCL_VERSION_RE.search(line) or _COMPILED_WITH_RE.search(line)
        if match:
            self.nccl_version = self.nccl_version or match.group(1)
        match = _PARAMS_RE.search(line) if "nGpus" in line else None
        if match:
            self.gpus_per_process = int(match.group(2))
            return True
        device = self._device(line) if "Rank" in line and "device" in line else None
        if device is not None:
            rank, entry, bus, pci = device
            if rank in self.devices and self.devices[rank] != entry:
                self.duplicate_ranks.add(rank)
            self.devices.setdefault(rank, entry)
            if bus is not None:
                self.buses.setdefault(rank, bus)
            if pci is not None:
                self.pci_ids.setdefault(rank, (entry[0], pci))
            return True
        match = _NRANKS_RE.search(line) if "NCCL INFO" in line else None
        if match:
            self.nranks = max(self.nranks or 0, int(match.group(1)))
            return True
        if "failure" in line and _FAILURE_RE.search(line):
            self.failures.append((line_no, line.strip()))
            return True
        warn = line.find("NCCL WARN ") if not self.warn_errors else -1
        # From the first "NCCL WARN " only: a search tries ".*" from every one of them.
        if warn >= 0 and _WARN_ERROR_RE.match(line, warn):
            self.warn_errors.append((line_no, line.strip()))
        if "out-of-place" in line or "in-place" in line:
            self.labels = _group_labels(line)
            return True
        header = self._header(line, line_no) if "busbw" in line else None
        if header is not None:
            if self.compact and self.runs:
                self._close(len(self.runs) - 1)
            run = _Run(header, self.collective)
            if self.compact and self.kept_rows:
                run.reduced = _Reduced()  # its rows will not be kept: reduce them as they come
            self.runs.append(run)
            self.labels = []
            return True
        return self._summary_line(line, line_no)

    def _summary_line(self, line: str, line_no: int) -> bool:
        lowered = line.lower()
        match = _OOB_RE.search(line) if "out of bounds" in lowered else None
        if match and self.runs:
            status = (match.group(2) or "").upper()
            self.runs[-1].out_of_bounds = int(match.group(1))
            self.runs[-1].out_of_bounds_ok = None if not status else status == "OK"
            self.runs[-1].out_of_bounds_line = line_no
        avg = _AVG_RE.search(line) if "bus bandwidth" in lowered else None
        if avg and self.runs:
            self.runs[-1].avg_busbw = _number(avg.group(1))
            self.runs[-1].avg_line = line_no
        return bool(match or avg)

    def _device(self, line: str) -> tuple[int, tuple[str, str], int | None, str | None] | None:
        """(rank, (host, GPU name), PCI bus or None, full "domain:bus:device" address or None)
        of a device-list line, or None; read once per distinct line (every run of a long log
        prints its device list again)."""
        known = self.device_lines.get(line, _ABSENT)
        if known is not _ABSENT:
            return known
        match = _DEVICE_RE.search(line)
        device = None
        if match:
            bus = _DEVICE_BUS_RE.match(match.group(5))
            number = int(bus.group(1) or bus.group(2), 16) if bus else None
            pci = match.group(5).strip().lower() if bus and bus.group(2) else None
            device = (
                int(match.group(1)),
                (match.group(3), match.group(6).strip()),
                number,
                pci,
            )
        if len(self.device_lines) < 4096:
            self.device_lines[line] = device
        return device

    def _shared_gpu_ranks(self) -> list[int]:
        """Ranks whose host and full PCI address another rank also shows: several processes on
        one GPU (a test run on a machine with fewer GPUs than ranks)."""
        seen: dict[tuple[str, str], list[int]] = {}
        for rank, key in self.pci_ids.items():
            seen.setdefault(key, []).append(rank)
        return sorted(r for ranks in seen.values() if len(ranks) > 1 for r in ranks)

    def _header(self, line: str, line_no: int) -> _Header | None:
        """``_parse_header`` of the line, read once per distinct header line and labels (a long
        log repeats the same header for every table): a copy with this line's number."""
        key = (line, tuple(self.labels))
        known = self.headers.get(key, _ABSENT)
        if known is _ABSENT:
            header = _parse_header(line, line_no, self.labels)
            if len(self.headers) < 64:
                self.headers[key] = header
            return header
        if known is None:
            return None
        header = copy.copy(known)
        header.line = line_no
        return header

    def _add_row(self, tokens: list[str], line_no: int, plain: bool = False) -> None:
        if not self.runs:
            self.orphan_header = self.orphan_header or _default_header(tokens, line_no)
            if self.orphan_header is None:
                return
            self.runs.append(_Run(self.orphan_header, self.collective))
            self.warnings.append(
                f"line {line_no}: no column header before the first row; columns inferred "
                "from the row width"
            )
        run = self.runs[-1]
        if run.reduced is not None and plain and self._reduce_plain(run, tokens, line_no):
            return  # (rows of the else branch in feed: a sign, a point)
        header = run.header
        if len(tokens) < header.width and 0 < _groups_fitting(len(tokens), header) < len(
            header.sizes
        ):
            # A row without its in-place columns: a paste cut after the out-of-place ones
            # looks so, and its numbers would be read as the in-place group's. Kept once
            # another line follows (or when the table's other rows are as short).
            self.pending = (tokens, line_no, plain)
            return
        self._store_row(tokens, line_no, plain)

    def _store_row(self, tokens: list[str], line_no: int, plain: bool) -> None:
        run = self.runs[-1]
        if len(tokens) < run.header.width:
            self.short_rows.add((len(self.runs) - 1, len(tokens)))
        row = _parse_row(tokens, run.header, line_no, self.counts, plain)
        if row is None:
            self.unreadable.append(line_no)
            return
        if row.unreadable:
            self.warnings.append(f"line {line_no}: unreadable #wrong/error value (truncated?)")
        if run.reduced is not None:
            run.reduced.add_row(row)
        else:
            run.rows.append(row)

    def _reduce_plain(self, run: _Run, tokens: list[str], line_no: int) -> bool:
        """A full-width row of plain finite numbers straight into ``run.reduced`` (what
        _full_row then _Reduced.add_row would do); False, having changed nothing, for any
        other row: _parse_row reads it."""
        header = run.header
        if len(tokens) < header.width or not header.reducible or max(map(len, tokens)) > 40:
            return False
        at_size, at_count, at_type, at_redop, at_root = header.at
        if at_size is None:
            return False
        counts = self.counts
        size = counts.get(tokens[at_size])
        if size is None:
            return False  # read (and cached) by _full_row
        if at_count is not None and counts.get(tokens[at_count]) is None:
            return False
        if at_root is not None:
            root = tokens[at_root]
            if root not in self.roots:
                if _number(root) is None:
                    return False
                if len(self.roots) < 1024:
                    self.roots.add(root)
        try:
            values = list(map(float, tokens[len(header.prefix) : header.width]))
        except ValueError:
            return False
        total = sum(values)
        if total - total != 0:  # inf or nan
            return False
        reduced = run.reduced
        if reduced is None:
            return False
        reduced.count += 1
        best = None
        best_busbw = 0.0
        for pick in header.flat:
            _label, at_busbw, _algbw, _time, at_wrong, at_error = pick
            if at_wrong is not None:
                wrong = int(values[at_wrong])
                reduced.total = (reduced.total or 0) + wrong
                if wrong > 0 and reduced.wrong_line is None:
                    reduced.wrong_line = line_no
            if at_error is not None:
                reduced.errors.append(values[at_error])
            if at_busbw is not None and (best is None or values[at_busbw] > best_busbw):
                best, best_busbw = pick, values[at_busbw]
        if best is not None:  # _Reduced.best, inlined (once per row of a long log)
            label, _b, at_algbw, at_time, _w, _e = best
            if reduced.first is None:
                reduced.first = (
                    tokens[at_type] if at_type is not None else None,
                    tokens[at_redop] if at_redop is not None else None,
                    line_no,
                )
            if reduced.peak is None or best_busbw > reduced.peak:
                reduced.peak, reduced.peak_size = best_busbw, size
            reduced.sizes.append(size)
            reduced.busbw.append(best_busbw)
            reduced.algbw.append(values[at_algbw] if at_algbw is not None else None)
            reduced.times.append(values[at_time] if at_time is not None else None)
            reduced.placement.append(label)
            reduced.lines.append(line_no)
        return True

    def finish(self) -> ParseResult:
        warnings = self.warnings
        cut_row = None
        if self.pending is not None:
            tokens, cut_row, plain = self.pending
            self.pending = None
            if (len(self.runs) - 1, len(tokens)) in self.short_rows:
                self._store_row(tokens, cut_row, plain)
                cut_row = None
            else:
                self.unreadable.append(cut_row)  # the last row, cut before its in-place columns
        for line_no in self.unreadable:
            cut = line_no in (self.last_line, cut_row)
            tail = " (the output seems truncated)" if cut else ""
            warnings.append(f"line {line_no}: unreadable or incomplete result row skipped{tail}")
        if self.compact:
            for index in range(len(self.runs)):
                self._close(index)
        runs = [run for run in self.runs if run.rows or run.row_count]
        if not runs:
            raise _no_rows_error(self.runs, self.failures or self.warn_errors)
        warnings.extend(
            f"line {n}: the test reported a failure: {message}" for n, message in self.failures
        )
        if self.duplicate_ranks:
            ranks = ", ".join(str(r) for r in sorted(self.duplicate_ranks))
            warnings.append(
                f"rank(s) {ranks} listed by several processes: they ran as separate jobs "
                "(nccl-tests built without MPI?); 'ranks' counts each rank number once"
            )
        shared = self._shared_gpu_ranks()
        if shared:
            warnings.append(
                f"{len(shared)} ranks share a GPU with another rank (same host and PCI "
                "address): the run measured no link between GPUs for them"
            )
        if len(runs) > 1:
            warnings.append(
                f"{len(runs)} result tables; the bandwidth figures describe the first one, "
                "the correctness figures every table"
            )
        main = runs[0]
        summaries = [run.summary or _run_summary(run) for run in runs]
        summary = {**summaries[0], **_worst_correctness(summaries)}
        if main.avg_busbw is None:
            warnings.append("no 'Avg bus bandwidth' line (output truncated?)")
        if main.out_of_bounds is None:
            warnings.append("no 'Out of bounds values' line: the correctness check is absent")
        if summary["wrong_unchecked"]:
            unchecked = summary["wrong_unchecked"]
            warnings.append(f"{unchecked} result(s) were not checked for correctness (N/A)")
        if summary["wrong_line"] is not None:
            warnings.append(
                f"line {summary['wrong_line']}: nccl-tests reported wrong results "
                "(out-of-bounds values)"
            )
        collective = main.collective
        if (
            collective is None
            and len(self.collectives) == 1
            and self.collectives[0] not in self.late_collectives
        ):
            collective = self.collectives[0]
        ranks = self.nranks
        if self.devices:
            # A per-node or filtered log lists some ranks only: "Rank 15" means 16 or more.
            listed, highest = len(self.devices), max(self.devices) + 1
            ranks = max(listed, highest, self.nranks or 0)
            if ranks > listed:
                warnings.append(
                    f"the device list shows {listed} of at least {ranks} ranks "
                    "(a per-node or filtered log)"
                )
        inferred = _infer_collective(main.rows, ranks) if collective is None else None
        if inferred is not None:
            candidates, _, reason = inferred
            if len(candidates) == 1:
                collective = candidates[0]
                warnings.append(f"the output does not name the collective: {reason}")
            elif candidates:
                warnings.append(
                    "the output does not name the collective and the table fits "
                    f"{' or '.join(candidates)}: {reason}"
                )
        sizes = [row.size_bytes for row in main.rows]
        metrics: dict[str, Any] = {
            "collective": collective,
            "collective_inferred": inferred is not None and collective is not None,
            "collective_candidates": inferred[0] if inferred is not None else [],
            "ranks_inferred": (
                inferred[1]
                if inferred is not None
                else _ranks_of(collective, main.rows)
                if collective
                else None
            ),
            "collectives": self.collectives,
            "ranks": ranks,
            **{k: v for k, v in summary.items() if k not in ("collective", "header_line")},
            "max_size_bytes": max(sizes),
            "min_size_bytes": min(sizes),
            "curve": [_curve_point(row) for row in main.rows],
            "nccl_version": self.nccl_version,
            "nccl_tests_version": self.tests_version,
            "gpu_names": list(dict.fromkeys(n for _, n in self.devices.values() if n)),
            "hosts": list(dict.fromkeys(host for host, _ in self.devices.values())),
            # Below ``ranks`` when the log lists some ranks only: ``hosts`` is then a floor.
            "devices_listed": len(self.devices),
            "gpus_per_process": self.gpus_per_process,
            "bus_ids_shown": len(self.buses),
            "root_bus_ranks": sum(1 for bus in self.buses.values() if bus == 0),
            "shared_gpu_ranks": shared,
            "failures": [message for _, message in self.failures],
        }
        if len(runs) > 1:
            metrics["runs"] = summaries
        placeholder = placeholder_gpu_name_warning(metrics["gpu_names"])
        if placeholder:
            warnings = [*warnings, placeholder]
        facts = _facts(runs, collective, compact=self.compact)
        return ParseResult(KIND, metrics, tuple(facts), tuple(warnings))
