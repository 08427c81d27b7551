# The portal's production image: gunicorn web, Celery worker and beat all run from it.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Headless Chromium prints the report PDFs (worker); the CJK fonts render Chinese reports, the
# emoji font the emoji a rationale may hold (an empty box without it).
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-noto-cjk fonts-noto-color-emoji \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# Static files are collected at build time; the key below exists only for this step.
RUN SECRET_KEY=collectstatic-build-step-only DEBUG=0 python manage.py collectstatic --noinput -v0 \
    && useradd --system --uid 10001 --home /app portal \
    && mkdir -p /app/media /var/lib/portal-metrics \
    && chown -R portal /app/media /app/staticfiles /var/lib/portal-metrics

USER portal
EXPOSE 8000
# Behind nginx (docker-compose.yml): never publish this port directly.
CMD ["gunicorn", "portal.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "60", "--graceful-timeout", "10", "--access-logfile", "-"]
