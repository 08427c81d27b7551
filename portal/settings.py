"""Settings of the portal, all read from environment variables.

The defaults are the embedded mode: SQLite, Celery tasks run eagerly in process, no server to
install. Production sets DATABASE_URL, CELERY_BROKER_URL, SECRET_KEY and ALLOWED_HOSTS (see
``.env.example``). A bad value raises ImproperlyConfigured at start-up instead of surfacing later.
"""

import base64
import hashlib
import html
import re
from datetime import timedelta
from pathlib import Path

import environ
import plotly
from csp.constants import NONCE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)

SECRET_KEY = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set it (50+ random characters) or run with DEBUG=1 for a "
            "local development server."
        )
    # Only ever used with DEBUG on, i.e. on a developer's own machine.
    SECRET_KEY = "django-insecure-development-only-key-never-use-in-production-0123456789"  # noqa: S105

# The placeholder .env.example ships: long enough for `check --deploy`, and public.
if SECRET_KEY.startswith("change-me"):
    raise ImproperlyConfigured(
        "SECRET_KEY is still the placeholder of .env.example: anyone who read it can sign "
        'sessions. Set 50+ random characters (python -c "import secrets; '
        'print(secrets.token_urlsafe(50))").'
    )

ALLOWED_HOSTS = [
    host.strip()
    for host in env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
    if host.strip()
]
if not ALLOWED_HOSTS:
    # Django would answer every request 400 (DEBUG off) without saying why at start-up.
    raise ImproperlyConfigured(
        "ALLOWED_HOSTS is empty: every request would be refused. Set the host names the portal "
        "answers to, e.g. ALLOWED_HOSTS=gpu-portal.example.com,localhost."
    )
# DEBUG shows anyone who meets an error the settings, the code and the request: only on a
# developer's own machine, i.e. only for loopback host names (and the test client's).
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1", "testserver"}
if DEBUG:
    public_hosts = [
        host
        for host in ALLOWED_HOSTS
        if host not in LOCAL_HOSTS and not host.endswith(".localhost")
    ]
    if public_hosts:
        raise ImproperlyConfigured(
            f"DEBUG=1 with ALLOWED_HOSTS naming {', '.join(public_hosts)}: debug pages would "
            "show the settings and the code to whoever reaches those names. Set DEBUG=0 in "
            "production, or keep ALLOWED_HOSTS to 127.0.0.1 and localhost for debugging."
        )
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# A page's fetch whose token is stale gets JSON it can read; a form post, a page giving the
# typed text back (portal.views.errors).
CSRF_FAILURE_VIEW = "portal.views.errors.csrf_failure"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "simple_history",
    "csp",
    "axes",
    "portal",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "portal.metrics.RequestMetricsMiddleware",
    # /healthz/ and /readyz/ answer here, before any middleware that could read the database.
    "portal.middleware.HealthCheckMiddleware",
    "portal.middleware.DatabaseUnavailableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # After the CSRF check (which parses the body): a multipart post cut short is a 400.
    "portal.middleware.CompleteMultipartMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "portal.middleware.JsonSessionEndedMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "portal.middleware.EvaluationDecidedMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, as django-axes asks: turns a locked-out login into the 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "portal.urls"
WSGI_APPLICATION = "portal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "csp.context_processors.nonce",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# A restarted PostgreSQL: persistent connections are checked before reuse, a connection attempt
# gives up quickly, and the request gets a 503 (portal.middleware) instead of hanging or a 500.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env.int("DATABASE_CONNECT_TIMEOUT", default=3)
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "portal.auth_views.LoginAttemptBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failed logins (django-axes, see portal.auth_views): locked per username AND client address,
# so the real user logs in from elsewhere while an attacker waits out the cool-off.
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(seconds=env.int("LOGIN_FAILURE_WINDOW_S", default=300))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_CALLABLE = "portal.auth_views.login_username"
AXES_CLIENT_IP_CALLABLE = "portal.auth_views.client_ip"
AXES_LOCKOUT_CALLABLE = "portal.auth_views.lockout_response"
AXES_ENABLE_ACCESS_FAILURE_LOG = False
AXES_VERBOSE = False
# Behind nginx: the header it sets with the client's address, trusted only from these proxies.
TRUSTED_PROXY_IP_HEADER = env.str("TRUSTED_PROXY_IP_HEADER", default="")
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=["127.0.0.1/32", "::1/128"])
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "evaluation-list"
LOGOUT_REDIRECT_URL = "login"

