"""Evidence endpoints: upload (bearer upload token or a member's session), status and nonce."""

import copy

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers, status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import evidence_messages, selectors
from ..metric_labels import kind_label, size_with_bytes
from ..models import Candidate, EvidenceUpload, UploadToken
from ..permissions import CAN_UPLOAD, CAN_VIEW
from ..services.errors import EvaluationDecided
from ..services.evidence import (
    DISK_FULL_ERRNOS,
    QuotaExceeded,
    UploadTooLarge,
    evidence_quota_check,
    evidence_submit,
    storage_full_error,
)
from .authentication import UploadTokenAuthentication
from .throttling import UploadTokenRateThrottle
from .uploads import MaxSizeUploadHandler

# Multipart framing around the file: boundaries, headers and the small text fields.
MULTIPART_OVERHEAD_BYTES = 64 * 1024


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"


class InsufficientStorage(exceptions.APIException):
    status_code = status.HTTP_507_INSUFFICIENT_STORAGE
    default_code = "quota_exceeded"


class UploadInSerializer(serializers.Serializer):
    file = serializers.FileField(allow_empty_file=False)
    node_name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    candidate = serializers.IntegerField(required=False, help_text="Session uploads only.")


# Not a declared field of the serializer below: only its formatting is used.
_DATETIME = serializers.DateTimeField()


class UploadOutSerializer(serializers.ModelSerializer):
    status_url = serializers.SerializerMethodField()
    duplicate = serializers.SerializerMethodField()
    error_display = serializers.SerializerMethodField(
        help_text="The error in the request's language; `error` stays the English text."
    )
    kinds_display = serializers.SerializerMethodField(
        help_text="The tools whose outputs were imported, by name (the report has the kinds)."
    )
    unread_display = serializers.SerializerMethodField(
        help_text="The files sent but not read, each with the reason in the request's language "
        "(the report's `error` stays the English text): [{file, error}]."
    )

    class Meta:
        model = EvidenceUpload
        fields = [
            "id",
            "status",
            "status_url",
            "duplicate",
            "original_name",
            "sha256",
            "size_bytes",
            "node_name",
            "error",
            "error_code",
            "error_params",
            "error_display",
            "kinds_display",
            "unread_display",
            "parser_version",
            "report",
            "origin",
            "measured_at",
            "fingerprint",
            "created_at",
            "started_at",
            "finished_at",
        ]

    _built_fields = None
    # The model fields read as they are (strings, numbers and JSON); the datetimes go through
    # DRF's own DateTimeField so that their format stays the API's.
    PLAIN_FIELDS = (
        "id",
        "status",
        "original_name",
        "sha256",
        "size_bytes",
        "node_name",
        "error",
        "error_code",
        "error_params",
        "parser_version",
        "report",
        "origin",
        "fingerprint",
    )
    DATETIME_FIELDS = ("measured_at", "created_at", "started_at", "finished_at")

    def get_fields(self):
        # ModelSerializer builds its fields from the model on every instance (1.3 ms on the
        # shared 2-CPU machine); a deep copy of the ones built once took 0.26 ms.
        cls = type(self)
        if cls.__dict__.get("_built_fields") is None:
            cls._built_fields = super().get_fields()
        return copy.deepcopy(cls._built_fields)

    def to_representation(self, instance):
        # Every upload answers with this (the collector's POST and its status polls): built
        # directly, without binding and walking a field object per key (the field-by-field
        # path, ModelSerializer.to_representation, gives the same dict: a test compares).
        data = {name: getattr(instance, name) for name in self.PLAIN_FIELDS}
        data["status"], data["origin"] = str(instance.status), str(instance.origin)
        for name in self.DATETIME_FIELDS:
            value = getattr(instance, name)
            data[name] = None if value is None else _DATETIME.to_representation(value)
        data["status_url"] = self.get_status_url(instance)
        data["duplicate"] = self.get_duplicate(instance)
        data["error_display"] = self.get_error_display(instance)
        data["kinds_display"] = self.get_kinds_display(instance)
        data["unread_display"] = self.get_unread_display(instance)
        return {name: data[name] for name in self.Meta.fields}

    def get_status_url(self, obj) -> str:
        return self.context["request"].build_absolute_uri(
            reverse("api-evidence-detail", args=[obj.pk])
        )

    def get_error_display(self, obj) -> str:
        return evidence_messages.upload_error(
            code=obj.error_code, params=obj.error_params, text=obj.error
        )

    def get_kinds_display(self, obj) -> list[str]:
        kinds = dict.fromkeys(r.get("kind") for r in obj.report or [] if r.get("ok"))
        return [kind_label(kind) for kind in kinds if kind]

    def get_unread_display(self, obj) -> list[dict[str, str]]:
        # Files not collected on the node (missing) are not unread: the collector said so.
        return [
            {"file": str(row.get("file") or ""), "error": evidence_messages.report_error(row)}
            for row in obj.report or []
            if not row.get("ok") and not row.get("missing")
        ]

    def get_duplicate(self, obj) -> bool:
        return bool(self.context.get("duplicate", False))


