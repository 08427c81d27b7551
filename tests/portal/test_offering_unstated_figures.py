"""An offering's figure left at its default 0 (local NVMe capacity, rate per port, NICs per
node: columns that cannot hold "unset") reads "not stated" wherever the portal shows the
offering, never as a claim of 0; money, days and percentages at 0 stay as stated, and a
figure that is stated is shown as it is."""

import re
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from portal.models import Candidate, Offering
from portal.services.catalogue import candidate_offering_adopt, offering_save
from portal.views.display import value_label

from .conftest import PASSWORDS

pytestmark = pytest.mark.django_db

MIG = 4  # demo offering 4 (MIG slices) is candidate 4 of evaluation 1: 0.5 TiB, 1 x 25 Gb/s


@pytest.fixture
def editor(demo):
    return get_user_model().objects.create_user(
        username="catalogue", password="catalogue-pass-1", is_staff=True
    )


@pytest.fixture
def procurement(client, demo):
    assert client.login(username="procurement", password=PASSWORDS["procurement"])
    return client


def _edit(editor, pk: int, **figures) -> Offering:
    offering = Offering.objects.get(pk=pk)
    for name, value in figures.items():
        setattr(offering, name, value)
    return offering_save(offering=offering, by=editor)


def _pairs(html: str) -> dict[str, str]:
    """The offering page's claims: label -> the text shown."""
    pairs = re.findall(r"<dt>(.*?)</dt>\s*<dd>(.*?)</dd>", html, re.S)
    return {dt.strip(): re.sub(r"<[^>]+>", "", dd).strip() for dt, dd in pairs}


def test_the_offering_page_says_not_stated_for_a_figure_left_at_zero(procurement, editor):
    _edit(editor, MIG, nvme_capacity_tib=Decimal(0), fabric_rate_gbit_s=0, nics_per_node=0)
    page = procurement.get(reverse("offering-detail", args=[MIG])).content.decode()
    shown = _pairs(page)
    assert shown["Local NVMe capacity (TiB)"] == "not stated"
    assert shown["Rate per port (Gbit/s)"] == "not stated"
    assert shown["Compute NICs (rails) per node"] == "not stated"
    # 0 is a real term for money and days: a free setup, no commitment.
    assert shown["One-off setup fee"] == "0.00 CNY"
    assert shown["Minimum commitment (days)"] == "0"
    # A stated figure is shown as it is.
    other = _pairs(procurement.get(reverse("offering-detail", args=[1])).content.decode())
    assert other["Local NVMe capacity (TiB)"] == "30"
    assert other["Rate per port (Gbit/s)"] == "400"
    assert other["Compute NICs (rails) per node"] == "8"


def test_the_candidate_page_never_shows_a_default_zero_as_a_claim(procurement, editor):
    _edit(editor, MIG, nvme_capacity_tib=Decimal(0), nics_per_node=0)
    url = reverse("candidate-detail", args=[1, MIG])
    # Before adopting: the catalogue change names the figure as not stated.
    changed = procurement.get(url).content.decode().split('id="cat-title"', 1)[1]
    changed = changed.split("</table>", 1)[0]
    assert re.search(r"local NVMe capacity \(TiB\)</th><td>0\.5</td><td>not stated</td>", changed)
    assert re.search(r"NICs \(rails\) per node</th><td>1</td><td>not stated</td>", changed)

    procurement_user = get_user_model().objects.get(username="procurement")
    candidate_offering_adopt(candidate=Candidate.objects.get(pk=MIG), by=procurement_user)
    page = procurement.get(url).content.decode()
    fabric = page.split('<dd class="fabric">', 1)[1].split("</dd>", 1)[0]
    assert fabric.startswith("Ethernet (TCP) 25 Gb/s (NICs per node not stated), ")
    assert "0 ×" not in fabric

    _edit(editor, MIG, fabric_rate_gbit_s=0)
    candidate_offering_adopt(candidate=Candidate.objects.get(pk=MIG), by=procurement_user)
    page = procurement.get(url).content.decode()
    fabric = page.split('<dd class="fabric">', 1)[1].split("</dd>", 1)[0]
    assert fabric.startswith("Ethernet (TCP) rate not stated, ")


def test_a_stated_fabric_is_shown_in_full(procurement):
    page = procurement.get(reverse("candidate-detail", args=[1, 1])).content.decode()
    fabric = page.split('<dd class="fabric">', 1)[1].split("</dd>", 1)[0]
    assert fabric == "InfiniBand 8 × 400 Gb/s, 1.00:1"


def test_the_history_shows_a_figure_left_at_zero_as_not_stated(client, editor):
    _edit(editor, MIG, nvme_capacity_tib=Decimal(0))
    _edit(editor, MIG, nvme_capacity_tib=Decimal("1.75"))
    assert client.login(username="manager", password=PASSWORDS["manager"])
    page = client.get(reverse("evaluation-history", args=[1]), {"kind": "offering"})
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.content.decode()))
    assert "0.5 → not stated" in text
    assert "not stated → 1.75" in text


def test_the_offering_page_in_chinese(procurement, editor):
    _edit(editor, MIG, nvme_capacity_tib=Decimal(0))
    page = procurement.get(
        reverse("offering-detail", args=[MIG]), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert '<span class="not-stated">未说明</span>' in page


def test_a_rule_input_read_from_the_offering_says_not_stated_at_its_default_zero():
    """Rubric v1's network and storage rules read these figures as inputs (the score's
    explanation lists them); money and stated figures are shown as they are."""
    assert value_label(0, "offering.nvme_capacity_tib") == "not stated"
    assert value_label("0.00", "offering.nvme_capacity_tib") == "not stated"
    assert value_label(0, "offering.nics_per_node") == "not stated"
    assert value_label(400, "offering.fabric_rate_gbit_s") == "400"
    assert value_label(0, "offering.setup_fee") == "0"
    assert value_label(0, "measured.nvme_capacity_tib") == "0"
