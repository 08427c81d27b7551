"""Money reads the same in both languages: grouped in threes by a comma (1,234,567.00), as
procurement documents and quotes in mainland China write it, not Django's ungrouped zh_Hans
default (1234567.00) beside English pages and scoring reasons that group it."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.template import Context, Template
from django.urls import reverse
from django.utils import formats, translation

from portal.models import Evaluation


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_amounts_group_in_threes_with_a_comma(language):
    with translation.override(language):
        assert formats.number_format(1234567.891, 2, force_grouping=True) == "1,234,567.89"
        shown = Template('{{ v|floatformat:"0g" }}').render(Context({"v": 5000000}))
        assert shown == "5,000,000"
        # Grouping is for display only: a typed number is not grouped back into a form.
        assert formats.number_format(1234567.891, 2) == "1234567.89"


def _tco_cells(html: str) -> list[str]:
    table = re.search(
        r'(?s)<section class="report-section" aria-labelledby="tco-table-title">.*?</section>', html
    )
    assert table, "the report has a TCO section"
    cells = re.findall(r'<td class="num">([^<]*)</td>', table.group(0))
    return [cell for cell in cells if re.fullmatch(r"[\d,.]+", cell)]


def test_report_tco_figures_read_the_same_in_chinese(client, demo):
    client.force_login(get_user_model().objects.get(username="manager"))
    evaluation = Evaluation.objects.order_by("pk").first()
    url = reverse("evaluation-report", args=[evaluation.pk])
    english = _tco_cells(client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode())
    chinese = _tco_cells(client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode())
    grouped = [cell for cell in english if re.fullmatch(r"\d{1,3}(,\d{3})+\.\d\d", cell)]
    assert grouped, "the demo's TCOs run to thousands"
    assert chinese == english