def _limit() -> int:
    return settings.EVIDENCE_MAX_UPLOAD_BYTES


def _too_large_message() -> str:
    return _("The upload is larger than the limit of %(limit)s.") % {
        "limit": size_with_bytes(_limit())
    }


class EvidenceUploadView(APIView):
    """POST a file or collector bundle; 202 with the status URL, 200 if already received."""

    authentication_classes = [
        UploadTokenAuthentication,
        SessionAuthentication,
        TokenAuthentication,
    ]
    permission_classes = []  # decided per request below: a token or a member's role
    parser_classes = [MultiPartParser, FormParser]
    throttle_classes = [UploadTokenRateThrottle]  # per upload token; checked before the body

    def initial(self, request, *args, **kwargs):
        # Refuse an oversized body before any of it is read: first by its declared length,
        # then, for a body that lies or is chunked, while it streams in.
        try:
            declared = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            declared = 0
        if declared > _limit() + MULTIPART_OVERHEAD_BYTES:
            raise PayloadTooLarge(_too_large_message())
        self.size_handler = MaxSizeUploadHandler(request._request, limit=_limit())
        request._request.upload_handlers = [
            self.size_handler,
            *request._request.upload_handlers,
        ]
        super().initial(request, *args, **kwargs)

    def check_permissions(self, request):
        # Credentials first: an anonymous client is refused before a byte of its body is read
        # (a slow sender then holds nothing), and a token over its quota by the declared size.
        super().check_permissions(request)
        if not hasattr(self, request.method.lower()):
            return  # a method this view lacks: 405, for anyone
        token = request.auth if isinstance(request.auth, UploadToken) else None
        if token is None and not request.user.is_authenticated:
            raise exceptions.NotAuthenticated(
                _("Send an upload token (Authorization: Bearer …) or log in.")
            )
        if token is not None:
            try:
                declared = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                declared = 0
            try:
                self.quota_room = evidence_quota_check(
                    candidate_id=token.candidate_id,
                    token_id=token.pk,
                    size=max(0, declared - MULTIPART_OVERHEAD_BYTES),
                )
            except QuotaExceeded as exc:
                raise InsufficientStorage(exc.message_dict["file"][0]) from exc

    def _candidate(self, request, candidate_id) -> tuple[Candidate, UploadToken | None]:
        if isinstance(request.auth, UploadToken):
            token = request.auth
            if candidate_id not in (None, token.candidate_id):
                raise exceptions.PermissionDenied(
                    _("This upload token belongs to another candidate.")
                )
            candidate = token.candidate
            if candidate.evaluation_id == token.evaluation_id:
                # Authentication read the evaluation already (evidence_submit re-reads its
                # status from the database): not a query of its own.
                candidate.evaluation = token.evaluation
            return candidate, token
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated(
                _("Send an upload token (Authorization: Bearer …) or log in.")
            )
        if candidate_id is None:
            raise exceptions.ValidationError({"candidate": [_("This field is required.")]})
        candidate = Candidate.objects.select_related("evaluation").filter(pk=candidate_id).first()
        if candidate is None:
            raise Http404
        membership = selectors.membership_get(user=request.user, evaluation=candidate.evaluation)
        if membership is None:
            raise Http404
        if membership.role not in CAN_UPLOAD:
            raise exceptions.PermissionDenied(_("Your role does not allow uploading evidence."))
        return candidate, None

    @extend_schema(
        request={"multipart/form-data": UploadInSerializer},
        responses={202: UploadOutSerializer, 200: UploadOutSerializer},
    )
    def post(self, request):
        try:
            data = request.data
        except Exception as exc:
            if self.size_handler.exceeded:
                raise PayloadTooLarge(_too_large_message()) from None
            if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
                # The body spooled to FILE_UPLOAD_TEMP_DIR found the disk full.
                full = storage_full_error(size=self.size_handler.received)
                raise InsufficientStorage(full.message_dict["file"][0]) from exc
            raise
        if self.size_handler.exceeded:
            raise PayloadTooLarge(_too_large_message())
        unknown = set(data.keys()) - set(UploadInSerializer._declared_fields)
        if unknown:
            raise exceptions.ValidationError(
                {name: [_("Unknown field.")] for name in sorted(unknown)}
            )
        sent = len(request.FILES.getlist("file"))
        if sent > 1:
            # The serializer reads the last of them: the others would be dropped unsaid.
            raise exceptions.ValidationError(
                {
                    "file": [
                        _(
                            "Send one file per request: this one had %(count)s (each is an "
                            "upload of its own)."
                        )
                        % {"count": sent}
                    ]
                }
            )
        incoming = UploadInSerializer(data=data)
        incoming.is_valid(raise_exception=True)
        candidate, token = self._candidate(request, incoming.validated_data.get("candidate"))
        try:
            upload, created = evidence_submit(
                candidate=candidate,
                uploaded_file=incoming.validated_data["file"],
                node_name=incoming.validated_data.get("node_name", ""),
                token=token,
                user=request.user,
                quota_room=getattr(self, "quota_room", None) if token is not None else None,
            )
        except UploadTooLarge as exc:
            raise PayloadTooLarge(exc.message_dict["file"][0]) from exc
        except EvaluationDecided:
            raise  # 409, from the exception handler
        except QuotaExceeded as exc:
            raise InsufficientStorage(exc.message_dict["file"][0]) from exc
        except ValidationError as exc:
            raise exceptions.ValidationError(exc.message_dict) from exc
        out = UploadOutSerializer(
            upload, context={"request": request, "duplicate": not created}
        ).data
        response = Response(out, status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK)
        response.upload_id = upload.pk  # for the structured request log
        return response


