"""The report PDF's links lead to the portal (PORTAL_BASE_URL), not to file:///evaluations/...:
Chromium prints the report from a file on disk, where the page's relative links resolved to
file URLs (security review). Read back from the PDF with poppler's pdftohtml."""

import re
import shutil
import subprocess

import pytest
from django.utils import translation

from portal.models import Evaluation
from portal.services.reports import chromium_pdf, report_html

pytestmark = pytest.mark.django_db

BASE = "https://gpu.example.com"
PAGE = f"{BASE}/evaluations/1/report/"
SCRIPTS = re.compile(r"<script\b.*?</script>", re.DOTALL)


def _hrefs(html: str) -> list[str]:
    return re.findall(r'\shref="([^"]*)"', SCRIPTS.sub("", html))


def test_relative_links_become_absolute_and_anchors_stay_in_the_document():
    from portal.services.reports import report_links_absolute

    page = (
        '<h2 id="matrix-title">M</h2>'
        '<a href="/evaluations/1/candidates/2/#item-gpu_model">cell</a>'
        '<a class="x" href="?matrix=all&amp;x=1#matrix-title">all</a>'
        '<a href="#matrix-title">up</a><a href="#nowhere">lost</a>'
        '<a href="javascript:alert(1)">js</a><a href="https://vendor.example/">out</a>'
        '<script>var s = \'<a href="/kept">\';</script><style>a[href="/x"]{}</style>'
    )
    assert _hrefs(report_links_absolute(page, page_url=PAGE)) == [
        f"{BASE}/evaluations/1/candidates/2/#item-gpu_model",
        f"{PAGE}?matrix=all&amp;x=1#matrix-title",
        "#matrix-title",
        "https://vendor.example/",
    ]
    done = report_links_absolute(page, page_url=PAGE)
    assert "<a>lost</a>" in done and "<a>js</a>" in done
    assert "'<a href=\"/kept\">'" in done and 'a[href="/x"]' in done  # scripts, styles untouched


def test_without_an_absolute_base_a_link_that_cannot_work_is_dropped():
    from portal.services.reports import report_links_absolute

    page = '<p id="top"></p><a href="/evaluations/1/">e</a><a href="#top">t</a>'
    assert _hrefs(report_links_absolute(page, page_url="/evaluations/1/report/")) == ["#top"]


def test_the_html_handed_to_chromium_links_to_the_portal(demo, settings):
    settings.PORTAL_BASE_URL = BASE + "/"
    evaluation = Evaluation.objects.get(pk=1)
    with translation.override("en"):
        hrefs = _hrefs(report_html(evaluation))
    assert hrefs, "the report links its candidates"
    assert all(h.startswith(f"{BASE}/evaluations/1/") or h.startswith("#") for h in hrefs), hrefs
    assert any("/candidates/" in h and "#item-" in h for h in hrefs)


def test_the_pdfs_links_lead_to_the_portal(demo, settings, tmp_path):
    settings.PORTAL_BASE_URL = BASE
    evaluation = Evaluation.objects.get(pk=1)
    with translation.override("en"):
        pdf = chromium_pdf(report_html(evaluation))
    binary = shutil.which("pdftohtml")
    assert binary, "pdftohtml is missing: scripts/test.sh installs poppler-utils"
    (tmp_path / "report.pdf").write_bytes(pdf)
    xml = subprocess.run(
        [binary, "-xml", "-i", "-stdout", str(tmp_path / "report.pdf")],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout
    links = re.findall(r'<a href="([^"]*)"', xml)
    assert links, "the PDF has links"
    assert not [link for link in links if not link.startswith(f"{BASE}/evaluations/1/")], links
    assert any(re.search(r"/candidates/\d+/#item-", link) for link in links)