# Cache: login and upload rate limits and the API's ranking cache live here. Local memory in the
# embedded mode; production shares Redis between gunicorn workers (CACHE_URL=redis://…).
# With Redis, a failing call falls back to a per-process cache (portal.cache), so that a Redis
# outage slows nothing down and fails no request.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["BACKEND"] = "portal.cache.ResilientRedisCache"

# Internationalisation: the interface speaks English and Simplified Chinese.
LANGUAGE_CODE = env.str("LANGUAGE_CODE", default="en")
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Amounts grouped in threes in Chinese too (portal/formats/zh_Hans).
FORMAT_MODULE_PATH = ["portal.formats"]
TIME_ZONE = env.str("TIME_ZONE", default="UTC")
USE_I18N = True
USE_TZ = True

# Static files: the project's own, plus the plotly.js bundle shipped inside the plotly wheel so
# that charts work on an isolated network (no CDN).
STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [
    BASE_DIR / "static",
    ("plotly", Path(plotly.__file__).resolve().parent / "package_data"),
]
STATIC_MANIFEST = env.bool("STATIC_MANIFEST", default=not DEBUG)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if STATIC_MANIFEST
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(BASE_DIR / "media")))
MEDIA_URL = "media/"

# Uploads: bodies above this size are refused before they are read whole.
EVIDENCE_MAX_UPLOAD_BYTES = env.int("EVIDENCE_MAX_UPLOAD_BYTES", default=256 * 1024 * 1024)
# An import task takes along up to this many waiting uploads of the same candidate (itself
# included), written in one transaction with one rescore; 1 imports each upload alone.
EVIDENCE_IMPORT_BATCH = env.int("EVIDENCE_IMPORT_BATCH", default=8)
# A candidate is re-verified and rescored at most once per this many seconds while its
# uploads keep arriving: an import finishing sooner after the last refresh marks the candidate
# (PendingRefresh, in its transaction) and one refresh task, due this long after the last
# refresh, catches up with every import in between; pages say the scores are being updated.
# 0 refreshes at every import's end.
EVIDENCE_REFRESH_INTERVAL_S = env.float("EVIDENCE_REFRESH_INTERVAL_S", default=1.0)
# Byte quotas of the raw evidence kept on disk, per upload token and per candidate (0: none).
# An upload that would pass one is refused with 507 before its body is read (by its declared
# length) and again before it is stored when its real size is more than the room found then.
EVIDENCE_QUOTA_TOKEN_BYTES = env.int("EVIDENCE_QUOTA_TOKEN_BYTES", default=2 * 1024**3)
EVIDENCE_QUOTA_CANDIDATE_BYTES = env.int("EVIDENCE_QUOTA_CANDIDATE_BYTES", default=8 * 1024**3)
# An upload that would leave the media volume with less than this free is refused with 507
# (as is one whose write finds the disk full): a full disk never takes a database sharing it.
EVIDENCE_MEDIA_MIN_FREE_BYTES = env.int("EVIDENCE_MEDIA_MIN_FREE_BYTES", default=256 * 1024**2)
# The beat sweeper deletes the raw files of failed uploads this long after they failed; the
# row and its error stay.
EVIDENCE_FAILED_RETENTION_HOURS = env.int("EVIDENCE_FAILED_RETENTION_HOURS", default=72)
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# Security. Off with DEBUG so that the development server works over plain HTTP.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"


