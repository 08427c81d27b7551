"""Upload tokens, uploads (their import status), measurements and stored scores."""

from datetime import timedelta

from django.urls import reverse
from rest_framework import serializers

from ... import evidence_messages
from ...models import Candidate, EvidenceUpload, Measurement, Score, UploadToken
from ...services.tokens import MAX_TOKEN_LIFETIME
from .base import StrictSerializer
from .fields import UploadStatusField


class UploadTokenSerializer(serializers.ModelSerializer):
    """A token as listed: never the secret, only its first characters."""

    candidate_label = serializers.CharField(source="candidate.__str__", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)
    usable = serializers.BooleanField(source="is_usable", read_only=True)

    class Meta:
        model = UploadToken
        fields = (
            "id",
            "candidate",
            "candidate_label",
            "node_name",
            "label",
            "token_prefix",
            "usable",
            "created_by",
            "created_at",
            "expires_at",
            "revoked_at",
            "last_used_at",
        )
        read_only_fields = fields


class UploadTokenCreatedSerializer(UploadTokenSerializer):
    """The answer to creating a token: the only time the raw token is shown."""

    token = serializers.CharField(read_only=True, help_text="Shown once; store it now.")
    nonce = serializers.CharField(read_only=True)

    class Meta(UploadTokenSerializer.Meta):
        fields = (*UploadTokenSerializer.Meta.fields, "token", "nonce")
        read_only_fields = fields


class UploadTokenInSerializer(StrictSerializer):
    candidate = serializers.PrimaryKeyRelatedField(queryset=Candidate.objects.none())
    node_name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    label = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    expires_in_days = serializers.IntegerField(
        min_value=1, max_value=MAX_TOKEN_LIFETIME.days, required=False, default=7
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        evaluation = self.context.get("evaluation")
        if evaluation is not None:
            # Only this evaluation's candidates: another evaluation's id is "does not exist".
            self.fields["candidate"].queryset = Candidate.objects.filter(evaluation=evaluation)

    def validate(self, attrs):
        attrs["expires_in"] = timedelta(days=attrs.pop("expires_in_days"))
        return attrs


class UploadSerializer(serializers.ModelSerializer):
    status = UploadStatusField(read_only=True)
    status_url = serializers.SerializerMethodField()
    measurement_count = serializers.SerializerMethodField()
    error_display = serializers.SerializerMethodField(
        help_text="The error in the request's language; `error` stays the English text."
    )

    class Meta:
        model = EvidenceUpload
        fields = (
            "id",
            "candidate",
            "status",
            "status_url",
            "original_name",
            "sha256",
            "size_bytes",
            "node_name",
            "error",
            "error_code",
            "error_params",
            "error_display",
            "parser_version",
            "report",
            "attempts",
            "measurement_count",
            "origin",
            "measured_at",
            "fingerprint",
            "created_at",
            "started_at",
            "finished_at",
        )
        read_only_fields = fields

    def get_status_url(self, obj) -> str:
        path = reverse("api-evidence-detail", args=[obj.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request is not None else path

    def get_error_display(self, obj) -> str:
        return evidence_messages.upload_error(
            code=obj.error_code, params=obj.error_params, text=obj.error
        )

    def get_measurement_count(self, obj) -> int | None:
        return getattr(obj, "measurement_count", None)


class UploadSummarySerializer(UploadSerializer):
    """An upload in a list: everything but the per-file report (read one upload for it)."""

    class Meta(UploadSerializer.Meta):
        fields = tuple(f for f in UploadSerializer.Meta.fields if f != "report")
        read_only_fields = fields


class MeasurementSerializer(serializers.ModelSerializer):
    class Meta:
        model = Measurement
        fields = (
            "id",
            "candidate",
            "upload",
            "kind",
            "metric",
            "value",
            "unit",
            "node_name",
            "source_file",
            "line",
            "details",
        )
        read_only_fields = fields


class ScoreSerializer(serializers.ModelSerializer):
    class Meta:
        model = Score
        fields = (
            "id",
            "candidate",
            "dimension",
            "value",
            "contributions",
            "rubric_version",
            "computed_at",
        )
        read_only_fields = fields


class DeleteReasonSerializer(StrictSerializer):
    reason = serializers.CharField(max_length=20_000)
