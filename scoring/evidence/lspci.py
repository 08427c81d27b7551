"""Parser for ``lspci`` listings: NVIDIA GPUs and the devices that betray a VM or a bare host.

Handles plain ``lspci``, ``-nn``, ``-D``, ``-Dnn``, ``-v``/``-vv`` blocks (indented detail lines
are read for ``Subsystem`` and ``Kernel driver in use``), ``-vmm`` records and the ``-tv`` tree;
tolerates ``egrep``-filtered listings, prompts, author comment markers and tmux borders.

The ``-tv`` tree names each device but not its class: an NVIDIA function counts as a GPU unless
its name says audio, USB, UCSI, NVSwitch or bridge, and a device named "...Graphics..." or
"...VGA..." as a VGA controller (the BMC sign). Each device's bus is read from the tree (the
``-[bus]-`` of the bridge above it, in the column of its branch); functions inside a bridge
chain (``----00.0-[62-73]--``) are counted, unnamed. A ``-t`` tree without names is not read.

Metrics (``ParseResult.metrics``):

- ``nvidia_gpu_count`` (int): NVIDIA devices of class 3D/VGA/Display controller that answer:
  a GPU listed with ``(rev ff)`` (its configuration space reads all ones: fallen off the bus)
  is left out and named in ``gpus_not_responding`` (list of slots), with a warning.
- ``gpu_count_partial`` (str|None): "excerpt" when an excerpt marker shows the listing was cut,
  "cut_line" when its last line stops inside a device's name; ``nvidia_gpu_count`` is then only a
  lower bound; None otherwise.
- ``gpu_models`` (list[str]): distinct GPU model names in file order, e.g. "H100 SXM5 80GB";
  "Device 2684" when lspci's list of PCI ids (pci.ids) is older than the card: lspci then
  prints "NVIDIA Corporation Device 2684", a warning says so and ``pci_id`` reads 10de:2684.
- ``gpus``: ``[{"slot", "model", "pci_id", "virtual_function", "pcie_link_width_max",
  "pcie_link_width_current", "pcie_link_width_line"}]``; the widths (lanes) come from a -vv
  block's "LnkCap: ... Width x16" (what the device supports) and "LnkSta: ... Width x8" (what
  the link trained to), the line is the LnkSta one; all None without -vv. The link speed is not
  read: GPUs drop to 2.5GT/s at idle to save power, so "Speed ... (downgraded)" means nothing.
- ``virtual`` (bool|None): True when any virtual signal is present; False when only physical
  signals are; None when the listing shows neither (cannot tell).
- ``virtual_signals`` (list[str]): e.g. "virtio device 1af4:1050 (Virtio 1.0 GPU)",
  "VMware device (SVGA II Adapter)", "NVIDIA virtual function", "GRID/vGPU model (GRID M60-8Q)",
  "emulated Intel 440FX chipset", "Hyper-V vPCI layout: 2 devices alone on bus 00 of their own PCI
  domain (0001, 0002)".
- ``physical_signals`` (list[str]): "ASPEED BMC VGA", "Matrox G200 BMC VGA", "NVSwitch bridge",
  "Mellanox ConnectX physical function", "HPE iLO BMC".
- ``device_count``, ``nvswitch_count``, ``mellanox_functions`` (count of 15b3 functions; None
  when there are none in a listing that could not show them: an excerpt, a grep or ``-d`` filter
  naming no Mellanox or network device),
  ``filtered`` (bool: the command line pipes through grep, so signals may be hidden). Without
  its command line, a listing with no host or PCI bridge is a selection (a grep, ``-s``), not
  the machine: no Mellanox function in it is None, not 0.
- ``ascend_functions`` (int): Huawei Ascend NPU functions listed (PCI ids 19e5:d100, d500,
  d801, d802, d803; plain lspci prints "Huawei Technologies Co., Ltd. Device d802"): one per
  chip, so an Atlas A3 NPU of two chips lists two, and SR-IOV virtual functions count too; the
  NPUs themselves are counted by npu-smi. ``ascend_device_ids`` (list[str]): their ids, each once.
- ``vpci_domains`` (list[str]): the PCI domains laid out as Hyper-V's virtual PCI bus lays them
  out (see below), e.g. ["0101", "3532", "78a8", "cc4c"]; empty on any other machine.
- ``dpu_virtio`` (list[str]): virtio devices the same listing shows to be emulated by a BlueField
  DPU of the host (see below), each with the link seen, e.g. "virtio device 1af4:1041 (Red Hat,
  Inc. Virtio network device) at af:00.2 emulated by a BlueField DPU: a function of the BlueField
  device at af:00.0"; they are context, not virtual signals.

Facts: ``nvidia_gpu_count`` (unit "count").

An excerpt of ``-vv`` detail lines without the device line they follow ("LnkCap: ...",
"LnkSta: Speed 2.5GT/s (downgraded), Width x16" pasted alone) is recognised as lspci's and
refused (``lspci.detail_only``): which device it describes cannot be told.

SR-IOV note: a host with SR-IOV enabled lists its NIC virtual functions next to the physical
ones, so a virtual function only counts as a VM signal when no physical function of the same
vendor is listed, or when it is an NVIDIA GPU function (vGPU).

BlueField note: a BlueField DPU in DPU mode emulates virtio-net and virtio-blk PCIe functions
(vendor 1af4) for the bare-metal host it sits in; bare-metal clouds deliver their network and
disks this way. A virtio net/block/fs device counts as a VM sign unless the listing itself ties
it to a BlueField: a Mellanox (15b3) Subsystem, a function of the BlueField's own PCI device, or
a place behind a PCIe switch that also holds a BlueField function. Such a device is DPU hardware,
neutral like any other device (passed into a VM, it leaves the VM's own devices to betray it). A
virtio GPU always counts.

Hyper-V vPCI note: Hyper-V (Azure) hands each passed-through device to a Linux guest on a PCI
bus of its own (the pci-hyperv driver), in a PCI domain numbered from the device's instance GUID
- "0001", "000b", but also "3532" or "c05b" - with the device on bus 00 and no bridge above it.
A physical machine with several PCI segments (multi-socket x86, Grace, Ampere Altra, a PowerMac)
has a host bridge or root ports on bus 00 of each segment and its endpoints behind them on bus
01 or higher, so a non-zero domain that holds only endpoints on bus 00 is the VM's layout. A
grep cannot move a device to another bus: filtering hides bridges, never creates this layout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from .base import EvidenceParseError, Fact, ParseResult

KIND = "lspci"

_DETECT_MAX_LINES = 200
_DETECT_MAX_CHARS = 65536

# Slot, optionally with PCI domain ("0000:"), then the class name (with "[0302]" under -nn). The
# "[0302]" is tried from the first blank of a run only: from every blank of a long run of them
# in a class name, it was quadratic.
_DEVICE_RE = re.compile(
    r"^(?P<slot>(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+"
    r"(?P<cls>[A-Za-z0-9][A-Za-z0-9 /&().,'+-]*?)(?:(?<!\s)\s+\[(?P<clsid>[0-9a-fA-F]{4})\])?:\s+"
    r"(?P<rest>.*\S)\s*$"
)
_VMM_SLOT_RE = re.compile(r"^Slot:\s+(\S+)\s*$")
_VMM_FIELD_RE = re.compile(r"^(Class|Vendor|Device|SVendor|SDevice|Rev|ProgIf):\s+(.*\S)\s*$")
# lspci -vv of a bridge: "Bus: primary=ca, secondary=cb, subordinate=cf, sec-latency=0".
_BRIDGE_BUS_RE = re.compile(
    r"^Bus:\s+primary=[0-9a-fA-F]{2},\s*secondary=([0-9a-fA-F]{2}),\s*subordinate=([0-9a-fA-F]{2})"
)
# lspci -vv: "LnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM ..." / "LnkSta:\tSpeed 2.5GT/s
# (downgraded), Width x8 (downgraded)". LnkCap2/LnkSta2 carry no width.
_LINK_WIDTH_RE = re.compile(r"^Lnk(Cap|Sta):.*?\bWidth x(\d{1,2})\b")
# These two are searched from the first blank of a run only: tried from every blank of a long
# run, they were quadratic.
_VMM_ID_RE = re.compile(r"(?<!\s)\s*\[([0-9a-fA-F]{4})\]\s*$")
_PCI_ID_RE = re.compile(r"\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\]")
_REV_RE = re.compile(r"(?<!\s)\s*\((?:rev [0-9a-fA-F]+|prog-if [^)]*)\)")
_REV_FF_RE = re.compile(r"\(rev ff\)", re.IGNORECASE)
_NO_NAMES_RE = re.compile(r"\bDevice ([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\b")
# The indented detail lines of lspci -vv that no other tool prints: "Capabilities: [78] Express
# (v2) Endpoint", "LnkCap:\tPort #0, Speed 16GT/s", "LnkSta:\tSpeed 2.5GT/s (downgraded)".
_VV_DETAIL_RE = re.compile(
    r"^[ \t]+(?:Capabilities: \[[0-9a-fA-F]{2,3}(?: v\d+)?\] \S|"
    r"(?:LnkCap|LnkSta|LnkCtl|DevCap|DevCtl|DevSta):\s)"
)
_UNNAMED_NVIDIA_RE = re.compile(r"^NVIDIA Corporation Device ([0-9a-fA-F]{4})\b")
_UNNAMED_MODEL_RE = re.compile(r"^Device [0-9a-fA-F]{4}(?::[0-9a-fA-F]{4})?$")
_PREFIX_RE = re.compile(r"^(?:[\u2502\u2503|#>]\s*)+")
# "[...]", "<snip>", a line of "..." alone or with the author's note ("... (8 total GH100
# devices) ...").
_EXCERPT_RE = re.compile(r"\[\.\.\.\]|<snip>|^\.\.\.(?:\s.*)?$", re.IGNORECASE)
_GPU_CLASSES = ("3d controller", "vga compatible controller", "display controller")
# Classes of the devices a cloud passes into a VM (GPUs, NICs/HCAs and their VFs, NVMe, NVSwitch
# as a plain "Bridge" [0680], accelerators). Root-complex parts (host bridges, root ports,
# IOMMUs, system peripherals) are never among them.
_VPCI_ENDPOINT_CLASSES = (
    *_GPU_CLASSES,
    "ethernet controller",
    "infiniband controller",
    "network controller",
    "non-volatile memory controller",
    "processing accelerators",
    "bridge",
)
_SLOT_PARTS_RE = re.compile(r"^(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):[0-9a-fA-F]{2}\.[0-7]$")
_MARKDOWN_BOLD_RE = re.compile(r"^\*\*(.*)\*\*$")
# lspci -tv: a bus in brackets ("[0000:00]", "[01]", "[61-73]") or a device "DD.F" with the
# connector before it ("+-", "\\-", "----" or "-" after a bus), and its name at the line end.
_TREE_TOKEN_RE = re.compile(
    r"\[(?:(?P<dom>[0-9a-fA-F]{4,8}):)?(?P<bus>[0-9a-fA-F]{2})(?:-(?P<hi>[0-9a-fA-F]{2}))?\]"
    r"|(?P<conn>[+\\]-|-)(?P<dev>[0-9a-fA-F]{2}\.[0-7])(?=$|[\s-])"
)
_TREE_LINE_RE = re.compile(
    r"\[(?:[0-9a-fA-F]{4,8}:)?[0-9a-fA-F]{2}(?:-[0-9a-fA-F]{2})?\]-+[+\\]?-?[0-9a-fA-F]{2}\.[0-7]"
    r"|^[\s|`]*[+\\]-[0-9a-fA-F]{2}\.[0-7]\b"
)
# The name after a device of a -tv line, up to the line end (``_tree_name`` strips its blanks: a
# lazy name before "\s*$" was quadratic on a long run of blanks in it).
_TREE_NAME_RE = re.compile(r"[0-9a-fA-F]{2}\.[0-7]\s{1,3}(?P<name>\S.*)")
_TREE_NON_GPU_RE = re.compile(r"audio|usb|ucsi|nvswitch|bridge|serial bus", re.IGNORECASE)

# (vendor id or None, case-insensitive text, signal) - checked in order, first match wins.
_VIRTUAL_DEVICE_SIGNS: tuple[tuple[str | None, str | None, str], ...] = (
    ("1af4", None, "virtio device"),
    (None, "virtio", "virtio device"),
    ("1b36", None, "Red Hat/QEMU device"),
    (None, "qemu", "Red Hat/QEMU device"),
    (None, "qxl paravirtual", "Red Hat/QEMU device"),
    ("1234", None, "QEMU/Bochs standard VGA"),
    (None, "bochs", "QEMU/Bochs standard VGA"),
    ("15ad", None, "VMware device"),
    (None, "vmware", "VMware device"),
    (None, "vmxnet", "VMware device"),
    ("1414", None, "Microsoft Hyper-V device"),
    (None, "hyper-v", "Microsoft Hyper-V device"),
    ("5853", None, "Xen platform device"),
    (None, "xensource", "Xen platform device"),
    (None, "xen platform", "Xen platform device"),
    ("80ee", None, "VirtualBox device"),
    (None, "virtualbox", "VirtualBox device"),
    (None, "compute engine virtual", "Google Compute Engine virtual device"),
)
# Chipsets that QEMU, VMware and VirtualBox emulate; none is found in a current GPU server.
_EMULATED_CHIPSETS: tuple[tuple[str | None, str, str], ...] = (
    ("8086:1237", "440fx - 82441fx", "emulated Intel 440FX chipset"),
    ("8086:7000", "82371sb piix3", "emulated Intel 440FX chipset"),
    ("8086:29c0", "82g33/g31/p35/p31 express dram controller", "emulated Intel Q35 chipset"),
    ("8086:7190", "440bx/zx/dx", "emulated Intel 440BX chipset"),
    (None, "cirrus logic gd 5446", "emulated Cirrus Logic VGA"),
)


# BlueField functions the host sees, by PCI device id, for listings that print ids but no names
# (pci.ids: a2d2 first-generation BlueField, a2d6 second, a2dc third, a2d9 third "Lx", a2df
# fourth, each as its integrated ConnectX; c2d3 the second generation's SoC management function).
_BLUEFIELD_DEVICE_IDS = frozenset({"a2d2", "a2d6", "a2dc", "a2d9", "a2df", "c2d3"})
# Virtio functions a BlueField emulates: net (1000 transitional, 1041 modern), block (1001,
# 1042) and file system (105a); by name where the listing prints no ids.
_DPU_VIRTIO_DEVICE_IDS = frozenset({"1000", "1041", "1001", "1042", "105a"})
_DPU_VIRTIO_NAMES = ("network device", "block device", "file system")


@dataclass(frozen=True)
class _Device:
    slot: str
    cls: str
    description: str
    vendor_id: str | None
    device_id: str | None
    line: int
    subsystem: str = ""
    # "(rev ff)": the function's configuration space reads all ones, the device no longer
    # answers (a GPU fallen off the bus).
    no_response: bool = False
    # A bridge's secondary..subordinate bus range (the buses behind it), from the -tv tree
    # ("-[cb-cf]") or a -vv "Bus: primary=ca, secondary=cb, subordinate=cf" line.
    bridge_range: tuple[int, int] | None = None
    # -vv: the widest link the device supports (LnkCap) and the one it trained to (LnkSta).
    link_width_max: int | None = None
    link_width_current: int | None = None
    link_width_line: int | None = None
    # Read from a -tv tree, which is drawn from the root bus down (the whole machine).
    in_tree: bool = False


def _clean(raw: str) -> str:
    line = _PREFIX_RE.sub("", raw.strip())
    # A line the author set in markdown bold ("**0000:0a:00.0 VGA ...**") is still a device.
    bold = _MARKDOWN_BOLD_RE.match(line)
    return bold.group(1).strip() if bold else line


def detect(text: str) -> int:
    """Confidence 0..100 that ``text`` is an lspci listing (looks at the head only)."""
    try:
        head = text[:_DETECT_MAX_CHARS].splitlines()[:_DETECT_MAX_LINES]
        devices = vmm = 0
        for raw in head:
            line = _clean(raw)
            if _DEVICE_RE.match(line):
                devices += 1
            elif _VMM_SLOT_RE.match(line):
                vmm += 1
            elif _TREE_LINE_RE.search(raw) and _TREE_NAME_RE.search(raw):
                devices += 1
        count = devices + vmm
        if count >= 3:
            return 85
        if count:
            return 70
        # An excerpt of -vv detail lines without their device line: lspci's, but unreadable.
        details = sum(1 for raw in head if _VV_DETAIL_RE.match(raw))
        return 40 if details >= 2 else 0
    except Exception:  # detect() must never raise, whatever the input
        return 0


def _split_ids(text: str) -> tuple[str, str | None, str | None]:
    """Return (description without ids and revision, vendor id, device id)."""
    vendor = device = None
    matches = list(_PCI_ID_RE.finditer(text))
    if matches:
        last = matches[-1]
        vendor, device = last.group(1).lower(), last.group(2).lower()
        text = text[: last.start()] + text[last.end() :]
    else:
        bare = _NO_NAMES_RE.search(text)
        if bare:
            vendor, device = bare.group(1).lower(), bare.group(2).lower()
        else:
            # A device its pci.ids does not name yet: lspci prints the vendor's name and
            # "Device <id>" ("NVIDIA Corporation Device 2684" for a 2022 card on an older list).
            unnamed = _UNNAMED_NVIDIA_RE.match(text)
            if unnamed:
                vendor, device = "10de", unnamed.group(1).lower()
    return _REV_RE.sub("", text).strip(), vendor, device


def _gpu_model(description: str) -> str:
    text = re.sub(r"^NVIDIA Corporation\s+", "", description)
    brackets = _brackets(text)
    return brackets[-1].strip() if brackets else text.strip()


def _brackets(text: str) -> list[str]:
    r"""What ``\[([^\]]+)\]`` finds with findall in ``text``, in linear time: that regex went
    to the end of the text from every "[" when no "]" follows (quadratic)."""
    found: list[str] = []
    start = 0
    while (opening := text.find("[", start)) >= 0:
        closing = text.find("]", opening + 1)
        if closing < 0:
            break
        if closing > opening + 1:
            found.append(text[opening + 1 : closing])
            start = closing + 1
        else:
            start = opening + 1
    return found


def _is_nvidia(dev: _Device) -> bool:
    return dev.vendor_id == "10de" or dev.description.lower().startswith("nvidia")


def _is_vf(dev: _Device) -> bool:
    return "virtual function" in dev.description.lower()


# Huawei Ascend NPUs by PCI device id, as Huawei's own MindStudio pre-check tool reads lspci to
# tell its products apart (msprechecker NpuType): d100 Atlas 300 (Ascend 310), d500 Atlas 300I
# Duo (310P), d801 Atlas 800 A1 (910), d802 Atlas 800 A2 (910B), d803 Atlas 800 A3. pci.ids has
# no names for them, so lspci prints "Huawei Technologies Co., Ltd. Device d802".
_ASCEND_DEVICE_IDS = frozenset({"d100", "d500", "d801", "d802", "d803"})
_HUAWEI_DEVICE_RE = re.compile(r"^Huawei Technologies Co\., Ltd\. Device ([0-9a-fA-F]{4})\b")


def _ascend_device_id(dev: _Device) -> str | None:
    """The device id of a Huawei Ascend NPU function (vendor 19e5), None for any other device
    (Huawei's root ports, NICs, SAS and crypto engines share the vendor)."""
    if dev.vendor_id == "19e5" and dev.device_id in _ASCEND_DEVICE_IDS:
        return dev.device_id
    named = _HUAWEI_DEVICE_RE.match(dev.description)
    if named and named.group(1).lower() in _ASCEND_DEVICE_IDS:
        return named.group(1).lower()
    return None


def _tree_class(name: str) -> str:
    """The class a ``-tv`` name implies, for the checks that need one ("" when unknown)."""
    lowered = name.lower()
    if lowered.startswith("nvidia") and not _TREE_NON_GPU_RE.search(name):
        return "3D controller"
    if "graphics" in lowered or "vga" in lowered:
        return "VGA compatible controller"
    return ""


def _read_tree(text: str) -> list[_Device]:
    """The devices of an ``lspci -tv`` tree, with their full slots; [] when it is not one."""
    if not any(_TREE_LINE_RE.search(line) for line in text.splitlines()[:400]):
        return []
    devices: list[_Device] = []
    branch_bus: dict[int, tuple[str, str]] = {}  # column of a "+"/"\\" branch -> (domain, bus)
    domain = "0000"
    for number, raw in enumerate(text.splitlines(), start=1):
        if not (_TREE_LINE_RE.search(raw) or re.match(r"^[\s|`]*[+\\]-", raw)):
            continue
        bracket: tuple[str, str] | None = None
        found: list[tuple[str, str, str]] = []
        ranges: dict[int, tuple[int, int]] = {}  # index in found -> buses behind that bridge
        after_device = False
        for match in _TREE_TOKEN_RE.finditer(raw):
            if match.group("bus"):
                if after_device and raw[match.start() - 1] == "-":
                    # "00.0-[cb-cf]": the device just read is a bridge to these buses.
                    low = int(match.group("bus"), 16)
                    ranges[len(found) - 1] = (low, int(match.group("hi") or match.group("bus"), 16))
                domain = (match.group("dom") or domain).lower()
                bracket = (domain, match.group("bus").lower())
                after_device = False
                continue
            column = match.start("conn")
            if match.group("conn") != "-" and bracket is not None:
                branch_bus[column] = bracket  # "]-+-00.0": this column lists bus "bracket"
            where = bracket if bracket is not None else branch_bus.get(column)
            bracket = None
            after_device = where is not None
            if where is not None:
                found.append((where[0], where[1], match.group("dev").lower()))
        name = _TREE_NAME_RE.search(raw)
        for index, (dom, bus, dev) in enumerate(found):
            description = name.group("name").rstrip() if name and index == len(found) - 1 else ""
            _, vendor, device = _split_ids(description)
            devices.append(
                _Device(f"{dom}:{bus}:{dev}", _tree_class(description), description,
                        vendor, device, number, bridge_range=ranges.get(index), in_tree=True)
            )  # fmt: skip
    if not any(d.description for d in devices):
        return []  # "lspci -t" without -v: no names, nothing to judge
    return devices


def _read_devices(text: str) -> tuple[list[_Device], bool, int | None]:
    devices: list[_Device] = []
    filtered = False
    excerpt_line: int | None = None
    vmm: dict[str, str] = {}
    vmm_line = 0

    def flush_vmm() -> None:
        if "slot" in vmm and "class" in vmm:
            # -vmnn prints each id after its own name: "Vendor: Intel Corporation [8086]".
            ids = [_VMM_ID_RE.search(vmm.get(k, "")) for k in ("vendor", "device")]
            names = [_VMM_ID_RE.sub("", vmm.get(k, "")) for k in ("vendor", "device", "class")]
            desc = " ".join(n for n in names[:2] if n)
            described, vendor, device = _split_ids(desc)
            if ids[0] and ids[1]:
                vendor, device = ids[0].group(1).lower(), ids[1].group(1).lower()
            subsystem = " ".join(vmm[k] for k in ("svendor", "sdevice") if vmm.get(k))
            devices.append(
                _Device(vmm["slot"], names[2], described, vendor, device, vmm_line,
                        subsystem=subsystem)
            )  # fmt: skip
        vmm.clear()

    for number, raw in enumerate(text.splitlines(), start=1):
        line = _clean(raw)
        if not line:
            continue
        if excerpt_line is None and _EXCERPT_RE.search(line):
            excerpt_line = number
        if "lspci" in line and "grep" in line and "|" in line:
            filtered = True
        match = _DEVICE_RE.match(line)
        if match:
            flush_vmm()
            described, vendor, device = _split_ids(match.group("rest"))
            devices.append(
                _Device(
                    match.group("slot"),
                    match.group("cls").strip(),
                    described,
                    vendor,
                    device,
                    number,
                    no_response=bool(_REV_FF_RE.search(match.group("rest"))),
                )
            )
            continue
        match = _VMM_SLOT_RE.match(line)
        if match:
            flush_vmm()
            vmm["slot"], vmm_line = match.group(1), number
            continue
        match = _VMM_FIELD_RE.match(line)
        if match and vmm:
            vmm[match.group(1).lower()] = match.group(2)
            continue
        if devices and raw[:1] in (" ", "\t") and line.startswith("Subsystem:"):
            last = devices[-1]
            if not last.subsystem:
                devices[-1] = replace(last, subsystem=line[len("Subsystem:") :].strip())
            continue
        link = _LINK_WIDTH_RE.match(line) if devices and raw[:1] in (" ", "\t") else None
        if link:
            last, width = devices[-1], int(link.group(2))
            if link.group(1) == "Cap" and last.link_width_max is None:
                devices[-1] = replace(last, link_width_max=width)
            elif link.group(1) == "Sta" and last.link_width_current is None:
                devices[-1] = replace(last, link_width_current=width, link_width_line=number)
            continue
        bus_line = _BRIDGE_BUS_RE.match(line) if devices and raw[:1] in (" ", "\t") else None
        if bus_line and devices[-1].bridge_range is None:
            low, high = int(bus_line.group(1), 16), int(bus_line.group(2), 16)
            devices[-1] = replace(devices[-1], bridge_range=(low, high))
    flush_vmm()
    if not devices:
        devices = _read_tree(text)
    return devices, filtered, excerpt_line


def _virtual_device_signal(dev: _Device) -> str | None:
    lowered = f"{dev.description} {dev.subsystem}".lower()
    if dev.description.lower().startswith("microsoft corporation"):
        # Vendor 1414 by name (plain lspci prints no ids), e.g. Azure's NVMe "Device b111". Only
        # the device's own vendor counts: an OEM subsystem name says nothing about the host.
        ident = f" {dev.vendor_id}:{dev.device_id}" if dev.vendor_id and dev.device_id else ""
        return f"Microsoft Hyper-V device{ident} ({dev.description})"
    for vendor, needle, label in _VIRTUAL_DEVICE_SIGNS:
        if (vendor and dev.vendor_id == vendor) or (needle and needle in lowered):
            ident = f" {dev.vendor_id}:{dev.device_id}" if dev.vendor_id and dev.device_id else ""
            return f"{label}{ident} ({dev.description})"
    pci_id = f"{dev.vendor_id}:{dev.device_id}" if dev.vendor_id and dev.device_id else None
    for chip_id, needle, label in _EMULATED_CHIPSETS:
        if (chip_id and pci_id == chip_id) or needle in lowered:
            return label
    return None


def _is_virtio(dev: _Device) -> bool:
    return dev.vendor_id == "1af4" or "virtio" in dev.description.lower()


def _is_bluefield(dev: _Device) -> bool:
    mellanox = dev.vendor_id == "15b3" or "mellanox" in dev.description.lower()
    named = "bluefield" in dev.description.lower() or dev.device_id in _BLUEFIELD_DEVICE_IDS
    return mellanox and named and not _is_vf(dev)


def _dpu_emulatable(dev: _Device) -> bool:
    """A virtio function of a kind a BlueField emulates for its host (net, block, file system)."""
    if not _is_virtio(dev) or "gpu" in dev.description.lower():
        return False  # a virtio GPU is QEMU's, never a DPU's
    if dev.vendor_id == "1af4" and dev.device_id:
        return dev.device_id in _DPU_VIRTIO_DEVICE_IDS
    return any(name in dev.description.lower() for name in _DPU_VIRTIO_NAMES)


def _bus_key(slot: str) -> tuple[str, int, str] | None:
    """(domain, bus, device) of a slot: "0000:af:00.2" and "af:00.2" give ("0000", 0xaf, "00")."""
    parts = re.match(r"^(?:([0-9a-fA-F]{4,8}):)?([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\.[0-7]$", slot)
    if not parts:
        return None
    return (parts.group(1) or "0000").lower().zfill(4), int(parts.group(2), 16), parts.group(3)


def _behind(bridge: _Device, key: tuple[str, int, str]) -> bool:
    own = _bus_key(bridge.slot)
    low, high = bridge.bridge_range or (1, 0)
    return own is not None and own[0] == key[0] and low <= key[1] <= high


def _dpu_links(devices: list[_Device]) -> dict[int, str]:
    """Virtio devices this listing itself shows to be emulated by a BlueField DPU on the host.

    Returns {index in devices: why}. A BlueField in DPU mode emulates virtio-net (DOCA
    virtio-net controller) and virtio-blk (SNAP) PCIe functions for a bare-metal host, as bare-
    metal GPU clouds use; QEMU's virtio devices look the same by vendor and device id, so only a
    link the same output shows counts:

    - the virtio function's Subsystem is Mellanox (15b3): QEMU sets Red Hat's (1af4);
    - it is another function of the BlueField's own PCI device (static virtio PFs sit next to
      the DPU's ConnectX functions, e.g. af:00.2 beside af:00.0/.1);
    - it sits behind a PCIe switch that also holds a BlueField function: a Mellanox bridge
      whose bus range covers it (-vv), or, in the -tv tree (bridges unnamed there), a bridge
      below a root port whose range covers both. A root port alone does not count: a Kata or
      libvirt VM hangs hot-plugged virtio devices and passed-through functions off one bridge
      on its root bus.

    A BlueField merely present elsewhere in the listing is deliberately not enough: a cloud VM is
    routinely given a passed-through NIC or DPU function next to QEMU's own virtio NIC and disk,
    so presence says nothing about who emulates the virtio device.

    Such a device proves DPU hardware, not a bare-metal host: a DPU's virtio function can be
    passed through to a VM like any other function. It is then neutral like any passed-through
    device, and the VM's own devices (chipset, QEMU bridges, its virtio devices) still show.
    """
    bluefield = [(d, _bus_key(d.slot)) for d in devices if _is_bluefield(d)]
    bluefield = [(d, key) for d, key in bluefield if key is not None]
    bridges = [d for d in devices if d.bridge_range is not None]

    # Bridges below another bridge (switch ports); root ports and root-bus bridges are not.
    switch_ports = [
        b for b in bridges if (own := _bus_key(b.slot)) and any(_behind(o, own) for o in bridges)
    ]
    # A bridge that counts: a Mellanox one (-vv names them), or a switch port (the tree does not).
    dpu_bridges = [
        b
        for b in bridges
        if b.vendor_id == "15b3" or "mellanox" in b.description.lower() or b in switch_ports
    ]
    links: dict[int, str] = {}
    for index, dev in enumerate(devices):
        key = _bus_key(dev.slot)
        if not _dpu_emulatable(dev) or key is None:
            continue
        subsystem = dev.subsystem.lower()
        if "[15b3:" in subsystem or subsystem.startswith("mellanox") or "[15b3]" in subsystem:
            links[index] = f"Subsystem {dev.subsystem}"
            continue
        if not bluefield:
            continue
        same_device = next((b for b, k in bluefield if k == key), None)
        if same_device is not None:
            links[index] = f"a function of the BlueField device at {same_device.slot}"
            continue
        for bridge in dpu_bridges:
            if not _behind(bridge, key):
                continue
            with_dpu = next((b for b, k in bluefield if _behind(bridge, k)), None)
            if with_dpu is not None:
                links[index] = (
                    f"behind the PCIe switch of the BlueField at {with_dpu.slot} "
                    f"(bridge {bridge.slot})"
                )
                break
    return links


def _vpci_domains(devices: list[_Device]) -> list[str]:
    """Non-zero PCI domains holding only passed-through-type endpoints, all on bus 00."""
    by_domain: dict[str, list[tuple[str, str]]] = {}
    for dev in devices:
        parts = _SLOT_PARTS_RE.match(dev.slot)
        if not parts or not parts.group(1) or int(parts.group(1), 16) == 0:
            continue
        by_domain.setdefault(parts.group(1).lower(), []).append((parts.group(2), dev.cls.lower()))
    return [
        domain
        for domain, members in by_domain.items()
        if all(bus == "00" and cls in _VPCI_ENDPOINT_CLASSES for bus, cls in members)
    ]


def _physical_signal(dev: _Device) -> str | None:
    lowered = dev.description.lower()
    cls = dev.cls.lower()
    if "vga" in cls and (dev.vendor_id == "1a03" or "aspeed" in lowered):
        return "ASPEED BMC VGA"
    if "vga" in cls and (dev.vendor_id == "102b" or "matrox" in lowered) and "g200" in lowered:
        return "Matrox G200 BMC VGA"
    if _is_nvidia(dev) and ("nvswitch" in lowered or cls == "bridge"):
        return "NVSwitch bridge"
    mellanox = dev.vendor_id == "15b3" or "mellanox" in lowered
    if mellanox and not _is_vf(dev) and cls != "bridge":
        return "Mellanox ConnectX physical function"
    if "integrated lights-out" in lowered:
        return "HPE iLO BMC"
    return None


# What a grep pattern or an ``lspci -d`` vendor must name to keep Mellanox/NVIDIA networking
# functions in a filtered listing ("ella" is a pattern seen in the wild for "Mellanox").
_MELLANOX_WORDS = (
    "ella",
    "mlx",
    "15b3",
    "connectx",
    "bluefield",
    "infiniband",
    "ethernet",
    "network",
)
_VENDOR_FILTER_RE = re.compile(r"\s-d\s*([0-9a-f]{1,4}):", re.IGNORECASE)
# "lspci -vvv -s 17:00.0" lists the selected slots only.
_SLOT_FILTER_RE = re.compile(r"\s-s\s*[0-9a-f]", re.IGNORECASE)
# The root of a PCI tree: every whole listing holds one (the host bridge of x86 hosts and of the
# chipsets hypervisors emulate, the root ports of ARM and POWER servers); only a Hyper-V guest's
# vPCI devices sit alone, each on a bus of its own.
_ROOT_CLASSES = frozenset({"host bridge", "pci bridge", "isa bridge", "cardbus bridge"})


def _mellanox_functions(
    text: str, devices: list[_Device], excerpt_line: int | None, rooted: bool
) -> int | None:
    """The Mellanox (15b3) functions listed, or None when none are and the listing could not
    have shown them: cut at an excerpt marker, piped through a grep whose pattern names no
    Mellanox or network device (``egrep -i "nvidia|vga"``), limited to another vendor with
    ``-d`` or to some slots with ``-s``, or, without its command line, a listing that holds no
    root of a PCI tree (no host or PCI bridge): a selection of devices (a grep, ``-s``) rather
    than the machine. A ``-tv`` tree is drawn from its root bus, and ``rooted`` says the devices
    sit as Hyper-V's vPCI bus lays out a whole guest: both are whole listings. A
    node with 9 ConnectX HCAs in ibstat must not read "0 Mellanox functions" from a listing that
    only kept its GPUs."""
    count = sum(1 for d in devices if d.vendor_id == "15b3" or "mellanox" in d.description.lower())
    if count or excerpt_line is not None:
        return count or None
    command = False
    for raw in text.splitlines():
        line = raw.lower()
        if "lspci" not in line:
            continue
        command = True
        vendor = _VENDOR_FILTER_RE.search(line)
        if vendor is not None and vendor.group(1).rjust(4, "0") != "15b3":
            return None
        if _SLOT_FILTER_RE.search(line):
            return None
        if "grep" in line and "|" in line and not any(w in line for w in _MELLANOX_WORDS):
            return None
    rooted = rooted or any(
        d.in_tree or d.cls.lower() in _ROOT_CLASSES or d.bridge_range for d in devices
    )
    return count if command or rooted else None


def _cut_device_line(text: str, devices: list[_Device]) -> int | None:
    """The number of the text's last line when it is the last device's line and stops inside a
    bracket ("86:00.0 Bridge: NVIDIA Corporation GH100 [H100 N"): lspci closes every "[" and
    "(" it opens, so such a line was cut by whoever pasted it."""
    lines = text.splitlines()
    last = next((n for n in range(len(lines), 0, -1) if lines[n - 1].strip()), None)
    if last is None or not devices or devices[-1].line != last:
        return None
    line = lines[last - 1]
    if line.count("[") > line.count("]") or line.count("(") > line.count(")"):
        return last
    return None


def parse(text: str) -> ParseResult:
    """Parse an lspci listing into NVIDIA GPU count/models and virtual/physical signals."""
    devices, filtered, excerpt_line = _read_devices(text)
    if not devices:
        detail = next(
            (n for n, raw in enumerate(text.splitlines(), start=1) if _VV_DETAIL_RE.match(raw)),
            None,
        )
        if detail is not None:
            raise EvidenceParseError(
                "lspci -vv detail lines without the device line they belong to "
                "('0000:1b:00.0 3D controller: NVIDIA ...'): which device they describe cannot "
                "be told",
                line=detail,
                kind=KIND,
                code="lspci.detail_only",
            )
        raise EvidenceParseError(
            "no PCI device lines found (expected `lspci` output such as "
            "'0000:1b:00.0 3D controller [0302]: NVIDIA Corporation ...')",
            kind=KIND,
            code="lspci.nothing",
        )

    virtual_signals: list[str] = []
    physical_signals: list[str] = []
    gpus: list[dict[str, Any]] = []
    gpu_models: list[str] = []
    not_responding: list[str] = []
    facts: list[Fact] = []
    warnings: list[str] = []
    pf_vendors = {d.vendor_id or d.description.split(" ")[0] for d in devices if not _is_vf(d)}

    def add(target: list[str], signal: str | None) -> None:
        if signal and signal not in target:
            target.append(signal)

    dpu_links = _dpu_links(devices)
    dpu_virtio: list[str] = []
    for index, dev in enumerate(devices):
        lowered = dev.description.lower()
        nvidia = _is_nvidia(dev)
        if nvidia and dev.cls.lower() in _GPU_CLASSES and dev.no_response:
            not_responding.append(dev.slot)
            warnings.append(
                f"line {dev.line}: GPU {dev.slot} reads '(rev ff)': it no longer answers on the "
                "PCI bus (fallen off the bus?) and is not counted"
            )
        elif nvidia and dev.cls.lower() in _GPU_CLASSES:
            model = _gpu_model(dev.description)
            gpus.append(
                {
                    "slot": dev.slot,
                    "model": model,
                    "pci_id": f"{dev.vendor_id}:{dev.device_id}" if dev.vendor_id else None,
                    "virtual_function": _is_vf(dev),
                    "pcie_link_width_max": dev.link_width_max,
                    "pcie_link_width_current": dev.link_width_current,
                    "pcie_link_width_line": dev.link_width_line,
                }
            )
            if model not in gpu_models:
                gpu_models.append(model)
            if "grid" in lowered or "vgpu" in lowered:
                add(virtual_signals, f"GRID/vGPU model ({model})")
        if _is_vf(dev):
            if nvidia:
                add(virtual_signals, "NVIDIA virtual function")
            elif (dev.vendor_id or dev.description.split(" ")[0]) not in pf_vendors:
                add(
                    virtual_signals,
                    f"SR-IOV virtual function without its physical function ({dev.description})",
                )
        if index in dpu_links:
            # Emulated by the host's own DPU: a fact about the host, not a hypervisor's device.
            ident = f" {dev.vendor_id}:{dev.device_id}" if dev.vendor_id and dev.device_id else ""
            add(
                dpu_virtio,
                f"virtio device{ident} ({dev.description}) at {dev.slot} emulated by a BlueField "
                f"DPU: {dpu_links[index]}",
            )
        else:
            add(virtual_signals, _virtual_device_signal(dev))
        add(physical_signals, _physical_signal(dev))
    vpci_domains = _vpci_domains(devices)
    if vpci_domains:
        count = sum(1 for d in devices if d.slot.split(":")[0].lower() in vpci_domains)
        add(
            virtual_signals,
            f"Hyper-V vPCI layout: {count} device{'s' if count != 1 else ''} alone on bus 00 of "
            f"their own PCI domain ({', '.join(vpci_domains)})",
        )

    if virtual_signals:
        virtual: bool | None = True
        if physical_signals:
            warnings.append(
                "both virtual and physical signals present ("
                + ", ".join(physical_signals)
                + "): devices passed through to a VM still look physical"
            )
    elif physical_signals:
        virtual = False
    else:
        virtual = None
        warnings.append("no virtual or physical signal in this listing: cannot tell VM or host")
    if filtered and virtual is not True:
        warnings.append(
            "the listing was filtered with grep: devices that reveal a VM may be hidden"
        )
    unnamed: dict[str, list[_Device]] = {}
    for dev in devices:
        model = _gpu_model(dev.description)
        if _is_nvidia(dev) and dev.cls.lower() in _GPU_CLASSES and _UNNAMED_MODEL_RE.match(model):
            unnamed.setdefault(model, []).append(dev)
    for model, unnamed_devs in unnamed.items():
        slots = ", ".join(d.slot for d in unnamed_devs)
        warnings.append(
            f"line {unnamed_devs[0].line}: "
            + (f"GPU {slots} is" if len(unnamed_devs) == 1 else f"GPUs {slots} are")
            + f" '{model}': lspci's list of PCI ids is older than the card and names no model"
        )
    if excerpt_line is not None:
        warnings.append(f"excerpt marker at line {excerpt_line}: the output was cut")
    cut_line = _cut_device_line(text, devices)
    if cut_line is not None:
        warnings.append(
            f"line {cut_line}: the listing ends inside a device's name: it was cut there, and "
            "the devices after it are missing"
        )

    ascend = [found for d in devices if (found := _ascend_device_id(d)) is not None]
    nvidia_count = len(gpus)
    facts.append(
        Fact(
            metric="nvidia_gpu_count",
            value=float(nvidia_count),
            unit="count",
            line=next((d.line for d in devices if d.slot == gpus[0]["slot"]), None)
            if gpus
            else None,
        )
    )
    metrics: dict[str, Any] = {
        "nvidia_gpu_count": nvidia_count,
        "gpu_count_partial": "excerpt"
        if excerpt_line is not None
        else ("cut_line" if cut_line is not None else None),
        "gpu_models": gpu_models,
        "gpus": gpus,
        "gpus_not_responding": not_responding,
        "virtual": virtual,
        "virtual_signals": virtual_signals,
        "physical_signals": physical_signals,
        "device_count": len(devices),
        "nvswitch_count": sum(
            1 for d in devices if _is_nvidia(d) and _physical_signal(d) == "NVSwitch bridge"
        ),
        "mellanox_functions": _mellanox_functions(text, devices, excerpt_line, bool(vpci_domains)),
        "filtered": filtered,
        "vpci_domains": vpci_domains,
        "dpu_virtio": dpu_virtio,
        "ascend_functions": len(ascend),
        "ascend_device_ids": list(dict.fromkeys(ascend)),
    }
    return ParseResult(kind=KIND, metrics=metrics, facts=tuple(facts), warnings=tuple(warnings))
