"""A recorded decision stays recorded: after it, an upload, an upload token and a catalogue edit
are tried through the pages; the decided dashboard, report and export stay as decided."""

import pytest
from playwright.sync_api import expect

from portal.models import Candidate, EvidenceUpload, Offering, UploadToken

pytestmark = pytest.mark.browser


def _results(page) -> list[str]:
    """The ranking as the page shows it: every table's text, without the surrounding page."""
    return page.locator("main table").all_inner_texts()


def test_a_decided_evaluation_refuses_changes_and_its_pages_stay_unchanged(portal, tmp_path):
    page = portal.page
    portal.login("manager")
    portal.goto("/evaluations/1/decision/")
    chosen = page.locator("select[name=candidate] option").first.get_attribute("value")
    page.select_option("select[name=candidate]", chosen)
    page.fill("textarea[name=rationale]", "Decided before any later change.")
    with portal.navigation():
        page.get_by_role("button", name="Record the decision").click()
    expect(page.locator("ul.messages")).to_contain_text("The decision is recorded.")

    portal.goto("/evaluations/1/report/")
    report_before = _results(page)
    portal.goto("/evaluations/1/")
    dashboard_before = _results(page)
    csv_before = page.request.get(portal.url("/evaluations/1/export.csv")).body()
    assert report_before and dashboard_before and csv_before
    portal.logout()

    portal.login("procurement")
    candidate = Candidate.objects.get(pk=int(chosen))
    uploads_before = EvidenceUpload.objects.filter(candidate=candidate).count()

    # An upload through the upload page: refused, the page says why.
    portal.goto(f"/evaluations/1/candidates/{candidate.pk}/evidence/")
    sample = tmp_path / "nvidia-smi.txt"
    sample.write_text(
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee)\n"
    )
    expect(page.locator(".decided-banner")).to_contain_text("evaluation is decided")
    expect(page.locator("#upload-form button[type=submit]")).to_be_disabled()
    # Sent anyway (a stale tab, a script): the server refuses it all the same.
    page.set_input_files("#evidence-files", str(sample))
    page.evaluate("document.getElementById('upload-form').requestSubmit()")
    expect(page.locator("#upload-progress")).to_contain_text("409")
    expect(page.locator("#upload-progress")).to_contain_text("evaluation is decided")
    assert EvidenceUpload.objects.filter(candidate=candidate).count() == uploads_before

    # A new upload token: refused with the same message; the earlier ones are all revoked.
    portal.goto(f"/evaluations/1/candidates/{candidate.pk}/tokens/")
    tokens_before = UploadToken.objects.count()
    page.fill("input[name=node_name]", "late-node")
    with portal.navigation():
        page.locator("main form button[type=submit]").first.click()
    expect(page.locator("main")).to_contain_text("evaluation is decided")
    assert UploadToken.objects.count() == tokens_before
    assert not UploadToken.objects.filter(evaluation_id=1).usable().exists()

    # A catalogue edit (procurement holds the catalogue role): saved as a new version...
    offering = Offering.objects.get(pk=candidate.offering_id)
    portal.goto(f"/offerings/{offering.pk}/edit/")
    page.fill("input[name=gpu_memory_gib]", "16")
    with portal.navigation():
        page.locator("main form button[type=submit]").last.click()
    expect(page.locator("ul.messages")).to_contain_text("saved")
    offering.refresh_from_db()
    assert offering.gpu_memory_gib == 16

    # ...which the decided evaluation never follows: no adoption is offered...
    portal.goto(f"/evaluations/1/candidates/{candidate.pk}/")
    expect(page.locator("section.catalogue-changed")).to_contain_text("16")
    expect(page.get_by_role("button", name="Adopt the new version")).to_have_count(0)
    # ...and its report, dashboard and export are those of the decision.
    portal.goto("/evaluations/1/report/")
    assert _results(page) == report_before
    portal.goto("/evaluations/1/")
    assert _results(page) == dashboard_before
    assert page.request.get(portal.url("/evaluations/1/export.csv")).body() == csv_before
    # The refusals this test provokes: the upload (409) and the token form (422).
    errors = [e for e in portal.js_errors if "409" not in e and "422" not in e]
    assert errors == [], errors
    portal.screenshot("decided-unchanged")
