"""The POC plan of an evaluation (GET: members; PUT: procurement) and a candidate's coverage."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from ...models import Candidate, PocCandidateNodes, PocPlan
from ...permissions import CAN_EDIT, CAN_VIEW
from ...services.poc import candidate_coverage, poc_plan_save
from ..serializers.base import StrictSerializer
from .base import EvaluationScopedView, not_found


class PocPlanInSerializer(StrictSerializer):
    deadline = serializers.DateTimeField()
    all_nodes_max = serializers.IntegerField(min_value=2, max_value=4096, default=2)
    sample_size = serializers.IntegerField(min_value=1, max_value=1024, default=4)
    shared_fs_path = serializers.CharField(
        max_length=200, required=False, allow_blank=True, default=""
    )
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**62)
    # {"<candidate id>": ["node-a", "node-b", ...]}: candidates left out keep their names.
    node_names = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField(max_length=200), max_length=10_000),
        required=False,
        default=dict,
    )

    def validate_node_names(self, value):
        try:
            return {int(key): names for key, names in value.items()}
        except (TypeError, ValueError):
            raise serializers.ValidationError("Keys must be candidate ids.") from None


class PocCandidateOutSerializer(serializers.Serializer):
    candidate = serializers.IntegerField()
    node_names = serializers.ListField(child=serializers.CharField())
    sampled_nodes = serializers.ListField(child=serializers.CharField())


class PocPlanOutSerializer(serializers.Serializer):
    evaluation = serializers.IntegerField()
    exists = serializers.BooleanField()
    deadline = serializers.DateTimeField(allow_null=True)
    all_nodes_max = serializers.IntegerField(allow_null=True)
    sample_size = serializers.IntegerField(allow_null=True)
    seed = serializers.IntegerField(allow_null=True)
    shared_fs_path = serializers.CharField(allow_blank=True)
    updated_at = serializers.DateTimeField(allow_null=True)
    candidates = PocCandidateOutSerializer(many=True)


class PocCoverageSerializer(serializers.Serializer):
    candidate = serializers.IntegerField()
    plan = serializers.BooleanField()
    required = serializers.IntegerField()
    covered = serializers.IntegerField()
    pending = serializers.IntegerField()
    failed = serializers.IntegerField()
    deadline_passed = serializers.BooleanField()
    complete = serializers.BooleanField()
    runs = serializers.ListField(child=serializers.DictField())
    fleet = serializers.DictField()


def _plan_out(plan: PocPlan) -> dict:
    rows = PocCandidateNodes.objects.filter(plan=plan).order_by("candidate_id")
    return {
        "evaluation": plan.evaluation_id,
        "exists": True,
        "deadline": plan.deadline,
        "all_nodes_max": plan.all_nodes_max,
        "sample_size": plan.sample_size,
        "seed": plan.seed,
        "shared_fs_path": plan.shared_fs_path,
        "updated_at": plan.updated_at,
        "candidates": [
            {
                "candidate": r.candidate_id,
                "node_names": r.node_names,
                "sampled_nodes": r.sampled_nodes,
            }
            for r in rows
        ],
    }


class PocPlanView(EvaluationScopedView):
    """The evaluation's POC plan: deadline, fleet sample (seed, size, per-candidate sampled
    nodes) and the span of the multi-node runs. PUT (procurement) creates or changes it; 409
    when the evaluation is decided. Before a plan exists GET answers ``exists: false``."""

    roles = {"GET": CAN_VIEW, "PUT": CAN_EDIT}
    pagination_class = None
    serializer_class = PocPlanOutSerializer

    def get_object(self):
        return self.evaluation

    @extend_schema(responses=PocPlanOutSerializer)
    def get(self, request, evaluation_pk: int):
        plan = PocPlan.objects.filter(evaluation=self.evaluation).first()
        if plan is None:
            empty = dict.fromkeys(
                ("deadline", "all_nodes_max", "sample_size", "seed", "updated_at")
            )
            out = {
                "evaluation": self.evaluation.pk,
                "exists": False,
                "shared_fs_path": "",
                "candidates": [],
                **empty,
            }
            return Response(PocPlanOutSerializer(out).data)
        return Response(PocPlanOutSerializer(_plan_out(plan)).data)

    @extend_schema(request=PocPlanInSerializer, responses=PocPlanOutSerializer)
    def put(self, request, evaluation_pk: int):
        incoming = PocPlanInSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        plan = poc_plan_save(evaluation=self.evaluation, by=request.user, **incoming.validated_data)
        return Response(PocPlanOutSerializer(_plan_out(plan)).data)


class PocCoverageView(EvaluationScopedView):
    """One candidate's required POC runs, each covered / pending / failed with the uploads and
    nodes that satisfied it; after the deadline a missing run is failed. Without a plan:
    ``plan: false`` and nothing complete."""

    roles = {"GET": CAN_VIEW}
    pagination_class = None
    serializer_class = PocCoverageSerializer

    @extend_schema(responses=PocCoverageSerializer)
    def get(self, request, evaluation_pk: int, candidate_pk: int):
        candidate = (
            Candidate.objects.select_related("offering", "evaluation")
            .filter(evaluation=self.evaluation, pk=candidate_pk)
            .first()
        )
        if candidate is None:
            raise not_found()
        coverage = candidate_coverage(candidate)
        if coverage is None:
            # No plan yet: nothing is required, and nothing is complete either.
            empty = {"required": 0, "covered": 0, "pending": 0, "failed": 0}
            out = {"candidate": candidate.pk, "plan": False, **empty, "deadline_passed": False}
            out.update(complete=False, runs=[], fleet={})
            return Response(PocCoverageSerializer(out).data)
        return Response(
            PocCoverageSerializer(
                {"candidate": candidate.pk, "plan": True, **coverage.as_dict()}
            ).data
        )
