"""The collector in English and Chinese: chosen by --lang or the locale, for its own messages
(the tools it runs keep LC_ALL=C), asked of the portal with Accept-Language, and complete: every
message it prints has its Chinese text."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from .test_collect import (
    COLLECTOR,
    INTERPRETERS,
    FakePortal,
    bundle_at,
    clean_env,
    collect,
    run_collector,
    upload_args,
)

CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
# An ASCII punctuation mark touching Chinese text (spaces between allowed): the full-width one
# was meant.
ASCII_BESIDE_CHINESE = re.compile(rf"[{CJK}]\s*[:;,()!?]|[:;,()!?]\s*[{CJK}]")
OPTION = re.compile(r"--[a-z][a-z-]*")
PERCENT = re.compile(r"%\(\w+\)\w|%\w")


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _tree() -> ast.Module:
    return ast.parse(COLLECTOR.read_text(encoding="utf-8"))


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


# --------------------------------------------------------------------------- the table


def test_every_message_has_its_chinese_text_and_the_table_nothing_else() -> None:
    marked = {
        node.args[0].value
        for node in ast.walk(_tree())
        if isinstance(node, ast.Call)
        and _called(node) in ("tr", "N_")
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }
    assert len(marked) > 90  # the help, the errors, the progress and the portal's answers
    assert sorted(marked - set(collect.ZH)) == [], "messages without a Chinese text"
    assert sorted(set(collect.ZH) - marked) == [], "Chinese texts no message uses"


@pytest.mark.parametrize("english", sorted(collect.ZH))
def test_each_chinese_text_fits_its_english_one(english: str) -> None:
    chinese = collect.ZH[english]
    assert re.search(f"[{CJK}]", chinese), chinese
    assert _placeholders(chinese) == _placeholders(english)
    assert sorted(PERCENT.findall(chinese)) == sorted(PERCENT.findall(english))
    # Option names and URLs stay as they are.
    assert set(OPTION.findall(chinese)) == set(OPTION.findall(english))
    assert ASCII_BESIDE_CHINESE.search(chinese) is None, chinese
    assert chinese.endswith(" ") == english.endswith(" ")


def test_argparse_texts_keep_their_format_specifiers() -> None:
    for english, chinese in collect.ARGPARSE_ZH.items():
        assert re.search(f"[{CJK}]", chinese), chinese
        assert sorted(PERCENT.findall(chinese)) == sorted(PERCENT.findall(english)), english


EVIDENCE_WRITERS = ("tcping", "npu_smi_details")


def test_nothing_is_printed_without_going_through_the_table() -> None:
    """What the collector prints, writes or raises for a person is a tr() call (or words of
    another origin: a path, a command line); English words in a literal there were missed.
    tcping and npu_smi_details are left out: their output is evidence the portal parses, like
    ping's and npu-smi's."""
    shown = {"print", "write", "error", "ValueError"}
    missed = []
    for function in ast.walk(_tree()):
        if not isinstance(function, ast.FunctionDef) or function.name in EVIDENCE_WRITERS:
            continue
        for node in ast.walk(function):
            if not (isinstance(node, ast.Call) and _called(node) in shown):
                continue
            for arg in node.args:
                literals = [
                    part.value
                    for part in ast.walk(arg)
                    if isinstance(part, ast.Constant) and isinstance(part.value, str)
                    and not any(
                        isinstance(call, ast.Call) and _called(call) == "tr"
                        and part in list(ast.walk(call))
                        for call in ast.walk(arg)
                    )
                ]  # fmt: skip
                missed += [
                    (node.lineno, text) for text in literals if re.search("[A-Za-z]{2}", text)
                ]
    assert missed == []


# --------------------------------------------------------------------------- the choice


@pytest.mark.parametrize(
    ("argv", "environ", "expected"),
    [
        ([], {}, "en"),
        ([], {"LANG": "zh_CN.UTF-8"}, "zh"),
        ([], {"LANG": "zh_TW.Big5"}, "zh"),
        ([], {"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "zh"),
        ([], {"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "en_US.UTF-8"}, "en"),
        ([], {"LANG": "zh_CN.UTF-8", "LC_ALL": "C"}, "en"),  # LC_ALL first, even "C"
        ([], {"LC_ALL": "zh_CN.UTF-8", "LC_MESSAGES": "C", "LANG": "C"}, "zh"),
        ([], {"LC_ALL": "", "LANG": "zh_SG"}, "zh"),  # set but empty: not consulted
        (["--lang", "en"], {"LC_ALL": "zh_CN.UTF-8"}, "en"),
        (["--no-upload", "--lang=zh"], {"LANG": "C"}, "zh"),
        (["--lang", "zh", "--lang", "en"], {}, "en"),  # the last one, as argparse reads it
        (["--lang", "fr"], {"LANG": "zh_CN"}, "zh"),  # argparse refuses it, in Chinese
    ],
)
def test_the_language_comes_from_lang_then_the_posix_locale(
    argv: list[str], environ: dict[str, str], expected: str
) -> None:
    assert collect.language_from(argv, environ) == expected


# --------------------------------------------------------------------------- real runs


LANGUAGES = [
    pytest.param(["--lang", "zh"], {}, id="--lang-zh"),
    pytest.param([], {"LANG": "zh_CN.UTF-8"}, id="LANG-zh_CN"),
]


@pytest.mark.parametrize(("option", "locale"), LANGUAGES)
def test_a_refused_upload_is_told_in_chinese_and_the_portal_asked_for_chinese(
    option: list[str], locale: dict[str, str], portal: FakePortal, tmp_path: Path
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = clean_env(str(empty), **locale)
    portal.post_answers = [(403, {"detail": "此上传令牌已被吊销。"})]

    run = run_collector([*upload_args(portal), *option], env, tmp_path)

    assert run.returncode == 3
    assert [r["headers"]["Accept-Language"] for r in portal.requests] == ["zh-Hans", "zh-Hans"]
    assert "[1/11] nvidia-smi ... 缺失（未安装）" in run.stderr
    assert "此节点未安装：nvidia-smi、nvidia-smi-q、" in run.stderr
    assert "错误：门户拒绝了结果包（HTTP 403）：此上传令牌已被吊销。" in run.stderr
    assert "结果包保留在 b.tgz" in run.stderr
    assert "refused" not in run.stderr and "error:" not in run.stderr
    # The bundle itself, for the portal's parsers, stays in English.
    manifest = bundle_at(tmp_path / "b.tgz").manifest
    assert manifest is not None
    assert manifest.commands[0].error == "nvidia-smi is not installed"


def test_english_by_default_and_asked_of_the_portal(portal: FakePortal, tmp_path: Path) -> None:
    env = clean_env(str(tmp_path))  # LANG=C.UTF-8
    portal.post_answers = [(403, {"detail": "This upload token has been revoked."})]

    run = run_collector(upload_args(portal), env, tmp_path)

    assert run.returncode == 3
    assert [r["headers"]["Accept-Language"] for r in portal.requests] == ["en", "en"]
    assert "error: the portal refused the bundle (HTTP 403): This upload token" in run.stderr
    assert not re.search(f"[{CJK}]", run.stderr + run.stdout)


def test_the_import_result_is_told_in_chinese(portal: FakePortal, tmp_path: Path) -> None:
    accepted = {"id": 7, "status": "queued", "status_url": "/api/v1/evidence/7/"}
    portal.post_answers = [(202, accepted)]
    done = {
        "status": "done",
        "kinds_display": ["nccl-tests", "lscpu"],
        "report": [{"file": "fio.txt", "ok": False, "missing": False, "error": "line 3: no job"}],
        # The portal's own reasons, in the language asked for (the report keeps the English).
        "unread_display": [{"file": "fio.txt", "error": "fio：第 3 行：没有作业结果"}],
    }
    portal.status_answers = [(200, done)]
    args = upload_args(portal)
    args[args.index("--wait") + 1] = "5"

    run = run_collector([*args, "--lang", "zh"], clean_env(str(tmp_path)), tmp_path)

    assert run.returncode == 0, run.stderr
    assert "结果包已接收：上传 7，状态：排队中" in run.stdout
    assert "导入完成，已读取：nccl-tests、lscpu" in run.stdout
    assert "  未能读取：fio.txt：fio：第 3 行：没有作业结果" in run.stdout
    assert "line 3" not in run.stdout
    assert portal.requests[-1]["headers"]["Accept-Language"] == "zh-Hans"


def test_an_unwritable_bundle_is_told_in_chinese_and_the_tools_still_run_in_c(
    tmp_path: Path,
) -> None:
    """LANG=zh_CN for the collector; its tools get LC_ALL=C and LANG=C all the same."""
    tools = tmp_path / "bin"
    tools.mkdir()
    seen = tmp_path / "seen.txt"
    lscpu = tools / "lscpu"
    lscpu.write_text(f'#!/bin/sh\necho "LC_ALL=$LC_ALL LANG=$LANG" > {seen}\n')
    lscpu.chmod(0o755)
    env = clean_env(str(tools), LANG="zh_CN.UTF-8")

    run = run_collector(["--no-upload", "--out", "no-such-dir/b.tgz"], env, tmp_path)

    assert run.returncode == 1
    assert "错误：无法写入结果包 no-such-dir/b.tgz：" in run.stderr
    assert "提示：没有随机数" in run.stderr
    assert "] lscpu ... 成功 " in run.stderr
    assert seen.read_text() == "LC_ALL=C LANG=C\n"


@pytest.mark.parametrize("python", INTERPRETERS)  # argparse's texts differ between versions
def test_usage_errors_and_help_in_chinese(python: str, tmp_path: Path) -> None:
    env = clean_env(str(tmp_path))

    def run(*args: str):
        return run_collector(["--lang", "zh", *args], env, tmp_path, python=python)

    refused = run("--portal", "ftp://x", "--token", "t")
    wrong = run("--no-upload", "--dcgm-level", "5")
    usage = run("--help")

    assert refused.returncode == 2
    assert "用法：collect.py" in refused.stderr
    assert "collect.py：错误：--portal 必须是 http:// 或 https:// 网址" in refused.stderr
    assert wrong.returncode == 2
    assert "参数 --dcgm-level：无效的取值：5" in wrong.stderr
    assert usage.returncode == 0
    assert "\n选项：\n" in usage.stdout and "\n多节点模式：\n" in usage.stdout
    assert "上传令牌（或设置环境变量 GPU_PORTAL_TOKEN）" in usage.stdout
    assert "默认 2700" in usage.stdout  # argparse's %(default)g filled in the Chinese help


def test_a_terminal_that_cannot_show_chinese_gets_english(tmp_path: Path) -> None:
    env = clean_env(str(tmp_path), PYTHONIOENCODING="latin-1")

    run = run_collector(["--lang", "zh", "--portal", "ftp://x", "--token", "t"], env, tmp_path)

    assert run.returncode == 2
    assert "collect.py: error: --portal must be an http:// or https:// URL" in run.stderr
    assert "Traceback" not in run.stderr
