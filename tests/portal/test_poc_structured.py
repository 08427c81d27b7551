"""The POC's failed or missing runs are kept as structure (run kind and key, node or pair,
reason, note code and parts, evidence) from scoring through the stored answers, scores and
knockouts to every display, which words them in the reader's language from that structure:
rewording the stored English changes nothing on a page. Rows stored before the structure
still read through the parser of the English words."""

import io
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone, translation
from openpyxl import load_workbook

from portal.models import (
    Answer,
    Candidate,
    PocPlan,
    Score,
    UploadStatus,
    VerificationStatus,
)
from portal.services.evidence import evidence_import, evidence_submit
from portal.services.poc import poc_deadlines_apply
from portal.services.tokens import upload_token_create
from portal.views import display
from scoring import poc as rules

from .test_poc import SCORING_SAMPLES, bundle
from .test_zh_poc_basis import claimed_with_plan, pages_of

pytestmark = pytest.mark.django_db

SKIPPED_DIAG = SCORING_SAMPLES / "dcgm_diag" / "dgx-spark-gb10-dcgm4.4.2-r3-all-skipped.txt"
REWORDED = "reworded by a later version"


@pytest.fixture
def skipped(client, evaluation, candidate, members):
    """A two-node candidate, priced, every item claimed; gpu01 uploaded a ``dcgmi diag -r 3``
    whose every test was skipped, then the deadline passed with every other run missing."""
    plan = claimed_with_plan(evaluation, candidate, members)
    token, _raw = upload_token_create(candidate=candidate, created_by=members["procurement"])
    data = bundle(
        [(["dcgmi", "diag", "-r", "3"], "dcgmi-diag.txt", SKIPPED_DIAG.read_bytes())],
        hostname="gpu01",
        nonce=token.nonce,
    )
    upload, _ = evidence_submit(
        candidate=candidate, uploaded_file=SimpleUploadedFile("d.tar.gz", data), token=token
    )
    evidence_import(upload_id=upload.pk, task_id="t-poc-structured")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE, upload.error
    PocPlan.objects.filter(pk=plan.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    assert poc_deadlines_apply() == 1
    client.force_login(members["viewer"])
    return candidate, upload


def _pages(client, evaluation, candidate, language) -> dict[str, str]:
    client.cookies["django_language"] = language
    return pages_of(client, evaluation, candidate)


def _poc_sheet(client, evaluation, language) -> list[dict]:
    client.cookies["django_language"] = language
    response = client.get(reverse("evaluation-export", args=[evaluation.pk, "xlsx"]))
    assert response.status_code == 200
    book = load_workbook(io.BytesIO(response.content))
    sheet = book.worksheets[5]
    rows = list(sheet.iter_rows(values_only=True))
    return sheet.title, [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def _reword_the_english(candidate):
    """What a later version rewording the English explanations would leave in the rows."""
    Answer.objects.filter(candidate=candidate).exclude(poc_shortfalls=[]).update(
        verification_note=REWORDED, evidence_ref=REWORDED
    )
    for score in Score.objects.filter(candidate=candidate):
        for c in score.contributions:
            if c.get("poc"):
                c["evidence_ref"] = REWORDED
        score.save(update_fields=["contributions"])
    candidate.refresh_from_db()
    for k in candidate.knockouts:
        if k["poc"]:
            k["evidence_ref"] = REWORDED
    candidate.save(update_fields=["knockouts"])


def _drop_the_structure(candidate):
    """Rows as they were stored before the structure: the English words alone."""
    Answer.objects.filter(candidate=candidate).update(poc_shortfalls=[])
    for score in Score.objects.filter(candidate=candidate):
        for c in score.contributions:
            c.pop("poc", None)
            c.pop("evidence_ref_other", None)
        score.save(update_fields=["contributions"])
    candidate.refresh_from_db()
    for k in candidate.knockouts:
        del k["poc"]
    for run in candidate.verification["poc"]["runs"]:
        del run["note_code"], run["note_args"]
    candidate.save(update_fields=["knockouts", "verification"])


SKIP_EN = "POC run dcgmi diag -r 3 on gpu01: checked nothing (dcgmi diag reported skip)"
SKIP_ZH = "POC 测试 dcgmi diag -r 3（gpu01）：未实际检测任何项目（dcgmi diag 报告全部跳过）"
MISSING_ZH = "POC 测试 fio 顺序读写，本地 NVMe（gpu02）：截止时仍未提交"
FABRIC_ZH = "POC 计划：多节点 all_reduce（nccl-tests）"


def test_the_structure_is_stored_with_answers_scores_and_knockouts(skipped):
    candidate, upload = skipped
    answer = Answer.objects.get(candidate=candidate, item__key="gpu_match")
    assert answer.status == VerificationStatus.UNVERIFIABLE
    diag = next(s for s in answer.poc_shortfalls if s["kind"] == rules.DCGM_DIAG)
    assert diag == {
        "run_key": "dcgm_diag_r3@gpu01",
        "kind": rules.DCGM_DIAG,
        "node": "gpu01",
        "peers": [],
        "reason": rules.UNPROVEN,
        "note": "dcgmi diag reported skip",
        "note_code": rules.NOTE_DCGM_SKIP,
        "note_args": {},
        "evidence": {"node": "gpu01", "file": "dcgmi-diag.txt", "upload_id": upload.pk},
        "evidence_ref": f"gpu01: dcgmi-diag.txt (upload {upload.pk})",
    }
    missing = {s["run_key"] for s in answer.poc_shortfalls if s["reason"] == rules.MISSING}
    assert {"dcgm_diag_r3@gpu02", "inventory@gpu01", "nvidia_smi_q@gpu02"} <= missing
    # The structure reads back into the shortfall scoring wrote (the same English words).
    assert rules.PocShortfall.from_dict(diag).explanation_en == SKIP_EN
    assert answer.verification_note.startswith(SKIP_EN)
    # Every contribution reading the item keeps the same runs as structure.
    explained = [
        c
        for score in Score.objects.filter(candidate=candidate)
        for c in score.contributions
        # The form-factor rule reads item 1 through the derived item that the datasheet
        # may contradict first (rubric.model.DERIVED_ITEM_CHECKLIST): the same status otherwise.
        if (
            c["inputs"].get("answer.gpu_match")
            or c["inputs"].get("answer.gpu_form_factor_datasheet")
        )
        and c["evidence_ref"]
    ]
    assert explained and all(c["poc"] == answer.poc_shortfalls for c in explained)
    candidate.refresh_from_db()
    fabric = next(k for k in candidate.knockouts if k["code"] == "poc_fabric_unproven")
    assert [(s["kind"], s["reason"]) for s in fabric["poc"]] == [
        (rules.NCCL_MULTI_ALL_REDUCE, rules.MISSING),
        (rules.NCCL_MULTI_ALLTOALL, rules.MISSING),
    ]
    # A note without a code is not the scoring's and is refused as a code it does not know.
    with pytest.raises(rules.PocInputError):
        rules.PocShortfall.from_dict({**diag, "note_code": "made_up"})
    with pytest.raises(rules.PocInputError):
        rules.PocShortfall.from_dict({**diag, "note": "", "note_code": rules.NOTE_NCCL_WRONG})


def test_pages_word_the_structure_not_the_stored_english(client, evaluation, skipped):
    candidate, upload = skipped
    _reword_the_english(candidate)
    zh = _pages(client, evaluation, candidate, "zh-hans")
    for name, body in zh.items():
        assert REWORDED not in body, name
        assert "POC run" not in body and "checked nothing" not in body, name
    # The answer, its evidence and the score's reference name the run, node and reason.
    assert SKIP_ZH in zh["candidate"] and MISSING_ZH in zh["candidate"]
    assert SKIP_ZH in zh["questionnaire"]
    assert FABRIC_ZH in zh["candidate"] and FABRIC_ZH in zh["results"]
    assert SKIP_ZH in zh["report"] and "dcgm_diag_r3@gpu01" not in zh["report"]
    # The report's table of shortfalls: the run, node, outcome, why and evidence.
    table = zh["report"].split('class="data poc-table"', 1)[1].split("</table>", 1)[0]
    assert (
        "<td>dcgmi diag -r 3</td><td>gpu01</td><td>未实际检测任何项目</td>"
        f"<td>dcgmi diag 报告全部跳过</td><td>gpu01</td><td>dcgmi-diag.txt</td><td>{upload.pk}</td>"
    ) in table

    en = _pages(client, evaluation, candidate, "en")
    for name, body in en.items():
        assert REWORDED not in body, name
    assert SKIP_EN in en["candidate"] and SKIP_EN in en["questionnaire"]
    assert "POC plan: multi-node all_reduce (nccl-tests)" in en["results"]
    assert SKIP_EN in en["report"]


def test_the_workbook_lists_the_shortfalls_with_their_fields(client, evaluation, skipped):
    candidate, upload = skipped
    _reword_the_english(candidate)
    title, rows = _poc_sheet(client, evaluation, "en")
    assert title == "POC shortfalls"
    diag = next(r for r in rows if r["Run key"] == "dcgm_diag_r3@gpu01")
    assert diag == {
        "Candidate": str(candidate),
        "POC run": "dcgmi diag -r 3",
        "Node or node pair": "gpu01",
        "Outcome": "checked nothing",
        "Why": "dcgmi diag reported skip",
        "Evidence node": "gpu01",
        "Evidence file": "dcgmi-diag.txt",
        "Upload": upload.pk,
        "Run key": "dcgm_diag_r3@gpu01",
        "Run kind": rules.DCGM_DIAG,
        "Outcome code": rules.UNPROVEN,
        "Note code": rules.NOTE_DCGM_SKIP,
    }
    assert any(r["Run kind"] == rules.NCCL_MULTI_ALLTOALL for r in rows)
    title, rows = _poc_sheet(client, evaluation, "zh-hans")
    assert title == "POC 未达项"
    diag = next(r for r in rows if r["测试键"] == "dcgm_diag_r3@gpu01")
    assert diag["结果"] == "未实际检测任何项目" and diag["原因"] == "dcgmi diag 报告全部跳过"
    checklist = load_workbook(
        io.BytesIO(client.get(reverse("evaluation-export", args=[evaluation.pk, "xlsx"])).content)
    ).worksheets[3]
    notes = "\n".join(str(v) for row in checklist.iter_rows(values_only=True) for v in row if v)
    assert SKIP_ZH in notes and REWORDED not in notes


def test_the_api_carries_the_structured_fields(client, evaluation, skipped):
    candidate, upload = skipped
    base = f"/api/v1/evaluations/{evaluation.pk}/"
    answer = client.get(f"{base}candidates/{candidate.pk}/answers/gpu_match/").json()
    diag = next(s for s in answer["poc_shortfalls"] if s["run_key"] == "dcgm_diag_r3@gpu01")
    assert diag["reason"] == rules.UNPROVEN and diag["note_code"] == rules.NOTE_DCGM_SKIP
    assert diag["evidence"] == {"node": "gpu01", "file": "dcgmi-diag.txt", "upload_id": upload.pk}
    scores = client.get(f"{base}scores/", {"candidate": candidate.pk}).json()["results"]
    assert any(
        c.get("poc") and diag in c["poc"] for score in scores for c in score["contributions"]
    )
    ranking = client.get(f"{base}ranking/").json()
    row = next(r for r in ranking["results"] if r["candidate"] == candidate.pk)
    fabric = next(k for k in row["knockouts"] if k["code"] == "poc_fabric_unproven")
    assert {s["kind"] for s in fabric["poc"]} == {
        rules.NCCL_MULTI_ALL_REDUCE,
        rules.NCCL_MULTI_ALLTOALL,
    }
    assert all(s["reason"] == rules.MISSING and s["evidence"] is None for s in fabric["poc"])


def test_rows_stored_before_the_structure_still_read_in_chinese(client, evaluation, skipped):
    """Old rows only: the parser of the English words stands in for the missing structure."""
    candidate, _upload = skipped
    _drop_the_structure(candidate)
    assert Candidate.objects.get(pk=candidate.pk).knockouts[0].get("poc") is None
    zh = _pages(client, evaluation, candidate, "zh-hans")
    assert SKIP_ZH in zh["candidate"] and MISSING_ZH in zh["candidate"]
    assert FABRIC_ZH in zh["candidate"]
    assert SKIP_ZH in zh["questionnaire"] and SKIP_ZH in zh["report"]
    for name, body in zh.items():
        assert "POC run" not in body and "checked nothing" not in body, name
    # The coverage stored without note codes still gives them, from the English note.
    _title, rows = _poc_sheet(client, evaluation, "en")
    diag = next(r for r in rows if r["Run key"] == "dcgm_diag_r3@gpu01")
    assert diag["Note code"] == rules.NOTE_DCGM_SKIP and diag["Outcome code"] == rules.UNPROVEN


def test_a_failed_run_reads_with_its_evidence_in_both_languages():
    """A score's reference worded from the structure: each run, the failure note from its code
    and parts, the failed run's evidence, then the reference the item had before."""
    found = (
        rules.PocShortfall(
            f"{rules.IB_WRITE_BW}@gpu01~gpu02",
            rules.IB_WRITE_BW,
            rules.RUN_FAILED,
            note_code=rules.NOTE_NCCL_WRONG,
            note_args=(("count", "3"),),
            evidence_node="gpu01",
            evidence_file="ib.txt",
            evidence_upload="7",
        ),
        rules.PocShortfall(rules.NCCL_MULTI_ALLTOALL, rules.NCCL_MULTI_ALLTOALL, rules.MISSING),
    )
    contribution = rules.explained_contribution(
        {"evidence_ref": f"{rules.item_findings(found)['fabric']['reference']} | ibstat.txt"},
        rules.item_findings(found),
    )
    assert contribution["evidence_ref_other"] == "ibstat.txt"
    assert [rules.PocShortfall.from_dict(s) for s in contribution["poc"]] == list(found)
    contribution["evidence_ref"] = REWORDED
    with translation.override("zh-hans"):
        assert display.contribution_ref(contribution) == (
            "POC 测试 两节点间 ib_write_bw（gpu01 与 gpu02）："
            "失败（nccl-tests 报告 3 个错误结果）；"
            "POC 测试 多节点 alltoall（nccl-tests）：截止时仍未提交 [gpu01：ib.txt（上传 7）]"
            " | ibstat.txt"
        )
    with translation.override("en"):
        assert display.contribution_ref(contribution) == (
            "POC run ib_write_bw between two nodes on gpu01 and gpu02: failed (nccl-tests "
            "reported 3 wrong results); POC run multi-node alltoall (nccl-tests): missing at "
            "the deadline [gpu01: ib.txt (upload 7)] | ibstat.txt"
        )
    # Not a POC reference: the contribution is stored as it is.
    assert rules.explained_contribution({"evidence_ref": "ibstat.txt"}, {}) == {
        "evidence_ref": "ibstat.txt"
    }
