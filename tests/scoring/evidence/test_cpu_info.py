"""Tests of the lscpu and /proc/cpuinfo parser, including this dev machine (a KVM guest)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.evidence import cpu_info, registry
from scoring.evidence.base import EvidenceParseError, ParseResult

SAMPLES = [
    "cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt",
    "cpu_info/devmachine-kvm-lscpu-new-layout.txt",
    "cpu_info/devmachine-kvm-proc-cpuinfo.txt",
    "cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt",
]
OTHER_KIND_SAMPLES = [
    "ibstat/hpc-login-cx6-mt4123-hdr100.txt",
    "lspci/devmachine-kvm-lspci-vv.txt",
    "fio/fio333-randrw-normal.txt",
    "perftest/roce200g-ib_write_bw-a-report-gbits-sweep.txt",
]


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
        ("cpu_sockets", 2.0, "count", 9),
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
    assert metrics["virtualization_type"] == "完全"


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


@pytest.mark.parametrize("path", SAMPLES)
def test_every_sample_is_detected_as_cpu_info(sample: Callable[[str], str], path: str) -> None:
    text = sample(path)
    assert cpu_info.detect(text) > 0
    assert registry.detect_kind(text) == "cpu_info"


@pytest.mark.parametrize("path", OTHER_KIND_SAMPLES)
def test_other_tools_are_not_cpu_info(sample: Callable[[str], str], path: str) -> None:
    text = sample(path)
    assert cpu_info.detect(text) == 0
    with pytest.raises(EvidenceParseError, match="no lscpu fields or /proc/cpuinfo"):
        cpu_info.parse(text)


@pytest.mark.parametrize("text", ["", "\n", "\x00\x00\x00", "kvm"])
def test_empty_or_binary_input_is_a_clear_error(text: str) -> None:
    with pytest.raises(EvidenceParseError, match="no lscpu fields or /proc/cpuinfo"):
        cpu_info.parse(text)


def test_large_input_stays_linear(sample: Callable[[str], str]) -> None:
    text = sample("cpu_info/devmachine-kvm-proc-cpuinfo.txt") * 4000  # ~10 MB, 8000 CPUs
    start = time.perf_counter()
    assert cpu_info.parse(text).metrics["logical_cpus"] == 8000
    assert time.perf_counter() - start < 30


def _mutate(data: st.DataObject, text: str) -> str:
    for _ in range(data.draw(st.integers(1, 4))):
        cut = data.draw(st.integers(0, len(text)))
        op = data.draw(st.sampled_from(["delete", "insert", "truncate", "swap"]))
        if op == "delete":
            text = text[:cut] + text[cut + data.draw(st.integers(1, 80)) :]
        elif op == "insert":
            text = text[:cut] + data.draw(st.text(max_size=40)) + text[cut:]
        elif op == "truncate":
            text = text[:cut]
        else:
            text = text[:cut] + data.draw(st.sampled_from(["CPU(s): ", ":", "：", "processor : "]))
    return text


def _check(text: str) -> None:
    assert 0 <= cpu_info.detect(text) <= 100
    try:
        result = cpu_info.parse(text)
    except EvidenceParseError:
        return
    assert isinstance(result, ParseResult)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_fuzz_random_text(text: str) -> None:
    _check(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLES), st.data())
def test_fuzz_mutated_samples(sample: Callable[[str], str], path: str, data: st.DataObject) -> None:
    _check(_mutate(data, sample(path)))
