"""An upload whose token names a node but whose bundle comes from another host: kept, filed under
the host that produced it (so it never mixes with the token node's own evidence), and the
mismatch recorded and shown on the upload page and the candidate page, in English and Chinese
(the tester's case: a token for hgx-h100-node-02 used by the collector on a KVM guest "vm")."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from portal.models import (
    EvidenceOrigin,
    EvidenceSummary,
    EvidenceUpload,
    Measurement,
    UploadStatus,
)
from portal.services.evidence import evidence_import
from portal.services.tokens import upload_token_create

from .conftest import make_bundle, sample_bytes

pytestmark = pytest.mark.django_db
API = "/api/v1/evidence/"
EN = (
    "The upload token was issued for node “hgx-h100-node-02”, but the bundle says it was "
    "collected on host “vm”."
)
ZH = "上传令牌签发给节点“hgx-h100-node-02”，但证据包显示其采集于主机“vm”。"


def _collector_upload(
    client, candidate, members, *, token_node: str, hostname: str, send_name: bool = True
):
    """As collector/collect.py uploads: the token, its nonce in the manifest, and the machine's
    hostname sent as node_name (or no node_name, as a hand-made API call may)."""
    token, raw = upload_token_create(
        candidate=candidate, created_by=members["procurement"], node_name=token_node
    )
    data = make_bundle(
        {"nccl.txt": sample_bytes("nccl-a100-8gpu.txt")}, hostname=hostname, nonce=token.nonce
    )
    response = client.post(
        API,
        {"file": SimpleUploadedFile("bundle.tar.gz", data)}
        | ({"node_name": hostname} if send_name else {}),
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 202, response.content
    upload_id = response.json()["id"]
    evidence_import(upload_id=upload_id, task_id=f"t-{upload_id}")
    return EvidenceUpload.objects.get(pk=upload_id)


def _pages(client, candidate, user) -> list[str]:
    client.force_login(user)
    args = [candidate.evaluation_id, candidate.pk]
    return [reverse(name, args=args) for name in ("candidate-evidence", "candidate-detail")]


@pytest.mark.parametrize("send_name", [True, False])
def test_a_bundle_from_another_host_is_kept_under_its_hostname_and_flagged(
    client, candidate, members, send_name
):
    upload = _collector_upload(
        client,
        candidate,
        members,
        token_node="hgx-h100-node-02",
        hostname="vm",
        send_name=send_name,
    )
    assert upload.status == UploadStatus.DONE, upload.error
    assert upload.origin == EvidenceOrigin.COLLECTOR
    assert upload.node_name == "vm"
    assert set(Measurement.objects.filter(upload=upload).values_list("node_name", flat=True)) == {
        "vm"
    }
    assert set(EvidenceSummary.objects.values_list("node_name", flat=True)) == {"vm"}
    assert upload.error_params == {
        "node_mismatch": {"token_node": "hgx-h100-node-02", "hostname": "vm"}
    }
    assert upload.error == ""
    for url in _pages(client, candidate, members["engineer"]):
        page = client.get(url).content.decode()
        assert EN in page, url
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        assert ZH in page, url


@pytest.mark.parametrize("hostname", ["hgx-h100-node-02", "HGX-H100-Node-02.cluster.local"])
def test_the_same_host_under_its_fqdn_or_in_capitals_is_no_mismatch(
    client, candidate, members, hostname
):
    upload = _collector_upload(
        client, candidate, members, token_node="hgx-h100-node-02", hostname=hostname
    )
    assert upload.status == UploadStatus.DONE and upload.error_params == {}
    for url in _pages(client, candidate, members["engineer"]):
        assert "node-mismatch" not in client.get(url).content.decode()


def test_a_token_without_a_node_name_takes_the_hostname_and_warns_of_nothing(
    client, candidate, members
):
    upload = _collector_upload(client, candidate, members, token_node="", hostname="vm")
    assert upload.node_name == "vm" and upload.error_params == {}