# Content-Security-Policy (django-csp): scripts only from this site or with the page's nonce;
# styles may be inline (Plotly, Swagger and Redoc inject style elements). The inline event
# handlers written in the project's own templates (onchange="…") are allowed by their hashes,
# computed here at start-up; any other inline script, such as injected markup, is blocked.
def _template_handler_hashes() -> list[str]:
    hashes = set()
    for template in sorted((BASE_DIR / "templates").rglob("*.html")):
        for match in re.finditer(r'\son[a-z]+="([^"]*)"', template.read_text(encoding="utf-8")):
            digest = hashlib.sha256(html.unescape(match.group(1)).encode()).digest()
            hashes.add(f"'sha256-{base64.b64encode(digest).decode()}'")
    return sorted(hashes)


CSP_INLINE_HANDLER_HASHES = _template_handler_hashes()
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE, "'unsafe-hashes'", *CSP_INLINE_HANDLER_HASHES],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "worker-src": ["'self'", "blob:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
if env.bool("BEHIND_TLS_PROXY", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# The health endpoint is probed over plain HTTP from inside the compose network.
SECURE_REDIRECT_EXEMPT = [r"^healthz/$", r"^readyz/$", r"^metrics$"]

# Celery. The embedded default runs tasks eagerly in process; production points
# CELERY_BROKER_URL at Redis and runs workers.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="memory://localhost/")
CELERY_TASK_ALWAYS_EAGER = env.bool(
    "CELERY_TASK_ALWAYS_EAGER", default=CELERY_BROKER_URL.startswith("memory://")
)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_TIMEZONE = TIME_ZONE
# A task whose worker dies is delivered again instead of being lost; tasks are idempotent.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A killed worker's imports are back in the queue within 2 minutes at these defaults: the hard
# time limit (90 s) < the import lease (time limit + 10 s = 100 s; the sweeper re-queues an
# import held longer) = the broker's visibility timeout (a message unacknowledged that long is
# delivered again); the sweeper runs every 15 s, so 100 + 15 < 120 s. A running import is never
# taken from a live worker: the lease is longer than the time limit.
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=80)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=90)
EVIDENCE_IMPORT_LEASE_S = env.int("EVIDENCE_IMPORT_LEASE_S", default=CELERY_TASK_TIME_LIMIT + 10)
EVIDENCE_SWEEP_INTERVAL_S = env.float("EVIDENCE_SWEEP_INTERVAL_S", default=15.0)
# An upload still queued this long was never enqueued (Redis was down): the sweeper sends it.
EVIDENCE_SWEEP_QUEUED_FOR_S = env.int("EVIDENCE_SWEEP_QUEUED_FOR_S", default=120)
if not CELERY_TASK_SOFT_TIME_LIMIT < CELERY_TASK_TIME_LIMIT < EVIDENCE_IMPORT_LEASE_S:
    raise ImproperlyConfigured(
        "Need CELERY_TASK_SOFT_TIME_LIMIT < CELERY_TASK_TIME_LIMIT < EVIDENCE_IMPORT_LEASE_S."
    )
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": EVIDENCE_IMPORT_LEASE_S,
    "max_retries": 1,
    "socket_connect_timeout": 1,
    "socket_timeout": 5,
}
# Publishing to a stopped Redis gives up fast: the row stays queued and the sweeper sends it.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
WORKER_HEARTBEAT_INTERVAL_S = env.float("WORKER_HEARTBEAT_INTERVAL_S", default=30.0)
# /readyz/ reports the worker unavailable when its last heartbeat is older than this.
WORKER_HEARTBEAT_STALE_S = env.int("WORKER_HEARTBEAT_STALE_S", default=120)
# The results read model (portal.selectors.cache_get): computed results are kept in PostgreSQL
# as well as in the cache (RESULTS_TABLE=0: the cache alone), and a change that moves an
# evaluation's results has a worker compute them again RESULTS_WARM_DELAY_S after the last
# change (at most RESULTS_WARM_MAX_DELAY_S after the first of a run of changes).
RESULTS_TABLE = env.bool("RESULTS_TABLE", default=True)
RESULTS_WARM_DELAY_S = env.float("RESULTS_WARM_DELAY_S", default=5.0)
RESULTS_WARM_MAX_DELAY_S = env.float("RESULTS_WARM_MAX_DELAY_S", default=60.0)
CELERY_BEAT_SCHEDULE = {
    "worker-heartbeat": {
        "task": "portal.tasks.worker_heartbeat_task",
        "schedule": WORKER_HEARTBEAT_INTERVAL_S,
    },
    "evidence-sweep": {
        "task": "portal.tasks.evidence_sweep_task",
        "schedule": EVIDENCE_SWEEP_INTERVAL_S,
    },
    # Evidence passing an evaluation's maximum age changes no row: this re-verifies without it.
    "evidence-expiry": {
        "task": "portal.tasks.evidence_expiry_rescore_task",
        "schedule": env.float("EVIDENCE_EXPIRY_INTERVAL_S", default=300.0),
    },
    "poc-deadline-reminders": {
        "task": "portal.tasks.poc_deadline_reminders_task",
        "schedule": 3600.0,
    },
    "poc-deadlines": {
        "task": "portal.tasks.poc_deadlines_task",
        "schedule": 600.0,
    },
}

