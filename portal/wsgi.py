"""WSGI entry point (gunicorn portal.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
application = get_wsgi_application()

# Each gunicorn worker loads its URLs, catalogues and templates as it starts, not inside its
# first requests (portal.warmup).
from portal.warmup import warm_up  # noqa: E402 - needs the application's settings loaded

warm_up()
