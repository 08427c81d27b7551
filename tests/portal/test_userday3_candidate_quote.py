"""Adding a candidate with a quoted price typed as a quote shows it ("¥3,500"): the price field
says how to type it, and nothing else. The form also said "A quote needs both a billing model
and a price." to a user who had given both, as the model read the unreadable price as missing."""

import pytest
from django.urls import reverse

from portal.models import Candidate, Offering

pytestmark = pytest.mark.django_db

EVALUATION = 16  # the demo evaluation without the RTX 4090 offering among its candidates


def _post(client, **fields):
    offering = Offering.objects.get(name="RTX 4090 containers on shared hosts")
    data = {
        "offering": str(offering.pk),
        "node_count": "2",
        "quoted_billing_model": "monthly",
        "quoted_price_per_gpu": "3500",
        "notes": "",
        **fields,
    }
    return client.post(
        reverse("candidate-add", args=[EVALUATION]), data, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )


def test_an_unreadable_quoted_price_is_refused_by_its_own_message_only(as_role):
    client = as_role("procurement")
    before = Candidate.objects.filter(evaluation_id=EVALUATION).count()
    response = _post(client, quoted_price_per_gpu="¥3,500")
    assert response.status_code == 422
    form = response.context["form"]
    assert form.errors["quoted_price_per_gpu"] == ["请输入不带货币符号的数字，例如 3500。"]
    assert "报价需要同时填写计费方式和价格。" not in response.content.decode()
    assert Candidate.objects.filter(evaluation_id=EVALUATION).count() == before


def test_a_quote_without_its_price_still_says_both_are_needed(as_role):
    response = _post(as_role("procurement"), quoted_price_per_gpu="")
    assert response.status_code == 422
    assert response.context["form"].errors["quoted_price_per_gpu"] == [
        "报价需要同时填写计费方式和价格。"
    ]
