#!/usr/bin/env bash
# Run the portal on its embedded defaults: SQLite, Celery tasks run in process, demo data, and
# DEBUG off so that error pages are the portal's own, translated (scripts/lib.sh, embedded_env).
# Needs no PostgreSQL or Redis. Safe to run again: data already there is left unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

ensure_venv requirements.txt
embedded_env
PORT="${PORT:-8000}"

log "migrating the database"
.venv/bin/python manage.py migrate --noinput -v0
log "loading the checklist and the demo data"
.venv/bin/python manage.py setup_demo
echo
echo "The portal is at http://127.0.0.1:${PORT}/  (stop it with Ctrl-C)"
echo "门户地址：http://127.0.0.1:${PORT}/  （按 Ctrl-C 停止）"
echo
exec .venv/bin/python manage.py runserver "127.0.0.1:${PORT}"
