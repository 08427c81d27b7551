"""Settings of the portal as bench/http_import.py runs it: the portal's own, plus one URL.

With BENCH_PROFILE_DIR set (``--profile DIR``), gunicorn's requests and the worker's tasks
are profiled (bench/http_profile.py).
"""

import os

from portal.settings import *  # noqa: F403

ROOT_URLCONF = "bench.http_floor_urls"

if os.environ.get("BENCH_PROFILE_DIR"):
    MIDDLEWARE = ["bench.http_profile.ProfileMiddleware", *MIDDLEWARE]  # noqa: F405
    from bench.http_profile import connect_worker

    connect_worker()
