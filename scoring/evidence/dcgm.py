"""Parser for ``dcgmi diag -r 1..4`` result tables (DCGM 2.x, 3.x and 4.x layouts).

The table is ``| <name> | <result> |`` rows under category separators such as
``|-----  Deployment  ---...|`` or ``+-----  Integration  ---...+``. DCGM 2.x/3.x print one row
per test ("Pass - All", "Fail - GPU: 0", "Pass - GPUs: 1, 2"); DCGM 4.x prints the test's
result and then one "GPUn: Pass" line per GPU. "Error", "Warning" and "Info" rows belong to
the test above them; DCGM wraps their text at a fixed width of 45 characters (mid-word), so
continuation chunks are joined exactly as printed. The optional Metadata section gives the
DCGM version, the driver and the PCI device ids. A line prefix before every line (a log
relay's, or "# " of a table pasted as a comment) is dropped (``base.strip_line_prefix``).
A run that printed no result but dcgmi's "Error: ..." or its refusal to test a GPU ("GPU 0's
MIG configuration is incompatible with the diagnostic ...") fails as ``dcgm.tool_error``
quoting that line: nothing was tested, which proves no pass. dcgmi's connection errors alone
("Error: unable to establish a connection to the specified host: localhost", when
nv-hostengine is not running) are recognised as dcgmi's output on their own.

metrics
    overall              "fail" if any test failed or an Error row is present; else "warn" if
                         any result is Warn; else "skip" when every test that is not a
                         Deployment/software check was skipped (a run that checked nothing on
                         the hardware is not a pass); else "pass". "incomplete" instead of
                         "pass" or "skip" when the table ends without its closing border (the
                         output was cut: the tests below the cut, failed ones included, are
                         unknown, so it proves no pass), or when a ``-j`` document does not
                         decode (cut, or shortened by hand): its tests are then read pair by
                         pair.
    failed_tests, warned_tests, skipped_tests, passed_tests   test names, in table order.
    tests                list of {"name", "category", "status", "gpus": {gpu: status}, "line"}.
    failed_gpus          GPU indices with at least one failed result (a test failed on "All"
                         adds the GPUs its Error/Warning rows name: "GPU 3 Error using ...").
    errors, warnings     list of {"test", "text", "line"}: the joined Error / Warning texts.
    level                the -r/--run level from the command line (1..4), None if not shown.
    dcgm_version, driver_version, gpu_device_ids   from the Metadata rows, under a Metadata
                         heading or not (a single-plugin run such as -r eud has none); None if
                         absent.
    format               "json" for ``dcgmi diag -j`` (DCGM 3.x "DCGM GPU Diagnostic" ->
                         test_categories -> tests -> results; DCGM 4.x "DCGM Diagnostic" with
                         "tests" and per-test "test_summary", "metadata" and "entity_groups"
                         beside it), absent for the table.
facts: ``dcgm_failed_tests`` (count) and ``dcgm_failed_gpus`` (count).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, strip_line_prefix

KIND = "dcgm_diag"

_BORDER_RE = re.compile(r"^\s*\+-{5,}\+-{5,}\+\s*$")
_CATEGORY_RE = re.compile(r"^\s*[|+]-{3,}([^-|+]+)-{2,}[+|]")
_STATUS_RE = re.compile(
    r"^(Pass|Fail|Warn|Skip)(?:\s*-\s*(All|GPUs?\s*:[\d,\s]*))?$", re.IGNORECASE
)
_GPU_STATUS_RE = re.compile(r"^GPU\s*(\d{1,6})\s*:\s*(Pass|Fail|Warn|Skip)\b", re.IGNORECASE)
# The run level of a "dcgmi diag -r 3" command line, matched from the line's first "dcgmi diag"
# (``_level_word``): searched, ".*?" ran on from every one of them (quadratic), and "\s*=?\s*"
# split a long run of blanks after "-r" in every way.
_COMMAND_RE = re.compile(r"dcgmi\s+diag\b")
_LEVEL_RE = re.compile(r"dcgmi\s+diag\b.*?(?:-r|--run)\s*(?:=\s*)?(\w+)")
_LEVEL_NAMES = {"short": 1, "medium": 2, "long": 3, "xlong": 4}
_MESSAGE_ROWS = {"error": "errors", "warning": "warnings", "info": "info"}
# Metadata rows ("DCGM Version", "Driver Version Detected", "GPU Device IDs Detected", "EUD Test
# Version"): a run of one plugin (-r eud) prints them without a Metadata heading.
_METADATA_ROW_RE = re.compile(r"(?:\bversion(?:\s+detected)?|\bids\s+detected)$", re.IGNORECASE)
# "GPU 3 Error using CUDA API ...": the GPU a failure message is about.
_MESSAGE_GPU_RE = re.compile(r"^GPU\s+(\d{1,4})\b")
_DEPLOYMENT = {"deployment", "software"}
_DCGMI_ERROR_RE = re.compile(r"^\s*Error:\s*(.+)$")
# What dcgmi prints instead of a table when it refuses to test a GPU ("GPU 0's MIG
# configuration is incompatible with the diagnostic because it prevents access to the entire
# GPU."): no test ran, which is no pass. Its group runs to the line end, blanks included (the
# reader strips them: a lazy group before "\s*$" was quadratic on a long run of blanks).
_REFUSAL_RE = re.compile(r"^\s*(GPU \d+'s \S.{0,120}? incompatible with the diagnostic\b.*)")
# Where the tool's own lines start: a table border or row, or dcgmi's first line. The text before
# it on most lines is a relay's or a pasting's line prefix (``kubectl logs --prefix``, "# ").
_TABLE_START_RE = re.compile(r"[|+][-=| ]|Successfully ran diagnostic")
_EXCERPT_RE = re.compile(r"^\s*(?:\[\.\.\.\]|\.\.\.|…|<snip>|\[snip\])\s*$", re.IGNORECASE)
_WRAP_WIDTH = 45  # DCGM's DATA_INFO_TAG_LEN: the result column text is cut every 45 characters
_SCAN_BYTES = 65536
_RANK = {"fail": 3, "warn": 2, "pass": 1, "skip": 0}


def _level_word(line: str) -> re.Match[str] | None:
    """``_LEVEL_RE`` searched in ``line``, from its first "dcgmi diag": a match from a later one
    is one from the first, with the same group (the first "-r" after it)."""
    command = _COMMAND_RE.search(line)
    return None if command is None else _LEVEL_RE.match(line, command.start())


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is a ``dcgmi diag`` result table (first 64 KiB)."""
    head = text[:_SCAN_BYTES]
    score = 0
    if re.search(r"(?m)^[ \t]*\|[ \t]*Diagnostic[ \t]+\|[ \t]*Result[ \t]+\|", head):
        score += 60
    categories = r"(?:Deployment|Integration|Hardware|Stress|Metadata)"
    if re.search(r"(?m)^[ \t]*[|+]-{3,}[ \t]+" + categories + r"[ \t]", head):
        score += 30
    if "Successfully ran diagnostic" in head:
        score += 30
    if re.search(r"dcgmi\s+diag", head):
        score += 20
    if "incompatible with the diagnostic" in head and any(
        _REFUSAL_RE.match(line) for line in head.splitlines()
    ):
        score += 40
    if re.search(
        r"(?m)^[ \t]*Error: (?:unable to establish a connection to the specified host: "
        r"|Unable to connect to host engine\.)",
        head,
    ):
        # dcgmi's own lines when nv-hostengine is not running (Command::Connect, then the
        # DCGM_ST_CONNECTION_NOT_VALID text): dcgmi's output, which tested nothing.
        score += 40
    if re.search(r'"(?:DCGM GPU Diagnostic|DCGM Diagnostic|test_categories)"\s*:', head):
        score += 90
    if re.search(r"(?m)^[ \t]*\|[^|\n]+\|[ \t]*(?:Pass|Fail|Skip|Warn)\b", head):
        score += 20
    return min(score, 100)


