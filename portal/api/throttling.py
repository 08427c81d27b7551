"""Rate limits of the API: uploads made with one upload token (cache-backed, per token)."""

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
