"""Computed results and the record: the live ranking, its robustness, the decision, the audit trail.

None of these offers PUT, PATCH or DELETE: a recorded decision and the audit rows are final.
"""

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, mixins, status
from rest_framework.response import Response

from ... import audit, selectors
from ...models import DecisionRecord
from ...permissions import CAN_DECIDE, CAN_VIEW
from ...services.evaluations import decision_record, evaluation_reopen
from ..ranking import evaluation_ranking_data, evaluation_robustness_data
from ..serializers.evaluations import (
    DecisionInSerializer,
    DecisionRecordSerializer,
    DecisionStateSerializer,
    ReopenInSerializer,
)
from ..serializers.results import (
    AuditEntrySerializer,
    RankingSerializer,
    RobustnessQuerySerializer,
    RobustnessSerializer,
)
from .base import EvaluationScopedView


class RankingView(EvaluationScopedView):
    """The ranking computed now from the stored facts: weighted totals, dimension scores,
    knockouts and a TCO summary per candidate, qualified candidates first."""

    pagination_class = None
    serializer_class = RankingSerializer

    @extend_schema(responses=RankingSerializer)
    def get(self, request, evaluation_pk: int):
        return Response(evaluation_ranking_data(self.evaluation))


class RobustnessView(EvaluationScopedView):
    """How robust the ranking is to the weights: the weight change of each dimension that would
    swap the leader with each other candidate, and the share of seeded random weight draws
    (each weight ±perturbation_pct %) in which each candidate leads."""

    pagination_class = None
    serializer_class = RobustnessSerializer

    @extend_schema(parameters=[RobustnessQuerySerializer], responses=RobustnessSerializer)
    def get(self, request, evaluation_pk: int):
        query = RobustnessQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        return Response(evaluation_robustness_data(self.evaluation, **query.validated_data))


def decision_state(evaluation) -> dict:
    records = list(
        DecisionRecord.objects.select_related(
            "candidate__offering__vendor", "decided_by", "reopening__reopened_by"
        )
        .filter(evaluation=evaluation)
        .order_by("-round")
    )
    current = records[0] if records and evaluation.status == "decided" else None
    earlier = [r for r in records if r is not current]
    # Each record's evidence lines as the Decision page links them (two queries for all).
    context = {
        "evidence_sources": dict(
            zip(
                (r.pk for r in records),
                selectors.decision_evidence(records, evaluation),
                strict=True,
            )
        )
    }
    return {
        "evaluation": evaluation.pk,
        "status": evaluation.status,
        "decision": DecisionRecordSerializer(current, context=context).data
        if current is not None
        else None,
        "earlier_decisions": DecisionRecordSerializer(earlier, many=True, context=context).data,
    }


class DecisionView(EvaluationScopedView):
    """The evaluation's decision (``decision`` is null until one is recorded). POST (manager)
    records it once, with a snapshot of scores, weights and evidence; it can never be changed."""

    roles = {"GET": CAN_VIEW, "POST": CAN_DECIDE}
    pagination_class = None
    serializer_class = DecisionStateSerializer
    input_serializers = {"POST": DecisionInSerializer}

    @extend_schema(responses=DecisionStateSerializer)
    def get(self, request, evaluation_pk: int):
        return Response(decision_state(self.evaluation))

    @extend_schema(request=DecisionInSerializer, responses={201: DecisionStateSerializer})
    def post(self, request, evaluation_pk: int):
        incoming = DecisionInSerializer(data=request.data, context=self.get_serializer_context())
        incoming.is_valid(raise_exception=True)
        data = dict(incoming.validated_data)
        decision_record(
            evaluation=self.evaluation,
            by=request.user,
            expected_version=data.pop("ranking_version", None),
            **data,
        )
        self.evaluation.refresh_from_db()
        return Response(decision_state(self.evaluation), status=status.HTTP_201_CREATED)


class DecisionReopenView(EvaluationScopedView):
    """Reopen a decided evaluation (manager) with a reason: a new decision round starts; the
    earlier decision stays readable under ``earlier_decisions`` and the reopening is audited."""

    roles = {"POST": CAN_DECIDE}
    pagination_class = None
    serializer_class = DecisionStateSerializer
    input_serializers = {"POST": ReopenInSerializer}

    @extend_schema(request=ReopenInSerializer, responses=DecisionStateSerializer)
    def post(self, request, evaluation_pk: int):
        incoming = ReopenInSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        evaluation_reopen(
            evaluation=self.evaluation, reason=incoming.validated_data["reason"], by=request.user
        )
        self.evaluation.refresh_from_db()
        return Response(decision_state(self.evaluation))


class HistoryView(mixins.ListModelMixin, EvaluationScopedView):
    """The audit trail: who changed which answer, candidate, weight, price, offering, token or
    decision, when, and the values before and after; newest first (filter: kind)."""

    serializer_class = AuditEntrySerializer

    @extend_schema(
        responses=AuditEntrySerializer(many=True),
        parameters=[
            OpenApiParameter(
                "kind",
                str,
                enum=list(audit.KINDS),
                description="Only entries of this kind.",
            )
        ],
    )
    def get(self, request, evaluation_pk: int):
        return self.list(request)

    def get_queryset(self):
        if self.fake:
            return DecisionRecord.objects.none()  # only its model is read, for the schema
        kind = self.request.query_params.get("kind")
        if kind is not None and kind not in audit.KINDS:
            raise exceptions.ValidationError(
                {"kind": [_("Choose one of: %(kinds)s.") % {"kinds": ", ".join(audit.KINDS)}]}
            )
        entries = audit.evaluation_history(self.evaluation, kinds=[kind] if kind else None)
        return [entry.as_dict() for entry in entries]
