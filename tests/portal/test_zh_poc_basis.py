"""POC runs missing at the deadline read in Chinese on Chinese pages (candidate page, answers,
knockouts, evaluation page, report, XLSX), and the TCO shows the availability and efficiency
it divides by with their basis, in both languages."""

import io
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone, translation
from openpyxl import load_workbook

from portal.models import Answer, ChecklistItem, PocPlan, VerificationStatus
from portal.services.poc import poc_deadlines_apply, poc_plan_save
from portal.views import display
from scoring import poc as rules

pytestmark = pytest.mark.django_db

# English words of the POC explanations and references that must not reach a Chinese page.
ENGLISH = (
    "POC run",
    "missing at the deadline",
    "POC plan",
    "checked nothing",
    "sequential, local NVMe",
    "multi-node all_reduce",
)


def claimed_with_plan(evaluation, candidate, members) -> PocPlan:
    """A two-node candidate (gpu01, gpu02), priced, with every item claimed, and a POC plan
    whose deadline is three days away."""
    call_command("loaddata", "checklist", verbosity=0)
    candidate.quoted_billing_model = "monthly"
    candidate.quoted_price_per_gpu = Decimal("9000")
    candidate.save()
    for item in ChecklistItem.objects.all():
        Answer.objects.create(
            candidate=candidate, item=item, claim="yes", status=VerificationStatus.CLAIMED
        )
    return poc_plan_save(
        evaluation=evaluation,
        by=members["procurement"],
        deadline=timezone.now() + timedelta(days=3),
        node_names={candidate.pk: ["gpu01", "gpu02"]},
    )


