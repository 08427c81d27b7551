"""The same bytes from two nodes of one candidate: two uploads, each filed and imported under its
own node. Plain outputs are often byte-identical across the nodes of one offering
(``nvidia-smi topo -m``, ``lscpu``, ``dmidecode -t system`` without serials, an ``ibstat`` of
ports without GUIDs); an upload was unique per (candidate, content), so the second node's was
answered "received earlier", pointing at the first node's, and the second node had no evidence
of that kind. The same bytes sent again for the same node (a retry) stay received once."""

import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.urls import reverse
from django.utils import translation

from portal.models import EvidenceSummary, EvidenceUpload, Measurement, UploadStatus
from portal.services.evidence import (
    evidence_import,
    evidence_retract,
    evidence_submit,
    evidence_upload_delete,
)
from portal.services.tokens import upload_token_create

from .conftest import in_thread, make_bundle, sample_bytes

# Not transaction=True: committed uploads would be sent to the suite's Celery worker, which would
# import them beside the imports these tests run themselves.
pytestmark = pytest.mark.django_db
API = "/api/v1/evidence/"
TOPO = "topo-a100-8gpu.txt"  # `nvidia-smi topo -m`: the same on every node of one shape


def _token(candidate, members, node: str) -> str:
    _token, raw = upload_token_create(
        candidate=candidate, created_by=members["procurement"], node_name=node
    )
    return raw


def _api(client, raw: str, data: bytes, name: str = "topo.txt", **fields):
    return client.post(
        API, {"file": SimpleUploadedFile(name, data), **fields}, HTTP_AUTHORIZATION=f"Bearer {raw}"
    )


def _import(upload_id: int) -> EvidenceUpload:
    evidence_import(upload_id=upload_id, task_id=f"two-nodes-{upload_id}")
    return EvidenceUpload.objects.get(pk=upload_id)


def _summaries(candidate) -> set[tuple[str, str]]:
    return set(EvidenceSummary.objects.filter(candidate=candidate).values_list("node_name", "kind"))


def test_the_same_output_from_two_node_tokens_is_an_upload_of_each_node(client, candidate, members):
    """The node of a plain file sent with a token and no node name is the token's."""
    data = sample_bytes(TOPO)
    first = _api(client, _token(candidate, members, "gpu-a"), data)
    second = _api(client, _token(candidate, members, "gpu-b"), data)
    assert first.status_code == 202, first.content
    assert second.status_code == 202, second.content
    assert second.json()["duplicate"] is False
    assert second.json()["id"] != first.json()["id"]
    assert second.json()["node_name"] == "gpu-b"
    for body in (first.json(), second.json()):
        assert _import(body["id"]).status == UploadStatus.DONE
    by_node = dict(
        Measurement.objects.filter(candidate=candidate)
        .values_list("node_name", "upload_id")
        .distinct()
    )
    assert by_node == {"gpu-a": first.json()["id"], "gpu-b": second.json()["id"]}


def test_the_same_output_sent_from_the_page_for_two_nodes_is_evidence_of_each(
    client, candidate, members
):
    """As the upload page's script sends files: to the API, with the member's session and the
    page's node field. Each node's verification reads its own copy."""
    client.force_login(members["engineer"])
    data = sample_bytes(TOPO)
    sent = [
        client.post(
            API,
            {
                "file": SimpleUploadedFile("topo.txt", data),
                "candidate": candidate.pk,
                "node_name": n,
            },
        )
        for n in ("gpu-a", "gpu-b")
    ]
    assert [r.status_code for r in sent] == [202, 202], sent[1].content
    for response in sent:
        assert _import(response.json()["id"]).status == UploadStatus.DONE
    assert _summaries(candidate) == {("gpu-a", "nvidia_smi_topo"), ("gpu-b", "nvidia_smi_topo")}


