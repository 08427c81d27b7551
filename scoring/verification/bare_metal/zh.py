"""The parsers' signals worded in Chinese (signal_zh), for the explanations' Chinese text."""

from __future__ import annotations

import re

# The parsers name what they found in English (scoring/evidence/dmi.py, lspci.py): a Chinese
# explanation names the dmidecode field and the kind of device in Chinese, and keeps the
# values read from the node and the products' names as printed.
_DMI_FIELDS_ZH = {
    "System Product Name": "系统产品名称",
    "System Version": "系统版本",
    "System Family": "系统系列",
    "System Manufacturer": "系统制造商",
    "BIOS Vendor": "BIOS 厂商",
    "BIOS Version": "BIOS 版本",
    "BIOS Characteristics": "BIOS 特性",
    "Processor Manufacturer": "处理器制造商",
    "Chassis Manufacturer": "机箱制造商",
    "Chassis Version": "机箱版本",
}
_DMI_SIGNAL_RE = re.compile(r"^(?P<field>[A-Za-z ]+?) (?P<value>'.*'|\".*\") \((?P<label>.*)\)$")
_DEVICE_SIGNAL_RE = re.compile(
    r"^(?P<label>.*?) (?P<ids>[0-9a-f]{4}:[0-9a-f]{4} )?\((?P<name>.*)\)$"
)
# Generic words of the parsers' labels; what is left is a product's or a tool's name.
_LABEL_WORDS_ZH = (
    (
        re.compile(r"^SR-IOV virtual function without its physical function$"),
        "缺少物理功能的 SR-IOV 虚拟功能",
    ),
    (re.compile(r" firmware \((.*)\)$"), r" 固件（\1）"),
    (re.compile(r"^SMBIOS virtual machine bit$"), "SMBIOS 虚拟机标志位"),
    (re.compile(r" machine type$"), " 机器类型"),
    (re.compile(r" machine$"), " 机型"),
    (re.compile(r"^emulated (.*) chipset$"), r"模拟的 \1 芯片组"),
    (re.compile(r"^emulated (.*)$"), r"模拟的 \1"),
    (re.compile(r" standard VGA$"), " 标准 VGA"),
    (re.compile(r" platform device$"), " 平台设备"),
    (re.compile(r" virtual device$"), " 虚拟设备"),
    (re.compile(r" device$"), " 设备"),
    (re.compile(r" physical function$"), " 物理功能"),
    (re.compile(r" virtual function$"), " 虚拟功能"),
    (re.compile(r"^GRID/vGPU model$"), "GRID/vGPU 型号"),
    (re.compile(r" bridge$"), " 桥接器"),
)


def _label_zh(label: str) -> str:
    for pattern, zh in _LABEL_WORDS_ZH:
        shown, count = pattern.subn(zh, label)
        if count:
            return shown
    return label


_DPU_SIGNAL_RE = re.compile(
    r"^(?P<device>.*\)) at (?P<slot>\S+) emulated by a BlueField DPU: (?P<link>.*)$"
)
_DPU_LINKS_ZH = (
    (re.compile(r"^Subsystem (.*)$"), r"子系统 \1"),
    (
        re.compile(r"^a function of the BlueField device at (\S+)$"),
        r"为 \1 处 BlueField 设备的一个功能",
    ),
    (
        re.compile(r"^behind the PCIe switch of the BlueField at (\S+) \(bridge (\S+)\)$"),
        r"位于 \1 处 BlueField 的 PCIe 交换机之后（桥接器 \2）",
    ),
)


def signal_zh(signal: str) -> str:
    """A parser's signal ("BIOS Vendor 'SeaBIOS' (SeaBIOS firmware (QEMU/KVM))", "virtio device
    1af4:1050 (Red Hat, Inc. Virtio 1.0 GPU)", "NVSwitch bridge") worded in Chinese: the field
    and the kind of device translated, values and product names as read."""
    dpu = _DPU_SIGNAL_RE.match(signal)
    if dpu:
        link = dpu["link"]
        for pattern, zh in _DPU_LINKS_ZH:
            link = pattern.sub(zh, link)
        return f"{signal_zh(dpu['device'])}，位于 {dpu['slot']}，由 BlueField DPU 模拟：{link}"
    dmi = _DMI_SIGNAL_RE.match(signal)
    if dmi and dmi["field"] in _DMI_FIELDS_ZH:
        return f"{_DMI_FIELDS_ZH[dmi['field']]} {dmi['value']}（{_label_zh(dmi['label'])}）"
    device = _DEVICE_SIGNAL_RE.match(signal)
    if device:
        ids = f" {device['ids'].strip()}" if device["ids"] else ""
        return f"{_label_zh(device['label'])}{ids}（{device['name']}）"
    return _label_zh(signal)
