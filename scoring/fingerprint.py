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
- the hosts an nccl-tests run names in its device list ("Rank 0 Group 0 Pid 1274 on
  <host> device 0 [0x0f] NVIDIA H100 80GB HBM3"), lower-cased, where the name can identify a
  node (see ``identifying_host``): "localhost", "node1", "worker2", a Docker container id or a
  Kubernetes job's pod name ("nccl-tests-efa-worker-0") is given to many machines and names
  none. The PCI bus and device name of each rank are the same on every server of one board
  design, so they add nothing to the host;
- the nccl-tests run itself (``nccl_run``): a digest of each results table's rows (size,
  count, type, timings, algbw, busbw, errors), whitespace and launcher prefixes aside. Two
  executions never print the same timings over a table, so the same digest is the same run,
  however the log was re-wrapped (an excerpt, a different mpirun prefix, edited hostnames).

Placeholders that identify nothing ("Not Specified", "To Be Filled By O.E.M.", all zeros,
author-masked values with ``x``) are skipped. ``measured_at`` reads the time a tool says it
ran (the nvidia-smi header or ``Timestamp`` line, DCGM JSON ``timestamp``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

KINDS = (
    "gpu_uuid",
    "gpu_serial",
    "board_serial",
    "system_serial",
    "hca_guid",
    "mac",
    "nccl_host",
    "nccl_run",
)

_GPU_UUID = re.compile(
    r"\bGPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
_SERIAL = re.compile(r"^\s*Serial Number\s*:\s*(?P<value>\S.*?)\s*$", re.IGNORECASE)
_GUID = re.compile(
    r"\b(?:node|port|system\s+image|sys_image)[ _]guid\s*[:=]\s*"
    r"(?P<value>0x[0-9a-fA-F]{16}|[0-9a-fA-F]{4}(?::[0-9a-fA-F]{4}){3})\b",
    re.IGNORECASE,
)
# _GUID for a lower-cased ASCII text (the same matches at the same places: case folding of
# ASCII keeps every character's class and the text's length), without IGNORECASE's slower scan.
_GUID_LOWER = re.compile(
    r"\b(?:node|port|system\s+image|sys_image)[ _]guid\s*[:=]\s*"
    r"(?P<value>0x[0-9a-f]{16}|[0-9a-f]{4}(?::[0-9a-f]{4}){3})\b"
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
    nccl_host: tuple[str, ...] = ()
    nccl_run: tuple[str, ...] = ()

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


# --- nccl-tests ------------------------------------------------------------------------------

# The device list: "Rank  0 Group  0 Pid   1274 on inst-h100-ol89 device  0 [0x0f] NVIDIA ...".
_NCCL_DEVICE = re.compile(
    r"\bRank\s+\d{1,9}\s+(?:Group\s+\d+\s+)?(?:Pid\s+\d+\s+)?on\s+(?P<host>\S+)\s+device\s+\d+\s+\["
)
# The data types nccl-tests prints in its "type" column (every version seen).
_NCCL_TYPES = frozenset(
    {
        "int8", "uint8", "char", "int32", "uint32", "int", "int64", "uint64", "half",
        "float16", "bfloat16", "bf16", "float", "float32", "double", "float64", "fp8",
        "f8e4m3", "f8e5m2", "float8",
    }
)  # fmt: skip
# A results row, wherever a launcher tag puts it: size and count, then the type column.
# A row: a size and a count (digits after a blank or the start) and a type. Written to start
# with the digit (the blank before it checked behind), so that the search skips to digits in C
# rather than trying the pattern at every character: half the time of "(?:^|\s)\d...".
_NCCL_ROW = re.compile(
    r"\d(?<!\S\d)\d{0,14}\s+\d{1,15}\s+(?:"
    + "|".join(sorted(_NCCL_TYPES, key=len, reverse=True))
    + r")\s+\S"
)
# A necessary condition for _NCCL_ROW (its type column followed by a blank), three times as
# fast to refute on the JSON and key-value outputs that hold no nccl-tests table.
_NCCL_TYPE_WORD = re.compile("(?:" + "|".join(sorted(_NCCL_TYPES, key=len, reverse=True)) + r")\s")
# A run's digest needs this many rows: a table of a row or two could repeat by chance.
NCCL_RUN_MIN_ROWS = 4
# Words a hostname made only of (with numbers and separators) is given to many machines:
# defaults of distributions, containers and cloud images, and the role names of job templates.
_GENERIC_HOST_WORDS = frozenset(
    {
        "localhost", "localdomain", "local", "vm", "node", "nodes", "host", "server", "worker",
        "workers", "master", "head", "launcher", "client", "compute", "gpu", "gpus", "machine",
        "instance", "container", "docker", "pod", "job", "test", "tests", "nccl", "mpi", "efa",
        "ib", "rdma", "train", "training", "bench", "benchmark", "ubuntu", "debian", "centos",
        "rocky", "rhel", "alma", "almalinux", "fedora", "linux", "default", "my", "demo", "poc",
        "dgx", "hgx", "a", "b",
    }
)  # fmt: skip
# A Kubernetes job's replica ("<job>-worker-0", "-launcher-x7k2p", "-master-0") or a
# Deployment's pod ("<name>-7d9f8b6c5d-x7k2p"): the job template names it, not the machine.
_POD_NAME = re.compile(
    r"-(?:worker|launcher|master|chief|ps|evaluator|replica|rank)(?:-[0-9a-z]{1,10})?$"
    r"|-[0-9a-f]{8,10}-[0-9a-z]{5}$"
)
# "inst-xxxxx-h100", "inst-yyyyy-h100": the part that told the nodes apart was masked.
_MASKED = re.compile(r"xxx|([a-z])\1{3,}")
_CONTAINER_ID = re.compile(r"^(?:[0-9a-f]{12}|[0-9a-f]{64})$")
_IP_HOST = re.compile(r"^(?:ip-)?\d{1,3}(?:[-.]\d{1,3}){3}(?:\..*)?$")


def identifying_host(name: str) -> str:
    """``name`` lower-cased when a hostname can tell one node from another, else "".

    Names given to many machines identify nothing: generic words with numbers ("localhost",
    "node1", "worker-2", "gpu01", "vm"), Docker's container ids, Kubernetes job replica and
    Deployment pod names, private-address names ("ip-10-0-1-23", "10.0.1.23": the same in
    every cloud account), and names an author masked ("inst-xxxxx-h100")."""
    host = name.strip().strip(".").lower()
    if not host or _MASKED.search(host) or _CONTAINER_ID.match(host) or _IP_HOST.match(host):
        return ""
    short = host.split(".", 1)[0]
    if _POD_NAME.search(short):
        return ""
    words = [w for w in re.split(r"[^a-z]+", short) if w]
    if all(w in _GENERIC_HOST_WORDS for w in words):
        return ""  # also a name of numbers only
    return host


class _NcclTables:
    """The hosts of nccl-tests device lists and the digests of its results tables, read from
    a text given in pieces split after newlines (``read`` each, then ``close``)."""

    def __init__(self) -> None:
        self.tables: list[list[str]] = []
        self.rows: list[str] = []
        self.devices: set[str] = set()

    def read(self, text: str, found: _Found) -> None:
        rows, devices = self.rows, self.devices
        for line in text.splitlines():
            if "device" in line:
                if line in devices:  # a long log prints its device list before every table
                    continue
                match = _NCCL_DEVICE.search(line)
                if match:
                    if len(devices) < 4096:
                        devices.add(line)
                    found.add("nccl_host", identifying_host(match.group("host")))
                    continue
            if "busbw" in line:  # a table's header: the rows after it are another table
                if rows:
                    self.tables.append(rows)
                rows = self.rows = []
                continue
            # Tokens rather than _NCCL_ROW: a big log's lines are read four times faster.
            tokens = line.split()
            for at in range(2, min(len(tokens), 8)):
                if (
                    tokens[at] in _NCCL_TYPES
                    and tokens[at - 1].isdigit()
                    and tokens[at - 2].isdigit()
                ):
                    rows.append(" ".join(tokens[at - 2 :]))
                    break

    def close(self, found: _Found) -> None:
        if self.rows:
            self.tables.append(self.rows)
            self.rows = []
        for table in self.tables:
            if len(table) >= NCCL_RUN_MIN_ROWS:
                digest = hashlib.sha256("\n".join(table).encode()).hexdigest()[:32]
                found.add("nccl_run", digest)


def _may_be_nccl(text: str) -> bool:
    """A necessary condition for ``_nccl`` finding anything in a line (or a text)."""
    if "device" in text and "Rank" in text and _NCCL_DEVICE.search(text):
        return True
    return _NCCL_TYPE_WORD.search(text) is not None and _NCCL_ROW.search(text) is not None


def may_identify(text: str) -> bool:
    """False when ``text`` certainly holds no identifier ``extract`` reads. Each identifier
    needs a word that lies within one line, so a text split after newlines holds none when
    no piece passes this test (a big log is checked piece by piece, never decoded whole)."""
    if "GPU-" in text or "ether" in text or "HWaddr" in text:
        return True
    if _may_be_nccl(text):
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
    return extract_pieces((text,))


def extract_pieces(pieces: Iterable[str]) -> Fingerprint:
    """``extract`` of a text given in pieces split after newlines (a big log read block by
    block, never decoded whole): identifiers lie within a line, and the nccl-tests tables are
    followed across pieces. A serial is attributed from the headings read since the last
    piece without one (big files are logs, which print no DMI or nvidia-smi sections)."""
    found = _Found()
    nccl: _NcclTables | None = None
    section = None  # which serial a "Serial Number" line is
    for text in pieces:
        # An ASCII text's case folds are ASCII's: the case-insensitive words are then plain
        # substring tests of its lower-cased copy (made once), as in may_identify.
        lowered = text.lower() if text.isascii() else None
        # Each pattern only where its literal part occurs: a cheap scan first (logs have none).
        if "GPU-" in text:
            for match in _GPU_UUID.finditer(text):
                found.add("gpu_uuid", "GPU-" + match.group(0)[4:].lower())
        if lowered is not None:
            if "guid" in lowered:
                # _guid lower-cases the value anyway: read from the lower-cased copy.
                for match in _GUID_LOWER.finditer(lowered):
                    found.add("hca_guid", _guid(match.group("value")))
        elif _GUID_WORD.search(text):
            for match in _GUID.finditer(text):
                found.add("hca_guid", _guid(match.group("value")))
        if "ether" in text or "HWaddr" in text:
            for match in _MAC.finditer(text):
                found.add("mac", _mac(match.group("value")))
        if nccl is not None or _may_be_nccl(text):
            nccl = nccl or _NcclTables()
            nccl.read(text, found)
        if lowered is not None:
            # "serial number" is one of _SERIAL_WORDS' matches: the test below, for ASCII.
            serials = "serial number" in lowered
        else:
            serials = bool(_SERIAL_WORDS.search(text)) and "serial number" in text.lower()
        if not serials:
            # Most outputs: no line-by-line pass, only the section the piece ends in.
            section = _section_after(text, section, lowered)
            continue
        section = _serials(text, found, section)
    if nccl is not None:
        nccl.close(found)
    return found.fingerprint()


# The lines _serials reads as headings, and a top-level line that ends a DMI section (any
# line starting with neither whitespace nor "Handle "), found by one scan of a whole piece.
_HEADING_LINE = re.compile(
    r"^[│|]*(?:system|base board) information[ \t│|]*$"
    r"|^[ \t│|]*GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d[ \t│|]*$",
    re.MULTILINE | re.IGNORECASE,
)
_TOP_LEVEL_LINE = re.compile(r"^(?!handle )[^\s│|]|^[│|]+[ \t│|]*(?!handle )[^\s│|]", re.M | re.I)


def _section_after(text: str, section: str | None, lowered: str | None = None) -> str | None:
    """The section ``_serials`` would be in at the end of ``text``, without reading it line
    by line (a piece with no serial in it). ``lowered``: ``text`` lower-cased when it is ASCII
    (a heading needs "information" or "gpu " in it, which that tells without a scan)."""
    last = None
    if lowered is None or "information" in lowered or "gpu " in lowered:
        for last in _HEADING_LINE.finditer(text):  # noqa: B007 (the last one is wanted)
            pass
    rest = text
    if last is not None:
        heading = last.group(0).strip(" \t│|").lower().strip()
        section = _DMI_HEADINGS.get(heading, "gpu_serial")
        rest = text[last.end() :]
    if section in _DMI_HEADINGS.values() and _TOP_LEVEL_LINE.search(rest):
        section = None
    return section


def _serials(text: str, found: _Found, section: str | None) -> str | None:
    """The serials of ``text``'s DMI and nvidia-smi sections; returns the section it ends in."""
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
    return section


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
