"""A file too large for the questionnaire is refused in the browser before it is sent, by its
item and in the page's language, with the typed text kept: "Save all" sent a 22 MB scan for
minutes before the server refused the whole save (and behind nginx, two files that together
passed its body limit got its 413 page: "the server did not answer as expected", forever)."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from portal.models import Answer, AnswerAttachment

pytestmark = pytest.mark.browser

QUESTIONNAIRE = "/evaluations/1/candidates/4/questionnaire/"
MIB = 1024 * 1024


def _file(directory: Path, name: str, size: int) -> Path:
    """A PDF-headed file of ``size`` + 9 bytes, on disk: Playwright hands the browser a file's
    path, where a buffer crosses its protocol base64-encoded (seconds per MiB on a busy
    machine)."""
    path = directory / name
    path.write_bytes(b"%PDF-1.4\n" + b"0" * size)
    return path


def _chosen(page, selector: str) -> list:
    """Name, size and type of the file the browser holds in ``selector``."""
    return page.eval_on_selector(selector, "el => [...el.files].map(f => [f.name, f.size, f.type])")


@pytest.mark.parametrize(
    ("language", "by_item", "state"),
    [
        (
            "en",
            "This file is 21.0 MiB; an attachment may be at most 20.0 MiB.",
            "Not saved: a chosen file is too large. Your input is still here.",
        ),
        (
            "zh-hans",
            "此文件为 21.0 MiB；单个附件最大 20.0 MiB。",
            "未保存：所选文件过大。你输入的内容仍在页面上。",
        ),
    ],
)
def test_a_file_above_the_limit_is_refused_by_its_item_before_sending(
    portal, language, by_item, state, tmp_path
):
    page = portal.page
    portal.login("procurement")
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": portal.base_url}]
    )
    portal.goto(QUESTIONNAIRE)
    posts = []
    page.on("request", lambda r: r.method == "POST" and posts.append(r.url))
    page.fill("[name='item-7-notes']", "SLA scan attached.")
    page.set_input_files(
        "[name='item-7-attachment']", files=[_file(tmp_path, "sla.pdf", 21 * MIB - 9)]
    )
    assert _chosen(page, "[name='item-7-attachment']") == [["sla.pdf", 21 * MIB, "application/pdf"]]
    posts.clear()  # the autosave of the note, if it ran
    page.click("#save-all")
    expect(page.locator('[data-errors-for="item-7-attachment"]')).to_have_text(by_item)
    expect(page.locator("#save-state")).to_have_text(state)
    assert posts == []
    expect(page.locator("[name='item-7-notes']")).to_have_value("SLA scan attached.")
    assert not AnswerAttachment.objects.filter(answer__candidate_id=4).exists()


def test_files_together_above_one_save_are_refused_saying_to_save_in_turns(portal, tmp_path):
    page = portal.page
    portal.login("procurement")
    portal.goto(QUESTIONNAIRE)
    page.set_input_files(
        "[name='item-6-attachment']", files=[_file(tmp_path, "mlps.pdf", 12 * MIB)]
    )
    page.set_input_files("[name='item-7-attachment']", files=[_file(tmp_path, "sla.pdf", 12 * MIB)])
    assert _chosen(page, "[name='item-6-attachment']") == [
        ["mlps.pdf", 12 * MIB + 9, "application/pdf"]
    ]
    assert _chosen(page, "[name='item-7-attachment']") == [
        ["sla.pdf", 12 * MIB + 9, "application/pdf"]
    ]
    page.click("#save-all")
    expect(page.locator("#save-state")).to_contain_text(
        "the chosen files come to 24.0 MiB together, and one save sends at most 20.0 MiB"
    )
    # One at a time goes through.
    page.set_input_files("[name='item-7-attachment']", files=[])
    with page.expect_navigation(wait_until="domcontentloaded"):
        page.click("#save-all")
    answer = Answer.objects.get(candidate_id=4, item__number=6)
    assert [a.original_name for a in answer.attachments.all()] == ["mlps.pdf"]


@pytest.mark.parametrize(
    ("language", "by_item", "state"),
    [
        (
            "en",
            "“run.exe” cannot be attached: the portal keeps PDF, office documents",
            "Not saved: a chosen file is of a type the portal does not keep. Your input is "
            "still here.",
        ),
        (
            "zh-hans",
            "“run.exe”无法附加：门户只保存",
            "未保存：所选文件的类型不在门户保存的范围内。你输入的内容仍在页面上。",
        ),
    ],
)
def test_a_file_of_a_type_the_portal_does_not_keep_is_refused_before_sending(
    portal, language, by_item, state
):
    # Auditor review (stop 36): the chooser offers only the kept types, but its "All files"
    # passes any; the server refused it only after sending it.
    page = portal.page
    portal.login("procurement")
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": portal.base_url}]
    )
    portal.goto(QUESTIONNAIRE)
    posts = []
    page.on("request", lambda r: r.method == "POST" and posts.append(r.url))
    page.fill("[name='item-7-notes']", "SLA scan attached.")
    page.set_input_files(
        "[name='item-7-attachment']",
        files=[{"name": "run.exe", "mimeType": "application/octet-stream", "buffer": b"MZ\x90"}],
    )
    posts.clear()  # the autosave of the note, if it ran
    page.click("#save-all")
    expect(page.locator('[data-errors-for="item-7-attachment"]')).to_contain_text(by_item)
    expect(page.locator("#save-state")).to_have_text(state)
    assert posts == []
    expect(page.locator("[name='item-7-notes']")).to_have_value("SLA scan attached.")
    assert not AnswerAttachment.objects.filter(answer__candidate_id=4).exists()
