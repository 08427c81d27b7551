"""An engineer whose session ended drops a file on the upload page: the line says the session
ended and what to do, in the page's language (it said "refused (401): Send an upload token
(Authorization: Bearer …) or log in."); after signing in again in another tab the same page
uploads (it sent the page's CSRF token, which the new sign-in had replaced: refused again)."""

import pytest
from playwright.sync_api import expect

from tests.portal.conftest import sample_bytes

pytestmark = pytest.mark.browser

EVIDENCE = "/evaluations/1/candidates/3/evidence/"
SESSION_ENDED = {
    "en": "not sent: your session ended. Sign in again in another tab, then upload this file "
    "again here.",
    "zh-hans": "未发送：你的登录已失效。请在另一个标签页中重新登录，然后在此处再次上传该文件。",
}


def _drop(page, name: str):
    page.set_input_files(
        "input#evidence-files",
        files=[
            {"name": name, "mimeType": "text/plain", "buffer": sample_bytes("lspci-kvm-vm.txt")}
        ],
    )
    with page.expect_response(lambda r: r.url.endswith("/api/v1/evidence/")) as sent:
        page.locator("#upload-form button[type=submit]").click()
    return sent.value


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_ended_session_is_said_plainly_and_a_new_sign_in_elsewhere_is_enough(portal, language):
    page = portal.page
    portal.login("engineer")
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": portal.base_url}]
    )
    portal.goto(EVIDENCE)
    # The session ends (signed out elsewhere, or expired) while the page stays open.
    kept = [c for c in page.context.cookies() if c["name"] != "sessionid"]
    page.context.clear_cookies()
    page.context.add_cookies(kept)

    assert _drop(page, "lspci-before.txt").status == 401
    line = page.locator("#upload-progress li").last
    expect(line).to_contain_text(SESSION_ENDED[language])

    # Signing in again in another tab of the same browser rotates the CSRF token.
    other = page.context.new_page()
    other.goto(portal.url("/accounts/login/"))
    other.fill("#id_username", "engineer")
    other.fill("#id_password", "measure-gpus-2026")
    with other.expect_navigation():
        other.click("main button[type=submit]")
    other.close()

    response = _drop(page, "lspci-after.txt")
    assert response.status == 202, response.text()
