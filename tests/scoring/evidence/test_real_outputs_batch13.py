"""Key figures of the real outputs added in the thirteenth corpus batch, read by hand.

The shapes: nvidia-smi -q -x of a GB200 compute tray (driver 580, <c2c_mode>Enabled</c2c_mode>,
PCIe Gen5 x16 beside the C2C link) and nvidia-smi -a of an x86 H100 SXM5 whose 545 driver prints
"GPU C2C Mode : Disabled" for a GPU that has no C2C link.
"""

from __future__ import annotations

import pytest

from scoring.evidence import registry
from tests.scoring.evidence.real_outputs import Figures, Sample, figures_test

GB200_X = (
    "nvidia_smi_xml/k8s-test-infra-qx-gb200-driver580-c2c-mode-enabled-fabric-healthy-x16-gen5-"
    "gpu0-only.xml.txt"
)
H100_DISABLED = (
    "nvidia_smi_query/princeton-pli-notes-della-h100-sxm5-driver545-a-gpu-c2c-mode-disabled-x86-"
    "prompt.txt"
)
GH200_Q = "nvidia_smi_query/nvsim-gh200-480gb-driver550-a-c2c-enabled-pcie-gen4-x1-passthrough.txt"

EXPECTED: list[Figures] = [
    (
        # "<attached_gpus>4", GPU 0 only (trimmed): "NVIDIA GB200", "189471 MiB", "<c2c_mode>
        # Enabled", "Pass-Through", link width 16x of 16x.
        GB200_X,
        "nvidia_smi_xml",
        {
            "driver_version": "580.173.02",
            "cuda_version": "13.0",
            "attached_gpus": 4,
            "gpu_count": 1,
            "gpu_names": ["NVIDIA GB200"],
            "memory_total_mib": [189471],
            "virtualization_mode": ["Pass-Through"],
            "c2c_mode": ["Enabled"],
            "c2c_enabled_gpus": 1,
            "pcie_link_width_max": [16],
            "pcie_link_width_current": [16],
        },
    ),
    (
        # "Product Name : NVIDIA H100 80GB HBM3", "GPU C2C Mode : Disabled", "81559 MiB", 16x.
        H100_DISABLED,
        "nvidia_smi_query",
        {
            "format": "q",
            "driver_version": "545.23.08",
            "cuda_version": "12.3",
            "gpu_count": 1,
            "product_names": ["NVIDIA H100 80GB HBM3"],
            "memory_total_mib": [81559],
            "c2c_mode": ["Disabled"],
            "c2c_enabled_gpus": 0,
            "virtualized": False,
            "pcie_link_width_current": [16],
            "ecc_volatile_uncorrected": 0,
        },
    ),
    (
        # An earlier batch's GH200 sample: "GPU C2C Mode : Enabled" beside its PCIe Gen4 x1.
        GH200_Q,
        "nvidia_smi_query",
        {"c2c_mode": ["Enabled"], "c2c_enabled_gpus": 1, "pcie_link_width_current": [1]},
    ),
    (
        # Driver 535 on an A100 prints no <c2c_mode>: no mode, no count.
        "nvidia_smi_xml/telegraf-a100-sxm4-80gb-mig-driver535-v12.xml.txt",
        "nvidia_smi_xml",
        {"c2c_mode": [None], "c2c_enabled_gpus": None},
    ),
]

test_real_output_figures = figures_test(EXPECTED)


@pytest.mark.parametrize(("path", "count"), [(GB200_X, 1.0), (H100_DISABLED, 0.0), (GH200_Q, 1.0)])
def test_the_c2c_mode_is_a_stored_fact(sample: Sample, path: str, count: float) -> None:
    facts = {f.metric: f.value for f in registry.parse_text(sample(path)).facts}
    assert facts["c2c_enabled_gpus"] == count


@pytest.mark.parametrize(
    ("printed", "mode"),
    [("Enabled", "Enabled"), ("Disabled", "Disabled"), ("N/A", None), ("[Unknown Error]", None)],
)
def test_only_enabled_and_disabled_are_a_c2c_mode(printed: str, mode: str | None) -> None:
    q = (
        "Attached GPUs : 1\nGPU 00000000:01:00.0\n    Product Name : NVIDIA GH200 480GB\n"
        f"    GPU C2C Mode : {printed}\n"
    )
    x = (
        '<nvidia_smi_log><attached_gpus>1</attached_gpus><gpu id="00000000:01:00.0">'
        f"<product_name>NVIDIA GB200</product_name><c2c_mode>{printed}</c2c_mode></gpu>"
        "</nvidia_smi_log>"
    )
    for text in (q, x):
        metrics = registry.parse_text(text).metrics
        assert metrics["c2c_mode"] == [mode]
        assert metrics["c2c_enabled_gpus"] == (None if mode is None else int(mode == "Enabled"))
