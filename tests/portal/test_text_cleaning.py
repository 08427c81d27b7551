"""Bidi overrides and control characters are taken out of untrusted text where it enters
(security review): node names from manifests, uploads and tokens, and the names people type
for evaluations, vendors, offerings, workloads, PoC nodes and upload tokens, and what they
write at length (claims, notes, review notes, rationales and reasons), line breaks kept."""

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


# What people type at length: a claim, its notes, a review note, a decision's rationale, the
# reason an evaluation is reopened or an upload deleted. Line breaks and tabs stay; the
# overrides and controls go, wherever the text is saved from.
TYPED = f" Tier III{RLO}, 2 halls\n\tsee p.{PDF}4\x00\x1b \n"
TYPED_CLEAN = "Tier III, 2 halls\n\tsee p.4"


def test_a_claim_and_its_notes_are_cleaned_on_both_saves(candidate, members, checklist):
    from portal.models import Answer
    from portal.services.answers import AnswerDraft, answer_version, answers_save
    from portal.services.evaluations import answer_save

    items = checklist[:2]
    procurement = members["procurement"]
    answer = answer_save(
        candidate=candidate, item=items[0], by=procurement, claim=TYPED, notes=TYPED
    )
    # Notes keep their blank space (only the claim is stripped); the controls go.
    assert answer.claim == TYPED_CLEAN
    assert answer.notes == " Tier III, 2 halls\n\tsee p.4 \n"
    saved = answers_save(
        candidate=candidate,
        drafts=[AnswerDraft(item=items[1], claim=TYPED, value=None, notes=f"{LRI}x{PDI}\n")],
        by=procurement,
    )
    stored = Answer.objects.get(candidate=candidate, item=items[1])
    assert (stored.claim, stored.notes) == (TYPED_CLEAN, "x\n")
    # The version the page is given is the stored answer's: the same text typed again (its
    # controls included) is seen as unchanged, not as an edit or a conflict.
    again = answers_save(
        candidate=candidate,
        drafts=[
            AnswerDraft(
                item=items[1],
                claim=TYPED,
                value=None,
                notes=f"{LRI}x{PDI}\n",
                base_version=saved.versions[items[1].pk],
            )
        ],
        by=members["engineer"],
    )
    assert again.changed == [] and again.conflicts == []
    assert answer_version(Answer.objects.get(pk=stored.pk)) == saved.versions[items[1].pk]


def test_a_review_note_is_cleaned_and_one_of_controls_alone_is_refused(
    candidate, members, checklist
):
    from django.core.exceptions import ValidationError

    from portal.services.evaluations import answer_save
    from portal.services.reviews import answer_review

    sla = next(item for item in checklist if item.key == "sla")
    answer = answer_save(candidate=candidate, item=sla, by=members["procurement"], claim="99.9%")
    with pytest.raises(ValidationError, match="needs a note"):
        answer_review(answer=answer, verdict="verified", note=f"{RLO}\x00 ", by=members["engineer"])
    review = answer_review(answer=answer, verdict="verified", note=TYPED, by=members["engineer"])
    review.refresh_from_db()
    assert review.note == TYPED_CLEAN


def test_a_rationale_and_the_reasons_are_cleaned(candidate, members):
    from django.core.exceptions import ValidationError

    from portal.models import DecisionRecord, DecisionReopening
    from portal.services.evaluations import decision_record, evaluation_reopen
    from portal.services.evidence import evidence_upload_delete

    upload = _upload(candidate, sample_bytes("nccl-a100-8gpu.txt"), name="nccl.txt")
    with pytest.raises(ValidationError) as refused:
        evidence_upload_delete(upload=upload, reason=f"{RLO}{PDF}", by=members["procurement"])
    assert "reason" in refused.value.message_dict
    assert evidence_upload_delete(upload=upload, reason=TYPED, by=members["procurement"]).reason
    from portal.models import EvidenceDeletion

    assert EvidenceDeletion.objects.get(upload_id=upload.pk).reason == TYPED_CLEAN
    evaluation = candidate.evaluation
    with pytest.raises(ValidationError) as refused:
        decision_record(
            evaluation=evaluation, candidate=candidate, rationale="\x00\t", by=members["manager"]
        )
    assert "rationale" in refused.value.message_dict
    decision_record(
        evaluation=evaluation, candidate=candidate, rationale=TYPED, by=members["manager"]
    )
    assert DecisionRecord.objects.get(evaluation=evaluation).rationale == TYPED_CLEAN
    evaluation_reopen(evaluation=evaluation, reason=TYPED, by=members["manager"])
    assert DecisionReopening.objects.get(evaluation=evaluation).reason == TYPED_CLEAN


