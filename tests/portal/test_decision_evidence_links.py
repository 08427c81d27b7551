"""An auditor follows each evidence line of a decision to the upload it came from: the line
links the upload's page (its node, whole sha256, files and report), every round's lines do,
and a line whose upload was deleted after a reopening says so, by whom and when, instead of
linking to nothing. The upload's page answers members of its evaluation only, with the same
404 for another evaluation's upload as for none."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from portal.models import Candidate, DecisionRecord, Evaluation, EvidenceUpload
from portal.services.evaluations import decision_record, evaluation_reopen
from portal.services.evidence import evidence_upload_delete

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db

LINK = re.compile(r'<a class="evidence-upload" href="([^"]+)">([^<]+)</a>')


def _decide(evaluation: Evaluation, rationale: str = "Best measured fabric.") -> DecisionRecord:
    manager = get_user_model().objects.get(username="manager")
    return decision_record(
        evaluation=evaluation,
        candidate=Candidate.objects.get(pk=1),
        rationale=rationale,
        by=manager,
    )


def _foreign_upload() -> EvidenceUpload:
    """An upload of a candidate of another evaluation of the demo."""
    candidate = Candidate.objects.exclude(evaluation_id=1).order_by("pk").first()
    return EvidenceUpload.objects.create(
        candidate=candidate, original_name="lspci.txt", sha256="c" * 64, size_bytes=1
    )


def _page(client, role: str, url: str):
    client.logout()
    assert client.login(username=role, password=PASSWORDS[role])
    return client.get(url)


def test_each_evidence_line_links_the_upload_page_it_came_from(client, demo):
    evaluation = Evaluation.objects.get(pk=1)
    record = _decide(evaluation)
    assert record.snapshot["evidence"]
    html = _page(client, "viewer", reverse("evaluation-decision", args=[1])).content.decode()
    links = LINK.findall(html)
    assert len(links) == len(record.snapshot["evidence"])
    for entry, (url, name) in zip(record.snapshot["evidence"], links, strict=True):
        assert (
            url
            == f"/evaluations/1/candidates/{entry['candidate_id']}/uploads/{entry['upload_id']}/"
        )
        assert name == entry["name"]
        upload_page = client.get(url)
        assert upload_page.status_code == 200
        text = upload_page.content.decode()
        assert f'<code class="upload-sha256">{entry["sha256"]}</code>' in text
        assert f'id="upload-{entry["upload_id"]}"' in text  # the uploads list's row
        if entry["node_name"]:
            assert entry["node_name"] in text.split('class="upload-node">')[1].split("</dd>")[0]
    assert "no longer in the portal" not in html


def test_an_upload_deleted_after_a_reopening_is_said_gone_in_its_round(client, demo):
    evaluation = Evaluation.objects.get(pk=1)
    first = _decide(evaluation)
    manager = get_user_model().objects.get(username="manager")
    evaluation_reopen(evaluation=evaluation, reason="A node was re-imaged.", by=manager)
    # Another candidate's upload: candidate 1 stays qualified to be chosen again.
    gone = next(e for e in first.snapshot["evidence"] if e["candidate_id"] != 1)
    procurement = get_user_model().objects.get(username="procurement")
    evidence_upload_delete(
        upload=EvidenceUpload.objects.get(pk=gone["upload_id"]),
        reason="Measured on the wrong image.",
        by=procurement,
    )
    evaluation.refresh_from_db()
    second = _decide(evaluation, "Still the best fabric.")
    assert gone["upload_id"] not in {e["upload_id"] for e in second.snapshot["evidence"]}

    html = _page(client, "viewer", reverse("evaluation-decision", args=[1])).content.decode()
    earlier = html.split('class="card earlier-decisions"')[1]
    line = earlier.split(f"<code>{gone['sha256']}</code>")[1].split("</li>")[0]
    assert "<a " not in line, "a deleted upload is not linked"
    assert f"upload {gone['upload_id']} was deleted by " in line
    assert "the History says why" in line
    # The other lines of that round still link their uploads; the current round's all do.
    kept = [e for e in first.snapshot["evidence"] if e["upload_id"] != gone["upload_id"]]
    assert len(LINK.findall(earlier)) == len(kept)
    current = html.split('class="card decision-record"')[1].split("</section>")[0]
    assert len(LINK.findall(current)) == len(second.snapshot["evidence"])

    with_zh = client.get(reverse("evaluation-decision", args=[1]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    zh_line = with_zh.content.decode().split(f"<code>{gone['sha256']}</code>")[1]
    assert f"上传 {gone['upload_id']} 已由" in zh_line.split("</li>")[0]

    # The API tells the same for every line of every round, in the snapshot's order.
    state = client.get("/api/v1/evaluations/1/decision/").json()
    current_sources = state["decision"]["evidence_sources"]
    assert [s["sha256"] for s in current_sources] == [
        e["sha256"] for e in second.snapshot["evidence"]
    ]
    assert {s["state"] for s in current_sources} == {"present"}
    for source, entry in zip(current_sources, second.snapshot["evidence"], strict=True):
        assert source["upload"] == entry["upload_id"]
        assert source["page"] == (
            f"/evaluations/1/candidates/{entry['candidate_id']}/uploads/{entry['upload_id']}/"
        )
    (earlier_state,) = state["earlier_decisions"]
    by_upload = {s["upload"]: s for s in earlier_state["evidence_sources"]}
    deleted = by_upload[gone["upload_id"]]
    assert (deleted["state"], deleted["page"], deleted["deleted_by"]) == (
        "deleted",
        "",
        "procurement",
    )
    assert deleted["deleted_at"]
    assert sum(s["state"] == "present" for s in by_upload.values()) == len(kept)

    # The report (and the PDF printed from it) traces both rounds to their uploads too.
    report = client.get(reverse("evaluation-report", args=[1])).content.decode()
    current_block = report.split('class="card report-decision"')[1].split("</section>")[0]
    assert len(LINK.findall(current_block)) == len(second.snapshot["evidence"])
    earlier_block = report.split('class="card report-earlier-decisions"')[1].split("</section>")[0]
    assert f"upload {gone['upload_id']} was deleted by " in earlier_block
    assert len(LINK.findall(earlier_block)) == len(kept)


def test_a_record_naming_another_evaluations_upload_links_nothing(client, demo):
    """The links come from the uploads of the record's own evaluation, whatever its JSON says."""
    evaluation = Evaluation.objects.get(pk=1)
    record = _decide(evaluation)
    foreign = _foreign_upload()
    snapshot = record.snapshot
    snapshot["evidence"] = [
        {**snapshot["evidence"][0], "upload_id": foreign.pk, "sha256": foreign.sha256}
    ]
    DecisionRecord.objects.filter(pk=record.pk).update(snapshot=snapshot)
    html = _page(client, "viewer", reverse("evaluation-decision", args=[1])).content.decode()
    assert LINK.findall(html) == []
    assert f"upload {foreign.pk} is no longer in the portal" in html


def test_the_upload_page_is_a_uniform_404_outside_the_evaluation(client, demo, make_user):
    upload = EvidenceUpload.objects.filter(candidate__evaluation_id=1).first()
    url = reverse("candidate-upload-detail", args=[1, upload.candidate_id, upload.pk])
    assert _page(client, "engineer", url).status_code == 200
    missing = reverse("candidate-upload-detail", args=[1, upload.candidate_id, 10**9])
    assert client.get(missing).status_code == 404
    foreign = _foreign_upload()
    # Another evaluation's upload under this evaluation's candidate, or under its own
    # candidate through this evaluation: the same 404 as an upload that does not exist.
    for args in ([1, upload.candidate_id, foreign.pk], [1, foreign.candidate_id, foreign.pk]):
        response = client.get(reverse("candidate-upload-detail", args=args))
        assert response.status_code == 404
    outsider = make_user("stranger")
    client.logout()
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302  # to the login page
