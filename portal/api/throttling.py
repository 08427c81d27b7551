"""Rate limits (cache-backed): uploads made with one upload token, report PDFs per member."""

from types import SimpleNamespace

from django.utils.translation import gettext_lazy as _
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from ..models import UploadToken

DEFAULT_UPLOAD_RATE = "60/min"


class UploadTokenRateThrottle(SimpleRateThrottle):
    """At most 60 uploads a minute per upload token (REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    ["evidence_upload"] overrides it). Session and personal-token uploads are not counted here:
    a person clicking is not a runaway script."""

    scope = "evidence_upload"
    message = _("Too many uploads with this upload token (the limit is %(rate)s).")

    def get_rate(self) -> str:
        return (api_settings.DEFAULT_THROTTLE_RATES or {}).get(self.scope) or DEFAULT_UPLOAD_RATE

    def get_cache_key(self, request, view) -> str | None:
        if not isinstance(request.auth, UploadToken):
            return None
        return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}

    @classmethod
    def describe(cls) -> str:
        return str(cls.message) % {"rate": cls().rate}


DEFAULT_REPORT_PDF_RATE = "10/hour"


class ReportPdfRateThrottle(SimpleRateThrottle):
    """At most 10 report PDFs rendered an hour per member (REST_FRAMEWORK
    ["DEFAULT_THROTTLE_RATES"]["report_pdf"] overrides it). Counted by
    services.reports.report_pdf_request when a new render is queued only: a PDF already made
    of the report as it is, handed out again, costs no Chromium."""

    scope = "report_pdf"

    def get_rate(self) -> str:
        return (api_settings.DEFAULT_THROTTLE_RATES or {}).get(
            self.scope
        ) or DEFAULT_REPORT_PDF_RATE

    def get_cache_key(self, request, view) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}

    def allow_user(self, user) -> bool:
        """Count one render for ``user``; False (nothing counted) when over the limit."""
        # What get_cache_key reads: the member (the service has no HTTP request).
        return self.allow_request(SimpleNamespace(user=user), None)
