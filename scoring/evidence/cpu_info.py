"""Parser for ``lscpu`` and ``/proc/cpuinfo``: logical CPU count and hypervisor signs.

Reads lscpu in its old and new layouts, with English or Chinese (zh_CN) labels: util-linux
translates lscpu's labels ("架构", "CPU", "型号名称", "超管理器厂商", most ending in a full-width
colon, U+FF1A) and the virtualization type ("完全" for full), not the labels its translators left
out ("Address sizes", "Caches (sum of all)", the Vulnerability lines), which stay English in the
same output.

Metrics (``ParseResult.metrics``):

- ``format``: "lscpu" or "proc_cpuinfo".
- ``logical_cpus`` (int|None): lscpu "CPU(s)", or the number of ``processor`` blocks.
- ``logical_cpus_partial`` (str|None; /proc/cpuinfo only: lscpu states its count in its
  "CPU(s)" line): "cut" when a /proc/cpuinfo ends inside a processor's
  block (the kernel prints the same fields for every processor: a last block with fewer than
  the first one's is a paste or ``head`` cut there), or "excerpt" when an excerpt marker cuts
  it: ``logical_cpus`` is then only the blocks shown, a lower bound; or "numbering" when the
  processor numbers start above 0 or skip some (an excerpt of a longer listing):
  ``logical_cpus`` is then the highest number + 1, also a lower bound; None otherwise.
- ``hypervisor`` (bool|None): True when the ``hypervisor`` CPU flag or a "Hypervisor vendor"
  line is present; False when an x86 flag list is shown without either; None when the output
  shows no flag list and no vendor line (e.g. truncated), or the CPU is not x86 (an aarch64
  lscpu lists flags, but none of them marks a VM).
- ``hypervisor_vendor`` (str|None): lscpu "Hypervisor vendor" (KVM, VMware, Microsoft, Xen...).
- ``virtualization_type`` (str|None): lscpu "Virtualization type" (full, para, container), in
  English whichever language lscpu printed it in.
- ``cpu_virtualization`` (str|None): lscpu "Virtualization" (VT-x, AMD-V): what the CPU offers
  to guests. A VM with nested virtualization shows it too, so it is not a bare-metal proof.
- ``model_name``, ``vendor_id``, ``architecture``, ``sockets``, ``cores_per_socket``,
  ``threads_per_core``, ``numa_nodes`` (None when not shown).

Facts: ``logical_cpus`` and ``sockets`` (unit "count"), named as the metrics they repeat with
their line (a fact named otherwise was stored twice, once without its line).

lscpu wraps long values at the terminal width, even inside a word; the flag list is therefore
read both ways (continuation glued on, and joined with a space) before looking for
``hypervisor``.
"""

from __future__ import annotations

import re
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, split_label

KIND = "cpu_info"

_DETECT_MAX_LINES = 200
_DETECT_MAX_CHARS = 65536

# The colon after a label: ASCII, or the full-width colon U+FF1A of the zh_CN labels (a few of
# them, such as "机器类型" of s390, end in the vertical two-dot leader U+FE30 instead).
_LSCPU_COLONS = ":：︰"
# A /proc/cpuinfo label ("model name", "cpu MHz"); its line is split by ``split_label``, never by
# one regex with lazy groups (quadratic on a long line of blanks).
_CPUINFO_LABEL_RE = re.compile(r"[a-zA-Z][a-zA-Z0-9 _()]*")
_PROCESSOR_RE = re.compile(r"^processor\s*:\s*(\d+)\s*$")
_X86_ARCH_RE = re.compile(r"^(?:x86_64|x86-64|amd64|i[3-6]86)\b")
_EXCERPT_RE = re.compile(r"\[\.\.\.\]|<snip>|^\s*\.\.\.\s*$", re.IGNORECASE)
_X86_VENDORS = ("GenuineIntel", "AuthenticAMD", "HygonGenuine", "CentaurHauls")

