"""Every measured fact a scoring rule reads carries the reference of the evidence it was read
from (upload, node, file), good findings too: a clean kernel log, every port up, no ECC error.
One test per fact kind, on the real sample outputs, then the explanation's evidence lines."""

from __future__ import annotations

from dataclasses import fields, replace
from pathlib import Path

import pytest

from scoring.api import score_candidate
from scoring.evidence import parse_bytes
from scoring.types import MeasuredFacts
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate

try:
    from scoring_factories import candidate, evaluation
except ImportError:  # pragma: no cover - when tests/scoring is a package
    from .scoring_factories import candidate, evaluation

SAMPLES = Path(__file__).parent / "evidence" / "samples"
# Not a measured figure of its own: the references themselves, and the tests' names list.
NOT_FIGURES = {"evidence_refs"}


def parsed(rel: str, node: str = "gpu-01", upload: int = 7) -> NodeEvidence:
    result = parse_bytes((SAMPLES / rel).read_bytes())
    return NodeEvidence(node, upload, result.kind, result.metrics, rel, None)


def claims(**overrides) -> Claims:
    base = {
        "gpu_model": "H100 SXM5 80GB",
        "gpus_per_node": 8,
        "gpu_memory_gib": 80,
        "gpu_form_factor": "sxm",
        "nvlink_topology": "full_mesh",
        "fabric": "roce",
        "fabric_rate_gbit_s": 200,
        "nics_per_node": 16,
        "node_count": 2,
    }
    base.update(overrides)
    return Claims(**base)


def facts_of(evidence: list[NodeEvidence], **claimed) -> MeasuredFacts:
    return measured_facts(verify_candidate(claims(**claimed), evidence), evidence)


def unreferenced(facts: MeasuredFacts) -> list[str]:
    """The figures measured (not None) with no evidence reference."""
    return [
        f.name
        for f in fields(MeasuredFacts)
        if f.name not in NOT_FIGURES
        and getattr(facts, f.name) is not None
        and not facts.ref(f.name)
    ]


def assert_refers_to(facts: MeasuredFacts, name: str, sample: str, upload: int = 7) -> None:
    ref = facts.ref(name)
    assert ref, f"{name} has no evidence reference"
    assert sample in ref and f"upload {upload}" in ref, ref


@pytest.mark.parametrize(
    "sample",
    [
        "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt",
        "nvidia_smi_query/microway-v100-pcie-q-driver410-single-double-bit.txt",
        "nvidia_smi_query/h200-vm-passthrough-driver550-q.txt",
        # Blackwell repair rows only (no Remapped Rows section): the memory facts read them.
        "nvidia_smi_query/kr-blog-q-d-ecc-driver595-rtxpro6000-1-of-4-shown-author-note.txt",
        "nvidia_smi_query/kr-isaac-notes-rtx5080-laptop-blackwell-q-driver580-unrepairable-na-remapped-na.txt",
    ],
)
def test_gpu_memory_health_figures_name_the_query_output(sample):
    facts = facts_of([parsed(sample)])
    read = [
        name
        for name in ("ecc_uncorrected", "remapped_rows_pending", "remapped_rows_failure")
        if getattr(facts, name) is not None
    ]
    assert read, "the sample prints none of the memory health figures"
    for name in read:
        assert_refers_to(facts, name, sample)
    assert unreferenced(facts) == []


def test_the_gpu_with_ecc_errors_is_the_one_named():
    clean = parsed("nvidia_smi_query/h200-vm-passthrough-driver550-q.txt", node="clean")
    faulty = parsed(
        "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt", node="faulty", upload=8
    )
    facts = facts_of([clean, faulty])
    if facts.ecc_uncorrected:
        assert "faulty" in facts.ref("ecc_uncorrected")


