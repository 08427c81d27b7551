"""Data for the API tests: one evaluation with a row of every kind, and a second evaluation whose
ids must never be reachable through the first one's URLs."""

from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from portal.models import (
    Answer,
    Candidate,
    Evaluation,
    EvidenceUpload,
    Measurement,
    Membership,
    Offering,
    OfferingPrice,
    Role,
    Score,
    UploadToken,
    Workload,
)
from portal.services.portfolio import workload_create
from portal.services.tokens import upload_token_create

PERSONAS = ("anonymous", "outsider", "viewer", "engineer", "manager", "procurement")


@pytest.fixture(autouse=True)
def _own_media_root(settings, tmp_path):
    # Uploads made here (and the demo's evidence) stay out of the media folder other tests read.
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Throttle counters live in the (process-wide) cache: every test starts from zero.
    cache.clear()
    yield
    cache.clear()


@dataclass
class World:
    evaluation: Evaluation
    candidate: Candidate
    offering: Offering
    price: OfferingPrice
    answer: Answer
    token: UploadToken
    raw_token: str
    upload: EvidenceUpload
    measurement: Measurement
    membership: Membership
    other_evaluation: Evaluation
    other_candidate: Candidate
    other_token: UploadToken
    other_upload: EvidenceUpload
    users: dict
    workload: Workload


@pytest.fixture
def world(evaluation, members, offering, vendor, checklist, make_user) -> World:
    price = OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    answer = Answer.objects.create(
        candidate=candidate, item=checklist[0], claim="8x H100 per node", status="claimed"
    )
    token, raw = upload_token_create(candidate=candidate, created_by=members["procurement"])
    upload = EvidenceUpload.objects.create(
        candidate=candidate,
        file="evidence/none",
        original_name="nccl.txt",
        sha256="a" * 64,
        size_bytes=10,
        status="done",
    )
    measurement = Measurement.objects.create(
        upload=upload, candidate=candidate, kind="nccl_tests", metric="busbw", value=180.0
    )
    Score.objects.create(candidate=candidate, dimension="network", value=80.0, rubric_version="1")

    other_offering = Offering.objects.create(
        vendor=vendor,
        name="4x A100 vGPU",
        delivery_form="vgpu",
        gpu_model="NVIDIA A100",
        gpu_form_factor="pcie",
        gpus_per_node=4,
        gpu_memory_gib=40,
        nvlink_topology="none",
        fabric="ethernet",
    )
    other = Evaluation.objects.create(
        name="Someone else's evaluation",
        workload_profile="inference",
        required_total_gpus=4,
        duration_days=10,
    )
    stranger = make_user("stranger")
    Membership.objects.create(evaluation=other, user=stranger, role=Role.PROCUREMENT)
    other_candidate = Candidate.objects.create(
        evaluation=other, offering=other_offering, node_count=1
    )
    other_token, _raw = upload_token_create(candidate=other_candidate, created_by=stranger)
    other_upload = EvidenceUpload.objects.create(
        candidate=other_candidate,
        file="evidence/none2",
        original_name="other.txt",
        sha256="b" * 64,
        size_bytes=10,
    )
    workload = workload_create(
        evaluation=evaluation, name="training", profile="pretraining", gpus=8, duration_days=30
    )
    return World(
        evaluation=evaluation,
        candidate=candidate,
        offering=offering,
        price=price,
        answer=answer,
        token=token,
        raw_token=raw,
        upload=upload,
        measurement=measurement,
        membership=Membership.objects.get(evaluation=evaluation, user=members["viewer"]),
        other_evaluation=other,
        other_candidate=other_candidate,
        other_token=other_token,
        other_upload=other_upload,
        users={**members, "stranger": stranger},
        workload=workload,
    )


@pytest.fixture
def api():
    """A DRF test client; ``api.as_(user)`` authenticates it (None: anonymous)."""

    class Client(APIClient):
        def as_(self, user):
            self.force_authenticate(user=None)
            self.logout()
            if user is not None:
                self.force_login(user)
            return self

    return Client()