# Chinese (zh_CN) lscpu labels, mapped to the English ones (util-linux po/zh_CN.po, the same
# in its 2.29 and 2.38 catalogues; "CPU(s):" is translated "CPU:" with an ASCII colon).
_ZH_KEYS = {
    "架构": "Architecture",
    "CPU 运行模式": "CPU op-mode(s)",
    "字节序": "Byte Order",
    "CPU": "CPU(s)",
    "在线 CPU 列表": "On-line CPU(s) list",
    "每个核的线程数": "Thread(s) per core",
    "每个座的核数": "Core(s) per socket",
    "座": "Socket(s)",
    "NUMA 节点": "NUMA node(s)",
    "厂商 ID": "Vendor ID",
    "型号名称": "Model name",
    "虚拟化": "Virtualization",
    "超管理器厂商": "Hypervisor vendor",
    "虚拟化类型": "Virtualization type",
    "标记": "Flags",
}
# lscpu's virtualization types as zh_CN prints them (util-linux po/zh_CN.po).
_ZH_VIRT_TYPES = {"无": "none", "半": "para", "完全": "full", "容器": "container"}
_CPUINFO_KEYS = {
    "vendor_id",
    "model name",
    "flags",
    "cpu family",
    "bogomips",
    "features",
    "cpu implementer",
}
_LSCPU_KEYS = {
    "Architecture",
    "CPU(s)",
    "On-line CPU(s) list",
    "Thread(s) per core",
    "Core(s) per socket",
    "Core(s) per cluster",
    "Socket(s)",
    "NUMA node(s)",
    "Vendor ID",
    "Model name",
    "Virtualization",
    "Hypervisor vendor",
    "Virtualization type",
    "Flags",
    "Byte Order",
    "CPU op-mode(s)",
}


# A reader's note pasted after a value ("4<tab><tab>-- the core count", "<model><tab> # note"):
# lscpu pads between label and value, never after the value, so a tab there then a note marker
# start text that is not the tool's.
_NOTE_MARKERS = ("--", "#", "//", "<-", "←")


def _without_note(value: str) -> str:
    """``value`` without a reader's note after a tab (one scan, whatever the blanks)."""
    tab = value.find("\t")
    if tab < 0 or not value[tab:].lstrip().startswith(_NOTE_MARKERS):
        return value
    return value[:tab].rstrip()


def _lscpu_field(line: str) -> tuple[str, str] | None:
    """An lscpu line's label and value, or None when it has no colon or no label."""
    pair = split_label(line, _LSCPU_COLONS)
    if pair is None or not pair[0].strip():
        return None
    return pair[0].strip(), _without_note(pair[1])