@dataclass
class _Test:
    name: str
    category: str | None
    line: int
    statuses: list[str] = field(default_factory=list)
    gpus: dict[int, str] = field(default_factory=dict)

    @property
    def status(self) -> str:
        found = self.statuses + list(self.gpus.values())
        return max(found, key=lambda s: _RANK[s]) if found else "unknown"


@dataclass
class _Message:
    kind: str
    test: str | None
    line: int
    chunks: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join("".join(self.chunks).split())


def _split_row(line: str) -> tuple[str, str, bool] | None:
    """(name cell, raw result cell, closed) for a ``| name | result |`` row."""
    stripped = line.strip()
    if not stripped.startswith("|") or stripped.startswith("|-") or stripped.startswith("|="):
        return None
    parts = stripped.split("|")
    if len(parts) < 3:
        return None
    closed = stripped.endswith("|") and len(parts) >= 4
    result = "|".join(parts[2:-1]) if closed else "|".join(parts[2:])
    return parts[1].strip(), result, closed


def _chunk(result: str, closed: bool) -> str:
    # Fixed-width wrapping: keep the chunk exactly as printed so "disab" + "led." rejoins.
    if closed and len(result) >= _WRAP_WIDTH + 3:
        return result[1 : 1 + _WRAP_WIDTH]
    return result[1:].rstrip() if result.startswith(" ") else result.rstrip()


