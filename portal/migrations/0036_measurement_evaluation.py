"""Measurements keep their upload's evaluation (``evaluation``) with an index on (evaluation,
id), so the API's keyset pages of an evaluation's measurements are a range of that index.
Ordered by id alone, the pages of an evaluation created after a big one walked every row of
the other (1.3 s for a first page at 10^6 rows), and the last page of any evaluation walked
to the end of the table.

Existing rows are filled from their upload (on a large database this rewrites the table once:
plan the migration's time). On PostgreSQL a foreign key on (upload, evaluation) to the
upload's own (id, evaluation) keeps the copy equal to the upload's, which 0035 keeps equal to
the candidate's; it also stands for a plain key to the evaluation, so an import checks one
key more per row, not two."""

import django.db.models.deletion
from django.db import migrations, models

import portal.models.evidence

from ._postgresql import (
    MEASUREMENT_EVALUATION_BACKWARD,
    MEASUREMENT_EVALUATION_FORWARD,
    postgresql_only,
)

BACKFILL = """
UPDATE portal_measurement SET evaluation_id = (
    SELECT u.evaluation_id FROM portal_evidenceupload u WHERE u.id = portal_measurement.upload_id
)
"""


class Migration(migrations.Migration):
    dependencies = [("portal", "0035_evidenceupload_evaluation")]

    operations = [
        migrations.AddField(
            model_name="measurement",
            name="evaluation",
            field=models.ForeignKey(
                null=True,
                db_constraint=False,
                db_index=False,
                editable=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="portal.evaluation",
            ),
        ),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="measurement",
            name="evaluation",
            field=portal.models.evidence.CandidateEvaluationField(
                db_constraint=False,
                db_index=False,
                editable=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="portal.evaluation",
            ),
        ),
        migrations.AddIndex(
            model_name="measurement",
            index=models.Index(fields=["evaluation", "id"], name="measurement_eval_idx"),
        ),
        migrations.RunPython(
            postgresql_only(MEASUREMENT_EVALUATION_FORWARD),
            postgresql_only(MEASUREMENT_EVALUATION_BACKWARD),
        ),
    ]
