"""Parser for ``dmidecode`` output: system products, chassis types and whether it is a VM.

Reads the full dump, ``-t 1``/``-t system``, ``-t 3``, the old 2.x layout and
``dmidecode | grep`` excerpts, and the kernel's copy of the same strings in /sys/class/dmi/id
(``cat /sys/class/dmi/id/product_name``, ``grep . /sys/class/dmi/id/*``); a run that could not
read the table is a clear error.

Metrics (``ParseResult.metrics``):

- ``products`` (list[str]): "Product Name" of every System Information (type 1) record, in
  order (a file may hold several machines). A placeholder the firmware prints for a string the
  maker left unset ("System Product Name", "To be filled by O.E.M.", "Default string"...) is
  no name: it is left out of ``products``, ``manufacturers`` and ``baseboard_products`` (with
  a warning).
- ``manufacturers`` (list[str]): their "Manufacturer" values.
- ``chassis_types`` (list[str]): "Type" of every Chassis Information (type 3) record.
- ``baseboard_products``, ``bios_vendors`` (list[str]).
- ``virtual`` (bool|None): True when a VM signature is seen (the BIOS characteristic "System is
  a virtual machine", KVM, QEMU, "Standard PC (Q35...)"/i440FX, VMware, VirtualBox, Xen "HVM
  domU", Microsoft "Virtual Machine", RHEV/oVirt, OpenStack, Google Compute Engine, Alibaba
  Cloud ECS (the product: its bare-metal instances share the maker), Tencent CVM, Amazon EC2
  non-metal, SeaBIOS/OVMF firmware, Bochs/QEMU processors, QEMU machine types "pc-i440fx-..."/
  "pc-q35-..." as System or Chassis Version); False when system information is present without
  any; None when the file shows neither a sign nor a System Information record. Google Compute
  Engine's bare-metal machines print the same product as its VMs: verification weighs that sign
  alone as "mostly a VM", not proof.
- ``virtual_signals`` (list[str]): what matched, e.g. "System Product Name 'VMware Virtual
  Platform' (VMware)".
- ``system_count``, ``record_count``, ``dmidecode_version``, ``smbios_version``.
- ``memory_total_gib`` (float|None): sum of Memory Device sizes (full dump only).

Facts: ``dmi_virtual`` (1.0 VM / 0.0 physical; absent when unknown) and ``memory_total_gib``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult, split_label

KIND = "dmi"

_DETECT_MAX_LINES = 200
_DETECT_MAX_CHARS = 65536

_VERSION_RE = re.compile(r"^#\s*dmidecode\s+(\d+\.\d+\S*)")
_SMBIOS_RE = re.compile(r"^SMBIOS\s+(\d+(?:\.\d+)+)\s+present")
_HANDLE_RE = re.compile(
    r"^Handle\s+(0x[0-9A-Fa-f]+)(?:,\s*DMI type\s+(\d+),\s*(\d+)\s*bytes)?\.?\s*$"
)
_OLD_TYPE_RE = re.compile(r"^DMI type\s+(\d+),\s*(\d+)\s*bytes\.?\s*$")
# The key of a "Key: value" line, up to its first colon (``split_label`` cuts the line: one regex
# with lazy groups is quadratic on a long line of blanks).
_KEY_RE = re.compile(r"[A-Za-z][A-Za-z0-9 ()/_.-]*")
# Author annotations pasted after a value ("920-23687 # <------"). Only from the first blank of
# a run: tried from every blank of a long run, it was quadratic.
_ANNOTATION_RE = re.compile(r"(?<!\s)\s+#\s*<-+.*$")
_EXCERPT_RE = re.compile(r"\[\.\.\.\]|<snip>|^\s*\.\.\.\s*$", re.IGNORECASE)
_FAILURES = ("no smbios nor dmi entry point found", "permission denied")
_MEMORY_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*(KB|MB|GB|TB|kB)\b", re.IGNORECASE)
_LOOSE_KEYS = frozenset({"Product Name", "Manufacturer"})
_TITLE_TYPES = {
    "bios information": 0,
    "system information": 1,
    "base board information": 2,
    "chassis information": 3,
    "processor information": 4,
    "memory device": 17,
}
# (field, case-insensitive substring, label). Field "system" covers manufacturer/product/
# version/family of type 1 records.
_VM_SIGNS: tuple[tuple[str, str, str], ...] = (
    ("product", "standard pc (q35", "QEMU/KVM Q35 machine"),
    ("product", "standard pc (i440fx", "QEMU/KVM i440FX machine"),
    ("product", "kvm", "KVM"),
    ("product", "qemu", "QEMU"),
    ("product", "vmware", "VMware"),
    ("product", "virtualbox", "VirtualBox"),
    ("product", "hvm domu", "Xen"),
    ("product", "rhev hypervisor", "Red Hat Virtualization"),
    ("product", "ovirt", "oVirt"),
    ("product", "openstack", "OpenStack"),
    ("product", "google compute engine", "Google Compute Engine"),
    ("product", "alibaba cloud ecs", "Alibaba Cloud ECS"),
    ("product", "bochs", "Bochs"),
    ("product", "bhyve", "bhyve"),
    ("product", "parallels", "Parallels"),
    ("product", "cloudstack kvm", "CloudStack KVM"),
    # QEMU's machine types ("pc-i440fx-<release>", "pc-q35-<release>"), which clouds that
    # rename the product (Alibaba Cloud ECS) leave in the System and Chassis Version.
    ("product", "pc-i440fx-", "QEMU/KVM i440FX machine type"),
    ("product", "pc-q35-", "QEMU/KVM Q35 machine type"),
    ("manufacturer", "qemu", "QEMU"),
    ("manufacturer", "vmware", "VMware"),
    ("manufacturer", "innotek", "VirtualBox"),
    ("manufacturer", "xen", "Xen"),
    ("manufacturer", "ovirt", "oVirt"),
    ("manufacturer", "openstack", "OpenStack"),
    ("manufacturer", "tencent cloud", "Tencent Cloud CVM"),
    ("manufacturer", "parallels", "Parallels"),
    ("bios", "seabios", "SeaBIOS firmware (QEMU/KVM)"),
    ("bios", "ovmf", "OVMF firmware (QEMU/KVM)"),
    ("bios", "innotek", "VirtualBox"),
    ("bios", "xen", "Xen"),
    ("bios", "vmware", "VMware"),
    ("bios", "google", "Google Compute Engine"),
    ("processor", "qemu", "QEMU"),
    ("processor", "bochs", "Bochs"),
    ("chassis", "qemu", "QEMU"),
    ("chassis", "vmware", "VMware"),
    ("chassis", "i440fx + piix", "QEMU/KVM i440FX machine"),
    ("chassis", "q35 + ich9", "QEMU/KVM Q35 machine"),
    ("chassis", "pc-i440fx-", "QEMU/KVM i440FX machine type"),
    ("chassis", "pc-q35-", "QEMU/KVM Q35 machine type"),
)
_VM_BIT = "system is a virtual machine"
# Alibaba Cloud's bare-metal instances (ebm) print "Alibaba Cloud" as their System Manufacturer
# too (systemd/systemd#43347 tells its VMs apart by the product "Alibaba Cloud ECS" alone), so
# that maker is no VM sign by itself.

# The kernel's copy of the DMI strings, one file each under /sys/class/dmi/id (readable without
# root): `cat /sys/class/dmi/id/product_name` then the value on the next line, or
# `grep . /sys/class/dmi/id/*` printing "path:value". File -> (DMI type, dmidecode field).
_SYSFS_FILES = {
    "sys_vendor": (1, "Manufacturer"),
    "product_name": (1, "Product Name"),
    "product_version": (1, "Version"),
    "product_family": (1, "Family"),
    "bios_vendor": (0, "Vendor"),
    "bios_version": (0, "Version"),
    "board_vendor": (2, "Manufacturer"),
    "board_name": (2, "Product Name"),
    "chassis_vendor": (3, "Manufacturer"),
    "chassis_version": (3, "Version"),
}
_SYSFS_RE = re.compile(
    r"(?:^|[\s$#>])(?P<cat>cat\s+)?/sys/(?:class|devices/virtual)/dmi/id/(?P<file>[a-z_]+)"
    r"(?:\s*:\s?(?P<value>.*))?$"
)
_SYSFS_TITLES = {0: "BIOS Information", 1: "System Information", 2: "Base Board Information"}
_SYSFS_TITLES[3] = "Chassis Information"
# A shell prompt with a command after it ("[root@h ~]# dmidecode", "$ uname -a").
_PROMPT_LINE_RE = re.compile(r"^(?:\[[^\]]*\]\s*|[\w.@:~/-]*)[$#%]\s*\S")


@dataclass
class _Record:
    handle: str
    line: int
    dmi_type: int | None = None
    title: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    # BIOS Information's characteristic "System is a virtual machine" (SMBIOS 2.7+): the
    # firmware's own VM bit. Clouds set it on VMs and leave it clear on bare-metal instances
    # (EC2, systemd/systemd#19403); some leave it clear on VMs too, so its absence says nothing.
    vm_bit: bool = False


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is dmidecode output (looks at the head only)."""
    try:
        head = text[:_DETECT_MAX_CHARS].splitlines()[:_DETECT_MAX_LINES]
        version = handles = titles = product = sysfs = 0
        for raw in head:
            line = raw.strip()
            if _VERSION_RE.match(line):
                version += 1
            elif _HANDLE_RE.match(line):
                handles += 1
            elif line.lower() in _TITLE_TYPES:
                titles += 1
            elif line.startswith(("Product Name:", "Manufacturer:")):
                product += 1
            else:
                match = _SYSFS_RE.search(line)
                if match and match["file"] in _SYSFS_FILES:
                    sysfs += 1
        if handles or version:
            return 90
        if sysfs:
            return 60
        if titles and product:
            return 60
        return 15 if product else 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _memory_gib(value: str) -> float | None:
    match = _MEMORY_RE.match(value)
    if not match:
        return None
    size = float(match.group(1))
    if not math.isfinite(size) or size > 1e9:
        return None
    scale = {"kb": 1 / (1024 * 1024), "mb": 1 / 1024, "gb": 1.0, "tb": 1024.0}
    return size * scale[match.group(2).lower()]


