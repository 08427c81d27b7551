"""The production compose file: every service present, healthy-checked and configured alike."""

import re
import socket
import subprocess
import threading
import time
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


def test_the_example_env_file_names_every_variable_the_settings_read():
    # It says it does ("Every variable the portal reads"), and the README sends operators to it.
    settings_source = (ROOT / "portal" / "settings.py").read_text()
    read = set(re.findall(r'env(?:\.[a-z]+)?\(\s*"([A-Z][A-Z0-9_]*)"', settings_source))
    assert len(read) > 40
    example = (ROOT / ".env.example").read_text()
    listed = {line.lstrip("# ").split("=", 1)[0] for line in example.splitlines() if "=" in line}
    assert sorted(read - listed) == []


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_requirements_pin_the_runtime_dependencies_of_the_pins_too():
    # The image is built from requirements.txt alone: whatever it leaves open comes at its
    # newest with the next build, untested.
    from importlib import metadata

    from packaging.markers import default_environment
    from packaging.requirements import Requirement

    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            requirement = Requirement(line)
            pins[_normal(requirement.name)] = requirement
    unpinned, seen = [], set()
    todo = [(name, set(req.extras)) for name, req in pins.items()]
    while todo:
        name, extras = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name not in pins:
            unpinned.append(name)
        for line in metadata.distribution(name).requires or []:
            requirement = Requirement(line)
            wanted = not requirement.marker or any(
                requirement.marker.evaluate({**default_environment(), "extra": extra})
                for extra in (extras or {""})
            )
            if wanted:
                todo.append((_normal(requirement.name), set(requirement.extras)))
    assert sorted(unpinned) == []
    assert all(str(req.specifier).startswith("==") for req in pins.values())


def test_a_stopped_worker_is_given_the_time_its_running_tasks_may_take():
    from django.conf import settings

    grace = _compose()["services"]["worker"]["stop_grace_period"]
    assert grace.endswith("s")
    assert int(grace[:-1]) > settings.CELERY_TASK_TIME_LIMIT


def test_every_service_rotates_its_logs():
    for name, service in _compose()["services"].items():
        options = service.get("logging", {}).get("options", {})
        assert options.get("max-size") and options.get("max-file"), name


def test_nginx_fronts_gunicorn_which_is_not_exposed():
    services = _compose()["services"]
    assert "ports" not in services["web"], "gunicorn must be reached through nginx only"
    proxy = services["nginx"]
    assert proxy["image"].startswith("nginx:")
    assert proxy["ports"]
    assert any("deploy/nginx/portal.conf" in volume for volume in proxy["volumes"])
    assert any(volume.startswith("static:") for volume in proxy["volumes"])
    assert any(volume.startswith("static:") for volume in services["web"]["volumes"])
    environment = services["nginx"]["environment"]
    assert environment["PORTAL_UPSTREAM"] == "web:8000"


def test_compose_health_checks_use_readyz():
    services = _compose()["services"]
    for name in ("web", "nginx", "beat"):
        assert "/readyz/" in " ".join(services[name]["healthcheck"]["test"]), name


def test_the_nginx_configuration_is_valid(tmp_path):
    from deploy import stack

    conf = stack.render_nginx(
        tmp_path / "nginx", listen=stack.free_port(), upstream="127.0.0.1:9", static_root=tmp_path
    )
    result = subprocess.run(
        [stack.nginx_binary(), "-t", "-c", str(conf), "-p", str(conf.parent)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    text = (conf.parent / "portal.conf").read_text()
    assert "client_max_body_size 257m;" in text  # the portal's 256 MiB plus multipart framing
    assert "${" not in text


def _slow_upload(port: int, stop: threading.Event, sent: list[int]) -> None:
    """POST /api/v1/evidence/ one byte a second, headers included (as the attack did)."""
    request = (
        b"POST /api/v1/evidence/ HTTP/1.1\r\nHost: localhost\r\n"
        b"Authorization: Bearer gpt_slow\r\n"
        b"Content-Type: multipart/form-data; boundary=x\r\nContent-Length: 10000\r\n\r\n"
    ) + b"x" * 10000
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        for byte in request:
            if stop.is_set():
                return
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                return  # nginx dropped it (client_header_timeout): what it is there for
            sent.append(1)
            stop.wait(1.0)


def test_slow_uploaders_do_not_stall_the_portal_behind_nginx(
    subprocess_env, transactional_db, tmp_path
):
    """10 clients sending 1 byte/s to gunicorn's 3 sync workers through nginx: /healthz/
    answers fast throughout (p95 < 1 s); without nginx, three such clients stalled it."""
    from deploy import stack

    app_port, proxy_port = stack.free_port(), stack.free_port()
    env = {**subprocess_env, "SECURE_SSL_REDIRECT": "0"}
    app = stack.gunicorn(app_port, env, tmp_path / "gunicorn.log").start()
    conf = stack.render_nginx(
        tmp_path / "nginx",
        listen=proxy_port,
        upstream=f"127.0.0.1:{app_port}",
        static_root=tmp_path,
    )
    proxy = stack.nginx(conf, tmp_path / "nginx.log").start()
    stop = threading.Event()
    sent: list[int] = []
    uploaders = [
        threading.Thread(target=_slow_upload, args=(proxy_port, stop, sent), daemon=True)
        for _ in range(10)
    ]
    try:
        health = f"http://127.0.0.1:{proxy_port}/healthz/"
        stack.wait_for(lambda: stack.http_ok(health), timeout=30, what="gunicorn behind nginx")
        for thread in uploaders:
            thread.start()
        latencies = []
        deadline = time.monotonic() + 7  # each uploader sends ~7 bytes meanwhile
        while time.monotonic() < deadline:
            started = time.monotonic()
            assert stack.http_ok(health, timeout=10)
            latencies.append(time.monotonic() - started)
            time.sleep(0.2)
    finally:
        stop.set()
        proxy.stop()
        app.stop()
    latencies.sort()
    p95 = latencies[int(len(latencies) * 0.95) - 1]
    assert len(sent) >= 60, "the slow uploaders kept sending throughout"
    assert p95 < 1.0, f"/healthz/ p95 {p95:.2f} s under 10 slow uploaders"