def _cpuinfo_field(line: str) -> tuple[str, str] | None:
    """A /proc/cpuinfo line's label and value (``line`` stripped), or None when it is not
    "<label> : <value>"."""
    pair = split_label(line)
    if pair is None or not _CPUINFO_LABEL_RE.fullmatch(label := pair[0].rstrip()):
        return None
    return label, pair[1]


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is lscpu or /proc/cpuinfo output (head only)."""
    try:
        head = text[:_DETECT_MAX_CHARS].splitlines()[:_DETECT_MAX_LINES]
        lscpu_keys: set[str] = set()
        processors = cpuinfo_keys = 0
        for raw in head:
            if _PROCESSOR_RE.match(raw.strip()):
                processors += 1
                continue
            field = _lscpu_field(raw)
            if field is None:
                continue
            key = _ZH_KEYS.get(field[0], field[0])
            if key in _LSCPU_KEYS:
                lscpu_keys.add(key)
            if field[0].lower() in _CPUINFO_KEYS:
                cpuinfo_keys += 1
        if len(lscpu_keys) >= 3 and ("CPU(s)" in lscpu_keys or "Architecture" in lscpu_keys):
            return 85
        if processors and cpuinfo_keys:
            return 85
        if len(lscpu_keys) >= 2:
            return 30
        return 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _int_or_none(value: str | None, line: int | None, label: str) -> int | None:
    if value is None:
        return None
    text = value.strip()
    if text in {"", "-"}:
        return None
    if not text.isdigit() or len(text) > 7:
        raise EvidenceParseError(
            f"unreadable {label} {text!r}",
            line=line,
            kind=KIND,
            code="cpu_info.unreadable",
            params={"label": label, "text": text},
        )
    return int(text)


def _virt_type(value: str | None) -> str | None:
    if not value:
        return None
    return _ZH_VIRT_TYPES.get(value, value)


def _has_hypervisor_flag(pieces: list[str]) -> bool:
    glued = "".join(pieces).split()
    spaced = " ".join(pieces).split()
    return "hypervisor" in glued or "hypervisor" in spaced


def _parse_lscpu(lines: list[str]) -> tuple[dict[str, str], dict[str, int], list[str]]:
    values: dict[str, str] = {}
    where: dict[str, int] = {}
    flag_pieces: list[str] = []
    last_key: str | None = None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            last_key = None
            continue
        field = _lscpu_field(raw)
        if field is not None:
            key = _ZH_KEYS.get(field[0], field[0])
            last_key = key
            # lscpu prints a value after every label; a label alone is a heading of whatever
            # wraps the output (vLLM's collect_env prints "CPU:" above lscpu, which the zh_CN
            # map reads as "CPU(s)"), and it must not hide the real line that follows.
            if key not in values and (field[1].strip() or key == "Flags"):
                values[key] = field[1]
                where[key] = number
                if key == "Flags":
                    flag_pieces.append(field[1])
            continue
        # An indented line without a label continues the previous, wrapped value.
        if last_key == "Flags" and raw[:1] in (" ", "\t"):
            flag_pieces.append(raw.strip())
    return values, where, flag_pieces


def _parse_cpuinfo(lines: list[str]) -> tuple[dict[str, Any], int | None, list[str]]:
    processors = 0
    first_line: int | None = None
    model_name = vendor = None
    physical_ids: set[str] = set()
    flags_seen = hypervisor = False
    features_seen = False
    # Fields per processor block, in order: a last block shorter than the first is cut.
    block_fields: list[int] = []
    numbers: list[int] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        match = _PROCESSOR_RE.match(line)
        if match:
            if len(match.group(1)) <= 7:
                numbers.append(int(match.group(1)))
            processors += 1
            first_line = first_line or number
            block_fields.append(0)
            continue
        field = _cpuinfo_field(line)
        if field is None:
            continue
        if block_fields:
            block_fields[-1] += 1
        key, value = field[0].lower(), field[1]
        if key == "model name" and model_name is None:
            model_name = value
        elif key == "vendor_id" and vendor is None:
            vendor = value
        elif key == "physical id":
            physical_ids.add(value)
        elif key == "flags":
            flags_seen = True
            hypervisor = hypervisor or "hypervisor" in value.split()
        elif key == "features":
            features_seen = True
    warnings: list[str] = []
    if flags_seen:
        hyper: bool | None = hypervisor
    else:
        hyper = None
        note = "ARM 'Features' list" if features_seen else "no 'flags' line"
        warnings.append(f"/proc/cpuinfo has {note}: the hypervisor flag cannot be checked")
    partial = None
    count = processors
    if len(block_fields) >= 2 and block_fields[-1] < block_fields[0]:
        partial = "cut"
        warnings.append(
            f"the output ends inside processor {processors - 1}'s block: {processors} "
            "processors shown, the machine may have more"
        )
    # The kernel numbers processors 0, 1, 2...: blocks that start above 0 or skip numbers are
    # an excerpt (one processor quoted from a 64-thread host), and the highest number shown
    # says at least that many are there.
    if numbers and max(numbers) + 1 > processors:
        partial = partial or "numbering"
        count = max(numbers) + 1
        warnings.append(
            f"processor numbers up to {max(numbers)} with {processors} block(s) shown: an "
            f"excerpt; the machine has at least {count} logical CPUs"
        )
    metrics = {
        "format": "proc_cpuinfo",
        "logical_cpus": count,
        "logical_cpus_partial": partial,
        "hypervisor": hyper,
        "hypervisor_vendor": None,
        "virtualization_type": None,
        "cpu_virtualization": None,
        "model_name": model_name,
        "vendor_id": vendor,
        "architecture": None,
        # An excerpt's physical ids are only those of the processors quoted.
        "sockets": len(physical_ids) if physical_ids and partial != "numbering" else None,
        "cores_per_socket": None,
        "threads_per_core": None,
        "numa_nodes": None,
    }
    return metrics, first_line, warnings


def _x86_flag_list(arch: str, vendor: str | None, flag_pieces: list[str]) -> bool:
    """Whether the flags are an x86 CPU's (the only ones with a "hypervisor" flag): by the
    Architecture line, else by the vendor, else by the list itself: the kernel prints x86's
    CPUID flags from "fpu" on, ARM's features from "fp asimd" on."""
    if arch:
        return bool(_X86_ARCH_RE.match(arch))
    if vendor:
        return vendor.strip() in _X86_VENDORS
    return "fpu" in " ".join(flag_pieces).split()


