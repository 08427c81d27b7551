"""lscpu run under LANG=zh_CN.UTF-8: real outputs in util-linux's Chinese translation (labels
with full-width colons, some left in English by the translators), old and new layouts, a VM
and bare metal; the expected figures are read off each sample (see PROVENANCE.tsv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence import cpu_info, detect_kind

SAMPLES = Path(__file__).parent / "samples" / "cpu_info"

EXPECTED = {
    "lscpu-zh-cn-ubuntu2204-vmware-vm-i7-13620h-hypervisor-vendor.txt": {
        "logical_cpus": 2,
        "hypervisor": True,
        "hypervisor_vendor": "VMware",
        "virtualization_type": "full",  # printed 完全
        "cpu_virtualization": None,
        "model_name": "13th Gen Intel(R) Core(TM) i7-13620H",
        "vendor_id": "GenuineIntel",
        "architecture": "x86_64",
        "sockets": 1,
        "cores_per_socket": 2,
        "threads_per_core": 1,
        "numa_nodes": 1,
    },
    "lscpu-zh-cn-archlinux-i5-6200u-baremetal-new-layout-flags-wrapped.txt": {
        "logical_cpus": 4,
        "hypervisor": False,
        "hypervisor_vendor": None,
        "virtualization_type": None,
        "cpu_virtualization": "VT-x",
        "model_name": "Intel(R) Core(TM) i5-6200U CPU @ 2.30GHz",
        "vendor_id": "GenuineIntel",
        "architecture": "x86_64",
        "sockets": 1,
        "cores_per_socket": 2,
        "threads_per_core": 2,
        "numa_nodes": 1,
    },
    "lscpu-zh-cn-kunpeng920-aarch64-2s-96cpu-old-layout.txt": {
        "logical_cpus": 96,
        "hypervisor": None,
        "hypervisor_vendor": None,
        "virtualization_type": None,
        "cpu_virtualization": None,
        "model_name": "Kunpeng-920",
        "vendor_id": "HiSilicon",
        "architecture": "aarch64",
        "sockets": 2,
        "cores_per_socket": 48,
        "threads_per_core": 1,
        "numa_nodes": 4,
    },
    "lscpu-zh-cn-bianbu-riscv64-spacemit-x60-new-layout-prompt.txt": {
        "logical_cpus": 8,
        "hypervisor": None,
        "hypervisor_vendor": None,
        "virtualization_type": None,
        "cpu_virtualization": None,
        "model_name": "Spacemit(R) X60",
        "vendor_id": None,
        "architecture": "riscv64",
        "sockets": 1,
        "cores_per_socket": 8,
        "threads_per_core": 1,
        "numa_nodes": None,
    },
    "lscpu-zh-cn-i7-8700-old-layout-caches-in-k-no-flags.txt": {
        "logical_cpus": 12,
        "hypervisor": None,
        "hypervisor_vendor": None,
        "virtualization_type": None,
        "cpu_virtualization": "VT-x",
        "model_name": "Intel(R) Core(TM) i7-8700 CPU @ 3.20GHz",
        "vendor_id": "GenuineIntel",
        "architecture": "x86_64",
        "sockets": 1,
        "cores_per_socket": 6,
        "threads_per_core": 2,
        "numa_nodes": 1,
    },
    "lscpu-zh-cn-ubuntu2004-i7-8550u-address-sizes-english-no-flags.txt": {
        "logical_cpus": 8,
        "hypervisor": None,
        "hypervisor_vendor": None,
        "virtualization_type": None,
        "cpu_virtualization": "VT-x",
        "model_name": "Intel(R) Core(TM) i7-8550U CPU @ 1.80GHz",
        "vendor_id": "GenuineIntel",
        "architecture": "x86_64",
        "sockets": 1,
        "cores_per_socket": 4,
        "threads_per_core": 2,
        "numa_nodes": 1,
    },
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_localised_lscpu_gives_the_same_figures_as_english(name):
    text = (SAMPLES / name).read_text(encoding="utf-8")
    assert cpu_info.detect(text) == 85
    assert detect_kind(text) == "cpu_info"
    result = cpu_info.parse(text)
    assert result.metrics == {"format": "lscpu", **EXPECTED[name]}
    facts = {fact.metric: fact.value for fact in result.facts}
    assert facts["logical_cpus"] == EXPECTED[name]["logical_cpus"]


def test_the_wrapped_chinese_flags_line_is_read_whole():
    # 标记 (Flags) wraps mid-word at the terminal width; vmx is there, hypervisor is not.
    name = "lscpu-zh-cn-archlinux-i5-6200u-baremetal-new-layout-flags-wrapped.txt"
    result = cpu_info.parse((SAMPLES / name).read_text(encoding="utf-8"))
    assert result.metrics["hypervisor"] is False
    assert result.warnings == ()


def test_an_arm_chinese_lscpu_without_flags_cannot_show_bare_metal():
    name = "lscpu-zh-cn-kunpeng920-aarch64-2s-96cpu-old-layout.txt"
    result = cpu_info.parse((SAMPLES / name).read_text(encoding="utf-8"))
    assert result.metrics["hypervisor"] is None
    assert "no 'Flags' line: the hypervisor flag cannot be checked" in result.warnings


def test_the_head_of_a_chinese_lscpu_is_enough_to_detect_it():
    # Three translated labels: 架构, CPU 运行模式 and 字节序, with CPU count not yet printed.
    name = "lscpu-zh-cn-ubuntu2204-vmware-vm-i7-13620h-hypervisor-vendor.txt"
    head = "\n".join((SAMPLES / name).read_text(encoding="utf-8").splitlines()[:4])
    assert cpu_info.detect(head) == 85


@pytest.mark.parametrize(
    ("printed", "english"), [("完全", "full"), ("半", "para"), ("容器", "container")]
)
def test_the_translated_virtualization_type_is_reported_in_english(printed, english):
    name = "lscpu-zh-cn-ubuntu2204-vmware-vm-i7-13620h-hypervisor-vendor.txt"
    text = (SAMPLES / name).read_text(encoding="utf-8").replace("完全", printed)
    assert cpu_info.parse(text).metrics["virtualization_type"] == english


def test_labels_with_the_vertical_colon_are_labels():
    # util-linux's zh_CN ends a few s390 labels ("机器类型") with U+FE30: such a line is a field
    # of its own, not the continuation of the wrapped flag list above it.
    field = cpu_info._lscpu_field("机器类型︰                           2964")
    assert field == ("机器类型", "2964")


@pytest.mark.parametrize(
    "name",
    [
        "lscpu-zh-cn-i7-8700-old-layout-caches-in-k-no-flags.txt",
        "lscpu-zh-cn-ubuntu2004-i7-8550u-address-sizes-english-no-flags.txt",
    ],
)
def test_an_x86_chinese_lscpu_cut_before_its_flags_says_so(name):
    result = cpu_info.parse((SAMPLES / name).read_text(encoding="utf-8"))
    assert result.metrics["hypervisor"] is None
    assert "x86 CPU without a flag list: output may be truncated" in result.warnings
