"""The real collector against the real portal (a live server): the portal answers in the
language the collector asks for, and the collector says it in that language."""

import subprocess
import sys
from pathlib import Path

import pytest

from portal.models.evidence import TOKEN_PREFIX

COLLECTOR = Path(__file__).resolve().parents[2] / "collector" / "collect.py"


def _upload_only(
    portal: str, tmp_path: Path, *args: str, **env: str
) -> subprocess.CompletedProcess:
    bundle = tmp_path / "b.tgz"
    bundle.write_bytes(b"never read: the token is refused first")
    return subprocess.run(
        [sys.executable, str(COLLECTOR), "--portal", portal, "--upload-only", str(bundle),
         "--retries", "0", "--wait", "0", *args],
        env={"PATH": "/usr/bin:/bin", "GPU_PORTAL_TOKEN": f"{TOKEN_PREFIX}unknown", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "env"),
    [(["--lang", "zh"], {"LANG": "C.UTF-8"}), ([], {"LANG": "zh_CN.UTF-8"})],
    ids=["--lang-zh", "LANG-zh_CN"],
)
def test_a_refused_token_is_told_in_chinese(live_server, tmp_path, args, env):
    run = _upload_only(live_server.url, tmp_path, *args, **env)

    assert run.returncode == 3
    assert "错误：门户拒绝了结果包（HTTP 401）：未知的上传令牌。" in run.stderr
    assert f"结果包保留在 {tmp_path / 'b.tgz'}" in run.stderr


def test_english_by_default(live_server, tmp_path):
    run = _upload_only(live_server.url, tmp_path, LANG="C.UTF-8")

    assert run.returncode == 3
    assert "error: the portal refused the bundle (HTTP 401): Unknown upload token." in run.stderr
