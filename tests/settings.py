"""Settings for the test suite: the production settings module on real PostgreSQL and Redis."""

import hashlib
import os
import tempfile
from pathlib import Path

# Each test run gets its own database and queue, so that two runs (a CI clone beside a
# developer's run, or two runs in one checkout) sharing one PostgreSQL and one Redis never see
# each other's data. Worker subprocesses inherit the run id through the environment.
CHECKOUT = hashlib.sha256(str(Path(__file__).resolve().parent.parent).encode()).hexdigest()[:8]

# Under pytest-xdist each worker process is a run of its own. The controller imports these
# settings first and its workers inherit its environment: the run id, database and media folder
# it chose for itself (not those a developer set) are dropped, once, in each worker, which then
# chooses its own. Processes a worker starts inherit the worker's choice (the marker says so).
_DEFAULTED = "GPUPORTAL_TEST_DEFAULTED"
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER and os.environ.get("GPUPORTAL_TEST_WORKER") != _WORKER:
    for name in ["GPUPORTAL_TEST_RUN", *filter(None, os.environ.pop(_DEFAULTED, "").split(","))]:
        os.environ.pop(name, None)
    os.environ["GPUPORTAL_TEST_WORKER"] = _WORKER


def _default(name: str, value: str) -> None:
    """os.environ.setdefault, remembering the names it set (see above)."""
    if name not in os.environ:
        os.environ[name] = value
        os.environ[_DEFAULTED] = ",".join(filter(None, (os.environ.get(_DEFAULTED), name)))


RUN_ID = os.environ.setdefault("GPUPORTAL_TEST_RUN", f"{CHECKOUT}_{os.getpid()}")

os.environ.setdefault("SECRET_KEY", "tests-only-secret-key-3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f")
_default("DATABASE_URL", f"postgres://postgres:postgres@127.0.0.1:5432/gpuportal_{RUN_ID}")
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
if "MEDIA_ROOT" not in os.environ:
    _default("MEDIA_ROOT", tempfile.mkdtemp(prefix="gpuportal-media-"))

from portal.settings import *  # noqa: E402, F403

# First, so that its ``flush`` (rows deleted, not tables truncated) is the one tests run.
INSTALLED_APPS = ["tests.testdb", *INSTALLED_APPS]  # noqa: F405

# Hashing demo passwords with PBKDF2 dominates short tests; strength is not under test here.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

CELERY_TASK_DEFAULT_QUEUE = f"portal-tests-{RUN_ID}"
