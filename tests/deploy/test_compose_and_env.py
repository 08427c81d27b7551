"""docker-compose.yml, .env.example, the Dockerfile and deploy/nginx read together: what one
names, the others provide."""

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
VARIABLE = re.compile(r"^#? ?([A-Z][A-Z0-9_]*)=(.*)$")


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _example() -> list[str]:
    return (ROOT / ".env.example").read_text().splitlines()


def _size(text: str) -> int:
    number, unit = re.fullmatch(r"(\d+)([km]?)", text).groups()
    return int(number) * {"": 1, "k": 1024, "m": 1024 * 1024}[unit]


def test_every_variable_of_the_example_env_file_is_explained():
    # Directly under a comment, or under a variable of its own family (EMAIL_HOST, EMAIL_PORT)
    # that is: a block of unrelated variables under one comment left TIME_ZONE, LOG_LEVEL and
    # WORKER_HEARTBEAT_INTERVAL_S unexplained.
    lines = _example()
    unexplained = []
    for number, line in enumerate(lines):
        found = VARIABLE.match(line)
        if not found:
            continue
        above = lines[number - 1] if number else ""
        family = VARIABLE.match(above)
        if family:
            if family.group(1).split("_")[0] != found.group(1).split("_")[0]:
                unexplained.append(found.group(1))
        elif not above.startswith("# "):
            unexplained.append(found.group(1))
    assert unexplained == []


def test_the_example_database_url_matches_the_compose_database():
    values = {m.group(1): m.group(2) for m in map(VARIABLE.match, _example()) if m}
    services = _compose()["services"]
    db = services["db"]["environment"]
    url = re.fullmatch(r"postgres://([^:]+):([^@]+)@([^:/]+):5432/(\w+)", values["DATABASE_URL"])
    assert url, values["DATABASE_URL"]
    user, password, host, name = url.groups()
    assert (user, name) == (db["POSTGRES_USER"], db["POSTGRES_DB"])
    assert password == values["POSTGRES_PASSWORD"]
    assert host in services
    for key in ("CELERY_BROKER_URL", "CACHE_URL"):
        assert re.fullmatch(r"redis://redis:6379/\d+", values[key]), key
    assert "redis" in services


def test_compose_is_consistent_with_itself():
    compose = _compose()
    services, volumes = compose["services"], set(compose["volumes"])
    for name, service in services.items():
        for dependency, condition in service.get("depends_on", {}).items():
            assert dependency in services, (name, dependency)
            assert condition["condition"] in (
                "service_started",
                "service_healthy",
                "service_completed_successfully",
            )
            if condition["condition"] == "service_healthy":
                assert "healthcheck" in services[dependency], (name, dependency)
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("./"):
                assert (ROOT / source).is_file(), (name, source)
            else:
                assert source in volumes, (name, source)
        command = service.get("command")
        assert command is None or isinstance(command, list), name
    # The database's and Redis' data survive a container's replacement.
    assert "pgdata:/var/lib/postgresql/data" in services["db"]["volumes"]
    assert "redisdata:/data" in services["redis"]["volumes"]
    for name in ("migrate", "web", "worker", "beat"):
        assert "static:/app/staticfiles" in services[name]["volumes"], name
        assert services[name]["image"] == services["web"]["image"], name
    # The one-shot migrate runs before anything that needs the schema.
    for name in ("web", "worker", "beat"):
        condition = services[name]["depends_on"]["migrate"]["condition"]
        assert condition == "service_completed_successfully", name


def test_nginx_body_limits_match_what_the_portal_accepts():
    from django.conf import settings

    from deploy import stack
    from portal.api.evidence import MULTIPART_OVERHEAD_BYTES
    from portal.services.evaluations import MAX_ATTACHMENT_BYTES

    nginx = _compose()["services"]["nginx"]["environment"]
    limit = settings.EVIDENCE_MAX_UPLOAD_BYTES
    assert nginx["PORTAL_MAX_UPLOAD"] == stack.upload_body_limit(limit)
    assert limit + MULTIPART_OVERHEAD_BYTES <= _size(nginx["PORTAL_MAX_UPLOAD"])
    assert _size(nginx["PORTAL_MAX_BODY"]) >= MAX_ATTACHMENT_BYTES + MULTIPART_OVERHEAD_BYTES
    assert stack.upload_body_limit(limit) == f"{-(-(limit + MULTIPART_OVERHEAD_BYTES) // 2**20)}m"
    example = "\n".join(_example())
    assert f"# EVIDENCE_MAX_UPLOAD_BYTES={limit}" in example
    assert nginx["PORTAL_MAX_UPLOAD"] in example  # the file says what to set beside it


def test_the_image_installs_the_pins_on_the_python_they_were_resolved_for():
    import sys

    dockerfile = (ROOT / "Dockerfile").read_text()
    base = re.search(r"^FROM python:(\d+)\.(\d+)-slim", dockerfile, re.MULTILINE)
    assert base, "the image's base is python:X.Y-slim"
    image_python = (int(base.group(1)), int(base.group(2)))
    requirements = (ROOT / "requirements.txt").read_text()
    assert f"Python {image_python[0]}.{image_python[1]} on Linux" in requirements
    # The pins were tested here: on the same minor version.
    assert sys.version_info[:2] == image_python
    steps = re.findall(r"^RUN .*$", dockerfile, re.MULTILINE)
    assert any("pip install -r requirements.txt" in step for step in steps)
    assert "COPY requirements.txt ." in dockerfile
    # psycopg's binary wheel brings its own libpq: the slim image needs no build tools.
    assert "psycopg[binary]==" in requirements


def test_compose_sets_every_placeholder_of_the_nginx_conf():
    conf = (ROOT / "deploy" / "nginx" / "portal.conf").read_text()
    placeholders = set(re.findall(r"\$\{(PORTAL_[A-Z_]+)\}", conf))
    nginx = _compose()["services"]["nginx"]["environment"]
    assert placeholders == {name for name in nginx if name.startswith("PORTAL_")}
    assert nginx["NGINX_ENVSUBST_FILTER"] == "PORTAL_"
    # Docker's embedded DNS, which knows the address web has now (a recreated container's too).
    assert nginx["PORTAL_RESOLVER"] == "127.0.0.11"
    assert "resolver ${PORTAL_RESOLVER} valid=10s" in conf
    assert "proxy_pass http://" not in conf, "a name in proxy_pass is resolved once, at start"
