"""The report's subtitle (page and PDF) names the GPUs required in the reader's language:
"64 张 GPU" on a Chinese report, not an English "64 GPUs" between Chinese words."""

import pytest
from django.urls import reverse
from django.utils import translation

from portal.services.reports import report_html

pytestmark = pytest.mark.django_db


def _subtitle(html: str) -> str:
    return html.split("<header>")[1].split("</p>")[0]


@pytest.mark.parametrize(
    ("language", "gpus", "days"), [("en", "16 GPUs", "30 days"), ("zh-hans", "16 张 GPU", "30 天")]
)
def test_the_report_subtitle_counts_gpus_in_the_readers_language(
    client, members, evaluation, language, gpus, days
):
    client.force_login(members["viewer"])
    url = reverse("evaluation-report", args=[evaluation.pk])
    page = _subtitle(client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode())
    assert f" · {gpus} · {days}" in page
    with translation.override(language):
        pdf = _subtitle(report_html(evaluation))
    assert f" · {gpus} · {days}" in pdf
