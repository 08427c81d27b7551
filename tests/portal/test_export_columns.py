"""The comparison export names each column once: the recommended billing model is one column,
with why it is recommended beside it (CSV and the workbook's ranking sheet share the rows)."""

import csv
import io

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_csv_header_has_no_column_twice(client, demo, language):
    assert client.login(username="manager", password="decide-gpus-2026")
    url = reverse("evaluation-export", args=[1, "csv"])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    header, *rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert sorted({h for h in header if header.count(h) > 1}) == []
    assert all(len(row) == len(header) for row in rows)
    if language == "en":
        first = rows[0]
        assert first[header.index("Recommended billing model")] == "Monthly (per GPU-month)"
        assert first[header.index("Why recommended")] == "cheapest total"
