"""Processes load their URLs, catalogues and templates when they start (portal.warmup), not
inside their first requests or tasks; a template that does not load never stops a start."""

import os
import subprocess
import sys
from pathlib import Path

from django.test import override_settings

from portal.warmup import warm_up

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import sys
import portal.wsgi  # the gunicorn entry point
from django.template import engines
from django.urls import get_resolver
loader = engines["django"].engine.template_loaders[0]
print("views", "portal.views.dashboard" in sys.modules)
print("languages", sorted(get_resolver()._reverse_dict))
print("templates", len(loader.get_template_cache))
"""


def test_the_wsgi_entry_point_loads_views_resolvers_and_templates_at_start():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "portal.settings",
        "DEBUG": "0",
        "SECRET_KEY": "warm-up-test-secret-key-0123456789abcdefghijklmnopqrstuvwxyz-0123",
        "ALLOWED_HOSTS": "testserver",
        "DATABASE_URL": "sqlite:///:memory:",
    }
    found = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
        check=True, timeout=120,
    ).stdout.splitlines()  # fmt: skip
    assert found[0] == "views True"
    assert found[1] == "languages ['en', 'zh-hans']"
    templates = sum(1 for _ in (ROOT / "templates").rglob("*.html"))
    assert int(found[2].split()[1]) >= templates


def test_a_template_that_does_not_load_is_logged_and_skipped(tmp_path, caplog):
    (tmp_path / "good.html").write_text("<p>{{ value }}</p>")
    (tmp_path / "broken.html").write_text("{% if %}")
    templates = [
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [tmp_path],
            "APP_DIRS": False,
        }
    ]
    with override_settings(TEMPLATES=templates):
        loaded = warm_up()
    assert loaded == ["good.html"]
    assert "broken.html did not load at start" in caplog.text
