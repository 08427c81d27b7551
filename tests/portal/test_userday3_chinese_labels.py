"""Chinese form labels end with a full-width colon like the full-width text beside them, not
Django's ASCII one ("名称:"); English labels keep "Name:"."""

import re

import pytest

pytestmark = pytest.mark.django_db

PAGES = ["/evaluations/new/", "/offerings/1/edit/", "/evaluations/1/candidates/add/"]


def _labels(html: str) -> list[str]:
    return [
        re.sub(r"<[^>]+>", "", text).strip()
        for text in re.findall(r'<label for="id_[^"]*"[^>]*>(.*?)</label>', html, re.S)
    ]


@pytest.mark.parametrize("path", PAGES)
def test_chinese_labels_end_with_a_full_width_colon(as_role, path):
    html = as_role("procurement").get(path, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    labels = _labels(html)
    assert labels
    assert [label for label in labels if label.endswith(":")] == []
    assert "名称：" in labels or "节点数：" in labels or "供应商：" in labels


def test_english_labels_keep_their_colon(as_role):
    html = as_role("procurement").get("/evaluations/new/", HTTP_ACCEPT_LANGUAGE="en").content
    labels = _labels(html.decode())
    assert "Name:" in labels
    assert [label for label in labels if label.endswith("：")] == []


# A Chinese word followed by an ASCII colon, as the templates wrote "{% translate "Sum" %}: ".
ASCII_COLON_AFTER_CHINESE = re.compile(r"[\u4e00-\u9fff）]:(?=\s|<)")


@pytest.mark.parametrize(
    ("role", "path", "expected"),
    [
        ("manager", "/evaluations/1/weights/", "合计："),
        ("manager", "/evaluations/1/", "已淘汰："),
        ("manager", "/evaluations/1/candidates/1/", "All-reduce 总线带宽："),
        ("manager", "/evaluations/16/portfolio/", None),
    ],
)
def test_inline_labels_of_chinese_pages_take_a_full_width_colon(as_role, role, path, expected):
    html = as_role(role).get(path, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    visible = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", html, flags=re.S)
    visible = re.sub(r"<[^>]+>", "<", visible)
    if expected:
        assert expected in visible
    found = [visible[m.start() - 12 : m.end()] for m in ASCII_COLON_AFTER_CHINESE.finditer(visible)]
    assert found == []


def test_chinese_asides_take_full_width_parentheses(as_role):
    """ "(show in full)", "(NICs per node not stated)", "(made …, 1.5 MiB)": the parentheses
    around a translated aside are translated with it."""
    from django.template.loader import render_to_string
    from django.utils import translation

    with translation.override("zh-hans"):
        shown = render_to_string("portal/_history_value.html", {"text": "长" * 200, "long": True})
    assert "（展开全文）" in shown
    with translation.override("en"):
        shown = render_to_string("portal/_history_value.html", {"text": "x" * 200, "long": True})
    assert "(show in full)" in shown
