"""A form posted while the database cannot be reached gets the 503 page with the text it sent
shown read-only to copy back, as a stale page or an ended session gets it: the bare "try again
in a few seconds" page dropped a rationale typed for ten minutes (attacker review)."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db(transaction=True)
RATIONALE = "Chosen for the <NDR> fabric & the 4-hour support SLA"


def _posted_while_the_database_is_down(client, url: str, data: dict, **headers):
    # As a server answers: an error outside the views reaches handler500, not the test.
    client.raise_request_exception = False
    good = connection.settings_dict.copy()
    connection.close()
    connection.settings_dict["PORT"] = "1"  # nothing listens there
    try:
        return client.post(url, data, **headers)
    finally:
        connection.close()
        connection.settings_dict.update(good)
        connection.connect()


def test_a_form_posted_while_the_database_is_down_shows_the_text_back(client, members, evaluation):
    client.force_login(members["manager"])
    url = f"/evaluations/{evaluation.pk}/decision/"
    response = _posted_while_the_database_is_down(
        client, url, {"rationale": RATIONALE, "csrfmiddlewaretoken": "x", "password": "hunter2"}
    )
    assert response.status_code == 503
    assert response["Retry-After"]
    page = response.content.decode()
    assert "Nothing was saved" in page
    assert "Chosen for the &lt;NDR&gt; fabric &amp; the 4-hour support SLA</textarea>" in page
    assert "hunter2" not in page and 'value="x"' not in page
    assert f'href="{url}"' in page


def test_the_page_is_in_the_readers_language(client, members, evaluation):
    client.force_login(members["manager"])
    response = _posted_while_the_database_is_down(
        client,
        f"/evaluations/{evaluation.pk}/decision/",
        {"rationale": RATIONALE},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert response.status_code == 503
    page = response.content.decode()
    assert "未保存任何内容" in page
    assert "Chosen for the &lt;NDR&gt;" in page


def test_a_post_from_another_site_gets_no_text_back(client, members, evaluation):
    client.force_login(members["manager"])
    response = _posted_while_the_database_is_down(
        client,
        f"/evaluations/{evaluation.pk}/decision/",
        {"rationale": RATIONALE},
        HTTP_ORIGIN="https://elsewhere.example",
    )
    assert response.status_code == 503
    assert "NDR" not in response.content.decode()
