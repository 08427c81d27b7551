"""The results read model built cheaply from rows is the one the ORM would build: a pinned
version read back as values holds every fact with the type the model field gives it, and a
candidate read from the cache carries what one computed fresh carries."""

from __future__ import annotations

import pickle
from decimal import Decimal
from html import escape

import pytest
from django.core.cache import cache

from portal import selectors
from portal.models import Evaluation, Offering, OfferingVersion, Vendor

pytestmark = pytest.mark.django_db

DEMO_EVALUATION = 1


def _facts(instance) -> dict:
    return {
        f.attname: getattr(instance, f.attname)
        for f in type(instance)._meta.concrete_fields
        if f.attname not in ("created_at", "updated_at")
    }


def test_a_version_reads_back_as_the_offering_it_was_made_from(demo):
    for offering in Offering.objects.select_related("vendor"):
        version = OfferingVersion.current(offering)
        pinned = version.as_offering()
        assert _facts(pinned) == _facts(offering)
        assert _facts(pinned.vendor) == _facts(offering.vendor)
        # Same values with the same Python types (a Decimal stays a Decimal, not a string).
        for name, value in _facts(offering).items():
            assert type(getattr(pinned, name)) is type(value), name
        assert pinned.vendor_id == offering.vendor_id
        assert not pinned._state.adding
        assert str(pinned) == str(offering)


def test_a_fact_missing_from_an_older_version_takes_the_field_default(demo):
    offering = Offering.objects.first()
    version = OfferingVersion.current(offering)
    facts = dict(version.facts)
    del facts["setup_days"], facts["storage_cost_month"]
    vendor_facts = {k: v for k, v in version.vendor_facts.items() if k != "iso27001"}
    old = OfferingVersion(offering=offering, facts=facts, vendor_facts=vendor_facts, prices=[])
    pinned = old.as_offering()
    assert pinned.setup_days == Offering._meta.get_field("setup_days").get_default()
    assert pinned.storage_cost_month == Offering._meta.get_field("storage_cost_month").get_default()
    assert pinned.vendor.iso27001 == Vendor._meta.get_field("iso27001").get_default()
    assert pinned.gpu_model == offering.gpu_model


def test_cached_candidates_equal_fresh_ones(demo):
    cache.clear()
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    fresh_ranking, fresh = selectors.evaluation_ranking(evaluation=evaluation, use_cache=False)
    selectors.evaluation_ranking(evaluation=evaluation)
    ranking, cached = selectors.evaluation_ranking(evaluation=evaluation)  # from the cache
    assert ranking.as_dict() == fresh_ranking.as_dict()
    assert list(cached) == list(fresh)
    for pk, candidate in cached.items():
        other = fresh[pk]
        assert _facts(candidate.offering) == _facts(other.offering)
        assert candidate.offering.vendor.name == other.offering.vendor.name
        assert candidate.list_prices == other.list_prices
        assert all(isinstance(price, Decimal) for _model, price in candidate.list_prices)
        assert candidate.answer_statuses == other.answer_statuses
        assert list(candidate.answer_statuses) == list(other.answer_statuses)  # checklist order
        assert selectors.busbw_curve(candidate) == selectors.busbw_curve(other)
        assert candidate.measured_summary == other.measured_summary
        assert candidate.evaluation is evaluation
        assert candidate.node_count == other.node_count
        assert selectors.scoring_input(candidate) == selectors.scoring_input(other)
    cache.clear()


def test_the_cached_read_model_holds_rows_not_model_instances(demo):
    cache.clear()
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    selectors.evaluation_ranking(evaluation=evaluation)
    key = selectors.results_key(evaluation, "ranking-rows", selectors.weights_key(None))
    # Stored pickled, in the cache and in PostgreSQL alike.
    blob = cache.get(key)
    assert blob == selectors.results_entry_payload(key)
    _ranking, rows = pickle.loads(blob)  # noqa: S301 - written by the test
    blob = pickle.dumps(rows)
    assert b"django.db.models" not in blob
    assert b"portal.models" not in blob
    cache.clear()


def test_candidate_urls_are_those_reverse_gives():
    from django.urls import reverse

    from portal.views.dashboard import _candidate_urls

    for evaluation_id in (1, 42, 987_654_320_123):
        ids = [1, 7, 123, 987_654_320_123, 10**12]
        assert _candidate_urls(evaluation_id, ids) == {
            pk: reverse("candidate-detail", args=[evaluation_id, pk]) for pk in ids
        }