class EvidenceDetailView(APIView):
    """The state of one upload: for its upload token, or for members of its evaluation."""

    authentication_classes = [
        UploadTokenAuthentication,
        SessionAuthentication,
        TokenAuthentication,
    ]
    permission_classes = []

    @extend_schema(responses=UploadOutSerializer)
    def get(self, request, pk: int):
        # Credentials before the lookup: an anonymous client gets 401 whether or not the id
        # exists (a 404 for the free ids told it which uploads do).
        if not isinstance(request.auth, UploadToken) and not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        upload = get_object_or_404(EvidenceUpload.objects.select_related("candidate"), pk=pk)
        if isinstance(request.auth, UploadToken):
            if request.auth.candidate_id != upload.candidate_id:
                raise Http404
        elif request.user.is_authenticated:
            membership = selectors.membership_get(
                user=request.user, evaluation=upload.candidate.evaluation
            )
            if membership is None or membership.role not in CAN_VIEW:
                raise Http404
        return Response(UploadOutSerializer(upload, context={"request": request}).data)


class EvidenceNonceView(APIView):
    """The nonce the collector embeds in its manifest; upload tokens only."""

    authentication_classes = [UploadTokenAuthentication]
    permission_classes = []

    @extend_schema(
        responses=inline_serializer(
            "EvidenceNonce",
            {"nonce": serializers.CharField(), "candidate": serializers.IntegerField()},
        )
    )
    def get(self, request):
        if not isinstance(request.auth, UploadToken):
            raise exceptions.NotAuthenticated(_("Send an upload token."))
        return Response({"nonce": request.auth.nonce, "candidate": request.auth.candidate_id})