def _read_records(text: str) -> tuple[list[_Record], dict[str, Any], list[tuple[int, str]]]:
    records: list[_Record] = []
    header: dict[str, Any] = {
        "dmidecode_version": None,
        "smbios_version": None,
        "excerpt_line": None,
    }
    failures: list[tuple[int, str]] = []
    current: _Record | None = None
    loose: _Record | None = None
    sysfs: dict[int, _Record] = {}
    pending: str | None = None  # the /sys/class/dmi/id file a `cat` line names, value to come

    def sysfs_value(name: str, value: str, number: int) -> None:
        dmi_type, key = _SYSFS_FILES[name]
        if dmi_type not in sysfs:
            sysfs[dmi_type] = _Record("sysfs", number, dmi_type, _SYSFS_TITLES[dmi_type])
            records.append(sysfs[dmi_type])
        if value.strip():
            sysfs[dmi_type].fields.setdefault(key, value.strip())

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if header["excerpt_line"] is None and _EXCERPT_RE.search(line):
            header["excerpt_line"] = number
        match = _SYSFS_RE.search(line)
        if match and match["file"] in _SYSFS_FILES:
            current = None
            if match["value"] is not None and (match["value"].strip() or not match["cat"]):
                sysfs_value(match["file"], match["value"], number)
                pending = None
            else:
                pending = match["file"]
            continue
        if pending is not None:
            name, pending = pending, None
            if not _PROMPT_LINE_RE.match(line):
                sysfs_value(name, line, number)
                continue
        match = _VERSION_RE.match(line)
        if match:
            header["dmidecode_version"] = header["dmidecode_version"] or match.group(1)
            continue
        lowered = line.lower().lstrip("# ")
        if lowered.startswith("/dev/mem:") or any(f in lowered for f in _FAILURES):
            failures.append((number, line.lstrip("# ")))
            continue
        match = _SMBIOS_RE.match(line)
        if match:
            header["smbios_version"] = header["smbios_version"] or match.group(1)
            continue
        match = _HANDLE_RE.match(line)
        if match:
            current = _Record(handle=match.group(1), line=number)
            if match.group(2):
                current.dmi_type = int(match.group(2))
            records.append(current)
            continue
        if current is not None and line.lower() == _VM_BIT:
            if current.dmi_type == 0:
                current.vm_bit = True
            continue
        if current is not None:
            match = _OLD_TYPE_RE.match(line)
            if match and current.dmi_type is None:
                current.dmi_type = int(match.group(1))
                continue
            if current.title is None and ":" not in line:
                current.title = line
                if current.dmi_type is None:
                    current.dmi_type = _TITLE_TYPES.get(line.lower())
                continue
        if line.startswith(("#", "$")) or (raw[:1] not in (" ", "\t") and ":" not in line):
            # Shell prompts, markdown headings, "Getting SMBIOS data from sysfs." and the like.
            if line.lower() in _TITLE_TYPES and raw[:1] not in (" ", "\t"):
                # A title without its Handle line: `dmidecode | grep -A9 "System Information"`.
                current = _Record(
                    handle="?", line=number, title=line, dmi_type=_TITLE_TYPES[line.lower()]
                )
                records.append(current)
            continue
        pair = split_label(line)
        if pair is None or not _KEY_RE.fullmatch(pair[0]):
            continue
        key, value = pair[0], _ANNOTATION_RE.sub("", pair[1])
        target = current
        if target is None:
            # Bare "Product Name: X" lines from `dmidecode | grep Product`.
            if key not in _LOOSE_KEYS:
                continue
            if loose is None:
                loose = _Record(handle="?", line=number, title="System Information", dmi_type=1)
                records.append(loose)
            target = loose
        target.fields.setdefault(key, value)
    return records, header, failures


