"""Parser for kernel logs (``dmesg``, ``dmesg -T``/``--ctime``, ``dmesg -x``, ``journalctl -k``):
NVIDIA Xid (GPU) and SXid (NVSwitch) error lines.

A log with no Xid line is a valid result (``xid_count`` 0): a clean log is evidence too. Lines
are recognised wherever they sit, so that grep excerpts, ``kernel:`` syslog lines without a
timestamp and pasted logs with prompts work. ``... caused by previous Xid 149`` inside an Xid 45
line is not counted as a second event. A GPU the driver could not bring up (a failed probe,
"RmInitAdapter failed", a board the driver release does not support) logs no Xid: a warning
says so, so that such a log does not pass for a clean one.

metrics (names fixed: the scoring layer maps them)
    xid_count        int: Xid lines (each occurrence counts; repeated lines are real repeats).
    sxid_count       int: SXid lines.
    xid_codes        list of int: distinct Xid codes, ascending.
    sxid_codes       list of int: distinct SXid codes, ascending.
    xid_by_code      {"79": 2, ...} occurrences per code; ``sxid_by_code`` likewise.
    xid_gpus         distinct GPU PCI addresses named by Xid lines, in order of appearance
                     (an Xid whose address was redacted, "Xid (PCI:...): 145", is counted
                     all the same: its event's ``pci`` is None and a warning says so).
    sxid_fatal_count SXid lines marked "Fatal" (not "Non-fatal").
    gpu_fallen_off_bus  True when Xid 79 or the driver's "has fallen off the bus" sentence
                     appears (also wrapped over several NVRM lines, without an Xid).
    format           "dmesg" ([seconds]), "dmesg_ctime" ([Mon May 25 ...]), "dmesg_iso"
                     (dmesg -x / --time-format iso), "journal" ("Mon DD HH:MM:SS host kernel:"),
                     or "lines" (no recognisable prefix: a grep excerpt).
    kernel_lines     lines that carry a kernel-log prefix; ``line_count`` all non-empty lines.
    nvidia_driver_lines  lines the NVIDIA driver wrote ("NVRM: ...", "nvidia: ...",
                     "nvidia-uvm: ...", "nvidia 0000:17:00.0: ...", "[nvidia-drm]"): a log
                     without any, and without an Xid, may be from a machine with no NVIDIA GPU
                     (a container or jump host), so its silence says nothing about GPUs.
    gpu_recovery_actions  {pci: action}: what the driver's last Xid 154 ("GPU recovery action
                     changed from 0x0 (None) to 0x2 (Node Reboot Required)") asks for each GPU:
                     "None", "GPU Reset Required", "Node Reboot Required", "Drain P2P",
                     "Drain and Reset"...; a journal wrapped at 80 columns puts the "to 0x2
                     (...)" part on the next line, which is read with it.
    hypervisor_detected  the hypervisor the kernel's "Hypervisor detected: NAME" line names
                     ("KVM", "VMware", "Microsoft Hyper-V", "Xen HVM", "Xen PV"...), the first
                     one; None without such a line. Only a guest's kernel prints it, with one
                     exception: a Xen host's own dom0 runs under Xen and prints "Xen PV" or "Xen
                     HVM" on the physical machine. The "kvm:", "kvm_intel:", "kvm_amd:" lines
                     of a host that runs KVM itself are not read as it.
                     ``hypervisor_detected_line``: its line.
    events           the first 500 events: {type "xid"/"sxid", code, pci, line, detail}.
facts: ``xid_count`` and ``sxid_count`` (unit "count"), one ``xid`` fact per event (value = code),
and ``hypervisor_detected`` (1.0, the name in its details) when the line is there.
"""

from __future__ import annotations

import re
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, strip_annotation

KIND = "kernel_log"

