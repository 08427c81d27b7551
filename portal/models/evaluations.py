"""Evaluations (one procurement decision), their members, candidates, answers and scores."""

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from scoring.reference import known_gpu_families, parse_gpu_families
from scoring.rubric import CURRENT_RUBRIC_VERSION, RUBRIC_VERSIONS

from .choices import (
    AnswerType,
    BillingModel,
    Currency,
    Dimension,
    EvaluationStatus,
    MlpsLevel,
    Role,
    VerificationStatus,
    WorkloadProfile,
)
from .vendors import Offering, OfferingVersion
from .workloads import DataResidency, OpsCapacity

WEIGHT_FIELDS = tuple(f"weight_{d.value}" for d in Dimension)


def validate_gpu_models(value: str) -> None:
    """Every item of an accepted-GPU list names a GPU model the portal knows."""
    _families, unknown = parse_gpu_families(value)
    if unknown:
        raise ValidationError(
            _(
                "Unknown GPU model: %(models)s. Accepted models: %(known)s (a vendor prefix is "
                "optional: NVIDIA H100, Huawei Ascend 910B or 昇腾910B, AMD Instinct MI300X)."
            ),
            code="unknown_gpu_model",
            params={"models": ", ".join(unknown), "known": ", ".join(known_gpu_families())},
        )


def accepted_gpu_families(value: str) -> tuple[str, ...]:
    """The GPU families an evaluation's accepted_gpu_models names (empty: any)."""
    return parse_gpu_families(value)[0]


# What procurement sets on an evaluation besides its weights (forms and the API share it).
REQUIREMENT_FIELDS = (
    "name",
    "description",
    "workload_profile",
    "required_total_gpus",
    "required_gpu_memory_gib",
    "accepted_gpu_models",
    "duration_days",
    "expected_idle_days",
    "budget_total",
    "budget_currency",
    "required_mlps_level",
    "require_xinchuang",
    "min_busbw_fraction",
    "max_evidence_age_days",
)


def _weight(dimension: str):
    return models.DecimalField(
        format_lazy(_("weight: {dimension}"), dimension=dimension),
        max_digits=7,
        decimal_places=3,
        default=Decimal("1"),
        validators=[MinValueValidator(Decimal("0"))],
        help_text=_("Percent; normalised to sum 100 when scored."),
    )


class ChecklistItem(models.Model):
    """One point of the ten-point checklist, in English and Simplified Chinese."""

    number = models.PositiveSmallIntegerField(_("number"), unique=True)
    key = models.SlugField(_("key"), max_length=50, unique=True)
    title_en = models.CharField(_("title (English)"), max_length=200)
    title_zh = models.CharField(_("title (Chinese)"), max_length=200)
    help_en = models.TextField(_("guidance (English)"), blank=True)
    help_zh = models.TextField(_("guidance (Chinese)"), blank=True)
    answer_type = models.CharField(_("answer type"), max_length=10, choices=AnswerType.choices)
    choices = models.JSONField(_("answer choices"), default=list, blank=True)
    dimensions = models.JSONField(
        _("dimensions fed"), default=list, help_text=_("Dimensions this item feeds.")
    )
    evidence_kinds = models.JSONField(
        _("evidence kinds"), default=list, blank=True, help_text=_("Evidence that can verify it.")
    )

    class Meta:
        ordering = ["number"]
        verbose_name = _("checklist item")
        verbose_name_plural = _("checklist items")

    def __str__(self) -> str:
        return f"{self.number}. {self.title_en}"

    def clean(self) -> None:
        unknown = set(self.dimensions or []) - set(Dimension.values)
        if unknown:
            raise ValidationError(
                {"dimensions": _("Unknown dimensions: %(d)s") % {"d": ", ".join(sorted(unknown))}}
            )


def positive_budget(value: Decimal | None) -> None:
    """A budget is above zero (or empty for none): a budget of 0, or one below a cent that is
    stored as 0, would knock out every candidate on budget. The page's form and the API both
    validate through this field."""
    if value is not None and value <= 0:
        raise ValidationError(
            _("Enter a budget above zero, or leave it empty for no budget."),
            code="budget_not_positive",
        )


