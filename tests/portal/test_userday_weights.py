"""Weights: direct weights must make 100 (or are scaled to 100 on request, visibly), are stored
in one unit with the AHP ones, History shows them in percent, the saved AHP comparisons come
back on the page, and read-only roles get read-only controls."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from portal.audit import evaluation_history
from portal.models import Evaluation

pytestmark = pytest.mark.django_db

DIMS = ("stability", "network", "storage", "security", "cost", "support")
URL = reverse("evaluation-weights", args=[1])


def _direct(values, **extra):
    return {f"w_{d}": str(v) for d, v in zip(DIMS, values, strict=True)} | extra


def test_weights_that_do_not_make_100_are_refused_and_say_their_sum(as_role):
    client = as_role("manager")
    before = Evaluation.objects.get(pk=1).weights
    response = client.post(URL, _direct([30, 30, 20, 10, 20, 10]))
    assert response.status_code == 422
    html = response.content.decode()
    assert "add up to 120 %" in html and "must make 100 %" in html
    assert re.search(r'id="weights-sum-value">120\.0<', html)
    assert Evaluation.objects.get(pk=1).weights == before


def test_asked_to_scale_them_the_page_says_what_was_saved(as_role):
    client = as_role("manager")
    response = client.post(URL, _direct([30, 30, 20, 10, 20, 10], scale="on"), follow=True)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Your weights added up to 120 %; saved scaled to 100 %" in html
    assert "Stability 25.0 %" in html
    evaluation = Evaluation.objects.get(pk=1)
    assert evaluation.weight_stability == Decimal("25.000")
    assert sum(evaluation.weights.values()) == pytest.approx(Decimal(100), abs=Decimal("0.01"))
    # The page shows them in percent again.
    assert re.search(r'name="w_stability"[^>]*value="25\.0"', html)


def test_weights_making_100_are_stored_in_percent_and_history_uses_percent(as_role):
    client = as_role("manager")
    assert client.post(URL, _direct([20, 30, 10, 10, 20, 10])).status_code == 302
    evaluation = Evaluation.objects.get(pk=1)
    assert evaluation.weight_network == Decimal("30.000")
    assert evaluation.ahp_matrix is None
    entries = [e for e in evaluation_history(evaluation) if e.kind == "evaluation"]
    changes = {c.field: (c.before, c.after) for c in entries[0].changes}
    assert changes["weight_stability"] == ("25.0 %", "20.0 %")
    assert "weight_network" not in changes  # 30 % before and after: no change to show
    for entry in entries:
        for change in entry.changes:
            if change.field.startswith("weight_"):
                assert change.after is None or change.after.endswith(" %"), change


def _ahp(**judgements):
    data = {"ahp": "1"}
    for i, a in enumerate(DIMS):
        for b in DIMS[i + 1 :]:
            data[f"{a}__{b}"] = "1"
    data.update(judgements)
    return data


def test_the_saved_ahp_comparisons_are_shown_again(as_role):
    client = as_role("procurement")
    response = client.post(URL, _ahp(network__storage="3", stability__support="1/3"))
    assert response.status_code == 302
    evaluation = Evaluation.objects.get(pk=1)
    assert evaluation.ahp_matrix[1][2] == 3.0
    html = client.get(URL).content.decode()
    assert re.search(r'name="network__storage"[^>]*>.*?<option value="3" selected>', html, re.S)
    assert re.search(r'name="stability__support"[^>]*>.*?<option value="1/3" selected>', html, re.S)
    assert "the current weights were derived from" in html
    # History speaks percent for AHP weights too (never "0.199").
    entries = [e for e in evaluation_history(evaluation) if e.kind == "evaluation"]
    assert all(c.after.endswith(" %") for c in entries[0].changes if c.field.startswith("weight_"))
    # Direct weights replace them: the page no longer claims comparisons.
    client.post(URL, _direct([20, 30, 10, 10, 20, 10]))
    html = client.get(URL).content.decode()
    assert "set directly; no comparisons are saved" in html
    assert Evaluation.objects.get(pk=1).ahp_matrix is None


@pytest.mark.parametrize("role", ["viewer", "engineer"])
def test_read_only_roles_see_read_only_controls(as_role, role):
    html = as_role(role).get(URL).content.decode()
    assert 'id="weights-read-only"' in html
    ahp = html.split('id="ahp-form"', 1)[1].split("</form>", 1)[0]
    assert "<select" not in ahp and "<button" not in ahp
    assert 'class="ahp-value"' in ahp
    assert "Save weights" not in html and 'name="scale"' not in html


def test_a_manager_sees_save_controls(as_role):
    html = as_role("manager").get(URL).content.decode()
    assert 'id="weights-read-only"' not in html
    assert "Save weights" in html and 'name="scale"' in html
    ahp = html.split('id="ahp-form"', 1)[1].split("</form>", 1)[0]
    assert "<select" in ahp and "Derive and save weights" in ahp