@pytest.fixture
def missed(client, evaluation, candidate, members):
    """A two-node candidate, priced, with every item claimed, whose POC deadline has passed
    with no run uploaded: every claim the runs would check is unverifiable, the fabric
    knockout applies."""
    plan = claimed_with_plan(evaluation, candidate, members)
    PocPlan.objects.filter(pk=plan.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert poc_deadlines_apply() == 1
    client.force_login(members["viewer"])
    return candidate


def pages_of(client, evaluation, candidate) -> dict[str, str]:
    """The candidate, questionnaire, evaluation, results and report pages as text."""
    urls = {
        "candidate": reverse("candidate-detail", args=[evaluation.pk, candidate.pk]),
        "questionnaire": reverse("candidate-questionnaire", args=[evaluation.pk, candidate.pk]),
        "evaluation": reverse("evaluation-detail", args=[evaluation.pk]),
        "results": reverse("evaluation-results", args=[evaluation.pk]),
        "report": reverse("evaluation-report", args=[evaluation.pk]),
    }
    pages = {}
    for name, url in urls.items():
        response = client.get(url)
        assert response.status_code == 200, name
        pages[name] = response.content.decode()
    return pages


def _workbook_text(client, evaluation) -> dict[str, str]:
    response = client.get(reverse("evaluation-export", args=[evaluation.pk, "xlsx"]))
    assert response.status_code == 200
    book = load_workbook(io.BytesIO(response.content))
    return {
        sheet.title: "\n".join(
            " | ".join("" if v is None else str(v) for v in row)
            for row in sheet.iter_rows(values_only=True)
        )
        for sheet in book.worksheets
    }


def test_missing_poc_runs_read_in_chinese(client, evaluation, missed):
    note = Answer.objects.get(candidate=missed, item__key="local_nvme").verification_note
    assert note.startswith("POC run fio sequential, local NVMe on gpu01: missing at the deadline")
    client.cookies["django_language"] = "zh-hans"
    pages = pages_of(client, evaluation, missed)
    for name, body in pages.items():
        for phrase in ENGLISH:
            assert phrase not in body, (name, phrase)
    # The answers and the score's evidence name the run, the node and the state in Chinese.
    assert "POC 测试 fio 顺序读写，本地 NVMe（gpu01）：截止时仍未提交" in pages["candidate"]
    assert "截止时仍未提交" in pages["questionnaire"]
    # The fabric knockout: its reason and its reference to the plan's runs.
    assert "POC 计划：多节点 all_reduce（nccl-tests）" in pages["candidate"]
    assert "POC 计划" in pages["results"]
    assert "截止时仍未提交" in pages["report"]
    sheets = _workbook_text(client, evaluation)
    text = "\n".join(sheets.values())
    assert "截止时仍未提交" in text
    # Notes copied from the evidence verdict (the SLA is a contract term) read in Chinese too.
    assert "SLA commitments and compensation terms" not in text
    for phrase in ENGLISH:
        assert phrase not in text, phrase

    # In English the same pages keep the English words.
    client.cookies["django_language"] = "en"
    pages = pages_of(client, evaluation, missed)
    assert (
        "POC run fio sequential, local NVMe on gpu01: missing at the deadline"
        in (pages["candidate"])
    )
    assert "POC plan: multi-node all_reduce (nccl-tests)" in pages["candidate"]


def test_the_tco_shows_availability_and_efficiency_with_their_basis(client, evaluation, missed):
    client.cookies["django_language"] = "en"
    pages = pages_of(client, evaluation, missed)
    # No all-reduce measured: the efficiency is the delivery form's assumption; the SLA is a
    # claim the POC left unverifiable, so it counts only discounted above the floor.
    section = re.search(r'<section[^>]*class="tco-basis".*?</section>', pages["candidate"], re.S)
    assert section, "the candidate page has no TCO basis"
    assert "assumed (no measurement)" in section.group(0)
    assert "stated SLA, discounted as a claim" in section.group(0)
    assert "Availability basis" in pages["report"]
    assert "assumed (no measurement)" in pages["report"]
    tco = _workbook_text(client, evaluation)["TCO by billing model"]
    assert "Efficiency basis" in tco and "assumed (no measurement)" in tco

    client.cookies["django_language"] = "zh-hans"
    pages = pages_of(client, evaluation, missed)
    section = re.search(r'<section[^>]*class="tco-basis".*?</section>', pages["candidate"], re.S)
    assert "假定（未测量）" in section.group(0)
    assert "声明的 SLA，按声明折算" in section.group(0)
    assert "假定（未测量）" in pages["report"]
    sheets = _workbook_text(client, evaluation)
    tco = next(text for title, text in sheets.items() if "计费" in title)
    assert "可用性依据" in tco and "假定（未测量）" in tco


def test_poc_explanations_round_trip_through_their_parts():
    """Every state, node pair and note the scoring writes is read back and worded in Chinese
    without English left; text that is not a POC explanation stays as written."""
    found = (
        rules.PocShortfall(f"{rules.FIO_LOCAL_SEQ}@gpu01", rules.FIO_LOCAL_SEQ, rules.MISSING),
        rules.PocShortfall(
            f"{rules.IB_WRITE_BW}@gpu01~gpu02",
            rules.IB_WRITE_BW,
            rules.RUN_FAILED,
            note="fio jobs ended in an error (seq-read)",
        ),
        rules.PocShortfall(
            f"{rules.DCGM_DIAG}@gpu03", rules.DCGM_DIAG, rules.UNPROVEN, note=rules.DCGM_SKIPPED
        ),
        rules.PocShortfall(
            rules.NCCL_MULTI_ALL_REDUCE,
            rules.NCCL_MULTI_ALL_REDUCE,
            rules.RUN_FAILED,
            note="nccl-tests reported 3 wrong results",
        ),
        rules.PocShortfall(f"{rules.INVENTORY}@gpu04", rules.INVENTORY, rules.RUN_FAILED),
    )
    text = "; ".join(s.explanation_en for s in found)
    assert rules.parse_explanations(text) == found
    assert rules.parse_explanations("the SLA document says 99.5 %") is None
    ref = f"{text} [gpu01: fio.json (upload 7)] | offering: sla_availability_pct = 99.9"
    with translation.override("zh-hans"):
        shown = display.evidence_ref(ref)
        assert "gpu01 与 gpu02" in shown and "nccl-tests 报告 3 个错误结果" in shown
        assert "（上传 7）" in shown
        for phrase in ("POC run", " on ", "failed", "wrong results", "upload", "skip"):
            assert phrase not in shown.split(" | ")[0], phrase
        assert display.stored_note("measured 2 of 8 GPUs") == "measured 2 of 8 GPUs"
        # The Chinese explanation scoring writes for the knockouts words the notes too.
        assert "nccl-tests 报告 3 个错误结果" in found[3].explanation_zh
    with translation.override("en"):
        assert display.evidence_ref(ref).startswith(text)
