"""Key figures of the real outputs added in the fourth corpus batch, read by hand from each file.

Each row: the sample, its kind as detected from the content, and the figures the parser must
return (checked against the tool's own text, not against a previous parser run). The error
cases (a run cut before its first result) must fail with their kind, their line and the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scoring.evidence import PARSERS, registry
from scoring.evidence.base import EvidenceParseError

Sample = Callable[[str], str]

EXPECTED: list[tuple[str, str, dict[str, Any]]] = [
    (
        # "WRITE: bw=382KiB/s (391kB/s)"; the prompt "root@truenas[...]# fio ..." is the
        # command line: --filename=test-data --size=22m, no --direct (buffered).
        "fio/k8s-homelab-fio325-fdatasync-write-truenas-prompt.txt",
        "fio",
        {
            "format": "normal",
            "fio_version": "fio-3.25",
            "write_bw_mbyte_s": 0.391,
            "write_iops": 95.0,
            "write_clat_mean_us": 28.03,
            "read_bw_mbyte_s": None,
        },
    ),
    (
        # Job1's "read: IOPS=64, BW=259KiB/s (266kB/s)"; cut before job2 and Run status.
        "fio/kubestr-issue74-fio320-two-jobs-busybox-prompt-cut-in-job1.txt",
        "fio",
        {
            "fio_version": "fio-3.20",
            "read_bw_mbyte_s": 0.266,
            "read_iops": 64.0,
            "jobnames": ["job1"],
            "rw": ["randread"],
        },
    ),
    (
        # "read: IOPS=1960, BW=1960MiB/s (2056MB/s)"; cut before the write block.
        "fio/fio-issue1620-fio335-dev-readwrite-cut-after-read-block.txt",
        "fio",
        {
            "fio_version": "fio-3.35-116-gb311",
            "read_bw_mbyte_s": 2056.0,
            "read_iops": 1960.0,
            "write_bw_mbyte_s": None,
            "rw": ["rw"],
        },
    ),
    (
        "nvidia_smi/gpu-operator-issue259-driver-validation-log-2xv100-driver470-cut-in-gpu1.txt",
        "nvidia_smi",
        {
            "driver_version": "470.57.02",
            "cuda_version": "11.4",
            "gpu_count": 2,
            "gpu_count_partial": "cut",
            "bus_ids": ["00000000:3B:00.0", "00000000:D8:00.0"],
            "memory_total_mib": [32510, None],
        },
    ),
    (
        "nvidia_smi/gpu-operator-issue510-kubectl-exec-defaulted-container-t4-driver525.txt",
        "nvidia_smi",
        {
            "driver_version": "525.60.13",
            "cuda_version": "12.0",
            "gpu_count": 1,
            "gpu_count_partial": None,
            "gpu_names": ["Tesla T4"],
            "memory_total_mib": [15360],
        },
    ),
    (
        "dcgm_diag/autopilot-issue68-kubectl-exec-dcgm3.3.5-r3-4x20b5-cut-in-deployment.txt",
        "dcgm_diag",
        {
            "overall": "incomplete",
            "dcgm_version": "3.3.5",
            "driver_version": "550.54.15",
            "gpu_device_ids": ["20b5", "20b5", "20b5", "20b5"],
            "failed_tests": [],
        },
    ),
    (
        "virt/systemd-issue17754-debug-log-uml-nested-in-kvm-says-kvm.txt",
        "virt",
        {"virt": "kvm", "virtual": True, "container": False, "vm_virt": "kvm"},
    ),
    (
        # Two runs' rows interleaved under the units line; the largest complete row is 1024 B
        # ("1024  256  float  sum  -1  47.44  0.02  0.02  0 ..."), busbw 0.02 at best.
        "nccl_tests/nccl-tests-issue182-units-line-two-runs-interleaved-rows-cut.txt",
        "nccl_tests",
        {"peak_busbw_gbyte_s": 0.02, "max_size_bytes": 1024, "wrong_total": 0},
    ),
]


@pytest.mark.parametrize(("path", "kind", "figures"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_real_output_figures(sample: Sample, path: str, kind: str, figures: dict[str, Any]) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == kind
    metrics = PARSERS[kind].parse(text).metrics
    assert {key: metrics[key] for key in figures} == figures


ERRORS: list[tuple[str, str, int, str]] = [
    (
        "nccl_tests/nccl-tests-issue249-a10g-markdown-ate-hashes-cut-at-first-row.txt",
        "nccl_tests",
        9,
        "header but no readable result rows",
    ),
    (
        "perftest/perftest-issue234-ib_write_bw-D10-server-cut-in-result-row.txt",
        "perftest",
        26,
        "bandwidth row has 2 columns",
    ),
]


@pytest.mark.parametrize(("path", "kind", "line", "reason"), ERRORS, ids=[e[0] for e in ERRORS])
def test_runs_cut_before_their_first_result(
    sample: Sample, path: str, kind: str, line: int, reason: str
) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == kind
    with pytest.raises(EvidenceParseError, match=reason) as err:
        PARSERS[kind].parse(text)
    assert (err.value.kind, err.value.line) == (kind, line)


def test_shell_prompts_before_the_fio_command_line(sample: Sample) -> None:
    # The prompt names user, host and directory, or is busybox's "/ # " in a pod: the options
    # are still read from the command line ("--directory /data" with a space, too).
    truenas = PARSERS["fio"].parse(
        sample("fio/k8s-homelab-fio325-fdatasync-write-truenas-prompt.txt")
    )
    (job,) = truenas.metrics["jobs"]
    assert (job["target"], job["direct"], job["file_size_bytes"]) == ("test-data", False, 23068672)
    pod = PARSERS["fio"].parse(
        sample("fio/kubestr-issue74-fio320-two-jobs-busybox-prompt-cut-in-job1.txt")
    )
    (job,) = pod.metrics["jobs"]
    assert (job["target"], job["file_size_bytes"]) == ("/data", 134217728)


def test_a_row_cut_inside_the_last_gpu_block_marks_the_count_partial(sample: Sample) -> None:
    text = sample(
        "nvidia_smi/gpu-operator-issue259-driver-validation-log-2xv100-driver470-cut-in-gpu1.txt"
    )
    # GPU 1 has two of its three rows, the second cut before its memory total.
    result = PARSERS["nvidia_smi"].parse(text)
    assert result.metrics["gpu_count_partial"] == "cut"
    complete = "\n".join(text.splitlines()[:13]) + "\n"  # up to GPU 0's closing border
    assert PARSERS["nvidia_smi"].parse(complete).metrics["gpu_count_partial"] is None


def test_an_nccl_excerpt_starting_at_the_units_line_is_recognised(sample: Sample) -> None:
    text = sample("nccl_tests/nccl-tests-issue182-units-line-two-runs-interleaved-rows-cut.txt")
    assert text.startswith("#        (B)    (elements)")
    assert PARSERS["nccl_tests"].detect(text) >= 45