# JSON bodies of the API: larger or more deeply nested ones are a 400 (portal.api.parsers).
API_JSON_MAX_BYTES = env.int("API_JSON_MAX_BYTES", default=1024 * 1024)
API_JSON_MAX_DEPTH = env.int("API_JSON_MAX_DEPTH", default=32)

REST_FRAMEWORK = {
    "DEFAULT_PARSER_CLASSES": [
        "portal.api.parsers.LimitedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "portal.api.exceptions.api_exception_handler",
    # The browsable API names and describes each view in the reader's language.
    "VIEW_NAME_FUNCTION": "portal.api.docs.view_name",
    "VIEW_DESCRIPTION_FUNCTION": "portal.api.docs.view_description",
}
# The OpenAPI schema, Swagger and Redoc need a signed-in user unless published
# (portal.api.schema).
API_DOCS_PUBLIC = env.bool("API_DOCS_PUBLIC", default=False)
SPECTACULAR_SETTINGS = {
    "TITLE": "GPU Procurement Portal API",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # One schema name for the workload profiles (an evaluation's and a workload's field).
    "ENUM_NAME_OVERRIDES": {"WorkloadProfileEnum": "portal.models.choices.WorkloadProfile"},
}

# Prometheus metrics at /metrics (portal.metrics) for requests with
# "Authorization: Bearer <METRICS_TOKEN>"; unset, /metrics is a 404. Several processes:
# PROMETHEUS_MULTIPROC_DIR (an environment variable read by prometheus-client).
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# "json": one JSON object per log line, plus one line per request and per import (upload id).
LOG_FORMAT = env.str("LOG_FORMAT", default="plain")
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured("LOG_FORMAT must be plain or json.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {"()": "portal.logging_json.JsonFormatter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

FIXTURE_DIRS = [BASE_DIR / "fixtures"]

# The audit trail is append-only: the admin's "revert to this version" is switched off.
SIMPLE_HISTORY_REVERT_DISABLED = True

# E-mail notifications (portal/services/notifications.py): the console in development, SMTP in
# production (EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS).
EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    default="django.core.mail.backends.console.EmailBackend"
    if DEBUG
    else "django.core.mail.backends.smtp.EmailBackend",
)
EMAIL_HOST = env.str("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="gpu-portal@localhost")
# A candidate's failed imports are mailed at most once per this many seconds: a token holder
# sending failing uploads in a loop must not flood the procurement members' inboxes (the
# uploads page lists every failure; the mail says the later ones are not mailed one by one).
IMPORT_FAILED_MAIL_INTERVAL_S = env.int("IMPORT_FAILED_MAIL_INTERVAL_S", default=900)
PORTAL_BASE_URL = env.str("PORTAL_BASE_URL", default="http://localhost:8000")
# Report PDFs (portal/services/reports.py): the headless Chromium binary the worker runs.
CHROMIUM_BINARY = env.str("CHROMIUM_BINARY", default="/usr/bin/chromium")
