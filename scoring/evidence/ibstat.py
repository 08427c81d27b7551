"""Parser for InfiniBand/RoCE port status: ``ibstat`` and ``ibstatus`` (infiniband-diags) and
``ibv_devinfo`` (rdma-core; ``-v`` adds ``active_width``/``active_speed``, a ``grep`` of it may
keep the port lines without their ``port:`` line).

Metrics (``ParseResult.metrics``):

- ``ports``: one dict per port, in file order: ``ca`` (e.g. "mlx5_0"), ``port`` (int),
  ``state`` ("Active", "Down", "Init", "Armed" or the tool's word), ``physical_state``
  ("LinkUp", "Polling", "Disabled"...), ``rate_gbit_s`` (float, the signalling rate the tool
  prints: 100 for HDR100/EDR, 400 for NDR; None if absent), ``link_layer`` ("InfiniBand" or
  "Ethernet" for RoCE), ``ca_type`` (e.g. "MT4129"; ibstat only), ``firmware`` (ibstat only),
  ``link_width`` and ``speed`` (e.g. "4X", "HDR"; ibstatus only). ibv_devinfo: ``state``
  "PORT_ACTIVE (4)" reads "Active", ``phys_state`` "LINK_UP (5)" reads "LinkUp", the rate is
  ``active_width`` x ``active_speed`` ("4X (2)" x "25.0 Gbps (32)" = 100; None without ``-v``),
  ``ca_type`` is "MT" + ``vendor_part_id`` for Mellanox/NVIDIA parts (vendor 0x02c9),
  ``firmware`` is ``fw_ver``, ``transport`` ("InfiniBand", "iWARP"...). A paste that ends inside
  a port's block may cut its last value: a state that is only the start of one of the tools'
  words ("Acti") or a bare rate ("Rate: 4" where the other ports go on to their link layer) is
  not read, with a warning.
- ``format``: "ibstat", "ibstatus" or "ibv_devinfo".
- ``ca_count``, ``port_count``, ``active_port_count``, ``down_port_count``.
- ``ca_types``, ``firmware_versions``, ``link_layers``: sorted distinct values.
- ``active_rates_gbit_s``: sorted distinct rates of Active ports; ``max_active_rate_gbit_s``.

Facts: one ``port_rate_gbit_s`` (unit "Gbit/s") per port that shows a rate, with the CA, port,
state and link layer in ``details``.

A value blanked by the person who pasted it ("CA type: ...") is unknown, not a value; an
``ibpanic:`` line (ibstat stopped on a device it could not read) is reported as a warning,
since the devices after it were never listed.

Note: ibstat prints the rate of a Down port too (often the lowest rate, e.g. 10 or 40); that
figure says nothing about the link, which is why states travel with every rate.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, split_label, strip_annotation

KIND = "ibstat"

_DETECT_MAX_LINES = 200
_DETECT_MAX_CHARS = 65536

_CA_RE = re.compile(r"^CA '([^']+)'\s*$")
_PORT_RE = re.compile(r"^Port (\d+):\s*$")
_IBSTATUS_RE = re.compile(r"^Infiniband device '([^']+)' port (\d+) status:\s*$", re.IGNORECASE)
# The key of a "Key: value" line, before its first colon (``split_label`` cuts the line: one
# regex with lazy groups is quadratic on a long line of blanks).
_KEY_RE = re.compile(r"[A-Za-z][A-Za-z _]*")
_IBSTATUS_RATE_RE = re.compile(
    r"^(\d+(?:\.\d+)?)\s*Gb/sec(?:\s*\((\d+X)?\s*([A-Za-z0-9]+)?\))?", re.IGNORECASE
)
_NUMBERED_RE = re.compile(r"^\d+:\s*(.+)$")
_HCA_RE = re.compile(r"^hca_id:\s*(\S+)\s*$")
_DEVINFO_PORT_RE = re.compile(r"^port:\s*(\d+)\s*$")
# ibv_devinfo prints enums as "WORD_WORD (n)": "PORT_ACTIVE (4)", "LINK_UP (5)", "4X (2)".
_ENUM_RE = re.compile(r"^([A-Za-z0-9_]+)\s*\(\d+\)$")
_WIDTH_RE = re.compile(r"^(\d{1,2})X\b", re.IGNORECASE)
_SPEED_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*Gbps\b", re.IGNORECASE)
_MELLANOX_VENDOR_IDS = {"0x02c9", "0x2c9", "0x15b3"}
_EXCERPT_RE = re.compile(r"\[\.\.\.\]|<snip>|^\.\.\.$", re.IGNORECASE)
# The number after ibv_devinfo's transport name ("InfiniBand (0)"), from the first blank of a
# run only (from every blank of a long run, it was quadratic).
_TRANSPORT_NUMBER_RE = re.compile(r"(?<!\s)\s*\(\d+\)$")
# A value the person who pasted the output blanked out ("CA type: ...", "Node GUID: …"): no
# value at all, not a CA type or firmware version named "...".
_ELIDED_VALUE_RE = re.compile(r"^(?:\.{2,}|\u2026+|<(?:redacted|hidden|removed|masked)>)$", re.I)
# Pasted terminal panes (tmux, screen) keep their box-drawing border on every line; an output
# quoted in a mail reply or a markdown quote starts every line with "> ".
_BORDER_CHARS = "\u2502\u2503|>"

_STATE_WORDS = {
    "active": "Active",
    "down": "Down",
    "init": "Init",
    "initializing": "Init",
    "armed": "Armed",
    "active_defer": "Active",
    "active/defer": "Active",
}
_LINK_LAYERS = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}
# The words infiniband-diags prints for a port's state and physical state (ibstat.c,
# port_state_str and port_phy_state_str), and ibv_devinfo's in its own case.
_STATE_VOCABULARY = ("down", "initializing", "armed", "active", "active_defer")
_PHYSICAL_VOCABULARY = (
    "sleep", "polling", "disabled", "portconfigurationtraining", "linkup", "linkerrorrecovery",
    "phytest", "link_up", "link_error_recovery", "port_configuration_training",
)  # fmt: skip


def _cut_word(value: str, vocabulary: tuple[str, ...]) -> bool:
    """Whether ``value`` is the start of one of the tool's words and not a word itself: the
    last line of a paste cut inside it ("State: Acti")."""
    word = value.strip().lower()
    return (
        bool(word)
        and word not in vocabulary
        and any(known.startswith(word) for known in vocabulary)
    )


@dataclass
class _Port:
    ca: str | None
    port: int | None
    line: int
    ca_type: str | None = None
    firmware: str | None = None
    values: dict[str, tuple[str, int]] = field(default_factory=dict)


@dataclass
class _Ca:
    name: str
    line: int
    info: dict[str, str] = field(default_factory=dict)
    ports: list[_Port] = field(default_factory=list)


def _clean(raw: str) -> str:
    line = raw.strip()
    if line and line[0] in _BORDER_CHARS:
        while line and line[0] in _BORDER_CHARS:
            line = line[1:]
        line = line.strip()
    return strip_annotation(line)


_PANIC_RE = re.compile(r"^ibpanic: \[\d+\] \S")


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is ibstat/ibstatus output (looks at the head only)."""
    try:
        head = text[:_DETECT_MAX_CHARS].splitlines()[:_DETECT_MAX_LINES]
        ca = ibstatus = keys = 0
        for raw in head:
            line = _clean(raw)
            if _CA_RE.match(line) or _HCA_RE.match(line):
                ca += 1
            elif _IBSTATUS_RE.match(line):
                ibstatus += 1
            elif line.startswith(
                (
                    "CA type:",
                    "Link layer:",
                    "Physical state:",
                    "link_layer:",
                    "phys state:",
                    "phys_state:",
                    "phys_port_cnt:",
                    "state:\t",
                    "state: PORT_",
                )
            ):
                keys += 1
            else:
                continue
            if (ca or ibstatus) and keys:
                return 92  # the most it can say: the rest of the head changes nothing
        if (ca or ibstatus) and keys:
            return 92
        if ca or ibstatus:
            return 50
        if keys >= 3:
            return 20
        # infiniband-diags' own failure ("ibpanic: [7851] main: stat of IB device 'mlx5_1'
        # failed: ...", libibmad's IBPANIC format) before any CA was listed.
        return 40 if any(_PANIC_RE.match(_clean(raw)) for raw in head) else 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _enum_word(value: str) -> str | None:
    """ "PORT_ACTIVE (4)" -> "PORT_ACTIVE"; None when ``value`` is not an ibv_devinfo enum."""
    match = _ENUM_RE.match(value.strip())
    return match.group(1) if match else None


