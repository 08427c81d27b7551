"""Tests of the kernel log (dmesg / journalctl -k) Xid and SXid parser on real logs."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scoring.evidence import kernel_log, registry
from scoring.evidence.base import EvidenceParseError

Sample = Callable[[str], str]


def test_dmesg_ctime_xid13_and_xid109(sample: Sample) -> None:
    result = kernel_log.parse(sample("kernel_log/gpud-pr46-dmesg-ctime-xid13-xid109.txt"))
    metrics = result.metrics
    assert metrics["xid_count"] == 4
    assert metrics["xid_codes"] == [13, 109]
    assert metrics["xid_by_code"] == {"13": 3, "109": 1}
    assert metrics["xid_gpus"] == ["0000:cb:00"]
    assert metrics["sxid_count"] == 0
    assert metrics["format"] == "dmesg_ctime"
    assert metrics["events"][3]["line"] == 5
    assert metrics["events"][3]["detail"].startswith("pid=1797828, name=pt_main_thread")
    assert isinstance(metrics["xid_count"], int)
    assert all(isinstance(code, int) for code in metrics["xid_codes"])


def test_previous_xid_in_the_text_is_not_an_event(sample: Sample) -> None:
    text = sample("kernel_log/ogkm-issue1150-journal-xid45-after-149-145.txt")
    metrics = kernel_log.parse(text).metrics
    assert metrics["xid_count"] == 8
    assert metrics["xid_codes"] == [45]
    assert metrics["xid_gpus"] == ["0000:dc:00", "0000:ed:00", "0000:ba:00", "0000:97:00"]
    assert metrics["format"] == "journal"


def test_plain_dmesg_seconds_prefix(sample: Sample) -> None:
    metrics = kernel_log.parse(
        sample("kernel_log/bumblebee-issue677-dmesg-xid32-xid31.txt")
    ).metrics
    assert (metrics["xid_count"], metrics["xid_codes"], metrics["format"]) == (3, [31, 32], "dmesg")


def test_sxid_line_of_dmesg_x(sample: Sample) -> None:
    metrics = kernel_log.parse(sample("kernel_log/gpud-pr338-dmesg-x-iso-sxid12028.txt")).metrics
    assert (metrics["sxid_count"], metrics["sxid_codes"], metrics["xid_count"]) == (1, [12028], 0)
    assert metrics["sxid_fatal_count"] == 0
    assert metrics["events"][0]["switch"] == "nvidia-nvswitch1"
    assert metrics["format"] == "dmesg_iso"


def test_fatal_and_non_fatal_sxid() -> None:
    # The two SXid severities as the NVSwitch driver prints them (format of the gpud sample).
    text = (
        "[123.456789] nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 20009, Non-fatal, Link 28 RX\n"
        "[123.456791] nvidia-nvswitch0: SXid (PCI:0000:c3:00.0): 24007, Fatal, Link 30 timeout\n"
    )
    metrics = kernel_log.parse(text).metrics
    assert (metrics["sxid_count"], metrics["sxid_fatal_count"]) == (2, 1)
    assert metrics["sxid_codes"] == [20009, 24007]


def test_clean_log_is_a_result_with_zero_xids(sample: Sample) -> None:
    text = sample("kernel_log/devmachine-kvm-dmesg-clean-boot-excerpt.txt")
    assert registry.detect_kind(text) == "kernel_log"
    result = kernel_log.parse(text)
    assert (result.metrics["xid_count"], result.metrics["sxid_count"]) == (0, 0)
    assert result.metrics["xid_codes"] == []
    assert "no Xid or SXid line in this log" in result.warnings


@pytest.mark.parametrize(
    "path",
    [
        "kernel_log/gpud-pr46-dmesg-ctime-xid13-xid109.txt",
        "kernel_log/ogkm-issue1150-journal-xid45-after-149-145.txt",
        "kernel_log/bumblebee-issue677-dmesg-xid32-xid31.txt",
        "kernel_log/gpud-pr338-dmesg-x-iso-sxid12028.txt",
    ],
)
def test_registry_detects_kernel_logs(sample: Sample, path: str) -> None:
    assert registry.detect_kind(sample(path)) == "kernel_log"


def test_other_text_is_refused_with_a_clear_error() -> None:
    with pytest.raises(EvidenceParseError, match="no kernel log found"):
        kernel_log.parse("hello\nworld\n")


def test_fallen_off_the_bus() -> None:
    text = "[12345.678901] NVRM: Xid (PCI:0000:18:00): 79, pid=1234, GPU has fallen off the bus.\n"
    metrics = kernel_log.parse(text).metrics
    assert metrics["gpu_fallen_off_bus"] is True
    assert metrics["xid_codes"] == [79]


def test_syslog_lines_with_host_prefix_fallen_off_the_bus(sample) -> None:
    path = "kernel_log/forum-syslog-hostname-prefix-xid79-fallen-off-bus.txt"
    m = kernel_log.parse(sample(path)).metrics
    assert (m["xid_count"], m["xid_codes"]) == (1, [79])
    assert m["xid_gpus"] == ["0000:01:00"]
    assert m["gpu_fallen_off_bus"] is True
    assert (m["kernel_lines"], m["line_count"]) == (7, 14)  # gnome-session lines are not kernel


def test_old_driver_xid_without_pid_and_name(sample) -> None:
    m = kernel_log.parse(sample("kernel_log/forum-dmesg-xid62-driver340-os-schedule.txt")).metrics
    assert (m["xid_count"], m["xid_codes"]) == (1, [62])
    assert m["events"][0]["detail"] == "12b2(1fa0) 00000000 00000000"
    assert m["gpu_fallen_off_bus"] is False


def test_fallen_off_the_bus_wrapped_over_nvrm_lines_without_xid(sample: Sample) -> None:
    # Newer drivers print the sentence over three NVRM lines and no Xid 79 at all.
    text = sample("kernel_log/nvsentinel-issue155-dmesg-fallen-off-bus-wrapped-no-xid.txt")
    metrics = kernel_log.parse(text).metrics
    assert metrics["gpu_fallen_off_bus"] is True
    assert metrics["xid_count"] == 0
    assert metrics["format"] == "dmesg"


def test_fallen_off_the_bus_needs_the_driver_sentence() -> None:
    text = "[ 1.000000] usb 1-1: new device\n[ 2.000000] my notes: not fallen off the bus\n"
    assert kernel_log.parse(text).metrics["gpu_fallen_off_bus"] is False


def test_gsp_rpc_timeout_xid119_between_rpc_history_tables(sample: Sample) -> None:
    text = sample("kernel_log/gpud-testdata-dmesg-ctime-xid119-gsp-rpc-timeout-xe9680.txt")
    metrics = kernel_log.parse(text).metrics
    assert metrics["xid_count"] == 5
    assert metrics["xid_by_code"] == {"119": 5}
    assert metrics["xid_gpus"] == ["0000:9b:00"]
    assert metrics["format"] == "dmesg_ctime"
    assert metrics["gpu_fallen_off_bus"] is False


def test_lines_of_the_nvidia_driver_are_counted_and_nothing_else() -> None:
    log = "\n".join(
        [
            "[    4.101] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.129.03",
            "[    4.102] nvidia: module license 'NVIDIA' taints kernel.",
            "[    4.200] nvidia 0000:17:00.0: enabling device (0000 -> 0002)",
            "[    4.300] nvidia-uvm: Loaded the UVM driver, major device number 510.",
            "[    4.400] nvidia-nvswitch3: Probing device 0000:05:00.0",
            "[    4.500] [drm] [nvidia-drm] [GPU ID 0x00001700] Loading driver",
            # Not the driver: a process named for it, a service, another device's vendor.
            '[    5.000] audit: type=1400 comm="nvidia-smi" exe="/usr/bin/nvidia-smi"',
            "[    5.100] systemd[1]: Started nvidia-persistenced.service.",
            "[    5.200] usb 1-1: Product: NVIDIA Shield",
        ]
    )
    metrics = kernel_log.parse(log).metrics
    assert (metrics["nvidia_driver_lines"], metrics["xid_count"]) == (6, 0)
    assert kernel_log.parse("[    1.0] Linux version 6.8.0\n").metrics["nvidia_driver_lines"] == 0


_UNSUPPORTED = (
    "[99083.966246] NVRM: The NVIDIA GPU 0000:05:00.0 (PCI ID: 10de:26b9)\n"
    "               NVRM: installed in this system is not supported by the\n"
    "               NVRM: NVIDIA 570.86.15 driver release.\n"
    "               NVRM: Please see 'Appendix A - Supported NVIDIA GPU Products'\n"
    "               NVRM: in this release's README, available on the operating system\n"
    "               NVRM: specific graphics driver download page at www.nvidia.com.\n"
    "[99083.967530] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
)


def test_the_indented_lines_of_one_dmesg_message_count_as_kernel_lines() -> None:
    # Two prefixed lines and five continuation lines: 2/7 prefixed read as no kernel log.
    assert registry.detect_kind(_UNSUPPORTED) == "kernel_log"


def test_indented_lines_without_the_message_tag_are_not_continuations() -> None:
    text = "[    1.000000] NVRM: loading\n    some other text\n    and more\n    and more\n"
    assert kernel_log.detect(text) == 0


@pytest.mark.parametrize(
    ("log", "line"),
    [
        (_UNSUPPORTED, 2),
        ("May 27 16:50:10 fedora kernel: NVRM: RmInitAdapter failed! (0x22:0x56:894)\n", 1),
        ("[    5.000000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15\n", None),
    ],
)
def test_a_gpu_the_driver_could_not_bring_up_is_no_clean_log(log: str, line: int | None) -> None:
    # Such a GPU logs no Xid: "no Xid" must not read as a healthy GPU without a word.
    warnings = kernel_log.parse(log).warnings
    flagged = [w for w in warnings if "could not bring a GPU up" in w]
    assert [w.split(":")[0] for w in flagged] == ([] if line is None else [f"line {line}"])
