"""The browsable API's filter form words its labels in the reader's language whatever was
built before it: the OpenAPI schema builds the filters' form fields from the class's own
filters, and every later form used to inherit those fields without a label, showing the
field's name in English ("Mlps level") on a Chinese page (CI of stop 33, the schema test
running before the Chinese sweep)."""

import re

import pytest
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db


def _filter_labels(page: str) -> list[str]:
    return re.findall(r'<label[^>]*for="id_[a-z_0-9]+"[^>]*>([^<]*)</label>', page)


def test_filter_labels_follow_the_language_after_the_schema_is_built(api, make_user):
    SchemaGenerator().get_schema(request=None, public=True)
    api.as_(make_user("reader"))
    chinese = api.get(
        "/api/v1/vendors/", HTTP_ACCEPT="text/html", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    labels = _filter_labels(chinese)
    assert labels, chinese[:2000]
    assert any("等保级别" in label for label in labels), labels
    assert not any("Mlps" in label or "level" in label for label in labels), labels
    english = api.get(
        "/api/v1/vendors/", HTTP_ACCEPT="text/html", HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert any("MLPS level" in label for label in _filter_labels(english)), _filter_labels(english)