@pytest.mark.parametrize(
    "sample",
    [
        "kernel_log/gpud-pr338-dmesg-x-iso-sxid12028.txt",
        "kernel_log/bumblebee-issue677-dmesg-xid32-xid31.txt",
    ],
)
def test_kernel_log_figures_name_the_log_clean_or_not(sample):
    facts = facts_of([parsed(sample)])
    assert facts.xid_errors is not None
    for name in ("xid_errors", "xid_severity", "xid_nodes", "xid_node_share", "sxid_errors"):
        if getattr(facts, name) is not None:
            assert_refers_to(facts, name, sample)
    assert unreferenced(facts) == []


def test_a_clean_log_names_itself_on_a_node_that_shows_its_gpu_and_is_silent_alone():
    clean = "kernel_log/devmachine-kvm-dmesg-clean-boot-excerpt.txt"
    gpu = parsed("nvidia_smi_query/h200-vm-passthrough-driver550-q.txt", upload=8)
    facts = facts_of([parsed(clean), gpu])
    assert facts.xid_errors == 0
    assert_refers_to(facts, "xid_errors", clean)
    assert unreferenced(facts) == []
    # Alone, a log without a line of the NVIDIA driver says nothing about GPUs.
    alone = facts_of([parsed(clean)])
    assert (alone.xid_errors, alone.xid_severity, alone.sxid_errors) == (None, None, None)


@pytest.mark.parametrize("fabric", ["roce", "infiniband", "none"])
@pytest.mark.parametrize(
    "sample",
    [
        "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt",
        "ibstat/gpud-h100-roce-cx7-some-down-polling.txt",
        "ibstat/gpud-a100-ibstatus-hdr200-8ib-1eth.txt",
    ],
)
def test_fabric_port_figures_name_the_ibstat_output_all_up_or_not(sample, fabric):
    facts = facts_of([parsed(sample)], fabric=fabric)
    assert facts.ib_ports_down is not None and facts.ib_rate_gbit_s_min is not None
    assert facts.ref("ib_ports_down") and facts.ref("ib_rate_gbit_s_min")
    assert sample in facts.ref("ib_rate_gbit_s_min")
    assert unreferenced(facts) == []


@pytest.mark.parametrize(
    "sample",
    [
        "dcgm_diag/meta-gcm-dcgm2-r4-all-pass-blacklist.txt",
        "dcgm_diag/dcgm-3.3.9-r3-aws-4xa10g-targeted-power-fail-gpu1-info-rows.txt",
        "dcgm_diag/dcgm-issue253-4.2.3-pcie-fail-wrapped-warnings.txt",
    ],
)
def test_dcgm_figures_name_the_diagnostic(sample):
    facts = facts_of([parsed(sample)])
    assert facts.dcgm_overall is not None
    assert_refers_to(facts, "dcgm_overall", sample)
    assert_refers_to(facts, "dcgm_failed_tests", sample)
    assert unreferenced(facts) == []


@pytest.mark.parametrize(
    ("sample", "claimed"),
    [
        ("nccl_tests/oci-h100-2node-roce-nccl2215.txt", {}),
        ("nccl_tests/gcp-a3mega-2node-16rank-allreduce-npernode8.txt", {}),
        ("nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt", {"gpu_model": "A100 SXM4 40GB"}),
        (
            "nccl_tests/nccl-issue2169-h100-alltoall-v2.17.8-truncated.txt",
            {"node_count": 1, "gpus_per_node": 4},
        ),
    ],
)
def test_collective_figures_name_the_run_judged(sample, claimed):
    facts = facts_of([parsed(sample)], **claimed)
    read = [
        name
        for name in (
            "busbw_fraction",
            "peak_busbw_gbyte_s",
            "expected_busbw_gbyte_s",
            "busbw_nodes",
            "nvlink_busbw_fraction",
            "alltoall_busbw_gbyte_s",
            "alltoall_busbw_fraction",
            "allgather_busbw_gbyte_s",
            "allgather_busbw_fraction",
        )
        if getattr(facts, name) is not None
    ]
    assert read, "the run gave no collective figure"
    for name in read:
        assert_refers_to(facts, name, sample)
    assert unreferenced(facts) == []


