"""Metrics shared by containers (compose's `metrics` volume): processes of different containers
have the same pids, and each must still write files of its own."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# A process of one container: pid 7 (every container numbers its processes from 1).
CHILD = """
import os, socket, sys
os.getpid = lambda: 7
socket.gethostname = lambda: sys.argv[1]
import portal.metrics as metrics
for view in ("evaluation-detail", "evidence-upload"):
    metrics.REQUEST_LATENCY.labels(view=view, method="GET", status="2xx").observe(0.1)
metrics.IMPORT_DURATION.labels(outcome="done").observe(1.0)
metrics.IMPORTS.labels(outcome="done").inc()
"""

READ = """
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
registry = CollectorRegistry()
MultiProcessCollector(registry)
print(generate_latest(registry).decode())
"""


def _run(code: str, directory: Path, *args: str) -> str:
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
        "DJANGO_SETTINGS_MODULE": "tests.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_processes_of_two_containers_with_the_same_pid_write_files_of_their_own(tmp_path):
    _run(CHILD, tmp_path, "3f2a9c1d0b7e")  # the web container's gunicorn worker
    _run(CHILD, tmp_path, "8d41e07c2a55")  # the worker container's pool child
    names = sorted(path.name for path in tmp_path.iterdir())
    assert len(names) == 4, names  # a counter and a histogram file per container
    assert all("3f2a9c1d0b7e" in name or "8d41e07c2a55" in name for name in names)
    scraped = _run(READ, tmp_path)
    assert 'portal_evidence_imports_total{outcome="done"} 2.0' in scraped
