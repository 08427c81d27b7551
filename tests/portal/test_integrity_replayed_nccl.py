"""A replayed nccl-tests output is flagged: the same all_reduce_perf.txt uploaded for another
candidate (as another node) shows, on both candidates' pages and integrity endpoints, the
upload of identical bytes (sha256) and the same nccl-tests run; a re-wrapped copy of the
run (other bytes, edited hostnames) is still the same run; and a 40 GB run uploaded for an
80 GB candidate is set aside as foreign, never judged."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from portal.models import Candidate, Offering, Vendor
from portal.services.evidence import evidence_import, evidence_submit
from scoring.fingerprint import extract

from .conftest import PASSWORD, sample_bytes

pytestmark = pytest.mark.django_db
NCCL = sample_bytes("nccl-h100-2node.txt")  # the OCI 2 x 8 x H100 run (inst-xxxxx-h100-ol89)
RUN = extract(NCCL.decode()).nccl_run[0]
A100_40GB_RUN = (
    Path(__file__).resolve().parents[2]
    / "fixtures/demo-evidence/2-a100-node-08/all_reduce_perf.txt"
)


def _upload(candidate, data: bytes, node: str, user, name="all_reduce_perf.txt"):
    upload, created = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile(name, data),
        node_name=node,
        user=user,
    )
    assert created
    evidence_import(upload_id=upload.pk, task_id=f"t{upload.pk}")
    upload.refresh_from_db()
    candidate.refresh_from_db()
    return upload


def _other_candidate(evaluation, **offering_fields) -> Candidate:
    vendor, _ = Vendor.objects.get_or_create(name="Replay Cloud")
    fields = {
        "name": "8x H100 again",
        "delivery_form": "bare_metal",
        "gpu_model": "NVIDIA H100 SXM5 80GB",
        "gpu_form_factor": "sxm",
        "gpus_per_node": 8,
        "gpu_memory_gib": 80,
        "nvlink_topology": "full_mesh",
        "fabric": "infiniband",
        "fabric_rate_gbit_s": 400,
        "nics_per_node": 8,
    } | offering_fields
    offering = Offering.objects.create(vendor=vendor, **fields)
    return Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)


def _integrity(user, candidate) -> dict:
    api = APIClient()
    api.force_login(user)
    return api.get(
        reverse(
            "api-candidate-integrity",
            kwargs={"evaluation_pk": candidate.evaluation_id, "candidate_pk": candidate.pk},
        )
    ).json()


def test_the_same_nccl_output_under_another_candidate_is_flagged_on_both(
    evaluation, candidate, members, client
):
    first = _upload(candidate, NCCL, "hgx-h100-node-01", members["engineer"])
    other = _other_candidate(evaluation)
    replay = _upload(other, NCCL, "other-node-77", members["engineer"])
    assert first.sha256 == replay.sha256
    assert replay.fingerprint["nccl_run"] == [RUN]
    # The hostnames are author-masked ("inst-xxxxx-…"): they identify nothing on their own.
    assert replay.fingerprint["nccl_host"] == []

    body = _integrity(members["viewer"], other)
    [reuse] = body["hardware_reuse"]
    assert reuse["candidate_id"] == candidate.pk and reuse["same_evaluation"] is True
    assert [(i["kind"], i["value"]) for i in reuse["identifiers"]] == [
        ("sha256", first.sha256),
        ("nccl_run", RUN),
    ]
    assert body["fingerprint"]["nccl_run"] == [RUN]
    [mine] = _integrity(members["viewer"], candidate)["hardware_reuse"]
    assert mine["candidate_id"] == other.pk

    client.login(username="viewer", password=PASSWORD)
    for shown, theirs in ((candidate, other), (other, candidate)):
        page = client.get(
            reverse(
                "candidate-detail", kwargs={"pk": shown.evaluation_id, "candidate_pk": shown.pk}
            )
        ).content.decode()
        assert "The same hardware appears under another candidate" in page
        assert theirs.offering.vendor.name in page
        assert first.sha256 in page and RUN in page


def test_a_rewrapped_copy_of_the_run_is_the_same_run(evaluation, candidate, members):
    _upload(candidate, NCCL, "hgx-h100-node-01", members["engineer"])
    other = _other_candidate(evaluation)
    # Other bytes: mpirun's tag before every line, the hostnames edited to a plausible node.
    disguised = "\n".join(
        "[1,0]<stdout>:" + line.replace("inst-xxxxx-h100-ol89", "bj-h100-node-077")
        for line in NCCL.decode().splitlines()
    ).encode()
    _upload(other, disguised, "other-node-77", members["engineer"])
    [reuse] = _integrity(members["viewer"], other)["hardware_reuse"]
    assert [(i["kind"], i["value"]) for i in reuse["identifiers"]] == [("nccl_run", RUN)]


def test_a_host_name_shared_alone_is_flagged_and_a_generic_one_is_not(
    evaluation, candidate, members
):
    # Two different runs (different tables) on one host whose name identifies it.
    a100 = sample_bytes("nccl-a100-8gpu.txt").decode()  # host inst-lscuv-ao-ub24, one row
    h100 = NCCL.decode().replace("inst-xxxxx-h100-ol89", "inst-lscuv-ao-ub24")
    _upload(candidate, h100.encode(), "hgx-h100-node-01", members["engineer"])
    other = _other_candidate(evaluation)
    _upload(other, a100.encode(), "other-node-77", members["engineer"])
    [reuse] = _integrity(members["viewer"], other)["hardware_reuse"]
    assert [(i["kind"], i["value"]) for i in reuse["identifiers"]] == [
        ("nccl_host", "inst-lscuv-ao-ub24")
    ]
    # Two other runs on hosts both called "localhost": no match.
    third = _other_candidate(evaluation, name="third")
    fourth = _other_candidate(evaluation, name="fourth")
    local = a100.replace("inst-lscuv-ao-ub24", "localhost")
    _upload(third, local.replace("305376", "111").encode(), "n1", members["engineer"])
    _upload(fourth, local.replace("305376", "222").encode(), "n1", members["engineer"])
    assert _integrity(members["viewer"], third)["hardware_reuse"] == []
    assert _integrity(members["viewer"], fourth)["hardware_reuse"] == []


def test_a_40gb_run_is_set_aside_for_an_80gb_candidate(evaluation, members):
    a100 = _other_candidate(
        evaluation,
        name="8x A100 80GB",
        gpu_model="NVIDIA A100-SXM4-80GB",
        fabric="roce",
        fabric_rate_gbit_s=200,
        nics_per_node=4,
    )
    _upload(a100, A100_40GB_RUN.read_bytes(), "a100-node-08", members["engineer"])
    busbw = a100.verification["busbw"]
    assert busbw["status"] == "unverifiable"
    assert (
        "ran on A100-SXM4-40GB, not the claimed NVIDIA A100-SXM4-80GB (40 GB, not 80 GB)"
        in (busbw["explanation_en"])
    )
    assert a100.verification["measured"]["busbw_fraction"] is None


def test_the_same_static_listing_on_two_candidates_is_no_replay(evaluation, candidate, members):
    # nvidia-smi topo -m prints the same bytes on every server of one board design.
    topo = sample_bytes("topo-a100-8gpu.txt")
    first = _upload(candidate, topo, "hgx-h100-node-01", members["engineer"], name="topo.txt")
    other = _other_candidate(evaluation)
    second = _upload(other, topo, "other-node-77", members["engineer"], name="topo.txt")
    assert first.status == second.status == "done" and first.sha256 == second.sha256
    assert _integrity(members["viewer"], other)["hardware_reuse"] == []
