"""A number typed the way people type it on an ordinary day (full-width digits from a Chinese
keyboard, a currency sign copied from a quote, a decimal comma) is refused with a message that
names what to change and shows the number as the field would read it, in the reader's language;
the typed text stays in the field and nothing is saved."""

import json

import pytest
from django import forms
from django.urls import reverse
from django.utils import translation

from portal.models import Answer, Evaluation


@pytest.mark.parametrize(
    ("typed", "english", "chinese"),
    [
        (
            "１２",
            "Type the number with half-width digits 0-9, for example 12.",
            "请用半角数字 0-9 输入，例如 12。",
        ),
        (
            "１２．５",
            "Type the number with half-width digits 0-9, for example 12.5.",
            "请用半角数字 0-9 输入，例如 12.5。",
        ),
        (
            "¥12.5",
            "Enter the number without the currency sign, for example 12.5.",
            "请输入不带货币符号的数字，例如 12.5。",
        ),
        (
            "￥1,200,000.50",
            "Enter the number without the currency sign, for example 1200000.50.",
            "请输入不带货币符号的数字，例如 1200000.50。",
        ),
        (
            "12.5 元",
            "Enter the number without the currency sign, for example 12.5.",
            "请输入不带货币符号的数字，例如 12.5。",
        ),
        (
            "300万元",
            "Enter the number in full, without 万 or 亿, for example 3000000.",
            "请输入完整数字，不要用“万”或“亿”，例如 3000000。",
        ),
        (
            "1,200万",
            "Enter the number in full, without 万 or 亿, for example 12000000.",
            "请输入完整数字，不要用“万”或“亿”，例如 12000000。",
        ),
        (
            "1.2亿",
            "Enter the number in full, without 万 or 亿, for example 120000000.",
            "请输入完整数字，不要用“万”或“亿”，例如 120000000。",
        ),
        (
            "1,5",
            "Use a point as the decimal separator, for example 1.5.",
            "请用小数点“.”作小数分隔符，例如 1.5。",
        ),
    ],
)
def test_a_number_typed_as_people_type_it_is_refused_saying_how(typed, english, chinese):
    for language, message in (("en", english), ("zh-hans", chinese)):
        with translation.override(language):
            with pytest.raises(forms.ValidationError) as refused:
                forms.DecimalField().clean(typed)
            assert refused.value.messages == [message]


def test_a_decimal_comma_in_a_whole_number_field_is_not_read_as_a_decimal():
    with translation.override("en"):
        with pytest.raises(forms.ValidationError) as refused:
            forms.IntegerField().clean("1,5")
        assert refused.value.messages == ["Enter a whole number."]


@pytest.mark.parametrize("typed", ["abc", "1.2.3", "¥", "1,20,000", "12 GPUs"])
def test_other_text_keeps_the_fields_own_message(typed):
    with translation.override("en"):
        with pytest.raises(forms.ValidationError) as refused:
            forms.DecimalField().clean(typed)
        assert refused.value.messages == ["Enter a number."]


@pytest.mark.django_db
def test_the_new_evaluation_form_names_each_typing_problem_by_its_field(client, members):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("evaluation-create"),
        {
            "name": "Typed as on a Chinese keyboard",
            "workload_profile": "finetuning",
            "required_total_gpus": "１６",
            "required_gpu_memory_gib": "80",
            "duration_days": "20",
            "expected_idle_days": "0",
            "budget_total": "¥1,000,000",
            "budget_currency": "CNY",
            "required_mlps_level": "0",
            "min_busbw_fraction": "0,8",
        },
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 422
    errors = response.context["form"].errors
    assert errors["required_total_gpus"] == ["请用半角数字 0-9 输入，例如 16。"]
    assert errors["budget_total"] == ["请输入不带货币符号的数字，例如 1000000。"]
    assert errors["min_busbw_fraction"] == ["请用小数点“.”作小数分隔符，例如 0.8。"]
    html = response.content.decode()
    for typed in ("１６", "¥1,000,000", "0,8"):
        assert f'value="{typed}"' in html  # kept to correct, not blanked
    assert not Evaluation.objects.filter(name="Typed as on a Chinese keyboard").exists()


@pytest.mark.django_db
def test_the_questionnaire_autosave_explains_a_price_with_a_currency_sign(as_role):
    client = as_role("procurement")
    url = reverse("candidate-questionnaire", args=[1, 1])
    before = Answer.objects.get(candidate_id=1, item__number=9)
    response = client.post(
        url,
        {"item-9-claim": "¥890000", "autosave": "1"},
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 422
    body = json.loads(response.content)
    assert body["errors"]["item-9-claim"] == [
        "Enter the number without the currency sign, for example 890000."
    ]
    after = Answer.objects.get(candidate_id=1, item__number=9)
    assert (after.claim, after.value) == (before.claim, before.value)
