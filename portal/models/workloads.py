"""Demand profile: the workloads of an evaluation, and the buyer-side choices a portfolio reads."""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from .choices import Dimension, MlpsLevel, WorkloadProfile

# Requirement keys a workload may override (the rest come from its evaluation).
WORKLOAD_REQUIREMENT_KEYS = (
    "required_gpu_memory_gib",
    "required_mlps_level",
    "require_xinchuang",
    "min_busbw_fraction",
)


# The largest weight of a dimension (weights are normalised: 100 is as far as they need go).
MAX_WORKLOAD_WEIGHT = 100
# The most GPU memory a requirement may ask for, as the evaluation's own field allows.
MAX_REQUIRED_GPU_MEMORY_GIB = 10_000


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fraction(value: Any) -> str | None:
    """A bus-bandwidth fraction as the evaluation stores it (two decimals, 0 to 1), written as
    text (scoring takes money-like figures as Decimal or text, never a float); None if it is
    not one."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    if not number.is_finite() or not Decimal(0) <= number <= Decimal(1):
        return None
    if number != number.quantize(Decimal("0.01")):
        return None
    return str(number.quantize(Decimal("0.01")))


def clean_requirements(requirements: dict) -> tuple[dict, list[str]]:
    """The requirement overrides with each value held to the rule of the evaluation's field it
    overrides, and the problems found. Stored as sent, a value scoring cannot read ("x", -5,
    a float fraction) made the portfolio's page and API fail for every member."""
    cleaned: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in requirements.items():
        if key == "required_gpu_memory_gib":
            if _whole(value) and 0 <= value <= MAX_REQUIRED_GPU_MEMORY_GIB:
                cleaned[key] = value
            else:
                problems.append(
                    _("GPU memory required must be a whole number of GiB from 0 to 10,000.")
                )
        elif key == "required_mlps_level":
            if _whole(value) and value in MlpsLevel.values:
                cleaned[key] = value
            else:
                problems.append(
                    _("The MLPS level required must be one of %(levels)s.")
                    % {"levels": ", ".join(str(level) for level in MlpsLevel.values)}
                )
        elif key == "require_xinchuang":
            if isinstance(value, bool):
                cleaned[key] = value
            else:
                problems.append(_("Xinchuang required must be true or false."))
        elif key == "min_busbw_fraction":
            fraction = None if value is None else _fraction(value)
            if value is None or fraction is not None:
                cleaned[key] = fraction
            else:
                problems.append(
                    _(
                        "The minimum bus-bandwidth fraction must be a number from 0 to 1 with "
                        "at most two decimals (0.80), or null for none."
                    )
                )
    return cleaned, problems


class OpsCapacity(models.TextChoices):
    NONE = "none", _("None (no operations staff)")
    SMALL_TEAM = "small_team", _("Small team")
    PLATFORM_TEAM = "platform_team", _("Platform team")


class DataResidency(models.TextChoices):
    NONE = "none", _("No residency requirement")
    MAINLAND_CHINA = "mainland_china", _("Data stays in mainland China")


