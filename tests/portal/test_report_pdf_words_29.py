"""The printed report keeps words whole: table headers and badges wrap at spaces only, never
inside a word ("Candida|te", "Checklis|t", "disquali|fied" with a fixed table layout and
break-anywhere; found by a trust review), in English and Chinese; and an emoji in a rationale
prints from an emoji font instead of an empty box. The PDFs are made by headless Chromium and
read back with poppler's pdftotext and pdffonts (scripts/lib.sh installs both)."""

import re
import shutil
import subprocess
from itertools import pairwise

import pytest
from django.utils import translation

from portal.exports import report_document
from portal.models import Evaluation
from portal.services.reports import chromium_pdf, report_html

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1
# The ranking's column headers and badge (templates/portal/_evaluation_results.html,
# views.dashboard) beside the report's own tables' headers (exports.report_document).
RANKING_HEADERS = ["Candidate", "Delivery form", "Cost / effective GPU-hour", "Ranks first"]
RANKING_HEADERS += ["Checklist", "disqualified"]
# Where a line may break in English: spaces, and after a hyphen or a slash ("GPU-|hour").
BREAKS = r"[\s/-]+"


def _poppler(tool: str, pdf: bytes, tmp_path, *args: str) -> str:
    """``tool``'s standard output on ``pdf``."""
    binary = shutil.which(tool)
    assert binary, f"{tool} is missing: scripts/test.sh installs poppler-utils"
    path = tmp_path / "report.pdf"
    path.write_bytes(pdf)
    done = subprocess.run(
        [binary, *args, str(path), *(["-"] if tool == "pdftotext" else [])],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return done.stdout.decode()


def _pdf(language: str) -> tuple[bytes, dict]:
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    with translation.override(language):
        return chromium_pdf(report_html(evaluation)), report_document(evaluation)


def _words(labels) -> set[str]:
    """Each header's words of four letters or more."""
    words = set()
    for label in labels:
        for word in re.split(BREAKS, str(label)):
            word = word.strip("()[]:,.%")
            if len(word) >= 4 and word.isalpha():
                words.add(word)
    return words


def _split_words(tokens: list[str], words: set[str]) -> list[str]:
    """Words printed in two pieces: in pdftotext's drawing order (-raw) a cell's lines follow
    one another, so "Candida" "te" are neighbours."""
    return [f"{a}|{b}" for a, b in pairwise(tokens) if a + b in words]


def test_english_headers_and_badges_print_whole_words(demo, tmp_path):
    from django.contrib.auth import get_user_model

    from portal import selectors
    from portal.services.evaluations import decision_record

    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    ranking, _none = selectors.evaluation_ranking(evaluation=evaluation, candidates=False)
    best = next(r for r in ranking.results if not r.disqualified)
    decision_record(
        evaluation=evaluation,
        candidate=evaluation.candidates.get(pk=best.candidate_id),
        rationale="The best fabric for the price 🚀",
        by=get_user_model().objects.get(username="manager"),
    )
    pdf, report = _pdf("en")
    text = _poppler("pdftotext", pdf, tmp_path, "-raw", "-enc", "UTF-8")
    tokens = [t for t in (t.strip("()[]:,.%") for t in re.split(BREAKS, text)) if t]
    words = _words(
        RANKING_HEADERS
        + report["tco_header"]
        + report["checklist_header"]
        + report["evidence_header"]
    )
    assert {"Candidate", "Checklist", "effective", "disqualified"} <= words
    assert _split_words(tokens, words) == []
    assert words - set(tokens) == set(), "every header word is printed whole"
    assert "🚀" in text  # the rationale reaches the PDF whole


def test_an_emoji_prints_from_an_emoji_font_not_as_an_empty_box(tmp_path):
    """With the portal's font stack, the rocket comes from a colour emoji font (embedded as a
    Type 3 bitmap font); without one, Chromium draws a text font's empty box (DejaVu Sans)."""
    from portal.services.reports import _static_text

    page = (
        '<!doctype html><html lang="en"><meta charset="utf-8">'
        f"<style>{_static_text('portal/portal.css')}</style><p>🚀</p></html>"
    )
    fonts = _poppler("pdffonts", chromium_pdf(page), tmp_path).splitlines()[2:]
    assert fonts and all(" Type 3 " in line for line in fonts), fonts


def test_chinese_headers_and_badges_print_whole(demo, tmp_path):
    pdf, report = _pdf("zh-hans")
    text = _poppler("pdftotext", pdf, tmp_path, "-raw", "-enc", "UTF-8")
    with translation.override("zh-hans"):
        badge = translation.gettext("disqualified")
    assert badge == "已淘汰"
    # Chinese may break between characters inside running text; a column header or a badge is
    # one word: each run of Chinese characters in it is printed on one line.
    labels = [badge, *report["checklist_header"], *report["evidence_header"]]
    runs = {run for label in labels for run in re.findall(r"[\u4e00-\u9fff]{2,}", str(label))}
    assert {"已淘汰", "验证状态", "检查项"} <= runs
    assert sorted(run for run in runs if run not in text) == []
