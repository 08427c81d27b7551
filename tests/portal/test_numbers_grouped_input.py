"""A number typed with thousands separators, as the pages show amounts ("1,200,000"), is refused
with a message saying how to type it, in the reader's language; nothing is saved."""

import pytest
from django import forms
from django.urls import reverse
from django.utils import translation

from portal.models import Evaluation


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Enter the number without thousands separators, for example 1200000."),
        ("zh-hans", "请输入不带千位分隔符的数字，例如 1200000。"),
    ],
)
@pytest.mark.parametrize("field", [forms.DecimalField, forms.IntegerField, forms.FloatField])
@pytest.mark.parametrize("typed", ["1,200,000", "1 200 000", "1'200'000"])
def test_a_grouped_number_is_refused_saying_how_to_type_it(language, message, field, typed):
    with translation.override(language):
        with pytest.raises(forms.ValidationError) as refused:
            field().clean(typed)
        assert refused.value.messages == [message]


@pytest.mark.parametrize("typed", ["1,20,000", "abc", "1.2.3"])
def test_other_text_keeps_the_fields_own_message(typed):
    with translation.override("en"), pytest.raises(forms.ValidationError) as refused:
        forms.DecimalField().clean(typed)
    assert refused.value.messages == ["Enter a number."]


@pytest.mark.django_db
def test_the_new_evaluation_form_explains_a_grouped_budget(client, members):
    client.force_login(members["procurement"])
    response = client.post(
        reverse("evaluation-create"),
        {
            "name": "Grouped budget",
            "workload_profile": "finetuning",
            "required_total_gpus": "16",
            "required_gpu_memory_gib": "80",
            "duration_days": "20",
            "expected_idle_days": "0",
            "budget_total": "1,000,000",
            "budget_currency": "CNY",
            "required_mlps_level": "0",
        },
    )
    assert response.status_code == 422
    assert b"without thousands separators, for example 1000000." in response.content
    assert b'value="1,000,000"' in response.content  # the typed text is kept to correct
    assert not Evaluation.objects.filter(name="Grouped budget").exists()


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "Enter the number without the % sign, for example 99.95."),
        ("zh-hans", "请输入不带 % 符号的数字，例如 99.95。"),
    ],
)
@pytest.mark.parametrize("typed", ["99.95%", "99.95 %", "99.95％"])
def test_a_number_typed_with_a_percent_sign_is_refused_saying_how_to_type_it(
    language, message, typed
):
    with translation.override(language):
        with pytest.raises(forms.ValidationError) as refused:
            forms.DecimalField().clean(typed)
        assert refused.value.messages == [message]