def test_the_same_output_from_two_nodes_on_the_page_is_two_uploads(client, candidate, members):
    client.force_login(members["engineer"])
    page = reverse("candidate-evidence", args=[candidate.evaluation_id, candidate.pk])
    data = sample_bytes(TOPO)
    with translation.override("en"):
        for node in ("gpu-a", "gpu-b"):
            response = client.post(
                page, {"node_name": node, "file": SimpleUploadedFile("topo.txt", data)}, follow=True
            )
            said = f"“topo.txt” was received for node {node}: its import is shown"
            assert said in response.content.decode()
    uploads = EvidenceUpload.objects.filter(candidate=candidate).order_by("pk")
    assert [u.node_name for u in uploads] == ["gpu-a", "gpu-b"]
    assert {u.sha256 for u in uploads} == {uploads[0].sha256}
    # Each has a file of its own: deleting one leaves the other's.
    assert uploads[0].file.name != uploads[1].file.name
    for upload in uploads:
        with upload.file.open("rb") as stored:
            assert stored.read() == data


@pytest.mark.parametrize("node", ["gpu-a", ""], ids=["same-node", "no-node"])
def test_the_same_output_again_from_the_same_node_is_received_once(
    client, candidate, members, node
):
    raw = _token(candidate, members, node)
    data = sample_bytes(TOPO)
    first = _api(client, raw, data).json()
    again = _api(client, raw, data, name="renamed.txt")
    assert again.status_code == 200, again.content
    assert (again.json()["id"], again.json()["duplicate"]) == (first["id"], True)
    # The node named in the form, as the token's: the same node.
    named = _api(client, raw, data, node_name=node) if node else again
    assert named.json()["id"] == first["id"]
    assert EvidenceUpload.objects.filter(candidate=candidate).count() == 1


def test_the_same_bundle_for_another_node_name_is_received_once(client, candidate, members):
    """A bundle names its node itself (its manifest's hostname): two nodes never send the same
    one, so the same bundle sent under another node name (the collector's --upload-only from a
    login node sends that host's name) is the bundle received earlier, not a second node's."""
    bundle = make_bundle({"topo.txt": sample_bytes(TOPO)}, hostname="gpu-a")
    first = _api(client, _token(candidate, members, ""), bundle, "b.tar.gz", node_name="gpu-a")
    again = _api(client, _token(candidate, members, ""), bundle, "b.tar.gz", node_name="login-1")
    assert (again.status_code, again.json()["id"]) == (200, first.json()["id"])
    assert EvidenceUpload.objects.filter(candidate=candidate).count() == 1


def test_a_file_sent_without_a_node_after_one_node_sent_it_is_received_earlier(candidate):
    """Without a node name, the bytes add nothing: they are the named node's upload."""
    data = sample_bytes(TOPO)
    with transaction.atomic():
        first, _created = evidence_submit(
            candidate=candidate, uploaded_file=SimpleUploadedFile("t.txt", data), node_name="gpu-a"
        )
        again, created = evidence_submit(
            candidate=candidate, uploaded_file=SimpleUploadedFile("t.txt", data)
        )
    assert (again.pk, created) == (first.pk, False)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "“again.txt” was received earlier for node gpu-a, as “topo.txt”: see the list"),
        ("zh-hans", "“again.txt”此前已为节点 gpu-a 接收，名为“topo.txt”：见下方列表。"),
    ],
)
def test_the_page_names_the_node_a_file_was_received_for_earlier(
    client, candidate, members, language, said
):
    client.force_login(members["engineer"])
    page = reverse("candidate-evidence", args=[candidate.evaluation_id, candidate.pk])
    data = sample_bytes(TOPO)
    client.post(page, {"node_name": "gpu-a", "file": SimpleUploadedFile("topo.txt", data)})
    for node in ("gpu-a", ""):
        response = client.post(
            page,
            {"node_name": node, "file": SimpleUploadedFile("again.txt", data)},
            follow=True,
            HTTP_ACCEPT_LANGUAGE=language,
        )
        assert said in response.content.decode()
    assert EvidenceUpload.objects.filter(candidate=candidate).count() == 1


def _submit(candidate, data: bytes, node: str):
    return evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("topo.txt", data), node_name=node
    )


