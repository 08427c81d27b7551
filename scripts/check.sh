#!/usr/bin/env bash
# The one check script, the same locally and in CI: lint, format, migrations, the import
# contract of scoring/, then the whole test suite. Expects the services to be up (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
export PATH="$PWD/.venv/bin:$PATH"

log "ruff check"
ruff check .
log "ruff format --check"
ruff format --check .
log "makemigrations --check"
# Against an empty SQLite file: the models alone decide, and no database needs to exist yet.
scratch=$(mktemp -d)
DJANGO_SETTINGS_MODULE=portal.settings DEBUG=1 DATABASE_URL="sqlite:///$scratch/check.sqlite3" \
  python manage.py makemigrations --check --dry-run -v1
rm -rf "$scratch"
log "scoring/ imports nothing from Django or the portal"
python -m scoring.contract
log "pytest"
# Two worker processes (pytest-xdist), a test file each at a time: on two cores the suite takes
# about 14 minutes instead of about 19. Each worker is a run of its own (tests/settings.py: its
# own database, queue and media folder). PYTEST_WORKERS=0 runs it in one process.
python -m pytest -n "${PYTEST_WORKERS:-2}" --dist loadfile "$@"
