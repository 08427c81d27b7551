"""The requirements form says what its 0 GiB default of GPU memory means, in both languages."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "hint"),
    [("en", "0: no minimum."), ("zh-hans", "0：不设下限。")],
)
def test_the_gpu_memory_requirement_explains_its_zero(client, members, evaluation, language, hint):
    client.force_login(members["procurement"])
    for url in (reverse("evaluation-create"), reverse("evaluation-edit", args=[evaluation.pk])):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        field = page.split('for="id_required_gpu_memory_gib"')[1].split('<div class="field')[0]
        assert hint in field, url
