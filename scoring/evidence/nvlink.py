"""Parser for ``nvidia-smi nvlink`` outputs: ``-s``/``--status``, ``-e``, ``-c``, ``-R``.

Several of these may be pasted into one file; each "GPU n: <name> (UUID: ...)" header opens a
block and every "Link n: ..." line below it belongs to that GPU. Old drivers print the header
without the UUID. ``<inactive>`` links are counted apart. Excerpt markers (``[...]``, ``[snip]``)
are common in pasted outputs: the parser then infers the hidden links/GPUs from the indices it
can see (nvidia-smi numbers them from 0 without gaps) and says so in a warning.

metrics
    gpu_count            GPUs shown (or inferred from the highest index when a marker hides
                         some).
    links_per_gpu        largest number of active links on one GPU (from --status; from the
                         links listed by -e/-c/-R when no status is present).
    link_gbyte_s         fastest per-link speed from --status (GB/s as nvidia-smi prints it,
                         per direction); None when only counters/capabilities are present.
    link_gbyte_s_min     slowest active link speed (a degraded link shows here).
    inactive_links       links printed as <inactive> (all GPUs).
    gpus                 GPU index -> {"name", "uuid", "active_links" (None when the GPU's
                         list ends at an excerpt marker short of the other GPUs'), "inactive_links",
                         "all_links_inactive"} (the last: NVML printed "Unable to retrieve NVLink
                         information as all links are inActive" under the GPU).
    replay_errors_total / recovery_errors_total / crc_errors_total
                         sums of the -e counters over all links shown (None without -e).
    links_with_errors    "GPU g link l" for every link with a non-zero error counter.
    p2p_supported_links  links whose -c says "P2P is supported: true" (None without -c).
    remote_devices       GPU index -> PCI bus ids its links reach (from -R).
facts: ``links_per_gpu``, ``link_gbyte_s`` (when known), per-GPU ``nvlink_active_links`` and
the error totals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult

KIND = "nvidia_smi_nvlink"

_GPU_RE = re.compile(r"^\s*GPU (\d{1,6}): (.*)$")
_SPEED_RE = re.compile(r"^\s*Link (\d{1,6}): ([0-9]{1,6}(?:\.[0-9]{1,6})?) GB/s\s*$")
_INACTIVE_RE = re.compile(r"^\s*Link (\d{1,6}): <?(?:inactive|disabled|down)>?\s*$", re.IGNORECASE)
_ERROR_RE = re.compile(r"^\s*Link (\d{1,6}): ([A-Za-z][A-Za-z /-]*?Errors?)\s*:\s*(\S+)\s*$")
_CAPABILITY_RE = re.compile(r"^\s*Link (\d{1,6}), (.+):\s*(true|false)\s*$", re.IGNORECASE)
_REMOTE_RE = re.compile(r"^\s*Link (\d{1,6}): Remote Device ([0-9A-Fa-f:.]+)")
# nvidia-smi names every remote device by its whole bus id ("00000000:07:00.0"): anything
# shorter is a line cut where the paste stopped ("Link 2: Remote Device 00").
_BUS_ID_RE = re.compile(r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]")
_LINK_RE = re.compile(r"^\s*Link \d+[:,]")
# "[...]", "...", "....", "<snip>", "[snip]", also wrapped in dots ("...<snip>..."). Dots alone
# are up to three runs apart: the three "\.{3,}" of one pattern split a long run of dots in
# every way (cubic).
_EXCERPT_RE = re.compile(
    r"^\s*(?:\.{3,}\s*)?(?:\[\.\.\.\]|…|<snip>|\[snip\])(?:\s*\.{3,})?\s*$"
    r"|^\s*\.{3,}(?:\s+\.{3,}){0,2}\s*$",
    re.IGNORECASE,
)
# NVML's line under a GPU none of whose links is up (a card without its bridge, a link down).
_ALL_INACTIVE_RE = re.compile(r"Unable to retrieve NVLink information|all links are inactive", re.I)
_SCAN_BYTES = 65536


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is ``nvidia-smi nvlink`` output (first 64 KiB)."""
    head = text[:_SCAN_BYTES]
    score = 0
    if re.search(r"(?m)^[ \t]*Link \d+: (?:[0-9.]+ GB/s|<inactive>)[ \t]*$", head):
        score += 70
    if re.search(r"(?m)^[ \t]*Link \d+: (?:Replay|Recovery|CRC) Errors", head):
        score += 70
    if re.search(r"(?m)^[ \t]*Link \d+, P2P is supported:", head):
        score += 60
    if re.search(r"(?m)^[ \t]*Link \d+: Remote Device ", head):
        score += 50
    if score and re.search(r"(?m)^[ \t]*GPU \d+: .+", head):
        score += 20  # a GPU header only counts next to link lines (`nvidia-smi -L` has none)
    if "nvidia-smi nvlink" in head:
        score += 10
    return min(score, 100)


