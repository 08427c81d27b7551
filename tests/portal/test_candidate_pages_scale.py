"""The candidate page and the uploads list at many uploads: reports load only when asked for,
the query count stays flat, and one report is its own fragment."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from portal.models import Candidate, EvidenceUpload, HardwareIdentifier, Measurement
from portal.views.candidates import CANDIDATE_UPLOADS_SHOWN, MEASUREMENTS_SHOWN, UPLOADS_SHOWN

from .conftest import small_offering

pytestmark = pytest.mark.django_db

BIG_REPORT = [
    {"file": f"node/file-{i}.txt", "ok": True, "kind": "nccl_tests", "pad": "x" * 500}
    for i in range(40)
]


def _fill(candidate: Candidate, uploads: int, start: int = 0, status: str = "done") -> None:
    made = EvidenceUpload.objects.bulk_create(
        EvidenceUpload(
            candidate=candidate,
            file=f"evidence/bulk-{i}",
            original_name=f"bundle-{i}.tar.gz",
            sha256=f"{i:064x}",
            size_bytes=10,
            status=status,
            report=BIG_REPORT,
        )
        for i in range(start, start + uploads)
    )
    Measurement.objects.bulk_create(
        Measurement(
            upload=upload, candidate=candidate, kind="nccl_tests", metric="busbw", value=1.0
        )
        for upload in made
        for _ in range(2)
    )


def _get(client, name, candidate, **extra):
    url = reverse(
        name, kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk, **extra}
    )
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return response, queries


PAGES = ("candidate-detail", "candidate-uploads", "candidate-evidence")


@pytest.mark.parametrize("name", PAGES)
def test_pages_never_read_upload_reports(client, members, candidate, name):
    _fill(candidate, 5)
    client.force_login(members["procurement"])
    response, queries = _get(client, name, candidate)
    for query in queries:
        columns = query["sql"].split(" FROM ")[0]
        assert '"portal_evidenceupload"."report"' not in columns, query["sql"]
    assert b"file-39.txt" not in response.content
    assert response.content.count(b"upload-report") >= 5


@pytest.mark.parametrize("name", PAGES)
def test_page_queries_are_flat_in_uploads(client, members, candidate, name):
    client.force_login(members["procurement"])
    _fill(candidate, 3)
    _few, few = _get(client, name, candidate)
    _fill(candidate, 250, start=3)
    response, many = _get(client, name, candidate)
    # Past one screen of uploads the page counts them once: at most one query more.
    assert len(many) <= len(few) + 1
    shown = CANDIDATE_UPLOADS_SHOWN if name == "candidate-detail" else UPLOADS_SHOWN
    assert response.content.count(b"data-upload-id=") == shown
    assert f"{253 - shown} older uploads are not listed here".encode() in response.content
    # The candidate page links to the uploads page, which lists more of them.
    assert (b'class="more-uploads"' in response.content) == (name == "candidate-detail")


@pytest.mark.parametrize("name", PAGES)
def test_page_query_budget_at_many_uploads(
    client, members, candidate, name, django_assert_max_num_queries
):
    _fill(candidate, 150)
    client.force_login(members["viewer"] if name != "candidate-evidence" else members["engineer"])
    url = reverse(name, kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk})
    with django_assert_max_num_queries(25):
        assert client.get(url).status_code == 200


def test_one_report_is_a_fragment_of_its_own(client, members, candidate):
    _fill(candidate, 2)
    upload = EvidenceUpload.objects.filter(candidate=candidate).first()
    client.force_login(members["viewer"])
    response, queries = _get(client, "candidate-upload-report", candidate, upload_pk=upload.pk)
    assert b'node/file-39.txt: <span title="nccl_tests">nccl-tests</span>' in response.content
    assert len(queries) <= 8


def test_a_report_of_another_candidate_is_404(client, members, candidate, vendor):
    other = Candidate.objects.create(
        evaluation=candidate.evaluation, offering=small_offering(vendor), node_count=1
    )
    _fill(other, 1)
    upload = EvidenceUpload.objects.get(candidate=other)
    client.force_login(members["viewer"])
    url = reverse(
        "candidate-upload-report",
        kwargs={
            "pk": candidate.evaluation_id,
            "candidate_pk": candidate.pk,
            "upload_pk": upload.pk,
        },
    )
    assert client.get(url).status_code == 404


def test_the_upload_list_polls_only_while_an_import_runs(client, members, candidate):
    client.force_login(members["engineer"])
    _fill(candidate, UPLOADS_SHOWN + 5, status="done")
    response, _ = _get(client, "candidate-uploads", candidate)
    assert b'hx-trigger="every 2s"' not in response.content
    # The oldest upload, past the listed ones, is still importing: the list keeps polling.
    oldest = EvidenceUpload.objects.filter(candidate=candidate).order_by("pk").first()
    EvidenceUpload.objects.filter(pk=oldest.pk).update(status="processing")
    response, _ = _get(client, "candidate-uploads", candidate)
    assert b'hx-trigger="every 2s"' in response.content


def test_the_candidate_page_groups_measurements_and_says_when_groups_are_cut(
    client, members, candidate
):
    _fill(candidate, 10)
    client.force_login(members["viewer"])
    response, _ = _get(client, "candidate-detail", candidate)
    # 20 readings of one metric on one node: one row, with how many readings it has.
    assert b"20 measurements, grouped by kind, node and metric." in response.content
    assert response.content.count(b'data-metric="busbw"') == 1
    upload = EvidenceUpload.objects.filter(candidate=candidate).order_by("pk").first()
    Measurement.objects.bulk_create(
        Measurement(upload=upload, candidate=candidate, kind="fio", metric=f"m{i}", value=i)
        for i in range(MEASUREMENTS_SHOWN)
    )
    response, _ = _get(client, "candidate-detail", candidate)
    assert f"The first {MEASUREMENTS_SHOWN} groups of measurements".encode() in response.content


def test_the_candidate_page_groups_the_measurements_of_the_uploads_it_lists(
    client, members, candidate
):
    _fill(candidate, CANDIDATE_UPLOADS_SHOWN + 5)
    oldest = EvidenceUpload.objects.filter(candidate=candidate).order_by("pk").first()
    Measurement.objects.create(
        upload=oldest, candidate=candidate, kind="fio", metric="read_iops", value=1.0
    )
    client.force_login(members["viewer"])
    response, _ = _get(client, "candidate-detail", candidate)
    readings = 2 * CANDIDATE_UPLOADS_SHOWN
    assert (
        f"{readings} measurements of the {CANDIDATE_UPLOADS_SHOWN} newest uploads".encode()
        in response.content
    )
    assert f'<td class="num">{readings}</td>'.encode() in response.content
    assert b'data-metric="read_iops"' not in response.content  # an older upload's: the API's
    Measurement.objects.filter(candidate=candidate).delete()
    response, _ = _get(client, "candidate-detail", candidate)
    assert b"No measurements in the newest uploads" in response.content


def test_a_group_shows_the_range_of_its_readings(client, members, candidate):
    _fill(candidate, 2)
    first = Measurement.objects.filter(candidate=candidate).order_by("pk").first()
    Measurement.objects.filter(pk=first.pk).update(value=232.5)
    client.force_login(members["viewer"])
    response, _ = _get(client, "candidate-detail", candidate)
    row = response.content.decode().split('data-metric="busbw"')[1].split("</tr>")[0]
    assert '<td class="num">1 – 232.500</td>' in row
    assert '<td class="num">4</td>' in row


@pytest.mark.parametrize(("language", "byte_unit"), [("en", "bytes"), ("zh-hans", "字节")])
def test_message_sizes_are_shown_in_binary_units_not_raw_bytes(
    client, members, candidate, language, byte_unit
):
    # nccl-tests sweeps powers of two: 8589934592 bytes is 8 GiB. The MTU stays in bytes, as
    # the tools print it, with its unit in the unit column.
    _fill(candidate, 2)
    upload = EvidenceUpload.objects.filter(candidate=candidate).order_by("pk").first()
    Measurement.objects.bulk_create(
        Measurement(
            upload=upload, candidate=candidate, kind=kind, metric=metric, value=value, unit="B"
        )
        for kind, metric, value in [
            ("nccl_tests", "max_size_bytes", 8 * 1024**3),
            ("nccl_tests", "max_size_bytes", 16 * 1024**2),
            ("nccl_tests", "min_size_bytes", 8),
            ("perftest", "mtu_bytes", 4096),
        ]
    )
    client.force_login(members["viewer"])
    url = reverse("candidate-detail", args=[candidate.evaluation_id, candidate.pk])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE=language).content.decode()

    def row(metric):
        return page.split(f'data-metric="{metric}"')[1].split("</tr>")[0]

    assert '<td class="num">16 MiB – 8 GiB</td><td></td>' in row("max_size_bytes")
    assert '<td class="num">8 B</td><td></td>' in row("min_size_bytes")
    assert f'<td class="num">4096</td><td>{byte_unit}</td>' in row("mtu_bytes")
    # An upload sent without a node name: the node column says so instead of staying blank.
    assert "<td>—</td>" in row("mtu_bytes")
    assert "8589934592" not in page


def _fill_nodes(candidate: Candidate, uploads: int, start: int = 0) -> None:
    """Uploads as a cluster sends them again and again: four nodes, each upload with the
    node's measurements and hardware identifiers (one identifier row per upload, as the
    import writes them)."""
    made = EvidenceUpload.objects.bulk_create(
        EvidenceUpload(
            candidate=candidate,
            file=f"evidence/node-{i}",
            original_name=f"node-{i % 4}-run-{i}.tar.gz",
            sha256=f"{candidate.pk:08x}{i:056x}",
            size_bytes=10,
            status="done",
            node_name=f"node-{i % 4}",
            report=BIG_REPORT,
        )
        for i in range(start, start + uploads)
    )
    Measurement.objects.bulk_create(
        Measurement(
            upload=upload,
            candidate=candidate,
            kind="nccl_tests",
            metric=metric,
            value=value + n,
            unit="GB/s",
            node_name=upload.node_name,
            source_file="all_reduce.txt",
            line=10,
        )
        for n, upload in enumerate(made)
        for metric, value in (("busbw", 200.0), ("algbw", 100.0))
    )
    HardwareIdentifier.objects.bulk_create(
        HardwareIdentifier(upload=upload, candidate=candidate, kind=kind, value=value)
        for upload in made
        for kind, value in (
            ("gpu_uuid", f"GPU-{upload.node_name}"),
            ("mac", f"02:00:00:00:00:0{upload.node_name[-1]}"),
        )
    )


def _rows_read(queries) -> list[tuple[str, int]]:
    """Each SELECT the request ran (its table) and how many rows it returns, run again."""
    rows = []
    with connection.cursor() as cursor:
        for query in queries:
            sql = query["sql"]
            if not sql.startswith("SELECT"):
                continue
            cursor.execute(sql)
            rows.append((sql.split(" FROM ")[1].split()[0], len(cursor.fetchall())))
    return rows


@pytest.mark.parametrize(
    ("name", "few", "many"),
    [
        ("candidate-detail", CANDIDATE_UPLOADS_SHOWN + 5, CANDIDATE_UPLOADS_SHOWN + 40),
        ("candidate-uploads", UPLOADS_SHOWN + 5, UPLOADS_SHOWN + 40),
    ],
)
def test_rows_each_query_reads_are_flat_in_uploads(
    client, members, candidate, vendor, name, few, many
):
    """Past one screen of uploads, more uploads of the same nodes add no row to any query:
    not to the measurements (grouped), the fingerprint or the reused hardware (distinct
    identifiers), nor the uploads listed."""
    other = Candidate.objects.create(
        evaluation=candidate.evaluation, offering=small_offering(vendor), node_count=1
    )
    _fill_nodes(other, 8, start=10_000)  # the same GPUs and MACs under another candidate
    client.force_login(members["procurement"])
    _fill_nodes(candidate, few)
    _get(client, name, candidate)  # the first request also caches the evaluation's ranking
    response, queries = _get(client, name, candidate)
    before = _rows_read(queries)
    if name == "candidate-detail":
        assert response.content.count(b"GPU-node-3") >= 1
        assert response.content.count(b'data-metric="busbw"') == 4
    _fill_nodes(candidate, many - few, start=few)
    _get(client, name, candidate)
    _response, queries = _get(client, name, candidate)
    assert _rows_read(queries) == before


def test_the_uploads_list_is_a_page_and_the_list_alone_for_htmx(client, members, candidate):
    _fill(candidate, 2)
    client.force_login(members["viewer"])
    url = reverse(
        "candidate-uploads", kwargs={"pk": candidate.evaluation_id, "candidate_pk": candidate.pk}
    )
    page = client.get(url).content.decode()
    assert "<html" in page and 'class="tabs"' in page and "vendor/htmx" in page
    assert page.count("data-upload-id=") == 2
    alone = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert alone.lstrip().startswith('<div id="upload-list"')
    assert alone.count("data-upload-id=") == 2
