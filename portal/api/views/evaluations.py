"""Evaluations, their members, candidates, answers and weights.

Every view under /evaluations/<evaluation_pk>/ checks membership first (404 for others) and
then the role for the method (403); reads go through selectors, writes through services.
"""

from django.db import IntegrityError
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, mixins, status
from rest_framework.response import Response

from scoring.weights import ahp, normalise_weights

from ... import selectors
from ...models import (
    Answer,
    Candidate,
    ChecklistItem,
    Evaluation,
    Membership,
)
from ...permissions import CAN_EDIT, CAN_VIEW, CAN_WEIGH
from ...services.catalogue import (
    candidate_offering_adopt,
    candidate_offering_keep,
    catalogue_changes,
)
from ...services.errors import ensure_not_decided
from ...services.evaluations import (
    answer_save,
    candidate_add,
    candidate_remove,
    candidate_update,
    evaluation_create,
    evaluation_update,
    evaluation_weights_from_ahp,
    evaluation_weights_set,
    member_add,
    member_remove,
    member_role_set,
    weights_version,
)
from ...services.fingerprints import (
    candidate_fingerprint,
    candidate_identifiers,
    hardware_reuse,
    node_name_reuse,
)
from ...services.scores import usable_uploads
from ..filters import CandidateFilter, EvaluationFilter
from ..permissions import EvaluationCreatorOrReadOnly
from ..serializers.evaluations import (
    AhpSerializer,
    AnswerInSerializer,
    AnswerSerializer,
    CandidateInSerializer,
    CandidateSerializer,
    CandidateUpdateSerializer,
    CatalogueActionSerializer,
    CatalogueStateSerializer,
    EvaluationInSerializer,
    EvaluationSerializer,
    IntegritySerializer,
    MemberInSerializer,
    MemberRoleSerializer,
    MemberSerializer,
    WeightsOutSerializer,
    WeightsSerializer,
)
from .base import ApiView, EvaluationScopedView


class EvaluationList(mixins.ListModelMixin, ApiView):
    """The evaluations the user is a member of (filter: status, workload_profile).

    POST creates one (procurement members of any evaluation, or staff) with the workload's
    preset weights; its creator becomes its procurement member.
    """

    permission_classes = [EvaluationCreatorOrReadOnly]
    serializer_class = EvaluationSerializer
    input_serializers = {"POST": EvaluationInSerializer}
    filterset_class = EvaluationFilter

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Evaluation.objects.none()
        return selectors.evaluation_list(user=self.request.user)

    def get(self, request):
        return self.list(request)

    @extend_schema(request=EvaluationInSerializer, responses={201: EvaluationSerializer})
    def post(self, request):
        incoming = EvaluationInSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        fields = dict(incoming.validated_data)
        fields.pop("version", None)  # a new evaluation has no earlier version to compare
        evaluation = evaluation_create(fields=fields, by=request.user)
        membership = Membership.objects.get(evaluation=evaluation, user=request.user)
        out = EvaluationSerializer(evaluation, context={"membership": membership})
        return Response(out.data, status=status.HTTP_201_CREATED)


class EvaluationDetail(EvaluationScopedView):
    """One evaluation: requirements, status, weights, the user's role. PATCH: procurement."""

    roles = {"GET": CAN_VIEW, "PATCH": CAN_EDIT}
    serializer_class = EvaluationSerializer
    input_serializers = {"PATCH": EvaluationInSerializer}

    def get(self, request, evaluation_pk: int):
        return Response(self.get_serializer(self.evaluation).data)

    @extend_schema(request=EvaluationInSerializer, responses=EvaluationSerializer)
    def patch(self, request, evaluation_pk: int):
        incoming = EvaluationInSerializer(self.evaluation, data=request.data, partial=True)
        incoming.is_valid(raise_exception=True)
        changes = dict(incoming.validated_data)
        expected_version = changes.pop("version", None)
        evaluation = self.evaluation
        for name, value in changes.items():
            setattr(evaluation, name, value)
        # Only what was sent is written: a PATCH never writes back the rest as it read it.
        evaluation = evaluation_update(
            evaluation=evaluation,
            by=request.user,
            fields=list(changes),
            expected_version=expected_version,
        )
        return Response(self.output(evaluation).data)


