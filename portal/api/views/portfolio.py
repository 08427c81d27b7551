"""The portfolio through the API: the demand profile (workloads), the buyer-side settings, the
proposal computed now, and recording it (or an edited assignment) as the decision.

The same services as the portfolio page: a workload or setting written to a decided evaluation
is a 409, settings saved over a newer version are a 409, and a recorded portfolio is a decision
like any other (``/decision/`` shows it, a manager reopens it there)."""

from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from ...models import Evaluation, Workload
from ...permissions import CAN_DECIDE, CAN_EDIT, CAN_VIEW
from ...services.portfolio import (
    PORTFOLIO_SETTING_FIELDS,
    WORKLOAD_FIELDS,
    evaluation_portfolio_settings_set,
    portfolio_decision_record,
    portfolio_decision_snapshot,
    portfolio_settings_version,
    workload_create,
    workload_delete,
    workload_update,
)
from ..exceptions import validation_detail
from ..serializers.base import StrictMixin, StrictSerializer
from ..serializers.evaluations import DecisionStateSerializer
from .base import EvaluationScopedView
from .results import decision_state


class WorkloadSerializer(StrictMixin, serializers.ModelSerializer):
    class Meta:
        model = Workload
        fields = ("id", *WORKLOAD_FIELDS)
        read_only_fields = ("id",)


class PortfolioSettingsSerializer(StrictMixin, serializers.ModelSerializer):
    # The version read with GET: a PATCH over settings saved since is a 409 (omit it to write
    # regardless).
    version = serializers.CharField(required=False, max_length=64)

    class Meta:
        model = Evaluation
        fields = (*PORTFOLIO_SETTING_FIELDS, "version")


class PlanLineSerializer(serializers.Serializer):
    workload = serializers.CharField()
    candidate_id = serializers.IntegerField()
    label = serializers.CharField()
    vendor = serializers.CharField()
    region = serializers.CharField(allow_null=True)
    billing_model = serializers.CharField()
    tco = serializers.DecimalField(max_digits=20, decimal_places=2, coerce_to_string=True)
    score = serializers.FloatField()


class PlanSerializer(serializers.Serializer):
    lines = PlanLineSerializer(many=True)
    workload_tco = serializers.CharField()
    egress = serializers.CharField()
    ops = serializers.CharField()
    total = serializers.CharField()
    vendors = serializers.ListField(child=serializers.CharField())


class RiskSerializer(serializers.Serializer):
    kind = serializers.CharField()
    en = serializers.CharField()
    zh = serializers.CharField()


class ProposalSerializer(serializers.Serializer):
    edited = serializers.BooleanField()
    method = serializers.CharField()
    currency = serializers.CharField()
    plan = PlanSerializer()
    single = PlanSerializer(allow_null=True)
    saving = serializers.CharField(allow_null=True)
    risks = RiskSerializer(many=True)


class PortfolioSerializer(serializers.Serializer):
    evaluation = serializers.IntegerField()
    settings = PortfolioSettingsSerializer()
    workloads = WorkloadSerializer(many=True)
    proposal = ProposalSerializer(
        allow_null=True,
        help_text="What recording the portfolio now would record; null when no portfolio can "
        "be proposed (``problem`` says why).",
    )
    problem = serializers.ListField(child=serializers.CharField(), allow_null=True)


class AssignmentSerializer(StrictSerializer):
    workload = serializers.CharField(max_length=100)
    candidate = serializers.IntegerField(min_value=1)
    billing_model = serializers.CharField(max_length=20, required=False, allow_blank=True)


class PortfolioDecisionInSerializer(StrictSerializer):
    rationale = serializers.CharField(max_length=20_000)
    assignment = AssignmentSerializer(
        many=True,
        required=False,
        allow_empty=False,
        max_length=1_000,
        help_text="Omit it to record the proposal; else one line per workload.",
    )

    def validate_assignment(self, lines) -> dict[str, tuple[str, str | None]]:
        """The lines as the service takes them: workload name -> (candidate id, billing model
        or None for the cheapest); a workload named twice is refused."""
        assignment: dict[str, tuple[str, str | None]] = {}
        for line in lines:
            if line["workload"] in assignment:
                message = _("The workload “%(name)s” is assigned twice.")
                raise serializers.ValidationError(message % {"name": line["workload"]})
            assignment[line["workload"]] = (
                str(line["candidate"]),
                line.get("billing_model") or None,
            )
        return assignment


def _settings(evaluation: Evaluation) -> dict:
    values = {name: getattr(evaluation, name) for name in PORTFOLIO_SETTING_FIELDS}
    return {**values, "version": portfolio_settings_version(evaluation)}


