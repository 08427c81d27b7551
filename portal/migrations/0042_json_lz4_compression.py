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

from django.db import NotSupportedError, migrations

# (table, column): what an import, a rescoring or the warming task writes, plus the decision
# snapshots and pinned offering versions, which are the other large values.
COLUMNS = (
    ("portal_evidenceupload", "report"),
    ("portal_evidenceupload", "fingerprint"),
    ("portal_evidencesummary", "summary"),
    ("portal_measurement", "details"),
    ("portal_candidate", "verification"),
    ("portal_candidate", "knockouts"),
    ("portal_score", "contributions"),
    ("portal_resultsentry", "payload"),
    ("portal_decisionrecord", "snapshot"),
    ("portal_offeringversion", "facts"),
)


def _set_compression(method: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for table, column in COLUMNS:
            name = schema_editor.quote_name
            # In a savepoint: a server without lz4 refuses the statement, which must not
            # abort the migration's transaction.
            with schema_editor.connection.cursor() as cursor:
                cursor.execute("SAVEPOINT set_compression")
                try:
                    cursor.execute(
                        f"ALTER TABLE {name(table)} ALTER COLUMN {name(column)} "
                        f"SET COMPRESSION {method}"
                    )
                except NotSupportedError:  # compression method lz4 not supported
                    cursor.execute("ROLLBACK TO SAVEPOINT set_compression")
                else:
                    cursor.execute("RELEASE SAVEPOINT set_compression")

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0041_evaluation_budget_positive"),
    ]

    operations = [
        migrations.RunPython(_set_compression("lz4"), _set_compression("default")),
    ]
