"""Settings of the portal as bench/http_import.py runs it: the portal's own, plus one URL."""

from portal.settings import *  # noqa: F403

ROOT_URLCONF = "bench.http_floor_urls"