def _apply_status(test: _Test, text: str) -> bool:
    match = _GPU_STATUS_RE.match(text)
    if match:
        test.gpus[int(match.group(1))] = match.group(2).lower()
        return True
    match = _STATUS_RE.match(text)
    if not match:
        return False
    status = match.group(1).lower()
    scope = match.group(2)
    if scope and scope.lower() != "all":
        for number in re.findall(r"\d{1,6}", scope):
            test.gpus[int(number)] = status
    else:
        test.statuses.append(status)
    return True


_JSON_STATUS = {
    "pass": "pass",
    "passed": "pass",
    "fail": "fail",
    "failed": "fail",
    "warn": "warn",
    "warning": "warn",
    "skip": "skip",
    "skipped": "skip",
    "not run": "skip",
    "notrun": "skip",
}
_JSON_ROOTS = ("DCGM GPU Diagnostic", "DCGM Diagnostic")


def _json_document(text: str) -> tuple[Any, int] | None:
    """The ``dcgmi diag -j`` JSON document in ``text`` (noise lines before it allowed)."""
    start = text.find("{")
    if start < 0 or text[:start].count("\n") > 20:
        return None
    if not any(root in text for root in _JSON_ROOTS) and '"test_categories"' not in text:
        return None
    try:
        document = json.loads(text[start:])
    except (ValueError, RecursionError):
        return None
    return document, text[:start].count("\n") + 1


