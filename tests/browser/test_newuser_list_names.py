"""The upload page lists the tools it imported in the page's language: a Chinese page joined
them with the English ", " between Chinese text, where Chinese lists names with the enumeration
comma "、" (as the server's pages do, join_list "names")."""

import pytest
from playwright.sync_api import expect

from tests.portal.conftest import make_bundle, sample_bytes

pytestmark = [pytest.mark.browser, pytest.mark.worker]

# Demo candidate 3 (vGPU cloud instance) has no evidence yet.
EVIDENCE = "/evaluations/1/candidates/3/evidence/"
# A browser without Intl.ListFormat (before Chrome 72, Safari 14.1): the catalogue's separator.
NO_LIST_FORMAT = "delete Intl.ListFormat;"


def _upload(portal, bundle: bytes) -> None:
    page = portal.page
    page.set_input_files(
        "input#evidence-files",
        files=[{"name": "poc-node-7.tar.gz", "mimeType": "application/gzip", "buffer": bundle}],
    )
    with page.expect_response(lambda r: r.url.endswith("/api/v1/evidence/")) as sent:
        page.locator("#upload-form button[type=submit]").click()
    assert sent.value.status in (200, 201, 202), sent.value.text()


@pytest.mark.django_db(transaction=True)
def test_a_chinese_page_lists_the_imported_tools_with_the_enumeration_comma(
    portal, celery_worker_process
):
    page = portal.page
    page.context.add_cookies(
        [{"name": "django_language", "value": "zh-hans", "url": portal.base_url}]
    )
    bundle = make_bundle(
        {
            "nccl-all-reduce.txt": sample_bytes("nccl-a100-8gpu.txt"),
            "ibstat.txt": sample_bytes("ibstat-roce-some-down.txt"),
            "lspci.txt": sample_bytes("lspci-kvm-vm.txt"),
        },
        hostname="poc-node-7",
    )
    portal.login("engineer")
    portal.goto(EVIDENCE)
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    assert page.evaluate("typeof Intl.ListFormat") == "function"
    _upload(portal, bundle)
    progress = page.locator("#upload-progress li")
    expect(progress).to_have_class("ok", timeout=30_000)
    expect(progress).to_contain_text("已导入：nccl-tests、ibstat、lspci")

    # Without Intl.ListFormat: the separator from the page's catalogue, the same list. The
    # same bundle again is answered as received before (for the node its manifest names), with
    # what its import found.
    page.add_init_script(NO_LIST_FORMAT)
    portal.goto(EVIDENCE)
    assert page.evaluate("typeof Intl.ListFormat") == "undefined"
    _upload(portal, bundle)
    expect(progress).to_contain_text("此前已收到，为节点 poc-node-7 的上传")
    expect(progress).to_contain_text("（已导入：nccl-tests、ibstat、lspci）")
    portal.assert_no_js_errors()


@pytest.mark.django_db(transaction=True)
def test_an_english_page_keeps_the_comma(portal, celery_worker_process):
    page = portal.page
    page.add_init_script(NO_LIST_FORMAT)
    portal.login("engineer")
    portal.goto(EVIDENCE)
    _upload(
        portal,
        make_bundle(
            {
                "ibstat.txt": sample_bytes("ibstat-roce-some-down.txt"),
                "lspci.txt": sample_bytes("lspci-kvm-vm.txt"),
            }
        ),
    )
    progress = page.locator("#upload-progress li")
    expect(progress).to_have_class("ok", timeout=30_000)
    expect(progress).to_contain_text("imported: ibstat, lspci")
    portal.assert_no_js_errors()
