"""The NVLink domain of an offering in GPUs (GB200 NVL72: 72, GH200 NVL32: 32): blank or 0 is
the node. Existing offerings keep blank (their NVLink stays inside the node, as before); the
constraint holds the domain to whole nodes."""

import django.core.validators
import django.db.models.functions.math
import django.db.models.lookups
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0036_measurement_evaluation"),
    ]

    operations = [
        migrations.AddField(
            model_name="historicaloffering",
            name="nvlink_domain_gpus",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="GPUs joined in one NVLink domain across nodes: 72 for a GB200 NVL72 rack (18 trays of 4), 32 for GH200 NVL32. A multiple of the GPUs per node, at least one node; leave blank when NVLink stays inside the node.",
                null=True,
                validators=[django.core.validators.MaxValueValidator(100000)],
                verbose_name="NVLink domain (GPUs)",
            ),
        ),
        migrations.AddField(
            model_name="offering",
            name="nvlink_domain_gpus",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="GPUs joined in one NVLink domain across nodes: 72 for a GB200 NVL72 rack (18 trays of 4), 32 for GH200 NVL32. A multiple of the GPUs per node, at least one node; leave blank when NVLink stays inside the node.",
                null=True,
                validators=[django.core.validators.MaxValueValidator(100000)],
                verbose_name="NVLink domain (GPUs)",
            ),
        ),
        migrations.AddConstraint(
            model_name="offering",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("nvlink_domain_gpus__isnull", True),
                    ("nvlink_domain_gpus", 0),
                    models.Q(
                        ("nvlink_domain_gpus__gte", models.F("gpus_per_node")),
                        django.db.models.lookups.Exact(
                            django.db.models.functions.math.Mod(
                                "nvlink_domain_gpus", "gpus_per_node"
                            ),
                            0,
                        ),
                    ),
                    _connector="OR",
                ),
                name="offering_nvlink_domain_whole_nodes",
            ),
        ),
    ]