class Workload(models.Model):
    """One demand of an evaluation: GPUs over time, its own profile, weights and requirements.

    ``gpus`` run for ``duration_days``; between ``peak_hours_per_day`` hours on
    ``peak_days_per_week`` days the demand rises to ``peak_gpus`` (0: no peak).
    """

    evaluation = models.ForeignKey(
        "portal.Evaluation", on_delete=models.CASCADE, related_name="workloads"
    )
    name = models.CharField(_("name"), max_length=100)
    profile = models.CharField(_("workload profile"), max_length=20, choices=WorkloadProfile)
    # The evaluation's own bounds (required_total_gpus, duration_days): beyond them a TCO no
    # longer fits the figures the API answers with (the portfolio's API failed on it).
    gpus = models.PositiveIntegerField(
        _("GPUs"), validators=[MinValueValidator(1), MaxValueValidator(1_000_000)]
    )
    peak_gpus = models.PositiveIntegerField(
        _("peak GPUs"), default=0, validators=[MaxValueValidator(1_000_000)]
    )
    peak_hours_per_day = models.PositiveSmallIntegerField(
        _("peak hours per day"), default=0, validators=[MaxValueValidator(24)]
    )
    peak_days_per_week = models.PositiveSmallIntegerField(
        _("peak days per week"), default=0, validators=[MaxValueValidator(7)]
    )
    duration_days = models.PositiveIntegerField(
        _("duration (days)"), validators=[MinValueValidator(1), MaxValueValidator(3_653)]
    )
    weights = models.JSONField(
        _("weights"),
        default=dict,
        blank=True,
        help_text=_("Empty: the profile's preset weights."),
    )
    requirements = models.JSONField(
        _("requirements"),
        default=dict,
        blank=True,
        help_text=_("Overrides of the evaluation's requirements for this workload."),
    )
    min_score = models.FloatField(
        _("minimum score"),
        default=0,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
    )
    tolerates_preemption = models.BooleanField(_("tolerates pre-emption"), default=False)
    latency_target_ms = models.DecimalField(
        _("latency target RTT (ms)"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.01"))],
        help_text=_("Set for latency-sensitive workloads such as inference."),
    )
    latency_endpoints = models.CharField(
        _("latency endpoints"),
        max_length=300,
        blank=True,
        help_text=_("Comma-separated RTT targets that must meet the latency target."),
    )
    accepts_far_region = models.BooleanField(_("accepts a farther region"), default=False)
    data_exchange_gib_month = models.DecimalField(
        _("data exchanged with the other workloads (GiB/month)"),
        max_digits=12,
        decimal_places=2,
        default=Decimal(0),
        validators=[MinValueValidator(Decimal(0))],
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Who changed the demand a portfolio decision rests on, and from what (the audit trail).
    history = HistoricalRecords()

    class Meta:
        ordering = ["evaluation", "pk"]
        verbose_name = _("workload")
        verbose_name_plural = _("workloads")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "name"], name="workload_unique_name_per_evaluation"
            ),
            models.CheckConstraint(condition=Q(gpus__gte=1), name="workload_gpus_ge_1"),
            models.CheckConstraint(
                condition=Q(peak_gpus=0) | Q(peak_gpus__gte=F("gpus")),
                name="workload_peak_ge_gpus",
            ),
            models.CheckConstraint(
                condition=Q(peak_hours_per_day__lte=24) & Q(peak_days_per_week__lte=7),
                name="workload_peak_window_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def latency_sensitive(self) -> bool:
        return self.latency_target_ms is not None

    def clean(self) -> None:
        errors = {}
        if self.peak_gpus and self.gpus and self.peak_gpus < self.gpus:
            errors["peak_gpus"] = _("Peak GPUs must be 0 (no peak) or at least the base GPUs.")
        # JSON columns: anything a client sends (a list, a string, a list of objects) is
        # refused with the reason, never hashed as if it were a mapping.
        requirements = self.requirements or {}
        if not isinstance(requirements, dict):
            errors["requirements"] = _("Requirements map requirement names to values.")
        else:
            unknown = set(requirements) - set(WORKLOAD_REQUIREMENT_KEYS)
            if unknown:
                errors["requirements"] = _("Unknown requirements: %(k)s") % {
                    "k": ", ".join(sorted(map(str, unknown)))
                }
            else:
                cleaned, problems = clean_requirements(requirements)
                if problems:
                    errors["requirements"] = problems
                else:
                    self.requirements = cleaned
        dims = {d.value for d in Dimension}
        weights = self.weights or {}
        if (
            not isinstance(weights, dict)
            or set(weights) - dims
            or any(
                isinstance(v, bool)
                or not isinstance(v, int | float)
                or not 0 <= v <= MAX_WORKLOAD_WEIGHT
                for v in weights.values()
            )
        ):
            # Bounded: 1e308 twice summed to infinity and the portfolio failed for everyone.
            errors["weights"] = _("Weights map the six dimensions to numbers from 0 to 100.")
        elif weights and not any(weights.values()):
            errors["weights"] = _("At least one weight must be positive.")
        if errors:
            raise ValidationError(errors)
