"""One fact, one row: lscpu's socket count was stored twice, as the fact ``cpu_sockets`` (with
its line) and as the metric ``sockets`` it repeats, and the candidate page listed "CPU sockets"
twice (npu-smi's chip count the same: ``npu_chip_count`` and ``chip_count``). The fact now
takes its metric's name; an upload imported before keeps both rows (a decided evaluation's are
never re-imported) and the page reads them as one."""

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from portal.models import Measurement
from portal.services.evidence import evidence_import

pytestmark = pytest.mark.django_db

SAMPLES = Path(__file__).resolve().parents[1] / "scoring/evidence/samples"
LSCPU = SAMPLES / "cpu_info/lscpu-kvm-vm-xeon4114-nested-vtx.txt"  # Socket(s): 2, line 9
LSCPU_ONE_SOCKET = SAMPLES / "cpu_info/aws-ec2-vm-lscpu-epyc7r32-flags-cut-no-vendor-line.txt"
NPU_SMI = next((SAMPLES / "npu_smi").glob("*910b4-32g-cut-in-border.txt"))
API = "/api/v1/evidence/"


def _import(client, candidate, path: Path) -> int:
    response = client.post(
        API, {"file": SimpleUploadedFile(path.name, path.read_bytes()), "candidate": candidate.pk}
    )
    assert response.status_code == 202, response.content
    upload_id = response.json()["id"]
    evidence_import(upload_id=upload_id, task_id=f"t-{upload_id}")
    return upload_id


def _rows(client, candidate, label: str) -> list[list[str]]:
    """The candidate page's measurement rows whose metric reads ``label``: kind, metric, value,
    unit, node, readings."""
    url = reverse("candidate-detail", args=[candidate.evaluation_id, candidate.pk])
    page = client.get(url).content.decode()
    rows = [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr><td title=[^>]*>.*?</tr>", page)
    ]
    return [row for row in rows if row[1] == label]


@pytest.fixture
def engineer(client, members):
    client.force_login(members["engineer"])
    return client


def test_the_socket_count_is_stored_once_and_listed_once(engineer, candidate):
    upload_id = _import(engineer, candidate, LSCPU)
    stored = Measurement.objects.filter(upload_id=upload_id, kind="cpu_info")
    assert list(
        stored.filter(metric__contains="socket").values_list("metric", "value", "line")
    ) == [
        ("cores_per_socket", 1.0, None),
        ("sockets", 2.0, 9),
    ]
    [row] = _rows(engineer, candidate, "CPU sockets")
    assert (row[2], row[-1]) == ("2", "1")
    engineer.cookies["django_language"] = "zh-hans"
    assert len(_rows(engineer, candidate, "CPU 插槽数")) == 1


def test_an_upload_imported_before_lists_its_socket_count_once(engineer, candidate):
    """What the parsers before 1.20.0 stored: the fact under its own name with its line and
    unit, and the metric again without either."""
    upload_id = _import(engineer, candidate, LSCPU)
    fact = Measurement.objects.get(upload_id=upload_id, metric="sockets")
    Measurement.objects.filter(pk=fact.pk).update(metric="cpu_sockets")
    fact.pk, fact.unit, fact.line = None, "", None
    fact.save()
    assert Measurement.objects.filter(upload_id=upload_id, metric__endswith="sockets").count() == 2
    [row] = _rows(engineer, candidate, "CPU sockets")
    assert (row[2], row[3], row[-1]) == ("2", "count", "1")
    assert _rows(engineer, candidate, "cpu_sockets") == []  # never its code
    # A newer upload of the same node, imported since: still one row, with both readings.
    _import(engineer, candidate, LSCPU_ONE_SOCKET)
    [row] = _rows(engineer, candidate, "CPU sockets")
    assert (row[2], row[3], row[-1]) == ("1 – 2", "count", "2")


def test_the_npu_chip_count_is_stored_once_and_listed_once(engineer, candidate):
    upload_id = _import(engineer, candidate, NPU_SMI)
    stored = Measurement.objects.filter(upload_id=upload_id, metric__contains="chip_count")
    assert list(stored.values_list("metric", flat=True)) == ["chip_count"]
    assert len(_rows(engineer, candidate, "Ascend NPU chips")) == 1
