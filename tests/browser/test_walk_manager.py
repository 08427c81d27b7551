"""Issue 14's proof, third walk: a manager reviews a document-backed answer, sets the weights,
records the decision, prints the report and exports the workbook. In English and Chinese, on a
desktop and on a phone."""

import io
from decimal import Decimal

import pytest
from openpyxl import load_workbook
from playwright.sync_api import expect

from portal.models import AnswerReview, DecisionRecord, Evaluation, EvaluationStatus

from .conftest import CHART_TEXT_CLASHES, walk_in_both_languages_and_sizes
from .test_report_print import A4_PRINT_WIDTH_PX

pytestmark = pytest.mark.browser

WEIGHTS = {"stability": 30, "network": 30, "storage": 10, "security": 5, "cost": 15, "support": 10}
NOTE = "MLPS level 3 certificate no. 2026-0417, valid to 2027-06 (page 1)."
RATIONALE = "Best measured bus bandwidth; full control over the nodes."

PRINTED = """() => ({
  main: document.querySelector('main').getBoundingClientRect().width,
  narrowest: Math.min(...[...document.querySelectorAll('[data-chart].js-plotly-plot .main-svg')]
    .map((svg) => svg.getBoundingClientRect().width)),
  toolbars: [...document.querySelectorAll('.modebar-container')]
    .filter((el) => getComputedStyle(el).display !== 'none').length,
})"""


@walk_in_both_languages_and_sizes(1)
def test_manager_reviews_weighs_decides_prints_and_exports(walk, tmp_path):
    page, portal = walk.page, walk.portal
    walk.start("manager")
    # Review: the leading candidate's scores and evidence, then its first document-backed
    # answer with the attachment list open. (The dashboard's charts are drawn on the report.)
    portal.goto("/evaluations/1/candidates/1/")
    walk.check("candidate")
    with portal.navigation():
        page.locator("main a[href='/evaluations/1/candidates/1/review/']").first.click()
    item = page.locator("section.review-item:has(form.review-form)").first
    number = int(item.locator("input[name=item]").get_attribute("value"))
    item.locator("input[value=verified]").check()
    item.locator(f"textarea[name=review-{number}-note]").fill(NOTE)
    with portal.navigation():
        item.locator("button[type=submit]").click()
    expect(page.locator(".messages")).to_contain_text(
        walk.text("The review is recorded.", "审核已记录。")
    )
    expect(page.locator(f"#item-{number} .review-record")).to_contain_text(NOTE)
    review = AnswerReview.objects.get(answer__candidate_id=1, answer__item__number=number)
    assert (review.verdict, review.note, review.reviewed_by.username) == (
        "verified",
        NOTE,
        "manager",
    )
    walk.check("review")

    # Weights that make 100, saved as they are.
    portal.goto("/evaluations/1/weights/")
    for dimension, value in WEIGHTS.items():
        field = page.locator(f"#weights-form input.weight-number[name=w_{dimension}]")
        # Only the weights that change are typed, as a user would (each input redraws the
        # preview).
        if Decimal(field.input_value()) != value:
            field.fill(str(value))
    expect(page.locator("#weights-sum-value")).to_have_text("100.0")
    with portal.navigation():
        page.locator("#weights-form button[name=direct]").click()
    expect(page.locator(".messages")).to_contain_text(walk.text("Weights saved.", "权重已保存。"))
    # The page after the save is a fresh GET (post/redirect/get): the saved values are shown.
    expect(page.locator("#weights-form [name=w_stability]")).to_have_value("30.0")
    expect(page.locator("#weights-sum-value")).to_have_text("100.0")
    evaluation = Evaluation.objects.get(pk=1)
    assert {d: getattr(evaluation, f"weight_{d}") for d in WEIGHTS} == {
        d: Decimal(v) for d, v in WEIGHTS.items()
    }
    walk.check("weights")

    # The decision, recorded once.
    portal.goto("/evaluations/1/decision/")
    chosen = int(
        page.locator("select[name=candidate] option[value]:not([value=''])").first.get_attribute(
            "value"
        )
    )
    page.select_option("select[name=candidate]", str(chosen))
    page.fill("textarea[name=rationale]", RATIONALE)
    walk.check("decision-form")
    with portal.navigation():
        page.locator("main form:not(.reopen) button[type=submit].primary").click()
    expect(page.locator(".messages")).to_contain_text(
        walk.text("The decision is recorded.", "决策已记录。")
    )
    expect(page.locator("section.decision-record .rationale")).to_have_text(RATIONALE)
    decision = DecisionRecord.objects.get(evaluation_id=1)
    assert (decision.candidate_id, decision.rationale) == (chosen, RATIONALE)
    assert Evaluation.objects.get(pk=1).status == EvaluationStatus.DECIDED
    walk.check("decided")

    # The report carries the decision; printed, charts take the page width, no toolbars, and
    # no chart title runs into a label.
    portal.goto("/evaluations/1/report/")
    portal.wait_for_charts(minimum=6)
    expect(page.locator(".report-decision .rationale")).to_have_text(RATIONALE)
    walk.check("report")
    page.emulate_media(media="print")
    page.set_viewport_size({"width": A4_PRINT_WIDTH_PX, "height": 1000})
    # Each chart is redrawn at the printed page's width.
    page.wait_for_function(
        """(width) => [...document.querySelectorAll('[data-chart].js-plotly-plot .main-svg')]
             .every((svg) => Math.abs(svg.getBoundingClientRect().width - width) < 0.05 * width)""",
        arg=A4_PRINT_WIDTH_PX,
    )
    printed = page.evaluate(PRINTED)
    assert printed["toolbars"] == 0
    assert printed["narrowest"] >= printed["main"] * 0.95, printed
    assert page.evaluate(CHART_TEXT_CLASHES) == []
    walk.screenshot("printed")
    page.emulate_media(media="screen")
    page.set_viewport_size({"width": walk.width, "height": 900})

    # The workbook: a file name that says what it is, and it opens with every section.
    with page.expect_download() as download:
        page.locator("main a[href='/evaluations/1/export.xlsx']").click()
    name = download.value.suggested_filename
    assert name.startswith("gpu-evaluation-1-") and name.endswith(".xlsx"), name
    path = tmp_path / name
    download.value.save_as(path)
    workbook = load_workbook(io.BytesIO(path.read_bytes()), read_only=True)
    ranking, decision_sheet = walk.text("Ranking", "排名"), walk.text("Decision", "决策")
    shortfalls = walk.text("POC shortfalls", "POC 未达项")
    assert {ranking, decision_sheet, shortfalls} <= set(workbook.sheetnames), workbook.sheetnames
    assert len(workbook.sheetnames) == 8
    rows = list(workbook[ranking].iter_rows(values_only=True))
    assert len(rows) >= 1 + 6  # the header and the six candidates
    cells = [c for row in workbook[decision_sheet].iter_rows(values_only=True) for c in row]
    assert RATIONALE in cells
    walk.done()
