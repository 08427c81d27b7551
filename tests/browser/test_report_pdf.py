"""The report's PDF in a browser: while it is made the page says so and polls; when the link
appears, the "being made" message goes with the pending status."""

import pytest
from playwright.sync_api import expect

from portal.models import PdfStatus, ReportPdf
from portal.services.reports import report_pdf_render

pytestmark = pytest.mark.browser

BEING_MADE = "The PDF is being made"


def test_the_pending_message_goes_when_the_download_link_appears(portal):
    page = portal.page
    portal.login("viewer")
    portal.goto("/evaluations/1/report/")
    with portal.navigation():
        page.get_by_role("button", name="Make a PDF").click()
    # No worker consumes the queue here: the PDF stays queued until this test renders it.
    pending = page.locator("ul.messages li.pdf-pending")
    expect(pending).to_contain_text(BEING_MADE)
    expect(page.locator(".pdf-status")).to_have_attribute("data-pdf-status", "queued")

    pdf = ReportPdf.objects.get(evaluation_id=1)
    rendered = report_pdf_render(pdf_id=pdf.pk)  # what the worker's task runs: a real render
    assert rendered.status == PdfStatus.DONE, rendered.error

    expect(page.get_by_role("link", name="Download the PDF")).to_be_visible(timeout=20_000)
    expect(pending).to_have_count(0)
    assert BEING_MADE not in page.inner_text("main")
    portal.assert_no_js_errors()


def test_a_pdf_made_before_the_page_loaded_drops_the_pending_message(portal):
    """A fast worker: the PDF is done between the click's answer and the page it leads to."""
    page = portal.page
    portal.login("viewer")
    portal.goto("/evaluations/1/report/")

    def post_then_render(route):
        # The POST answered (its redirect not yet followed), then the PDF made, then the answer
        # handed to the page, which loads the report with the PDF already done.
        answer = route.fetch(max_redirects=0)
        pdf = ReportPdf.objects.get(evaluation_id=1)
        assert report_pdf_render(pdf_id=pdf.pk).status == PdfStatus.DONE
        route.fulfill(response=answer)

    page.route("**/evaluations/1/report/pdf/", post_then_render)
    report_loaded = page.expect_response(
        lambda r: r.url.endswith("/evaluations/1/report/") and r.request.method == "GET"
    )
    with report_loaded as report, portal.navigation():
        page.get_by_role("button", name="Make a PDF").click()
    assert BEING_MADE in report.value.text()  # the page came with the message
    expect(page.get_by_role("link", name="Download the PDF")).to_be_visible()
    expect(page.locator("ul.messages li.pdf-pending")).to_have_count(0)
    assert BEING_MADE not in page.inner_text("main")
    portal.assert_no_js_errors()
