"""Evaluations and what belongs to them: members, candidates, answers, weights, the decision.

Input and output serializers are kept apart: inputs accept only what a client may set (the
evaluation always comes from the URL), outputs show what the portal stores.
"""

import math
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from ...forms import typed_errors
from ...models import (
    REQUIREMENT_FIELDS,
    Answer,
    AnswerType,
    Candidate,
    DecisionRecord,
    Dimension,
    Evaluation,
    EvaluationStatus,
    Membership,
    Offering,
    Role,
)
from ...people import person_shown
from ...services.answers import answer_version
from ...services.evaluations import (
    WEIGHTS_SUM_TOLERANCE,
    requirements_version,
    weights_sum_problem,
)
from .base import StrictMixin, StrictSerializer, safe_text
from .fields import (
    CurrencyField,
    EvaluationStatusField,
    MlpsLevelField,
    QuotedBillingModelField,
    VerificationStatusField,
)
from .results import PocShortfallSerializer

DIMENSIONS = tuple(d.value for d in Dimension)
# The unit of stored weights, as every writer (the pages, this API, the AHP) stores them.
WEIGHTS_UNIT = "percent; normalised to sum 100 when scored"


class EvaluationSerializer(serializers.ModelSerializer):
    status = EvaluationStatusField(read_only=True)
    budget_currency = CurrencyField(read_only=True)
    required_mlps_level = MlpsLevelField(read_only=True)
    weights = serializers.SerializerMethodField(help_text=WEIGHTS_UNIT)
    my_role = serializers.SerializerMethodField()
    candidate_count = serializers.SerializerMethodField()
    version = serializers.SerializerMethodField(
        help_text="The version of the requirements and status: a PATCH naming an older one is "
        "a 409 (requirements saved since are not overwritten)."
    )

    class Meta:
        model = Evaluation
        fields = (
            "id",
            *REQUIREMENT_FIELDS,
            "status",
            "rubric_version",
            "weights",
            "my_role",
            "candidate_count",
            "version",
            "created_at",
            "updated_at",
        )
        read_only_fields = fields

    def get_version(self, obj) -> str:
        return requirements_version(obj)

    def get_weights(self, obj) -> dict[str, str]:
        return {k: str(v) for k, v in obj.weights.items()}

    def get_my_role(self, obj) -> str | None:
        memberships = getattr(obj, "my_memberships", None)
        if memberships is not None:
            return memberships[0].role if memberships else None
        membership = self.context.get("membership")
        return membership.role if membership is not None else None

    def get_candidate_count(self, obj) -> int:
        count = getattr(obj, "candidate_count", None)
        return count if count is not None else obj.candidates.count()


class EvaluationInSerializer(StrictMixin, serializers.ModelSerializer):
    """Requirements a procurement member sets; status only moves between draft and open."""

    status = EvaluationStatusField(required=False)
    budget_currency = CurrencyField(required=False)
    required_mlps_level = MlpsLevelField(required=False)
    # The version read with GET: a PATCH over requirements saved since is a 409 (omit it to
    # overwrite whatever is stored).
    version = serializers.CharField(required=False, max_length=64, write_only=True)

    class Meta:
        model = Evaluation
        fields = (*REQUIREMENT_FIELDS, "status", "version")

    def validate_status(self, value):
        if value == EvaluationStatus.DECIDED:
            raise serializers.ValidationError(_("Record a decision to decide an evaluation."))
        return value


class UserSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    username = serializers.CharField(read_only=True)
    full_name = serializers.CharField(source="get_full_name", read_only=True)


class MemberSerializer(serializers.ModelSerializer):
    user = UserSummarySerializer(read_only=True)
    role_label = serializers.CharField(source="get_role_display", read_only=True)

    class Meta:
        model = Membership
        fields = ("id", "user", "role", "role_label")
        read_only_fields = fields


class MemberInSerializer(StrictSerializer):
    user = serializers.SlugRelatedField(
        slug_field="username", queryset=get_user_model().objects.filter(is_active=True)
    )
    role = serializers.ChoiceField(choices=Role.choices)


class MemberRoleSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=Role.choices)


class ScoreValueSerializer(serializers.Serializer):
    dimension = serializers.CharField()
    value = serializers.FloatField()


