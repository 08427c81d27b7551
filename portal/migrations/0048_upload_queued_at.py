"""When an evidence upload last entered the import queue.

The column is added empty (no default evaluated for every existing row, which would mark
finished uploads as queued at the migration's moment and rewrite the table). The uploads still
waiting or importing take their upload time, the only time known for them; finished ones stay
empty until a re-import queues them. New rows then default to their creation time.
"""

import django.utils.timezone
from django.db import migrations, models

WAITING = ("queued", "processing")


def fill_waiting(apps, schema_editor):
    upload = apps.get_model("portal", "EvidenceUpload")
    upload.objects.filter(status__in=WAITING, queued_at__isnull=True).update(
        queued_at=models.F("created_at")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0047_access_change"),
    ]

    operations = [
        migrations.AddField(
            model_name="evidenceupload",
            name="queued_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="queued at"),
        ),
        migrations.RunPython(fill_waiting, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name="evidenceupload",
            name="queued_at",
            field=models.DateTimeField(
                blank=True, default=django.utils.timezone.now, null=True, verbose_name="queued at"
            ),
        ),
        migrations.RemoveIndex(
            model_name="evidenceupload",
            name="upload_status_idx",
        ),
        migrations.AddIndex(
            model_name="evidenceupload",
            index=models.Index(fields=["status", "queued_at"], name="upload_status_queued_idx"),
        ),
    ]