def parse(text: str) -> ParseResult:
    """Parse lscpu or /proc/cpuinfo output; see the module docstring for the metrics."""
    lines = text.splitlines()
    warnings: list[str] = []
    excerpt = next((i for i, raw in enumerate(lines, 1) if _EXCERPT_RE.search(raw)), None)
    is_cpuinfo = any(_PROCESSOR_RE.match(raw.strip()) for raw in lines)
    values, where, flag_pieces = _parse_lscpu(lines)
    if not is_cpuinfo or "CPU(s)" in values:
        if "CPU(s)" not in values and "Model name" not in values and "Architecture" not in values:
            raise EvidenceParseError(
                "no lscpu fields or /proc/cpuinfo processor blocks found "
                "(expected 'CPU(s):' or 'processor : 0' lines)",
                kind=KIND,
                code="cpu_info.nothing",
            )
        logical = _int_or_none(values.get("CPU(s)"), where.get("CPU(s)"), "CPU count")
        vendor_line = values.get("Hypervisor vendor") or None
        hypervisor: bool | None
        arch = (values.get("Architecture") or "").strip().lower()
        if vendor_line or (flag_pieces and _has_hypervisor_flag(flag_pieces)):
            hypervisor = True
        elif flag_pieces and not _x86_flag_list(arch, values.get("Vendor ID"), flag_pieces):
            # Only x86 CPUs carry a "hypervisor" flag (CPUID): an ARM/POWER guest looks the same.
            hypervisor = None
            cpu = arch or f"{values.get('Vendor ID') or 'non-x86'} (no Architecture line)"
            warnings.append(
                f"{cpu} CPU: its flag list has no hypervisor flag in a VM either, so it "
                "cannot show bare metal"
            )
        elif flag_pieces:
            hypervisor = False
        else:
            hypervisor = None
            warnings.append("no 'Flags' line: the hypervisor flag cannot be checked")
        metrics: dict[str, Any] = {
            "format": "lscpu",
            "logical_cpus": logical,
            "hypervisor": hypervisor,
            "hypervisor_vendor": vendor_line,
            "virtualization_type": _virt_type(values.get("Virtualization type")),
            "cpu_virtualization": values.get("Virtualization") or None,
            "model_name": values.get("Model name") or None,
            "vendor_id": values.get("Vendor ID") or None,
            "architecture": values.get("Architecture") or None,
            "sockets": _int_or_none(values.get("Socket(s)"), where.get("Socket(s)"), "sockets"),
            "cores_per_socket": _int_or_none(
                values.get("Core(s) per socket"), where.get("Core(s) per socket"), "cores"
            ),
            "threads_per_core": _int_or_none(
                values.get("Thread(s) per core"), where.get("Thread(s) per core"), "threads"
            ),
            "numa_nodes": _int_or_none(
                values.get("NUMA node(s)"), where.get("NUMA node(s)"), "NUMA nodes"
            ),
        }
        if logical is None:
            warnings.append("no 'CPU(s)' line: logical CPU count unknown")
        cpu_line = where.get("CPU(s)")
        socket_line = where.get("Socket(s)")
    else:
        metrics, cpu_line, extra = _parse_cpuinfo(lines)
        warnings.extend(extra)
        socket_line = None
    if metrics["hypervisor"] is None and metrics["vendor_id"] in _X86_VENDORS:
        warnings.append("x86 CPU without a flag list: output may be truncated")
    if excerpt is not None:
        warnings.append(f"excerpt marker at line {excerpt}: the output was cut")
        if metrics["format"] == "proc_cpuinfo" and metrics.get("logical_cpus_partial") is None:
            metrics["logical_cpus_partial"] = "excerpt"

    facts: list[Fact] = []
    if metrics["logical_cpus"] is not None and metrics.get("logical_cpus_partial") is None:
        facts.append(Fact("logical_cpus", float(metrics["logical_cpus"]), "count", cpu_line))
    if metrics["sockets"] is not None:
        facts.append(Fact("sockets", float(metrics["sockets"]), "count", socket_line))
    return ParseResult(kind=KIND, metrics=metrics, facts=tuple(facts), warnings=tuple(warnings))
