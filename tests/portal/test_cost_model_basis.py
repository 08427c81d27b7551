"""The cost model's assumptions reach the reader (expert review F2, F5, F7): surplus GPUs left
out of the useful GPU-hours and a GPU priced against the fallback reference are said on the
candidate page and in the report's reference line, in English and Chinese; a provisioning time
of 0 is stored and scored as an answer, an empty one as unanswered."""

import pytest
from django.urls import reverse
from django.utils import translation

from portal import adapters
from portal.exports import reference_price_note
from portal.forms_procurement import OfferingEditForm
from portal.models import OfferingPrice
from scoring.rubric import load_rubric
from scoring.tco import compute_tco

try:
    from tests.scoring.scoring_factories import candidate as scoring_candidate
    from tests.scoring.scoring_factories import evaluation as scoring_evaluation
    from tests.scoring.scoring_factories import offering as scoring_offering
except ImportError:  # pragma: no cover - tests/scoring on the path instead
    from scoring_factories import candidate as scoring_candidate
    from scoring_factories import evaluation as scoring_evaluation
    from scoring_factories import offering as scoring_offering

pytestmark = pytest.mark.django_db


def test_the_candidate_page_says_surplus_gpus_are_not_counted(
    client, evaluation, offering, members
):
    from portal.models import Candidate

    OfferingPrice.objects.create(offering=offering, billing_model="hourly", price_per_gpu=20)
    assert evaluation.rubric_version == "2"
    # 16 GPUs required, 3 nodes of 8 delivered: 8 surplus GPUs.
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=3)
    client.force_login(members["viewer"])
    url = reverse("candidate-detail", args=[evaluation.pk, candidate.pk])
    page = client.get(url).content.decode()
    assert "divides by the 16 GPUs required, not the 24 delivered" in page
    assert "the GPUs required, not every GPU delivered" in page
    zh = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "按需求的 16 块 GPU 计算，而非交付的 24" in zh
    assert "按需求的 GPU 数计，而非交付的全部 GPU" in zh


def test_the_report_line_names_a_gpu_without_its_own_reference_price():
    rubric = load_rubric("2")
    tco = compute_tco(
        scoring_candidate(offering=scoring_offering(gpu_model="NVIDIA L20")),
        scoring_evaluation(),
        rubric,
    )
    with translation.override("en"):
        note = reference_price_note(tco, "NVIDIA L20", rubric)
    assert "No reference price for NVIDIA L20: the rubric's fallback of 10.00 CNY" in note
    with translation.override("zh-hans"):
        note = reference_price_note(tco, "NVIDIA L20", rubric)
    assert "NVIDIA L20 没有参考价格" in note
    listed = compute_tco(scoring_candidate(), scoring_evaluation(), rubric)
    with translation.override("en"):
        assert "no reference price" not in reference_price_note(listed, "H100", rubric)


@pytest.mark.parametrize(("typed", "stored"), [("", None), ("0", 0), ("15", 15)])
def test_provisioning_time_zero_is_an_answer_and_empty_is_unanswered(offering, typed, stored):
    form = OfferingEditForm(instance=offering)
    data = {name: form[name].value() for name in form.fields}
    data = {k: ("" if v is None else v) for k, v in data.items()}
    data["provisioning_time_min"] = typed
    bound = OfferingEditForm(data=data, instance=offering)
    assert bound.is_valid(), bound.errors
    saved = bound.save()
    saved.refresh_from_db()
    assert saved.provisioning_time_min == stored
    assert adapters.offering_facts(saved).provisioning_time_min == stored


def test_the_migration_keeps_old_zeros_unanswered(offering):
    import importlib

    from django.apps import apps

    from portal.models import OfferingVersion

    migration = importlib.import_module(
        "portal.migrations.0023_offering_provisioning_time_unanswered"
    )
    type(offering).objects.filter(pk=offering.pk).update(provisioning_time_min=0)
    version = OfferingVersion.current(offering)
    facts = dict(version.facts, provisioning_time_min=0)
    OfferingVersion.objects.filter(pk=version.pk).update(facts=facts)
    migration.zero_to_unanswered(apps, None)
    offering.refresh_from_db()
    version.refresh_from_db()
    assert offering.provisioning_time_min is None
    assert version.facts["provisioning_time_min"] is None
    assert version.facts["gpu_model"] == offering.gpu_model
