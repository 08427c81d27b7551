"""Two tabs edit the same candidate: the second save is refused with the stored candidate shown
as the page shows it, in Chinese with full-width colons (was "节点数: 8") and the
quoted price as typed ("12000", was "12000.0000"); the typed input stays."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from portal.models import Candidate
from portal.services.evaluations import candidate_version

pytestmark = pytest.mark.django_db


def test_a_stale_candidate_save_names_what_is_stored_in_the_readers_language(as_role):
    client = as_role("procurement")
    candidate = Candidate.objects.get(pk=2)
    loaded = candidate_version(candidate)
    # Another tab saves first.
    Candidate.objects.filter(pk=2).update(
        quoted_billing_model="monthly", quoted_price_per_gpu=Decimal("12000.0000"), notes="先存"
    )
    response = client.post(
        reverse("candidate-edit", args=[1, 2]),
        {
            "offering": str(candidate.offering_id),
            "node_count": "9",
            "quoted_billing_model": "",
            "quoted_price_per_gpu": "",
            "notes": "第二个标签页",
            "loaded_version": loaded,
        },
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code in (409, 422)
    text = re.sub(r"<[^>]+>", "", response.content.decode())
    assert f"节点数：{candidate.node_count}" in text
    assert "每 GPU 报价：12000" in text and "12000.0000" not in text
    assert "备注：先存" in text
    assert "节点数: " not in text
    assert 'value="9"' in response.content.decode()  # the typed input is kept
