"""lspci of Huawei Ascend nodes: the NPU functions (19e5:d802...) are counted, Huawei's other
devices are not, and no NVIDIA figure moves (samples and provenance in samples/PROVENANCE.tsv)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from scoring.evidence import lspci, registry

Sample = Callable[[str], str]

HOST = "lspci/kunpeng-notes-day7-ascend-8x-d802-hi171x-ibmc-vga-lspci-plain-prompt.txt"
KATA_VM = (
    "lspci/kata-ascend-npu-doc-kata-vm-one-d802-passed-through-qemu-virtio-lspci-arrow-note.txt"
)
GREP = "lspci/kata-ascend-npu-doc-euleros-host-lspci-grep-d802-8x-prompt.txt"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        # 91 devices, most of them Huawei's own (root ports, SAS, USB, DMA, HNS NICs, the iBMC
        # VGA): only the 8 "Device d802" functions are NPUs.
        (
            HOST,
            {
                "ascend_functions": 8,
                "ascend_device_ids": ["d802"],
                "nvidia_gpu_count": 0,
                "gpu_count_partial": None,
                "device_count": 91,
                "filtered": False,
                "virtual": None,
            },
        ),
        # The NPU passed into a kata VM, with the author's note after it; the VM's QEMU and
        # virtio devices betray the hypervisor.
        (
            KATA_VM,
            {
                "ascend_functions": 1,
                "ascend_device_ids": ["d802"],
                "nvidia_gpu_count": 0,
                "device_count": 9,
                "virtual": True,
            },
        ),
        (GREP, {"ascend_functions": 8, "nvidia_gpu_count": 0, "filtered": True}),
    ],
    ids=["host", "kata-vm", "grep"],
)
def test_ascend_functions_of_real_listings(sample: Sample, path: str, expected: dict) -> None:
    text = sample(path)
    assert registry.detect_kind(text) == "lspci"
    metrics = registry.parse_text(text, "lspci").metrics
    assert {key: metrics[key] for key in expected} == expected


def test_a_listing_without_ascend_counts_none(sample: Sample) -> None:
    for path in (
        "lspci/rhelai-host-hgx-h100-baremetal-lspci-Dnn.txt",
        "lspci/devmachine-kvm-lspci.txt",
        # Another maker's accelerator of the same PCI class.
        "lspci/tt-smi-issue67-tenstorrent-blackhole-lspci-vvv-d-1e52-no-nvidia-cut-in-devcap.txt",
    ):
        metrics = lspci.parse(sample(path)).metrics
        assert (metrics["ascend_functions"], metrics["ascend_device_ids"]) == (0, []), path


def test_ids_printed_by_lspci_nn_are_read_and_other_huawei_ids_are_not() -> None:
    text = "\n".join(
        [
            "0000:00:00.0 PCI bridge [0604]: Huawei Technologies Co., Ltd. HiSilicon PCIe Root "
            "Port with Gen4 [19e5:a120] (rev 30)",
            "0000:18:00.0 Processing accelerators [1200]: Huawei Technologies Co., Ltd. Device "
            "d803 [19e5:d803] (rev 20)",
            "0000:19:00.0 Processing accelerators [1200]: Huawei Technologies Co., Ltd. Device "
            "d803 [19e5:d803] (rev 20)",
            "0000:75:00.0 Processing accelerators [1200]: Huawei Technologies Co., Ltd. HiSilicon "
            "ZIP Engine [19e5:a250] (rev 21)",
            "0000:35:00.0 Ethernet controller [0200]: Huawei Technologies Co., Ltd. Device "
            "a222 [19e5:a222] (rev 21)",
        ]
    )
    metrics = lspci.parse(text).metrics
    assert (metrics["ascend_functions"], metrics["ascend_device_ids"]) == (2, ["d803"])