# What firmware prints when the maker left a string unset (BIOS kits' defaults): no name at all.
_UNSET_VALUES = frozenset(
    {
        "system product name",
        "system manufacturer",
        "system version",
        "to be filled by o.e.m.",
        "to be filled by oem",
        "default string",
        "not specified",
        "not applicable",
        "o.e.m.",
        "oem",
        "none",
        "unknown",
    }
)


def _is_unset(value: str) -> bool:
    return value.strip().lower() in _UNSET_VALUES


def _values(records: list[_Record], dmi_type: int, key: str) -> list[str]:
    return [
        r.fields[key]
        for r in records
        if r.dmi_type == dmi_type and r.fields.get(key) and not _is_unset(r.fields[key])
    ]


def _vm_signals(records: list[_Record]) -> list[str]:
    signals: list[str] = []

    def hit(label: str, what: str, value: str) -> None:
        signal = f"{what} {value!r} ({label})"
        if signal not in signals:
            signals.append(signal)

    for rec in records:
        pairs: list[tuple[str, str, str]] = []
        if rec.dmi_type == 1:
            for key in ("Product Name", "Version", "Family"):
                if rec.fields.get(key):
                    pairs.append(("product", f"System {key}", rec.fields[key]))
            if rec.fields.get("Manufacturer"):
                pairs.append(("manufacturer", "System Manufacturer", rec.fields["Manufacturer"]))
        elif rec.dmi_type == 0:
            for key in ("Vendor", "Version"):
                if rec.fields.get(key):
                    pairs.append(("bios", f"BIOS {key}", rec.fields[key]))
            if rec.vm_bit:
                hit(
                    "SMBIOS virtual machine bit",
                    "BIOS Characteristics",
                    "System is a virtual machine",
                )
        elif rec.dmi_type == 4 and rec.fields.get("Manufacturer"):
            pairs.append(("processor", "Processor Manufacturer", rec.fields["Manufacturer"]))
        elif rec.dmi_type == 3:
            for key in ("Manufacturer", "Version"):
                if rec.fields.get(key):
                    pairs.append(("chassis", f"Chassis {key}", rec.fields[key]))
        for area, what, value in pairs:
            lowered = value.lower()
            for sign_area, needle, label in _VM_SIGNS:
                if sign_area == area and needle in lowered:
                    hit(label, what, value)
                    break
        if rec.dmi_type == 1:
            maker = rec.fields.get("Manufacturer", "").lower()
            product = rec.fields.get("Product Name", "")
            if "microsoft" in maker and "virtual machine" in product.lower():
                hit("Microsoft Hyper-V", "System Product Name", product)
            # EC2 bare-metal instances say "Amazon EC2" too; their product ends with ".metal".
            if "amazon ec2" in maker and product and not product.lower().endswith(".metal"):
                hit("Amazon EC2 virtual instance", "System Product Name", product)
    return signals


