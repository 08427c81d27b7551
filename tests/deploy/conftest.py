"""A private PostgreSQL cluster and Redis (deploy/stack.py) on free ports, for the upgrade and
outage tests: they migrate, stop and start these, never the shared 5432 and 6379.

One cluster and one Redis serve the whole run (initdb, starting and stopping them took ~15 s per
module); each module gets them as a fresh stack would be: both running, Redis empty, no database
an earlier module created, and an empty media folder."""

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

from deploy import stack

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class PrivateStack:
    directory: Path
    pg_port: int
    redis_port: int
    postgres: stack.Service
    redis: stack.Service
    databases: list[str] = field(default_factory=list)  # created by createdb, newest last

    def env(self, database: str = "portal", **extra: str) -> dict[str, str]:
        """The production settings (portal.settings) on the private services."""
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("DJANGO_", "DATABASE_", "CELERY_", "CACHE_", "MEDIA_"))
        }
        env.update(
            DJANGO_SETTINGS_MODULE="portal.settings",
            DATABASE_URL=f"postgres://postgres@127.0.0.1:{self.pg_port}/{database}",
            CELERY_BROKER_URL=f"redis://127.0.0.1:{self.redis_port}/0",
            CACHE_URL=f"redis://127.0.0.1:{self.redis_port}/1",
            CELERY_TASK_ALWAYS_EAGER="0",
            MEDIA_ROOT=str(self.directory / "media"),
            SECRET_KEY="private-stack-only-secret-key-5d1c9e3a7b2f4e6a8c0d1e3f5a7b9c2d4e6f",
            DEBUG="0",
            SECURE_SSL_REDIRECT="0",
            CONN_MAX_AGE="0",
        )
        env.update(extra)
        return env

    def _pg_tool(self, tool: str, *args: str) -> None:
        """Run PostgreSQL's client ``tool`` (createdb, dropdb) against this stack's server."""
        command = [stack._pg_bin(tool), "-h", "127.0.0.1", "-p", str(self.pg_port)]
        subprocess.run([*command, "-U", "postgres", *args], check=True)

    def createdb(self, name: str) -> None:
        self._pg_tool("createdb", name)
        self.databases.append(name)

    def reset(self) -> None:
        """Back to a fresh stack: PostgreSQL and Redis running, the databases created so far
        dropped (their connections ended), Redis emptied, the media folder empty."""
        if not self.postgres.running:
            self.start_postgres()
        if not self.redis.running:
            self.start_redis()
        while self.databases:
            self._pg_tool("dropdb", "--force", "--if-exists", self.databases.pop())
        client = redis.Redis(port=self.redis_port)
        try:
            client.flushall()
        finally:
            client.close()
        shutil.rmtree(self.directory / "media", ignore_errors=True)

    def start_postgres(self) -> None:
        self.postgres.start()
        stack.wait_for(lambda: stack.pg_ready(self.pg_port), timeout=60, what="PostgreSQL")

    def start_redis(self) -> None:
        self.redis.start()
        port = self.redis_port
        stack.wait_for(lambda: _redis_answers(port), timeout=30, what="Redis")


def _redis_answers(port: int) -> bool:
    client = redis.Redis(port=port, socket_connect_timeout=0.5)
    try:
        return bool(client.ping())
    finally:
        client.close()


def manage(
    env: dict[str, str], *args: str, timeout: float = 300, cwd: Path = ROOT
) -> subprocess.CompletedProcess:
    """``python manage.py *args`` in a subprocess (of the tree at ``cwd``: this checkout by
    default); fails the test with its output on an error."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"manage.py {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="session")
def _private_stack_of_the_run():
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not installed")
    # Not under pytest's tmp_path: the postgres user must reach the data directory.
    directory = Path(tempfile.mkdtemp(prefix="portal-private-", dir="/tmp"))
    os.chmod(directory, 0o755)  # noqa: S103 - the postgres user works below
    (directory / "redis").mkdir()
    pg_port, redis_port = stack.free_port(), stack.free_port()
    data = stack.postgres_init(directory / "pg")
    private = PrivateStack(
        directory,
        pg_port,
        redis_port,
        stack.postgres_server(data, pg_port),
        stack.redis_server(redis_port, directory / "redis"),
    )
    try:
        private.start_postgres()
        private.start_redis()
        yield private
    finally:
        private.redis.stop()
        private.postgres.stop(timeout=30)
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def private_stack(_private_stack_of_the_run):
    """The run's private stack, as fresh as a new one: what an earlier module created or
    stopped is gone or running again, before and after this module."""
    _private_stack_of_the_run.reset()
    yield _private_stack_of_the_run
    _private_stack_of_the_run.reset()
