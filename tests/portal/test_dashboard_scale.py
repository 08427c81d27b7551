"""The dashboard of a large evaluation stays readable and light: the verification matrix shows
the first candidates unless asked for all, and the robustness chart draws the charted
candidates (and any that ranked first in some draw), while the ranking lists everyone."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from portal.models import Candidate, Evaluation, Membership, Offering, OfferingPrice, Role
from portal.views.dashboard import CHART_CANDIDATES, MATRIX_CANDIDATES

pytestmark = pytest.mark.django_db

COUNT = MATRIX_CANDIDATES + 3


@pytest.fixture
def large(client, vendor, make_user) -> tuple:
    evaluation = Evaluation.objects.create(
        name="many candidates", workload_profile="pretraining", required_total_gpus=16,
        duration_days=30,
    )  # fmt: skip
    for i in range(COUNT):
        offering = Offering.objects.create(
            vendor=vendor, name=f"offer {i}", delivery_form="bare_metal", gpu_model="H100",
            gpu_form_factor="sxm", gpus_per_node=8, gpu_memory_gib=80,
            nvlink_topology="full_mesh", fabric="infiniband", fabric_rate_gbit_s=400,
            nics_per_node=8,
        )  # fmt: skip
        # Prices differ, so the ranking (and the leader) is decided by cost.
        OfferingPrice.objects.create(
            offering=offering, billing_model="hourly", price_per_gpu=20 + i
        )
        Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=2)
    user = make_user("large-manager")
    Membership.objects.create(evaluation=evaluation, user=user, role=Role.MANAGER)
    client.force_login(user)
    return client, reverse("evaluation-detail", args=[evaluation.pk])


def _matrix(html: str) -> str:
    return html[html.index('id="matrix-title"') :]


def test_the_matrix_shows_the_first_candidates_unless_asked_for_all(large):
    client, url = large
    html = client.get(url).content.decode()
    matrix = _matrix(html)
    assert matrix.count('<th scope="col">') == 1 + MATRIX_CANDIDATES
    assert f"The first {MATRIX_CANDIDATES} candidates of {COUNT} in ranking order." in matrix
    assert 'href="?matrix=all#matrix-title"' in matrix
    # The ranking itself lists every candidate.
    ranking = html[html.index('id="ranking-title"') : html.index('id="matrix-title"')]
    assert len(set(re.findall(r"/candidates/(\d+)/", ranking))) == COUNT

    everything = _matrix(client.get(url + "?matrix=all").content.decode())
    assert everything.count('<th scope="col">') == 1 + COUNT
    assert "in ranking order." not in everything


def test_the_robustness_chart_draws_the_charted_candidates_only(large):
    client, url = large
    html = client.get(url).content.decode()
    found = re.search(r'<script id="fig-robustness" type="application/json">(.*?)</script>', html)
    figure = json.loads(found.group(1))
    bars = figure["data"][0]
    assert bars["type"] == "bar"
    # The leader (cheapest) and the charted candidates; no bar for the other ~40.
    assert CHART_CANDIDATES <= len(bars["x"]) < COUNT
    assert any("offer 0" in name for name in bars["customdata"])
    heatmap_rows = {len(trace.get("y") or ()) for trace in figure["data"][1:]}
    assert max(heatmap_rows, default=0) < COUNT - 1