@dataclass
class _Gpu:
    index: int | None
    name: str | None = None
    uuid: str | None = None
    speeds: dict[int, float] = field(default_factory=dict)
    inactive: set[int] = field(default_factory=set)
    errors: dict[int, dict[str, int | None]] = field(default_factory=dict)
    capabilities: dict[int, dict[str, bool]] = field(default_factory=dict)
    remote: dict[int, str] = field(default_factory=dict)
    elided: bool = False
    # A marker came after this GPU's last link line, or that line was cut (cut_line): the end
    # of its list is hidden.
    tail_cut: bool = False
    cut_line: int | None = None
    all_inactive: bool = False
    line: int | None = None
    speed_line: int | None = None

    def listed_links(self) -> set[int]:
        return set(self.errors) | set(self.capabilities) | set(self.remote)


def _name_and_uuid(rest: str) -> tuple[str, str | None]:
    """Split "NVIDIA H100 80GB HBM3 (UUID: GPU-...)" into the name and the UUID."""
    rest = rest.strip()
    start = rest.rfind("(UUID:")
    if start < 0 or not rest.endswith(")"):
        return rest, None
    return rest[:start].strip(), rest[start + len("(UUID:") : -1].strip()


def _counter(name: str) -> str:
    lowered = name.lower()
    for key in ("replay", "recovery", "crc"):
        if key in lowered:
            return key
    return re.sub(r"[^a-z]+", "_", lowered).strip("_")


def parse(text: str) -> ParseResult:
    """Parse nvlink status / error / capability / remote output into the figures above."""
    warnings: list[str] = []
    gpus: dict[int | None, _Gpu] = {}
    current: _Gpu | None = None
    excerpt_lines: list[int] = []
    seen_link = False

    for line_no, raw in enumerate(text.splitlines(), start=1):
        if _EXCERPT_RE.match(raw):
            excerpt_lines.append(line_no)
            if current is not None:
                current.elided = current.tail_cut = True
            continue
        match = _GPU_RE.match(raw)
        if match and not _LINK_RE.match(raw):
            index = int(match.group(1))
            current = gpus.setdefault(index, _Gpu(index, line=line_no))
            name, uuid = _name_and_uuid(match.group(2))
            current.name = current.name or name
            current.uuid = current.uuid or uuid
            continue
        if current is not None and _ALL_INACTIVE_RE.search(raw) and not _LINK_RE.match(raw):
            current.all_inactive = True
            continue
        if not _LINK_RE.match(raw):
            continue
        seen_link = True
        if current is None:
            current = gpus.setdefault(None, _Gpu(None, line=line_no))
            warnings.append(
                f"line {line_no}: link lines without a 'GPU n:' header; assumed to be one GPU"
            )
        current.tail_cut = False
        _read_link_line(raw, line_no, current, warnings)

    if not seen_link:
        raise EvidenceParseError(
            "no NVLink lines found (expected 'Link N: 26.562 GB/s', 'Link N: <inactive>', "
            "'Link N: Replay Errors: 0' or 'Link N, P2P is supported: true')",
            kind=KIND,
            code="nvlink.nothing",
        )
    for line_no in excerpt_lines:
        warnings.append(f"line {line_no}: the output was cut by its author; hidden links inferred")
    return _result(gpus, bool(excerpt_lines), warnings)


