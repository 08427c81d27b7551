"""The Decision page says, before the decision is recorded, which candidates' offerings changed
in the catalogue since they were added: they are still scored on the versions they pinned, so a
manager deciding from the Decision page alone chose on a price the catalogue no longer stated
(the dashboard said so, the Decision page did not)."""

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse

from portal.models import OfferingPrice
from portal.services.catalogue import offering_save

pytestmark = pytest.mark.django_db


@pytest.fixture
def priced(candidate, offering):
    call_command("loaddata", "checklist", verbosity=0)
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    candidate.offering_version = None
    candidate.save()  # pinned with its price
    return candidate


def test_the_decision_page_names_the_catalogue_changes_before_deciding(
    priced, offering, members, client
):
    url = reverse("evaluation-decision", args=[priced.evaluation_id])
    client.force_login(members["manager"])
    assert "Catalogue changed since" not in client.get(url).content.decode()

    offering.gpu_memory_gib = 40
    offering_save(offering=offering, by=members["procurement"])
    html = client.get(url).content.decode()
    assert "Catalogue changed since" in html
    assert "80 → 40" in html
    assert "still scored on the versions they pinned" in html
    assert html.index("Catalogue changed since") < html.index('name="rationale"')

    client.cookies["django_language"] = "zh-hans"
    html = client.get(url).content.decode()
    assert f"{priced}</a>：" in html
