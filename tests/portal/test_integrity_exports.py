"""Exports neutralise formula-leading text (CSV and XLSX) and keep numbers numbers; a decided
evaluation's report and exports stay those of the decision whatever the catalogue does."""

import csv
import io
import re
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook

from portal.exports import safe_cell
from portal.models import Offering, OfferingPrice, Vendor
from portal.services.catalogue import offering_save
from portal.services.evaluations import decision_record

from .conftest import PASSWORD

pytestmark = pytest.mark.django_db
EVIL_VENDOR = '=HYPERLINK("http://evil.example/x","click")'


@pytest.mark.parametrize(
    "value, expected",
    [
        ("=1+1", "'=1+1"),
        ("+SUM(A1)", "'+SUM(A1)"),
        ("-2+3", "'-2+3"),
        ("@cmd", "'@cmd"),
        ("\tTAB", "'\tTAB"),
        ("\rCR", "'\rCR"),
        ("plain", "plain"),
        (-3, -3),
        (Decimal("-1.5"), -1.5),
        (None, ""),
    ],
)
def test_safe_cell(value, expected):
    assert safe_cell(value) == expected


@pytest.fixture
def evil(evaluation, members, candidate, offering):
    call_command("loaddata", "checklist", verbosity=0)
    Vendor.objects.filter(pk=offering.vendor_id).update(name=EVIL_VENDOR)
    Offering.objects.filter(pk=offering.pk).update(name="-2+3 nodes")
    OfferingPrice.objects.create(
        offering=offering, billing_model="monthly", price_per_gpu=Decimal("12000")
    )
    candidate.offering_version = None
    candidate.save()
    return candidate


def _export(client, evaluation, fmt):
    return client.get(reverse("evaluation-export", kwargs={"pk": evaluation.pk, "fmt": fmt}))


def test_the_csv_export_neutralises_formulas(evil, evaluation, client):
    client.login(username="viewer", password=PASSWORD)
    text = _export(client, evaluation, "csv").content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    vendor_at, offering_at = rows[0].index("Vendor"), rows[0].index("Offering")
    assert rows[1][vendor_at] == "'" + EVIL_VENDOR
    assert rows[1][offering_at] == "'-2+3 nodes"
    assert not any(cell.startswith(("=", "+", "@")) for row in rows for cell in row)


def test_the_xlsx_export_has_no_formula_from_user_text(evil, evaluation, client):
    client.login(username="viewer", password=PASSWORD)
    sheet = load_workbook(io.BytesIO(_export(client, evaluation, "xlsx").content)).active
    header = [c.value for c in sheet[1]]
    vendor = sheet.cell(2, header.index("Vendor") + 1)
    assert vendor.data_type == "s" and vendor.value == "'" + EVIL_VENDOR
    assert sheet.cell(2, header.index("Offering") + 1).value == "'-2+3 nodes"
    total = sheet.cell(2, header.index("Total") + 1)
    assert total.data_type == "n" and isinstance(total.value, float)
    assert all(c.data_type != "f" for row in sheet.iter_rows() for c in row)


def test_a_decided_report_and_export_do_not_follow_the_catalogue(
    evil, evaluation, members, offering, client
):
    decision_record(evaluation=evaluation, candidate=evil, rationale="Fine.", by=members["manager"])
    client.login(username="viewer", password=PASSWORD)
    report_url = reverse("evaluation-report", kwargs={"pk": evaluation.pk})
    report = client.get(report_url).content.decode()
    export = _export(client, evaluation, "csv").content
    offering.refresh_from_db()
    offering.gpu_memory_gib = 16
    offering_save(offering=offering, by=members["procurement"])
    price = OfferingPrice.objects.get(offering=offering)
    price.price_per_gpu = Decimal("0.0001")
    from portal.services.catalogue import offering_price_save

    offering_price_save(price=price, by=members["procurement"])

    def main(html: str) -> str:  # CSRF tokens (log-out, PDF forms) change per response
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html.split("<main", 1)[1])

    assert main(client.get(report_url).content.decode()) == main(report)
    assert _export(client, evaluation, "csv").content == export


def test_the_export_totals_the_billing_model_the_cost_score_judges(
    evaluation, members, candidate, offering, client
):
    """A 30-day pre-training job on two nodes cannot run on spot (one preemption loses the
    whole run): the cost score and the budget judge the recommended model, so the export's
    total is that model's, with the cheaper spot total beside it, not in its place (the
    printout understated the cost by 45 % in the cost-model review's 4-day case)."""
    from portal import selectors

    call_command("loaddata", "checklist", verbosity=0)
    for model, price in (("monthly", "12000"), ("spot", "1.00")):
        OfferingPrice.objects.create(
            offering=offering, billing_model=model, price_per_gpu=Decimal(price)
        )
    candidate.offering_version = None
    candidate.save()
    ranking, _candidates = selectors.evaluation_ranking(evaluation=evaluation)
    tco = ranking.results[0].tco
    assert (tco.cheapest, tco.recommended) == ("spot", "monthly")
    client.login(username="viewer", password=PASSWORD)
    text = _export(client, evaluation, "csv").content.decode("utf-8-sig")
    header, row = list(csv.reader(io.StringIO(text)))[:2]
    assert row[header.index("Recommended billing model")].startswith("Monthly")
    assert Decimal(row[header.index("Total cost")]) == tco.recommended_total
    assert row[header.index("Cheapest billing model")].startswith("Spot")
    assert Decimal(row[header.index("Cheapest total cost")]) == tco.cheapest_total
    assert tco.cheapest_total < tco.recommended_total
