"""The report's PDF in a browser: while it is made the page says so and polls; when the link
appears, the "being made" message goes with the pending status."""

import time

import pytest
from playwright.sync_api import expect

from portal.models import PdfStatus, ReportPdf
from portal.services.reports import report_pdf_render

pytestmark = pytest.mark.browser

BEING_MADE = "The PDF is being made"


def _rendered(pdf_id: int) -> None:
    """The PDF rendered: here, as the worker's task renders it, unless a worker process
    started by an earlier test of the session took it first (a PDF starts rendering once,
    compare-and-swap), in which case it is waited for."""
    report_pdf_render(pdf_id=pdf_id)
    deadline = time.monotonic() + 60
    pdf = ReportPdf.objects.get(pk=pdf_id)
    while pdf.status not in (PdfStatus.DONE, PdfStatus.FAILED) and time.monotonic() < deadline:
        time.sleep(0.2)
        pdf.refresh_from_db()
    assert pdf.status == PdfStatus.DONE, pdf.error


def test_the_pending_message_goes_when_the_download_link_appears(portal):
    page = portal.page
    portal.login("viewer")
    portal.goto("/evaluations/1/report/")
    report_loaded = page.expect_response(
        lambda r: r.url.endswith("/evaluations/1/report/") and r.request.method == "GET"
    )
    with report_loaded as report, portal.navigation():
        page.get_by_role("button", name="Make a PDF").click()
    assert BEING_MADE in report.value.text()  # the page came with the message
    pending = page.locator("ul.messages li.pdf-pending")

    _rendered(ReportPdf.objects.get(evaluation_id=1).pk)
    # The page polls the PDF's status and swaps in the link.
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
        _rendered(ReportPdf.objects.get(evaluation_id=1).pk)
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