def _json_messages(value: Any) -> list[str]:
    """Warning/info entries: strings, {"warning": ...}/{"message": ...} objects, or one string."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    texts: list[str] = []
    for item in items:
        if isinstance(item, dict):
            item = item.get("warning") or item.get("message") or item.get("msg")
        if isinstance(item, str) and item.strip():
            texts.append(" ".join(item.split()))
    return texts


def _json_gpus(result: dict[str, Any]) -> list[int]:
    raw = result.get("gpu_ids", result.get("gpu_id", result.get("entity_id")))
    if isinstance(raw, int):
        return [raw]
    if isinstance(raw, str):
        return [int(x) for x in re.findall(r"\d{1,6}", raw)]
    return []


def _json_device_ids(document: dict[str, Any]) -> list[str]:
    """PCI device ids of the GPU entities DCGM 4.x lists under "entity_groups", in order."""
    found: list[str] = []
    groups = document.get("entity_groups")
    for group in groups if isinstance(groups, list) else []:
        if not isinstance(group, dict) or str(group.get("entity_group", "")).upper() != "GPU":
            continue
        entities = group.get("entities")
        for entity in entities if isinstance(entities, list) else []:
            value = entity.get("device_id") if isinstance(entity, dict) else None
            if isinstance(value, str) and value.strip() and value.strip() not in found:
                found.append(value.strip())
    return found


def _parse_json(document: Any, first_line: int) -> ParseResult:
    if not isinstance(document, dict):
        raise EvidenceParseError(
            "dcgmi diag JSON: the document is not an object", kind=KIND, code="dcgm.json_not_object"
        )
    root = next((document[k] for k in _JSON_ROOTS if isinstance(document.get(k), dict)), document)
    warnings: list[str] = []
    tests: list[_Test] = []
    messages: list[_Message] = []
    categories = root.get("test_categories")
    flat: list[tuple[str | None, Any]] = []
    if isinstance(categories, list):
        for category in categories:
            if isinstance(category, dict) and isinstance(category.get("tests"), list):
                name = category.get("category")
                flat.extend((name if isinstance(name, str) else None, t) for t in category["tests"])
    for holder in (root, document):  # DCGM 4.x: "tests" next to (or instead of) categories
        if isinstance(holder.get("tests"), list):
            flat.extend((None, t) for t in holder["tests"])
            break
    for category, entry in flat:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue  # DCGM 3.1 writes null between tests
        test = _Test(
            name=entry["name"], category=category or entry.get("category"), line=first_line
        )
        results = entry.get("results")
        for result in results if isinstance(results, list) else []:
            if not isinstance(result, dict):
                continue
            status = _JSON_STATUS.get(str(result.get("status", "")).strip().lower())
            gpus = _json_gpus(result)
            if status is not None:
                if gpus and len(gpus) == 1:
                    test.gpus[gpus[0]] = status
                else:
                    test.statuses.append(status)
            for text in _json_messages(result.get("warnings")):
                kind = "error" if status == "fail" else "warning"
                messages.append(_Message(kind, test.name, first_line, [text]))
        summary = entry.get("test_summary")
        if isinstance(summary, dict):
            status = _JSON_STATUS.get(str(summary.get("status", "")).strip().lower())
            if status is not None:
                test.statuses.append(status)
        if not test.statuses and not test.gpus and isinstance(entry.get("status"), str):
            status = _JSON_STATUS.get(entry["status"].strip().lower())
            if status is not None:
                test.statuses.append(status)
        tests.append(test)
    for text in _json_messages(root.get("runtime_error") or document.get("runtime_error")):
        messages.append(_Message("error", None, first_line, [text]))
    if not tests and not messages:
        raise EvidenceParseError(
            "dcgmi diag JSON without any test result (no 'test_categories' or 'tests')",
            line=first_line,
            kind=KIND,
            code="dcgm.json_no_tests",
        )
    # DCGM 4.x puts "metadata" beside the "DCGM Diagnostic" object, not inside it.
    metas = [h[k] for h in (root, document) for k in ("metadata", "Metadata") if k in h]
    metadata: dict[str, str] = {}
    for source in (root, document, *(m for m in metas if isinstance(m, dict))):
        for key, value in source.items():
            if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                metadata.setdefault(key.lower().replace("_", " "), str(value))
    device_ids = _json_device_ids(document)
    if device_ids and "gpu device ids detected" not in metadata:
        metadata["gpu device ids detected"] = ",".join(device_ids)
    if "version" in metadata:
        metadata.setdefault("dcgm version", metadata["version"])
    if "driver version" in metadata:
        metadata.setdefault("driver version detected", metadata["driver version"])
    result = _result(tests, messages, metadata, None, warnings)
    result.metrics["format"] = "json"
    return result


# One "key" : "value" pair of a dcgmi -j document, read without decoding the whole document.
_JSON_FIELD_RE = re.compile(
    r'"(category|name|status|gpu_ids?|entity_id)"\s*:\s*(?:"([^"\n]*)"|(\d{1,6}))'
)


def _salvage_json(text: str) -> ParseResult | None:
    """A ``dcgmi diag -j`` document that does not decode (cut, or shortened by hand with a
    ``{"..."}`` placeholder): its test names and statuses in document order. Never a pass:
    what was left out may have failed, so a pass or skip reads as "incomplete"."""
    if not any(root in text for root in _JSON_ROOTS) and '"test_categories"' not in text:
        return None
    tests: list[_Test] = []
    category: str | None = None
    gpu: int | None = None
    for match in _JSON_FIELD_RE.finditer(text):
        key, value = (
            match.group(1),
            match.group(2) if match.group(2) is not None else match.group(3),
        )
        line = text.count("\n", 0, match.start()) + 1
        if key == "category":
            category = value
        elif key == "name":
            tests.append(_Test(value, category, line))
            gpu = None
        elif key != "status":
            gpu = int(value) if value.isdigit() else None
        elif tests:
            status = _JSON_STATUS.get(value.strip().lower())
            if status is not None and gpu is not None:
                tests[-1].gpus[gpu] = status
            elif status is not None:
                tests[-1].statuses.append(status)
            gpu = None
    if not any(t.status != "unknown" for t in tests):
        return None
    warnings = [
        "the dcgmi diag JSON does not decode (cut, or shortened by hand): the tests it still "
        "shows were read one by one, the rest are unknown"
    ]
    result = _result(tests, [], {}, None, warnings, cut=True)
    result.metrics["format"] = "json"
    return result


def parse(text: str) -> ParseResult:
    """Parse a ``dcgmi diag`` table (or its ``-j`` JSON) into the figures documented above."""
    found = _json_document(text)
    if found is not None:
        return _parse_json(*found)
    salvaged = _salvage_json(text)
    if salvaged is not None:
        return salvaged
    warnings: list[str] = []
    tests: list[_Test] = []
    messages: list[_Message] = []
    metadata: dict[str, str] = {}
    category: str | None = None
    last_test: _Test | None = None
    last_message: _Message | None = None
    level: int | None = None
    tool_error: tuple[int, str] | None = None
    table_seen = False
    tables = 0
    # The table's bottom border after the last row: without it the output was cut.
    ended = False

    lines, _ = strip_line_prefix(text.splitlines(), _TABLE_START_RE)
    for line_no, raw in enumerate(lines, start=1):
        if not raw.strip():
            last_message = None
            continue
        if _EXCERPT_RE.match(raw):
            warnings.append(f"line {line_no}: the output was cut by its author ({raw.strip()})")
            continue
        match = _level_word(raw) if level is None else None
        if match:
            word = match.group(1).lower()
            level = int(word) if re.fullmatch(r"[1-9]", word) else _LEVEL_NAMES.get(word)
        if _BORDER_RE.match(raw):
            ended = bool(tests)
            continue
        match = _CATEGORY_RE.match(raw)
        if match:
            category = match.group(1).strip()
            last_message, table_seen = None, True
            continue
        row = _split_row(raw)
        if row is not None:
            ended = False
        if row is None:
            if not raw.strip():
                last_message = None
            match = _DCGMI_ERROR_RE.match(raw) or _REFUSAL_RE.match(raw)
            if match and tool_error is None:
                tool_error = (line_no, match.group(1).strip())
            continue
        name, result, closed = row
        value = result.strip()
        if name.lower() == "diagnostic" and value.lower() == "result":
            table_seen = True
            tables += 1
            continue
        if (category and category.lower() == "metadata") or _METADATA_ROW_RE.search(name):
            if name:
                metadata[name.lower()] = value
            continue
        if name.lower() in _MESSAGE_ROWS:
            last_message = _Message(name.lower(), last_test.name if last_test else None, line_no)
            last_message.chunks.append(_chunk(result, closed))
            messages.append(last_message)
            continue
        if name:
            test = _Test(name, category, line_no)
            if not _apply_status(test, value):
                if not table_seen:
                    continue  # some other tool's "| a | b |" table, not a dcgmi result
                warnings.append(f"line {line_no}: unknown result {value!r} for {name}")
            last_test, last_message = test, None
            tests.append(test)
            continue
        if last_test is not None and (_GPU_STATUS_RE.match(value) or _STATUS_RE.match(value)):
            _apply_status(last_test, value)
            last_message = None
        elif last_message is not None:
            last_message.chunks.append(_chunk(result, closed))
        elif value:
            warnings.append(f"line {line_no}: continuation line without a test ignored")

    if not any(t.status != "unknown" for t in tests) and not messages:
        if tool_error is not None:
            raise EvidenceParseError(
                f"dcgmi reported an error: {tool_error[1]}",
                line=tool_error[0],
                kind=KIND,
                code="dcgm.tool_error",
                params={"message": tool_error[1]},
            )
        raise EvidenceParseError(
            "no dcgmi diag results found (expected '| Diagnostic | Result |' table rows such "
            "as '| PCIe | Pass - All |')",
            kind=KIND,
            code="dcgm.nothing",
        )
    if tables > 1:
        warnings.append(
            f"{tables} dcgmi diag tables in this file (several runs or nodes): the test lists "
            "hold the tests of every table"
        )
    if table_seen and tests and not ended:
        warnings.append(
            "the table ends without its closing border: the output was cut, the tests below "
            "the cut are unknown"
        )
    return _result(tests, messages, metadata, level, warnings, cut=table_seen and not ended)


def _overall(tests: list[_Test], errors: list[_Message]) -> str:
    statuses = [t.status for t in tests]
    if "fail" in statuses or errors:
        return "fail"
    if "warn" in statuses:
        return "warn"
    hardware = [t for t in tests if (t.category or "").lower() not in _DEPLOYMENT]
    if hardware and all(t.status == "skip" for t in hardware):
        return "skip"
    if tests and all(t.status == "skip" for t in tests):
        return "skip"
    return "pass"


def _result(
    tests: list[_Test],
    messages: list[_Message],
    metadata: dict[str, str],
    level: int | None,
    warnings: list[str],
    cut: bool = False,
) -> ParseResult:
    errors = [m for m in messages if m.kind == "error"]
    overall = _overall(tests, errors)
    if cut and overall in ("pass", "skip"):
        overall = "incomplete"
    by_status: dict[str, list[str]] = {"fail": [], "warn": [], "skip": [], "pass": []}
    failed_gpus: set[int] = set()
    for test in tests:
        if test.status in by_status:
            by_status[test.status].append(test.name)
        failed_gpus.update(g for g, s in test.gpus.items() if s == "fail")
    # A test failed on "All" GPUs names each GPU in the messages under it ("GPU 3 Error ...").
    failed_names = {t.name for t in tests if t.status == "fail"}
    for message in messages:
        if message.test in failed_names and message.kind in ("error", "warning"):
            match = _MESSAGE_GPU_RE.match(message.text)
            if match:
                failed_gpus.add(int(match.group(1)))
    unknown = [t.name for t in tests if t.status == "unknown"]
    if unknown:
        warnings.append("no result for: " + ", ".join(unknown))
    orphans = [m for m in errors if m.test is None]
    for message in orphans:
        warnings.append(f"line {message.line}: an Error row without its test (excerpt?)")
    if overall == "skip":
        warnings.append("every hardware test was skipped: nothing was verified")
    ids = metadata.get("gpu device ids detected") or metadata.get("gpu pci device ids detected")

    def _messages(kind: str) -> list[dict[str, Any]]:
        return [
            {"test": m.test, "text": m.text, "line": m.line} for m in messages if m.kind == kind
        ]

    metrics: dict[str, Any] = {
        "overall": overall,
        "failed_tests": by_status["fail"],
        "warned_tests": by_status["warn"],
        "skipped_tests": by_status["skip"],
        "passed_tests": by_status["pass"],
        "tests": [
            {
                "name": t.name,
                "category": t.category,
                "status": t.status,
                "gpus": {str(g): s for g, s in sorted(t.gpus.items())},
                "line": t.line,
            }
            for t in tests
        ],
        "failed_gpus": sorted(failed_gpus),
        "errors": _messages("error"),
        "warnings": _messages("warning"),
        "level": level,
        "dcgm_version": metadata.get("dcgm version"),
        "driver_version": metadata.get("driver version detected"),
        "gpu_device_ids": [i.strip() for i in ids.split(",") if i.strip()] if ids else None,
    }
    first_line = tests[0].line if tests else messages[0].line
    facts = (
        Fact("dcgm_failed_tests", float(len(by_status["fail"])), "count", first_line),
        Fact("dcgm_failed_gpus", float(len(failed_gpus)), "count", first_line),
    )
    return ParseResult(KIND, metrics, facts, tuple(warnings))
