"""The candidate page's header names the delivery form as the vendor's claim, with what the
evidence made of it: an uncertain bare-metal verdict never reads as a fact."""

import pytest
from django.urls import reverse

from portal.models import Candidate

pytestmark = pytest.mark.django_db


def _header(client, candidate, language="en") -> str:
    url = reverse("candidate-detail", args=[candidate.evaluation_id, candidate.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    return page.split('class="delivery-claim')[1].split("</dd>")[0]


def _measured(candidate, verdict, confidence, seen=None) -> None:
    measured = {
        "bare_metal_verdict": verdict,
        "bare_metal_confidence": confidence,
        "delivery_form_seen": seen,
    }
    Candidate.objects.filter(pk=candidate.pk).update(verification={"measured": measured})


@pytest.mark.parametrize(
    ("verdict", "confidence", "seen", "en", "zh"),
    [
        ("uncertain", 0.4, None, "claimed; the evidence is not conclusive", "声明；证据尚无定论"),
        ("bare_metal", 0.95, None, "claimed; the evidence confirms it", "声明；证据证实了这一点"),
        (
            "virtualised",
            0.99,
            "vgpu",
            "claimed; the evidence contradicts it, scored as vGPU",
            "声明；证据与之矛盾，按 vGPU 评分",
        ),
        (None, None, None, "claimed; no evidence on it yet", "声明；尚无相关证据"),
        # Only a hypervisor shows (a KVM guest): the container is an assumption, said as one.
        (
            "virtualised",
            0.99,
            "virtualised",
            "claimed; the evidence contradicts it, scored as Container on shared GPUs, the "
            "least favourable form consistent with it (it shows a hypervisor, not which form "
            "runs under it)",
            "声明；证据与之矛盾，按共享 GPU 上的容器评分，即与证据相符的最不利形态"
            "（证据显示了虚拟化层，但未显示其下运行的是哪种形态）",
        ),
    ],
)
def test_the_header_says_the_delivery_form_is_claimed_and_what_the_evidence_made_of_it(
    client, members, candidate, verdict, confidence, seen, en, zh
):
    _measured(candidate, verdict, confidence, seen)
    client.force_login(members["viewer"])
    header = _header(client, candidate)
    assert header.endswith(f'">Bare metal<br><small><a href="#bm-title">{en}</a></small>')
    assert zh in _header(client, candidate, "zh-hans")


def test_an_uncertain_verdict_is_not_shown_as_bare_metal_confirmed(client, members, candidate):
    _measured(candidate, "uncertain", 0.4)
    client.force_login(members["viewer"])
    header = _header(client, candidate)
    assert "confirms" not in header and "claim-claimed" in header


@pytest.mark.parametrize(
    ("language", "claim"),
    [("en", "claimed; the evidence is not conclusive"), ("zh-hans", "声明；证据尚无定论")],
)
def test_the_ranking_names_the_delivery_form_as_a_claim_with_its_status(
    client, members, candidate, language, claim
):
    # The dashboard's and the report's ranking say the same as the candidate page.
    _measured(candidate, "uncertain", 0.4)
    client.force_login(members["viewer"])
    for name in ("evaluation-detail", "evaluation-report"):
        url = reverse(name, args=[candidate.evaluation_id])
        page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
        row = page.split(f'candidates/{candidate.pk}/"')[1].split("</tr>")[0]
        assert f'<br><small class="claim-claimed">{claim}</small></td>' in row, name


@pytest.mark.parametrize(
    ("sla", "language", "shown"),
    [
        (None, "en", "no availability SLA stated"),
        (None, "zh-hans", "未声明可用性 SLA"),
        ("99.950", "en", "99.95 %"),
        ("99.900", "en", "99.9 %"),
    ],
)
def test_the_header_shows_the_sla_as_typed_or_says_there_is_none(
    client, members, evaluation, vendor, sla, language, shown
):
    from decimal import Decimal

    from .conftest import small_offering

    offering = small_offering(vendor, sla_availability_pct=None if sla is None else Decimal(sla))
    candidate = Candidate.objects.create(evaluation=evaluation, offering=offering, node_count=1)
    client.force_login(members["viewer"])
    url = reverse("candidate-detail", args=[candidate.evaluation_id, candidate.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'<dd class="sla">{shown}</dd>' in page
    assert "None %" not in page
