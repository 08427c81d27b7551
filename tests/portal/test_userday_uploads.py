"""The upload side of an engineer's day: the bundle's hostname names the node, a failed upload
can be retracted by its uploader, or by the maker of the upload token a collector sent it with
(recorded in History), and sent again, and the home page lists the candidates still awaiting
evidence."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from portal import adapters
from portal.audit import evaluation_history
from portal.models import EvidenceUpload, Measurement, UploadStatus
from portal.services.evidence import evidence_import

from .conftest import make_bundle, sample_bytes

pytestmark = pytest.mark.django_db
API = "/api/v1/evidence/"


def _page_upload(client, candidate, data: bytes, name: str, **fields):
    """An upload as the upload page sends it: the member's session, no token."""
    payload = {"file": SimpleUploadedFile(name, data), "candidate": candidate.pk, **fields}
    return client.post(API, payload)


def _import(body) -> EvidenceUpload:
    evidence_import(upload_id=body["id"], task_id=f"t-{body['id']}")
    return EvidenceUpload.objects.get(pk=body["id"])


def _bundle(hostname="poc-node-7") -> bytes:
    return make_bundle({"nccl.txt": sample_bytes("nccl-a100-8gpu.txt")}, hostname=hostname)


def test_the_manifest_hostname_names_the_node_of_a_page_upload(client, candidate, members):
    client.force_login(members["engineer"])
    response = _page_upload(client, candidate, _bundle(), "bundle.tar.gz")
    assert response.status_code == 202, response.content
    upload = _import(response.json())
    assert upload.status == UploadStatus.DONE, upload.error
    assert upload.node_name == "poc-node-7"
    assert set(Measurement.objects.filter(upload=upload).values_list("node_name", flat=True)) == {
        "poc-node-7"
    }
    # Verification (and so every explanation) names the node, not "upload N".
    assert {e.node_name for e in adapters.node_evidence([upload])} == {"poc-node-7"}
    page = client.get(reverse("candidate-uploads", args=[candidate.evaluation_id, candidate.pk]))
    assert "poc-node-7" in page.content.decode()


def test_a_node_name_given_at_upload_wins_over_the_manifest(client, candidate, members):
    client.force_login(members["engineer"])
    body = _page_upload(client, candidate, _bundle(), "b.tar.gz", node_name="rack-3-n1").json()
    assert _import(body).node_name == "rack-3-n1"


def _failed_upload(client, candidate, user) -> EvidenceUpload:
    client.force_login(user)
    body = _page_upload(client, candidate, b"this is not evidence at all\n", "junk.txt").json()
    upload = _import(body)
    assert upload.status == UploadStatus.FAILED
    return upload


def _retract_url(upload) -> str:
    return reverse("upload-retract", args=[upload.candidate.evaluation_id, upload.pk])


def test_a_duplicate_of_a_failed_file_says_it_failed(client, candidate, members):
    upload = _failed_upload(client, candidate, members["engineer"])
    again = _page_upload(client, candidate, b"this is not evidence at all\n", "junk-2.txt")
    assert again.status_code == 200
    body = again.json()
    assert body["duplicate"] is True and body["id"] == upload.pk
    assert body["status"] == "failed" and "could be parsed" in body["error"]


def test_the_uploader_retracts_a_failed_upload_and_sends_it_again(
    client, candidate, members, django_capture_on_commit_callbacks
):
    engineer = members["engineer"]
    upload = _failed_upload(client, candidate, engineer)
    stored = Path(upload.file.path)
    assert stored.exists()
    page = client.get(reverse("candidate-uploads", args=[candidate.evaluation_id, candidate.pk]))
    assert _retract_url(upload) in page.content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(_retract_url(upload))
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "candidate-evidence", args=[candidate.evaluation_id, candidate.pk]
    )
    assert not EvidenceUpload.objects.filter(pk=upload.pk).exists()
    assert not stored.exists()
    # Audited: History shows who removed which file.
    record = EvidenceUpload.history.get(id=upload.pk, history_type="-")
    assert record.history_user == engineer and record.original_name == "junk.txt"
    entries = [e for e in evaluation_history(candidate.evaluation) if e.kind == "upload"]
    assert [(e.action, e.user) for e in entries][:1] == [("deleted", "engineer")]
    # The same file is a new upload now.
    again = _page_upload(client, candidate, b"this is not evidence at all\n", "junk.txt")
    assert again.status_code == 202


def test_only_the_uploader_may_retract_and_only_a_failed_upload(client, candidate, members):
    upload = _failed_upload(client, candidate, members["engineer"])
    for role in ("procurement", "viewer", "manager"):
        client.force_login(members[role])
        assert client.post(_retract_url(upload)).status_code == 403
        page = client.get(
            reverse("candidate-uploads", args=[candidate.evaluation_id, candidate.pk])
        )
        assert _retract_url(upload) not in page.content.decode()
    assert EvidenceUpload.objects.filter(pk=upload.pk).exists()

    client.force_login(members["engineer"])
    done = _import(_page_upload(client, candidate, _bundle(), "good.tar.gz").json())
    assert done.status == UploadStatus.DONE
    response = client.post(_retract_url(done))
    assert response.status_code == 403
    assert "import failed" in response.content.decode()
    assert EvidenceUpload.objects.filter(pk=done.pk).exists()
    # Another evaluation's outsider does not even learn it exists.
    client.force_login(members["outsider"])
    assert client.post(_retract_url(upload)).status_code == 404