def _settled(*uploads: EvidenceUpload, timeout_s: float = 60.0) -> None:
    """Import committed uploads here, or wait for the worker that took them first: their commit
    queued their imports, and a test worker started earlier in the run (a session fixture)
    consumes that queue; the test's tables must not be emptied under it."""
    for upload in uploads:
        evidence_import(upload_id=upload.pk, task_id=f"settle-{upload.pk}")
    deadline = time.monotonic() + timeout_s
    waiting = EvidenceUpload.objects.filter(
        pk__in=[u.pk for u in uploads], status__in=[UploadStatus.QUEUED, UploadStatus.PROCESSING]
    )
    while waiting.exists() and time.monotonic() < deadline:
        time.sleep(0.1)


@pytest.mark.django_db(transaction=True)
def test_the_same_file_sent_twice_at_once_for_one_node_is_one_upload(candidate):
    """The second sending does not see the first until it commits; the unique index holds it
    back, then it answers with the first upload and keeps no file of its own."""
    data = sample_bytes(TOPO)
    with transaction.atomic():
        first, created = _submit(candidate, data, "gpu-a")
        thread, outcome = in_thread(lambda: _submit(candidate, data, "gpu-a"))
        thread.join(timeout=1.0)
        assert thread.is_alive(), "the second sending did not wait for the first"
    thread.join(timeout=60)
    assert created and "error" not in outcome, outcome
    again, created_again = outcome["result"]
    assert (again.pk, created_again) == (first.pk, False)
    assert EvidenceUpload.objects.filter(candidate=candidate).count() == 1
    folder = Path(first.file.path).parent
    assert sorted(p.name for p in folder.iterdir()) == [first.sha256], "no second copy kept"
    _settled(first)


@pytest.mark.django_db(transaction=True)
def test_the_same_file_sent_at_once_for_two_nodes_is_two_uploads(candidate):
    data = sample_bytes(TOPO)
    with transaction.atomic():
        first, _created = _submit(candidate, data, "gpu-a")
        thread, outcome = in_thread(lambda: _submit(candidate, data, "gpu-b"))
        thread.join(timeout=60)  # a loaded machine is slow, never blocked
        assert not thread.is_alive(), "another node's upload waited for this one"
    assert "error" not in outcome, outcome
    second, created = outcome["result"]
    assert created and second.pk != first.pk
    assert {u.node_name for u in EvidenceUpload.objects.filter(candidate=candidate)} == {
        "gpu-a",
        "gpu-b",
    }
    _settled(first, second)


def test_deleting_one_node_s_upload_keeps_the_other_node_s_file_and_evidence(
    client, candidate, members, django_capture_on_commit_callbacks
):
    from portal import audit

    data = sample_bytes(TOPO)
    with transaction.atomic():
        first, _ = _submit(candidate, data, "gpu-a")
        second, _ = _submit(candidate, data, "gpu-b")
    for upload in (first, second):
        assert _import(upload.pk).status == UploadStatus.DONE
    with django_capture_on_commit_callbacks(execute=True):
        record = evidence_upload_delete(
            upload=first, reason="Wrong image.", by=members["procurement"]
        )
    assert not first.file.storage.exists(first.file.name)
    with second.file.open("rb") as stored:
        assert stored.read() == data
    assert _summaries(candidate) == {("gpu-b", "nvidia_smi_topo")}
    # The record says whose evidence was deleted: the same bytes are still gpu-b's.
    assert (record.sha256, record.node_name) == (second.sha256, "gpu-a")
    [entry] = audit.evaluation_history(candidate.evaluation, kinds=["evidence"])
    assert [(c.field, c.before) for c in entry.changes if c.field == "node_name"] == [
        ("node_name", "gpu-a")
    ]
    client.force_login(members["viewer"])
    url = reverse("evaluation-history", args=[candidate.evaluation_id])
    for language, label in (("en", "node"), ("zh-hans", "节点")):
        page = client.get(url, {"kind": "evidence"}, HTTP_ACCEPT_LANGUAGE=language)
        shown = page.content.decode().split('<dl class="changes">')[1].split("</dl>")[0]
        assert f"<dt>{label}</dt>" in shown and "<del>gpu-a</del>" in shown, language


