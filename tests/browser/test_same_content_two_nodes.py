"""The same file sent for a second node is that node's own upload, and the upload's line says
so. Identical content was stored once per candidate, for the node that sent it first, and the
second node silently had no evidence under its name (attacker review, stop 36); the line then
said "not counted for node gpu-b". Now each node keeps its own upload of the same bytes; only
the same node sending them again (or sending them for no node) is "already received"."""

import pytest
from playwright.sync_api import expect

from portal.models import EvidenceUpload
from tests.portal.conftest import sample_bytes

pytestmark = pytest.mark.browser

CANDIDATE = 3  # demo candidate 3 (vGPU cloud instance) has no evidence yet
EVIDENCE = f"/evaluations/1/candidates/{CANDIDATE}/evidence/"


def _send(page, node: str, data: bytes) -> None:
    page.fill("input[name=node_name]", node)
    page.set_input_files(
        "input#evidence-files",
        files=[{"name": "lspci.txt", "mimeType": "text/plain", "buffer": data}],
    )
    with page.expect_response(lambda r: r.url.endswith("/api/v1/evidence/")) as sent:
        page.locator("#upload-form button[type=submit]").click()
    assert sent.value.status in (200, 202), sent.value.text()


@pytest.mark.parametrize(
    ("language", "received", "received_for_a"),
    [
        (
            "en",
            "already received earlier (",
            "already received earlier for node gpu-a, as upload {id}",
        ),
        ("zh-hans", "此前已收到（", "此前已收到，为节点 gpu-a 的上传 {id}"),
    ],
)
def test_the_same_file_for_a_second_node_is_an_upload_of_its_own(
    portal, language, received, received_for_a
):
    page = portal.page
    portal.login("engineer")
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": portal.base_url}]
    )
    portal.goto(EVIDENCE)
    data = sample_bytes("lspci-kvm-vm.txt")
    _send(page, "gpu-a", data)
    lines = page.locator("#upload-progress li")
    expect(lines).to_have_count(1)
    _send(page, "gpu-b", data)
    expect(lines).to_have_count(2)
    expect(lines.nth(1)).not_to_contain_text("gpu-a")
    uploads = EvidenceUpload.objects.filter(candidate_id=CANDIDATE).order_by("pk")
    assert [u.node_name for u in uploads] == ["gpu-a", "gpu-b"]
    first = uploads[0]
    # The same node sending it again is only "already received", without another node's name.
    _send(page, "gpu-a", data)
    expect(lines.nth(2)).to_contain_text(received)
    expect(lines.nth(2)).not_to_contain_text("gpu-")
    # Sent for no node: the upload received earlier, named by the node it counts for.
    _send(page, "", data)
    expect(lines.nth(3)).to_contain_text(received_for_a.format(id=first.pk))
    assert EvidenceUpload.objects.filter(candidate_id=CANDIDATE).count() == 2
