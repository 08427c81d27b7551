"""What the migrations share (the loader skips modules whose name starts with "_"): the
PostgreSQL-only statements of 0035, 0036 and 0042, which the squashed 0001 repeats."""

from django.db import NotSupportedError


def postgresql_only(statements):
    """A RunPython function that executes ``statements`` on PostgreSQL and does nothing on
    SQLite (the embedded mode), where the same guarantee is kept by the model field alone."""

    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement)

    return run


# 0035: an upload's evaluation is its candidate's (a composite foreign key to a composite key).
UPLOAD_EVALUATION_FORWARD = (
    "ALTER TABLE portal_candidate ADD CONSTRAINT candidate_id_evaluation_uniq"
    " UNIQUE (id, evaluation_id)",
    "ALTER TABLE portal_evidenceupload ADD CONSTRAINT upload_candidate_evaluation_fk"
    " FOREIGN KEY (candidate_id, evaluation_id)"
    " REFERENCES portal_candidate (id, evaluation_id) DEFERRABLE INITIALLY DEFERRED",
)
UPLOAD_EVALUATION_BACKWARD = (
    "ALTER TABLE portal_evidenceupload DROP CONSTRAINT upload_candidate_evaluation_fk",
    "ALTER TABLE portal_candidate DROP CONSTRAINT candidate_id_evaluation_uniq",
)

# 0036: a measurement's evaluation is its upload's.
MEASUREMENT_EVALUATION_FORWARD = (
    "ALTER TABLE portal_evidenceupload ADD CONSTRAINT upload_id_evaluation_uniq"
    " UNIQUE (id, evaluation_id)",
    "ALTER TABLE portal_measurement ADD CONSTRAINT measurement_upload_evaluation_fk"
    " FOREIGN KEY (upload_id, evaluation_id)"
    " REFERENCES portal_evidenceupload (id, evaluation_id)"
    " ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED",
)
MEASUREMENT_EVALUATION_BACKWARD = (
    "ALTER TABLE portal_measurement DROP CONSTRAINT measurement_upload_evaluation_fk",
    "ALTER TABLE portal_evidenceupload DROP CONSTRAINT upload_id_evaluation_uniq",
)

# 0042: (table, column) compressed with lz4: what an import, a rescoring or the warming task
# writes, plus the decision snapshots and pinned offering versions, the other large values.
LZ4_COLUMNS = (
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


def set_compression(method: str):
    """A RunPython function setting LZ4_COLUMNS' compression to ``method`` on PostgreSQL."""

    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for table, column in LZ4_COLUMNS:
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
