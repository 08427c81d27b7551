"""The production stack on loopback, from this repository: nginx (Debian's) in front of
gunicorn, Celery worker and beat, and, for bench/soak.py, a private Redis and a private
PostgreSQL cluster. Used by bench/soak.py and the deployment tests; never touches the shared
services on 5432/6379.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import string
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NGINX_DIR = ROOT / "deploy" / "nginx"
MIB = 1024 * 1024


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (path for path in ("/usr/sbin/nginx",) if os.access(path, os.X_OK)), None
    )


def upload_body_limit(max_upload_bytes: int) -> str:
    """nginx's size for the evidence endpoint: the portal's limit plus the multipart framing
    (portal.api.evidence.MULTIPART_OVERHEAD_BYTES), rounded up to MiB."""
    return f"{-(-(max_upload_bytes + 64 * 1024) // MIB)}m"


def system_resolver(resolv_conf: Path = Path("/etc/resolv.conf")) -> str:
    """The first name server this machine uses (nginx's resolver reads no /etc/resolv.conf)."""
    try:
        lines = resolv_conf.read_text().splitlines()
    except OSError:
        lines = []
    for line in lines:
        fields = line.split()
        if len(fields) >= 2 and fields[0] == "nameserver":
            return f"[{fields[1]}]" if ":" in fields[1] else fields[1]
    return "127.0.0.1"


def render_nginx(
    directory: Path,
    *,
    listen: int,
    upstream: str,
    static_root: Path,
    max_upload_bytes: int = 256 * MIB,
    max_body: str = "21m",
    resolver: str | None = None,
) -> Path:
    """Write a complete nginx.conf around deploy/nginx/portal.conf; returns its path.

    ``resolver`` (address[:port]) resolves a name in ``upstream``; this machine's name server
    by default (an address in ``upstream`` is never looked up)."""
    directory.mkdir(parents=True, exist_ok=True)
    for sub in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (directory / "tmp" / sub).mkdir(parents=True, exist_ok=True)
        # nginx's workers run as nobody: they write request bodies here.
        os.chmod(directory / "tmp" / sub, 0o1777)  # noqa: S103
    os.chmod(directory, 0o755)  # noqa: S103 - nobody must reach the files below
    values = {
        "PORTAL_LISTEN": f"127.0.0.1:{listen}",
        "PORTAL_UPSTREAM": upstream,
        "PORTAL_RESOLVER": resolver or system_resolver(),
        "PORTAL_STATIC_ROOT": str(static_root),
        "PORTAL_MAX_UPLOAD": upload_body_limit(max_upload_bytes),
        "PORTAL_MAX_BODY": max_body,
    }
    # Only the PORTAL_ names: nginx's own $variables stay as they are (like envsubst with a list).
    server = string.Template((NGINX_DIR / "portal.conf").read_text())
    rendered = server.safe_substitute(values)
    (directory / "portal.conf").write_text(rendered)
    shutil.copy(NGINX_DIR / "portal_proxy_params", directory / "portal_proxy_params")
    tmp = directory / "tmp"
    user = "user nobody nogroup;\n" if os.geteuid() == 0 else ""
    conf = directory / "nginx.conf"
    conf.write_text(
        f"""{user}daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {directory}/portal.conf;
}}
"""
    )
    return conf


@dataclass
class Service:
    """One process of the stack, its log file, and how it is stopped."""

    name: str
    argv: list[str]
    env: dict[str, str]
    log: Path
    cwd: Path = ROOT
    process: subprocess.Popen | None = field(default=None, repr=False)

    def start(self) -> Service:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        handle = self.log.open("ab")
        self.process = subprocess.Popen(  # noqa: S603 - our own argv
            self.argv,
            env=self.env,
            cwd=self.cwd,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        handle.close()
        return self

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, sig: int) -> None:
        """Signal the process group (gunicorn's and Celery's children too)."""
        if self.running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)

    def stop(self, timeout: float = 15.0) -> None:
        if not self.running:
            return
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.process.wait(5)

    def kill(self) -> None:
        self.signal(signal.SIGKILL)
        if self.process is not None:
            self.process.wait(10)


def wait_for(check, *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Exception as exc:
            last = exc
        time.sleep(0.2)
    raise TimeoutError(f"{what} not ready after {timeout:.0f} s ({last})")


def http_ok(url: str, timeout: float = 2.0) -> bool:
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - loopback
        return response.status == 200


def gunicorn(port: int, env: dict[str, str], log: Path, *, workers: int = 3) -> Service:
    """gunicorn as in compose: sync workers, bound to loopback only."""
    argv = [
        sys.executable,
        "-m",
        "gunicorn",
        "portal.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--timeout",
        "60",
        "--graceful-timeout",
        "10",
    ]
    return Service("gunicorn", argv, env, log)


def nginx(conf: Path, log: Path) -> Service:
    binary = nginx_binary()
    if binary is None:
        raise RuntimeError("nginx is not installed (scripts/lib.sh: ensure_nginx)")
    return Service(
        "nginx", [binary, "-c", str(conf), "-p", str(conf.parent)], dict(os.environ), log
    )


def celery_worker(env: dict[str, str], log: Path, *, concurrency: int = 2) -> Service:
    argv = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "portal",
        "worker",
        "--pool",
        "prefork",
        "--concurrency",
        str(concurrency),
        "--without-mingle",
        "--without-gossip",
        "--loglevel",
        "INFO",
    ]
    return Service("worker", argv, env, log)


def celery_beat(env: dict[str, str], log: Path, schedule: Path) -> Service:
    argv = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "portal",
        "beat",
        "--loglevel",
        "INFO",
        "--schedule",
        str(schedule),
    ]
    return Service("beat", argv, env, log)


def redis_server(port: int, directory: Path) -> Service:
    binary = shutil.which("redis-server")
    if binary is None:
        raise RuntimeError("redis-server is not installed")
    argv = [
        binary,
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        str(directory),
    ]
    return Service("redis", argv, dict(os.environ), directory / "redis.log")


def _pg_bin(name: str) -> str:
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    if not candidates:
        raise RuntimeError(f"PostgreSQL's {name} is not installed")
    return str(candidates[0])


def _as_postgres(argv: list[str]) -> list[str]:
    # initdb and postgres refuse to run as root.
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def postgres_init(directory: Path) -> Path:
    """initdb a private cluster (trust auth on loopback) in ``directory``/data."""
    directory.mkdir(parents=True, exist_ok=True)
    data = directory / "data"
    if os.geteuid() == 0:
        shutil.chown(directory, "postgres")
        os.chmod(directory, 0o755)  # noqa: S103 - the postgres user works here
    subprocess.run(  # noqa: S603
        _as_postgres(
            [_pg_bin("initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8"]
        ),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return data


def postgres_server(data: Path, port: int) -> Service:
    argv = _as_postgres(
        [
            _pg_bin("postgres"),
            "-D",
            str(data),
            "-p",
            str(port),
            "-c",
            "listen_addresses=127.0.0.1",
            "-c",
            f"unix_socket_directories={data.parent}",
            "-c",
            "fsync=off",
            "-c",
            "max_connections=200",
        ]
    )
    return Service("postgres", argv, dict(os.environ), data.parent / "postgres.log")


def pg_ready(port: int) -> bool:
    result = subprocess.run(  # noqa: S603
        [_pg_bin("pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(port)], check=False
    )
    return result.returncode == 0