class CandidateSerializer(serializers.ModelSerializer):
    label = serializers.CharField(source="__str__", read_only=True)
    vendor = serializers.IntegerField(source="offering.vendor_id", read_only=True)
    vendor_name = serializers.CharField(source="offering.vendor.name", read_only=True)
    offering_name = serializers.CharField(source="offering.name", read_only=True)
    total_gpus = serializers.IntegerField(read_only=True)
    disqualified = serializers.BooleanField(read_only=True)
    quoted_billing_model = QuotedBillingModelField(read_only=True)
    answered_count = serializers.SerializerMethodField(
        help_text="Checklist items answered with a claim (text or typed value) that nothing "
        "contradicts: the questionnaire's count."
    )
    contradicted_count = serializers.SerializerMethodField(
        help_text="Checklist items the evidence or a document review contradicted: not done, "
        "and not counted as answered."
    )
    upload_count = serializers.SerializerMethodField()
    scores = serializers.SerializerMethodField()
    offering_version = serializers.IntegerField(
        source="offering_version.number", read_only=True, allow_null=True
    )

    class Meta:
        model = Candidate
        fields = (
            "id",
            "label",
            "offering",
            "offering_version",
            "offering_name",
            "vendor",
            "vendor_name",
            "node_count",
            "total_gpus",
            "quoted_billing_model",
            "quoted_price_per_gpu",
            "notes",
            "disqualified",
            "knockouts",
            "scores",
            "answered_count",
            "contradicted_count",
            "upload_count",
            "scored_at",
            "created_at",
        )
        read_only_fields = fields

    def get_answered_count(self, obj) -> int | None:
        return getattr(obj, "progress_answered", None)

    def get_contradicted_count(self, obj) -> int | None:
        return getattr(obj, "progress_contradicted", None)

    def get_upload_count(self, obj) -> int | None:
        return getattr(obj, "upload_count", None)

    def get_scores(self, obj) -> dict[str, float]:
        return {score.dimension: score.value for score in obj.scores.all()}


class CandidateInSerializer(StrictSerializer):
    offering = serializers.PrimaryKeyRelatedField(queryset=Offering.objects.all())
    node_count = serializers.IntegerField(min_value=1, max_value=100_000)
    quoted_billing_model = QuotedBillingModelField(required=False, default="")
    quoted_price_per_gpu = serializers.DecimalField(
        max_digits=14,
        decimal_places=4,
        min_value=Decimal("0"),
        required=False,
        allow_null=True,
        default=None,
    )
    notes = serializers.CharField(required=False, allow_blank=True, default="", max_length=10_000)

    def validate(self, attrs):
        evaluation = self.context["evaluation"]
        offering = attrs.get("offering")
        if offering is not None and (
            Candidate.objects.filter(evaluation=evaluation, offering=offering).exists()
        ):
            raise serializers.ValidationError(
                {"offering": [_("This offering is already a candidate in this evaluation.")]}
            )
        return attrs


class CandidateUpdateSerializer(StrictSerializer):
    node_count = serializers.IntegerField(min_value=1, max_value=100_000, required=False)
    quoted_billing_model = QuotedBillingModelField(required=False)
    quoted_price_per_gpu = serializers.DecimalField(
        max_digits=14, decimal_places=4, min_value=Decimal("0"), required=False, allow_null=True
    )
    notes = serializers.CharField(required=False, allow_blank=True, max_length=10_000)


class AnswerSerializer(serializers.ModelSerializer):
    candidate = serializers.IntegerField(source="candidate_id", read_only=True)
    item = serializers.IntegerField(source="item.number", read_only=True)
    item_key = serializers.CharField(source="item.key", read_only=True)
    item_title = serializers.CharField(source="item.title_en", read_only=True)
    answer_type = serializers.CharField(source="item.answer_type", read_only=True)
    updated_by = serializers.CharField(source="updated_by.username", read_only=True, default=None)
    status = VerificationStatusField(read_only=True)
    poc_shortfalls = PocShortfallSerializer(many=True, read_only=True)
    version = serializers.SerializerMethodField(
        help_text="The answer's version: send it back with a PUT to refuse overwriting a newer one."
    )

    class Meta:
        model = Answer
        fields = (
            "id",
            "version",
            "candidate",
            "item",
            "item_key",
            "item_title",
            "answer_type",
            "claim",
            "value",
            "notes",
            "status",
            "verification_note",
            "evidence_ref",
            "poc_shortfalls",
            "updated_by",
            "updated_at",
        )
        read_only_fields = fields

    def get_version(self, answer) -> str:
        return answer_version(answer)


