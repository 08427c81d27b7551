"""Rubric v2, second expert review: refuted delivery forms, MIG by GPU model, Xid severity per
node and NVMe on the worst node. No database: verification and scoring are pure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.evidence import parse_bytes
from scoring.ranking import rank
from scoring.rubric import load_rubric
from scoring.types import DELIVERY_FORMS, MeasuredFacts, ScoringInputError
from scoring.types.inputs import normalise_mig_profile, parse_mig_layout
from scoring.verification import Claims, NodeEvidence, measured_facts, verify_candidate
from scoring.verification.health import XID_SEVERITY, xid_weight
from tests.scoring.scoring_factories import (
    candidate,
    candidates,
    evaluation,
    evaluations,
    offering,
)

V2 = load_rubric("2")
SAMPLES = Path(__file__).parent / "evidence" / "samples"
FORMS_BY_FAVOUR = ("bare_metal", "passthrough_vm", "mig", "vgpu", "container")


def ev(kind: str, metrics: dict[str, Any], node: str = "gpu-01", upload: int = 1) -> NodeEvidence:
    return NodeEvidence(node, upload, kind, metrics, f"{kind}.txt", 1)


def parsed(rel: str, node: str = "gpu-01", upload: int = 1) -> NodeEvidence:
    result = parse_bytes((SAMPLES / rel).read_bytes())
    return NodeEvidence(node, upload, result.kind, result.metrics, rel, None)


def claims(**overrides: Any) -> Claims:
    base: dict[str, Any] = {
        "gpu_model": "H100 SXM5 80GB",
        "gpus_per_node": 8,
        "gpu_memory_gib": 80,
        "gpu_form_factor": "sxm",
        "nvlink_topology": "full_mesh",
        "node_count": 2,
    }
    base.update(overrides)
    return Claims(**base)


def measured_of(evidence: list[NodeEvidence], **overrides: Any) -> MeasuredFacts:
    c = claims(**overrides)
    return measured_facts(verify_candidate(c, evidence), evidence)


def contribution(result, rule_id: str):
    for dimension in result.dimensions:
        for c in dimension.contributions:
            if c.rule_id == rule_id:
                return c
    raise KeyError(rule_id)


# --- 1. A refuted delivery form is strictly worse than the honest one -------------------------

HYPERVISOR = MeasuredFacts(
    bare_metal_verdict="virtualised", bare_metal_confidence=0.9, delivery_form_seen="virtualised"
)


def _seen(form: str) -> MeasuredFacts:
    return MeasuredFacts(
        bare_metal_verdict="virtualised", bare_metal_confidence=0.9, delivery_form_seen=form
    )


@pytest.fixture(scope="module")
def refuted_rankings():
    """Per (GPUs, workload): a bare-metal claim refuted by a hypervisor, beside honest
    declarations of every form with the same evidence and without evidence."""
    found = {}
    for gpus in (8, 16, 32, 64, 120):
        for workload in ("pretraining", "finetuning", "inference", "development"):
            nodes = gpus // 8
            cands = [candidate(1, label="refuted", node_count=nodes, measured=HYPERVISOR)]
            for i, form in enumerate(DELIVERY_FORMS[1:], start=2):
                cands.append(
                    candidate(
                        i,
                        label=f"{form}-same-evidence",
                        node_count=nodes,
                        offering=offering(delivery_form=form),
                        measured=HYPERVISOR,
                    )
                )
                cands.append(
                    candidate(
                        10 + i,
                        label=f"{form}-unmeasured",
                        node_count=nodes,
                        offering=offering(delivery_form=form),
                    )
                )
            spec = evaluation(required_total_gpus=gpus, workload_profile=workload)
            found[gpus, workload] = {r.label: r for r in rank(cands, spec, V2).results}
    return found


def test_a_refuted_bare_metal_claim_is_below_every_honest_form_below_128_gpus(refuted_rankings):
    for key, results in refuted_rankings.items():
        refuted = results["refuted"]
        for label, honest in results.items():
            if label == "refuted":
                continue
            assert refuted.total < honest.total, (key, label, refuted.total, honest.total)
            for dimension, score in refuted.scores.items():
                assert score <= honest.scores[dimension], (key, label, dimension)


@settings(max_examples=80, deadline=None)
@given(
    c=candidates(),
    spec=evaluations,
    seen=st.sampled_from(("virtualised", "passthrough_vm", "vgpu", "container")),
    confidence=st.floats(V2.bare_metal_min_confidence, 1.0),
)
def test_a_refuted_bare_metal_claim_never_reaches_the_honest_form(c, spec, seen, confidence):
    """Invariant: whatever else the candidate offers, claiming bare metal on nodes that show a
    hypervisor (with the confidence the rubric acts on) never totals more than declaring the
    form the evidence shows, and strictly less whenever the honest form's security score is
    above its floor: the misrepresentation deduction is taken from the security dimension,
    which cannot go below 0 (a vendor whose every compliance claim is contradicted already
    sits there, and the two then tie)."""
    from dataclasses import replace

    measured = replace(
        c.measured,
        bare_metal_verdict="virtualised",
        bare_metal_confidence=confidence,
        delivery_form_seen=seen,
    )
    honest_form = "container" if seen == "virtualised" else seen
    liar = replace(
        c,
        candidate_id=1,
        offering=replace(c.offering, delivery_form="bare_metal"),
        measured=measured,
    )
    honest = replace(
        c,
        candidate_id=2,
        offering=replace(c.offering, delivery_form=honest_form),
        measured=measured,
    )
    by = {r.candidate_id: r for r in rank([liar, honest], spec, V2).results}
    assert by[1].total <= by[2].total
    if by[2].score("security") > 0:
        assert by[1].total < by[2].total
    for dimension, score in by[1].scores.items():
        assert score <= by[2].scores[dimension]


def test_the_refuted_claim_is_explained_form_factor_and_deduction(refuted_rankings):
    refuted = refuted_rankings[32, "pretraining"]["refuted"]
    efficiency = contribution(refuted, "network.scale.delivery_efficiency")
    assert efficiency.inputs["answer.delivery_form"] == "contradicted"
    assert efficiency.inputs["factor"] == V2.status_factors["contradicted"]
    assert efficiency.points < 0
    for rule_id in ("security.isolation.delivery_form", "stability.isolation.delivery_form"):
        form = contribution(refuted, rule_id)
        assert form.inputs["derived.delivery_form"] == "container"
        # The least favourable form the evidence allows, at the contradicted factor.
        assert form.basis == "claimed"
        assert form.inputs["answer.delivery_form"] == "contradicted"
        assert form.inputs["factor"] == V2.status_factors["contradicted"]
        assert form.points < 0
    deduction = contribution(refuted, "security.trust.delivery_form_refuted")
    assert deduction.points < 0 and deduction.max_points == 0
    honest = refuted_rankings[32, "pretraining"]["container-same-evidence"]
    assert contribution(honest, "security.trust.delivery_form_refuted").points == 0


def test_a_form_a_node_contradicts_is_scored_as_the_form_shown():
    spec = evaluation(required_total_gpus=16, workload_profile="inference")
    for claimed in ("passthrough_vm", "vgpu"):
        for shown in FORMS_BY_FAVOUR[FORMS_BY_FAVOUR.index(claimed) + 1 :]:
            liar = candidate(
                1, label="liar", offering=offering(delivery_form=claimed), measured=_seen(shown)
            )
            honest = candidate(
                2, label="honest", offering=offering(delivery_form=shown), measured=_seen(shown)
            )
            by = {r.label: r for r in rank([liar, honest], spec, V2).results}
            assert by["liar"].total < by["honest"].total, (claimed, shown)
            form = contribution(by["liar"], "security.isolation.delivery_form")
            assert form.inputs["derived.delivery_form"] == shown


def test_the_tco_prices_a_refuted_claim_at_the_efficiency_of_the_form_shown():
    from scoring.tco import efficiency_for

    for shown in ("vgpu", "container"):
        liar = candidate(1, node_count=4, measured=_seen(shown))
        honest = candidate(
            2, node_count=4, offering=offering(delivery_form=shown), measured=_seen(shown)
        )
        spec = evaluation(required_total_gpus=32)
        assert efficiency_for(liar, V2, spec) == efficiency_for(honest, V2, spec)
        assert efficiency_for(liar, V2, spec) < efficiency_for(candidate(3, node_count=4), V2, spec)


def test_delivery_form_check_statuses():
    check = V2.delivery_form_check
    assert check("bare_metal", None, None) == ("bare_metal", "claimed")
    assert check("bare_metal", "virtualised", 0.3) == ("bare_metal", "claimed")  # not confident
    assert check("bare_metal", "bare_metal", 0.9) == ("bare_metal", "verified")
    assert check("bare_metal", "virtualised", 0.9) == ("container", "contradicted")
    assert check("bare_metal", "virtualised", 0.9, "vgpu") == ("vgpu", "contradicted")
    assert check("passthrough_vm", "virtualised", 0.9, "vgpu") == ("vgpu", "contradicted")
    assert check("vgpu", "virtualised", 0.9, "vgpu") == ("vgpu", "verified")
    # Evidence of a better form than claimed is no misrepresentation.
    assert check("container", "virtualised", 0.9, "passthrough_vm") == ("container", "verified")
    assert check("container", "bare_metal", 0.9) == ("container", "claimed")
    # MIG slices are handed out in containers or MIG-backed vGPU VMs.
    assert check("mig", "virtualised", 0.9, "container") == ("mig", "verified")
    assert check("mig", "virtualised", 0.9, "vgpu") == ("mig", "verified")


def test_the_efficiency_rule_is_gated_by_the_delivery_form_check_not_by_control():
    rule = V2.rule("network.scale.delivery_efficiency")
    assert rule.claim_item == "delivery_form"
    spec = evaluation(required_total_gpus=16)
    plain = candidate(1, label="plain")
    answered = candidate(2, label="answered", answers={"control": "verified"})
    verified = candidate(
        3,
        label="verified",
        measured=MeasuredFacts(
            bare_metal_verdict="bare_metal",
            bare_metal_confidence=0.9,
            delivery_form_seen="bare_metal",
        ),
    )
    by = {r.label: r for r in rank([plain, answered, verified], spec, V2).results}
    points = {k: contribution(r, rule.id).points for k, r in by.items()}
    # The control answer (a questionnaire status no node output can check) changes nothing;
    # the bare-metal verdict does: measured beats claimed.
    assert points["plain"] == points["answered"] < points["verified"] == rule.max_points


def test_verification_names_the_form_the_nodes_show():
    # A container is where the collector ran, not a hypervisor (review 3): no form, no verdict.
    docker = parsed("virt/devmachine-systemd-detect-virt-docker.txt")
    measured = measured_of([docker])
    assert measured.bare_metal_verdict == "uncertain"
    assert measured.delivery_form_seen is None
    passthrough = parsed("nvidia_smi_query/aws-a10g-vm-q-driver535-passthrough.txt")
    assert measured_of([passthrough]).delivery_form_seen == "passthrough_vm"
    assert measured_of([passthrough]).ref("delivery_form_seen")
    # The least favourable node decides; a container on the other node names no form.
    both = [passthrough, parsed("virt/devmachine-systemd-detect-virt-docker.txt", "gpu-02")]
    assert measured_of(both).delivery_form_seen == "passthrough_vm"
    kvm = parsed("virt/devmachine-systemd-detect-virt-vm-kvm.txt")
    assert measured_of([kvm]).delivery_form_seen == "virtualised"
    assert measured_of([]).delivery_form_seen is None


# --- 2. MIG judged by the GPU model, instances per GPU checked ------------------------------


@pytest.mark.parametrize(
    ("model", "profile", "fraction"),
    [
        ("NVIDIA A100-SXM4-80GB", "3g.40gb", 3 / 7),
        ("NVIDIA A100 40GB PCIe", "2x3g.20gb", 3 / 7),
        ("NVIDIA H100 PCIe", "7x1g.10gb", 1 / 8),  # memory is the scarcer share
        ("NVIDIA GH200 96GB HBM3", "1g.12gb", 1 / 8),
        ("NVIDIA H200", "2x3g.71gb", 3 / 7),  # NVIDIA rounds 70.5 GB up to 71
        ("NVIDIA A30", "2x2g.12gb", 2 / 4),  # the A30 has 4 compute slices
    ],
)
def test_mig_fractions_by_the_matched_gpu(model, profile, fraction):
    assert V2.gpu_fraction(model, profile) == pytest.approx(fraction)


@pytest.mark.parametrize(
    ("model", "profile", "message"),
    [
        ("NVIDIA A10", "1g.6gb", "read as NVIDIA A10 24GB"),  # "a10" is a substring of "a100"
        ("NVIDIA L40S", "1g.6gb", "Ampere-or-newer"),
        ("NVIDIA A40", "1g.6gb", "Ampere-or-newer"),
        ("Some GPU", "1g.6gb", "Ampere-or-newer"),
        ("NVIDIA A30", "3g.12gb", "1, 2, 4 compute slices"),
        ("NVIDIA A30", "5x1g.6gb", "at most 4 MIG instances"),
        ("NVIDIA A100-SXM4-80GB", "8x1g.10gb", "at most 7 MIG instances"),
        ("NVIDIA A100-SXM4-80GB", "2x4g.40gb", "need 8 slices"),
        ("NVIDIA A100-SXM4-80GB", "3x2g.40gb", "more memory than the whole GPU"),
        ("NVIDIA A100-SXM4-40GB", "3g.80gb", "more memory than the whole GPU"),
    ],
)
def test_impossible_mig_layouts_are_refused_with_the_reason(model, profile, message):
    with pytest.raises(ScoringInputError, match=message):
        V2.gpu_fraction(model, profile)


def test_a_mig_profile_with_instances_parses_and_normalises():
    assert parse_mig_layout("3g.40gb") == (None, 3, 40)
    assert parse_mig_layout("2 × 3G.40GB") == (2, 3, 40)
    assert normalise_mig_profile(" 2 X 3g.40gb+me ") == "2x3g.40gb+me"
    assert offering(delivery_form="mig", mig_profile="2 x 3g.40gb").mig_profile == "2x3g.40gb"
    with pytest.raises(ScoringInputError, match="looks like"):
        parse_mig_layout("2x")


# --- 3. Xid by severity, per node ---------------------------------------------------------------


def test_xid_weights_follow_the_catalogue():
    for hardware in (48, 64, 74, 79, 95, 119, 120):
        assert XID_SEVERITY[hardware] == 1.0
    for attention in (63, 92, 94):
        assert XID_SEVERITY[attention] == 0.5
    for application in (13, 31, 43):
        assert XID_SEVERITY[application] == 0.1
    assert xid_weight(999) == 0.5  # unknown: neither clean nor proven fatal


def test_a_node_falling_off_the_bus_weighs_more_than_many_application_faults():
    app = [ev("kernel_log", {"xid_count": 12, "sxid_count": 0, "xid_codes": [13, 31, 43]})]
    bus = [ev("kernel_log", {"xid_count": 1, "sxid_count": 0, "xid_codes": [79]})]
    app_facts, bus_facts = measured_of(app), measured_of(bus)
    assert app_facts.xid_errors > bus_facts.xid_errors  # the v1 count has it backwards
    assert app_facts.xid_severity == pytest.approx(0.3)
    assert bus_facts.xid_severity == 1.0
    rule = V2.rule("stability.measured.xid_severity")
    assert rule.table.points(app_facts.xid_severity) > rule.table.points(bus_facts.xid_severity)
    assert (app_facts.xid_nodes, bus_facts.xid_nodes) == (0, 1)


def test_repeated_lines_count_once_per_gpu_and_the_worst_node_is_named():
    # journalctl: Xid 45 eight times on four GPUs (application class).
    many = parsed("kernel_log/ogkm-issue1150-journal-xid45-after-149-145.txt", "gpu-01")
    clean = parsed("kernel_log/devmachine-kvm-dmesg-clean-boot-excerpt.txt", "gpu-02")
    # gpu-02 shows its GPU (nvidia-smi -q): its clean log counts as a clean GPU node.
    gpu = parsed("nvidia_smi_query/gcp-a3-h100-vm-pod-q-passthrough-driver535.txt", "gpu-02", 9)
    facts = measured_of([many, clean, gpu])
    assert facts.xid_errors == 8
    assert facts.xid_severity == pytest.approx(0.4)  # 4 GPUs x 0.1, not 8 lines
    assert facts.xid_node_share == 0.0
    hardware = ev(
        "kernel_log",
        {
            "xid_count": 3,
            "sxid_count": 0,
            "xid_codes": [79],
            "events": [{"type": "xid", "code": 79, "pci": "0000:1b:00"}] * 3,
        },
        node="gpu-03",
    )
    facts = measured_of([many, clean, gpu, hardware], node_count=3)
    assert facts.xid_severity == 1.0
    assert "gpu-03" in facts.ref("xid_severity") and "Xid 79" in facts.ref("xid_severity")
    assert (facts.xid_nodes, facts.xid_node_share) == (1, pytest.approx(1 / 3, abs=0.001))
    again = measured_of([hardware, gpu, clean, many], node_count=3)  # the order does not matter
    assert (again.xid_severity, again.ref("xid_severity")) == (1.0, facts.ref("xid_severity"))


def test_nvswitch_sxid_lines_are_scored_fatal_above_non_fatal():
    non_fatal = parsed("kernel_log/gpud-pr338-dmesg-x-iso-sxid12028.txt")
    assert measured_of([non_fatal]).xid_severity == 0.25
    fatal = ev(
        "kernel_log",
        {
            "xid_count": 0,
            "sxid_count": 1,
            "sxid_codes": [24007],
            "sxid_fatal_count": 1,
            "events": [{"type": "sxid", "code": 24007, "pci": "0000:05:00.0", "fatal": True}],
        },
    )
    facts = measured_of([fatal])
    assert facts.xid_severity == 1.0 and facts.xid_nodes == 1
    assert "SXid 24007 fatal" in facts.ref("xid_severity")
    report = verify_candidate(claims(), [fatal])
    (fault,) = [f for f in report.faults if f.kind == "xid_errors"]
    assert fault.severity == "error" and fault.details["sxid_fatal"] == 1


def test_a_clean_log_earns_the_xid_rules_and_no_log_leaves_them_unknown():
    log = parsed("kernel_log/devmachine-kvm-dmesg-clean-boot-excerpt.txt")
    # The clean log of a node that shows its GPU (here nvidia-smi -q on the same node).
    gpu = parsed("nvidia_smi_query/gcp-a3-h100-vm-pod-q-passthrough-driver535.txt", upload=2)
    clean = measured_of([log, gpu])
    assert (clean.xid_severity, clean.xid_nodes, clean.xid_node_share) == (0.0, 0, 0.0)
    assert measured_of([]).xid_severity is None
    spec = evaluation(required_total_gpus=16)
    results = rank(
        [candidate(1, label="clean", measured=clean), candidate(2, label="none")], spec, V2
    ).results
    by = {r.label: r for r in results}
    for rule_id in ("stability.measured.xid_severity", "stability.measured.xid_node_share"):
        assert contribution(by["clean"], rule_id).points == V2.rule(rule_id).max_points
        assert contribution(by["none"], rule_id).basis == "missing"


# --- 4. NVMe on the worst node ------------------------------------------------------------------


def _fio(read_mbyte_s: float, node: str) -> NodeEvidence:
    job = {"name": "seq", "rw": "read", "bs_bytes": 1048576, "iodepth": 32, "numjobs": 1}
    job.update({"direct": True, "ioengine": "libaio", "runtime_s": 60.0})
    metrics = {"jobs": [{**job, "read_bw_mbyte_s": read_mbyte_s}], "disks": ["nvme0n1"]}
    return ev("fio", metrics, node=node)


def test_nvme_bandwidth_is_the_worst_nodes_and_names_it():
    evidence = [_fio(6800.0, "gpu-01"), _fio(2100.0, "gpu-02"), _fio(6700.0, "gpu-03")]
    facts = measured_of(evidence, nvme_read_gbyte_s=6.8, node_count=3)
    assert facts.nvme_read_mbyte_s == 2100.0
    assert "gpu-02" in facts.ref("nvme_read_mbyte_s")
    assert measured_of(list(reversed(evidence)), nvme_read_gbyte_s=6.8, node_count=3) == facts


def test_several_jobs_on_one_node_count_its_best_and_many_nodes_the_5th_percentile():
    tuned = [_fio(3000.0, "gpu-01"), _fio(6500.0, "gpu-01"), _fio(6400.0, "gpu-02")]
    assert measured_of(tuned, nvme_read_gbyte_s=6.8).nvme_read_mbyte_s == 6400.0
    # 40 nodes: the 5th percentile (2nd worst) judges, so one node a reboot fixes does not.
    fleet = [_fio(6000.0 + i, f"gpu-{i:02d}") for i in range(38)]
    fleet += [_fio(900.0, "gpu-98"), _fio(5000.0, "gpu-99")]
    facts = measured_of(fleet, nvme_read_gbyte_s=6.8, node_count=40)
    assert facts.nvme_read_mbyte_s == 5000.0 and "gpu-99" in facts.ref("nvme_read_mbyte_s")
