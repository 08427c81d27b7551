"""The portal's own system checks (``manage.py check --deploy``)."""

from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Tags, Warning, register

# Host names that only ever mean the machine a link is opened on.
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0"})  # noqa: S104


@register(Tags.security, deploy=True)
def portal_base_url_check(app_configs, **kwargs):
    """PORTAL_BASE_URL left at its development default (or any loopback address) in a
    deployment: the links of notification e-mails and of report PDFs would point to the
    reader's own machine."""
    base = urlsplit(settings.PORTAL_BASE_URL)
    host = (base.hostname or "").lower()
    if base.scheme in ("http", "https") and host and host not in _LOCAL_HOSTS:
        return []
    return [
        Warning(
            f"PORTAL_BASE_URL is {settings.PORTAL_BASE_URL!r}: the links in notification "
            "e-mails and report PDFs would not lead to this portal.",
            hint="Set PORTAL_BASE_URL to the portal's public address, e.g. "
            "https://gpu-portal.example.com (see .env.example).",
            id="portal.W001",
        )
    ]
