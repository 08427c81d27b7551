"""The POC plan's deadline is typed in the portal's time zone, and the field says which (a
Chinese team typed 18:00 meaning Beijing time; the portal read 18:00 UTC, 02:00 in Beijing)."""

import pytest
from django.test import override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("zone", "language", "said"),
    [
        ("UTC", "en", "Type the time in UTC."),
        ("Asia/Shanghai", "zh-hans", "请按 Asia/Shanghai 时间填写。"),
    ],
)
def test_the_deadline_field_names_the_zone_it_is_read_in(as_role, zone, language, said):
    with override_settings(TIME_ZONE=zone):
        response = as_role("procurement").get(
            reverse("evaluation-poc", args=[1]), HTTP_ACCEPT_LANGUAGE=language
        )
    assert response.status_code == 200
    help_text = response.context["form"]["deadline"].help_text
    assert help_text.endswith(said)
    assert said in response.content.decode()
