"""The candidate page names a context signal (the collector's container, MIG mode) as pointing
to neither side, not as "Virtualised" (issue #10 review 3)."""

import pytest
from django.urls import reverse

from portal.models import Candidate
from scoring.verification import Claims, NodeEvidence
from scoring.verification.bare_metal import verify_bare_metal
from scoring.verification.facts import json_safe

pytestmark = pytest.mark.django_db


def test_a_container_signal_shows_as_neither_side(client, demo):
    docker = NodeEvidence("gpu-01", 1, "virt", {"virt": "docker", "container": True}, "v.txt", 1)
    verdict = verify_bare_metal(Claims("H100", 8, 80), [docker])
    candidate = Candidate.objects.filter(evaluation_id=1).order_by("pk").first()
    candidate.verification = {**(candidate.verification or {}), "bare_metal": json_safe(verdict)}
    candidate.save(update_fields=["verification"])
    assert client.login(username="engineer", password="measure-gpus-2026")
    url = reverse("candidate-detail", kwargs={"pk": 1, "candidate_pk": candidate.pk})
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Neither (no hypervisor sign)" in page
    assert "collector ran in a container, which is no hypervisor" in page
    assert "Uncertain" in page