def _normalise_state(value: str) -> str:
    match = _NUMBERED_RE.match(value)
    if match:
        value = match.group(1)
    word = _enum_word(value)
    if word is not None:
        value = word[5:] if word.upper().startswith("PORT_") else word
    return _STATE_WORDS.get(value.strip().lower(), value.strip())


def _physical_state(value: str) -> str:
    match = _NUMBERED_RE.match(value)
    value = (match.group(1) if match else value).strip()
    word = _enum_word(value)
    if word is not None and word.isupper():
        # ibv_devinfo's "LINK_UP" is ibstat's "LinkUp".
        return "".join(part.capitalize() for part in word.split("_"))
    return value


def _devinfo_rate(width: tuple[str, int] | None, speed: tuple[str, int] | None) -> float | None:
    """ibv_devinfo -v: lanes x per-lane speed ("4X (2)" and "25.0 Gbps (32)" -> 100.0)."""
    if width is None or speed is None:
        return None
    lanes = _WIDTH_RE.match(width[0].strip())
    per_lane = _SPEED_RE.match(speed[0].strip())
    if not lanes or not per_lane:
        return None
    return round(int(lanes.group(1)) * float(per_lane.group(1)), 3)


def _rate(value: str, line: int) -> tuple[float | None, str | None, str | None]:
    """Return (rate_gbit_s, width, speed) from "400" (ibstat) or "200 Gb/sec (4X HDR)"."""
    text = value.strip()
    if not text:
        return None, None, None
    match = _IBSTATUS_RATE_RE.match(text)
    if match:
        return float(match.group(1)), match.group(2), match.group(3)
    try:
        rate = float(text)
    except ValueError:
        rate = math.nan
    if math.isnan(rate):
        # float() reads "nan" too: no rate, and JSON (the stored report) has no NaN.
        raise EvidenceParseError(
            f"unreadable port rate {text!r}",
            line=line,
            kind=KIND,
            code="ibstat.unreadable_rate",
            params={"text": text},
        )
    if rate < 0 or rate > 100000:
        raise EvidenceParseError(
            f"implausible port rate {text!r}",
            line=line,
            kind=KIND,
            code="ibstat.implausible_rate",
            params={"text": text},
        )
    return rate, None, None


