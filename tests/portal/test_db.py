"""copy_insert writes on PostgreSQL exactly what bulk_create writes, awkward values included."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from portal.db import copy_insert
from portal.models import EvidenceUpload, Measurement

pytestmark = pytest.mark.django_db

FIELDS = ("kind", "metric", "value", "unit", "node_name", "source_file", "line", "details")
AWKWARD = [
    dict(kind="nccl_tests", metric="busbw_gbyte_s", value=232.25, unit="GB/s", line=41,
         details={"size_bytes": 8589934592, "op": "sum", "in_place": True}),
    dict(kind="ibstat", metric="port_rate_gbit_s", value=400.0, unit="Gbit/s", line=None,
         details={}),
    dict(kind="lspci", metric="nvidia_gpu_count", value=0.0, unit="", line=1,
         node_name="节点-01\tTAB", source_file="C:\\logs\\lspci.txt",
         details={"note": "back\\slash, \"quote\", new\nline, 中文", "list": [1, None, 2.5]}),
    dict(kind="fio", metric="read_bw_mbyte_s", value=-1e-300, unit="MB/s", line=2**31 - 1,
         source_file="\\N", details={"nested": {"deep": [{"x": "\\."}]}}),
]  # fmt: skip


def _upload(candidate, sha: str) -> EvidenceUpload:
    return EvidenceUpload.objects.create(
        candidate=candidate, original_name=f"{sha}.txt", sha256=sha * 64, size_bytes=1
    )


def _rows(upload: EvidenceUpload) -> list[tuple]:
    return [
        Measurement(upload=upload, candidate_id=upload.candidate_id, **values) for values in AWKWARD
    ]


def _stored(upload: EvidenceUpload) -> list[tuple]:
    return list(Measurement.objects.filter(upload=upload).order_by("pk").values_list(*FIELDS))


def test_copy_insert_stores_what_bulk_create_stores(candidate):
    copied, created = _upload(candidate, "a"), _upload(candidate, "b")
    with CaptureQueriesContext(connection) as captured:
        assert copy_insert(Measurement, _rows(copied)) == len(AWKWARD)
    Measurement.objects.bulk_create(_rows(created))
    assert _stored(copied) == _stored(created)
    # What was written, read back field by field (not only "the same as the ORM").
    by_metric = {row[1]: row for row in _stored(copied)}
    assert by_metric["nvidia_gpu_count"][4] == "节点-01\tTAB"
    assert by_metric["nvidia_gpu_count"][7]["note"] == 'back\\slash, "quote", new\nline, 中文'
    assert by_metric["read_bw_mbyte_s"][5] == "\\N"
    assert by_metric["port_rate_gbit_s"][6] is None
    # The COPY is logged like a query, so query counts stay honest.
    assert [q["sql"] for q in captured.captured_queries if q["sql"].startswith("COPY")] == [
        f'COPY "portal_measurement" ("upload_id", "candidate_id", "kind", "metric", "value", '
        f'"unit", "node_name", "source_file", "line", "details", "measured_at") FROM STDIN '
        f"-- {len(AWKWARD)} rows"
    ]


def test_copy_insert_of_nothing_runs_no_statement(candidate):
    with CaptureQueriesContext(connection) as captured:
        assert copy_insert(Measurement, []) == 0
    assert captured.captured_queries == []


def test_a_row_breaking_a_constraint_inserts_none_of_the_rows_with_django_s_error(candidate):
    upload = _upload(candidate, "c")
    rows = _rows(upload)
    rows[-1].line = -1  # PositiveIntegerField: the CHECK constraint refuses it
    with pytest.raises(IntegrityError), transaction.atomic():
        copy_insert(Measurement, rows)
    assert not Measurement.objects.filter(upload=upload).exists()
