"""An availability SLA with no credit on breach counts as a claim even once the document review
verified it (rubric v2 stability.sla.availability backed_by offering.sla_credit_pct): the
candidate page says so beside the rule and beside the TCO's availability, in English and
Chinese; a credit on breach lifts it to the verified figure."""

import re
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse

from portal.models import Answer, Candidate, ChecklistItem, OfferingPrice, VerificationStatus
from portal.services.reviews import answer_review

pytestmark = pytest.mark.django_db


def _verified_sla(candidate, members) -> None:
    if not ChecklistItem.objects.exists():
        call_command("loaddata", "checklist", verbosity=0)
    answer = Answer.objects.create(
        candidate=candidate,
        item=ChecklistItem.objects.get(key="sla"),
        claim="99.9 % monthly availability",
        status=VerificationStatus.CLAIMED,
        updated_by=members["procurement"],
    )
    answer_review(
        answer=answer, verdict="verified", note="Service description §3", by=members["manager"]
    )
    answer.refresh_from_db()
    assert answer.status == "verified"


def _rule_row(page: str) -> str:
    row = re.search(
        r'<tr[^>]*>\s*<td[^>]*data-rule-id="stability.sla.availability".*?</tr>', page, re.S
    )
    assert row, "the candidate page has no availability SLA row"
    return row.group(0)


def _tco_basis(page: str) -> str:
    section = re.search(r'<section[^>]*class="tco-basis".*?</section>', page, re.S)
    assert section, "the candidate page has no TCO basis"
    return section.group(0)


def _candidate(evaluation, offering, name: str, credit: Decimal):
    """A candidate on a priced copy of ``offering`` (99.9 % SLA) with ``credit`` on breach."""
    copy = type(offering).objects.get(pk=offering.pk)
    copy.pk = None
    copy.name = name
    copy.sla_credit_pct = credit
    copy.save()
    OfferingPrice.objects.create(offering=copy, billing_model="hourly", price_per_gpu=20)
    return Candidate.objects.create(evaluation=evaluation, offering=copy, node_count=2)


def test_a_verified_sla_without_credit_says_it_counts_as_a_claim(
    client, evaluation, offering, members
):
    assert evaluation.rubric_version == "2"
    assert offering.sla_availability_pct == Decimal("99.9")
    uncredited = _candidate(evaluation, offering, "no credit", Decimal("0"))
    credited = _candidate(evaluation, offering, "credit", Decimal("10"))
    _verified_sla(uncredited, members)
    _verified_sla(credited, members)
    client.force_login(members["viewer"])
    url = reverse("candidate-detail", args=[evaluation.pk, uncredited.pk])

    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    row = _rule_row(page)
    assert "No compensation on SLA breach, so the SLA counts at most as" in row
    assert "Claimed" in row
    # The 99.9 % step is 12 points; at the claimed factor 0.7: 8.4 of 20.
    assert "8.4 / 20.0" in row
    assert "verified SLA with no compensation on breach: discounted as a claim" in _tco_basis(page)

    zh = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    row = _rule_row(zh)
    assert "SLA 违约无赔偿，因此该 SLA 最多按此状态计分" in row
    assert "已验证但违约无赔偿的 SLA：按声明折算" in _tco_basis(zh)

    # A credit on breach backs the SLA: the verified figure counts in full.
    url = reverse("candidate-detail", args=[evaluation.pk, credited.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    row = _rule_row(page)
    assert "No compensation on SLA breach" not in row
    assert "12.0 / 20.0" in row
    basis = _tco_basis(page)
    assert "verified SLA" in basis and "no compensation" not in basis