class MemberList(mixins.ListModelMixin, EvaluationScopedView):
    """Members and their roles. POST (procurement) adds a user by username with a role."""

    roles = {"GET": CAN_VIEW, "POST": CAN_EDIT}
    serializer_class = MemberSerializer
    input_serializers = {"POST": MemberInSerializer}

    def get_queryset(self):
        if self.fake:
            return Membership.objects.none()
        return (
            Membership.objects.filter(evaluation=self.evaluation)
            .select_related("user")
            .order_by("role", "user__username")
        )

    def get(self, request, evaluation_pk: int):
        return self.list(request)

    @extend_schema(request=MemberInSerializer, responses={201: MemberSerializer})
    def post(self, request, evaluation_pk: int):
        incoming = MemberInSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        membership = member_add(
            evaluation=self.evaluation,
            user=incoming.validated_data["user"],
            role=incoming.validated_data["role"],
            by=request.user,
        )
        return Response(self.output(membership).data, status=status.HTTP_201_CREATED)


class MemberDetail(EvaluationScopedView):
    """One membership. PATCH changes the role, DELETE removes it (procurement); the last
    procurement member cannot be removed or demoted."""

    roles = {"GET": CAN_VIEW, "PATCH": CAN_EDIT, "DELETE": CAN_EDIT}
    serializer_class = MemberSerializer
    input_serializers = {"PATCH": MemberRoleSerializer}

    def get_object(self) -> Membership:
        return get_object_or_404(
            Membership.objects.select_related("user"),
            pk=self.kwargs["member_pk"],
            evaluation=self.evaluation,
        )

    def get(self, request, evaluation_pk: int, member_pk: int):
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(request=MemberRoleSerializer, responses=MemberSerializer)
    def patch(self, request, evaluation_pk: int, member_pk: int):
        incoming = MemberRoleSerializer(data=request.data, partial=True)
        incoming.is_valid(raise_exception=True)
        role = incoming.validated_data.get("role")
        membership = self.get_object()
        if role is not None:
            membership = member_role_set(membership=membership, role=role, by=request.user)
        return Response(self.output(membership).data)

    @extend_schema(responses={204: None})
    def delete(self, request, evaluation_pk: int, member_pk: int):
        member_remove(membership=self.get_object(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CandidateViewMixin:
    serializer_class = CandidateSerializer

    def get_queryset(self):
        if self.fake:
            return Candidate.objects.none()
        return selectors.candidate_list(
            user=self.request.user, evaluation=self.evaluation
        ).order_by("offering__vendor__name", "offering__name", "pk")

    def get_candidate(self) -> Candidate:
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["candidate_pk"])


class CandidateList(CandidateViewMixin, mixins.ListModelMixin, EvaluationScopedView):
    """The candidates (offerings in this evaluation) with their scores; filter: offering,
    vendor. POST (procurement) adds an offering with its node count and quoted price."""

    roles = {"GET": CAN_VIEW, "POST": CAN_EDIT}
    input_serializers = {"POST": CandidateInSerializer}
    filterset_class = CandidateFilter

    def get(self, request, evaluation_pk: int):
        return self.list(request)

    @extend_schema(request=CandidateInSerializer, responses={201: CandidateSerializer})
    def post(self, request, evaluation_pk: int):
        incoming = CandidateInSerializer(data=request.data, context=self.get_serializer_context())
        incoming.is_valid(raise_exception=True)
        try:
            candidate = candidate_add(
                evaluation=self.evaluation, by=request.user, **incoming.validated_data
            )
        except IntegrityError:
            raise exceptions.ValidationError(
                {"offering": [_("This offering is already a candidate in this evaluation.")]}
            ) from None
        out = self.get_queryset().get(pk=candidate.pk)
        return Response(self.output(out).data, status=status.HTTP_201_CREATED)


class CandidateDetail(CandidateViewMixin, EvaluationScopedView):
    """One candidate. PATCH (procurement): node count, quote, notes; DELETE removes it."""

    roles = {"GET": CAN_VIEW, "PATCH": CAN_EDIT, "DELETE": CAN_EDIT}
    input_serializers = {"PATCH": CandidateUpdateSerializer}

    def get(self, request, evaluation_pk: int, candidate_pk: int):
        return Response(self.get_serializer(self.get_candidate()).data)

    @extend_schema(request=CandidateUpdateSerializer, responses=CandidateSerializer)
    def patch(self, request, evaluation_pk: int, candidate_pk: int):
        candidate = self.get_candidate()
        incoming = CandidateUpdateSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        for name, value in incoming.validated_data.items():
            setattr(candidate, name, value)
        candidate_update(candidate=candidate, by=request.user)
        return Response(self.output(self.get_candidate()).data)

    @extend_schema(responses={204: None})
    def delete(self, request, evaluation_pk: int, candidate_pk: int):
        candidate_remove(candidate=self.get_candidate(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CandidateCatalogueView(CandidateViewMixin, EvaluationScopedView):
    """The version of its offering the candidate is scored on, and how the catalogue differs
    from it today. POST (procurement) ``{"action": "adopt"}`` pins the catalogue as it is now
    and rescores; ``{"action": "keep"}`` keeps the pinned version (both audited)."""

    roles = {"GET": CAN_VIEW, "POST": CAN_EDIT}
    pagination_class = None
    serializer_class = CatalogueStateSerializer
    input_serializers = {"POST": CatalogueActionSerializer}

    def _state(self, candidate) -> dict:
        version = candidate.offering_version
        return {
            "candidate": candidate.pk,
            "offering": candidate.offering_id,
            "version": version.number if version else None,
            "version_created_at": version.created_at if version else None,
            "changes": catalogue_changes(candidate),
        }

    @extend_schema(responses=CatalogueStateSerializer)
    def get(self, request, evaluation_pk: int, candidate_pk: int):
        return Response(CatalogueStateSerializer(self._state(self.get_candidate())).data)

    @extend_schema(request=CatalogueActionSerializer, responses=CatalogueStateSerializer)
    def post(self, request, evaluation_pk: int, candidate_pk: int):
        candidate = self.get_candidate()
        incoming = CatalogueActionSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        if incoming.validated_data["action"] == "adopt":
            candidate_offering_adopt(candidate=candidate, by=request.user)
        else:
            candidate_offering_keep(candidate=candidate, by=request.user)
        candidate = Candidate.objects.select_related("offering_version").get(pk=candidate.pk)
        return Response(CatalogueStateSerializer(self._state(candidate)).data)


class CandidateIntegrityView(CandidateViewMixin, EvaluationScopedView):
    """Where the candidate's evidence comes from: its node fingerprint (GPU UUIDs and serials,
    board and system serials, HCA GUIDs, MACs, nccl-tests hosts and runs), the same hardware
    or the same output (identical upload bytes) under other candidates (naming them), and
    which uploads are used (imported, of a checked origin, fresh enough)."""

    roles = {"GET": CAN_VIEW}
    pagination_class = None

    @extend_schema(responses=IntegritySerializer)
    def get(self, request, evaluation_pk: int, candidate_pk: int):
        candidate = self.get_candidate()
        used = usable_uploads(candidate)
        uploads = candidate.uploads.select_related("uploaded_by").order_by("pk")
        identifiers = candidate_identifiers(candidate)
        return Response(
            {
                "candidate": candidate.pk,
                "fingerprint": {
                    f["kind"]: f["values"] for f in candidate_fingerprint(candidate, identifiers)
                },
                "hardware_reuse": hardware_reuse(candidate, identifiers, viewer=request.user),
                "node_name_reuse": node_name_reuse(candidate),
                "used_uploads": [u.pk for u in used],
                "uploads": [
                    {
                        "id": u.pk,
                        "origin": u.origin,
                        "uploaded_by": u.uploaded_by.get_username() if u.uploaded_by else None,
                        "measured_at": u.measured_at,
                        "stale": u.is_stale,
                        "status": u.status,
                    }
                    for u in uploads
                ],
            }
        )


class AnswerViewMixin:
    serializer_class = AnswerSerializer

    def get_candidate(self) -> Candidate:
        return get_object_or_404(
            Candidate.objects.select_related("evaluation"),
            pk=self.kwargs["candidate_pk"],
            evaluation=self.evaluation,
        )

    def get_queryset(self):
        if self.fake:
            return Answer.objects.none()
        return (
            Answer.objects.filter(candidate=self.get_candidate())
            .select_related("item", "updated_by")
            .order_by("item__number")
        )


class AnswerList(AnswerViewMixin, mixins.ListModelMixin, EvaluationScopedView):
    """A candidate's questionnaire answers, item by item (the checklist lists all items)."""

    def get(self, request, evaluation_pk: int, candidate_pk: int):
        return self.list(request)


class AnswerDetail(AnswerViewMixin, EvaluationScopedView):
    """One answer, addressed by checklist item number (1-10) or key (``nvlink_topology``).

    PUT (procurement) saves the claim, typed value and notes; the candidate is re-verified
    against its evidence and rescored.
    """

    roles = {"GET": CAN_VIEW, "PUT": CAN_EDIT}
    input_serializers = {"PUT": AnswerInSerializer}

    def get_item(self) -> ChecklistItem:
        item = self.kwargs["item"]
        lookup = {"number": int(item)} if item.isdigit() and len(item) < 6 else {"key": item}
        found = ChecklistItem.objects.filter(**lookup).first()
        if found is None:
            raise exceptions.NotFound(_("No checklist item %(item)s.") % {"item": item})
        return found

    def get_object(self) -> Answer:
        answer = self.get_queryset().filter(item=self.get_item()).first()
        if answer is None:
            raise exceptions.NotFound(_("This item has not been answered yet."))
        return answer

    def get(self, request, evaluation_pk: int, candidate_pk: int, item: str):
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(request=AnswerInSerializer, responses=AnswerSerializer)
    def put(self, request, evaluation_pk: int, candidate_pk: int, item: str):
        candidate = self.get_candidate()
        checklist_item = self.get_item()
        incoming = AnswerInSerializer(data=request.data, context={"item": checklist_item})
        incoming.is_valid(raise_exception=True)
        data = dict(incoming.validated_data)
        answer_save(
            candidate=candidate,
            item=checklist_item,
            by=request.user,
            expected_version=data.pop("version", None),
            **data,
        )
        answer = self.get_queryset().get(item=checklist_item)
        return Response(self.output(answer).data)


def _weights_out(evaluation: Evaluation, consistency_ratio: float | None = None) -> dict:
    normalised = normalise_weights(evaluation.weights)
    out = {
        "weights": {k: str(v) for k, v in evaluation.weights.items()},
        "normalised_pct": {k: round(v * 100, 3) for k, v in normalised.items()},
        "version": weights_version(evaluation),
    }
    if consistency_ratio is not None:
        out["consistency_ratio"] = round(consistency_ratio, 4)
    return out


class WeightsView(EvaluationScopedView):
    """The six dimension weights, in percent. PUT sets them directly: each from 0 to 100, the
    six summing to 100 within ±0.05 (weights summing to anything else, fractions of 1 among
    them, are a 400 naming their sum; nothing is stored). POST derives them from an AHP
    pairwise comparison matrix (400 naming the most inconsistent comparison when the
    consistency ratio is above 0.10). Both: procurement and the manager, as on the weights
    page; a decided evaluation answers 409 whatever is sent."""

    roles = {"GET": CAN_VIEW, "PUT": CAN_WEIGH, "POST": CAN_WEIGH}
    pagination_class = None
    serializer_class = WeightsOutSerializer
    input_serializers = {"PUT": WeightsSerializer, "POST": AhpSerializer}

    def get_object(self) -> Evaluation:
        return self.evaluation

    @extend_schema(responses=WeightsOutSerializer)
    def get(self, request, evaluation_pk: int):
        return Response(_weights_out(self.evaluation))

    @extend_schema(request=WeightsSerializer, responses=WeightsOutSerializer)
    def put(self, request, evaluation_pk: int):
        # Decided first: nothing sent could be saved, so the answer is the 409 whatever the
        # body (the service checks again under the row's lock).
        ensure_not_decided(self.evaluation)
        incoming = WeightsSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        weights = dict(incoming.validated_data)
        expected_version = weights.pop("version", None)
        evaluation = evaluation_weights_set(
            evaluation=self.evaluation,
            weights=weights,
            by=request.user,
            expected_version=expected_version,
        )
        return Response(_weights_out(evaluation))

    @extend_schema(request=AhpSerializer, responses=WeightsOutSerializer)
    def post(self, request, evaluation_pk: int):
        ensure_not_decided(self.evaluation)
        incoming = AhpSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        matrix = incoming.validated_data["matrix"]
        evaluation = evaluation_weights_from_ahp(
            evaluation=self.evaluation,
            matrix=matrix,
            by=request.user,
            expected_version=incoming.validated_data.get("version"),
        )
        return Response(_weights_out(evaluation, ahp(matrix).consistency_ratio))


__all__ = [
    "AnswerDetail",
    "AnswerList",
    "CandidateCatalogueView",
    "CandidateDetail",
    "CandidateIntegrityView",
    "CandidateList",
    "EvaluationDetail",
    "EvaluationList",
    "MemberDetail",
    "MemberList",
    "WeightsView",
]
