"""Evidence uploads keep their candidate's evaluation (``evaluation``), so that an evaluation's
newest uploads (the API's list, newest first by id) are one range of ``upload_eval_recent_idx``
instead of a sort of every upload of the evaluation's candidates: 12 ms at 10,000 uploads,
growing with them. ``upload_sha256_idx`` lets the replayed-evidence check probe other
candidates' uploads by content instead of reading every upload of every evaluation.

Existing rows are filled from their candidate. On PostgreSQL a foreign key on (candidate,
evaluation) to the candidate's own (id, evaluation) keeps the copy from ever disagreeing
with the candidate."""

import django.db.models.deletion
from django.db import migrations, models

import portal.models.evidence

from ._postgresql import UPLOAD_EVALUATION_BACKWARD, UPLOAD_EVALUATION_FORWARD, postgresql_only

BACKFILL = """
UPDATE portal_evidenceupload SET evaluation_id = (
    SELECT c.evaluation_id FROM portal_candidate c WHERE c.id = portal_evidenceupload.candidate_id
)
"""


class Migration(migrations.Migration):
    dependencies = [("portal", "0034_evaluation_weights_percent")]

    operations = [
        migrations.AddField(
            model_name="evidenceupload",
            name="evaluation",
            field=models.ForeignKey(
                null=True,
                db_index=False,
                editable=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="portal.evaluation",
            ),
        ),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name="evidenceupload",
            name="evaluation",
            field=portal.models.evidence.CandidateEvaluationField(
                db_index=False,
                editable=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="portal.evaluation",
            ),
        ),
        migrations.AddIndex(
            model_name="evidenceupload",
            index=models.Index(fields=["evaluation", "-id"], name="upload_eval_recent_idx"),
        ),
        migrations.AddIndex(
            model_name="evidenceupload",
            index=models.Index(fields=["sha256"], name="upload_sha256_idx"),
        ),
        migrations.RunPython(
            postgresql_only(UPLOAD_EVALUATION_FORWARD), postgresql_only(UPLOAD_EVALUATION_BACKWARD)
        ),
    ]
