"""A new evaluation's page sent twice creates one evaluation: the back button brings the filled
page back, and pressing "Create evaluation" again made a second, identical evaluation that no
page can delete. The page carries a key; the session answers a key sent again with the same
input by the evaluation it created. The same key with other input is a new evaluation."""

import re

import pytest
from django.urls import reverse

from portal.models import Evaluation

pytestmark = pytest.mark.django_db

FIELDS = {
    "name": "Sent twice",
    "workload_profile": "finetuning",
    "required_total_gpus": "8",
    "required_gpu_memory_gib": "0",
    "duration_days": "10",
    "expected_idle_days": "0",
    "budget_currency": "CNY",
    "required_mlps_level": "0",
}


def _key(client) -> str:
    html = client.get(reverse("evaluation-create")).content.decode()
    found = re.search(r'name="sent_once"[^>]*data-sent-once="([^"]+)"', html)
    assert found, "the page carries no key"
    assert not re.search(r'name="sent_once"[^>]* value="[^"]', html), "the key is not in value"
    return found.group(1)


def test_the_same_page_sent_again_answers_with_the_evaluation_it_created(as_role):
    client = as_role("procurement")
    key = _key(client)
    first = client.post(reverse("evaluation-create"), {**FIELDS, "sent_once": key})
    assert first.status_code == 302
    created = Evaluation.objects.get(name="Sent twice")
    assert first["Location"] == reverse("evaluation-detail", args=[created.pk])

    again = client.post(reverse("evaluation-create"), {**FIELDS, "sent_once": key}, follow=True)
    assert Evaluation.objects.filter(name="Sent twice").count() == 1
    assert again.redirect_chain[-1][0] == reverse("evaluation-detail", args=[created.pk])
    assert "Nothing new was created." in again.content.decode()

    client.cookies["django_language"] = "zh-hans"
    in_chinese = client.post(
        reverse("evaluation-create"), {**FIELDS, "sent_once": key}, follow=True
    )
    assert "没有新建任何评估" in in_chinese.content.decode()
    assert Evaluation.objects.filter(name="Sent twice").count() == 1


def test_the_page_changed_and_sent_with_its_old_key_is_a_new_evaluation(as_role):
    client = as_role("procurement")
    key = _key(client)
    client.post(reverse("evaluation-create"), {**FIELDS, "sent_once": key})
    changed = {**FIELDS, "name": "Sent twice, second round", "sent_once": key}
    response = client.post(reverse("evaluation-create"), changed)
    assert response.status_code == 302
    assert Evaluation.objects.filter(name__startswith="Sent twice").count() == 2


def test_pages_without_a_key_and_other_sessions_create_as_before(as_role, client):
    procurement = as_role("procurement")
    procurement.post(reverse("evaluation-create"), FIELDS)
    procurement.post(reverse("evaluation-create"), FIELDS)
    assert Evaluation.objects.filter(name="Sent twice").count() == 2  # a script's two posts


def test_a_page_refused_then_corrected_creates_it_once(as_role):
    client = as_role("procurement")
    key = _key(client)
    refused = client.post(
        reverse("evaluation-create"), {**FIELDS, "required_total_gpus": "eight", "sent_once": key}
    )
    assert refused.status_code == 422
    assert f'data-sent-once="{key}"' in refused.content.decode()  # the same page, the same key
    assert (
        client.post(reverse("evaluation-create"), {**FIELDS, "sent_once": key}).status_code == 302
    )
    assert Evaluation.objects.filter(name="Sent twice").count() == 1
