"""Node fingerprints: the hardware identifiers that tool outputs print, read from their text.

Pure functions, no Django. From evidence text this reads:

- GPU UUIDs (``GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx``: nvidia-smi -L, nvidia-smi -q,
  nvidia-smi --query-gpu=uuid) and GPU serials (``Serial Number`` inside an ``nvidia-smi -q``
  GPU section);
- board and system serials (dmidecode: ``Serial Number`` under ``Base Board Information``
  and ``System Information``);
- HCA GUIDs (ibstat ``Node GUID`` / ``System image GUID`` / ``Port GUID``, ibv_devinfo
  ``node_guid`` / ``sys_image_guid``), normalised to 16 lowercase hex digits;
- MAC addresses (``ip link`` ``link/ether``, ifconfig ``ether`` / ``HWaddr``), globally
  administered ones only: random, locally administered addresses (bridges, veths, containers)
  identify nothing.

Placeholders that identify nothing ("Not Specified", "To Be Filled By O.E.M.", all zeros,
author-masked values with ``x``) are skipped. ``measured_at`` reads the time a tool says it
ran (the nvidia-smi header or ``Timestamp`` line, DCGM JSON ``timestamp``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

KINDS = ("gpu_uuid", "gpu_serial", "board_serial", "system_serial", "hca_guid", "mac")

_GPU_UUID = re.compile(
    r"\bGPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
_SERIAL = re.compile(r"^\s*Serial Number\s*:\s*(?P<value>\S.*?)\s*$", re.IGNORECASE)
_GUID = re.compile(
    r"\b(?:node|port|system\s+image|sys_image)[ _]guid\s*[:=]\s*"
    r"(?P<value>0x[0-9a-fA-F]{16}|[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){3})\b",
    re.IGNORECASE,
)
# Necessary conditions for _GUID and _SERIAL (case-insensitive, with the letters Unicode
# case folding adds: long s, dotted and dotless i), much faster than an IGNORECASE scan.
_GUID_WORD = re.compile("[Gg][Uu][Ii\u0130\u0131][Dd]")
_SERIAL_WORDS = re.compile(
    "[Ss\u017f][Ee][Rr][Ii\u0130\u0131][Aa][Ll][ \t]*[Nn][Uu][Mm][Bb][Ee][Rr]"
)
_MAC = re.compile(
    r"\b(?:link/ether|ether|HWaddr)\s+(?P<value>[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5})\b"
)
_NVSMI_GPU_SECTION = re.compile(r"^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d\s*$")
_DMI_HEADINGS = {
    "system information": "system_serial",
    "base board information": "board_serial",
}
_PLACEHOLDERS = {
    "not specified",
    "to be filled by o.e.m.",
    "default string",
    "none",
    "n/a",
    "[n/a]",
    "[not supported]",
    "not available",
    "system serial number",
    "unknown",
    "0",
    "123456789",
}


@dataclass(frozen=True)
class Fingerprint:
    """Hardware identifiers found in one or more evidence texts, each kind sorted, unique."""

    gpu_uuid: tuple[str, ...] = ()
    gpu_serial: tuple[str, ...] = ()
    board_serial: tuple[str, ...] = ()
    system_serial: tuple[str, ...] = ()
    hca_guid: tuple[str, ...] = ()
    mac: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return any(getattr(self, kind) for kind in KINDS)

    def identifiers(self) -> list[tuple[str, str]]:
        """(kind, value) pairs, in KINDS order."""
        return [(kind, value) for kind in KINDS for value in getattr(self, kind)]

    def as_dict(self) -> dict[str, list[str]]:
        return {kind: list(getattr(self, kind)) for kind in KINDS}

    def merge(self, other: Fingerprint) -> Fingerprint:
        return Fingerprint(
            **{
                kind: tuple(sorted(set(getattr(self, kind)) | set(getattr(other, kind))))
                for kind in KINDS
            }
        )


@dataclass
class _Found:
    values: dict[str, set[str]] = field(default_factory=lambda: {k: set() for k in KINDS})

    def add(self, kind: str, value: str) -> None:
        if value:
            self.values[kind].add(value)

    def fingerprint(self) -> Fingerprint:
        return Fingerprint(**{kind: tuple(sorted(v)) for kind, v in self.values.items()})


def _real_serial(value: str) -> str:
    value = value.strip()
    lowered = value.lower()
    if lowered in _PLACEHOLDERS or "x" * 3 in lowered or set(lowered) <= {"0", " ", "-"}:
        return ""
    return value


def _guid(value: str) -> str:
    digits = value.lower().removeprefix("0x").replace(":", "")
    return "" if set(digits) == {"0"} else digits


def _mac(value: str) -> str:
    value = value.lower()
    first = int(value[:2], 16)
    if value in ("ff:ff:ff:ff:ff:ff", "00:00:00:00:00:00") or first & 0x02 or first & 0x01:
        return ""  # broadcast, empty, locally administered or multicast
    return value


def may_identify(text: str) -> bool:
    """False when ``text`` certainly holds no identifier ``extract`` reads. Each identifier
    needs a word that lies within one line, so a text split after newlines holds none when
    no piece passes this test (a big log is checked piece by piece, never decoded whole)."""
    if "GPU-" in text or "ether" in text or "HWaddr" in text:
        return True
    if text.isascii():
        # No case folding beyond ASCII to allow for: plain substring tests (fast).
        lowered = text.lower()
        return "guid" in lowered or (
            "serial" in lowered
            and "serial number" in lowered
            and _SERIAL_WORDS.search(text) is not None
        )
    return _GUID_WORD.search(text) is not None or (
        _SERIAL_WORDS.search(text) is not None and "serial number" in text.lower()
    )


_DATE_WORDS = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
)


def may_be_dated(text: str) -> bool:
    """False when ``measured_at(text)`` is certainly None; like ``may_identify``, a text split
    after newlines can be checked piece by piece."""
    return '"timestamp"' in text or _DATE_WORDS.search(text) is not None


def extract(text: str) -> Fingerprint:
    """The hardware identifiers printed in one tool output (any tool; unknown text gives an
    empty fingerprint)."""
    found = _Found()
    # Each pattern only where its literal part occurs: a cheap scan first (big logs have none).
    if "GPU-" in text:
        for match in _GPU_UUID.finditer(text):
            found.add("gpu_uuid", "GPU-" + match.group(0)[4:].lower())
    if _GUID_WORD.search(text):
        for match in _GUID.finditer(text):
            found.add("hca_guid", _guid(match.group("value")))
    if "ether" in text or "HWaddr" in text:
        for match in _MAC.finditer(text):
            found.add("mac", _mac(match.group("value")))
    if not _SERIAL_WORDS.search(text) or "serial number" not in text.lower():
        return found.fingerprint()  # most outputs: no line-by-line pass needed
    section = None  # which serial a "Serial Number" line is
    for raw in text.splitlines():
        line = raw.strip(" \t│|")
        lowered = line.lower().strip()
        if not raw.startswith((" ", "\t")) and lowered in _DMI_HEADINGS:
            section = _DMI_HEADINGS[lowered]
            continue
        if _NVSMI_GPU_SECTION.match(line):
            section = "gpu_serial"
            continue
        # Another top-level heading (another DMI type) ends a DMI section; the "Handle 0x..."
        # line that precedes each DMI heading does not.
        top_level = bool(raw) and not raw[0].isspace() and bool(lowered)
        if top_level and not lowered.startswith("handle ") and section in _DMI_HEADINGS.values():
            section = None
        match = _SERIAL.match(raw)
        if match and section is not None:
            found.add(section, _real_serial(match.group("value")))
    return found.fingerprint()


def extract_all(texts) -> Fingerprint:
    """The union of the fingerprints of several outputs (one node's bundle)."""
    result = Fingerprint()
    for text in texts:
        result = result.merge(extract(text))
    return result


_NVSMI_HEADER_TIME = re.compile(
    r"^(?:Timestamp\s*:\s*)?(?P<when>(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) "
    r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{1,2} \d{2}:\d{2}:\d{2} \d{4})\s*$",
    re.MULTILINE,
)
_JSON_EPOCH = re.compile(r'"timestamp"\s*:\s*(?P<epoch>\d{9,10})\b')


def measured_at(text: str) -> datetime | None:
    """When the tool that printed ``text`` ran, if it says so (as UTC: the tools print the
    node's local time without a zone, which is read as UTC); None when it does not."""
    match = _NVSMI_HEADER_TIME.search(text)
    if match:
        when = " ".join(match.group("when").split())
        try:
            return datetime.strptime(when, "%a %b %d %H:%M:%S %Y").replace(tzinfo=UTC)
        except ValueError:
            return None
    match = _JSON_EPOCH.search(text)
    if match:
        return datetime.fromtimestamp(int(match.group("epoch")), tz=UTC)
    return None
