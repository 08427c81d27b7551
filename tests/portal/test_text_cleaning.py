"""Bidi overrides and control characters are taken out of untrusted text where it enters
(security review): node names from manifests, uploads and tokens, and the names people type
for evaluations, vendors, offerings, workloads, PoC nodes and upload tokens."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from portal.models import Candidate, Evaluation, EvidenceUpload, Measurement, Offering, Vendor
from portal.services.evidence import evidence_import, evidence_submit
from portal.services.tokens import upload_token_create

from .conftest import make_bundle, sample_bytes

pytestmark = pytest.mark.django_db

RLO, PDF, LRI, PDI = "\u202e", "\u202c", "\u2066", "\u2069"
# Shown as "gpu-node-exe.txt" once the override reverses the end.
SPOOFED = f"gpu-node-{RLO}txt.exe{PDF}"
HOSTILE = f"Acme{RLO} Cloud{PDF}\x00\x07{LRI}x{PDI}\x9b"
CLEAN = "Acme Cloudx"


@pytest.mark.parametrize(
    ("raw", "single", "multi"),
    [
        (HOSTILE, CLEAN, CLEAN),
        ("a\tb\nc\r\nd", "a b c  d", "a\tb\nc\r\nd"),
        ("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069", "", ""),
        ("x\x7f\x85\x1b[31my", "x [31my", "x[31my"),
        ("lone \ud800 surrogate", "lone  surrogate", "lone  surrogate"),
        # Letters of any script, emoji with their joiners, the marks a right-to-left script
        # uses and the ideographic space stay.
        ("瀚海算力\u3000👩\u200d💻 \u200fعربي", "瀚海算力\u3000👩\u200d💻 \u200fعربي", None),
    ],
)
def test_clean_text_drops_controls_and_bidi_overrides(raw, single, multi):
    from portal.services.text import clean_text

    assert clean_text(raw) == single
    assert clean_text(raw, multiline=True) == (single if multi is None else multi)


def _upload(candidate, data, *, name="bundle.tar.gz", **kwargs):
    upload, created = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile(name, data), **kwargs
    )
    assert created
    evidence_import(upload_id=upload.pk, task_id=f"t-{upload.pk}")
    return EvidenceUpload.objects.get(pk=upload.pk)


def test_a_manifest_hostname_is_stored_without_its_override(candidate):
    data = make_bundle({"nccl.txt": sample_bytes("nccl-a100-8gpu.txt")}, hostname=SPOOFED)
    upload = _upload(candidate, data)
    assert upload.status == "done", upload.error
    assert upload.node_name == "gpu-node-txt.exe"
    nodes = set(Measurement.objects.filter(upload=upload).values_list("node_name", flat=True))
    assert nodes == {"gpu-node-txt.exe"}


def test_a_node_name_sent_with_an_upload_and_its_file_name_are_cleaned(candidate):
    upload = _upload(
        candidate,
        sample_bytes("nccl-a100-8gpu.txt"),
        name=f"nccl{RLO}txt.exe",
        node_name=f" {SPOOFED}\n",
    )
    assert upload.node_name == "gpu-node-txt.exe"
    assert upload.original_name == "nccltxt.exe"


def test_a_token_names_its_node_and_label_without_controls(candidate, members):
    token, _raw = upload_token_create(
        candidate=candidate,
        created_by=members["procurement"],
        node_name=SPOOFED,
        label=HOSTILE,
    )
    token.refresh_from_db()
    assert (token.node_name, token.label) == ("gpu-node-txt.exe", CLEAN)


def test_evaluation_names_are_cleaned_on_create_and_update(members):
    from portal.services.evaluations import evaluation_create, evaluation_update

    fields = {
        "name": HOSTILE,
        "workload_profile": "pretraining",
        "required_total_gpus": 8,
        "duration_days": 30,
    }
    evaluation = evaluation_create(fields=fields, by=members["procurement"])
    assert Evaluation.objects.get(pk=evaluation.pk).name == CLEAN
    evaluation.name = f"Renamed{RLO}"
    evaluation.home_province = f"Zhejiang{LRI}"  # not written: not among the fields
    evaluation_update(evaluation=evaluation, by=members["procurement"], fields=["name"])
    stored = Evaluation.objects.get(pk=evaluation.pk)
    assert (stored.name, stored.home_province) == ("Renamed", "")


def test_vendor_names_are_cleaned_through_the_api(client, members, vendor):
    client.force_login(members["procurement"])
    # The API refuses NUL by itself (a 400); the rest reaches the service.
    response = client.patch(
        f"/api/v1/vendors/{vendor.pk}/",
        {"name": HOSTILE.replace("\x00", ""), "notes": f"line one{RLO}\nline two"},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["name"] == CLEAN
    vendor.refresh_from_db()
    assert (vendor.name, vendor.notes) == (CLEAN, "line one\nline two")


def test_offering_and_candidate_text_is_cleaned(members, evaluation, offering):
    from portal.services.catalogue import offering_save
    from portal.services.evaluations import candidate_add

    offering.name = f"8x H100{RLO} bare metal"
    offering.gpu_model = f"H100{PDF}"
    offering_save(offering=offering, by=members["procurement"])
    offering = Offering.objects.get(pk=offering.pk)
    assert (offering.name, offering.gpu_model) == ("8x H100 bare metal", "H100")
    candidate = candidate_add(
        evaluation=evaluation,
        offering=offering,
        node_count=2,
        by=members["procurement"],
        notes=f"quote{RLO} 1\n2",
    )
    assert Candidate.objects.get(pk=candidate.pk).notes == "quote 1\n2"


def test_workload_and_poc_node_names_are_cleaned(members, evaluation, candidate):
    from portal.models import PocCandidateNodes
    from portal.services.poc import poc_plan_save
    from portal.services.portfolio import workload_create

    workload = workload_create(
        evaluation=evaluation, name=HOSTILE, profile="pretraining", gpus=8, duration_days=30
    )
    assert type(workload).objects.get(pk=workload.pk).name == CLEAN
    poc_plan_save(
        evaluation=evaluation,
        by=members["procurement"],
        deadline=timezone.now() + timedelta(days=7),
        node_names={candidate.pk: [SPOOFED, "gpu-node-02", f"{RLO}"]},
    )
    nodes = PocCandidateNodes.objects.get(candidate=candidate).node_names
    assert nodes == ["gpu-node-txt.exe", "gpu-node-02"]


def test_a_name_of_nothing_but_controls_is_refused_as_empty(members):
    from django.core.exceptions import ValidationError

    from portal.services.catalogue import vendor_save

    with pytest.raises(ValidationError) as refused:
        vendor_save(vendor=Vendor(name=f"{RLO}{PDF}\x00"), by=members["procurement"])
    assert "name" in refused.value.message_dict