def _portfolio(evaluation: Evaluation) -> dict:
    # Read again: a write just made, or one made by someone else, is what the answer shows.
    evaluation = Evaluation.objects.get(pk=evaluation.pk)
    proposal = problem = None
    if evaluation.workloads.exists():
        try:
            proposal = portfolio_decision_snapshot(evaluation=evaluation)
        except ValidationError as exc:
            problem = [m for messages in validation_detail(exc).values() for m in messages]
    return {
        "evaluation": evaluation.pk,
        "settings": _settings(evaluation),
        "workloads": WorkloadSerializer(evaluation.workloads.all(), many=True).data,
        "proposal": proposal,
        "problem": problem,
    }


class PortfolioView(EvaluationScopedView):
    """The evaluation's portfolio: settings (with their version), workloads and the proposal
    computed now. PATCH (procurement) changes settings; send ``version`` from GET to refuse
    overwriting settings saved since (409)."""

    roles = {"GET": CAN_VIEW, "PATCH": CAN_EDIT}
    pagination_class = None
    serializer_class = PortfolioSerializer
    input_serializers = {"PATCH": PortfolioSettingsSerializer}

    @extend_schema(responses=PortfolioSerializer)
    def get(self, request, evaluation_pk: int):
        return Response(PortfolioSerializer(_portfolio(self.evaluation)).data)

    @extend_schema(request=PortfolioSettingsSerializer, responses=PortfolioSerializer)
    def patch(self, request, evaluation_pk: int):
        incoming = PortfolioSettingsSerializer(self.evaluation, data=request.data, partial=True)
        incoming.is_valid(raise_exception=True)
        fields = dict(incoming.validated_data)
        version = fields.pop("version", None)
        evaluation_portfolio_settings_set(
            evaluation=self.evaluation, by=request.user, expected_version=version, **fields
        )
        return Response(PortfolioSerializer(_portfolio(self.evaluation)).data)


class _WorkloadView(EvaluationScopedView):
    """The evaluation's workloads, by the URL's evaluation (another evaluation's is a 404)."""

    pagination_class = None
    serializer_class = WorkloadSerializer

    def get_queryset(self):
        if self.fake:
            return Workload.objects.none()
        return self.evaluation.workloads.all()


class WorkloadList(_WorkloadView):
    """The evaluation's workloads (GPUs over time, profile, peak, requirements). POST
    (procurement) adds one; 409 when the evaluation is decided."""

    roles = {"GET": CAN_VIEW, "POST": CAN_EDIT}

    @extend_schema(responses=WorkloadSerializer(many=True))
    def get(self, request, evaluation_pk: int):
        return Response(WorkloadSerializer(self.get_queryset(), many=True).data)

    @extend_schema(request=WorkloadSerializer, responses={201: WorkloadSerializer})
    def post(self, request, evaluation_pk: int):
        incoming = WorkloadSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        workload = workload_create(
            evaluation=self.evaluation, by=request.user, **incoming.validated_data
        )
        return Response(WorkloadSerializer(workload).data, status=status.HTTP_201_CREATED)


class WorkloadDetail(_WorkloadView):
    """One workload. PATCH (procurement) changes the fields given; DELETE removes it."""

    roles = {"GET": CAN_VIEW, "PATCH": CAN_EDIT, "DELETE": CAN_EDIT}

    def get_object(self):
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["workload_pk"])

    @extend_schema(responses=WorkloadSerializer)
    def get(self, request, evaluation_pk: int, workload_pk: int):
        return Response(WorkloadSerializer(self.get_object()).data)

    @extend_schema(request=WorkloadSerializer, responses=WorkloadSerializer)
    def patch(self, request, evaluation_pk: int, workload_pk: int):
        workload = self.get_object()
        incoming = WorkloadSerializer(workload, data=request.data, partial=True)
        incoming.is_valid(raise_exception=True)
        workload = workload_update(workload=workload, by=request.user, **incoming.validated_data)
        return Response(WorkloadSerializer(workload).data)

    @extend_schema(responses={204: None})
    def delete(self, request, evaluation_pk: int, workload_pk: int):
        workload_delete(workload=self.get_object(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PortfolioDecisionView(EvaluationScopedView):
    """Record the portfolio as the decision (manager): the proposal, or with ``assignment``
    an edited one (a candidate and billing model per workload). The record holds every
    assignment, the totals, the single-vendor comparison and the risks; ``/decision/`` shows
    it and reopens it."""

    roles = {"POST": CAN_DECIDE}
    pagination_class = None
    serializer_class = DecisionStateSerializer
    input_serializers = {"POST": PortfolioDecisionInSerializer}

    @extend_schema(request=PortfolioDecisionInSerializer, responses={201: DecisionStateSerializer})
    def post(self, request, evaluation_pk: int):
        incoming = PortfolioDecisionInSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        portfolio_decision_record(
            evaluation=self.evaluation,
            rationale=incoming.validated_data["rationale"],
            by=request.user,
            assignment=incoming.validated_data.get("assignment"),
        )
        self.evaluation.refresh_from_db()
        return Response(decision_state(self.evaluation), status=status.HTTP_201_CREATED)
