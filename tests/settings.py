"""Settings for the test suite: the production settings module on real PostgreSQL and Redis."""

import hashlib
import os
import tempfile
from pathlib import Path

# Each test run gets its own database and queue, so that two runs (a CI clone beside a
# developer's run, or two runs in one checkout) sharing one PostgreSQL and one Redis never see
# each other's data. Worker subprocesses inherit the run id through the environment.
CHECKOUT = hashlib.sha256(str(Path(__file__).resolve().parent.parent).encode()).hexdigest()[:8]
RUN_ID = os.environ.setdefault("GPUPORTAL_TEST_RUN", f"{CHECKOUT}_{os.getpid()}")

os.environ.setdefault("SECRET_KEY", "tests-only-secret-key-3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f")
os.environ.setdefault(
    "DATABASE_URL", f"postgres://postgres:postgres@127.0.0.1:5432/gpuportal_{RUN_ID}"
)
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "0")
os.environ.setdefault("STATIC_MANIFEST", "0")
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("SESSION_COOKIE_SECURE", "0")
os.environ.setdefault("CSRF_COOKIE_SECURE", "0")
os.environ.setdefault("CONN_MAX_AGE", "0")
# Most tests read a candidate's scores right after an import: refreshed at every import's end.
# tests/portal/test_refresh_coalescing.py runs the interval the portal ships with.
os.environ.setdefault("EVIDENCE_REFRESH_INTERVAL_S", "0")
os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="gpuportal-media-"))

from portal.settings import *  # noqa: E402, F403

# First, so that its ``flush`` (rows deleted, not tables truncated) is the one tests run.
INSTALLED_APPS = ["tests.testdb", *INSTALLED_APPS]  # noqa: F405

# Hashing demo passwords with PBKDF2 dominates short tests; strength is not under test here.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

CELERY_TASK_DEFAULT_QUEUE = f"portal-tests-{RUN_ID}"
