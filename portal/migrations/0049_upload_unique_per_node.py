"""An evidence upload is unique per candidate, content and node, no longer per content alone.

Plain tool outputs are often byte-identical on every node of one offering (``nvidia-smi topo
-m``, ``lscpu``, ``dmidecode -t system`` without serials): the second node's upload was
answered as the first node's, and that node had no evidence of the kind. ``content_node`` is
the node a loose file was sent for (empty for an archive, whose manifest names its host, and
for a file sent for no node); (candidate, sha256, content_node) is unique.

Existing rows were unique per (candidate, sha256), so they satisfy the new constraint whatever
their ``content_node``. They take their node name: a loose file's is the name it was sent
for (the import never changes it), so sending it again for the same node is still the upload
received earlier; a bundle is found by its content alone, its ``content_node`` never read. Only
rows with a node name are written. Deletion records gain the deleted upload's node name
(empty on the existing ones: not known any more).
"""

from django.db import migrations, models


def content_node_from_node_name(apps, schema_editor):
    upload = apps.get_model("portal", "EvidenceUpload")
    upload.objects.exclude(node_name="").update(content_node=models.F("node_name"))


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0048_upload_queued_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="evidenceupload",
            name="content_node",
            field=models.CharField(blank=True, default="", editable=False, max_length=200),
        ),
        migrations.RunPython(content_node_from_node_name, migrations.RunPython.noop, elidable=True),
        migrations.AddConstraint(
            model_name="evidenceupload",
            constraint=models.UniqueConstraint(
                fields=("candidate", "sha256", "content_node"), name="one_upload_per_node_content"
            ),
        ),
        migrations.RemoveConstraint(
            model_name="evidenceupload",
            name="one_upload_per_content",
        ),
        migrations.AddField(
            model_name="evidencedeletion",
            name="node_name",
            field=models.CharField(blank=True, max_length=200, verbose_name="node name"),
        ),
    ]