# The GPU's PCI address, or whatever stands in its place: a log shared in public often has it
# redacted ("Xid (PCI:...): 145"), and the Xid is no less real for it.
_XID_RE = re.compile(
    r"NVRM: Xid \((?:PCI:)?([0-9A-Fa-f]{1,8}(?::[0-9A-Fa-f]{1,4}){1,3}(?:\.\d)?|[^()\n]{0,40})\):"
    r"\s*(\d{1,5})\b,?\s*(.*)"
)
_PCI_RE = re.compile(r"[0-9a-f]{1,8}(?::[0-9a-f]{1,4}){1,3}(?:\.\d)?")
# A line the NVIDIA kernel driver wrote: its NVRM messages, the nvidia module and its
# companions (nvidia-uvm, nvidia-modeset, nvidia-nvlink, nvidia_peermem...) by name, the module
# naming a device ("nvidia 0000:17:00.0: ..."), or the DRM driver's tag.
_DRIVER_RE = re.compile(
    r"\bNVRM:|\[nvidia-drm\]|(?<![\w-])nvidia(?:[-_][a-z]+\d*)?"
    r"(?: [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])?: "
)
# The switch's name, its colon and the blanks after it are one optional piece: a leading
# ":?\s*" of their own would be tried from every blank of a long run (quadratic).
_SXID_RE = re.compile(
    r"(?:((?:nvidia-)?nvswitch\d*):?\s*)?SXid \((?:PCI:)?([0-9A-Fa-f:.]{4,20})\):"
    r"\s*(\d{1,6})\b,?\s*(.*)"
)
_PREFIXES = (
    ("dmesg", re.compile(r"^\s*(?:<\d>)?\[\s*\d{1,10}\.\d{1,9}\]")),
    (
        "dmesg_ctime",
        re.compile(
            r"^\s*\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\]"
        ),
    ),
    (
        "dmesg_iso",
        re.compile(
            r"^\s*(?:\w+\s*:\s*\w+\s*:\s*)?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[,.]\d+[+-]\d\d:?\d\d\s"
        ),
    ),
    (
        "journal",
        re.compile(r"^\s*(?:[A-Z][a-z]{2}|\d{1,2}月) [ \d]?\d \d\d:\d\d:\d\d \S+ kernel: "),
    ),
)
_KERNEL_WORD_RE = re.compile(r"^\s*kernel: ")
# Any journal line: "Feb 14 05:03:41 <host> <identifier>[<pid>]: ".
_JOURNAL_LINE_RE = re.compile(
    r"^\s*(?:[A-Z][a-z]{2}|\d{1,2}月) [ \d]?\d \d\d:\d\d:\d\d \S+ [\w.@/-]{1,64}(?:\[\d{1,10}\])?: "
)
# The driver's own sentence, on one line ("... has fallen off the bus.") or wrapped by newer
# drivers over several "NVRM:" lines ("... installed in this system has" / "NVRM: fallen off
# the bus and is not responding to commands."), with no Xid line at all.
_FALLEN_RE = re.compile(r"(?:\bhas|NVRM:)\s+fallen off the bus\b")
# Xid 154 names the recovery action the GPU now needs: "... changed from 0x0 (None) to 0x2 (Node
# Reboot Required)". The action's name is in the parentheses after "to 0x...".
_RECOVERY_TO_RE = re.compile(r"\bto 0x[0-9A-Fa-f]{1,8} \(([^()]{1,60})\)")
_RECOVERY_XID = 154
# The driver saying it could not bring a GPU up: no Xid is logged for such a GPU, so a log of
# these lines alone is no sign of health (an unsupported board, RmInitAdapter, a failed probe).
_INIT_FAILED_RE = re.compile(
    r"NVRM: (?:The NVIDIA probe routine failed|None of the NVIDIA devices were initialized)"
    r"|RmInitAdapter failed|\bis not supported by the\b"
)
# The x86 kernel's own line when it finds the hypervisor it runs under (init_hypervisor_platform:
# "Hypervisor detected: KVM", "VMware", "Microsoft Hyper-V", "Xen HVM", "Xen PV", "ACRN"...): a
# guest's line. A host that runs KVM itself logs "kvm: ...", "kvm_intel: ..." or "kvm_amd: ..."
# lines instead, which say nothing about the host being a VM. The line must open the message (a
# sentence quoting it is not the kernel's line).
_HYPERVISOR_RE = re.compile(r"Hypervisor detected: ([A-Za-z][\w .+/()-]{0,40}?)\s*$")
_MAX_EVENTS = 500
_DETECT_CHARS = 262144


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is a kernel log (Xid/SXid lines or kernel prefixes)."""
    try:
        head = text[:_DETECT_CHARS]
        if "NVRM: Xid (" in head or re.search(r"SXid \((?:PCI:)?[0-9A-Fa-f]", head):
            return 95
        if "[" not in head[:4096] and "kernel:" not in head[:4096] and "kern " not in head[:4096]:
            return 0
        lines = [line for line in head[:16384].splitlines()[:80] if line.strip()]
        if len(lines) < 3:
            return 0
        prefixed = 0
        tag: str | None = None
        # journalctl -k keeps what early userspace wrote to the kernel's log ("host systemd[1]:
        # Starting ..."): in a journal that shows kernel lines, such lines are the log too.
        journal = any(_prefix(line) == "journal" for line in lines)
        for line in lines:
            if journal and _JOURNAL_LINE_RE.match(line):
                prefixed += 1
                tag = None
                continue
            rest = _after_prefix(line)
            if rest is not None:
                prefixed += 1
                first = rest.split(maxsplit=1)[0] if rest.strip() else ""
                tag = first if first.endswith(":") else None
            elif tag is not None and line[:1].isspace() and line.lstrip().startswith(tag):
                # dmesg prints a message of several lines with the later ones indented under
                # the first, each repeating the driver's tag ("NVRM: ..."): one message.
                prefixed += 1
            else:
                tag = None
        if prefixed >= 0.6 * len(lines):
            return 60
        return 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _prefix(line: str) -> str | None:
    for name, pattern in _PREFIXES:
        if pattern.match(line):
            return name
    return None


def _after_prefix(line: str) -> str | None:
    """The message after a kernel-log prefix, or None when ``line`` carries none."""
    for _, pattern in _PREFIXES:
        match = pattern.match(line)
        if match:
            return line[match.end() :]
    match = _KERNEL_WORD_RE.match(line)
    return None if match is None else line[match.end() :]


def _hypervisor(raw: str) -> str | None:
    """The hypervisor a "Hypervisor detected: NAME" line names, after its kernel-log prefix (a
    dmesg timestamp, a journal's "host kernel:", both), or at the start of a bare grep line."""
    message = raw.strip()
    for _ in range(2):
        rest = _after_prefix(message)
        if rest is None:
            break
        message = rest.strip()
    match = _HYPERVISOR_RE.match(message)
    return match.group(1) if match else None


def parse(text: str) -> ParseResult:
    """Count and list the Xid and SXid events of a kernel log."""
    events: list[dict[str, Any]] = []
    xid_by_code: dict[int, int] = {}
    sxid_by_code: dict[int, int] = {}
    gpus: list[str] = []
    unnamed: list[str] = []
    formats: dict[str, int] = {}
    kernel_lines = line_count = fatal = driver_lines = 0
    fallen = False
    init_failed: int | None = None
    recovery: dict[str, str] = {}
    hypervisor: tuple[str, int] | None = None
    # An Xid 154 line that ended before its "to 0x.. (...)" part: (pci, its event or None).
    unfinished: tuple[str, dict[str, Any] | None] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        line_count += 1
        if unfinished is not None:
            pci, event = unfinished
            unfinished = None
            # Wrapped by hand ("  to 0x2 (...)") or by the driver ("... NVRM: to 0x2 (...)").
            wrapped = _RECOVERY_TO_RE.match(raw.rpartition("NVRM:")[2].strip())
            if wrapped:
                recovery[pci] = wrapped.group(1).strip()
                if event is not None:
                    event["detail"] = f"{event['detail']} {raw.strip()}"[:200]
                continue
        name = _prefix(raw)
        if name is None and _KERNEL_WORD_RE.match(raw):
            name = "journal"
        if name is not None:
            kernel_lines += 1
            formats[name] = formats.get(name, 0) + 1
        if hypervisor is None and "Hypervisor detected:" in raw:
            named = _hypervisor(raw)
            hypervisor = (named, number) if named else None
        if _FALLEN_RE.search(raw):
            fallen = True
        if init_failed is None and "NVRM" in raw and _INIT_FAILED_RE.search(raw):
            init_failed = number
        if ("NVRM" in raw or "nvidia" in raw) and _DRIVER_RE.search(raw):
            driver_lines += 1
        match = _XID_RE.search(raw)
        if match:
            code = int(match.group(2))
            address = match.group(1).lower()
            pci = address if _PCI_RE.fullmatch(address) else None
            xid_by_code[code] = xid_by_code.get(code, 0) + 1
            if pci is None:
                unnamed.append(f"line {number}: Xid {code} names no PCI address ({address!r})")
            elif pci not in gpus:
                gpus.append(pci)
            if code == 79:
                fallen = True
            event: dict[str, Any] | None = None
            if len(events) < _MAX_EVENTS:
                event = {"type": "xid", "code": code, "pci": pci, "line": number,
                         "detail": strip_annotation(match.group(3)).strip()[:200]}  # fmt: skip
                events.append(event)
            if code == _RECOVERY_XID and pci is not None:
                action = _RECOVERY_TO_RE.search(match.group(3))
                if action:
                    recovery[pci] = action.group(1).strip()
                else:
                    unfinished = (pci, event)
            continue
        match = _SXID_RE.search(raw)
        if match and "SXid (" in raw:
            code = int(match.group(3))
            detail = match.group(4).strip()
            sxid_by_code[code] = sxid_by_code.get(code, 0) + 1
            is_fatal = bool(re.match(r"Fatal\b", detail)) or ", Fatal" in detail
            fatal += is_fatal
            if len(events) < _MAX_EVENTS:
                events.append(
                    {"type": "sxid", "code": code, "pci": match.group(2).lower(), "line": number,
                     "switch": match.group(1), "fatal": is_fatal, "detail": detail[:200]}
                )  # fmt: skip
    if not events and kernel_lines == 0:
        raise EvidenceParseError(
            "no kernel log found (expected dmesg / journalctl -k lines, or 'NVRM: Xid' / "
            "'SXid' lines)",
            kind=KIND,
            code="kernel_log.nothing",
        )
    warnings: list[str] = []
    if len(events) >= _MAX_EVENTS:
        warnings.append(f"more than {_MAX_EVENTS} events: only the first {_MAX_EVENTS} listed")
    if not events:
        warnings.append("no Xid or SXid line in this log")
    if init_failed is not None:
        warnings.append(
            f"line {init_failed}: the NVIDIA driver could not bring a GPU up: that GPU logs no "
            "Xid, so their absence does not mean healthy GPUs"
        )
    if unnamed:
        warnings.append(
            f"{len(unnamed)} Xid line(s) without a readable GPU address (redacted?): counted, "
            f"their GPU unknown; first: {unnamed[0]}"
        )
    xid_count = sum(xid_by_code.values())
    sxid_count = sum(sxid_by_code.values())
    metrics: dict[str, Any] = {
        "xid_count": xid_count,
        "sxid_count": sxid_count,
        "xid_codes": sorted(xid_by_code),
        "sxid_codes": sorted(sxid_by_code),
        "xid_by_code": {str(k): v for k, v in sorted(xid_by_code.items())},
        "sxid_by_code": {str(k): v for k, v in sorted(sxid_by_code.items())},
        "xid_gpus": gpus,
        "sxid_fatal_count": fatal,
        "gpu_fallen_off_bus": fallen,
        "gpu_recovery_actions": recovery,
        "format": max(formats, key=lambda k: formats[k]) if formats else "lines",
        "kernel_lines": kernel_lines,
        "line_count": line_count,
        "nvidia_driver_lines": driver_lines,
        # The first line where the driver could not bring a GPU up (None: no such line).
        "gpu_init_failed_line": init_failed,
        "hypervisor_detected": hypervisor[0] if hypervisor else None,
        "hypervisor_detected_line": hypervisor[1] if hypervisor else None,
        "events": events,
    }
    facts = [
        Fact("xid_count", float(xid_count), "count"),
        Fact("sxid_count", float(sxid_count), "count"),
    ]
    if hypervisor is not None:
        facts.append(
            Fact("hypervisor_detected", 1.0, "bool", hypervisor[1], {"hypervisor": hypervisor[0]})
        )
    facts.extend(
        Fact(e["type"], float(e["code"]), "code", e["line"], {"pci": e["pci"]}) for e in events
    )
    return ParseResult(kind=KIND, metrics=metrics, facts=tuple(facts), warnings=tuple(warnings))
