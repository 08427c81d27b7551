"""The same file sent for a second node is not counted for it, and the upload's line says so:
identical content is stored once per candidate, for the node that sent it first. It said only
"already received earlier", so an engineer believed the second node's evidence was in (attacker
review, stop 36: the second node silently had no evidence under its name)."""

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
    ("language", "said"),
    [
        ("en", "not counted for node gpu-b: the same content was received before for node gpu-a"),
        ("zh-hans", "未计入节点 gpu-b：相同内容此前已为节点 gpu-a 接收"),
    ],
)
def test_the_same_file_for_a_second_node_is_said_not_to_count_for_it(portal, language, said):
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
    expect(lines.nth(1)).to_contain_text(said)
    (upload,) = EvidenceUpload.objects.filter(candidate_id=CANDIDATE)
    assert upload.node_name == "gpu-a"
    expect(lines.nth(1)).to_contain_text(f"{upload.pk}")
    # The same node sending it again is only "already received".
    _send(page, "gpu-a", data)
    expect(lines.nth(2)).not_to_contain_text("gpu-b")
