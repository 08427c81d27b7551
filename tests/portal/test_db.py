"""copy_insert writes on PostgreSQL exactly what bulk_create writes, awkward values included;
insert_with_history writes the row and its creation's history row as save() does."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from portal.db import copy_insert, history_record_changes, insert_with_history
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
        f'COPY "portal_measurement" ("upload_id", "candidate_id", "evaluation_id", "kind", '
        f'"metric", "value", "unit", "node_name", "source_file", "line", "details", '
        f'"measured_at") FROM STDIN -- {len(AWKWARD)} rows'
    ]
    # The evaluation each row was filed under, from its candidate (queried before the COPY:
    # a query on the connection during the COPY waited for ever).
    assert set(
        Measurement.objects.filter(upload=copied).values_list("evaluation_id", flat=True)
    ) == {candidate.evaluation_id}


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


# Columns that differ between two inserts of the same values: keys and the times of writing.
_WRITTEN_ON = {"id", "created_at", "queued_at", "history_id", "history_date"}


def _row_and_history(upload: EvidenceUpload) -> tuple[dict, list[dict]]:
    row = EvidenceUpload.objects.filter(pk=upload.pk).values().get()
    history = list(EvidenceUpload.history.filter(id=upload.pk).values())
    strip = lambda values: {k: v for k, v in values.items() if k not in _WRITTEN_ON}  # noqa: E731
    return strip(row), [strip(h) for h in history]


def _new_upload(candidate, sha: str, **fields) -> EvidenceUpload:
    upload = EvidenceUpload(
        candidate=candidate,
        original_name="名前 \\ 'q'.tar.gz",
        sha256=sha * 64,
        size_bytes=123,
        node_name="gpu-node-07",
        error_params={"nested": [1, None, "x"]},
        **fields,
    )
    upload.file.name = f"evidence/{candidate.pk}/{sha * 64}"
    return upload


@pytest.mark.parametrize("as_user", [False, True])
def test_insert_with_history_writes_what_save_writes(candidate, upload_token, members, as_user):
    token, _raw = upload_token
    user = members["procurement"] if as_user else None
    saved = _new_upload(candidate, "d", token=token, uploaded_by=user)
    inserted = _new_upload(candidate, "e", token=token, uploaded_by=user)
    if as_user:
        saved._history_user = inserted._history_user = user
    saved.save()
    with CaptureQueriesContext(connection) as captured:
        insert_with_history(inserted)
    assert len(captured.captured_queries) == 1
    assert inserted.pk is not None and not inserted._state.adding
    assert inserted.created_at is not None
    row, history = _row_and_history(inserted)
    saved_row, saved_history = _row_and_history(saved)
    assert row == {**saved_row, "sha256": "e" * 64, "file": inserted.file.name}
    assert history == [{**h, "sha256": "e" * 64, "file": inserted.file.name} for h in saved_history]
    assert len(history) == 1 and history[0]["history_type"] == "+"
    assert history[0]["history_user_id"] == (user.pk if as_user else None)
    stored = EvidenceUpload.history.get(id=inserted.pk)
    assert (
        stored.created_at
        == inserted.created_at
        == EvidenceUpload.objects.get(pk=inserted.pk).created_at
    )


def test_insert_with_history_records_the_requests_user(candidate, members):
    from django.test import RequestFactory
    from simple_history.models import HistoricalRecords

    request = RequestFactory().post("/")
    request.user = members["procurement"]
    HistoricalRecords.context.request = request
    try:
        upload = _new_upload(candidate, "f")
        insert_with_history(upload)
    finally:
        del HistoricalRecords.context.request
    assert EvidenceUpload.history.get(id=upload.pk).history_user_id == members["procurement"].pk


def test_insert_with_history_refused_by_a_constraint_writes_neither(candidate):
    first = _new_upload(candidate, "g")
    insert_with_history(first)
    again = _new_upload(candidate, "g")  # (candidate, sha256) is unique
    with pytest.raises(IntegrityError), transaction.atomic():
        insert_with_history(again)
    assert EvidenceUpload.objects.filter(sha256="g" * 64).count() == 1
    assert EvidenceUpload.history.filter(sha256="g" * 64).count() == 1


class _OtherDatabase:
    vendor = "sqlite"  # any but PostgreSQL: simple_history's bulk_history_create


def test_history_record_changes_writes_in_one_statement_what_simple_history_writes(
    candidate, members, monkeypatch
):
    from datetime import UTC, datetime

    import portal.db

    at = datetime(2026, 12, 4, 16, 0, 0, 123456, tzinfo=UTC)
    fields = ("status", "error", "error_code", "error_params", "origin", "fingerprint")
    mine, theirs = [_upload(candidate, s) for s in "pq"], [_upload(candidate, s) for s in "rs"]
    outcome = {
        "status": "failed",
        "error": "Nothing parsed.",
        "error_code": "upload.nothing_parsed",
        "error_params": {"failures": [{"file": "x.txt"}]},
        "origin": "by_hand",
        "fingerprint": {"mac": ["aa:bb"]},
    }
    EvidenceUpload.objects.filter(pk__in=[u.pk for u in mine + theirs]).update(**outcome)
    by = members["procurement"].pk
    with CaptureQueriesContext(connection) as captured:
        history_record_changes(EvidenceUpload, [u.pk for u in mine], at=at, user_id=by)
    assert len(captured) == 1
    with monkeypatch.context() as patch:
        patch.setattr(portal.db, "connection", _OtherDatabase())
        history_record_changes(EvidenceUpload, [u.pk for u in theirs], at=at, user_id=by)

    def written(uploads):
        rows = EvidenceUpload.history.filter(id__in=[u.pk for u in uploads], history_type="~")
        return sorted(
            (r.history_date, r.history_user_id, *(getattr(r, f) for f in fields)) for r in rows
        )

    assert written(mine) == written(theirs) == [(at, by, *outcome.values())] * 2
    with CaptureQueriesContext(connection) as captured:
        history_record_changes(EvidenceUpload, [], at=at)
    assert len(captured) == 0
