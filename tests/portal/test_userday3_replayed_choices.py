"""The "Nothing was saved" page gives back what a form sent as the form showed it: a choice by
its label in the reader's language (it showed "finetuning", "CNY", "0" and "on"), and a row
picked from a list said to be chosen again (it showed the candidate as "7", a number the reader
never saw; its name is not looked up, as the page is shown to whoever posted)."""

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from portal.models import Candidate, Evaluation

pytestmark = pytest.mark.django_db


def _sent(response) -> dict[str, str]:
    body = response.content.decode()
    return {
        html.unescape(label): html.unescape(value)
        for label, value in re.findall(
            r'<label for="sent-\d+">([^<]*)</label>\s*<textarea[^>]*>(.*?)</textarea>', body, re.S
        )
    }


def test_a_new_evaluation_posted_after_the_session_ended_shows_choices_by_label(demo):
    client = Client()  # signed out: the session ended before the form was sent
    response = client.post(
        reverse("evaluation-create"),
        {
            "name": "Posted too late",
            "workload_profile": "finetuning",
            "required_total_gpus": "16",
            "budget_currency": "CNY",
            "required_mlps_level": "3",
            "require_xinchuang": "on",
        },
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 401
    sent = _sent(response)
    assert sent["名称"] == "Posted too late"
    assert sent["工作负载类型"] == "微调"
    assert sent["预算币种"] == "人民币（CNY）"
    assert sent["所需等保级别"] == "等保三级"
    assert sent["需要信创"] == "是"
    assert sent["所需 GPU 总数"] == "16"  # typed numbers stay as typed
    assert not Evaluation.objects.filter(name="Posted too late").exists()


def test_a_candidate_picked_from_the_list_is_not_shown_as_its_number(demo):
    candidate = Candidate.objects.filter(evaluation_id=1).first()
    client = Client()
    response = client.post(
        reverse("evaluation-decision", args=[1]),
        {"candidate": str(candidate.pk), "rationale": "Best value, verified fabric."},
    )
    assert response.status_code == 401
    sent = _sent(response)
    assert sent["Rationale"] == "Best value, verified fabric."
    assert sent["Candidate"] == "(chosen from a list: choose it again on the form)"
    assert candidate.offering.name not in response.content.decode()


def test_the_chosen_again_note_is_in_chinese_on_a_chinese_page(demo):
    response = Client().post(
        reverse("evaluation-decision", args=[1]),
        {"candidate": "1", "rationale": "性价比最高"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    sent = _sent(response)
    assert sent["候选方案"] == "（从列表中选择的项：请在表单中重新选择）"
    assert sent["决策理由"] == "性价比最高"
