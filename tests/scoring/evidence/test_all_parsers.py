"""Checks every evidence parser must pass: detection, rejection, malformed input, fuzzing."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring.evidence import (
    cpu_info,
    dcgm,
    dmi,
    fio,
    ibstat,
    lspci,
    nccl,
    nvidia_smi,
    nvidia_smi_query,
    nvlink,
    perftest,
    registry,
    topo,
    virt,
)
from scoring.evidence.base import EvidenceParseError, ParseResult

ParseContract = Callable[..., None]  # the conftest fixture ``parse_contract``

Mutator = Callable[[st.DataObject, str], list[str]]


def splice_edits(*, max_position: int, max_width: int, max_insert: int) -> Mutator:
    """Up to six edits, each replacing ``width`` characters at ``position`` by a random text."""

    def mutate(data: st.DataObject, text: str) -> list[str]:
        edits = data.draw(
            st.lists(
                st.tuples(
                    st.integers(0, max_position),
                    st.integers(0, max_width),
                    st.text(max_size=max_insert),
                ),
                max_size=6,
            )
        )
        for position, width, insert in edits:
            position %= len(text) + 1
            text = text[:position] + insert + text[position + width :]
        return [text]

    return mutate


def cut_and_splice(*, max_delete: int, swaps: tuple[str, ...]) -> Mutator:
    """One to four deletions, insertions, truncations or "cut here and append a tool token"."""

    def mutate(data: st.DataObject, text: str) -> list[str]:
        for _ in range(data.draw(st.integers(1, 4))):
            cut = data.draw(st.integers(0, len(text)))
            op = data.draw(st.sampled_from(["delete", "insert", "truncate", "swap"]))
            if op == "delete":
                text = text[:cut] + text[cut + data.draw(st.integers(1, max_delete)) :]
            elif op == "insert":
                text = text[:cut] + data.draw(st.text(max_size=40)) + text[cut:]
            elif op == "truncate":
                text = text[:cut]
            else:
                text = text[:cut] + data.draw(st.sampled_from(swaps))
        return [text]

    return mutate


def insert_then_truncate(data: st.DataObject, text: str) -> list[str]:
    """A short text inserted near the start, and the same sample cut at that point."""
    insert = data.draw(st.text(max_size=20))
    cut = data.draw(st.integers(0, 60))
    return [text[:cut] + insert + text[cut:], text[:cut]]


def _dcgm_overall_is_known(result: ParseResult) -> None:
    assert result.metrics["overall"] in ("pass", "fail", "warn", "skip", "incomplete")


def _virt_word_is_stripped(result: ParseResult) -> None:
    assert result.metrics["virt"].strip() == result.metrics["virt"]


@dataclass(frozen=True)
class Case:
    """One parser, its stored samples and what it must do with bad or foreign input."""

    module: ModuleType
    kind: str
    samples: tuple[str, ...]
    other_kinds: tuple[str, ...]
    # Other tools: detect() must stay below this; 1 means "exactly 0".
    other_detect_below: int
    # None: parse() of another tool's output must raise, message not checked. "": need not raise.
    other_error: str | None
    empty_inputs: tuple[str, ...]
    empty_error: str | None
    mutate: Mutator
    empty_detects_zero: bool = False
    fuzz_samples: tuple[str, ...] = ()
    random_text: st.SearchStrategy[str] = field(default_factory=lambda: st.text(max_size=400))
    invariant: Callable[[ParseResult], None] | None = None
    long_line_pieces: tuple[str, ...] = ()
    long_line_prefix: str = ""


_NV_SPLICE = splice_edits(max_position=10**5, max_width=30, max_insert=10)
_NV_RANDOM = st.text()  # unbounded length: the NVIDIA parsers have always been fuzzed so

CASES = [
    Case(
        module=nccl,
        kind="nccl_tests",
        samples=(
            "nccl_tests/a100-8gpu-nvlink-sendrecv-g8-NA-inplace.txt",
            "nccl_tests/autodl-2x2080ti-pcie-container.txt",
            "nccl_tests/cscs-gh200-2node-sarus-v2.18.2.txt",
            "nccl_tests/h100-2node-4gpu-each-g4.txt",
            "nccl_tests/issue37-dgx1-v100-allgather-oldformat-FAILED.txt",
            "nccl_tests/issue78-v100-256gpu-allreduce-nccl284-NA-truncated.txt",
            "nccl_tests/issue78-v100-8node-alltoall-blank-redop-error-col.txt",
            "nccl_tests/nccl-issue2169-h100-alltoall-v2.17.8-truncated.txt",
            "nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt",
            "nccl_tests/oci-h100-2node-roce-nccl2215.txt",
        ),
        other_kinds=(
            "nvidia_smi/quadro-rtx8000-x10-driver470-oldformat.txt",
            "nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt",
            "dcgm_diag/memtest-r4-rtx2060-persistence-FAIL.txt",
            "ibstat/mlx4-cx3-fdr56-mt4099.txt",
            "perftest/roce100g-ib_write_bw-bidir-cpufreq-warning.txt",
        ),
        other_detect_below=30,
        other_error=None,
        empty_inputs=("", "   \n\n", "hello world\n", "\x00\x01\x02garbage"),
        empty_error="no nccl-tests result table found",
        mutate=splice_edits(max_position=10**6, max_width=40, max_insert=12),
        random_text=_NV_RANDOM,
        long_line_pieces=(" ", "\n", "1", "#", "a,", "Rank 1 ", " \n", "GPU 0: a "),
    ),
    Case(
        module=topo,
        kind="nvidia_smi_topo",
        samples=(
            "nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt",
            "nvidia_smi_topo/autodl-2x2080ti-pix-container.txt",
            "nvidia_smi_topo/issue37-dgx1-v100-nv1-nv2.txt",
            "nvidia_smi_topo/microway-dgx1-v100-mlx5-columns.txt",
            "nvidia_smi_topo/microway-k80-4gpu-mlx4-soc-legend.txt",
            "nvidia_smi_topo/talos-dgx-h100-12nic-2numa-truncated.txt",
        ),
        other_kinds=(
            "nccl_tests/h100-2node-4gpu-each-g4.txt",
            "nvidia_smi/autodl-2x2080ti-driver550-container.txt",
            "nvidia_smi_nvlink/mlengineering-h100-nvlink-e-and-status.txt",
            "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
            "dcgm_diag/mlengineering-r2-r3-fail-snippets.txt",
        ),
        other_detect_below=30,
        other_error=None,
        empty_inputs=("", "Legend:\n  X    = Self\n", "GPU 0: H100\n", "\xff\x00"),
        empty_error="no 'nvidia-smi topo -m' matrix found",
        mutate=_NV_SPLICE,
        random_text=_NV_RANDOM,
        long_line_pieces=(" ", "\n", " \n", "GPU0 ", "NV1\t", "X ", "NIC0: mlx5_0\n"),
    ),
    Case(
        module=nvlink,
        kind="nvidia_smi_nvlink",
        samples=(
            "nvidia_smi_nvlink/hpe-dl380a-2x-h100pcie-bridge-R-and-s-inactive.txt",
            "nvidia_smi_nvlink/microway-dgx1-v100-status-capabilities-snip.txt",
            "nvidia_smi_nvlink/mlengineering-h100-nvlink-e-and-status.txt",
        ),
        other_kinds=(
            "nvidia_smi_topo/issue37-dgx1-v100-nv1-nv2.txt",
            "nvidia_smi/quadro-rtx8000-x10-driver470-oldformat.txt",
            "nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt",
            "ibstat/gpud-h100-roce-cx7-some-down-polling.txt",
            "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt",
        ),
        other_detect_below=30,
        other_error=None,
        empty_inputs=(
            "",
            "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\n",
            "nvidia-smi nvlink -s\n",
            "\x00\x01",
        ),
        empty_error="no NVLink lines found",
        mutate=_NV_SPLICE,
        random_text=_NV_RANDOM,
        long_line_pieces=(" ", "\n", "GPU 0: a ", "Link 1: ", "Link 1, a ", "(UUID: "),
    ),
    Case(
        module=nvidia_smi,
        kind="nvidia_smi",
        samples=(
            "nvidia_smi/arbutus-grid-v100d-8c-vgpu-driver550.txt",
            "nvidia_smi/autodl-2x2080ti-driver550-container.txt",
            "nvidia_smi/dgx-a100-8gpu-driver450-mig-pending.txt",
            "nvidia_smi/dgx-spark-gb10-driver580-memory-not-supported.txt",
            "nvidia_smi/quadro-rtx8000-x10-driver470-oldformat.txt",
        ),
        other_kinds=(
            "nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt",
            "nvidia_smi_topo/a100-8gpu-baremetal-4nic-nic-legend.txt",
            "dcgm_diag/dcgm-issue253-4.2.3-pcie-fail-wrapped-warnings.txt",
            "nccl_tests/h100-2node-4gpu-each-g4.txt",
            "lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt",
        ),
        other_detect_below=30,
        other_error=None,
        empty_inputs=("", "No running processes found\n", "| a | b |\n", "\x00"),
        empty_error="no nvidia-smi GPU table found",
        mutate=_NV_SPLICE,
        random_text=_NV_RANDOM,
        long_line_pieces=(" ", "\n", "1", "| ", "|   0  x ", "1MiB /", "9W / "),
        long_line_prefix="| GPU  Name  Persistence-M |\n|====|\n",
    ),
    Case(
        module=nvidia_smi_query,
        kind="nvidia_smi_query",
        samples=(
            "nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt",
            "nvidia_smi_query/hyperstack-rtx-a4000-vm-q-grep-virtualization.txt",
            "nvidia_smi_query/hyperstack-rtx-a4000-vm-query-gpu-csv-units.txt",
            "nvidia_smi_query/microway-v100-pcie-q-driver410-single-double-bit.txt",
            "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt",
            "nvidia_smi_query/mlengineering-h100-query-gpu-vbios-csv.txt",
        ),
        other_kinds=(
            "nvidia_smi/quadro-rtx8000-x10-driver470-oldformat.txt",
            "nvidia_smi_nvlink/mlengineering-h100-nvlink-e-and-status.txt",
            "dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt",
            "cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt",
            "nccl_tests/oci-h100-2node-roce-nccl2215.txt",
        ),
        other_detect_below=30,
        other_error="",  # "Key : value" lines of other tools may parse; a low score is enough
        empty_inputs=("", "hello\n", "\x00\x01", "Timestamp\n"),
        empty_error="no nvidia-smi -q values found",
        mutate=_NV_SPLICE,
        random_text=_NV_RANDOM,
        long_line_pieces=(" ", "\n", "1", "    a ", ":", "a,", "GPU 0:1:0\n", "  x :"),
    ),
    Case(
        module=dcgm,
        kind="dcgm_diag",
        samples=(
            "dcgm_diag/dcgm-issue253-4.2.3-pcie-fail-wrapped-warnings.txt",
            "dcgm_diag/dgx-spark-gb10-dcgm4.4.2-r3-all-skipped.txt",
            "dcgm_diag/memtest-r4-rtx2060-persistence-FAIL.txt",
            "dcgm_diag/meta-gcm-dcgm2-r4-all-pass-blacklist.txt",
            "dcgm_diag/mlengineering-r2-r3-fail-snippets.txt",
            "dcgm_diag/slurm-prolog-dcgm2-deployment-fail-empty-categories.txt",
        ),
        other_kinds=(
            "nvidia_smi/autodl-2x2080ti-driver550-container.txt",
            "nvidia_smi_topo/talos-dgx-h100-12nic-2numa-truncated.txt",
            "nccl_tests/cscs-gh200-2node-sarus-v2.18.2.txt",
            "nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt",
            "perftest/roce100g-ib_write_bw-bidir-cpufreq-warning.txt",
        ),
        other_detect_below=30,
        other_error=None,
        empty_inputs=("", "Successfully ran diagnostic for group.\n", "|||\n", "\x00"),
        empty_error="no dcgmi diag results found",
        mutate=_NV_SPLICE,
        random_text=_NV_RANDOM,
        invariant=_dcgm_overall_is_known,
        long_line_pieces=(" ", "\n", "|", "| ", "|--- a ", "Pass - GPUs: 1 ", "-"),
    ),
    Case(
        module=ibstat,
        kind="ibstat",
        samples=(
            "ibstat/hpc-login-cx6-mt4123-hdr100.txt",
            "ibstat/mlx4-cx3-fdr56-mt4099.txt",
            "ibstat/gpud-h100-roce-cx7-some-down-polling.txt",
            "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt",
            "ibstat/gpud-a100-ibstatus-hdr200-8ib-1eth.txt",
            "ibstat/ibstatus-cx-100g-roce-tabs-one-down.txt",
            "ibstat/mlx4-cx3-2port-qdr40-tmux-pane.txt",
        ),
        other_kinds=(
            "lspci/devmachine-kvm-lspci-vv.txt",
            "perftest/roce100g-ib_write_bw-bidir-cpufreq-warning.txt",
            "fio/fio333-randrw-normal.txt",
            "dmi/insights-kvm-rhev-dmidecode3.0.txt",
            "cpu_info/devmachine-kvm-lscpu-new-layout.txt",
        ),
        other_detect_below=1,
        other_error="no InfiniBand CA or port status found",
        empty_inputs=("", "   \n\n", "\x00\x01\x02garbage\x00", "kvm\n"),
        empty_error="no InfiniBand CA or port status found",
        empty_detects_zero=True,
        mutate=cut_and_splice(max_delete=80, swaps=("Rate: ", ":", "'", "\t", "4: ")),
    ),
    Case(
        module=lspci,
        kind="lspci",
        samples=(
            "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
            "lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt",
            "lspci/devmachine-kvm-lspci.txt",
            "lspci/devmachine-kvm-lspci-nn.txt",
            "lspci/devmachine-kvm-lspci-Dnn.txt",
            "lspci/devmachine-kvm-lspci-vv.txt",
            "lspci/vmware-vm-4x2080ti-passthrough-grep-vga.txt",
        ),
        other_kinds=(
            "ibstat/gpud-h100-roce-cx7-some-down-polling.txt",
            "perftest/stmatengss-mlx4-ib_write_bw-a-sweep-mbps.txt",
            "fio/fio333-seqread-normal.txt",
            "dmi/insights-vmware-dmidecode2.12.txt",
            "cpu_info/devmachine-kvm-proc-cpuinfo.txt",
        ),
        other_detect_below=1,
        other_error="no PCI device lines found",
        empty_inputs=("", "\n\n", "\x00\xff binary \x00", "none\n"),
        empty_error="no PCI device lines found",
        mutate=cut_and_splice(max_delete=80, swaps=("[10de:", "]:", " (rev ", "Slot:\t")),
    ),
    Case(
        module=cpu_info,
        kind="cpu_info",
        samples=(
            "cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt",
            "cpu_info/devmachine-kvm-lscpu-new-layout.txt",
            "cpu_info/devmachine-kvm-proc-cpuinfo.txt",
            "cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt",
        ),
        other_kinds=(
            "ibstat/hpc-login-cx6-mt4123-hdr100.txt",
            "lspci/devmachine-kvm-lspci-vv.txt",
            "fio/fio333-randrw-normal.txt",
            "perftest/roce200g-ib_write_bw-a-report-gbits-sweep.txt",
        ),
        other_detect_below=1,
        other_error="no lscpu fields or /proc/cpuinfo",
        empty_inputs=("", "\n", "\x00\x00\x00", "kvm"),
        empty_error="no lscpu fields or /proc/cpuinfo",
        mutate=cut_and_splice(max_delete=80, swaps=("CPU(s): ", ":", "：", "processor : ")),
    ),
    Case(
        module=dmi,
        kind="dmi",
        samples=(
            "dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt",
            "dmi/insights-kvm-rhev-dmidecode3.0.txt",
            "dmi/insights-vmware-dmidecode2.12.txt",
            "dmi/insights-aws-xen-hvm-domu.txt",
            "dmi/insights-hp-proliant-old-dmidecode2.2-format.txt",
            "dmi/insights-no-smbios-fail.txt",
            "dmi/devmachine-container-dmidecode-no-dev-mem.txt",
        ),
        # The last two samples are dmidecode's own failures: nothing to mutate into a record.
        fuzz_samples=(
            "dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt",
            "dmi/insights-kvm-rhev-dmidecode3.0.txt",
            "dmi/insights-vmware-dmidecode2.12.txt",
            "dmi/insights-aws-xen-hvm-domu.txt",
            "dmi/insights-hp-proliant-old-dmidecode2.2-format.txt",
        ),
        other_kinds=(
            "ibstat/gpud-a100-ibstatus-hdr200-8ib-1eth.txt",
            "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
            "cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt",
            "fio/fio333-seqwrite-json.txt",
        ),
        other_detect_below=1,
        other_error="no DMI records found",
        empty_inputs=("", "\n\n", "\x00\x01\x02", "kvm\n"),
        empty_error="no DMI records found",
        mutate=cut_and_splice(
            max_delete=80,
            swaps=("Handle 0x1, DMI type ", "\tSize: ", "DMI type 1, 2 bytes."),
        ),
    ),
    Case(
        module=virt,
        kind="virt",
        samples=(
            "virt/devmachine-systemd-detect-virt-docker.txt",
            "virt/devmachine-systemd-detect-virt-vm-kvm.txt",
            "virt/devmachine-echoed-command-kvm.txt",
        ),
        other_kinds=(
            "ibstat/mlx4-cx3-fdr56-mt4099.txt",
            "lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt",
            "cpu_info/devmachine-kvm-lscpu-new-layout.txt",
            "dmi/insights-no-smbios-fail.txt",
            "fio/fio333-seqread-normal.txt",
            "perftest/roce100g-ib_write_bw-bidir-cpufreq-warning.txt",
        ),
        other_detect_below=1,
        other_error=None,
        empty_inputs=("", "  \n\n", "\x00\x00"),
        empty_error=None,
        mutate=insert_then_truncate,
        random_text=st.text(max_size=200),
        invariant=_virt_word_is_stripped,
    ),
    Case(
        module=fio,
        kind="fio",
        samples=(
            "fio/fio333-seqread-normal.txt",
            "fio/fio333-seqwrite-json.txt",
            "fio/fio333-randrw-normal.txt",
            "fio/fio333-randrw-json.txt",
            "fio/fio333-randrw-jsonplus.txt",
            "fio/fio333-4jobs-randread-nogroup-normal.txt",
            "fio/fio333-4jobs-randread-group-normal.txt",
            "fio/fio333-3jobs-randwrite-nogroup-json.txt",
            "fio/fio333-3jobs-randwrite-group-json.txt",
            "fio/fio333-seqread-normal-json.txt",
            "fio/fio333-two-groups-stonewall-normal-echoed.txt",
            "fio/fio333-two-groups-stonewall-json-echoed.txt",
        ),
        other_kinds=(
            "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt",
            "lspci/devmachine-kvm-lspci.txt",
            "cpu_info/devmachine-kvm-proc-cpuinfo.txt",
            "dmi/insights-aws-xen-hvm-domu.txt",
            "perftest/stmatengss-mlx4-ib_write_bw-a-sweep-mbps.txt",
        ),
        other_detect_below=1,
        other_error="no fio results found",
        empty_inputs=("", "\n", "\x00\x00\x01", "none"),
        empty_error="no fio results found",
        mutate=cut_and_splice(
            max_delete=200,
            swaps=('"bw_bytes" : -1,', "{\n", "IOPS=9.9k, BW=", '"jobs" : 3'),
        ),
    ),
    Case(
        module=perftest,
        kind="perftest",
        samples=(
            "perftest/roce100g-ib_write_bw-bidir-cpufreq-warning.txt",
            "perftest/stmatengss-mlx4-ib_write_bw-a-sweep-mbps.txt",
            "perftest/stmatengss-mlx4-ib_write_lat-a-latency.txt",
            "perftest/hdr200-ib_write_bw-a-mbps-cpufreq-warning-every-row.txt",
            "perftest/roce200g-ib_write_bw-a-report-gbits-sweep.txt",
        ),
        other_kinds=(
            "ibstat/gpud-h100-roce-cx7-some-down-polling.txt",
            "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
            "cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt",
            "dmi/insights-kvm-rhev-dmidecode3.0.txt",
            "fio/fio333-seqread-normal-json.txt",
        ),
        other_detect_below=1,
        other_error="no perftest report found",
        empty_inputs=("", "\n", "\x00\x00\xff", "kvm"),
        empty_error="no perftest report found",
        mutate=cut_and_splice(
            max_delete=120,
            swaps=(" 1e999 ", " -5 ", "BW peak[Gb/sec]", "\n 8 1 2\n", "----"),
        ),
    ),
]
IDS = [case.kind for case in CASES]


def _each(attribute: str) -> list[pytest.param]:
    """One pytest param per (case, item of ``case.<attribute>``), named ``kind-index``."""
    return [
        pytest.param(case, item, id=f"{case.kind}-{index}")
        for case in CASES
        for index, item in enumerate(getattr(case, attribute))
    ]


@pytest.mark.parametrize(("case", "path"), _each("samples"))
def test_every_sample_is_detected_as_its_kind(
    sample: Callable[[str], str], case: Case, path: str
) -> None:
    text = sample(path)
    assert case.module.detect(text) > 0
    assert registry.detect_kind(text) == case.kind


@pytest.mark.parametrize(("case", "path"), _each("other_kinds"))
def test_other_tools_are_rejected(sample: Callable[[str], str], case: Case, path: str) -> None:
    text = sample(path)
    assert case.module.detect(text) < case.other_detect_below
    if case.other_error == "":
        return
    with pytest.raises(EvidenceParseError, match=case.other_error):
        case.module.parse(text)


@pytest.mark.parametrize(("case", "text"), _each("empty_inputs"))
def test_empty_binary_or_foreign_text_is_a_clear_error(case: Case, text: str) -> None:
    if case.empty_detects_zero:
        assert case.module.detect(text) == 0
    with pytest.raises(EvidenceParseError, match=case.empty_error):
        case.module.parse(text)


@pytest.mark.parametrize(("case", "piece"), _each("long_line_pieces"))
def test_pathological_long_lines_stay_fast(
    parse_contract: ParseContract, case: Case, piece: str
) -> None:
    started = time.perf_counter()
    text = case.long_line_prefix + piece * (300000 // len(piece))
    parse_contract(case.module, case.kind, text, case.invariant)
    assert time.perf_counter() - started < 5


# 300 examples per parser: the most any parser's own module used before they were merged here.
_FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_FUZZ
@pytest.mark.parametrize("case", CASES, ids=IDS)
@given(data=st.data())
def test_fuzz_random_text(parse_contract: ParseContract, case: Case, data: st.DataObject) -> None:
    parse_contract(case.module, case.kind, data.draw(case.random_text), case.invariant)


@_FUZZ
@pytest.mark.parametrize("case", CASES, ids=IDS)
@given(data=st.data())
def test_fuzz_mutated_samples(
    sample: Callable[[str], str], parse_contract: ParseContract, case: Case, data: st.DataObject
) -> None:
    path = data.draw(st.sampled_from(case.fuzz_samples or case.samples))
    for text in case.mutate(data, sample(path)):
        parse_contract(case.module, case.kind, text, case.invariant)