def test_a_one_node_run_on_a_two_node_candidate_names_its_nvlink_figure():
    sample = "nccl_tests/oci-a100-1node-ubuntu-nccl2265.txt"
    facts = facts_of([parsed(sample)], gpu_model="A100 SXM4 40GB", node_count=2)
    assert facts.busbw_fraction is None and facts.nvlink_busbw_fraction is not None
    assert_refers_to(facts, "nvlink_busbw_fraction", sample)


@pytest.mark.parametrize(
    "samples",
    [
        # A KVM guest with GPUs (one without any is set aside: gpu_nodes.py).
        [
            "virt/devmachine-systemd-detect-virt-vm-kvm.txt",
            "lspci/rhelai-kvm-vm-4xh100-virtio-gpu.txt",
        ],
        ["virt/devmachine-systemd-detect-virt-docker.txt"],
        ["virt/systemd-issue21100-oracle-x3-2l-physical-says-oracle.txt"],
    ],
)
def test_delivery_form_figures_name_the_signal_they_rest_on(samples):
    facts = facts_of([parsed(s) for s in samples])
    assert facts.bare_metal_verdict is not None
    for name in ("bare_metal_verdict", "bare_metal_confidence", "delivery_form_seen"):
        if getattr(facts, name) is not None:
            ref = facts.ref(name)
            assert ref and any(s in ref for s in samples), (name, ref)
    assert unreferenced(facts) == []


def test_nvbandwidth_figure_names_its_run():
    sample = "nvbandwidth/nvbw-issue42-a100-h2d-sm-b512-v0.8.txt"
    facts = facts_of([parsed(sample)], node_count=1, gpus_per_node=1, gpu_model="A100 SXM4 40GB")
    assert facts.host_device_fraction is not None
    assert_refers_to(facts, "host_device_fraction", sample)
    assert unreferenced(facts) == []


def test_a_whole_node_bundle_leaves_no_figure_unreferenced():
    samples = [
        "nvidia_smi_query/mlengineering-a100-q-ecc-remapped-rows-xid63.txt",
        "kernel_log/devmachine-kvm-dmesg-clean-boot-excerpt.txt",
        "ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt",
        "dcgm_diag/meta-gcm-dcgm2-r4-all-pass-blacklist.txt",
        "nccl_tests/oci-h100-2node-roce-nccl2215.txt",
        "fio/fio333-seqread-normal-json.txt",
        "fio/fio333-seqwrite-json.txt",
        "virt/devmachine-systemd-detect-virt-vm-kvm.txt",
    ]
    facts = facts_of([parsed(s) for s in samples], fabric="infiniband", fabric_rate_gbit_s=400)
    assert unreferenced(facts) == []


def test_the_explanation_quotes_the_reference_of_a_clean_finding():
    """A rule that gives points for no port down and no ECC error says where it read that."""
    evidence = [
        parsed("ibstat/gpud-h100-ndr400-ib-all-active-spaces.txt"),
        parsed("kernel_log/devmachine-kvm-dmesg-clean-boot-excerpt.txt"),
    ]
    facts = facts_of(evidence, fabric="infiniband", fabric_rate_gbit_s=400)
    assert facts.ib_ports_down == 0
    scored = score_candidate(replace(candidate(), measured=facts), evaluation())
    lines = [
        c.as_dict()
        for dimension in scored.dimensions
        for c in dimension.contributions
        if any(
            str(i.get("fact") if isinstance(i, dict) else i).endswith("ib_ports_down")
            for i in (c.as_dict().get("inputs") or ())
        )
    ]
    assert lines, "no rule read measured.ib_ports_down"
    assert all("gpud-h100-ndr400-ib-all-active-spaces.txt" in str(line) for line in lines), lines