def parse(text: str) -> ParseResult:
    """Parse dmidecode output into products, chassis types and the VM verdict."""
    records, header, failures = _read_records(text)
    useful = [r for r in records if r.fields]
    if not useful:
        if failures:
            line, message = failures[0]
            raise EvidenceParseError(
                f"dmidecode could not read the DMI table ({message}): run it as root on the "
                "host itself, not inside a container",
                line=line,
                kind=KIND,
                code="dmi.unreadable_table",
                params={"message": message},
            )
        raise EvidenceParseError(
            "no DMI records found (expected `dmidecode` output with 'Handle 0x...' blocks)",
            kind=KIND,
            code="dmi.nothing",
        )

    warnings: list[str] = []
    products = _values(records, 1, "Product Name")
    systems = [r for r in records if r.dmi_type == 1]
    signals = _vm_signals(records)
    virtual: bool | None
    if signals:
        virtual = True
    elif systems:
        virtual = False
    else:
        virtual = None
        warnings.append("no System Information record: run `dmidecode -t system` to tell VM or not")
    unset = [
        f"{r.fields[key]!r}"
        for r in systems
        for key in ("Product Name", "Manufacturer")
        if r.fields.get(key) and _is_unset(r.fields[key])
    ]
    if unset:
        warnings.append(
            f"System Information holds the firmware's placeholder {', '.join(unset)}: "
            "not a product or maker name"
        )
    if any(r.handle == "?" for r in useful):
        warnings.append("records without their 'Handle' line: the output was filtered")
    if any(r.handle == "sysfs" for r in useful):
        warnings.append(
            "read from the kernel's /sys/class/dmi/id files, not dmidecode: the files shown only"
        )
    if header["excerpt_line"] is not None:
        warnings.append(f"excerpt marker at line {header['excerpt_line']}: the output was cut")
    for line, message in failures:
        warnings.append(f"line {line}: dmidecode reported {message!r}")

    memory = [_memory_gib(v) for v in _values(records, 17, "Size")]
    sizes = [m for m in memory if m is not None]
    memory_total = round(sum(sizes), 3) if sizes else None

    facts: list[Fact] = []
    if virtual is not None:
        first = systems[0].line if systems else None
        facts.append(
            Fact("dmi_virtual", 1.0 if virtual else 0.0, "bool", first, {"signals": list(signals)})
        )
    if memory_total is not None:
        facts.append(Fact("memory_total_gib", memory_total, "GiB", None))
    metrics: dict[str, Any] = {
        "products": products,
        "manufacturers": _values(records, 1, "Manufacturer"),
        "chassis_types": _values(records, 3, "Type"),
        "baseboard_products": _values(records, 2, "Product Name"),
        "bios_vendors": _values(records, 0, "Vendor"),
        "virtual": virtual,
        "virtual_signals": signals,
        "system_count": len(systems),
        "record_count": len(useful),
        "dmidecode_version": header["dmidecode_version"],
        "smbios_version": header["smbios_version"],
        "memory_total_gib": memory_total,
    }
    return ParseResult(kind=KIND, metrics=metrics, facts=tuple(facts), warnings=tuple(warnings))
