"""The XLSX a manager can use: one sheet per section, typed and formatted cells, translated
labels, a file name that says what the file is, and no formula taken from user text."""

import io
import re
from datetime import datetime

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from portal.models import Answer, Candidate, ChecklistItem, EvidenceUpload

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db


@pytest.fixture
def viewer(client, demo):
    assert client.login(username="viewer", password=PASSWORDS["viewer"])
    return client


def _workbook(client, **headers):
    response = client.get(reverse("evaluation-export", args=[1, "xlsx"]), **headers)
    assert response.status_code == 200
    return response, load_workbook(io.BytesIO(response.content))


def test_the_workbook_has_every_section_with_typed_cells(viewer):
    response, book = _workbook(viewer)
    assert book.sheetnames == [
        "Ranking",
        "Dimensions",
        "TCO by billing model",
        "Checklist",
        "Evidence",
        "POC shortfalls",
        "Weights",
        "Decision",
    ]
    disposition = response["Content-Disposition"]
    assert re.search(
        r'filename="gpu-evaluation-1-[a-z0-9-]+-report-\d{4}-\d{2}-\d{2}\.xlsx"', disposition
    )
    candidates = Candidate.objects.filter(evaluation_id=1).count()
    assert book["Ranking"].max_row == 1 + candidates
    # Dimensions: six per candidate, contribution = score x weight.
    dims = book["Dimensions"]
    assert dims.max_row == 1 + 6 * candidates
    header = [c.value for c in dims[1]]
    row = [c.value for c in dims[2]]
    score, weight, contribution = (
        row[header.index(h)] for h in ("Score", "Weight (%)", "Contribution to the total")
    )
    assert isinstance(score, float) and abs(contribution - score * weight / 100) < 0.02
    assert dims.freeze_panes == "A2" and dims["A1"].font.bold
    # TCO: one row per candidate and billing model, numbers formatted.
    tco = book["TCO by billing model"]
    header = [c.value for c in tco[1]]
    assert {"GPU", "Total", "Per month", "Within budget", "Break-even (used days)"} <= set(header)
    total = tco.cell(2, header.index("Total") + 1)
    assert total.data_type == "n" and total.number_format == "#,##0.00"
    # Checklist: ten items per candidate with a status label.
    checklist = book["Checklist"]
    assert checklist.max_row == 1 + ChecklistItem.objects.count() * candidates
    statuses = {c.value for c in next(checklist.iter_cols(min_col=5, max_col=5, min_row=2))}
    assert statuses <= {"Unanswered", "Claimed", "Verified", "Contradicted", "Unverifiable"}
    # Evidence: every upload with its hash and a real date.
    evidence = book["Evidence"]
    uploads = EvidenceUpload.objects.filter(candidate__evaluation_id=1)
    assert evidence.max_row == 1 + uploads.count()
    header = [c.value for c in evidence[1]]
    column = {name: header.index(name) + 1 for name in header}
    hashes = {
        c.value
        for c in next(
            evidence.iter_cols(min_col=column["SHA-256"], max_col=column["SHA-256"], min_row=2)
        )
    }
    assert hashes == set(uploads.values_list("sha256", flat=True))
    # The upload's number, which evidence references cite ("upload 12 · node · file").
    numbers = {
        c.value
        for c in next(
            evidence.iter_cols(min_col=column["Upload"], max_col=column["Upload"], min_row=2)
        )
    }
    assert numbers == set(uploads.values_list("pk", flat=True))
    assert isinstance(evidence.cell(2, column["Uploaded at (UTC)"]).value, datetime)
    weights = book["Weights"]
    assert (
        abs(sum(c.value for c in next(weights.iter_cols(min_col=2, max_col=2, min_row=2))) - 100)
        < 0.5
    )
    assert all(c.data_type != "f" for ws in book for row in ws.iter_rows() for c in row)


