"""A plain file (no collector bundle, so no manifest hostname) sent with an upload token that names
one node, and a ``node_name`` form field naming another: kept, filed under the name sent, and the
mismatch recorded (error_params.node_mismatch with the token's node and the name sent) from the
upload's answer on, and shown on the upload and candidate pages in English and Chinese, as a
bundle from another host is (tests/portal/test_upload_node_mismatch.py)."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from portal.models import EvidenceUpload, Measurement, UploadStatus
from portal.services.evidence import evidence_import
from portal.services.tokens import upload_token_create

from .conftest import make_bundle, sample_bytes

pytestmark = pytest.mark.django_db
API = "/api/v1/evidence/"
EN = (
    "The upload token was issued for node “hgx-h100-node-02”, but the upload was sent for node "
    "“hgx-h100-node-07”. The evidence is filed under “hgx-h100-node-07”: check which machine "
    "the file came from."
)
ZH = "上传令牌签发给节点“hgx-h100-node-02”，但本次上传指定的节点是“hgx-h100-node-07”。"
FLAG = {"node_mismatch": {"token_node": "hgx-h100-node-02", "node_name": "hgx-h100-node-07"}}


def _send(client, candidate, members, *, token_node, data, name="nccl.txt", **fields):
    _token, raw = upload_token_create(
        candidate=candidate, created_by=members["procurement"], node_name=token_node
    )
    response = client.post(
        API, {"file": SimpleUploadedFile(name, data), **fields}, HTTP_AUTHORIZATION=f"Bearer {raw}"
    )
    assert response.status_code == 202, response.content
    return response.json()


def _import(upload_id: int) -> EvidenceUpload:
    evidence_import(upload_id=upload_id, task_id=f"t-{upload_id}")
    return EvidenceUpload.objects.get(pk=upload_id)


def _pages(candidate) -> list[str]:
    args = [candidate.evaluation_id, candidate.pk]
    return [reverse(name, args=args) for name in ("candidate-evidence", "candidate-detail")]


def _shown(client, candidate, user, text_en, text_zh) -> None:
    client.force_login(user)
    for url in _pages(candidate):
        page = client.get(url).content.decode()
        assert text_en in page, url
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        assert text_zh in page, url


def test_a_plain_file_sent_for_another_node_is_kept_filed_under_that_name_and_flagged(
    client, candidate, members
):
    sent = _send(
        client,
        candidate,
        members,
        token_node="hgx-h100-node-02",
        data=sample_bytes("nccl-a100-8gpu.txt"),
        node_name="hgx-h100-node-07",
    )
    # The answer already says so, and the pages flag the upload while it waits.
    assert sent["error_params"] == FLAG and sent["node_name"] == "hgx-h100-node-07"
    _shown(client, candidate, members["engineer"], EN, ZH)

    upload = _import(sent["id"])
    assert upload.status == UploadStatus.DONE, upload.error
    assert upload.node_name == "hgx-h100-node-07" and upload.error == ""
    assert upload.error_params == FLAG
    nodes = set(Measurement.objects.filter(upload=upload).values_list("node_name", flat=True))
    assert nodes == {"hgx-h100-node-07"}
    _shown(client, candidate, members["engineer"], EN, ZH)


def test_a_plain_file_that_fails_to_parse_keeps_the_flag(client, candidate, members):
    sent = _send(
        client,
        candidate,
        members,
        token_node="hgx-h100-node-02",
        data=b"nothing any parser knows\n" * 20,
        node_name="hgx-h100-node-07",
    )
    upload = _import(sent["id"])
    assert upload.status == UploadStatus.FAILED
    assert upload.error_params["node_mismatch"] == FLAG["node_mismatch"]
    assert upload.error_params.get("failures"), "the failure itself is kept beside the flag"
    _shown(client, candidate, members["engineer"], EN, ZH)


@pytest.mark.parametrize(
    ("token_node", "fields", "filed_under"),
    [
        # The same host, in capitals or as its FQDN.
        ("hgx-h100-node-02", {"node_name": "HGX-H100-Node-02.cluster.local"}, None),
        # No name sent: the token's node.
        ("hgx-h100-node-02", {}, "hgx-h100-node-02"),
        # A token for no node in particular: the name sent, nothing to disagree with.
        ("", {"node_name": "hgx-h100-node-07"}, "hgx-h100-node-07"),
    ],
)
def test_no_flag_when_the_names_agree_or_one_is_missing(
    client, candidate, members, token_node, fields, filed_under
):
    sent = _send(
        client,
        candidate,
        members,
        token_node=token_node,
        data=sample_bytes("nccl-a100-8gpu.txt"),
        **fields,
    )
    assert sent["error_params"] == {}
    upload = _import(sent["id"])
    assert upload.status == UploadStatus.DONE and upload.error_params == {}
    assert upload.node_name == (filed_under or fields["node_name"])
    client.force_login(members["engineer"])
    for url in _pages(candidate):
        assert "node-mismatch" not in client.get(url).content.decode()


def test_a_bundle_whose_hostname_agrees_with_the_token_but_sent_for_another_node_is_flagged(
    client, candidate, members
):
    """The machine says it is the token's node, but the sender filed it under another name:
    the evidence goes under the name sent, so the page says so."""
    token, raw = upload_token_create(
        candidate=candidate, created_by=members["procurement"], node_name="hgx-h100-node-02"
    )
    data = make_bundle(
        {"nccl.txt": sample_bytes("nccl-a100-8gpu.txt")},
        hostname="hgx-h100-node-02",
        nonce=token.nonce,
    )
    response = client.post(
        API,
        {"file": SimpleUploadedFile("bundle.tar.gz", data), "node_name": "hgx-h100-node-07"},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 202, response.content
    upload = _import(response.json()["id"])
    assert upload.status == UploadStatus.DONE, upload.error
    assert upload.error_params == FLAG and upload.node_name == "hgx-h100-node-07"


def test_the_history_shows_the_flag_in_words(client, candidate, members):
    _send(
        client,
        candidate,
        members,
        token_node="hgx-h100-node-02",
        data=sample_bytes("nccl-a100-8gpu.txt"),
        node_name="hgx-h100-node-07",
    )
    client.force_login(members["viewer"])
    url = reverse("evaluation-history", args=[candidate.evaluation_id])
    page = client.get(url, {"kind": "upload"}).content.decode()
    assert EN in page and "node_mismatch" not in page
    page = client.get(url, {"kind": "upload"}, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert ZH in page
