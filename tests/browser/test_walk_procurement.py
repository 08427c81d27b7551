"""Issue 14's proof, first walk: procurement opens an evaluation, adds a candidate and fills its
questionnaire in one go (ten items and an attachment, one "Save all"); the answers survive a
reload. In English and Chinese, on a desktop and on a phone."""

from decimal import Decimal

import pytest
from playwright.sync_api import expect

from portal.models import Answer, AnswerAttachment, Candidate, Evaluation, VerificationStatus

from .conftest import walk_in_both_languages_and_sizes

pytestmark = pytest.mark.browser

TEXTS = {
    1: "8x H100 SXM 80GB per node",
    3: "NDR 400 Gbit/s, rail-optimised fat-tree",
    4: "7.68 TB NVMe per node",
    5: "Parallel file system, 200 TB",
    6: "MLPS level 3 certificate attached",
    7: "99.9 % monthly, credits above 4 h",
}
CHOICES = {2: "full_mesh", 8: "full"}
NUMBERS = {9: "420000", 10: "14"}


def _progress(walk, answered: int) -> str:
    return walk.text(f"{answered}/10 answered", f"已回答 {answered}/10")


@walk_in_both_languages_and_sizes(0)
def test_procurement_creates_an_evaluation_and_fills_the_questionnaire(walk):
    page = walk.page
    name = f"Walk {walk.language} {walk.size}: inference on 16 H100"
    walk.start("procurement")
    walk.check("home")

    with walk.portal.navigation():
        page.locator("main a[href$='/evaluations/new/']").click()
    walk.check("new-evaluation")
    page.fill("input[name=name]", name)
    page.select_option("select[name=workload_profile]", "inference")
    page.fill("input[name=required_total_gpus]", "16")
    page.fill("input[name=required_gpu_memory_gib]", "80")
    page.fill("input[name=duration_days]", "60")
    page.fill("input[name=expected_idle_days]", "5")
    with walk.portal.navigation():
        page.locator("main form button[type=submit].primary").click()
    evaluation = Evaluation.objects.get(name=name)
    assert page.url == walk.portal.url(f"/evaluations/{evaluation.pk}/")
    expect(page.locator("h1")).to_contain_text(name)
    assert (evaluation.duration_days, evaluation.required_total_gpus) == (60, 16)
    walk.check("evaluation-created")

    # The next steps lead on: add a candidate from the catalogue.
    with walk.portal.navigation():
        page.locator(f"main a[href='/evaluations/{evaluation.pk}/candidates/add/']").first.click()
    offering = page.locator("select[name=offering] option:not([value=''])").first
    offering_id = int(offering.get_attribute("value"))
    page.select_option("select[name=offering]", str(offering_id))
    page.fill("input[name=node_count]", "2")
    walk.check("add-candidate")
    with walk.portal.navigation():
        page.locator("main form button[type=submit].primary").click()
    candidate = Candidate.objects.get(evaluation=evaluation, offering_id=offering_id)
    assert candidate.node_count == 2
    # Back on the evaluation, whose next step is now the candidate's questionnaire.
    assert page.url == walk.portal.url(f"/evaluations/{evaluation.pk}/")
    walk.check("candidate-added")

    questionnaire = f"/evaluations/{evaluation.pk}/candidates/{candidate.pk}/questionnaire/"
    with walk.portal.navigation():
        page.locator(f"main a[href='{questionnaire}']").first.click()
    progress = page.locator("#progress")
    expect(progress).to_have_text(_progress(walk, 0))

    # All ten items and a certificate, then one "Save all".
    for number, text in TEXTS.items():
        page.fill(f"[name='item-{number}-claim']", text)
    for number, code in CHOICES.items():
        page.select_option(f"[name='item-{number}-claim']", code)
    for number, value in NUMBERS.items():
        page.fill(f"[name='item-{number}-claim']", value)
    page.fill("[name='item-6-notes']", "Certificate valid to 2027-06.")
    page.set_input_files(
        "[name='item-6-attachment']",
        files=[{"name": "mlps-3.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.7 MLPS"}],
    )
    expect(progress).to_have_text(_progress(walk, 10))
    walk.check("questionnaire-filled")
    with walk.portal.navigation():
        page.locator("#save-all").click()
    expect(page.locator(".messages")).to_contain_text(
        walk.text("All answers saved.", "所有回答已保存。")
    )

    # Saved: a reload shows every answer and the attachment, and the count stays.
    page.reload(wait_until="domcontentloaded")
    expect(progress).to_have_text(_progress(walk, 10))
    for number, text in TEXTS.items():
        expect(page.locator(f"[name='item-{number}-claim']")).to_have_value(text)
    for number, code in {**CHOICES, **NUMBERS}.items():
        expect(page.locator(f"[name='item-{number}-claim']")).to_have_value(code)
    expect(page.locator("#entry-6 .attachments")).to_contain_text("mlps-3.pdf")
    walk.check("questionnaire-reloaded")

    answers = {a.item.number: a for a in Answer.objects.filter(candidate=candidate)}
    assert sorted(answers) == list(range(1, 11))
    assert {n: answers[n].claim for n in TEXTS} == TEXTS
    assert {n: answers[n].value for n in CHOICES} == CHOICES
    assert {n: Decimal(answers[n].value) for n in NUMBERS} == {
        n: Decimal(v) for n, v in NUMBERS.items()
    }
    assert all(a.status == VerificationStatus.CLAIMED for a in answers.values())
    attachment = AnswerAttachment.objects.get(answer__candidate=candidate)
    assert (attachment.answer.item.number, attachment.original_name) == (6, "mlps-3.pdf")
    walk.done()
