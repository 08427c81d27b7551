"""Tests of the lscpu and /proc/cpuinfo parser, including this dev machine (a KVM guest)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from scoring.evidence import cpu_info
from scoring.evidence.base import EvidenceParseError


def test_old_lscpu_of_a_kvm_guest_with_nested_vtx(sample: Callable[[str], str]) -> None:
    result = cpu_info.parse(sample("cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt"))
    assert result.metrics == {
        "format": "lscpu",
        "logical_cpus": 2,
        "hypervisor": True,
        "hypervisor_vendor": "KVM",
        "virtualization_type": "full",
        "cpu_virtualization": "VT-x",
        "model_name": "Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz",
        "vendor_id": "GenuineIntel",
        "architecture": "x86_64",
        "sockets": 2,
        "cores_per_socket": 1,
        "threads_per_core": 1,
        "numa_nodes": 1,
    }
    assert [(f.metric, f.value, f.unit, f.line) for f in result.facts] == [
        ("logical_cpus", 2.0, "count", 5),
        ("sockets", 2.0, "count", 9),
    ]
    assert result.warnings == ()


def test_new_lscpu_layout_of_this_dev_machine(sample: Callable[[str], str]) -> None:
    metrics = cpu_info.parse(sample("cpu_info/devmachine-kvm-lscpu-new-layout.txt")).metrics
    assert metrics["logical_cpus"] == 2
    assert metrics["hypervisor"] is True
    assert metrics["hypervisor_vendor"] == "KVM"
    assert metrics["virtualization_type"] == "full"
    assert metrics["cpu_virtualization"] is None
    assert metrics["model_name"] == "AMD EPYC"
    assert (metrics["sockets"], metrics["cores_per_socket"], metrics["threads_per_core"]) == (
        1,
        2,
        1,
    )


def test_proc_cpuinfo_of_this_dev_machine(sample: Callable[[str], str]) -> None:
    result = cpu_info.parse(sample("cpu_info/devmachine-kvm-proc-cpuinfo.txt"))
    metrics = result.metrics
    assert metrics["format"] == "proc_cpuinfo"
    assert metrics["logical_cpus"] == 2
    assert metrics["hypervisor"] is True
    assert metrics["hypervisor_vendor"] is None
    assert metrics["model_name"] == "AMD EPYC"
    assert metrics["vendor_id"] == "AuthenticAMD"
    assert metrics["sockets"] == 1
    assert result.facts[0].line == 1


def test_bare_metal_epyc_with_wrapped_flags(sample: Callable[[str], str]) -> None:
    result = cpu_info.parse(sample("cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt"))
    metrics = result.metrics
    assert metrics["logical_cpus"] == 128
    assert metrics["hypervisor"] is False
    assert metrics["hypervisor_vendor"] is None
    assert metrics["cpu_virtualization"] == "AMD-V"
    assert metrics["model_name"] == "AMD EPYC 7763 64-Core Processor"
    assert (metrics["sockets"], metrics["cores_per_socket"], metrics["numa_nodes"]) == (2, 64, 8)
    assert result.facts[0].line == 6
    assert result.warnings == ()


def test_hypervisor_flag_split_by_a_terminal_wrap_is_found(sample: Callable[[str], str]) -> None:
    text = sample("cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt").replace(
        " rdra\n", " hypervi\n                                     sor rdra\n"
    )
    assert cpu_info.parse(text).metrics["hypervisor"] is True


def test_chinese_lscpu_labels() -> None:
    text = (
        "架构：                           x86_64\n"
        "CPU：                            8\n"
        "座：                             1\n"
        "型号名称：                       Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n"
        "超管理器厂商：                   KVM\n"
        "虚拟化类型：                     完全\n"
    )
    assert cpu_info.detect(text) > 0
    metrics = cpu_info.parse(text).metrics
    assert metrics["logical_cpus"] == 8
    assert metrics["sockets"] == 1
    assert metrics["hypervisor"] is True
    assert metrics["hypervisor_vendor"] == "KVM"
    assert metrics["virtualization_type"] == "full"  # lscpu prints 完全


def test_arm_cpuinfo_without_flags_cannot_tell() -> None:
    text = (
        "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull\n"
        "CPU implementer\t: 0x41\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n"
        "Features\t: fp asimd evtstrm aes pmull\nCPU implementer\t: 0x41\n"
    )
    assert cpu_info.detect(text) > 0
    result = cpu_info.parse(text)
    assert result.metrics["logical_cpus"] == 2
    assert result.metrics["hypervisor"] is None
    assert result.warnings == (
        "/proc/cpuinfo has ARM 'Features' list: the hypervisor flag cannot be checked",
    )


def test_lscpu_without_flags_line_is_unknown(sample: Callable[[str], str]) -> None:
    lines = sample("cpu_info/devmachine-kvm-lscpu-new-layout.txt").splitlines()
    text = "\n".join(line for line in lines if not line.startswith(("Flags", "Hypervisor")))
    result = cpu_info.parse(text)
    assert result.metrics["hypervisor"] is None
    assert "no 'Flags' line: the hypervisor flag cannot be checked" in result.warnings
    assert "x86 CPU without a flag list: output may be truncated" in result.warnings


def test_garbled_cpu_count_names_its_line(sample: Callable[[str], str]) -> None:
    text = sample("cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt").replace(
        "CPU(s):                2", "CPU(s):                two"
    )
    with pytest.raises(EvidenceParseError) as err:
        cpu_info.parse(text)
    assert err.value.line == 5
    assert "unreadable CPU count 'two'" in str(err.value)


def test_large_input_stays_linear(sample: Callable[[str], str]) -> None:
    text = sample("cpu_info/devmachine-kvm-proc-cpuinfo.txt") * 4000  # ~10 MB, 8000 CPUs
    start = time.perf_counter()
    assert cpu_info.parse(text).metrics["logical_cpus"] == 8000
    assert time.perf_counter() - start < 30


def test_cloud_bare_metal_and_vms_with_wrapped_flags(sample):
    metal = cpu_info.parse(
        sample("cpu_info/aws-c7a-metal-48xl-baremetal-lscpu-192cpu-flags-cut.txt")
    )
    assert (metal.metrics["logical_cpus"], metal.metrics["hypervisor"]) == (192, False)
    vm = cpu_info.parse(
        sample("cpu_info/kvm-vagrant-vm-lscpu-hypervisor-flag-wrapped-mid-word.txt")
    )
    assert (vm.metrics["logical_cpus"], vm.metrics["hypervisor"]) == (2, True)
    assert vm.metrics["hypervisor_vendor"] == "KVM"
    ec2 = cpu_info.parse(sample("cpu_info/aws-ec2-vm-lscpu-epyc7r32-flags-cut-no-vendor-line.txt"))
    assert (ec2.metrics["logical_cpus"], ec2.metrics["hypervisor"]) == (4, True)
    assert ec2.metrics["hypervisor_vendor"] is None


def test_an_arm_flag_list_cannot_show_bare_metal(sample) -> None:
    # aarch64 has no CPUID hypervisor bit: no flag and no vendor line prove nothing.
    text = sample("cpu_info/lscpu-aarch64-apple-2cpu-new-layout-plus-caches-extended.txt")
    metrics = cpu_info.parse(text).metrics
    assert metrics["logical_cpus"] == 2
    assert metrics["architecture"] == "aarch64"
    assert metrics["hypervisor"] is None


def test_an_x86_flag_list_without_the_flag_still_means_no_hypervisor() -> None:
    text = "Architecture: x86_64\nCPU(s): 4\nVendor ID: GenuineIntel\nFlags: fpu vme sse2\n"
    assert cpu_info.parse(text).metrics["hypervisor"] is False


def test_a_label_without_a_value_does_not_hide_the_line_below_it() -> None:
    # vLLM's collect_env prints "CPU:" above its lscpu, and the zh_CN map reads a "CPU" label
    # as "CPU(s)": the heading took the key and the real "CPU(s): 256" was dropped.
    text = (
        "CPU:\n"
        "Architecture:                       x86_64\n"
        "CPU(s):                             256\n"
        "On-line CPU(s) list:                0-127,129-255\n"
        "Vendor ID:                          AuthenticAMD\n"
    )
    metrics = cpu_info.parse(text).metrics
    assert (metrics["logical_cpus"], metrics["vendor_id"]) == (256, "AuthenticAMD")
