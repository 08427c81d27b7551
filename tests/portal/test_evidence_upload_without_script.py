"""The evidence page's form without its script (blocked, or not loaded), and several files in
one API request: every file chosen is stored or named with the reason it was not, never
dropped without a word (attacker review: the page answered its own form with a bare 405, and
the API kept the last of several files sent as ``file``)."""

from datetime import UTC, datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from portal.models import EvidenceUpload

from .conftest import sample_bytes

pytestmark = pytest.mark.django_db
API = "/api/v1/evidence/"


def _page(candidate) -> str:
    return reverse("candidate-evidence", args=[candidate.evaluation_id, candidate.pk])


def _files(*pairs: tuple[str, bytes]) -> list[SimpleUploadedFile]:
    return [SimpleUploadedFile(name, data) for name, data in pairs]


def test_the_page_form_stores_every_file_it_posts(client, candidate, members):
    client.force_login(members["engineer"])
    nccl, topo = sample_bytes("nccl-a100-8gpu.txt"), b"GPU0\tX\n"
    response = client.post(
        _page(candidate),
        {"file": _files(("nccl.txt", nccl), ("topo.txt", topo)), "node_name": "gpu-07"},
    )
    # Post/redirect/get: reloading the page sends nothing twice.
    assert response.status_code == 302, response.content[:300]
    assert response["Location"] == _page(candidate)
    stored = EvidenceUpload.objects.filter(candidate=candidate).order_by("pk")
    assert [(u.original_name, u.node_name, u.size_bytes) for u in stored] == [
        ("nccl.txt", "gpu-07", len(nccl)),
        ("topo.txt", "gpu-07", len(topo)),
    ]
    assert all(u.uploaded_by == members["engineer"] for u in stored)
    page = client.get(response["Location"]).content.decode()
    assert "“nccl.txt” was received" in page
    assert "“topo.txt” was received" in page


def test_the_same_file_again_says_it_was_received_before(client, candidate, members):
    client.force_login(members["engineer"])
    data = sample_bytes("nccl-a100-8gpu.txt")
    client.post(_page(candidate), {"file": _files(("first.txt", data))})
    response = client.post(_page(candidate), {"file": _files(("again.txt", data))}, follow=True)
    assert EvidenceUpload.objects.filter(candidate=candidate).count() == 1
    assert "“again.txt” was received earlier, as “first.txt”" in response.content.decode()


def test_a_refused_file_is_named_and_the_others_are_kept(client, candidate, members):
    client.force_login(members["engineer"])
    response = client.post(
        _page(candidate),
        {"file": _files(("empty.txt", b""), ("good.txt", b"GPU0\tX\n"))},
        follow=True,
    )
    assert [u.original_name for u in EvidenceUpload.objects.filter(candidate=candidate)] == [
        "good.txt"
    ]
    page = response.content.decode()
    assert "“empty.txt” was not received: The file is empty." in page
    assert "“good.txt” was received" in page


def test_a_post_without_a_file_says_so_and_keeps_the_node_name(client, candidate, members):
    client.force_login(members["engineer"])
    with translation.override("zh-hans"):
        response = client.post(
            _page(candidate), {"node_name": "gpu-07"}, HTTP_ACCEPT_LANGUAGE="zh-hans"
        )
    assert response.status_code == 400
    page = response.content.decode()
    assert "请选择至少一个文件。" in page
    assert 'value="gpu-07"' in page
    assert not EvidenceUpload.objects.exists()


def test_a_viewer_cannot_upload_through_the_page(client, candidate, members):
    client.force_login(members["viewer"])
    response = client.post(_page(candidate), {"file": _files(("a.txt", b"GPU0\tX\n"))})
    assert response.status_code == 403
    assert not EvidenceUpload.objects.exists()


def test_several_files_in_one_api_request_are_refused_whole(client, upload_token):
    _token, raw = upload_token
    response = client.post(
        API,
        {"file": _files(("a.txt", sample_bytes("nccl-a100-8gpu.txt")), ("b.txt", b"GPU0\n"))},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 400
    assert response.json() == {
        "file": ["Send one file per request: this one had 2 (each is an upload of its own)."]
    }
    assert not EvidenceUpload.objects.exists()


def test_a_decided_evaluation_refuses_the_page_form_and_stores_nothing(client, candidate, members):
    candidate.evaluation.status = "decided"
    candidate.evaluation.save(update_fields=["status"])
    client.force_login(members["engineer"])
    response = client.post(_page(candidate), {"file": _files(("a.txt", b"GPU0\tX\n"))})
    assert response.status_code == 409
    assert "This evaluation is decided" in response.content.decode()
    assert not EvidenceUpload.objects.exists()


def test_an_expired_token_names_its_expiry_as_the_pages_show_times(client, upload_token):
    token, raw = upload_token
    token.expires_at = datetime(2026, 12, 3, 15, 54, 3, 250_000, tzinfo=UTC)
    token.save(update_fields=["expires_at"])
    response = client.post(
        API, {"file": _files(("a.txt", b"GPU0\n"))}, HTTP_AUTHORIZATION=f"Bearer {raw}"
    )
    assert response.status_code == 401
    assert response.json() == {"detail": "This upload token expired on 3 Dec 2026, 15:54:03 UTC."}
    response = client.get(
        "/api/v1/evidence/nonce/",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.json() == {"detail": "此上传令牌已于 2026年12月3日 15:54:03 UTC 过期。"}


def test_a_node_name_too_long_is_refused_with_the_files_unsaved_and_the_name_kept(
    client, candidate, members
):
    client.force_login(members["engineer"])
    name = "n" * 201
    response = client.post(
        _page(candidate), {"file": _files(("a.txt", b"GPU0\tX\n")), "node_name": name}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "The node name is longer than 200 characters; nothing was uploaded." in page
    assert f'value="{name}"' in page
    assert not EvidenceUpload.objects.exists()
