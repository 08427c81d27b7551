"""Issue 14's proof, second walk: an engineer goes from their home page to a candidate awaiting
evidence and uploads a good bundle, a junk file and the bundle again. Each file's line tells the
truth (done with its kinds, failed with the reason, already received), and so does the table.
In English and Chinese, on a desktop and on a phone, with a real worker importing."""

import pytest
from playwright.sync_api import expect

from portal.models import EvidenceUpload, Measurement, UploadStatus
from tests.portal.conftest import make_bundle, sample_bytes

from .conftest import walk_in_both_languages_and_sizes

pytestmark = [pytest.mark.browser, pytest.mark.worker]

# Demo candidate 3 (vGPU cloud instance) has no evidence yet.
CANDIDATE = 3
EVIDENCE = f"/evaluations/1/candidates/{CANDIDATE}/evidence/"


def _send(page, name: str, data: bytes, mime: str) -> None:
    page.set_input_files(
        "input#evidence-files", files=[{"name": name, "mimeType": mime, "buffer": data}]
    )
    with page.expect_response(lambda r: r.url.endswith("/api/v1/evidence/")) as sent:
        page.locator("#upload-form button[type=submit]").click()
    assert sent.value.status in (200, 201, 202), sent.value.text()


@walk_in_both_languages_and_sizes(0)
def test_engineer_uploads_good_junk_and_duplicate_files(walk, celery_worker_process):
    page = walk.page
    hostname = f"walk-{walk.language}-{walk.size}"
    bundle = make_bundle(
        {
            "nccl-all-reduce.txt": sample_bytes("nccl-a100-8gpu.txt"),
            "lspci.txt": sample_bytes("lspci-kvm-vm.txt"),
        },
        hostname=hostname,
    )
    walk.start("engineer")
    # The engineer's home page lists the candidates still awaiting evidence.
    awaiting = page.locator(f"section.awaiting tr[data-candidate-id='{CANDIDATE}']")
    expect(awaiting).to_contain_text(walk.text("Nothing uploaded yet", "尚未上传"))
    walk.check("home")
    with walk.portal.navigation():
        awaiting.locator(f"a[href='{EVIDENCE}']").click()
    expect(page.locator("#upload-list .empty")).to_be_visible()
    walk.check("evidence-page")

    lines = page.locator("#upload-progress li")
    rows = page.locator("#upload-list tr[data-upload-id]")

    # A good bundle: its line turns green only once imported, with the kinds found.
    _send(page, f"{hostname}.tar.gz", bundle, "application/gzip")
    expect(lines.nth(0)).to_have_attribute("data-status", "done", timeout=30_000)
    expect(lines.nth(0)).to_have_class("ok")
    expect(lines.nth(0)).to_contain_text(
        walk.text("imported: nccl-tests, lspci", "已导入：nccl-tests、lspci")
    )
    expect(rows).to_have_count(1)
    expect(rows.nth(0)).to_have_class("upload-done", timeout=30_000)
    # No node name typed: the manifest's hostname names the node.
    # Columns: upload number, file, node, ...
    expect(rows.nth(0).locator("td").nth(2)).to_have_text(hostname)
    walk.check("good-done")

    # Junk: refused by the importer, red with the reason, in the line and in the table.
    _send(page, "notes.txt", b"these are my notes, not a tool output\n", "text/plain")
    reason = walk.text(
        "Nothing in this upload could be parsed.", "此次上传中没有任何内容可以解析。"
    )
    expect(lines.nth(1)).to_have_attribute("data-status", "failed", timeout=30_000)
    expect(lines.nth(1)).to_have_class("bad")
    expect(lines.nth(1)).to_contain_text(reason)
    failed = page.locator("#upload-list tr.upload-failed")
    expect(failed).to_have_count(1, timeout=30_000)
    expect(failed).to_contain_text(reason)
    walk.check("junk-failed")

    # The same bundle again: said to be received already, and nothing new is stored.
    _send(page, f"{hostname}-again.tar.gz", bundle, "application/gzip")
    expect(lines.nth(2)).to_have_attribute("data-status", "done")
    expect(lines.nth(2)).to_contain_text(walk.text("already received earlier", "此前已收到"))
    expect(rows).to_have_count(2)
    walk.check("duplicate")

    uploads = {u.original_name: u for u in EvidenceUpload.objects.filter(candidate_id=CANDIDATE)}
    assert sorted(uploads) == sorted([f"{hostname}.tar.gz", "notes.txt"])
    good, junk = uploads[f"{hostname}.tar.gz"], uploads["notes.txt"]
    assert good.status == UploadStatus.DONE, good.error
    assert {r["kind"] for r in good.report if r.get("ok")} == {"nccl_tests", "lspci"}
    assert Measurement.objects.filter(upload=good, node_name=hostname).exists()
    assert junk.status == UploadStatus.FAILED
    walk.done()
