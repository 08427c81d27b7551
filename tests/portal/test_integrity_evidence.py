"""Evidence you can trace to a node: the bundle's nonce must be its upload token's (else
"unverified origin": shown, never used), page uploads are "uploaded by hand" with the user, node
fingerprints are read and the same hardware under another candidate is flagged on both, old
evidence is flagged and not used, and the decision snapshot lists only the evidence used."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from portal.models import Candidate, Evaluation, Measurement, Membership, Role, Vendor
from portal.services.evaluations import decision_record
from portal.services.evidence import evidence_import, evidence_submit
from portal.services.scores import usable_uploads
from portal.services.tokens import upload_token_create
from scoring.fingerprint import extract, extract_all, measured_at

from .conftest import PASSWORD, make_bundle, sample_bytes, small_offering

pytestmark = pytest.mark.django_db
SAMPLES = Path(__file__).resolve().parents[1] / "scoring" / "evidence" / "samples"
UUID = "GPU-11111111-2222-3333-4444-555555555555"
NVSMI_L = f"GPU 0: NVIDIA H100 80GB HBM3 (UUID: {UUID})\n".encode()
IP_LINK = (
    b"2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP\n"
    b"    link/ether 04:3f:72:aa:bb:cc brd ff:ff:ff:ff:ff:ff\n"
    b"3: docker0: <NO-CARRIER,BROADCAST,MULTICAST,UP> mtu 1500\n"
    b"    link/ether 02:42:ac:11:00:02 brd ff:ff:ff:ff:ff:ff\n"
)


def node_bundle(nonce, *, hostname="gpu-node-01", extra=None) -> bytes:
    return make_bundle(
        {
            "nccl.txt": sample_bytes("nccl-h100-2node.txt"),
            "nvidia-smi-L.txt": NVSMI_L,
            "ip-link.txt": IP_LINK,
            **(extra or {}),
        },
        hostname=hostname,
        nonce=nonce,
    )


def _import(candidate, data, *, token=None, user=None, name="bundle.tar.gz"):
    upload, created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile(name, data), token=token, user=user
    )
    assert created
    evidence_import(upload_id=upload.pk, task_id=f"t{upload.pk}")
    upload.refresh_from_db()
    candidate.refresh_from_db()
    return upload


# --- the pure extraction (scoring/fingerprint.py) ---------------------------------------------


def test_fingerprints_are_read_where_the_tools_print_them():
    query = (SAMPLES / "nvidia_smi_query" / "aws-a10g-vm-q-driver535-passthrough.txt").read_text()
    found = extract(query)
    assert found.gpu_uuid == ("GPU-5468ba27-3fa8-325a-92f3-2fb0645c07cf",)
    assert found.gpu_serial == ("1654321021062",)
    dmi = (SAMPLES / "dmi" / "dmidecode-t1-dgxa100-and-dell-xe8545-physical.txt").read_text()
    assert set(extract(dmi).system_serial) == {"1571620610013", "DW4SFT3"}
    ib = extract(sample_bytes("ibstat-roce-some-down.txt").decode())
    assert "e8ebd303003307a2" in ib.hca_guid and all(len(g) == 16 for g in ib.hca_guid)
    links = extract(IP_LINK.decode())
    assert links.mac == ("04:3f:72:aa:bb:cc",)  # docker0's locally administered MAC is noise


def test_placeholders_and_masked_values_identify_nothing():
    text = (
        "System Information\n\tSerial Number: Not Specified\n"
        "Base Board Information\n\tSerial Number: To Be Filled By O.E.M.\n"
        "    GPU UUID : GPU-4965xxxx-79e3-7941-12cb-1dfe9c53xxxx\n"
        "\tPort GUID: 0x0000000000000000\n"
    )
    assert not extract(text)
    assert not extract_all(["nothing here", ""])


def test_the_measurement_time_is_read_from_the_output():
    query = (SAMPLES / "nvidia_smi_query" / "aws-a10g-vm-q-driver535-passthrough.txt").read_text()
    assert measured_at(query).isoformat() == "2025-05-22T04:10:23+00:00"
    assert measured_at("no time here") is None


# --- the nonce --------------------------------------------------------------------------------


def test_a_bundle_with_its_tokens_nonce_is_collector_evidence_and_used(candidate, upload_token):
    token, _raw = upload_token
    upload = _import(candidate, node_bundle(token.nonce), token=token)
    assert upload.origin == "collector"
    assert upload.fingerprint["gpu_uuid"] == [UUID]
    assert upload in usable_uploads(candidate)
    assert candidate.verification["measured"]["peak_busbw_gbyte_s"] is not None


@pytest.mark.parametrize("nonce", ["0" * 32, None])
def test_a_wrong_or_missing_nonce_is_unverified_shown_and_never_used(
    candidate, upload_token, members, client, nonce
):
    token, _raw = upload_token
    upload = _import(candidate, node_bundle(nonce), token=token)
    assert upload.status == "done" and upload.origin == "unverified"
    assert usable_uploads(candidate) == []
    assert candidate.verification["measured"]["peak_busbw_gbyte_s"] is None
    assert Measurement.objects.filter(upload=upload).exists()  # kept and shown
    client.login(username="viewer", password=PASSWORD)
    page = client.get(
        reverse(
            "candidate-detail", kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk}
        )
    ).content.decode()
    assert "Unverified origin" in page
    api = APIClient()
    api.force_login(members["viewer"])
    body = api.get(
        reverse(
            "api-upload-detail",
            kwargs={"evaluation_pk": candidate.evaluation_id, "upload_pk": upload.pk},
        )
    ).json()
    assert body["origin"] == "unverified"


def test_a_page_upload_is_labelled_uploaded_by_hand_with_the_user(candidate, members, client):
    client.login(username="engineer", password=PASSWORD)
    response = client.post(
        reverse("api-evidence-upload"),
        {
            "file": SimpleUploadedFile("all_reduce.txt", sample_bytes("nccl-a100-8gpu.txt")),
            "candidate": candidate.pk,
        },
    )
    assert response.status_code == 202, response.content
    evidence_import(upload_id=response.json()["id"], task_id="t")
    page = client.get(
        reverse(
            "candidate-detail", kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk}
        )
    ).content.decode()
    assert "Uploaded by hand by engineer" in page
    candidate.refresh_from_db()
    assert [u.origin for u in usable_uploads(candidate)] == ["by_hand"]


# --- reused hardware --------------------------------------------------------------------------


def test_the_same_hardware_under_another_candidate_is_flagged_on_both(
    candidate, upload_token, members, client
):
    token, _raw = upload_token
    _import(candidate, node_bundle(token.nonce), token=token)
    other_vendor = Vendor.objects.create(name="Borrowing Cloud")
    other_eval = Evaluation.objects.create(
        name="Another tender", workload_profile="inference", required_total_gpus=1, duration_days=5
    )
    Membership.objects.create(evaluation=other_eval, user=members["viewer"], role=Role.VIEWER)
    other = Candidate.objects.create(
        evaluation=other_eval, offering=small_offering(other_vendor), node_count=1
    )
    other_token, _ = upload_token_create(candidate=other, created_by=members["procurement"])
    _import(other, node_bundle(other_token.nonce, hostname="their-node"), token=other_token)

    client.login(username="viewer", password=PASSWORD)
    for mine, theirs in ((candidate, other), (other, candidate)):
        page = client.get(
            reverse("candidate-detail", kwargs={"pk": mine.evaluation_id, "candidate_pk": mine.pk})
        ).content.decode()
        assert "The same hardware appears under another candidate" in page
        assert str(theirs.offering.vendor.name) in page and UUID.lower()[4:] in page.lower()
        assert f"evaluation “{theirs.evaluation.name}”" in page  # the viewer is in both
    api = APIClient()
    api.force_login(members["viewer"])
    body = api.get(
        reverse(
            "api-candidate-integrity",
            kwargs={"evaluation_pk": other_eval.pk, "candidate_pk": other.pk},
        )
    ).json()
    [reuse] = body["hardware_reuse"]
    assert reuse["candidate_id"] == candidate.pk and reuse["vendor"] == "Test Vendor"
    # Both bundles carry the same nccl-tests output: the same run as well as the same GPU and NIC.
    assert {i["kind"] for i in reuse["identifiers"]} == {"gpu_uuid", "mac", "nccl_run"}
    assert body["fingerprint"]["mac"] == ["04:3f:72:aa:bb:cc"]


def test_reuse_under_an_evaluation_the_viewer_is_not_in_names_only_the_vendor(
    candidate, upload_token, members, client, make_user
):
    """A security review: a member of one evaluation who uploaded another's node (or a serial
    they wanted to ask about) read the other evaluation's name and id, its candidate and
    vendor on the candidate page and the integrity API, and the other evaluation's members
    read theirs. The reuse is still flagged both ways, by vendor (the catalogue every user
    reads); who else evaluates what is told to its own members only."""
    token, _raw = upload_token
    _import(candidate, node_bundle(token.nonce), token=token)
    secret = Evaluation.objects.create(
        name="Secret tender 7", workload_profile="inference", required_total_gpus=1, duration_days=5
    )
    outsider = make_user("rival-buyer")
    Membership.objects.create(evaluation=secret, user=outsider, role=Role.PROCUREMENT)
    theirs = Candidate.objects.create(
        evaluation=secret,
        offering=small_offering(Vendor.objects.create(name="Borrowing Cloud")),
        node_count=1,
    )
    their_token, _ = upload_token_create(candidate=theirs, created_by=outsider)
    _import(theirs, node_bundle(their_token.nonce, hostname="their-node"), token=their_token)

    pages = {}
    for user, mine, other in (
        (members["viewer"], candidate, theirs),
        (outsider, theirs, candidate),
    ):
        client.force_login(user)
        page = client.get(
            reverse("candidate-detail", kwargs={"pk": mine.evaluation_id, "candidate_pk": mine.pk})
        ).content.decode()
        pages[user.username] = page
        assert "The same hardware appears under another candidate" in page
        assert "in an evaluation you are not a member of" in page
        assert other.offering.vendor.name in page and UUID.lower()[4:] in page.lower()
        assert other.evaluation.name not in page and str(other) not in page
        api = APIClient()
        api.force_login(user)
        body = api.get(
            reverse(
                "api-candidate-integrity",
                kwargs={"evaluation_pk": mine.evaluation_id, "candidate_pk": mine.pk},
            )
        ).json()
        [reuse] = body["hardware_reuse"]
        assert reuse["visible"] is False and reuse["vendor"] == other.offering.vendor.name
        assert reuse["candidate_id"] is reuse["evaluation_id"] is None
        assert reuse["candidate"] == reuse["evaluation"] == ""
        assert other.evaluation.name not in json.dumps(body, ensure_ascii=False)
        assert {i["kind"] for i in reuse["identifiers"]} == {"gpu_uuid", "mac", "nccl_run"}
    client.force_login(outsider)
    client.cookies["django_language"] = "zh-hans"
    chinese = client.get(
        reverse("candidate-detail", kwargs={"pk": secret.pk, "candidate_pk": theirs.pk})
    ).content.decode()
    assert "Test Vendor" in chinese and "你不是其成员的评估" in chinese


# --- freshness --------------------------------------------------------------------------------


def test_evidence_older_than_the_evaluation_allows_is_flagged_and_not_used(
    candidate, upload_token, client
):
    evaluation = candidate.evaluation
    evaluation.max_evidence_age_days = 30
    evaluation.save()
    token, _raw = upload_token
    old_query = (
        SAMPLES / "nvidia_smi_query" / "aws-a10g-vm-q-driver535-passthrough.txt"
    ).read_bytes()
    upload = _import(
        candidate, node_bundle(token.nonce, extra={"nvidia-smi-q.txt": old_query}), token=token
    )
    assert upload.measured_at.year == 2025
    assert (
        Measurement.objects.filter(upload=upload, source_file="nvidia-smi-q.txt")
        .first()
        .measured_at.year
        == 2025
    )
    assert upload.is_stale and usable_uploads(candidate) == []
    client.login(username="viewer", password=PASSWORD)
    page = client.get(
        reverse("candidate-detail", kwargs={"pk": evaluation.pk, "candidate_pk": candidate.pk})
    ).content.decode()
    assert "Too old (measured 2025-05-22): not used" in page
    evaluation.max_evidence_age_days = None
    evaluation.save()
    candidate.refresh_from_db()
    assert usable_uploads(candidate) == [upload]


# --- the snapshot -----------------------------------------------------------------------------


def test_the_snapshot_lists_only_the_evidence_used_with_hashes_and_fingerprints(
    candidate, upload_token, members
):
    token, _raw = upload_token
    used = _import(candidate, node_bundle(token.nonce), token=token)
    unverified = _import(candidate, node_bundle("f" * 32, hostname="n2"), token=token)
    failed = _import(candidate, b"not evidence at all", name="junk.txt")
    assert failed.status == "failed"
    record = decision_record(
        evaluation=candidate.evaluation, candidate=candidate, rationale="x", by=members["manager"]
    )
    [entry] = record.snapshot["evidence"]
    assert entry["upload_id"] == used.pk and entry["sha256"] == used.sha256
    assert entry["origin"] == "collector" and entry["fingerprint"]["gpu_uuid"] == [UUID]
    assert unverified.pk not in {e["upload_id"] for e in record.snapshot["evidence"]}
    # Traceable to a node and a sender without the upload row (it may be deleted once the
    # evaluation is reopened): the node, the token, and the bundle's files that gave figures.
    assert entry["node_name"] == used.node_name != ""
    assert entry["token"] == {"id": token.pk, "label": token.label, "node_name": token.node_name}
    measured = set(
        Measurement.objects.filter(upload=used).values_list("source_file", "kind").distinct()
    )
    assert {(f["file"], f["kind"]) for f in entry["files"]} == measured and measured
    page = Client()
    page.force_login(members["manager"])
    shown = page.get(reverse("evaluation-decision", args=[candidate.evaluation.pk]))
    assert f"node {used.node_name}" in shown.content.decode()


def test_the_same_hardware_under_two_node_names_of_one_candidate_is_flagged(
    candidate, members, client
):
    """One node's evidence sent again under another name is named (auditor review of stop 33:
    copies of a good node under new names diluted a bad node's errors); run identifiers
    (nccl-tests hosts and runs) name a run, not a part, and are left out."""
    from portal.services.fingerprints import node_name_reuse

    for hostname in ("gpu-node-01", "gpu-node-07"):
        token, _raw = upload_token_create(candidate=candidate, created_by=members["procurement"])
        upload = _import(candidate, node_bundle(token.nonce, hostname=hostname), token=token)
        assert upload.status == "done" and upload.node_name == hostname
    found = node_name_reuse(candidate)
    assert [(r["kind"], r["nodes"]) for r in found] == [
        ("gpu_uuid", ["gpu-node-01", "gpu-node-07"]),
        ("mac", ["gpu-node-01", "gpu-node-07"]),
    ]
    client.login(username="viewer", password=PASSWORD)
    url = reverse(
        "candidate-detail", kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk}
    )
    page = client.get(url).content.decode()
    assert "The same hardware appears under more than one node name" in page
    assert "<code>gpu-node-07</code>" in page
    page_zh = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "同一硬件出现在多个节点名下" in page_zh
    api = APIClient()
    api.force_login(members["viewer"])
    body = api.get(
        reverse(
            "api-candidate-integrity",
            kwargs={"evaluation_pk": candidate.evaluation_id, "candidate_pk": candidate.pk},
        )
    ).json()
    assert [r["value"] for r in body["node_name_reuse"]] == [r["value"] for r in found]


def test_one_node_uploaded_twice_under_its_own_name_is_not_flagged(candidate, members):
    from portal.services.fingerprints import node_name_reuse

    for _ in range(2):
        token, _raw = upload_token_create(candidate=candidate, created_by=members["procurement"])
        _import(candidate, node_bundle(token.nonce, hostname="gpu-node-01"), token=token)
    assert node_name_reuse(candidate) == []
