"""Stored evaluation weights in one unit, percent: the weights page and the AHP stored shares
of 1 (0.250) while a new evaluation and the demo's presets were percent (25.000). An
evaluation whose six weights are shares of 1 (each at most 1, summing to 1 within 0.01) is
multiplied by 100; scoring normalises the weights, so its ranking does not move. Nothing else
is written: no history row, no ``updated_at``, and recorded decisions keep their snapshots
(they are history, in the unit they were taken in)."""

from decimal import Decimal

import django.core.validators
from django.db import migrations, models

DIMENSIONS = ("stability", "network", "storage", "security", "cost", "support")
FIELDS = tuple(f"weight_{d}" for d in DIMENSIONS)
SUM_TOLERANCE = Decimal("0.01")
HUNDRED = Decimal(100)


def is_fraction(weights) -> bool:
    """Whether six stored weights are shares of 1 rather than percent."""
    values = [Decimal(w or 0) for w in weights]
    return all(v <= 1 for v in values) and abs(sum(values) - 1) <= SUM_TOLERANCE


def weights_to_percent(apps, schema_editor) -> int:
    """Multiply by 100 the weights of every evaluation stored as shares of 1; the number of
    evaluations converted. A queryset update: no signal, hence no history row."""
    Evaluation = apps.get_model("portal", "Evaluation")
    converted = 0
    rows = Evaluation.objects.using(schema_editor.connection.alias).values_list("pk", *FIELDS)
    for pk, *weights in rows.iterator():
        if not is_fraction(weights):
            continue
        Evaluation.objects.using(schema_editor.connection.alias).filter(pk=pk).update(
            **{f: Decimal(w or 0) * HUNDRED for f, w in zip(FIELDS, weights, strict=True)}
        )
        converted += 1
    return converted


def _weight_field(dimension: str) -> models.DecimalField:
    return models.DecimalField(
        decimal_places=3,
        default=Decimal("1"),
        help_text="Percent; normalised to sum 100 when scored.",
        max_digits=7,
        validators=[django.core.validators.MinValueValidator(Decimal("0"))],
        verbose_name=f"weight: {dimension}",
    )


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0033_checklist_claim_units_guidance"),
    ]

    operations = [
        *[
            migrations.AlterField(model_name=model_name, name=f"weight_{d}", field=_weight_field(d))
            for model_name in ("evaluation", "historicalevaluation")
            for d in DIMENSIONS
        ],
        # Back: the weights stay in percent, which the earlier code scores the same (it
        # normalises); which rows were shares of 1 is not recorded.
        migrations.RunPython(weights_to_percent, migrations.RunPython.noop, elidable=False),
    ]
