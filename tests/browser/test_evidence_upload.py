"""An engineer uploads a collector bundle through the page; a real worker parses it. Each file's
line follows its import (never green before it succeeded); junk fails with its reason, a
duplicate of a failed file says so, and the uploader can retract it."""

import pytest
from playwright.sync_api import expect

from portal.models import EvidenceUpload, Measurement, UploadStatus
from tests.portal.conftest import make_bundle, sample_bytes

pytestmark = [pytest.mark.browser, pytest.mark.worker]

# Demo candidate 3 (vGPU cloud instance) has no evidence yet.
EVIDENCE = "/evaluations/1/candidates/3/evidence/"
EXPECTED_KINDS = {
    "nccl-all-reduce.txt": "nccl_tests",
    "ibstat.txt": "ibstat",
    "lspci.txt": "lspci",
}
# What the page shows for each kind: the tool that prints it.
SHOWN_KINDS = {"nccl_tests": "nccl-tests", "ibstat": "ibstat", "lspci": "lspci"}


@pytest.mark.django_db(transaction=True)
def test_engineer_uploads_a_bundle_and_sees_it_parsed(portal, celery_worker_process):
    page = portal.page
    bundle = make_bundle(
        {
            "nccl-all-reduce.txt": sample_bytes("nccl-a100-8gpu.txt"),
            "ibstat.txt": sample_bytes("ibstat-roce-some-down.txt"),
            "lspci.txt": sample_bytes("lspci-kvm-vm.txt"),
        },
        hostname="poc-node-7",
    )
    portal.login("engineer")
    portal.goto(EVIDENCE)
    expect(page.locator("#upload-list .empty")).to_be_visible()

    page.set_input_files(
        "input#evidence-files",
        files=[{"name": "poc-node-7.tar.gz", "mimeType": "application/gzip", "buffer": bundle}],
    )
    # No node name typed: the bundle manifest's hostname names the node.
    with page.expect_response(lambda r: r.url.endswith("/api/v1/evidence/")) as sent:
        page.locator("#upload-form").get_by_role("button", name="Upload").click()
    assert sent.value.status == 202, sent.value.text()

    progress = page.locator("#upload-progress li")
    expect(progress).to_have_count(1)
    expect(progress.locator("progress")).to_have_attribute("value", "100")
    # The line follows the import: queued or importing first, then done with the kinds found.
    expect(progress).to_have_class("ok", timeout=30_000)
    expect(progress).to_contain_text("imported: nccl-tests, ibstat, lspci")

    # The list polls every 2 s while the worker imports the bundle, then stops.
    row = page.locator("#upload-list tr[data-upload-id]")
    expect(row).to_have_count(1)
    # Columns: upload number, file, node, status, parser, files inside, received.
    expect(row.locator("td").nth(1)).to_contain_text("poc-node-7.tar.gz")
    expect(row.locator(".upload-status")).to_have_text("Done", timeout=30_000)
    # The per-file report loads when opened (htmx), not with the list.
    report = row.locator("td").nth(5)
    report.locator("summary").click()
    for name, kind in EXPECTED_KINDS.items():
        expect(report).to_contain_text(f"{name}: {SHOWN_KINDS[kind]}")
    expect(row.locator("td").nth(2)).to_have_text("poc-node-7")
    expect(page.locator("#upload-list")).not_to_have_attribute("hx-trigger", "every 2s")
    portal.screenshot("done")

    upload = EvidenceUpload.objects.get(candidate_id=3)
    assert upload.status == UploadStatus.DONE, upload.error
    assert {r["file"]: r["kind"] for r in upload.report} == EXPECTED_KINDS
    assert Measurement.objects.filter(upload=upload, node_name="poc-node-7").exists()

    # The candidate page lists the measurements taken from it.
    with portal.navigation():
        page.get_by_role("link", name="Scores and evidence").click()
    expect(page.locator("main")).to_contain_text("poc-node-7")
    expect(page.locator("main table").filter(has_text="nccl-tests").first).to_be_visible()
    # Its per-file report opens there too (htmx loads it when the reader opens it).
    listed = page.locator("#upload-list tr[data-upload-id]")
    expect(listed).to_have_count(1)
    listed.locator("td").nth(5).locator("summary").click()
    for name, kind in EXPECTED_KINDS.items():
        expect(listed.locator("td").nth(5)).to_contain_text(f"{name}: {SHOWN_KINDS[kind]}")
    portal.assert_no_js_errors()


@pytest.mark.django_db(transaction=True)
def test_junk_fails_with_its_reason_a_duplicate_says_so_and_it_can_be_retracted(
    portal, celery_worker_process
):
    page = portal.page
    junk = b"this is not evidence at all\n"
    portal.login("engineer")
    portal.goto(EVIDENCE)

    def send(name: str) -> None:
        page.set_input_files(
            "input#evidence-files",
            files=[{"name": name, "mimeType": "text/plain", "buffer": junk}],
        )
        page.locator("#upload-form").get_by_role("button", name="Upload").click()

    send("junk.txt")
    line = page.locator("#upload-progress li").first
    expect(line).to_have_class("bad", timeout=30_000)
    expect(line).to_contain_text("failed: Nothing in this upload could be parsed.")
    row = page.locator("#upload-list tr[data-upload-id]")
    expect(row.locator(".upload-status")).to_have_text("Failed")

    send("junk-again.txt")
    again = page.locator("#upload-progress li").nth(1)
    expect(again).to_have_class("bad")
    expect(again).to_contain_text("already received, and its import failed")
    expect(page.locator("#upload-progress li.ok")).to_have_count(0)
    portal.screenshot("failed")

    with portal.navigation():
        row.get_by_role("button", name="Retract").click()
    expect(page.locator(".messages")).to_contain_text("“junk.txt” was retracted")
    expect(page.locator("#upload-list .empty")).to_be_visible()
    assert not EvidenceUpload.objects.filter(candidate_id=3).exists()
    assert EvidenceUpload.history.filter(history_type="-", original_name="junk.txt").exists()
    portal.assert_no_js_errors()