def _read_link_line(raw: str, line_no: int, gpu: _Gpu, warnings: list[str]) -> None:
    match = _SPEED_RE.match(raw)
    if match:
        try:
            gpu.speeds[int(match.group(1))] = float(match.group(2))
            gpu.speed_line = gpu.speed_line or line_no
        except ValueError:
            warnings.append(f"line {line_no}: unreadable link speed {match.group(2)!r}")
        return
    match = _INACTIVE_RE.match(raw)
    if match:
        gpu.inactive.add(int(match.group(1)))
        return
    match = _ERROR_RE.match(raw)
    if match:
        value = match.group(3)
        counters = gpu.errors.setdefault(int(match.group(1)), {})
        counters[_counter(match.group(2))] = (
            int(value) if re.fullmatch(r"[0-9]{1,15}", value) else None
        )
        return
    match = _CAPABILITY_RE.match(raw)
    if match:
        caps = gpu.capabilities.setdefault(int(match.group(1)), {})
        caps[match.group(2).strip()] = match.group(3).lower() == "true"
        return
    match = _REMOTE_RE.match(raw)
    if match:
        device = match.group(2).rstrip(":")
        if not _BUS_ID_RE.fullmatch(device):
            # Not a link of this GPU as far as the text shows; when no link line follows, the
            # GPU's list ends here and its link count is unknown (see tail_cut).
            warnings.append(
                f"line {line_no}: remote device {device!r} is no whole PCI bus id: the line "
                "was cut, its link is not counted"
            )
            gpu.tail_cut, gpu.cut_line = True, line_no
            return
        gpu.remote[int(match.group(1))] = device
        return
    warnings.append(f"line {line_no}: unrecognised link line ignored: {raw.strip()[:80]}")


def _active_links(gpu: _Gpu, has_status: bool, excerpt: bool) -> int:
    if has_status:
        shown = set(gpu.speeds) | gpu.inactive
        if excerpt and gpu.elided and shown:
            return max(shown) + 1 - len(gpu.inactive)
        return len(gpu.speeds)
    listed = gpu.listed_links()
    if excerpt and gpu.elided and listed:
        return max(listed) + 1
    return len(listed)


