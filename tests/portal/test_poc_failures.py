"""Failed and missing POC runs change the stored answers, the knockouts and the live ranking:
a failed run at once, a missing run once the deadline has passed (the sweep rescores)."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.utils import timezone

from portal.models import (
    Answer,
    Candidate,
    ChecklistItem,
    Offering,
    PocPlan,
    UploadStatus,
    Vendor,
    VerificationStatus,
)
from portal.selectors import evaluation_ranking
from portal.services.catalogue import candidate_offering_adopt, offering_save
from portal.services.evidence import evidence_import, evidence_submit
from portal.services.poc import poc_deadlines_apply, poc_plan_save
from portal.services.tokens import upload_token_create
from scoring import poc as rules

from .test_poc import SCORING_SAMPLES, bundle

pytestmark = pytest.mark.django_db


def _claim_everything(candidate):
    for item in ChecklistItem.objects.all():
        Answer.objects.create(
            candidate=candidate, item=item, claim="yes", status=VerificationStatus.CLAIMED
        )


def _status(candidate, key):
    answer = Answer.objects.get(candidate=candidate, item__key=key)
    return answer.status, answer.verification_note, answer.evidence_ref


def _result(evaluation, candidate):
    ranking, _candidates = evaluation_ranking(evaluation=evaluation)
    return ranking, ranking.result(candidate.pk)


def test_failed_runs_count_at_once_and_missing_runs_at_the_deadline(
    evaluation, candidate, offering, members
):
    call_command("loaddata", "checklist", verbosity=0)
    # The vendor states its local NVMe (a capacity left at 0 is not stated, and its rule then
    # has no claim whose status the deadline could settle).
    offering.nvme_capacity_tib = Decimal("30.72")
    offering_save(offering=offering, by=members["procurement"])
    candidate_offering_adopt(candidate=candidate, by=members["procurement"])
    other_vendor = Vendor.objects.create(name="Other Vendor", mlps_level=3)
    other = Candidate.objects.create(
        evaluation=evaluation,
        offering=Offering.objects.create(
            **{
                f.name: getattr(offering, f.name)
                for f in Offering._meta.concrete_fields
                if f.name not in ("id", "vendor", "name")
            },
            vendor=other_vendor,
            name="8x H100 bare metal (other)",
        ),
        node_count=2,
    )
    for c in (candidate, other):
        _claim_everything(c)
    names = {candidate.pk: ["gpu01", "gpu02"], other.pk: ["node-a", "node-b"]}
    plan = poc_plan_save(
        evaluation=evaluation,
        by=members["procurement"],
        deadline=timezone.now() + timedelta(days=3),
        node_names=names,
    )

    # The other candidate's dcgmi diag (a real failing run) fails its run before the deadline.
    token, _raw = upload_token_create(candidate=other, created_by=members["procurement"])
    failing = SCORING_SAMPLES / "dcgm_diag" / "memtest-r4-rtx2060-persistence-FAIL.txt"
    data = bundle(
        [(["dcgmi", "diag", "-r", "4"], "dcgmi-diag.txt", failing.read_bytes())],
        hostname="node-a",
        nonce=token.nonce,
    )
    upload, _ = evidence_submit(
        candidate=other, uploaded_file=SimpleUploadedFile("d.tar.gz", data), token=token
    )
    evidence_import(upload_id=upload.pk, task_id="t-poc-fail")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE, upload.error

    ranking, before = _result(evaluation, candidate)
    assert before.knockouts == () and ranking.leader.candidate_id == candidate.pk
    failed = ranking.result(other.pk)
    assert [k.code for k in failed.knockouts] == ["poc_health_failed"]
    assert "dcgmi diag -r 3 on node-a: failed (dcgmi diag reported fail)" in (
        failed.knockouts[0].reason_en
    )
    assert failed.knockouts[0].evidence_ref == f"node-a: dcgmi-diag.txt (upload {upload.pk})"
    # A failed diag is a must-have, not a contradiction of the claimed GPU model.
    assert _status(other, "gpu_match")[0] == VerificationStatus.CLAIMED
    # Still pending before the deadline: the first candidate's claims stay as they were.
    assert _status(candidate, "fabric")[0] == VerificationStatus.CLAIMED
    assert poc_deadlines_apply() == 0

    # The deadline passes; the sweep rescores both candidates once.
    PocPlan.objects.filter(pk=plan.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert poc_deadlines_apply() == 2
    assert poc_deadlines_apply() == 0

    ranking, after = _result(evaluation, candidate)
    codes = [k.code for k in after.knockouts]
    assert codes == ["poc_fabric_unproven"]
    assert "multi-node all_reduce (nccl-tests): missing at the deadline" in (
        after.knockouts[0].reason_en
    )
    assert ranking.leader is None  # every candidate is now disqualified
    assert after.total < before.total  # missing runs score below the claims they left
    for key in ("fabric", "local_nvme", "distributed_storage", "nvlink_topology", "gpu_match"):
        status, note, _ref = _status(candidate, key)
        assert status == VerificationStatus.UNVERIFIABLE, key
        assert "missing at the deadline" in note
    lines = [
        c
        for d in after.dimensions
        for c in d.contributions
        # The capacity carries item 4's status as the review-only item "nvme_capacity" (fio
        # measures no drive's size), and cites item 4's evidence while the statuses agree.
        if "unverifiable"
        in (c.inputs.get("answer.local_nvme"), c.inputs.get("answer.nvme_capacity"))
    ]
    assert lines and all(
        f"POC run {rules.RUN_LABELS[rules.FIO_LOCAL_SEQ]} on gpu01" in c.evidence_ref for c in lines
    )
    stored = Candidate.objects.get(pk=candidate.pk).verification["poc"]
    assert stored["deadline_passed"] and stored["covered"] == 0
