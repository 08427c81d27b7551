"""The decision's evidence list names the files inside a bundle, but does not repeat the name of
a single uploaded file ("x.txt · x.txt")."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from portal.models import Candidate, DecisionRecord, Evaluation
from portal.services.evaluations import decision_record

pytestmark = pytest.mark.django_db


def test_a_single_file_upload_is_named_once_and_a_bundle_lists_its_files(client, demo):
    manager = get_user_model().objects.get(username="manager")
    evaluation = Evaluation.objects.get(pk=1)
    decision_record(
        evaluation=evaluation, candidate=Candidate.objects.get(pk=1), rationale="ok", by=manager
    )
    record = DecisionRecord.objects.get(evaluation=evaluation)
    snapshot = record.snapshot
    single = {"sha256": "ab" * 32, "name": "ibstat.txt", "node_name": "", "files": []}
    single["files"] = [{"file": "ibstat.txt"}]
    snapshot["evidence"] = [*snapshot["evidence"], single]
    DecisionRecord.objects.filter(pk=record.pk).update(snapshot=snapshot)
    client.force_login(manager)
    page = client.get(reverse("evaluation-decision", args=[evaluation.pk])).content.decode()
    # Named once; this hand-made line has no upload in the portal, which the line says.
    line = page.split(f"<code>{'ab' * 32}</code> ")[1].split("</li>")[0]
    assert line.startswith("ibstat.txt · <span")
    assert line.count("ibstat.txt") == 1
    bundle = page.split("hgx-h100-node-01.tar.gz")[1].split("</li>")[0]
    assert bundle.endswith(
        " · all_reduce_perf.txt, dcgmi-diag.txt, fio.txt, ibstat.txt, lspci.txt, "
        "nvidia-smi-topo.txt"
    )