class AnswerInSerializer(StrictSerializer):
    """One answer: the claim in words, an optional typed value checked against the item's type.

    An item with a typed answer (a number, a choice, yes or no) takes a claim without a value
    only where the claim reads as that type, as the questionnaire's typed input does: text
    such as "1e309" or "NaN" for a number is a 400, never stored as a claim that scores."""

    claim = serializers.CharField(required=False, allow_blank=True, default="", max_length=10_000)
    value = serializers.JSONField(required=False, allow_null=True, default=None)
    notes = serializers.CharField(required=False, allow_blank=True, default="", max_length=10_000)
    # The version read with GET: a PUT over an answer changed since is a 409 (omit it to
    # overwrite whatever is stored).
    version = serializers.CharField(required=False, max_length=64)

    def validate_value(self, value):
        if value is None or value == "":
            return None
        item = self.context["item"]
        if item.answer_type == AnswerType.NUMBER:
            # JSON's NaN and Infinity arrive as floats: refused like any other non-number.
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
            ):
                raise serializers.ValidationError(_("This item takes a number."))
            if abs(value) > 1e15:
                raise serializers.ValidationError(_("This number is too large."))
            # The questionnaire's own rule for the item's input (0 or more, 2 decimals).
            problems = typed_errors(item, str(value))
            if problems:
                raise serializers.ValidationError(problems)
        elif item.answer_type == AnswerType.BOOLEAN:
            if not isinstance(value, bool):
                raise serializers.ValidationError(_("This item takes true or false."))
        elif item.answer_type == AnswerType.CHOICE:
            if value not in (item.choices or []):
                raise serializers.ValidationError(
                    _("Choose one of: %(choices)s.") % {"choices": ", ".join(item.choices or [])}
                )
        elif not isinstance(value, str):
            raise serializers.ValidationError(_("This item takes text."))
        elif len(value) > 10_000:
            raise serializers.ValidationError(_("The text is too long."))
        else:
            safe_text(value)
        return value

    def validate(self, attrs):
        item = self.context["item"]
        claim = (attrs.get("claim") or "").strip()
        problems = typed_errors(item, claim) if claim and attrs.get("value") is None else []
        if problems:
            why = _(
                "This item takes a typed answer (%(type)s): send it as value, or a claim that "
                "reads as one."
            ) % {"type": item.get_answer_type_display()}
            raise serializers.ValidationError({"claim": [why, *problems]})
        return attrs


# What a PUT of direct weights takes: each a percentage, the six making 100 (the rule every
# writer follows: services.evaluations.weights_sum_problem, checked here for a 400 before
# anything is locked, and again by the service).
WEIGHTS_IN_UNIT = (
    f"percent, 0 to 100; the six must sum to 100 (within ±{WEIGHTS_SUM_TOLERANCE}). "
    "Fractions of 1 (0.25 for 25 %) are refused, not stored."
)


def _weight_field():
    return serializers.DecimalField(
        max_digits=7,
        decimal_places=3,
        min_value=Decimal("0"),
        max_value=Decimal("100"),
        help_text=WEIGHTS_IN_UNIT,
        error_messages={
            "invalid": gettext_lazy("A weight is a percentage: a number from 0 to 100."),
            "min_value": gettext_lazy("A weight is a percentage from 0 to 100; not below 0."),
            "max_value": gettext_lazy("A weight is a percentage from 0 to 100; not above 100."),
        },
    )


class WeightsSerializer(StrictSerializer):
    """The six dimension weights in percent: each from 0 to 100, one positive at least; the
    six must sum to 100 (within ±0.05). Weights that sum to something else, fractions of 1
    among them, are a 400 naming the sum, and nothing is stored."""

    stability = _weight_field()
    network = _weight_field()
    storage = _weight_field()
    security = _weight_field()
    cost = _weight_field()
    support = _weight_field()
    # The version read with GET: a PUT over weights saved since is a 409 (omit it to overwrite
    # whatever is stored).
    version = serializers.CharField(required=False, max_length=64)

    def validate(self, attrs):
        problem = weights_sum_problem(attrs)
        if problem:
            raise serializers.ValidationError(problem)
        return attrs


class WeightsOutSerializer(serializers.Serializer):
    weights = serializers.DictField(child=serializers.CharField(), help_text=WEIGHTS_UNIT)
    normalised_pct = serializers.DictField(child=serializers.FloatField())
    consistency_ratio = serializers.FloatField(required=False, allow_null=True)
    version = serializers.CharField(
        help_text="The version of the weights (and AHP matrix): a PUT or POST naming an older "
        "one is a 409."
    )


AHP_MIN = 1 / 9 - 1e-9
AHP_MAX = 9.0


class AhpSerializer(StrictSerializer):
    """A 6x6 pairwise comparison matrix on Saaty's 1/9..9 scale, rows and columns in the order
    stability, network, storage, security, cost, support."""

    matrix = serializers.ListField(
        child=serializers.ListField(
            child=serializers.FloatField(
                min_value=AHP_MIN,
                max_value=AHP_MAX,
                # Saaty's bounds as the scale writes them, not 0.1111111101111111.
                error_messages={
                    "min_value": gettext_lazy("Ensure this value is at least 1/9."),
                    "max_value": gettext_lazy("Ensure this value is at most 9."),
                },
            ),
            min_length=len(DIMENSIONS),
            max_length=len(DIMENSIONS),
        ),
        min_length=len(DIMENSIONS),
        max_length=len(DIMENSIONS),
    )
    version = serializers.CharField(required=False, max_length=64)


