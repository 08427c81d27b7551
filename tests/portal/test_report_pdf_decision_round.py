"""The report's PDF names the decision round and what produced its ranking (the scoring model's
revision and the parsers' version) for the current round and for each round set aside, as the
Decision page and the export do: an auditor holding only the PDF can tell which round it
records. Read back from the PDF headless Chromium prints, with poppler's pdftotext."""

import re
import shutil
import subprocess

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation

import scoring
from portal.models import Candidate, DecisionRecord, Evaluation
from portal.services.evaluations import decision_record, evaluation_reopen
from portal.services.reports import chromium_pdf, report_html
from scoring.evidence import PARSER_VERSION

pytestmark = pytest.mark.django_db


def _decide(rationale: str) -> DecisionRecord:
    manager = get_user_model().objects.get(username="manager")
    return decision_record(
        evaluation=Evaluation.objects.get(pk=1),
        candidate=Candidate.objects.get(pk=1),
        rationale=rationale,
        by=manager,
    )


def _pdf_text(language: str, tmp_path) -> str:
    binary = shutil.which("pdftotext")
    assert binary, "pdftotext is missing: scripts/test.sh installs poppler-utils"
    with translation.override(language):
        pdf = chromium_pdf(report_html(Evaluation.objects.get(pk=1)))
    path = tmp_path / f"report-{language}.pdf"
    path.write_bytes(pdf)
    done = subprocess.run(
        [binary, "-enc", "UTF-8", str(path), "-"], check=True, capture_output=True, timeout=60
    )
    return done.stdout.decode()


def _squashed(text: str) -> str:
    """``text`` without white space or hyphens: a line of the PDF may wrap at either, and
    pdftotext drops a hyphen it took for a word break ("gddr-ecc" comes back "gddrecc")."""
    return re.sub(r"[\s-]+", "", text)


def _second_round() -> tuple[DecisionRecord, DecisionRecord]:
    first = _decide("Best measured fabric.")
    # An earlier round recorded by an older model and parsers: the PDF must name its own.
    snapshot = {**first.snapshot, "model_revision": "old-model-7", "parser_version": "0.9"}
    DecisionRecord.objects.filter(pk=first.pk).update(snapshot=snapshot)
    manager = get_user_model().objects.get(username="manager")
    evaluation_reopen(evaluation=first.evaluation, reason="Vendor revised the SLA.", by=manager)
    return first, _decide("Still the best fabric after the SLA change.")


def test_the_pdf_names_the_round_the_model_revision_and_the_parsers(demo, tmp_path):
    first, second = _second_round()
    assert (first.round, second.round) == (1, 2)
    text = _squashed(_pdf_text("en", tmp_path))
    current, earlier = text.split("Earlierdecisions")
    assert "Decisionround2" in current
    assert _squashed(f"scoring model revision {scoring.MODEL_REVISION}") in current
    assert _squashed(f"evidence parsers {PARSER_VERSION}") in current
    assert "Round1:" in earlier
    assert "Decisionround1" in earlier
    assert "scoringmodelrevisionoldmodel7" in earlier
    assert "evidenceparsers0.9" in earlier


def test_the_chinese_pdf_names_them_too(demo, tmp_path):
    _second_round()
    text = _squashed(_pdf_text("zh-hans", tmp_path))
    with translation.override("zh-hans"):
        earlier_title = translation.gettext("Earlier decisions")
    current, earlier = text.split(earlier_title)
    assert _squashed(scoring.MODEL_REVISION) in current and PARSER_VERSION in current
    assert "第2轮决策" in current
    assert "评分模型修订版oldmodel7" in earlier and "证据解析器0.9" in earlier
    assert "第1轮决策" in earlier
