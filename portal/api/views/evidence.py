"""Upload tokens (issue, list, revoke), uploads and their import status, measurements, scores.

Uploading itself is ``/api/v1/evidence/`` (portal.api.evidence), the one place upload tokens
are accepted; everything here takes a member's session or personal API token.
"""

from django.db.models import Count, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.response import Response

from ...models import EvidenceUpload, Measurement, Score, UploadToken
from ...permissions import CAN_EDIT, CAN_UPLOAD, CAN_VIEW
from ...services.evidence import evidence_upload_delete
from ...services.tokens import upload_token_create, upload_token_revoke
from ..filters import MeasurementFilter, ScoreFilter, UploadFilter, UploadTokenFilter
from ..pagination import KeysetPagination, NewestFirstPagination
from ..serializers.evidence import (
    DeleteReasonSerializer,
    MeasurementSerializer,
    ScoreSerializer,
    UploadSerializer,
    UploadSummarySerializer,
    UploadTokenCreatedSerializer,
    UploadTokenInSerializer,
    UploadTokenSerializer,
)
from .base import EvaluationScopedView


class ListView(mixins.ListModelMixin, EvaluationScopedView):
    """A filtered, paginated list of the evaluation's rows."""

    def get(self, request, evaluation_pk: int):
        return self.list(request)


class UploadTokenViewMixin:
    serializer_class = UploadTokenSerializer

    def get_queryset(self):
        if self.fake:
            return UploadToken.objects.none()
        return (
            UploadToken.objects.filter(evaluation=self.evaluation)
            .select_related("candidate__offering__vendor", "created_by")
            .order_by("-pk")
        )

    def get_token(self) -> UploadToken:
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["token_pk"])


def _revoke(token: UploadToken, by) -> UploadToken:
    return upload_token_revoke(token=token, by=by)


class UploadTokenList(UploadTokenViewMixin, ListView):
    """Upload tokens of the evaluation (engineers and procurement; filter: candidate, revoked).

    POST (procurement) issues a token for one candidate of this evaluation; the answer holds the
    raw token, shown this once only.
    """

    roles = {"GET": CAN_UPLOAD, "POST": CAN_EDIT}
    input_serializers = {"POST": UploadTokenInSerializer}
    filterset_class = UploadTokenFilter
    pagination_class = NewestFirstPagination

    @extend_schema(request=UploadTokenInSerializer, responses={201: UploadTokenCreatedSerializer})
    def post(self, request, evaluation_pk: int):
        incoming = UploadTokenInSerializer(data=request.data, context=self.get_serializer_context())
        incoming.is_valid(raise_exception=True)
        token, raw = upload_token_create(created_by=request.user, **incoming.validated_data)
        token.token = raw
        out = UploadTokenCreatedSerializer(token, context=self.get_serializer_context())
        return Response(out.data, status=status.HTTP_201_CREATED)


class UploadTokenDetail(UploadTokenViewMixin, EvaluationScopedView):
    """One upload token (never its secret). DELETE revokes it at once (procurement); the row
    stays for the audit trail."""

    roles = {"GET": CAN_UPLOAD, "DELETE": CAN_EDIT}

    def get(self, request, evaluation_pk: int, token_pk: int):
        return Response(self.get_serializer(self.get_token()).data)

    @extend_schema(responses={204: None})
    def delete(self, request, evaluation_pk: int, token_pk: int):
        _revoke(self.get_token(), request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UploadTokenRevoke(UploadTokenViewMixin, EvaluationScopedView):
    """Revoke an upload token at once (procurement); revoking twice keeps the first time."""

    roles = {"POST": CAN_EDIT}

    @extend_schema(request=None, responses=UploadTokenSerializer)
    def post(self, request, evaluation_pk: int, token_pk: int):
        token = _revoke(self.get_token(), request.user)
        return Response(self.output(token).data)


def _measurement_count():
    """Measurements of the upload, counted per row of the page (a correlated subquery on the
    upload index), never grouped over the whole evaluation."""
    counted = (
        Measurement.objects.filter(upload=OuterRef("pk"))
        .order_by()
        .values("upload")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counted, output_field=IntegerField()), 0)


class UploadViewMixin:
    serializer_class = UploadSerializer

    def get_queryset(self):
        if self.fake:
            return EvidenceUpload.objects.none()
        return (
            EvidenceUpload.objects.filter(evaluation=self.evaluation)
            .annotate(measurement_count=_measurement_count())
            .order_by("-pk")
        )


class UploadList(UploadViewMixin, ListView):
    """Evidence uploads of the evaluation and their import status (filter: candidate, status,
    node_name), newest first, a cursor page at a time."""

    filterset_class = UploadFilter
    pagination_class = NewestFirstPagination
    serializer_class = UploadSummarySerializer

    def get_queryset(self):
        return super().get_queryset().defer("report")


class UploadDetail(UploadViewMixin, EvaluationScopedView):
    """One upload: its import status, error and per-file report. DELETE (procurement) with
    ``{"reason": …}`` deletes it and its measurements through the audited service (a record
    of what it was stays in the history); refused (409) once the evaluation is decided."""

    roles = {"GET": CAN_VIEW, "DELETE": CAN_EDIT}

    def get(self, request, evaluation_pk: int, upload_pk: int):
        upload = get_object_or_404(self.get_queryset(), pk=upload_pk)
        return Response(self.get_serializer(upload).data)

    @extend_schema(request=DeleteReasonSerializer, responses={204: None})
    def delete(self, request, evaluation_pk: int, upload_pk: int):
        upload = get_object_or_404(self.get_queryset(), pk=upload_pk)
        incoming = DeleteReasonSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        evidence_upload_delete(
            upload=upload, reason=incoming.validated_data["reason"], by=request.user
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeasurementList(ListView):
    """Facts parsed from the evidence (filter: candidate, upload, kind, metric, node_name), in
    the order they were stored, a cursor page at a time."""

    serializer_class = MeasurementSerializer
    filterset_class = MeasurementFilter
    pagination_class = KeysetPagination

    def get_queryset(self):
        if self.fake:
            return Measurement.objects.none()
        return Measurement.objects.filter(evaluation=self.evaluation).order_by("pk")


class ScoreList(ListView):
    """Stored dimension scores with the contributions that explain them (filter: candidate,
    dimension), a cursor page at a time. The live ranking is /ranking/."""

    serializer_class = ScoreSerializer
    filterset_class = ScoreFilter
    pagination_class = KeysetPagination

    def get_queryset(self):
        if self.fake:
            return Score.objects.none()
        return Score.objects.filter(candidate__evaluation=self.evaluation).order_by("pk")


__all__ = [
    "MeasurementList",
    "ScoreList",
    "UploadDetail",
    "UploadList",
    "UploadTokenDetail",
    "UploadTokenList",
    "UploadTokenRevoke",
]