def _result(gpus: dict[int | None, _Gpu], excerpt: bool, warnings: list[str]) -> ParseResult:
    has_status = any(g.speeds or g.inactive for g in gpus.values())
    has_errors = any(g.errors for g in gpus.values())
    has_caps = any(g.capabilities for g in gpus.values())
    indices = [i for i in gpus if i is not None]
    gpu_count = len(gpus)
    if excerpt and indices and len(indices) < max(indices) + 1 <= 1024:
        hidden = [str(i) for i in range(max(indices) + 1) if i not in gpus]
        gpu_count = max(indices) + 1
        warnings.append(
            "GPU(s) " + ", ".join(hidden) + " hidden by an excerpt marker; gpu_count assumes "
            f"GPUs 0..{max(indices)}"
        )
    if not has_status:
        warnings.append(
            "no --status section: link speeds are unknown and links_per_gpu counts the links "
            "listed by -e/-c/-R"
        )
    per_gpu: dict[str, dict[str, Any]] = {}
    speeds: list[float] = []
    totals: dict[str, int] = {}
    error_links: list[str] = []
    unreadable_counters = 0
    p2p = 0
    # A GPU whose list ends at a marker with fewer links than a GPU shown whole: its count is
    # unknown, not low (a pasted "Link 0, Link 1, ..." says nothing about the links after it).
    whole = [_active_links(g, has_status, excerpt) for g in gpus.values() if not g.tail_cut]
    unknown = {
        key
        for key, gpu in gpus.items()
        if gpu.tail_cut and whole and _active_links(gpu, has_status, excerpt) < max(whole)
    }
    for key in sorted(unknown, key=lambda i: -1 if i is None else i):
        cut_line = gpus[key].cut_line
        how = (
            "is cut by an excerpt marker"
            if cut_line is None
            else f"ends in a cut line ({cut_line})"
        )
        warnings.append(
            f"GPU {key if key is not None else '?'}: its link list {how}; "
            "its active links are unknown"
        )
    for key in sorted(gpus, key=lambda i: -1 if i is None else i):
        gpu = gpus[key]
        speeds.extend(gpu.speeds.values())
        for link, counters in sorted(gpu.errors.items()):
            for name, value in counters.items():
                if value is None:
                    unreadable_counters += 1
                    continue
                totals[name] = totals.get(name, 0) + value
                if value and f"GPU {key} link {link}" not in error_links:
                    error_links.append(f"GPU {key} link {link}")
        p2p += sum(1 for caps in gpu.capabilities.values() if caps.get("P2P is supported"))
        per_gpu[str(key) if key is not None else "?"] = {
            "name": gpu.name,
            "uuid": gpu.uuid,
            "active_links": None if key in unknown else _active_links(gpu, has_status, excerpt),
            "inactive_links": len(gpu.inactive),
        }
    if unreadable_counters:
        warnings.append(f"{unreadable_counters} error counter(s) not readable (N/A?)")
    if excerpt and has_errors:
        warnings.append("error counters of links hidden by the excerpt are not included")
    links_per_gpu = max(
        g["active_links"] for g in per_gpu.values() if g["active_links"] is not None
    )
    for key, gpu in gpus.items():
        per_gpu[str(key) if key is not None else "?"]["all_links_inactive"] = gpu.all_inactive
        if gpu.all_inactive:
            warnings.append(f"GPU {key}: NVML reports all its NVLink links inactive")
    fewer = [
        f"GPU {key} ({entry['active_links']})"
        for key, entry in per_gpu.items()
        if has_status
        and entry["active_links"] is not None
        and entry["active_links"] < links_per_gpu
        and not gpus[None if key == "?" else int(key)].all_inactive
    ]
    if fewer:
        warnings.append(
            f"fewer active links than the {links_per_gpu} of the other GPUs: "
            + ", ".join(fewer)
            + " (links down, or the output was cut)"
        )
    metrics: dict[str, Any] = {
        "gpu_count": gpu_count,
        "links_per_gpu": links_per_gpu,
        "link_gbyte_s": max(speeds) if speeds else None,
        "link_gbyte_s_min": min(speeds) if speeds else None,
        "inactive_links": sum(len(g.inactive) for g in gpus.values()),
        "gpus": per_gpu,
        "replay_errors_total": totals.get("replay", 0) if has_errors else None,
        "recovery_errors_total": totals.get("recovery", 0) if has_errors else None,
        "crc_errors_total": totals.get("crc", 0) if has_errors else None,
        "links_with_errors": error_links,
        "p2p_supported_links": p2p if has_caps else None,
        "remote_devices": {
            str(k): sorted(set(g.remote.values())) for k, g in gpus.items() if g.remote
        },
    }
    ordered = sorted(gpus.values(), key=lambda g: -1 if g.index is None else g.index)
    known = [g for g in ordered if g.index not in unknown]
    top = max(known, key=lambda g: _active_links(g, has_status, excerpt))
    facts = [Fact("links_per_gpu", float(links_per_gpu), "count", top.line)]
    fastest = [g for g in ordered if g.speeds and max(g.speeds.values()) == max(speeds or [0])]
    if speeds and fastest:
        facts.append(Fact("link_gbyte_s", max(speeds), "GB/s", fastest[0].speed_line))
    for gpu in ordered:
        key = str(gpu.index) if gpu.index is not None else "?"
        if per_gpu[key]["active_links"] is None:
            continue
        active = float(per_gpu[key]["active_links"])
        facts.append(Fact("nvlink_active_links", active, "count", gpu.line, {"gpu": key}))
    if has_errors:
        for name in ("replay", "recovery", "crc"):
            facts.append(Fact(f"nvlink_{name}_errors", float(totals.get(name, 0)), "count"))
    return ParseResult(KIND, metrics, tuple(facts), tuple(warnings))
