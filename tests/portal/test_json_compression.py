"""Migration 0042 (and the squashed 0001 on a new database): the large JSON and pickled
columns compress with lz4 on PostgreSQL, and a large per-file report is stored lz4-compressed
and read back unchanged."""

import pytest
from django.db import connection

from portal.migrations._postgresql import LZ4_COLUMNS
from portal.models import EvidenceUpload

pytestmark = pytest.mark.django_db


def test_every_listed_column_compresses_with_lz4():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, a.attname, a.attcompression FROM pg_attribute a"
            " JOIN pg_class c ON c.oid = a.attrelid"
            " WHERE (c.relname, a.attname) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
            [[t for t, _ in LZ4_COLUMNS], [c for _, c in LZ4_COLUMNS]],
        )
        found = {(table, column): method for table, column, method in cursor.fetchall()}
    assert set(found) == set(LZ4_COLUMNS)  # every listed column exists
    assert set(found.values()) == {"l"}


def test_a_large_report_is_stored_with_lz4_and_reads_back(candidate):
    report = [
        {"file": f"nccl-{i}.txt", "metrics": {"curve": [[2**k, 0.5 * k] for k in range(40)]}}
        for i in range(40)
    ]
    upload = EvidenceUpload.objects.create(
        candidate=candidate, original_name="r.tar.gz", sha256="a" * 64, size_bytes=1, report=report
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_compression(report) FROM portal_evidenceupload WHERE id = %s",
            [upload.pk],
        )
        assert cursor.fetchone()[0] == "lz4"
    upload.refresh_from_db()
    assert upload.report == report
