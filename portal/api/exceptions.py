"""The API's one exception handler: every error becomes JSON with a message a person can act on.

Registered as REST_FRAMEWORK["EXCEPTION_HANDLER"]. Services raise Django's ValidationError with
field-keyed messages; here they become 400 answers with the same keys, except
EvaluationDecided (anything written to a decided evaluation) and StaleCopy (a write over a
newer one than the version sent), which are 409. A protected row (still
referenced) becomes 409, and a throttled request says when to come back.

Every Http404 (an object missing, or one the caller may not see) answers the same body, so
that a 404 never tells which of the two it was. An upload token sent where only members'
credentials are read is told where upload tokens go, rather than that no credentials came.
"""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError, RestrictedError
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.views import exception_handler

from ..models.evidence import TOKEN_PREFIX
from ..services.errors import AnswerChanged, EvaluationDecided, StaleCopy
from ..services.evaluations import RankingChanged
from .authentication import UploadTokenAuthentication

NON_FIELD = "non_field_errors"


class Conflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


def validation_detail(exc: DjangoValidationError) -> dict[str, list[str]]:
    """Django's ValidationError as DRF's {field: [messages]}, with __all__ as non_field_errors."""
    if hasattr(exc, "error_dict"):
        return {
            (NON_FIELD if field == "__all__" else field): [str(m) for m in messages]
            for field, messages in exc.message_dict.items()
        }
    return {NON_FIELD: [str(m) for m in exc.messages]}


def _translate(exc: Exception) -> Exception:
    if isinstance(exc, EvaluationDecided):
        return Conflict(exc.messages[0])
    if isinstance(exc, AnswerChanged):  # worded for an API client already
        return Conflict({"detail": exc.messages[0], "version": exc.version})
    if isinstance(exc, RankingChanged):
        return Conflict(
            {
                "detail": _(
                    "The ranking changed since you read it (an answer, a price, weights or "
                    "evidence changed), so the decision was not recorded. Read the ranking "
                    "again, then send its ranking_version with the decision."
                ),
                "ranking_version": exc.version,
            }
        )
    if isinstance(exc, StaleCopy):
        # Worded for an API client: the page's message speaks of a form and its input.
        detail = _(
            "Someone saved this after you read it, so nothing was written. Read it again, or "
            "send the version given here to replace what is stored."
        )
        return Conflict({"detail": detail, "version": exc.version})
    if isinstance(exc, DjangoValidationError):
        return exceptions.ValidationError(validation_detail(exc))
    if isinstance(exc, ProtectedError | RestrictedError):
        return Conflict(
            _("This object is still referenced by other records and cannot be removed.")
        )
    if isinstance(exc, Http404):
        # Never Http404's own text: get_object_or_404 names the model ("No EvidenceUpload
        # matches the given query.") where a refusal raises a bare Http404.
        return exceptions.NotFound(_("Not found."))
    if isinstance(exc, DjangoPermissionDenied):
        message = str(exc) or _("You do not have permission to perform this action.")
        return exceptions.PermissionDenied(message)
    return exc


def _throttle_message(view) -> str:
    """The limit as the view's throttle states it (``describe()``), if it states one."""
    for throttle in getattr(view, "throttle_classes", ()):
        describe = getattr(throttle, "describe", None)
        if describe is not None:
            return describe()
    return ""


def _upload_token_misplaced(context) -> bool:
    """The request carries an upload token (``Bearer gpt_…``) to a view that does not read
    them (every view but the evidence endpoints)."""
    request, view = context.get("request"), context.get("view")
    if request is None:
        return False
    header = request.META.get("HTTP_AUTHORIZATION", "").split()
    if len(header) != 2 or header[0] != "Bearer" or not header[1].startswith(TOKEN_PREFIX):
        return False
    return UploadTokenAuthentication not in getattr(view, "authentication_classes", ())


def api_exception_handler(exc, context):
    exc = _translate(exc)
    response = exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: Django's 500 handling and logging take over
    if isinstance(exc, exceptions.NotAuthenticated) and _upload_token_misplaced(context):
        response.data = {
            "detail": _(
                "Upload tokens (Bearer gpt_…) reach only the evidence endpoints "
                "(/api/v1/evidence/). Use a personal API token (Authorization: Token …) or "
                "sign in for this one."
            )
        }
    if isinstance(exc, exceptions.Throttled):
        wait = int(exc.wait) if exc.wait is not None else None
        message = _throttle_message(context.get("view")) or _("Too many requests.")
        if wait is not None:
            message = _("%(message)s Try again in %(seconds)s seconds.") % {
                "message": message,
                "seconds": max(wait, 1),
            }
        response.data = {"detail": message, "retry_after": wait}
    return response