def _devinfo_ca_type(info: dict[str, str]) -> str | None:
    """ibstat's "CA type" (MT4129) from ibv_devinfo's vendor_part_id, for Mellanox parts."""
    part = info.get("vendor part id", "").strip()
    vendor = info.get("vendor id", "").strip().lower()
    if part.isdigit() and (not vendor or vendor in _MELLANOX_VENDOR_IDS):
        return f"MT{part}"
    return None


def _port_number(text: str, line: int) -> int:
    number = int(text)
    if number > 255:
        raise EvidenceParseError(
            f"implausible port number {number}",
            line=line,
            kind=KIND,
            code="ibstat.implausible_port",
            params={"number": number},
        )
    return number


_PORT_KEYS = {
    "state",
    "physical state",
    "phys state",
    "rate",
    "link layer",
    "active width",
    "active speed",
}


def parse(text: str) -> ParseResult:
    """Parse ``ibstat``, ``ibstatus`` or ``ibv_devinfo`` output into per-port state, rate and
    link layer."""
    cas: list[_Ca] = []
    orphan_ports: list[_Port] = []
    current_ca: _Ca | None = None
    current_port: _Port | None = None
    fmt: str | None = None
    warnings: list[str] = []
    excerpt_line: int | None = None
    panic: tuple[int, str] | None = None

    for number, raw in enumerate(text.splitlines(), start=1):
        line = _clean(raw)
        if not line:
            continue
        if line.startswith("ibpanic:"):
            # infiniband-diags exit on the first device they cannot read: the CAs it would
            # have listed after that one are missing, not absent from the node.
            panic = panic or (number, line[len("ibpanic:") :].strip())
            continue
        # Each pattern is tried only on a line holding its literal part (most lines are
        # "Key: value" ones): "..." or "<" for an excerpt mark, a line start for the headers.
        if excerpt_line is None and ("..." in line or "<" in line) and _EXCERPT_RE.search(line):
            excerpt_line = number
        header = _CA_RE.match(line) if line.startswith("CA '") else None
        match = header or (_HCA_RE.match(line) if line.startswith("hca_id:") else None)
        if match:
            # `CA 'mlx5_0'` opens an ibstat device, `hca_id: mlx5_0` an ibv_devinfo one.
            fmt = fmt or ("ibstat" if header else "ibv_devinfo")
            current_ca = _Ca(name=match.group(1), line=number)
            cas.append(current_ca)
            current_port = None
            continue
        match = (
            _DEVINFO_PORT_RE.match(line)
            if fmt == "ibv_devinfo" and line.startswith("port:")
            else None
        )
        if match and current_ca is not None:
            port_no = _port_number(match.group(1), number)
            current_port = _Port(ca=current_ca.name, port=port_no, line=number)
            current_ca.ports.append(current_port)
            continue
        match = _IBSTATUS_RE.match(line) if "'" in line else None
        if match:
            fmt = fmt or "ibstatus"
            name = match.group(1)
            if current_ca is None or current_ca.name != name:
                current_ca = _Ca(name=name, line=number)
                cas.append(current_ca)
            current_port = _Port(ca=name, port=_port_number(match.group(2), number), line=number)
            current_ca.ports.append(current_port)
            continue
        match = _PORT_RE.match(line) if line.startswith("Port ") else None
        if match:
            port_no = _port_number(match.group(1), number)
            if current_ca is None:
                current_port = _Port(ca=None, port=port_no, line=number)
                orphan_ports.append(current_port)
            else:
                current_port = _Port(ca=current_ca.name, port=port_no, line=number)
                current_ca.ports.append(current_port)
            continue
        pair = split_label(line)
        if pair is None or not _KEY_RE.fullmatch(label := pair[0].rstrip()):
            continue
        key = label.lower().replace("_", " ")
        value = pair[1]
        if _ELIDED_VALUE_RE.match(value):
            continue
        if key in _PORT_KEYS:
            if current_port is None and fmt == "ibv_devinfo" and current_ca is not None:
                # A grep of ibv_devinfo keeps the port's fields but not its "port:" line.
                current_port = _Port(ca=current_ca.name, port=None, line=number)
                current_ca.ports.append(current_port)
            if current_port is None:
                # `ibstat mlx5_0 1` prints one port's fields without any CA header.
                current_port = _Port(ca=None, port=None, line=number)
                orphan_ports.append(current_port)
            if key == "phys state":
                key = "physical state"
            current_port.values.setdefault(key, (value, number))
        elif current_ca is not None and current_port is None:
            current_ca.info.setdefault(key, value)

    ports: list[_Port] = [p for ca in cas for p in ca.ports] + orphan_ports
    last_line = len(text.rstrip().splitlines())
    for port in ports:
        for key, vocabulary in (
            ("state", _STATE_VOCABULARY),
            ("physical state", _PHYSICAL_VOCABULARY),
        ):
            raw_value = port.values.get(key)
            if raw_value is None or raw_value[1] != last_line:
                continue
            word = _NUMBERED_RE.match(raw_value[0])
            shown = (word.group(1) if word else raw_value[0]).strip()
            if _cut_word(shown, vocabulary):
                del port.values[key]
                label = f"{port.ca or '?'} port {port.port if port.port is not None else '?'}"
                warnings.append(
                    f"line {last_line}: the output ends inside {label}'s {key} ('{shown}'): "
                    "cut, not read"
                )
        rate_value = port.values.get("rate")
        if (
            rate_value is not None
            and rate_value[1] == last_line
            and "link layer" not in port.values
            and any("link layer" in other.values for other in ports)
            and re.fullmatch(r"\s*\d+(?:\.\d+)?\s*", rate_value[0])
        ):
            # The paste ends on this port's rate line while the tool prints more lines after
            # it (the link layer last, as the other ports show): a bare "Rate: 4" may be "400"
            # cut; "400 Gb/sec (4X" has its whole number before the unit.
            del port.values["rate"]
            label = f"{port.ca or '?'} port {port.port if port.port is not None else '?'}"
            warnings.append(
                f"line {last_line}: the output ends on {label}'s rate line "
                f"('{rate_value[0].strip()}'), which may be cut: not read"
            )
    if not ports:
        if cas:
            raise EvidenceParseError(
                f"CA {cas[0].name!r} has no port status lines (truncated output?)",
                line=cas[0].line,
                kind=KIND,
                code="ibstat.no_ports",
                params={"ca": cas[0].name},
            )
        if panic is not None:
            raise EvidenceParseError(
                f"the tool stopped with an error before listing any port: {panic[1]}",
                line=panic[0],
                kind=KIND,
                code="ibstat.tool_error",
                params={"message": panic[1]},
            )
        raise EvidenceParseError(
            "no InfiniBand CA or port status found (expected `ibstat`, `ibstatus` or "
            "`ibv_devinfo` output)",
            kind=KIND,
            code="ibstat.nothing",
        )
    if orphan_ports:
        warnings.append(f"{len(orphan_ports)} port(s) printed without a CA header: CA name unknown")

    ca_by_name = {ca.name: ca for ca in cas}
    layers_printed = any("link layer" in p.values for p in ports)
    port_dicts: list[dict[str, Any]] = []
    facts: list[Fact] = []
    for port in ports:
        ca = ca_by_name.get(port.ca) if port.ca else None
        info = ca.info if ca else {}
        state_raw = port.values.get("state")
        phys_raw = port.values.get("physical state")
        rate_raw = port.values.get("rate")
        layer_raw = port.values.get("link layer")
        rate, width, speed = _rate(*rate_raw) if rate_raw else (None, None, None)
        if rate_raw is None and fmt == "ibv_devinfo":
            rate = _devinfo_rate(port.values.get("active width"), port.values.get("active speed"))
            rate_raw = (str(rate), port.values["active speed"][1]) if rate is not None else None
        layer = None
        if layer_raw:
            layer = _LINK_LAYERS.get(layer_raw[0].strip().lower(), layer_raw[0].strip() or None)
        entry: dict[str, Any] = {
            "ca": port.ca,
            "port": port.port,
            "state": _normalise_state(state_raw[0]) if state_raw else None,
            "physical_state": _physical_state(phys_raw[0]) if phys_raw else None,
            "rate_gbit_s": rate,
            "link_layer": layer,
            "ca_type": info.get("ca type") or _devinfo_ca_type(info),
            "firmware": info.get("firmware version") or info.get("fw ver") or None,
        }
        if fmt == "ibv_devinfo":
            transport = info.get("transport", "").strip()
            entry["transport"] = _TRANSPORT_NUMBER_RE.sub("", transport) or None
        if fmt == "ibstatus":
            entry["link_width"] = width
            entry["speed"] = speed
        port_dicts.append(entry)
        label = f"{port.ca or '?'} port {port.port if port.port is not None else '?'}"
        # ibv_devinfo prints a rate only with -v: its absence there is no truncation.
        rate_expected = fmt != "ibv_devinfo"
        if state_raw is None or (rate_raw is None and rate_expected):
            missing = [n for n, v in (("state", state_raw), ("rate", rate_raw)) if v is None]
            if not rate_expected:
                missing = ["state"]
            warnings.append(f"{label}: no {' or '.join(missing)} line (truncated output?)")
        elif layer_raw is None and layers_printed:
            # The link layer is a port's last line in all three tools: the others show it, so
            # this port's block ends early and its last figure may be cut too.
            warnings.append(f"{label}: no link layer line (truncated output?)")
        if rate is not None and rate_raw is not None:
            facts.append(
                Fact(
                    metric="port_rate_gbit_s",
                    value=rate,
                    unit="Gbit/s",
                    line=rate_raw[1],
                    details={
                        "ca": port.ca,
                        "port": port.port,
                        "state": entry["state"],
                        "link_layer": layer,
                    },
                )
            )
        if entry["state"] not in (None, "Active"):
            phys = f"/{entry['physical_state']}" if entry["physical_state"] else ""
            warnings.append(f"{label} is {entry['state']}{phys}")

    for ca in cas:
        declared = ca.info.get("number of ports", "") or ca.info.get("phys port cnt", "")
        if declared.isdigit() and int(declared) > len(ca.ports):
            warnings.append(
                f"CA {ca.name} declares {declared} ports but {len(ca.ports)} shown "
                "(truncated output?)"
            )
        elif not ca.ports:
            # Every tool prints a device's ports under it: a device without any is one whose
            # block was cut (a paste ending inside its header lines), not a portless device.
            warnings.append(f"CA {ca.name} shows no port (truncated output?)")
    if excerpt_line is not None:
        warnings.append(f"excerpt marker at line {excerpt_line}: the output was cut")
    if panic is not None:
        warnings.append(
            f"line {panic[0]}: the tool stopped with an error ({panic[1]}); the devices after "
            "it were not listed"
        )

    active = [p for p in port_dicts if p["state"] == "Active"]
    active_rates = sorted({p["rate_gbit_s"] for p in active if p["rate_gbit_s"] is not None})
    metrics: dict[str, Any] = {
        "format": fmt or "ibstat",
        "ports": port_dicts,
        "ca_count": len(cas),
        "port_count": len(port_dicts),
        "active_port_count": len(active),
        "down_port_count": sum(1 for p in port_dicts if p["state"] == "Down"),
        "ca_types": sorted({p["ca_type"] for p in port_dicts if p["ca_type"]}),
        "firmware_versions": sorted({p["firmware"] for p in port_dicts if p["firmware"]}),
        "link_layers": sorted({p["link_layer"] for p in port_dicts if p["link_layer"]}),
        "active_rates_gbit_s": active_rates,
        "max_active_rate_gbit_s": active_rates[-1] if active_rates else None,
    }
    return ParseResult(kind=KIND, metrics=metrics, facts=tuple(facts), warnings=tuple(warnings))
