#!/usr/bin/env bash
# Run the whole test suite against real PostgreSQL and Redis, a real Celery worker and headless
# Chromium, installing or starting whatever is missing. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

ensure_venv requirements-dev.txt
ensure_postgres
ensure_redis
ensure_chromium
ensure_fio
ensure_ping
ensure_nginx
exec bash scripts/check.sh "$@"
