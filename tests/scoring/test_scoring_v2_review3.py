"""Issue #10, third expert pass: a container is no hypervisor; one self-managed rule.

Real samples: systemd-detect-virt inside Docker on a developer machine, dmidecode of a DGX A100
and a Dell XE8545, lscpu of a two-socket EPYC 7763 bare-metal host, lspci of an HGX H100 host.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scoring.evidence import parse_bytes
from scoring.ranking import rank
from scoring.rubric import load_rubric
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate
from scoring.verification.bare_metal import verify_bare_metal
from tests.scoring.scoring_factories import candidate, evaluation, offering

V2 = load_rubric("2")
SAMPLES = Path(__file__).parent / "evidence" / "samples"
DOCKER = "virt/devmachine-systemd-detect-virt-docker.txt"
KVM = "virt/devmachine-systemd-detect-virt-vm-kvm.txt"
PHYSICAL = (
    "dmi/dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt",
    "cpu_info/lscpu-amd-epyc7763-2s-baremetal-indented-wrapped.txt",
    "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
)


def parsed(rel: str, node: str = "gpu-01") -> NodeEvidence:
    result = parse_bytes((SAMPLES / rel).read_bytes())
    return NodeEvidence(node, 1, result.kind, result.metrics, rel, None)


CLAIMS = Claims(gpu_model="H100 SXM5 80GB", gpus_per_node=8, gpu_memory_gib=80, node_count=2)


def measured_of(evidence: list[NodeEvidence]):
    return measured_facts(verify_candidate(CLAIMS, evidence), evidence)


def test_the_physical_samples_alone_make_a_bare_metal_verdict():
    physical = [parsed(rel) for rel in PHYSICAL]
    assert verify_bare_metal(CLAIMS, physical).verdict == "bare_metal"


@pytest.mark.parametrize("with_physical", [False, True])
def test_a_container_on_a_physical_host_is_never_judged_virtualised(with_physical):
    evidence = [parsed(DOCKER)] + ([parsed(rel) for rel in PHYSICAL] if with_physical else [])
    verdict = verify_bare_metal(CLAIMS, evidence)
    assert verdict.verdict == "uncertain"
    assert verdict.virtual_score == 0.0
    assert "the collector ran in a container; the host shows no hypervisor" in (
        verdict.explanation_en
    )
    assert "采集器在容器中运行" in verdict.explanation_zh
    measured = measured_of(evidence)
    assert measured.delivery_form_seen is None
    for claimed in ("bare_metal", "passthrough_vm", "vgpu"):
        form, status = V2.delivery_form_check(
            claimed,
            measured.bare_metal_verdict,
            measured.bare_metal_confidence,
            measured.delivery_form_seen,
        )
        assert (form, status) == (claimed, "claimed")


def test_a_container_adds_nothing_to_a_hypervisor_and_never_names_the_form():
    # Docker inside a KVM guest: the VM is what was delivered, not the engineer's container.
    both = [parsed(KVM), parsed(DOCKER, "gpu-02")]
    alone = verify_bare_metal(CLAIMS, [parsed(KVM)])
    verdict = verify_bare_metal(CLAIMS, both)
    assert verdict.verdict == "virtualised"
    assert verdict.virtual_score == alone.virtual_score
    measured = measured_of(both)
    assert measured.delivery_form_seen == "virtualised"
    # A passthrough VM claim stands beside a hypervisor; the container does not refute it.
    assert V2.delivery_form_check(
        "passthrough_vm", "virtualised", measured.bare_metal_confidence, "virtualised"
    ) == ("passthrough_vm", "verified")


@pytest.mark.parametrize("with_physical", [False, True])
def test_a_bare_metal_claim_run_in_docker_keeps_its_rank_and_escapes_the_knockout(with_physical):
    evidence = [parsed(DOCKER)] + ([parsed(rel) for rel in PHYSICAL] if with_physical else [])
    measured = measured_of(evidence)
    spec = evaluation(required_total_gpus=128)
    bm = offering(delivery_form="bare_metal")
    docker = candidate(1, label="docker", offering=bm, measured=measured, node_count=16)
    plain = candidate(2, label="plain", offering=bm, node_count=16)
    by = {r.label: r for r in rank([docker, plain], spec, V2).results}
    assert not by["docker"].knockouts
    assert by["docker"].total == by["plain"].total


def test_mig_mode_is_no_hypervisor_signal():
    # MIG enabled on a physical A100 host plus a CPU count a little short of the claim (a
    # weak "held back" signal, 0.3) was a "virtualised" verdict (0.65): neither is a hypervisor.
    claims = Claims("A100", 8, 80, node_count=1, logical_cpus_per_node=256)
    evidence = [
        NodeEvidence("gpu-01", 1, "nvidia_smi_query", {"mig_mode": ["Enabled"]}, "q.txt", 1),
        NodeEvidence("gpu-01", 1, "cpu_info", {"logical_cpus": 224}, "lscpu.txt", 1),
    ]
    verdict = verify_bare_metal(claims, evidence)
    assert verdict.verdict == "uncertain"
    assert verdict.virtual_score == 0.3
    mig = next(s for s in verdict.signals if s.name == "mig_mode")
    assert mig.points_to == "context" and "no sign of a hypervisor" in mig.explanation_en