class DecisionRecordSerializer(serializers.ModelSerializer):
    # The name the ranking showed when the decision was recorded (a later rename of the
    # vendor or offering never changes a decided record).
    candidate_label = serializers.CharField(source="chosen_label", read_only=True)
    decided_by = serializers.CharField(source="decided_by.username", read_only=True)
    decided_by_name = serializers.SerializerMethodField(
        help_text="The decider as the pages and exports name them: 'Morgan Manager (manager)', "
        "or the username where no full name is set."
    )
    reopened = serializers.SerializerMethodField()
    evidence_sources = serializers.SerializerMethodField(
        help_text="Where each of the snapshot's evidence lines comes from today, in its order: "
        "the upload's number and page while that upload is still in the evaluation with the "
        "same sha256 (state 'present'), who deleted it and when (state 'deleted'), or "
        "'gone' (its candidate was removed, or nothing of that sha256 is left)."
    )

    def get_decided_by_name(self, record) -> str:
        return person_shown(record.decided_by)

    def get_evidence_sources(self, record) -> list[dict]:
        return [
            {
                "sha256": line.get("sha256", ""),
                "upload": line["upload_number"],
                "state": "present" if line["url"] else "deleted" if line["deleted"] else "gone",
                "page": line["url"],
                "deleted_by": line["deleted"].deleted_by.username
                if line["deleted"] and line["deleted"].deleted_by
                else None,
                "deleted_at": line["deleted"].deleted_at.isoformat() if line["deleted"] else None,
            }
            for line in self.context.get("evidence_sources", {}).get(record.pk, [])
        ]

    def get_reopened(self, record) -> dict | None:
        reopening = getattr(record, "reopening", None)
        if reopening is None:
            return None
        return {
            "by": reopening.reopened_by.username,
            "by_name": person_shown(reopening.reopened_by),
            "at": reopening.reopened_at.isoformat(),
            "reason": reopening.reason,
        }

    class Meta:
        model = DecisionRecord
        fields = (
            "id",
            "round",
            "candidate",
            "candidate_label",
            "decided_by",
            "decided_by_name",
            "decided_at",
            "rationale",
            "snapshot",
            "evidence_sources",
            "reopened",
        )
        read_only_fields = fields


class DecisionStateSerializer(serializers.Serializer):
    evaluation = serializers.IntegerField()
    status = serializers.CharField()
    decision = DecisionRecordSerializer(allow_null=True)
    earlier_decisions = DecisionRecordSerializer(many=True)


class ReopenInSerializer(StrictSerializer):
    reason = serializers.CharField(max_length=20_000)


class DecisionInSerializer(StrictSerializer):
    candidate = serializers.PrimaryKeyRelatedField(queryset=Candidate.objects.none())
    rationale = serializers.CharField(max_length=20_000)
    ranking_version = serializers.CharField(
        required=False,
        max_length=200,
        help_text="The ranking_version of the ranking the decision was made on (GET "
        "ranking/): when the ranking has changed since, nothing is recorded (409). Omitted: "
        "not checked.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        evaluation = self.context.get("evaluation")
        if evaluation is not None:
            # Only this evaluation's candidates: another evaluation's id is "does not exist".
            self.fields["candidate"].queryset = Candidate.objects.filter(evaluation=evaluation)


class CatalogueChangeSerializer(serializers.Serializer):
    field = serializers.CharField()
    label = serializers.CharField()
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)


class CatalogueStateSerializer(serializers.Serializer):
    candidate = serializers.IntegerField()
    offering = serializers.IntegerField()
    version = serializers.IntegerField(allow_null=True)
    version_created_at = serializers.DateTimeField(allow_null=True)
    changes = CatalogueChangeSerializer(many=True)


class CatalogueActionSerializer(StrictSerializer):
    action = serializers.ChoiceField(choices=["adopt", "keep"])


class IntegritySerializer(serializers.Serializer):
    candidate = serializers.IntegerField()
    fingerprint = serializers.DictField(child=serializers.ListField(child=serializers.CharField()))
    hardware_reuse = serializers.ListField(child=serializers.DictField())
    used_uploads = serializers.ListField(child=serializers.IntegerField())
    uploads = serializers.ListField(child=serializers.DictField())