def test_retracting_one_node_s_failed_upload_keeps_the_other_node_s_file(
    candidate, members, django_capture_on_commit_callbacks
):
    data = b"nothing any tool prints\n" * 3
    engineer = members["engineer"]
    with transaction.atomic():
        uploads = [
            evidence_submit(
                candidate=candidate,
                uploaded_file=SimpleUploadedFile("notes.txt", data),
                node_name=node,
                user=engineer,
            )[0]
            for node in ("gpu-a", "gpu-b")
        ]
    for upload in uploads:
        assert _import(upload.pk).status == UploadStatus.FAILED
    with django_capture_on_commit_callbacks(execute=True):
        evidence_retract(upload=uploads[0], by=engineer)
    assert not uploads[0].file.storage.exists(uploads[0].file.name)
    assert uploads[1].file.storage.exists(uploads[1].file.name)
    # gpu-a may send it again: a new upload; gpu-b's is still the one received earlier.
    with transaction.atomic():
        _again, created = _submit(candidate, data, "gpu-a")
        kept, kept_created = _submit(candidate, data, "gpu-b")
    assert created and (kept.pk, kept_created) == (uploads[1].pk, False)


def test_the_same_run_output_for_two_nodes_is_named_as_one_node_under_two_names(candidate):
    """A static listing is the same on every node; a run's log (timings, bandwidths) never is:
    the same nccl-tests output sent for two nodes is one run, and the candidate page names it
    with the hardware shown under two node names."""
    from portal.services.fingerprints import SAME_CONTENT, node_name_reuse

    nccl, topo = sample_bytes("nccl-a100-8gpu.txt"), sample_bytes(TOPO)
    with transaction.atomic():
        sent = [_submit(candidate, data, n)[0] for data in (nccl, topo) for n in ("a", "b")]
    for upload in sent:
        assert _import(upload.pk).status == UploadStatus.DONE
    assert [(r["kind"], r["value"], r["nodes"]) for r in node_name_reuse(candidate)] == [
        (SAME_CONTENT, sent[0].sha256, ["a", "b"])
    ]


def test_a_decision_line_without_its_upload_id_links_its_own_node_s_upload(candidate):
    """A record too old to name its upload is traced by sha256: of two nodes' uploads of the
    same bytes, the one of the line's node."""
    from types import SimpleNamespace

    from portal.selectors import decision_evidence

    data = sample_bytes(TOPO)
    with transaction.atomic():
        uploads = {n: _submit(candidate, data, n)[0] for n in ("gpu-a", "gpu-b")}
    entry = {"sha256": uploads["gpu-b"].sha256, "candidate_id": candidate.pk, "node_name": "gpu-b"}
    [[line]] = decision_evidence(
        [SimpleNamespace(snapshot={"evidence": [entry]})], candidate.evaluation
    )
    assert line["upload_number"] == uploads["gpu-b"].pk
    assert line["url"].endswith(f"/uploads/{uploads['gpu-b'].pk}/")


class _OtherDatabase:
    vendor = "sqlite"  # any but PostgreSQL: the ORM's lookup


def test_the_orm_lookup_finds_what_the_written_out_one_finds(candidate, monkeypatch):
    from portal.services.evidence import submit

    data = sample_bytes(TOPO)
    with transaction.atomic():
        older = _submit(candidate, data, "gpu-b")[0]
        # The copy for no node after a node's (a race of the two: submit answers one sent for
        # no node with the node's) is still the one a file sent for no node finds.
        EvidenceUpload.objects.create(
            candidate=candidate, sha256=older.sha256, size_bytes=len(data), original_name="t"
        )
        _submit(candidate, data, "gpu-a")
        _submit(candidate, b"other\n", "gpu-a")
    digest = older.sha256
    # Any node without the unnamed copy first is a bundle's lookup: one row at most.
    asks = [{"node": node} for node in ("gpu-a", "gpu-b", "", "gpu-c")]
    asks += [{"node": None, "unnamed_first": True}]

    def found(**ask):
        upload = submit._existing_upload(candidate_id=candidate.pk, sha256=digest, **ask)
        return None if upload is None else upload.content_node

    written_out = [found(**ask) for ask in asks]
    with monkeypatch.context() as patch:
        patch.setattr(submit, "connection", _OtherDatabase())
        assert [found(**ask) for ask in asks] == written_out
    assert written_out == ["gpu-a", "gpu-b", "", None, ""]