def _collector_upload(client, data: bytes, name: str, raw_token: str) -> EvidenceUpload:
    """An upload as the collector sends it: its upload token, no session, so no uploader."""
    client.logout()
    response = client.post(
        API, {"file": SimpleUploadedFile(name, data)}, HTTP_AUTHORIZATION=f"Bearer {raw_token}"
    )
    assert response.status_code == 202, response.content
    upload = _import(response.json())
    assert upload.uploaded_by_id is None and upload.token_id is not None
    return upload


def _uploads_page(client, candidate) -> str:
    url = reverse("candidate-uploads", args=[candidate.evaluation_id, candidate.pk])
    return client.get(url).content.decode()


def test_the_token_s_maker_retracts_a_failed_collector_upload(
    client, candidate, members, upload_token, django_capture_on_commit_callbacks
):
    token, raw = upload_token
    maker = members["procurement"]
    assert token.created_by == maker
    upload = _collector_upload(client, b"this is not evidence at all\n", "junk.txt", raw)
    assert upload.status == UploadStatus.FAILED
    stored = Path(upload.file.path)

    client.force_login(maker)
    assert _retract_url(upload) in _uploads_page(client, candidate)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(_retract_url(upload))
    assert response.status_code == 302
    assert not EvidenceUpload.objects.filter(pk=upload.pk).exists()
    assert not stored.exists()
    # Audited as the maker's, who retracted it (the upload itself had no uploader).
    record = EvidenceUpload.history.get(id=upload.pk, history_type="-")
    assert record.history_user == maker and record.original_name == "junk.txt"
    entries = [e for e in evaluation_history(candidate.evaluation) if e.kind == "upload"]
    assert [(e.action, e.user) for e in entries][:1] == [("deleted", "procurement")]
    # The collector can send the same file again: it is a new upload.
    again = _collector_upload(client, b"this is not evidence at all\n", "junk.txt", raw)
    assert again.pk != upload.pk


def test_only_the_token_s_maker_may_retract_a_collector_upload_and_only_a_failed_one(
    client, candidate, members, upload_token
):
    token, raw = upload_token
    upload = _collector_upload(client, b"this is not evidence at all\n", "junk.txt", raw)
    assert upload.status == UploadStatus.FAILED
    # Another member who may upload, and members who may not, are refused and see no button.
    for role in ("engineer", "viewer", "manager"):
        client.force_login(members[role])
        response = client.post(_retract_url(upload))
        assert response.status_code == 403
        assert _retract_url(upload) not in _uploads_page(client, candidate)
    client.force_login(members["engineer"])
    assert "who made the upload token" in client.post(_retract_url(upload)).content.decode()
    client.cookies["django_language"] = "zh-hans"
    refused = client.post(_retract_url(upload), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "创建其所用上传令牌的人" in refused.content.decode()
    del client.cookies["django_language"]
    assert EvidenceUpload.objects.filter(pk=upload.pk).exists()

    done = _collector_upload(client, _bundle_with_nonce(token.nonce), "bundle.tar.gz", raw)
    assert done.status == UploadStatus.DONE, done.error
    client.force_login(members["procurement"])
    assert _retract_url(done) not in _uploads_page(client, candidate)
    response = client.post(_retract_url(done))
    assert response.status_code == 403
    assert "import failed" in response.content.decode()
    assert EvidenceUpload.objects.filter(pk=done.pk).exists()


def _bundle_with_nonce(nonce: str) -> bytes:
    return make_bundle({"nccl.txt": sample_bytes("nccl-a100-8gpu.txt")}, nonce=nonce)


def test_engineers_see_the_candidates_awaiting_evidence_at_home(client, candidate, members):
    from portal.models import Candidate
    from tests.portal.conftest import small_offering

    other = Candidate.objects.create(
        evaluation=candidate.evaluation,
        offering=small_offering(candidate.offering.vendor),
        node_count=1,
    )
    engineer = members["engineer"]
    _failed_upload(client, candidate, engineer)
    home = client.get("/").content.decode()
    assert "Candidates awaiting your evidence" in home
    assert f'data-candidate-id="{candidate.pk}"' in home
    assert f'data-candidate-id="{other.pk}"' in home
    assert "junk.txt" in home and "Failed" in home
    assert reverse("candidate-evidence", args=[candidate.evaluation_id, other.pk]) in home

    # Once its evidence is imported, a candidate leaves the list.
    _import(_page_upload(client, candidate, _bundle(), "good.tar.gz").json())
    home = client.get("/").content.decode()
    assert f'data-candidate-id="{candidate.pk}"' not in home
    assert f'data-candidate-id="{other.pk}"' in home

    client.force_login(members["manager"])
    assert "Candidates awaiting your evidence" not in client.get("/").content.decode()
