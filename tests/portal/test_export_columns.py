"""The comparison export names each column once: the recommended billing model is one column,
with why it is recommended beside it (CSV and the workbook's ranking sheet share the rows); the
vendor's delivery form has what the evidence made of it beside it, as the candidate page says."""

import csv
import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from portal.models import Candidate, UploadStatus
from portal.services.evidence import evidence_import, evidence_submit

from .conftest import make_bundle, sample_bytes

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_csv_header_has_no_column_twice(client, demo, language):
    assert client.login(username="manager", password="decide-gpus-2026")
    url = reverse("evaluation-export", args=[1, "csv"])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    header, *rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert sorted({h for h in header if header.count(h) > 1}) == []
    assert all(len(row) == len(header) for row in rows)
    if language == "en":
        first = rows[0]
        assert first[header.index("Recommended billing model")] == "Monthly (per GPU-month)"
        assert first[header.index("Why recommended")] == "cheapest total"


SCORING_SAMPLES = Path(__file__).resolve().parents[1] / "scoring" / "evidence" / "samples"
# A GCP A100 VM: the hypervisor flag in lscpu, Google Compute Engine in DMI, a virtio bridge.
VM_NODE = {
    "lscpu.txt": (SCORING_SAMPLES / "cpu_info" / "gcp-a100-vm-lscpu-head25-hypervisor-kvm.txt"),
    "dmidecode.txt": (SCORING_SAMPLES / "dmi" / "gcp-a100-vm-dmidecode-t-system-head20.txt"),
}


def _csv(client, evaluation_id, language="en") -> tuple[list[str], list[list[str]]]:
    url = reverse("evaluation-export", args=[evaluation_id, "csv"])
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    header, *rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    return header, rows


def _candidate_page_says(client, candidate) -> str:
    url = reverse("candidate-detail", args=[candidate.evaluation_id, candidate.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    return page.split('<a href="#bm-title">', 1)[1].split("</a>", 1)[0]


def test_the_csv_gives_the_delivery_form_the_evidence_shows_beside_the_claim(
    client, members, candidate
):
    client.force_login(members["manager"])
    header, rows = _csv(client, candidate.evaluation_id)
    claimed, shown = header.index("Delivery form"), header.index("Delivery form by the evidence")
    assert shown == claimed + 1
    assert (rows[0][claimed], rows[0][shown]) == ("Bare metal", "")  # no evidence yet
    assert _candidate_page_says(client, candidate) == "claimed; no evidence on it yet"

    files = {name: path.read_bytes() for name, path in VM_NODE.items()}
    files["lspci.txt"] = sample_bytes("lspci-kvm-vm.txt")
    upload, _created = evidence_submit(
        candidate=candidate,
        uploaded_file=SimpleUploadedFile("vm.tar.gz", make_bundle(files, hostname="gpu-vm-1")),
    )
    evidence_import(upload_id=upload.pk, task_id="t1")
    upload.refresh_from_db()
    assert upload.status == UploadStatus.DONE, upload.error

    # The bare-metal claim is refuted: the column gives the form it is scored as, the very
    # form the candidate page names, and both say it is assumed (only a hypervisor shows).
    header, rows = _csv(client, candidate.evaluation_id)
    assert rows[0][claimed] == "Bare metal"
    says = _candidate_page_says(client, candidate)
    assert says == (
        "claimed; the evidence contradicts it, scored as Container on shared GPUs, the least "
        "favourable form consistent with it (it shows a hypervisor, not which form runs under "
        "it)"
    )
    assert rows[0][shown] == (
        "Container on shared GPUs (assumed: the evidence shows a hypervisor, not which form "
        "runs under it)"
    )
    # In Chinese too, header and value.
    header, rows = _csv(client, candidate.evaluation_id, "zh-hans")
    assert rows[0][header.index("证据显示的交付形态")] == (
        "共享 GPU 上的容器（假定：证据显示了虚拟化层，但未显示其下运行的是哪种形态）"
    )


def test_a_form_the_evidence_confirms_and_one_it_does_not_settle(client, demo):
    """Demo: candidate 5's passthrough VM is confirmed by its nodes; candidate 1's bare metal
    has evidence that does not settle it (the candidate page: "not conclusive")."""
    assert client.login(username="manager", password="decide-gpus-2026")
    header, rows = _csv(client, 1)
    offering, shown = header.index("Offering"), header.index("Delivery form by the evidence")
    by_offering = {row[offering]: row[shown] for row in rows}
    assert by_offering["A800 PCIe passthrough VM"] == "PCIe passthrough VM"
    assert by_offering["HGX H100 bare metal, NDR fat-tree"] == "not conclusive"
    assert by_offering["vGPU cloud instance, L40S-48Q"] == ""
    first = Candidate.objects.get(pk=1)
    assert _candidate_page_says(client, first) == "claimed; the evidence is not conclusive"