def test_a_candidate_older_than_versioning_is_pinned_and_ranked(demo):
    from portal.models import Candidate

    cache.clear()
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    before, _candidates = selectors.evaluation_ranking(evaluation=evaluation, use_cache=False)
    legacy = evaluation.candidates.order_by("pk").first()
    Candidate.objects.filter(pk=legacy.pk).update(offering_version=None)
    ranking, candidates = selectors.evaluation_ranking(evaluation=evaluation, use_cache=False)
    assert Candidate.objects.get(pk=legacy.pk).offering_version_id is not None
    assert candidates[legacy.pk].offering.name == legacy.offering.name
    assert ranking.as_dict() == before.as_dict()


def test_the_rows_decode_to_what_the_model_fields_read(demo):
    """The read model's rows carry the JSON columns as their text (cheap to cache); the
    candidates built from them hold what the ORM's JSONFields decode, JSON null and absent
    keys included."""
    from portal.models import Candidate

    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    first = evaluation.candidates.order_by("pk").first()
    # A JSON null under one key and no "poc" key at all: both read as None.
    verification = dict(first.verification or {})
    verification["busbw_curve"] = None
    verification.pop("poc", None)
    Candidate.objects.filter(pk=first.pk).update(verification=verification)
    built = {c.pk: c for c in selectors.candidates_for_scoring(evaluation=evaluation)}
    assert built
    for candidate in evaluation.candidates.select_related("offering_version"):
        mine = built[candidate.pk]
        stored = candidate.verification or {}
        assert mine.measured_summary == stored.get("measured")
        assert selectors.busbw_curve(mine) == stored.get("busbw_curve")
        assert mine.poc_summary == stored.get("poc")
        version = candidate.offering_version
        assert _facts(mine.offering) == _facts(version.as_offering())
        assert mine.list_prices == version.price_pairs()
    assert selectors.busbw_curve(built[first.pk]) is None
    assert built[first.pk].poc_summary is None


def test_each_disqualified_row_has_its_reasons_right_under_it(demo):
    """The ranking's body is rendered in Python, a disqualified row's knockout reasons (their
    own small template) directly under that row and under no other."""
    import re

    from django.contrib.auth import get_user_model
    from django.test import Client

    from portal.models import Membership

    cache.clear()
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    user = get_user_model().objects.create_user("dash-reader", password="x")
    Membership.objects.create(evaluation=evaluation, user=user, role="viewer")
    client = Client()
    client.force_login(user)
    html = client.get(f"/evaluations/{evaluation.pk}/").content.decode()
    body = html.split('<table class="data ranking">', 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r'<tr class="([^"]*)"', body)
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    expected = []
    for result in ranking.results:
        expected.append("disqualified" if result.disqualified else "")
        if result.disqualified:
            expected.append("disqualified knockout-row")
    assert rows == expected
    assert "disqualified knockout-row" in rows
    for result in ranking.results:
        for knockout in result.knockouts:
            assert escape(knockout.reason_en) in body
    cache.clear()


def test_the_postgresql_rows_are_the_orm_rows(demo):
    """The read model's one statement of PostgreSQL (each stored verification read once) gives
    the rows the ORM's query gives: the same columns, converted alike (knockouts decoded),
    with a verification that is JSON null, an array or lacks a part."""
    from django.db import connection

    from portal.models import Candidate

    assert connection.vendor == "postgresql"
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    ids = list(evaluation.candidates.order_by("pk").values_list("pk", flat=True))
    assert len(ids) >= 4
    stored = Candidate.objects.get(pk=ids[0]).verification
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE portal_candidate SET verification = 'null'::jsonb WHERE id = %s",
            [ids[1]],
        )
    Candidate.objects.filter(pk=ids[2]).update(verification=[1, {"measured": {}}])
    Candidate.objects.filter(pk=ids[3]).update(
        verification={"measured": stored.get("measured"), "busbw_curve": None}
    )
    rows = selectors._version_rows(evaluation)
    assert rows == list(selectors._version_query(evaluation))
    assert [row[0] for row in rows] == ids
    assert any(row[list(selectors._CANDIDATE_COLUMNS).index("knockouts")] for row in rows)


def test_the_ranking_alone_is_the_ranking_with_its_candidates(demo):
    """``candidates=False`` (what-if stability reads the saved ranking alone) gives the same
    ranking, fresh, computed into the cache or read from it, and builds no candidates."""
    cache.clear()
    evaluation = Evaluation.objects.get(pk=DEMO_EVALUATION)
    fresh, candidates = selectors.evaluation_ranking(evaluation=evaluation, use_cache=False)
    assert candidates
    for _ in range(2):  # computed into the cache, then read from it
        alone, none = selectors.evaluation_ranking(evaluation=evaluation, candidates=False)
        assert none is None
        assert alone.as_dict() == fresh.as_dict()
    uncached, none = selectors.evaluation_ranking(
        evaluation=evaluation, use_cache=False, candidates=False
    )
    assert none is None and uncached.as_dict() == fresh.as_dict()
    cache.clear()