class Evaluation(models.Model):
    """One procurement decision: the workload, its requirements and how candidates are weighed."""

    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    workload_profile = models.CharField(
        _("workload profile"), max_length=20, choices=WorkloadProfile.choices
    )
    status = models.CharField(
        _("status"), max_length=10, choices=EvaluationStatus.choices, default=EvaluationStatus.DRAFT
    )

    # Requirements (must-haves)
    # Upper bounds far beyond any rental (the largest clusters hold about 10^5 GPUs; ten
    # years), so that a slip of the keyboard is refused instead of giving a TCO of 10^23.
    required_total_gpus = models.PositiveIntegerField(
        _("total GPUs required"), validators=[MinValueValidator(1), MaxValueValidator(1_000_000)]
    )
    required_gpu_memory_gib = models.PositiveIntegerField(
        _("GPU memory required (GiB)"), default=0, validators=[MaxValueValidator(10_000)]
    )
    duration_days = models.PositiveIntegerField(
        _("duration (days)"), validators=[MinValueValidator(1), MaxValueValidator(3_653)]
    )
    expected_idle_days = models.PositiveIntegerField(_("expected idle days"), default=0)
    budget_total = models.DecimalField(
        _("maximum budget"),
        max_digits=16,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[positive_budget],
    )
    budget_currency = models.CharField(
        _("budget currency"), max_length=3, choices=Currency.choices, default=Currency.CNY
    )
    required_mlps_level = models.PositiveSmallIntegerField(
        _("MLPS level required"), choices=MlpsLevel.choices, default=MlpsLevel.NONE
    )
    require_xinchuang = models.BooleanField(_("Xinchuang required"), default=False)
    max_evidence_age_days = models.PositiveIntegerField(
        _("maximum evidence age (days)"),
        null=True,
        blank=True,
        help_text=_("Evidence measured longer ago is flagged and not used. Empty: no limit."),
    )
    accepted_gpu_models = models.CharField(
        _("accepted GPU models"),
        max_length=200,
        blank=True,
        default="",
        validators=[validate_gpu_models],
        help_text=_(
            "The GPU models the evaluation accepts, separated by commas (for example H100, H200, "
            "B200); other models are disqualified. Empty: any model."
        ),
    )
    min_busbw_fraction = models.DecimalField(
        _("minimum measured bus-bandwidth fraction"),
        max_digits=4,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
        help_text=_(
            "For example 0.80: a health check. The measured all-reduce bus bandwidth ÷ what the "
            "candidate's own declared system (its GPUs, NVLink, NICs x rate and nodes) should "
            "reach; a candidate below it is disqualified. The size of the fabric is not judged "
            "here: the cost and network dimensions price it."
        ),
    )

    rubric_version = models.CharField(
        _("rubric version"),
        max_length=20,
        choices=[(v, f"v{v}") for v in RUBRIC_VERSIONS],
        default=CURRENT_RUBRIC_VERSION,
        editable=False,
        help_text=_(
            "The scoring rubric this evaluation is scored with; recorded decisions replay with "
            "it. Moving to a newer rubric is an explicit, audited action."
        ),
    )

    # Buyer-side inputs of the portfolio (issue #16): operations capacity, residency, home region
    ops_capacity = models.CharField(
        _("operations capacity"),
        max_length=20,
        choices=OpsCapacity.choices,
        default=OpsCapacity.PLATFORM_TEAM,
    )
    ops_staff_cost_month = models.DecimalField(
        _("operations staff cost per engineer-month"),
        max_digits=12,
        decimal_places=2,
        default=Decimal(0),
        validators=[MinValueValidator(Decimal("0"))],
    )
    data_residency = models.CharField(
        _("data residency"), max_length=20, choices=DataResidency.choices, default="none"
    )
    home_country = models.CharField(_("home country (ISO code)"), max_length=2, blank=True)
    home_province = models.CharField(_("home province or city"), max_length=100, blank=True)
    prefer_fewer_vendors_pct = models.DecimalField(
        _("prefer fewer vendors within (%)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal(0),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("100"))],
    )

    weight_stability = _weight(_("stability"))
    weight_network = _weight(_("network"))
    weight_storage = _weight(_("storage"))
    weight_security = _weight(_("security"))
    weight_cost = _weight(_("cost"))
    weight_support = _weight(_("support"))
    # The pairwise comparisons the weights were last derived from (None after direct weights),
    # so that the page shows them again.
    ahp_matrix = models.JSONField(_("AHP comparison matrix"), null=True, blank=True)

    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="evaluations"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    history = HistoricalRecords(excluded_fields=["updated_at"])

    class Meta:
        ordering = ["-created_at", "name"]
        verbose_name = _("evaluation")
        verbose_name_plural = _("evaluations")
        constraints = [
            *[
                models.CheckConstraint(condition=Q(**{f"{f}__gte": 0}), name=f"eval_{f}_ge_0")
                for f in WEIGHT_FIELDS
            ],
            models.CheckConstraint(
                condition=Q(weight_stability__gt=0)
                | Q(weight_network__gt=0)
                | Q(weight_storage__gt=0)
                | Q(weight_security__gt=0)
                | Q(weight_cost__gt=0)
                | Q(weight_support__gt=0),
                name="eval_some_weight_positive",
            ),
            models.CheckConstraint(
                condition=Q(expected_idle_days__lte=F("duration_days")),
                name="eval_idle_within_duration",
            ),
            models.CheckConstraint(
                condition=Q(required_total_gpus__gte=1), name="eval_total_gpus_ge_1"
            ),
            models.CheckConstraint(
                condition=Q(workload_profile__in=[c.value for c in WorkloadProfile]),
                name="eval_profile_valid",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_decided(self) -> bool:
        return self.status == EvaluationStatus.DECIDED

    @property
    def decision(self) -> "DecisionRecord | None":
        """The decision in force (the latest round) while the evaluation is decided, else None.
        Earlier rounds stay readable through ``decisions``."""
        if not self.is_decided:
            return None
        return self.decisions.order_by("-round").first()

    @property
    def weights(self) -> dict[str, Decimal]:
        return {d.value: getattr(self, f"weight_{d.value}") for d in Dimension}

    def clean(self) -> None:
        errors = {}
        if all((getattr(self, f) or 0) <= 0 for f in WEIGHT_FIELDS):
            errors["weight_stability"] = _(
                "At least one weight must be positive: all six weights are zero."
            )
        if (
            self.duration_days is not None
            and self.expected_idle_days is not None
            and self.expected_idle_days >= self.duration_days
        ):
            # Every day idle leaves no used GPU-hour to price: each candidate's cost per
            # effective GPU-hour is undefined and its cost score 0 whatever its price (the
            # database still allows it, so evaluations saved before this check still load).
            errors["expected_idle_days"] = _(
                "Idle days (%(idle)s) must be fewer than the duration (%(days)s days): with "
                "no day of use there is no cost per used GPU-hour to compare."
            ) % {"idle": self.expected_idle_days, "days": self.duration_days}
        if errors:
            raise ValidationError(errors)


class Membership(models.Model):
    """A user's role in one evaluation; all access to an evaluation goes through this row."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=20, choices=Role.choices)

    # Who was given, changed or lost access, and by whom: part of the evaluation's trail.
    history = HistoricalRecords()

    class Meta:
        ordering = ["evaluation", "role", "user"]
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "user"], name="one_role_per_member"),
            models.CheckConstraint(
                condition=Q(role__in=[c.value for c in Role]), name="membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.get_role_display()} · {self.evaluation}"


class Candidate(models.Model):
    """An offering inside an evaluation, with the price quoted for it and the node count."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="candidates")
    offering = models.ForeignKey(Offering, on_delete=models.PROTECT, related_name="candidacies")
    offering_version = models.ForeignKey(
        OfferingVersion,
        on_delete=models.PROTECT,
        related_name="candidacies",
        null=True,
        blank=True,
        editable=False,
        help_text=_("The version of the offering's facts and prices this candidate is scored on."),
    )
    catalogue_kept = models.CharField(
        _("catalogue changes kept out"),
        max_length=64,
        blank=True,
        editable=False,
        help_text=_("The catalogue state procurement chose not to adopt (its hash)."),
    )
    node_count = models.PositiveIntegerField(
        _("node count"), validators=[MinValueValidator(1), MaxValueValidator(100_000)]
    )
    quoted_billing_model = models.CharField(
        _("quoted billing model"), max_length=10, choices=BillingModel.choices, blank=True
    )
    quoted_price_per_gpu = models.DecimalField(
        _("quoted price per GPU"),
        max_digits=14,
        decimal_places=4,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
        help_text=_("Overrides the list price of the quoted billing model."),
    )
    notes = models.TextField(_("notes"), blank=True)
    knockouts = models.JSONField(
        _("knockouts"),
        default=list,
        blank=True,
        editable=False,
        help_text=_("Must-haves this candidate fails, from the last scoring run."),
    )
    verification = models.JSONField(
        _("verification"),
        default=dict,
        blank=True,
        editable=False,
        help_text=_("Measured facts, bare-metal verdict and faults from the last verification."),
    )
    scored_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # When a failed import of the candidate was last mailed (notifications: at most one such
    # mail per IMPORT_FAILED_MAIL_INTERVAL_S, so failing uploads in a loop flood no inbox).
    import_failure_mailed_at = models.DateTimeField(null=True, blank=True, editable=False)
    history = HistoricalRecords(
        excluded_fields=["knockouts", "verification", "scored_at", "import_failure_mailed_at"]
    )

    class Meta:
        ordering = ["evaluation", "offering__vendor__name", "offering__name"]
        verbose_name = _("candidate")
        verbose_name_plural = _("candidates")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "offering"], name="one_candidate_per_offering"
            ),
            models.CheckConstraint(condition=Q(node_count__gte=1), name="candidate_nodes_ge_1"),
            models.CheckConstraint(
                condition=(Q(quoted_billing_model="") & Q(quoted_price_per_gpu__isnull=True))
                | (
                    ~Q(quoted_billing_model="")
                    & Q(quoted_price_per_gpu__isnull=False)
                    & Q(quoted_price_per_gpu__gte=0)
                ),
                name="candidate_quote_complete",
            ),
        ]

    def __str__(self) -> str:
        return str(self.offering)

    def save(self, *args, **kwargs):
        # A new candidate (or one moved to another offering) pins the offering as it is now.
        if self.offering_id is not None and (
            self.offering_version_id is None
            or self.offering_version.offering_id != self.offering_id
        ):
            self.offering_version = OfferingVersion.current(
                Offering.objects.get(pk=self.offering_id)
            )
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "offering_version"}
        super().save(*args, **kwargs)

    def use_pinned_offering(self) -> tuple:
        """Read the offering as this candidate was offered it: ``offering`` becomes the pinned
        version's (unsaved) facts; returns its list prices as (billing model, price) pairs.
        Never save ``offering`` afterwards: it is a read-only view."""
        if self.offering_version_id is None:  # a row older than versioning
            self.save(update_fields=["offering_version"])
        version = self.offering_version
        self.offering = version.as_offering()
        self.list_prices = version.price_pairs()
        return self.list_prices

    @property
    def disqualified(self) -> bool:
        return bool(self.knockouts)

    @property
    def total_gpus(self) -> int:
        return self.node_count * self.offering.gpus_per_node

    def clean(self) -> None:
        if bool(self.quoted_billing_model) != (self.quoted_price_per_gpu is not None):
            raise ValidationError(
                {"quoted_price_per_gpu": _("A quote needs both a billing model and a price.")}
            )


