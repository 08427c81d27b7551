"""cProfile hooks of bench/http_import.py ``--profile DIR`` (loaded by its settings).

Gunicorn: a middleware, first in the stack, profiles each request. Worker: Celery's
``task_prerun``/``task_postrun`` signals profile each task. Each process accumulates one
profile (of CPU time: waits for PostgreSQL or Redis are not counted) and writes it to
``DIR/<role>-<pid>.prof`` after every request or task, so the figures are there whenever
the stack is stopped. Merge them with ``pstats.Stats(*files)``.
"""

from __future__ import annotations

import cProfile
import os
import time
from pathlib import Path

from bench.noop import NOOP_UPLOAD_ID

DIRECTORY = os.environ.get("BENCH_PROFILE_DIR", "")
_profiles: dict[str, cProfile.Profile] = {}


def _profile(role: str) -> cProfile.Profile:
    key = f"{role}-{os.getpid()}"
    if key not in _profiles:
        # CPU time, not wall time: on the shared machine waits would swamp the figures.
        _profiles[key] = cProfile.Profile(time.process_time)
    return _profiles[key]


def _dump(role: str) -> None:
    key = f"{role}-{os.getpid()}"
    _profiles[key].dump_stats(str(Path(DIRECTORY) / f"{key}.prof"))


class ProfileMiddleware:
    """Profile every request of this gunicorn process (the floor's too: compare by URL)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        role = "floor" if request.path.startswith("/bench/floor/") else "gunicorn"
        profile = _profile(role)
        profile.enable()
        try:
            return self.get_response(request)
        finally:
            profile.disable()
            _dump(role)


def connect_worker() -> None:
    from celery.signals import task_postrun, task_prerun

    def started(task=None, args=None, **_kwargs):
        role = "noop" if args and args[0] == NOOP_UPLOAD_ID else "worker"
        task._bench_role = role
        _profile(role).enable()

    def ended(task=None, **_kwargs):
        role = getattr(task, "_bench_role", "worker")
        _profile(role).disable()
        _dump(role)

    task_prerun.connect(started, weak=False)
    task_postrun.connect(ended, weak=False)