def test_the_migration_cleans_rows_stored_before_and_leaves_records_as_written(
    candidate, members, checklist
):
    """Rows written before text was cleaned where it enters (migration 0043): names, node
    names (the upload's measurements with them), claims and notes lose their overrides and
    controls; a name of nothing but controls stays rather than going empty; records written
    once (a decision's rationale) stay as written; a second run changes nothing."""
    import importlib

    from django.apps import apps

    from portal.models import Answer, AnswerReview, DecisionRecord, UploadToken
    from portal.services.evaluations import answer_save, decision_record
    from portal.services.reviews import answer_review

    migration = importlib.import_module("portal.migrations.0043_clean_stored_text")
    # What PostgreSQL could have stored: everything but NUL, which it refuses in text.
    hostile, typed = HOSTILE.replace("\x00", ""), TYPED.replace("\x00", "")
    upload = _upload(candidate, sample_bytes("nccl-a100-8gpu.txt"), name="nccl.txt")
    EvidenceUpload.objects.filter(pk=upload.pk).update(node_name=SPOOFED)
    Measurement.objects.filter(upload=upload).update(node_name=SPOOFED)
    Vendor.objects.filter(pk=candidate.offering.vendor_id).update(name=hostile)
    Offering.objects.filter(pk=candidate.offering_id).update(name=f"{RLO}{PDF}")
    sla = next(item for item in checklist if item.key == "sla")
    answer = answer_save(candidate=candidate, item=sla, by=members["procurement"], claim="99.9%")
    review = answer_review(answer=answer, verdict="verified", note="ok", by=members["engineer"])
    Answer.objects.filter(pk=answer.pk).update(claim=typed, notes=typed)
    AnswerReview.objects.filter(pk=review.pk).update(note=f"seen{RLO}\n")
    token, _raw = upload_token_create(
        candidate=candidate, created_by=members["procurement"], node_name="n1", label="t"
    )
    UploadToken.objects.filter(pk=token.pk).update(label=hostile)
    decision_record(
        evaluation=candidate.evaluation, candidate=candidate, rationale="ok", by=members["manager"]
    )
    DecisionRecord.objects.update(rationale=f"Best{RLO}")

    migration.clean_rows(apps, None)

    assert EvidenceUpload.objects.get(pk=upload.pk).node_name == "gpu-node-txt.exe"
    nodes = set(Measurement.objects.filter(upload=upload).values_list("node_name", flat=True))
    assert nodes == {"gpu-node-txt.exe"}
    assert Vendor.objects.get(pk=candidate.offering.vendor_id).name == CLEAN
    assert Offering.objects.get(pk=candidate.offering_id).name == f"{RLO}{PDF}"
    stored = Answer.objects.get(pk=answer.pk)
    assert stored.claim == stored.notes == " Tier III, 2 halls\n\tsee p.4 \n"
    assert AnswerReview.objects.get(pk=review.pk).note == "seen\n"
    assert UploadToken.objects.get(pk=token.pk).label == CLEAN
    assert DecisionRecord.objects.get().rationale == f"Best{RLO}"
    before = list(Answer.objects.values_list("claim", "notes", "updated_at"))
    migration.clean_rows(apps, None)
    assert list(Answer.objects.values_list("claim", "notes", "updated_at")) == before
