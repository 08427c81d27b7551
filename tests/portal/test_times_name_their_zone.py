"""Times on the token list, the POC plan and the report's PDF status name their zone, as the
upload list and the decision record do: a token's expiry or a POC deadline read without it is
ambiguous to a team across time zones."""

import datetime as dt

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from portal.models import PdfStatus, ReportPdf, UploadToken
from portal.selectors import report_pdf_fingerprint

pytestmark = pytest.mark.django_db


@override_settings(TIME_ZONE="Asia/Shanghai")
def test_the_token_list_names_the_zone_of_its_times(client, members, upload_token):
    token, _raw = upload_token
    client.force_login(members["procurement"])
    url = reverse("upload-token-list", args=[token.evaluation_id, token.candidate_id])
    page = client.get(url).content.decode()
    expires = timezone.localtime(UploadToken.objects.get(pk=token.pk).expires_at)
    assert f"<td>{expires:%Y-%m-%d %H:%M} CST</td>" in page


def test_the_pdf_status_names_the_zone_of_when_it_was_made(client, members, evaluation):
    made = dt.datetime(2026, 12, 4, 21, 51, tzinfo=dt.UTC)
    ReportPdf.objects.create(
        evaluation=evaluation,
        status=PdfStatus.DONE,
        language="en",
        finished_at=made,
        size_bytes=1000,
        file="reports/x.pdf",
        requested_by=members["manager"],
        fingerprint=report_pdf_fingerprint(evaluation),
    )
    client.force_login(members["manager"])
    page = client.get(reverse("evaluation-report", args=[evaluation.pk])).content.decode()
    status = page.split('class="pdf-status"')[1].split("</p>")[0]
    assert "2026-12-04 21:51 UTC" in status
