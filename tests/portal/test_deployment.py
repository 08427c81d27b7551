"""The production compose file: every service present, healthy-checked and configured alike."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_has_web_worker_beat_database_and_redis_with_health_checks():
    services = _compose()["services"]
    for name in ("web", "worker", "beat", "db", "redis"):
        assert name in services, name
        assert "healthcheck" in services[name], name
    assert "gunicorn" in services["web"]["command"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "portal", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "portal", "beat"]


def test_web_and_worker_share_the_media_volume_and_the_environment():
    services = _compose()["services"]
    for name in ("web", "worker", "beat"):
        assert "media:/app/media" in services[name]["volumes"], name
        assert services[name]["env_file"] == ".env", name
    assert {"pgdata", "media"} <= set(_compose()["volumes"])


def test_the_example_env_file_names_what_the_settings_need():
    example = (ROOT / ".env.example").read_text()
    for name in ("SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "ALLOWED_HOSTS", "DEBUG"):
        assert f"\n{name}=" in example, name
    settings_source = (ROOT / "portal" / "settings.py").read_text()
    for line in example.splitlines():
        name = line.lstrip("# ").split("=", 1)[0]
        if "=" in line and name.isupper() and name != "POSTGRES_PASSWORD":
            assert f'"{name}"' in settings_source, f"{name} is not read by portal/settings.py"
