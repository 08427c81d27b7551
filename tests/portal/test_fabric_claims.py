"""Fabric claims in the portal: an oversubscription left blank is stored and scored as not
stated, and the switch topology (oversubscription, cross-rack latency) is verified by the
document review of item 3 only, never by ibstat."""

from decimal import Decimal

import pytest
from django.forms.models import model_to_dict

from portal import adapters, selectors
from portal.forms import OfferingForm
from portal.models import Answer, Score
from portal.services.answers import AnswerDraft, answers_save
from portal.services.reviews import answer_review
from portal.services.scores import candidate_refresh

pytestmark = pytest.mark.django_db

TOPOLOGY_RULES = ("network.fabric.oversubscription", "network.fabric.cross_rack_latency")


def _user(name):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=name)


def _network(candidate_id):
    contributions = Score.objects.get(candidate_id=candidate_id, dimension="network").contributions
    return {c["rule_id"]: c for c in contributions}


def test_a_blank_oversubscription_saves_as_not_stated(offering):
    form = OfferingForm(
        data={
            **{k: v for k, v in model_to_dict(offering).items() if v is not None},
            "oversubscription_ratio": "",
        },
        instance=offering,
    )
    assert not form.fields["oversubscription_ratio"].required
    assert form.is_valid(), form.errors
    form.save()
    offering.refresh_from_db()
    assert offering.oversubscription_ratio is None
    assert adapters.offering_facts(offering).oversubscription_ratio is None
    # A stated ratio below 1 is still refused.
    refused = OfferingForm(
        data={**model_to_dict(offering), "oversubscription_ratio": "0.5"}, instance=offering
    )
    assert not refused.is_valid() and "oversubscription_ratio" in refused.errors


def test_an_offering_created_without_a_ratio_states_none(offering):
    # The conftest offering states no oversubscription: the model's default is "not stated".
    assert offering.oversubscription_ratio is None


def test_an_unstated_ratio_scores_missing_and_below_an_honest_two_to_one(candidate):
    candidate_refresh(candidate_id=candidate.pk)
    silent = _network(candidate.pk)["network.fabric.oversubscription"]
    assert (silent["basis"], silent["points"]) == ("missing", 0.0)
    silent_total = Score.objects.get(candidate=candidate, dimension="network").value
    offering = candidate.offering
    offering.oversubscription_ratio = Decimal(2)
    offering.save()
    candidate.refresh_from_db()
    candidate.offering_version = None
    candidate.save(update_fields=["offering_version"])
    candidate_refresh(candidate_id=candidate.pk)
    honest = _network(candidate.pk)["network.fabric.oversubscription"]
    assert honest["basis"] == "claimed" and honest["points"] > 0
    assert Score.objects.get(candidate=candidate, dimension="network").value > silent_total


def _fabric_answer(candidate_id):
    return Answer.objects.select_related("item", "candidate").get(
        candidate_id=candidate_id, item__key="fabric"
    )


def test_only_the_review_of_item_3_verifies_the_switch_topology(demo):
    answer = _fabric_answer(1)
    answers_save(
        candidate=answer.candidate,
        drafts=[
            AnswerDraft(
                item=answer.item,
                claim="NDR 400 x 8 rails, 1:1 non-blocking fat-tree, 1.2 µs across racks",
                value=answer.value,
                notes=answer.notes,
            )
        ],
        by=_user("procurement"),
    )
    before = _network(1)
    before_score = Score.objects.get(candidate_id=1, dimension="network").value
    assert {before[r]["basis"] for r in TOPOLOGY_RULES} == {"claimed"}
    for rule_id in TOPOLOGY_RULES:
        c = before[rule_id]
        # Whatever ibstat showed, the topology is at most claimed and cites no evidence.
        assert c["inputs"]["answer.fabric_topology"] in ("claimed", "unanswered", "contradicted")
        assert c["points"] < c["max_points"]
        assert not c["evidence_ref"]
    answer = _fabric_answer(1)
    answer_review(
        answer=answer,
        verdict="verified",
        note="Network design v3 p.4: 1:1 fat-tree, 1.2 µs leaf-spine-leaf",
        by=_user("engineer"),
    )
    stored = selectors.candidates_for_scoring(evaluation=answer.candidate.evaluation)
    reviewed = next(c for c in stored if c.pk == 1)
    assert reviewed.reviews_summary == {"fabric": "verified"}
    assert dict(selectors.scoring_input(reviewed).reviews) == {"fabric": "verified"}
    after = _network(1)
    for rule_id in TOPOLOGY_RULES:
        c = after[rule_id]
        assert c["inputs"]["answer.fabric_topology"] == "verified"
        assert c["points"] == c["max_points"]
    assert Score.objects.get(candidate_id=1, dimension="network").value > before_score
    # The answer changes: the review no longer applies, the topology is a claim again.
    answer = _fabric_answer(1)
    answers_save(
        candidate=answer.candidate,
        drafts=[AnswerDraft(item=answer.item, claim="2:1", value=answer.value, notes=answer.notes)],
        by=_user("procurement"),
    )
    again = _network(1)
    assert all(
        again[r]["inputs"].get("answer.fabric_topology") != "verified" for r in TOPOLOGY_RULES
    )
