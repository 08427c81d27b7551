"""Reference data on GPUs and NICs, and the all-reduce bus bandwidth a declared system should reach.

One package, read as one namespace (``from scoring.reference import match_gpu``), in modules by
subject:

- ``efficiency``: the shares of a line rate NCCL and host copies reach, PCIe's line rates;
- ``gpus``: the GPU table (NVIDIA datasheets, cited per row), other accelerators, name matching;
- ``names``: what a GPU name states, a declared GPU's row, the memory ECC leaves;
- ``datasheet``: what a GPU's datasheet rules out (NVLink topology, form factor);
- ``fabric``: NICs by ibstat's device id, the reference fabric, NVLink domains;
- ``busbw``: the expected all-reduce bus bandwidth and how it is derived.
"""

from .busbw import (
    FABRICS,
    NVLINK_TOPOLOGIES,
    ExpectedBusbw,
    expected_busbw_gbyte_s,
)
from .datasheet import (
    form_factor_ruled_out,
    nvlink_bridge_gpus,
    nvlink_topology_ruled_out,
    possible_nvlink_topology,
)
from .efficiency import (
    NET_RDMA_EFFICIENCY,
    NET_TCP_EFFICIENCY,
    NO_P2P_FACTOR,
    NVLINK_C2C_EFFICIENCY,
    NVLINK_C2C_GB200_EFFICIENCY,
    NVLINK_RING_EFFICIENCY,
    PCIE_EFFICIENCY,
    PCIE_X16_GBYTE_S,
    SPANS_SOCKETS_FACTOR,
)
from .fabric import (
    NIC_MAX_RATE_GBIT_S,
    NIC_NAMES,
    REFERENCE_FABRIC_GBIT_S_PER_GPU,
    STAND_IN_FABRIC_FAMILY,
    STAND_IN_FABRIC_GBIT_S_PER_GPU,
    STAND_IN_FABRIC_SOURCE,
    nic_max_rate_gbit_s,
    nvlink_domain_problem,
    nvlink_domain_size,
    reference_fabric,
    run_in_nvlink_domain,
)
from .gpus import (
    FORM_FACTORS,
    GPU_SPECS,
    NO_COLLECTIVE_REFERENCE,
    NO_INTERCONNECT_REFERENCE,
    OTHER_ACCELERATORS,
    GpuSpec,
    HostLink,
    OtherAccelerator,
    collective_reference_gap,
    gpu_family_of,
    host_link,
    interconnect_reference_gap,
    is_gpu_family,
    known_gpu_families,
    match_gpu,
    normalise_gpu_name,
    other_accelerator,
    parse_gpu_families,
)
from .names import (
    INLINE_ECC_GPU_KEYS,
    INLINE_ECC_RESERVED_SHARE,
    MEMORY_FIGURE_TOLERANCE,
    GpuNameFacts,
    claimed_gpu_facts,
    ecc_reserved_share,
    gpu_name_differences,
    gpu_name_facts,
    match_declared_gpu,
    memory_figures_agree,
)

__all__ = [
    "FABRICS",
    "FORM_FACTORS",
    "GPU_SPECS",
    "INLINE_ECC_GPU_KEYS",
    "INLINE_ECC_RESERVED_SHARE",
    "MEMORY_FIGURE_TOLERANCE",
    "NET_RDMA_EFFICIENCY",
    "NET_TCP_EFFICIENCY",
    "NIC_MAX_RATE_GBIT_S",
    "NIC_NAMES",
    "NO_COLLECTIVE_REFERENCE",
    "NO_INTERCONNECT_REFERENCE",
    "NO_P2P_FACTOR",
    "NVLINK_C2C_EFFICIENCY",
    "NVLINK_C2C_GB200_EFFICIENCY",
    "NVLINK_RING_EFFICIENCY",
    "NVLINK_TOPOLOGIES",
    "OTHER_ACCELERATORS",
    "PCIE_EFFICIENCY",
    "PCIE_X16_GBYTE_S",
    "REFERENCE_FABRIC_GBIT_S_PER_GPU",
    "SPANS_SOCKETS_FACTOR",
    "STAND_IN_FABRIC_FAMILY",
    "STAND_IN_FABRIC_GBIT_S_PER_GPU",
    "STAND_IN_FABRIC_SOURCE",
    "ExpectedBusbw",
    "GpuNameFacts",
    "GpuSpec",
    "HostLink",
    "OtherAccelerator",
    "claimed_gpu_facts",
    "collective_reference_gap",
    "ecc_reserved_share",
    "expected_busbw_gbyte_s",
    "form_factor_ruled_out",
    "gpu_family_of",
    "gpu_name_differences",
    "gpu_name_facts",
    "host_link",
    "interconnect_reference_gap",
    "is_gpu_family",
    "known_gpu_families",
    "match_declared_gpu",
    "match_gpu",
    "memory_figures_agree",
    "nic_max_rate_gbit_s",
    "normalise_gpu_name",
    "nvlink_bridge_gpus",
    "nvlink_domain_problem",
    "nvlink_domain_size",
    "nvlink_topology_ruled_out",
    "other_accelerator",
    "parse_gpu_families",
    "possible_nvlink_topology",
    "reference_fabric",
    "run_in_nvlink_domain",
]