def test_the_workbook_speaks_chinese(viewer):
    _response, book = _workbook(viewer, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert book.sheetnames == [
        "排名",
        "维度",
        "各计费方式的总拥有成本",
        "检查清单",
        "证据",
        "POC 未达项",
        "权重",
        "决策",
    ]
    header = [c.value for c in book.worksheets[2][1]]
    assert {"候选方案", "合计", "每月", "在预算内"} <= set(header)
    statuses = {c.value for c in next(book["检查清单"].iter_cols(min_col=5, max_col=5, min_row=2))}
    assert statuses and not statuses & {"Claimed", "Verified", "Unanswered"}


def test_user_text_is_never_a_formula_in_any_sheet(viewer):
    evil = '=HYPERLINK("http://example.invalid")'
    Answer.objects.filter(candidate_id=1, item__number=1).update(claim=evil)
    _response, book = _workbook(viewer)
    claims = {c.value for c in next(book["Checklist"].iter_cols(min_col=4, max_col=4))}
    assert "'" + evil in claims
    for sheet in book:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f"
                if isinstance(cell.value, str):
                    assert not cell.value.startswith("=")


def test_every_measured_rule_in_the_dimensions_sheet_names_its_evidence(viewer):
    """A measured figure in the workbook names the upload, node and file it comes from, beside
    the rule it scored (the rules cell gives only points)."""
    from portal import selectors
    from portal.models import Evaluation
    from portal.views.display import evidence_ref

    ranking, _candidates = selectors.evaluation_ranking(evaluation=Evaluation.objects.get(pk=1))
    refs = {
        (r.label, str(c.label_en), c.evidence_ref)
        for r in ranking.results
        for d in r.dimensions
        for c in d.contributions
        if c.basis == "measured" and c.evidence_ref
    }
    assert refs, "the demo's first evaluation has measured rules with evidence"
    _response, book = _workbook(viewer)
    dims = book["Dimensions"]
    header = [c.value for c in dims[1]]
    assert header[-1] == "Evidence"
    evidence_by_candidate: dict[str, str] = {}
    for row in dims.iter_rows(min_row=2, values_only=True):
        evidence_by_candidate[row[0]] = evidence_by_candidate.get(row[0], "") + (row[-1] or "")
    for label, rule, ref in refs:
        # The reference as the reader's language words it (an evidence kind by its tool).
        assert f"{rule}: {evidence_ref(ref)}" in evidence_by_candidate[label]


@pytest.mark.parametrize(
    "language, assumed, stated",
    [("en", "assumed", "stated"), ("zh-hans", "假定", "声明")],
)
def test_every_cost_assumption_of_the_tco_is_labelled_in_the_readers_language(
    demo, language, assumed, stated
):
    """The spot total prices a preemption risk and a checkpoint overhead, the hourly total paid
    or released idle days: the TCO section says which of these were stated and which assumed."""
    from django.utils import translation

    from portal.exports import report_sections
    from portal.models import Evaluation

    with translation.override(language):
        for evaluation in Evaluation.objects.filter(pk__in=(1, 2)):
            header, rows = report_sections(evaluation)["tco"]
            column = header.index("Assumed in this cost" if language == "en" else "此成本中的假定")
            by_model = {}
            for row in rows:
                by_model.setdefault(row[1], []).append(row[column])
            labels = {model: {bool(text) for text in texts} for model, texts in by_model.items()}
            spot = next(m for m in by_model if "Spot" in m or "竞价" in m)
            hourly = next(m for m in by_model if "Hourly" in m or "按小时" in m)
            assert labels[spot] == {True} and labels[hourly] == {True}
            assert all(assumed in text for text in by_model[spot])  # the overhead at least
            assert all(assumed in text or stated in text for text in by_model[hourly])
    # The demo's Pearl River offering states no spot risk: the form's default is assumed.
    with translation.override("en"):
        _header, rows = report_sections(Evaluation.objects.get(pk=2))["tco"]
        assert any("preemption risk 20 % (assumed" in str(v) for row in rows for v in row)


def test_the_reference_gpu_hour_price_the_cost_score_compares_with_is_shown_as_assumed(viewer):
    """The cost score divides the cost per effective GPU-hour by the rubric's reference price
    for the GPU, a planning figure: the comparison export and the report name it as assumed."""
    import csv

    from portal.models import Evaluation
    from scoring.rubric import load_rubric

    evaluation = Evaluation.objects.get(pk=1)
    rubric = load_rubric(evaluation.rubric_version)
    response = viewer.get(reverse("evaluation-export", args=[1, "csv"]))
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    header = rows[0]
    column = header.index("Reference price per GPU-hour (assumed)")
    assert column == header.index("Cost per effective GPU-hour") + 1
    shown = 0
    for row in rows[1:]:
        candidate = Candidate.objects.get(evaluation=evaluation, offering__name=row[2])
        if row[column - 1]:
            currency = row[header.index("Currency")]
            expected = rubric.reference_gpu_hour_price(candidate.offering.gpu_model, currency)
            assert float(row[column]) == float(expected)
            shown += 1
        else:
            assert row[column] == ""
    assert shown
    report = viewer.get(reverse("evaluation-report", args=[1])).content.decode()
    assert report.count("(assumed: the rubric&#x27;s planning figure, not a market quote)") == shown
    zh = viewer.get(reverse("evaluation-report", args=[1]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert zh.content.decode().count("假定：评分规则的规划数字") == shown


def test_the_candidate_page_names_what_its_cost_assumed(viewer):
    """The candidate page's cost per effective GPU-hour says what the report says of it: the
    reference price it is compared with (assumed) and what the recommended model assumed."""
    from portal.models import Evaluation
    from portal.selectors import evaluation_ranking

    evaluation = Evaluation.objects.get(pk=2)
    ranking, _candidates = evaluation_ranking(evaluation=evaluation)
    priced = [r for r in ranking.results if r.tco and r.tco.cost_per_effective_gpu_hour]
    assert priced
    recommended = set()
    for result in priced:
        url = reverse("candidate-detail", args=[evaluation.pk, result.candidate_id])
        html = viewer.get(url).content.decode()
        assert "(assumed: the rubric&#x27;s planning figure, not a market quote)" in html
        # only spot and hourly prices rest on assumptions (risk, idle days); a monthly or
        # reserved price is what it is
        assumes = result.tco.recommended in ("spot", "hourly")
        assert ("Assumed in this cost" in html) == assumes
        zh = viewer.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
        assert "假定：评分规则的规划数字" in zh
        assert ("此成本中的假定" in zh) == assumes
        recommended.add(result.tco.recommended)
    assert recommended & {"spot", "hourly"}, recommended
