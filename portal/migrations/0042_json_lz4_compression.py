"""Compress the large JSON and pickled columns with lz4 instead of PostgreSQL's default pglz.

Every import writes an upload's per-file report (about 22 KB of JSON for an 8-GPU collector
bundle), its evidence summaries and its measurements' details, and the warming task writes
the results read model. pglz spent about 0.6 ms compressing each such report, five times
lz4's cost, for a third smaller value: on the import path that was PostgreSQL's largest
single cost after the measurement rows themselves.

Only values written from now on are compressed with lz4; stored values stay readable as they
are. A server built without lz4 keeps pglz (the statement is skipped, not failed), and SQLite
(the embedded mode) has no TOAST compression at all.
"""

from django.db import migrations

from ._postgresql import set_compression


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0041_evaluation_budget_positive"),
    ]

    operations = [
        migrations.RunPython(set_compression("lz4"), set_compression("default")),
    ]