class Answer(models.Model):
    """A candidate's answer to one checklist item: the claim and how far evidence bears it out."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="answers")
    item = models.ForeignKey(ChecklistItem, on_delete=models.PROTECT, related_name="answers")
    claim = models.TextField(_("claim"), blank=True)
    value = models.JSONField(_("typed value"), null=True, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    status = models.CharField(
        _("verification status"),
        max_length=15,
        choices=VerificationStatus.choices,
        default=VerificationStatus.UNANSWERED,
    )
    verification_note = models.TextField(_("verification note"), blank=True)
    evidence_ref = models.CharField(_("evidence reference"), max_length=300, blank=True)
    # The POC plan's failed or missing runs behind the note, as structure
    # (scoring.poc.PocShortfall.as_dict): pages word them in the reader's language. Empty when
    # the note is not the POC's (and on rows written before it was kept).
    poc_shortfalls = models.JSONField(_("POC shortfalls"), default=list, blank=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Who wrote the claim as it stands (its text or typed value): set when either changes, not
    # when only the notes do. A member's review is of this claim, so its author cannot review
    # it (services.reviews.answer_review); ``updated_by`` is only the last editor.
    claim_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("claim written by"),
    )
    updated_at = models.DateTimeField(auto_now=True)
    # Derived from the evidence like the note, not a person's edit: kept out of the history.
    history = HistoricalRecords(excluded_fields=["updated_at", "poc_shortfalls"])

    class Meta:
        ordering = ["candidate", "item__number"]
        verbose_name = _("answer")
        verbose_name_plural = _("answers")
        constraints = [
            models.UniqueConstraint(fields=["candidate", "item"], name="one_answer_per_item"),
            models.CheckConstraint(
                condition=Q(status__in=[c.value for c in VerificationStatus]),
                name="answer_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.item.number}"


class Score(models.Model):
    """A candidate's score on one dimension, with the contributions that explain it."""

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="scores")
    dimension = models.CharField(_("dimension"), max_length=10, choices=Dimension.choices)
    value = models.FloatField(
        _("score"), validators=[MinValueValidator(0.0), MaxValueValidator(100.0)]
    )
    contributions = models.JSONField(_("contributions"), default=list)
    rubric_version = models.CharField(_("rubric version"), max_length=20)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["candidate", "dimension"]
        verbose_name = _("score")
        verbose_name_plural = _("scores")
        constraints = [
            models.UniqueConstraint(fields=["candidate", "dimension"], name="one_score_per_dim"),
            models.CheckConstraint(
                condition=Q(value__gte=0) & Q(value__lte=100), name="score_0_100"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.dimension}: {self.value:.1f}"


class DecisionRecord(models.Model):
    """One recorded decision of an evaluation. Written once; never edited or deleted.

    Reopening the evaluation starts a new round: the next decision is a new record and the
    earlier ones stay readable."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.PROTECT, related_name="decisions")
    round = models.PositiveSmallIntegerField(_("round"), default=1)
    candidate = models.ForeignKey(Candidate, on_delete=models.PROTECT, related_name="+")
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(auto_now_add=True)
    rationale = models.TextField(_("rationale"))
    snapshot = models.JSONField(
        _("snapshot"), default=dict, help_text=_("Scores, weights and evidence hashes at decision.")
    )

    class Meta:
        ordering = ["evaluation", "round"]
        verbose_name = _("decision record")
        verbose_name_plural = _("decision records")
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "round"], name="one_decision_per_round")
        ]

    def __str__(self) -> str:
        return f"{self.evaluation}: {self.chosen_label} ({self.round})"

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            raise ValidationError(_("A recorded decision cannot be changed."))
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError(_("A recorded decision cannot be deleted."))

    @property
    def chosen_label(self) -> str:
        """The chosen candidate's name as the ranking showed it when the decision was recorded
        (the snapshot's): a vendor or offering renamed later never changes what the record
        says was chosen. The candidate's name today for a record that holds none."""
        for row in (self.snapshot or {}).get("ranking", ()):
            if row.get("candidate_id") == self.candidate_id and row.get("label"):
                return row["label"]
        return str(self.candidate)


class DecisionReopening(models.Model):
    """A manager reopened a decided evaluation, with a reason: the decision it set aside stays
    as it was recorded. Written once; never edited or deleted."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.PROTECT, related_name="reopenings")
    decision = models.OneToOneField(
        DecisionRecord, on_delete=models.PROTECT, related_name="reopening"
    )
    reason = models.TextField(_("reason"))
    reopened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    reopened_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["evaluation", "reopened_at"]
        verbose_name = _("decision reopening")
        verbose_name_plural = _("decision reopenings")

    def __str__(self) -> str:
        return f"{self.evaluation}: reopened ({self.decision.round})"

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            raise ValidationError(_("A reopening cannot be changed."))
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError(_("A reopening cannot be deleted."))


def attachment_path(instance: "AnswerAttachment", filename: str) -> str:
    # Never the client's name on disk: a random name under the candidate's folder.
    import uuid

    return f"attachments/{instance.answer.candidate_id}/{uuid.uuid4().hex}"


class AnswerAttachment(models.Model):
    """A document backing an answer (a vendor's SLA PDF, a certificate scan…)."""

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="attachments")
    file = models.FileField(_("file"), upload_to=attachment_path, max_length=300)
    original_name = models.CharField(_("original name"), max_length=255)
    size_bytes = models.PositiveBigIntegerField(_("size (bytes)"))
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]
        verbose_name = _("answer attachment")
        verbose_name_plural = _("answer attachments")

    def __str__(self) -> str:
        return self.original_name
