"""The report perftest writes with ``--out_json`` (``--out_json_file=<path>``), read leniently.

perftest 4.5 to 23.x write keys and words unquoted (``test: <name>_Test,``) with
a comma after the last member, which no JSON parser reads; later builds quote them. Both are
read line by line here: ``<section>: {`` opens a section, ``}`` closes it and every
``<key>: <value>`` line between gives one member, quotes and the trailing comma dropped.

The report has two sections: ``test_info`` (the banner perftest prints as text: test name,
device, link type...) and ``results`` (one message size: ``MsgSize``, ``n_iterations`` and
either ``BW_peak``/``BW_average``/``MsgRate`` or ``t_min`` ... ``percentile_99.9`` in usec).
It does not say in which unit the bandwidth is: MB/sec by default, Gb/sec with
``--report_gbits``, as the text report would print.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_OPEN_RE = re.compile(r'^"?(?P<name>[A-Za-z_][\w.]*)"?\s*:\s*\{\s*$')
# A member's key and colon; its value is the rest of the line but a trailing comma (see
# ``_member``: a lazy value group before "\s*,?\s*$" was quadratic on a long run of blanks).
_MEMBER_KEY_RE = re.compile(r'^"?(?P<key>[A-Za-z_][\w.%]*)"?\s*:\s*')
_TEST_RE = re.compile(r"^(?P<verb>.+?)_(?P<bidir>Bidirectional_)?(?P<kind>BW|Latency)_Test$")
_SECTIONS = ("test_info", "results")
# The latency members in the order of the text report's columns (after #bytes, #iterations).
LATENCY_MEMBERS = (
    ("t_min", "t_min"),
    ("t_max", "t_max"),
    ("t_typical", "t_typical"),
    ("t_avg", "t_avg"),
    ("t_stdev", "t_stdev"),
    ("percentile_99", "percentile"),
    ("percentile_99.9", "percentile"),
)
BANDWIDTH_MEMBERS = ("BW_peak", "BW_average", "MsgRate")


@dataclass
class JsonReport:
    """One ``--out_json`` report: its sections' members as text, where it starts."""

    line: int
    sections: dict[str, dict[str, str]] = field(default_factory=dict)
    member_lines: dict[str, int] = field(default_factory=dict)

    @property
    def test(self) -> re.Match[str] | None:
        return _TEST_RE.match(self.sections.get("test_info", {}).get("test", ""))


def looks_like_report(lines: list[str]) -> bool:
    """Whether ``lines`` hold an ``--out_json`` report: a test_info section naming a test."""
    opened = False
    for raw in lines:
        line = raw.strip()
        found = _OPEN_RE.match(line)
        if found and found.group("name") == "test_info":
            opened = True
        elif opened:
            member = _member(line)
            if member and member[0] == "test":
                return _TEST_RE.match(_unquoted(member[1])) is not None
    return False


def read_report(lines: list[str]) -> JsonReport | None:
    """The first report in ``lines`` with a results section, or None."""
    report: JsonReport | None = None
    section: str | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if report is None:
            if line == "{":
                report = JsonReport(line=number)
            continue
        opened = _OPEN_RE.match(line)
        if opened:
            section = opened.group("name")
            report.sections.setdefault(section, {})
            continue
        if line.startswith("}"):
            if section is None:
                if "results" in report.sections:
                    return report
                report = None  # a closing brace of something else: look further
            section = None
            continue
        member = _member(line)
        if member and section in _SECTIONS:
            key = member[0]
            report.sections[section].setdefault(key, _unquoted(member[1]))
            report.member_lines.setdefault(f"{section}.{key}", number)
    if report is not None and "results" in report.sections:
        return report  # cut after its results: what was read stands
    return None


def _member(line: str) -> tuple[str, str] | None:
    """The key and value of a ``<key>: <value>,`` line (stripped), or None: the value is what
    follows the colon, without the blanks and the one comma that end it, and holds no brace."""
    head = _MEMBER_KEY_RE.match(line)
    if head is None:
        return None
    value = line[head.end() :]
    if "{" in value or "}" in value:
        return None
    value = value.rstrip()
    if value.endswith(","):
        value = value[:-1].rstrip()
    return head.group("key"), value


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value
